#include "core/model/model_builder.h"

#include <Eigen/Eigenvalues>
#include <algorithm>
#include <cmath>
#include <map>
#include <numbers>
#include <optional>
#include <set>
#include <sstream>

#include "core/io/scene_error.h"
#include "core/math/inequality_qp.h"
#include "core/model/input_sets.h"

namespace rbs {
namespace {

// Tolerances of the validation. A rotation counts as orthonormal when ‖RᵀR − I‖_F stays below
// 1e-6 (what six printed digits allow); unit axes likewise.
constexpr double kOrthonormalTol = 1e-6;
constexpr double kUnitTol = 1e-6;
// From this many coordinates on, a pure chain is factorized by Eigen's blocked Cholesky instead of
// the tree-sparse one (measured crossover between 10 and 30 coordinates, docs/BENCHMARKS.md).
constexpr int kDenseCholeskyMinSize = 24;

/// The element a check is about, for ModelError: kind, declaration index and name.
struct ElementRef {
  ModelElement kind;
  int index;
  const std::string& name;
};

/// "joint 'elbow': <message>".
[[noreturn]] void fail(const ElementRef& e, ModelField field, const std::string& message) {
  throw ModelError(e.kind, e.index, e.name, field,
                   std::string(modelElementName(e.kind)) + " '" + e.name + "': " + message);
}

/// For elements that have no name to quote: "actuator with empty name".
[[noreturn]] void failUnnamed(const ElementRef& e, const std::string& message) {
  throw ModelError(e.kind, e.index, e.name, ModelField::Name, message);
}

std::string str(double v) {
  std::ostringstream os;
  os.precision(6);
  os << v;
  return os.str();
}

// The checks below name the field twice: as ModelField for the front ends and in words (`what`)
// for the message, which may be more specific ("first frame offset" for FirstFrame).

void checkRotation(const Mat3& R, const ElementRef& e, ModelField field, const std::string& what) {
  if (!R.allFinite()) fail(e, field, what + " contains NaN or infinite values");
  const double err = orthogonalityError(R);
  if (err > kOrthonormalTol || R.determinant() < 0.0)
    fail(e, field,
         what + " is not a rotation matrix (‖RᵀR − I‖ = " + str(err) + ", det = " + str(R.determinant()) +
             "; expected orthonormal with det +1)");
}

void checkPose(const Pose& p, const ElementRef& e, ModelField field, const std::string& what) {
  if (!p.R.allFinite() || !p.r.allFinite()) fail(e, field, what + " contains NaN or infinite values");
  checkRotation(p.R, e, field, what + " rotation");
}

Vec3 checkUnit(const Vec3& a, const ElementRef& e, ModelField field, const std::string& what) {
  if (!a.allFinite()) fail(e, field, what + " contains NaN or infinite values");
  const double n = a.norm();
  if (n < 1e-12) fail(e, field, what + " is the zero vector; expected a unit vector");
  if (std::abs(n - 1.0) > kUnitTol) fail(e, field, what + " has norm " + str(n) + "; expected a unit vector");
  return a / n;
}

void checkSymmetricPsd(const Mat3& A, const ElementRef& e, ModelField field, const std::string& what) {
  if (!A.allFinite()) fail(e, field, what + " contains NaN or infinite values");
  const double scale = std::max(1.0, A.cwiseAbs().maxCoeff());
  if ((A - A.transpose()).cwiseAbs().maxCoeff() > 1e-9 * scale) fail(e, field, what + " is not symmetric");
  const Vec3 ev = Eigen::SelfAdjointEigenSolver<Mat3>(A).eigenvalues();
  if (ev.minCoeff() < -1e-12 * scale)
    fail(e, field, what + " is not positive semidefinite (smallest eigenvalue " + str(ev.minCoeff()) + ")");
}

void checkNonNegative(double v, const ElementRef& e, ModelField field, const std::string& what) {
  if (!std::isfinite(v)) fail(e, field, what + " is NaN or infinite");
  if (v < 0.0) fail(e, field, what + " is " + str(v) + "; expected ≥ 0");
}

/// A finite number > 0; `message` says so in the element's words.
void checkPositive(double v, const ElementRef& e, ModelField field, const std::string& message) {
  if (!(v > 0.0) || !std::isfinite(v)) fail(e, field, message);
}

/// Inertia of a joint's child body about the joint axis through the body-frame origin.
double rotorAxisInertia(const Model& m, const Joint& joint) {
  const Vec3 a = joint.child_placement.R.transpose() * joint.axis;
  return a.dot(m.bodies[joint.child].inertia_origin * a);
}

// ---- the steps of ModelBuilder::build(), in the order it runs them -----------------------------

/// The joint tree: names resolved, every body's parent joint, the topological order.
struct Tree {
  std::map<std::string, int, std::less<>> body_by_name;  ///< name → declaration index
  std::vector<int> parent_joint_of;  ///< body declaration index → declaration index of its joint
  std::vector<int> order;            ///< model body index → declaration index (parents first)
  std::vector<int> new_index;        ///< body declaration index → model body index

  bool hasBody(const std::string& name) const { return body_by_name.count(name) > 0; }
  /// Model index of a body by name; -1 for the world.
  int bodyIndex(const std::string& name) const { return name == kWorld ? -1 : new_index[body_by_name.at(name)]; }
  /// Declaration index of the joint whose child is model body `child`.
  int jointSpecOf(int child) const { return parent_joint_of[order[child]]; }
};

void checkBodies(const std::vector<BodySpec>& bodies, Tree& tree) {
  for (size_t i = 0; i < bodies.size(); ++i) {
    const BodySpec& b = bodies[i];
    const ElementRef e{ModelElement::Body, static_cast<int>(i), b.name};
    if (b.name.empty()) failUnnamed(e, "body with empty name");
    if (b.name == kWorld) fail(e, ModelField::Name, "the name 'world' is reserved for the inertial frame");
    if (!std::isfinite(b.mass)) fail(e, ModelField::Mass, "mass is NaN or infinite");
    // A massless body is accepted where what carries it still has inertia in every direction the
    // joints and closures allow (a mimic follower, the cross of a universal joint): the mass
    // matrix check at load decides (core/dynamics/mass_matrix_check.h).
    if (b.mass < 0.0) fail(e, ModelField::Mass, "mass is " + str(b.mass) + " kg; expected ≥ 0");
    if (!b.com.allFinite()) fail(e, ModelField::CentreOfMass, "centre of mass contains NaN or infinite values");
    if (!b.inertia.allFinite()) fail(e, ModelField::Inertia, "inertia contains NaN or infinite values");
    const double scale = b.inertia.cwiseAbs().maxCoeff();
    if ((b.inertia - b.inertia.transpose()).cwiseAbs().maxCoeff() > 1e-9 * std::max(scale, 1e-300))
      fail(e, ModelField::Inertia, "inertia tensor is not symmetric");
    if (const std::string problem = inertiaProblem(b.inertia, b.mass); !problem.empty()) fail(e, ModelField::Inertia, problem);
    if (!tree.body_by_name.emplace(b.name, static_cast<int>(i)).second)
      fail(e, ModelField::Name, "name is used by more than one body");
  }
}

/// Every body has exactly one parent joint; parents and children exist.
void connectJoints(const std::vector<BodySpec>& bodies, const std::vector<JointSpec>& joints, Tree& tree) {
  std::set<std::string, std::less<>> joint_names;
  tree.parent_joint_of.assign(bodies.size(), -1);
  for (size_t j = 0; j < joints.size(); ++j) {
    const JointSpec& js = joints[j];
    const ElementRef e{ModelElement::Joint, static_cast<int>(j), js.name};
    if (js.name.empty()) failUnnamed(e, "joint with empty name (child '" + js.child + "')");
    if (!joint_names.insert(js.name).second) fail(e, ModelField::Name, "name is used by more than one joint");
    if (js.child == kWorld) fail(e, ModelField::Child, "the world cannot be a child");
    auto c = tree.body_by_name.find(js.child);
    if (c == tree.body_by_name.end()) fail(e, ModelField::Child, "child body '" + js.child + "' does not exist");
    if (js.parent != kWorld && !tree.hasBody(js.parent))
      fail(e, ModelField::Parent, "parent body '" + js.parent + "' does not exist");
    if (js.parent == js.child) fail(e, ModelField::Child, "connects body '" + js.child + "' to itself");
    if (tree.parent_joint_of[c->second] >= 0)
      fail(e, ModelField::Child,
           "body '" + js.child + "' already has parent joint '" + joints[tree.parent_joint_of[c->second]].name +
               "'; a second connection closes a loop: declare it as a loop closure");
    tree.parent_joint_of[c->second] = static_cast<int>(j);
  }
  for (size_t b = 0; b < bodies.size(); ++b)
    if (tree.parent_joint_of[b] < 0)
      fail({ModelElement::Body, static_cast<int>(b), bodies[b].name}, ModelField::None,
           "has no parent joint; connect it to 'world' or another body (use a fixed or free joint)");
}

/// Breadth first from the world, children in declaration order; bodies not reached lie on a cycle.
void orderTopologically(const std::vector<BodySpec>& bodies, const std::vector<JointSpec>& joints, Tree& tree) {
  std::map<std::string, std::vector<int>, std::less<>> children_of;  // parent name → joints
  for (size_t j = 0; j < joints.size(); ++j) children_of[joints[j].parent].push_back(static_cast<int>(j));
  tree.new_index.assign(bodies.size(), -1);
  auto visit = [&](const std::string& parent) {
    const auto it = children_of.find(parent);
    if (it == children_of.end()) return;
    for (int j : it->second) {
      const int c = tree.body_by_name.at(joints[j].child);
      tree.new_index[c] = static_cast<int>(tree.order.size());
      tree.order.push_back(c);
    }
  };
  visit(kWorld);
  for (size_t next = 0; next < tree.order.size(); ++next) visit(bodies[tree.order[next]].name);  // order is the queue
  for (size_t b = 0; b < bodies.size(); ++b)
    if (tree.new_index[b] < 0) {
      const int j = tree.parent_joint_of[b];
      fail({ModelElement::Joint, j, joints[j].name}, ModelField::None,
           "is part of a cycle in the joint tree (body '" + bodies[b].name +
               "' is not connected to the world); close loops with a loop closure instead");
    }
}

/// Bodies in tree order with their spatial inertia (3.51).
void addBodies(const std::vector<BodySpec>& bodies, const Tree& tree, Model& m) {
  for (int b : tree.order) {
    const BodySpec& bs = bodies[b];
    Body body;
    body.name = bs.name;
    body.mass = bs.mass;
    body.com = bs.com;
    body.inertia_com = withoutRoundingNoise(0.5 * (bs.inertia + bs.inertia.transpose()));
    body.spatial_inertia = spatialInertia(bs.mass, bs.com, body.inertia_com);
    body.inertia_origin = body.spatial_inertia.bottomRightCorner<3, 3>();
    m.bodies.push_back(body);
  }
}

/// Joints in tree order: placements, axes, armature and their slices of x and ξ.
void addJoints(const std::vector<JointSpec>& joints, const Tree& tree, Model& m) {
  for (int b : tree.order) {
    const int index = tree.parent_joint_of[b];
    const JointSpec& js = joints[index];
    const ElementRef e{ModelElement::Joint, index, js.name};
    Joint j;
    j.name = js.name;
    j.type = js.type;
    j.parent = tree.bodyIndex(js.parent);
    j.child = tree.new_index[b];
    checkPose(js.parent_placement, e, ModelField::ParentPlacement, "parent placement");
    checkPose(js.child_placement, e, ModelField::ChildPlacement, "child placement");
    j.parent_placement = js.parent_placement;
    j.child_placement = js.child_placement;
    j.has_child_placement = !js.child_placement.isIdentity();
    j.has_parent_placement = !js.parent_placement.isIdentity();
    if (usesAxis(js.type)) j.axis = checkUnit(js.axis, e, ModelField::Axis, "axis");
    if (js.type == JointType::Universal) {
      j.axis2 = checkUnit(js.axis2, e, ModelField::SecondAxis, "second axis");
      if (j.axis.cross(j.axis2).norm() < 1e-6)
        fail(e, ModelField::SecondAxis, "universal joint axes are parallel; expected two independent axes");
    }
    if (js.type == JointType::SphericalAbsolute && j.has_child_placement)
      fail(e, ModelField::ChildPlacement,
           "spherical_absolute requires the child frame at the joint (identity child placement)");
    if (js.armature != 0.0) {
      if (!hasScalarPosition(js.type))
        fail(e, ModelField::Armature, "armature applies to one-axis joints (revolute, prismatic)");
      checkPositive(js.armature, e, ModelField::Armature, "armature must be finite and ≥ 0");
      j.armature = js.armature;
    }
    j.axis_in_parent = j.parent_placement.R * j.axis;
    formRevoluteRotationTerms(j);
    if (js.rotor_coupling != 0.0) {
      if (!isRevoluteType(js.type))
        fail(e, ModelField::RotorCoupling, "rotor_coupling applies to revolute joints (a geared rotor turning with it)");
      if (!std::isfinite(js.rotor_coupling)) fail(e, ModelField::RotorCoupling, "rotor_coupling must be finite");
      if (j.parent < 0)
        fail(e, ModelField::RotorCoupling, "rotor_coupling needs a parent body to hold the rotor; the parent is the world");
      // The rotor has Θ_S = Θ_AC²/armature (armature n² Θ_S, coupling n Θ_S) and Θ_S a aᵀ is part of
      // the parent's inertia: what is left of the parent, Θ_com − Θ_S a aᵀ, must still be a body
      // (positive semidefinite), else M is not positive definite. (For a principal axis this is
      // Θ_S ≤ Θ_axis; off a principal axis the products of inertia make it stricter.)
      if (!(js.armature > 0.0))
        fail(e, ModelField::RotorCoupling, "rotor_coupling needs the rotor's armature n² Θ_S > 0 on the same joint");
      const Body& parent = m.bodies[j.parent];
      const double rotor = js.rotor_coupling * js.rotor_coupling / js.armature;
      const Mat3 rest = parent.inertia_com - rotor * j.axis_in_parent * j.axis_in_parent.transpose();
      const double smallest = Eigen::SelfAdjointEigenSolver<Mat3>(rest, Eigen::EigenvaluesOnly).eigenvalues()(0);
      if (smallest < -1e-12 * parent.inertia_com.trace())
        fail(e, ModelField::RotorCoupling,
             "rotor_coupling Θ_AC = " + std::to_string(js.rotor_coupling) + " kg m² with armature " +
                 std::to_string(js.armature) + " means a rotor of Θ_S = Θ_AC²/armature = " + std::to_string(rotor) +
                 " kg m² about the axis, more than the parent body '" + parent.name +
                 "' holds (its inertia minus the rotor's would have a principal moment of " + std::to_string(smallest) +
                 " kg m²)");
      j.rotor_coupling = js.rotor_coupling;
    }
    j.nx = configurationSize(js.type);
    j.nxi = velocitySize(js.type);
    j.x_offset = m.nx;
    j.xi_offset = m.nxi;
    m.nx += j.nx;
    m.nxi += j.nxi;
    m.joints.push_back(j);
  }
}

/// x₀ and ξ₀: the neutral state with each joint's initial position, pose and velocity.
void setInitialState(const std::vector<JointSpec>& joints, const Tree& tree, Model& m) {
  m.initial_state = m.neutralState();
  for (const Joint& j : m.joints) {
    const int index = tree.jointSpecOf(j.child);
    const JointSpec& js = joints[index];
    const ElementRef e{ModelElement::Joint, index, js.name};
    double* x = m.initial_state.x.data() + j.x_offset;
    if (js.initial_position) {
      if (!hasScalarPosition(j.type))
        fail(e, ModelField::InitialPosition, "an initial position (scalar) needs a one-degree-of-freedom joint");
      const double q = *js.initial_position;
      if (!std::isfinite(q)) fail(e, ModelField::InitialPosition, "initial position is NaN or infinite");
      setJointScalarPosition(j, q, x);
    }
    if (js.initial_motion) {
      checkPose(*js.initial_motion, e, ModelField::InitialPose, "initial pose");
      jointCoordinatesFromMotion(j, *js.initial_motion, x);
    }
    if (js.initial_velocity.size() != 0) {
      if (js.initial_velocity.size() != j.nxi)
        fail(e, ModelField::InitialVelocity,
             "initial velocity has " + std::to_string(js.initial_velocity.size()) + " components; the joint has " +
                 std::to_string(j.nxi));
      if (!js.initial_velocity.allFinite()) fail(e, ModelField::InitialVelocity, "initial velocity is NaN or infinite");
      m.initial_state.xi.segment(j.xi_offset, j.nxi) = js.initial_velocity;
    }
  }
}

void setJointLimits(const std::vector<JointSpec>& joints, const Tree& tree, Model& m) {
  m.joint_limits.resize(m.joints.size());
  for (const Joint& j : m.joints) {
    const int index = tree.jointSpecOf(j.child);
    const JointSpec& js = joints[index];
    if (!js.limits) continue;
    const ElementRef e{ModelElement::Joint, index, js.name};
    if (!hasScalarPosition(j.type)) fail(e, ModelField::Limits, "limits apply to one-degree-of-freedom joints");
    const JointLimits& l = *js.limits;
    if (std::isnan(l.lower) || std::isnan(l.upper) || l.lower > l.upper)
      fail(e, ModelField::Limits, "position limits [" + str(l.lower) + ", " + str(l.upper) + "] are not an interval");
    if (!(l.effort >= 0.0) || !(l.velocity >= 0.0))
      fail(e, ModelField::Limits, "effort and velocity limits must be ≥ 0");
    m.joint_limits[j.child] = l;
  }
}

/// The tree's sparsity for the factorization of M and the Jacobians: each coordinate's parent
/// coordinate, runs of chained coordinates, each body's supporting columns.
void analyseSparsity(Model& m) {
  m.support.resize(m.bodies.size());
  m.dof_parent.assign(m.nxi, -1);
  for (const Joint& j : m.joints) {
    int previous = -1;  // last coordinate of the nearest ancestor joint with coordinates
    for (int a = j.parent; a >= 0 && previous < 0; a = m.joints[a].parent)
      if (m.joints[a].nxi > 0) previous = m.joints[a].xi_offset + m.joints[a].nxi - 1;
    for (int c = 0; c < j.nxi; ++c) m.dof_parent[j.xi_offset + c] = c == 0 ? previous : j.xi_offset + c - 1;
  }
  m.dof_run_start.resize(m.nxi);
  for (int i = 0; i < m.nxi; ++i)
    m.dof_run_start[i] = i > 0 && m.dof_parent[i] == i - 1 ? m.dof_run_start[i - 1] : i;
  m.dofs_form_chain = m.nxi >= kDenseCholeskyMinSize && m.dof_run_start[m.nxi - 1] == 0;
  m.constant_mass_matrix = std::all_of(m.joints.begin(), m.joints.end(), [](const Joint& j) {
    return j.parent < 0 && hasConstantMotionSubspace(j.type);
  });
  for (const Joint& j : m.joints) {
    std::vector<int> cols = j.parent >= 0 ? m.support[j.parent] : std::vector<int>{};
    for (int c = 0; c < j.nxi; ++c) cols.push_back(j.xi_offset + c);
    std::sort(cols.begin(), cols.end());
    m.support[j.child] = std::move(cols);
  }
}

/// A frame of a force element or loop closure: an existing body (or the world) and an offset.
Frame resolveFrame(const FrameSpec& f, const Tree& tree, const ElementRef& e, ModelField field,
                   const std::string& which) {
  if (f.body != kWorld && !tree.hasBody(f.body)) fail(e, field, which + " body '" + f.body + "' does not exist");
  checkPose(f.offset, e, field, which + " frame offset");
  return Frame{tree.bodyIndex(f.body), f.offset};
}

/// Springs (3.68): K from k, h and Π_s.
void addSprings(const std::vector<SpringSpec>& springs, const Tree& tree, Model& m) {
  for (size_t i = 0; i < springs.size(); ++i) {
    const SpringSpec& s = springs[i];
    const ElementRef e{ModelElement::Spring, static_cast<int>(i), s.name};
    Spring sp;
    sp.name = s.name;
    sp.a = resolveFrame(s.a, tree, e, ModelField::FirstFrame, "first");
    sp.b = resolveFrame(s.b, tree, e, ModelField::SecondFrame, "second");
    if (sp.a.body == sp.b.body) fail(e, ModelField::Frames, "connects a body to itself");
    checkPose(s.rest, e, ModelField::RestPose, "rest pose");
    sp.rest = s.rest;
    checkNonNegative(s.stiffness, e, ModelField::Stiffness, "stiffness");
    if (!s.center.allFinite()) fail(e, ModelField::Centre, "centre of stiffness is NaN or infinite");
    checkSymmetricPsd(s.rotational_stiffness, e, ModelField::RotationalStiffness, "rotational stiffness");
    sp.stiffness = rigidBodyStiffness(s.stiffness, s.center, s.rotational_stiffness);
    sp.stiffness_moment = Wed(sp.stiffness);
    m.springs.push_back(sp);
  }
}

/// Dampers (3.72): D from d, l and Υ_s.
void addDampers(const std::vector<DamperSpec>& dampers, const Tree& tree, Model& m) {
  for (size_t i = 0; i < dampers.size(); ++i) {
    const DamperSpec& d = dampers[i];
    const ElementRef e{ModelElement::Damper, static_cast<int>(i), d.name};
    Damper dp;
    dp.name = d.name;
    dp.a = resolveFrame(d.a, tree, e, ModelField::FirstFrame, "first (fluid)");
    dp.b = resolveFrame(d.b, tree, e, ModelField::SecondFrame, "second");
    if (dp.a.body == dp.b.body) fail(e, ModelField::Frames, "connects a body to itself");
    checkNonNegative(d.damping, e, ModelField::Damping, "damping");
    if (!d.center.allFinite()) fail(e, ModelField::Centre, "centre of damping is NaN or infinite");
    checkSymmetricPsd(d.rotational_damping, e, ModelField::RotationalDamping, "rotational damping");
    dp.damping = rigidBodyStiffness(d.damping, d.center, d.rotational_damping);
    m.dampers.push_back(dp);
  }
}

void addJointSpringDampers(const std::vector<JointSpringDamperSpec>& springs, Model& m) {
  for (size_t i = 0; i < springs.size(); ++i) {
    const JointSpringDamperSpec& s = springs[i];
    const ElementRef e{ModelElement::JointSpring, static_cast<int>(i), s.joint};
    const int j = m.jointIndex(s.joint);
    if (j < 0) fail(e, ModelField::Joint, "joint does not exist");
    const JointType t = m.joints[j].type;
    if (!hasScalarPosition(t))
      fail(e, ModelField::Joint,
           "joint springs act on revolute, revolute_unit_circle or prismatic joints; use a spring "
           "between frames for '" + std::string(jointTypeName(t)) + "'");
    checkNonNegative(s.stiffness, e, ModelField::Stiffness, "stiffness");
    checkNonNegative(s.damping, e, ModelField::Damping, "damping");
    checkNonNegative(s.friction, e, ModelField::Friction, "friction");
    checkPositive(s.friction_velocity, e, ModelField::Friction, "friction regularization velocity must be finite and > 0");
    if (!std::isfinite(s.rest_position)) fail(e, ModelField::RestPosition, "rest position is NaN or infinite");
    m.joint_spring_dampers.push_back({j, s.stiffness, s.rest_position, s.damping, s.friction, s.friction_velocity});
  }
}

void addExternalWrenches(const std::vector<ExternalWrenchSpec>& wrenches, const Tree& tree, Model& m) {
  for (size_t i = 0; i < wrenches.size(); ++i) {
    const ExternalWrenchSpec& w = wrenches[i];
    const ElementRef e{ModelElement::ExternalWrench, static_cast<int>(i), w.body};
    if (!tree.hasBody(w.body)) fail(e, ModelField::Body, "body does not exist");
    const std::pair<const Vec3*, ModelField> values[] = {
        {&w.point, ModelField::Point}, {&w.force, ModelField::Force}, {&w.torque, ModelField::Torque}};
    for (const auto& [value, field] : values)
      if (!value->allFinite()) fail(e, field, "contains NaN or infinite values");
    m.external_wrenches.push_back({tree.bodyIndex(w.body), w.point, w.force, w.torque, w.world_axes});
  }
}

/// The joint an effort or servo acts on; Actuator::gain of a speed servo from the rotor inertia.
void resolveJointActuator(const ActuatorSpec& a, const ElementRef& e, const Model& m, Actuator& act) {
  act.joint = m.jointIndex(a.joint);
  if (act.joint < 0) fail(e, ModelField::Joint, "joint '" + a.joint + "' does not exist");
  const Joint& joint = m.joints[act.joint];
  if (a.component < 0 || a.component >= joint.nxi)
    fail(e, ModelField::Component,
         "component " + std::to_string(a.component) + " is out of range; joint '" + a.joint + "' has " +
             std::to_string(joint.nxi) + " velocity coordinates");
  act.component = a.component;
  checkPositive(a.gain, e, ModelField::Gain, "gain must be finite and > 0");
  act.gain = a.gain;
  if (a.kind == ActuatorKind::JointServo) {
    // (5.2) compares θ_R with the joint angle: only angle/displacement coordinates have one.
    if (joint.type != JointType::Revolute && joint.type != JointType::Prismatic)
      fail(e, ModelField::Joint,
           "a servo needs a revolute joint with angle coordinates or a prismatic joint; joint '" + a.joint +
               "' is " + std::string(jointTypeName(joint.type)));
    if (!(a.damping >= 0.0) || !std::isfinite(a.damping)) fail(e, ModelField::Damping, "damping must be finite and ≥ 0");
    act.damping = a.damping;
  }
  if (a.kind == ActuatorKind::JointSpeedServo) {
    if (!isRevoluteType(joint.type))
      fail(e, ModelField::Joint,
           "a speed servo needs a revolute joint; joint '" + a.joint + "' is " + std::string(jointTypeName(joint.type)));
    checkPositive(a.time_constant, e, ModelField::TimeConstant, "time constant must be finite and > 0");
    act.gain = (rotorAxisInertia(m, joint) + joint.armature) / a.time_constant;
  }
}

/// The body a force or torque acts on and its unit wrench.
void resolveBodyActuator(const ActuatorSpec& a, const ElementRef& e, const Tree& tree, Actuator& act) {
  if (!tree.hasBody(a.body)) fail(e, ModelField::Body, "body '" + a.body + "' does not exist");
  act.body = tree.bodyIndex(a.body);
  act.direction = checkUnit(a.direction, e, ModelField::Direction, "direction");
  if (!a.point.allFinite()) fail(e, ModelField::Point, "point is NaN or infinite");
  act.point = a.point;
  if (!std::isfinite(a.torque_ratio)) fail(e, ModelField::TorqueRatio, "torque_ratio is NaN or infinite");
  if (a.kind != ActuatorKind::BodyForce && a.torque_ratio != 0.0)
    fail(e, ModelField::TorqueRatio, "torque_ratio applies to body_force actuators only");
  act.torque_ratio = a.torque_ratio;
  if (a.kind == ActuatorKind::BodyForce)
    act.unit_wrench << act.direction, act.point.cross(act.direction) + act.torque_ratio * act.direction;
  else
    act.unit_wrench << Vec3::Zero(), act.direction;
}

void addActuators(const std::vector<ActuatorSpec>& actuators, const Tree& tree, Model& m) {
  std::set<std::string, std::less<>> names;
  for (size_t i = 0; i < actuators.size(); ++i) {
    const ActuatorSpec& a = actuators[i];
    const ElementRef e{ModelElement::Actuator, static_cast<int>(i), a.name};
    if (a.name.empty()) failUnnamed(e, "actuator with empty name");
    if (!names.insert(a.name).second) fail(e, ModelField::Name, "name is used by more than one actuator");
    Actuator act;
    act.name = a.name;
    act.kind = a.kind;
    if (std::isnan(a.lower) || std::isnan(a.upper) || a.lower > a.upper)
      fail(e, ModelField::Limits, "limits [" + str(a.lower) + ", " + str(a.upper) + "] are not an interval");
    act.lower = a.lower;
    act.upper = a.upper;
    if (actsOnJoint(a.kind))
      resolveJointActuator(a, e, m, act);
    else
      resolveBodyActuator(a, e, tree, act);
    m.actuators.push_back(act);
  }
}

void addPropellers(const std::vector<PropellerSpec>& propellers, Model& m) {
  std::set<std::string, std::less<>> names;
  for (size_t i = 0; i < propellers.size(); ++i) {
    const PropellerSpec& p = propellers[i];
    const ElementRef e{ModelElement::Propeller, static_cast<int>(i), p.name};
    if (p.name.empty()) failUnnamed(e, "propeller with empty name");
    if (!names.insert(p.name).second) fail(e, ModelField::Name, "name is used by more than one propeller");
    Propeller prop;
    prop.name = p.name;
    prop.joint = m.jointIndex(p.joint);
    if (prop.joint < 0) fail(e, ModelField::Joint, "joint '" + p.joint + "' does not exist");
    const Joint& joint = m.joints[prop.joint];
    if (!isRevoluteType(joint.type))
      fail(e, ModelField::Joint,
           "joint '" + p.joint + "' must be revolute; it is " + std::string(jointTypeName(joint.type)));
    if (m.propellerOnJoint(prop.joint) >= 0) fail(e, ModelField::Joint, "joint '" + p.joint + "' already carries a propeller");
    // rotorsAsThrusters() names each thrust input after its propeller and keeps every actuator
    // that is not on the rotor's joint: those must not use the name.
    for (const Actuator& a : m.actuators)
      if (a.name == p.name && !(actsOnJoint(a.kind) && a.joint == prop.joint))
        fail(e, ModelField::Name,
             "name is also the name of an actuator; the force model names its thrust inputs after the propellers");
    prop.spin_axis = joint.child_placement.R.transpose() * joint.axis;  // joint frame → rotor body frame
    prop.thrust_direction = checkUnit(p.thrust_direction, e, ModelField::ThrustDirection, "thrust direction");
    if (std::abs(prop.thrust_direction.dot(prop.spin_axis)) < 1.0 - 1e-9)
      fail(e, ModelField::ThrustDirection, "thrust direction must be parallel to the spin axis of joint '" + p.joint + "'");
    checkPositive(p.thrust_coefficient, e, ModelField::ThrustCoefficient, "thrust coefficient must be finite and > 0");
    checkNonNegative(p.drag_coefficient, e, ModelField::DragCoefficient, "drag coefficient");
    checkNonNegative(p.friction, e, ModelField::Friction, "friction");
    checkNonNegative(p.min_speed, e, ModelField::SpeedLimits, "minimum speed");
    if (!(p.max_speed > p.min_speed))
      fail(e, ModelField::SpeedLimits,
           "speed limits [" + str(p.min_speed) + ", " + str(p.max_speed) + "] are not an interval");
    prop.thrust_coefficient = p.thrust_coefficient;
    prop.drag_coefficient = p.drag_coefficient;
    prop.friction = p.friction;
    prop.min_speed = p.min_speed;
    prop.max_speed = p.max_speed;
    m.propellers.push_back(prop);
  }
}

/// A JointCoupling's joint: one degree of freedom with an angle or displacement coordinate.
int coupledJoint(const std::string& name, const Model& m, const ElementRef& e, ModelField field, const char* role) {
  const int j = m.jointIndex(name);
  if (j < 0) fail(e, field, std::string(role) + " joint '" + name + "' does not exist");
  const JointType t = m.joints[j].type;
  if (t != JointType::Revolute && t != JointType::Prismatic)
    fail(e, field,
         std::string(role) + " joint '" + name + "' is " + std::string(jointTypeName(t)) +
             "; joint couplings act on revolute (angle) and prismatic joints");
  return j;
}

void addLoopClosures(const std::vector<LoopClosureSpec>& closures, const Tree& tree, Model& m) {
  for (size_t i = 0; i < closures.size(); ++i) {
    const LoopClosureSpec& l = closures[i];
    const ElementRef e{ModelElement::LoopClosure, static_cast<int>(i), l.name};
    LoopClosure lc;
    lc.name = l.name;
    lc.kind = l.kind;
    if (l.kind == LoopClosure::Kind::JointCoupling) {
      lc.follower = coupledJoint(l.follower, m, e, ModelField::Joint, "follower");
      lc.leader = coupledJoint(l.leader, m, e, ModelField::Joint, "leader");
      if (lc.follower == lc.leader) fail(e, ModelField::Joint, "couples joint '" + l.follower + "' to itself");
      if (!std::isfinite(l.multiplier) || !std::isfinite(l.offset))
        fail(e, ModelField::Gain, "multiplier and offset must be finite");
      lc.multiplier = l.multiplier;
      lc.offset = l.offset;
    } else {
      lc.a = resolveFrame(l.a, tree, e, ModelField::FirstFrame, "first");
      lc.b = resolveFrame(l.b, tree, e, ModelField::SecondFrame, "second");
      if (lc.a.body == lc.b.body) fail(e, ModelField::Frames, "connects a body to itself");
    }
    checkNonNegative(l.stabilization_frequency, e, ModelField::StabilizationFrequency, "stabilization frequency");
    checkNonNegative(l.stabilization_damping, e, ModelField::StabilizationDamping, "stabilization damping");
    lc.stabilization_frequency = l.stabilization_frequency;
    lc.stabilization_damping = l.stabilization_damping;
    m.constraint_rows += lc.rows();
    m.loop_closures.push_back(lc);
  }
  satisfyJointCouplings(m, m.initial_state);
}

void addVisuals(const std::vector<VisualSpec>& visuals, const Tree& tree, Model& m) {
  for (size_t i = 0; i < visuals.size(); ++i) {
    const VisualSpec& v = visuals[i];
    const ElementRef e{ModelElement::Visual, static_cast<int>(i), v.body};
    if (!tree.hasBody(v.body)) fail(e, ModelField::Body, "body does not exist");
    checkPose(v.origin, e, ModelField::Origin, "origin");
    if (!v.size.allFinite()) fail(e, ModelField::Size, "sizes must be finite");
    if (v.shape != Visual::Shape::Mesh && (v.size.array() < 0.0).any())
      fail(e, ModelField::Size, "sizes must be ≥ 0 (a mesh's negative scale mirrors it; a primitive's size is a length)");
    if (!v.color.allFinite() || (v.color.array() < 0.0).any() || (v.color.array() > 1.0).any())
      fail(e, ModelField::Colour, "colour components must lie in [0, 1]");
    if (v.shape == Visual::Shape::Mesh && v.mesh_file.empty()) fail(e, ModelField::Mesh, "mesh without a file");
    m.visuals.push_back(Visual{tree.bodyIndex(v.body), v.shape, v.size, v.mesh_file, v.origin, v.color});
  }
}

/// Input sets: named, over distinct existing inputs, with finite nonzero rows of the right width,
/// and not empty together with the limits of their inputs (decided by the dual QP, which reports
/// an empty set: min ½‖u‖² over the set).
void addInputSets(const std::vector<InputSetSpec>& sets, Model& m) {
  std::set<std::string, std::less<>> names;
  for (size_t i = 0; i < sets.size(); ++i) {
    const InputSetSpec& spec = sets[i];
    const ElementRef e{ModelElement::InputSet, static_cast<int>(i), spec.name};
    if (spec.name.empty()) failUnnamed(e, "input set with empty name");
    if (!names.insert(spec.name).second) fail(e, ModelField::Name, "name is used by more than one input set");
    InputSet set;
    set.name = spec.name;
    if (spec.inputs.empty()) fail(e, ModelField::Inputs, "lists no inputs");
    for (const std::string& input : spec.inputs) {
      const auto it = std::find_if(m.actuators.begin(), m.actuators.end(), [&](const Actuator& a) { return a.name == input; });
      if (it == m.actuators.end()) fail(e, ModelField::Inputs, "no actuator is named '" + input + "'");
      const int index = static_cast<int>(it - m.actuators.begin());
      if (std::find(set.inputs.begin(), set.inputs.end(), index) != set.inputs.end())
        fail(e, ModelField::Inputs, "input '" + input + "' is listed twice");
      // One set per input: the emptiness test below is then exact for the sets together.
      for (const InputSet& other : m.input_sets)
        if (std::find(other.inputs.begin(), other.inputs.end(), index) != other.inputs.end())
          fail(e, ModelField::Inputs, "input '" + input + "' is already in input set '" + other.name +
                                          "'; an input belongs to at most one set (merge their rows into one set)");
      set.inputs.push_back(index);
    }
    const Eigen::Index width = static_cast<Eigen::Index>(spec.inputs.size());
    if (spec.rows.rows() < 1 || spec.rows.cols() != width || spec.bounds.size() != spec.rows.rows())
      fail(e, ModelField::Rows, "expected at least one row of " + std::to_string(width) + " coefficients, one per input, "
                                "and one bound per row; got " + std::to_string(spec.rows.rows()) + " × " +
                                std::to_string(spec.rows.cols()) + " coefficients and " + std::to_string(spec.bounds.size()) + " bounds");
    for (Eigen::Index r = 0; r < spec.rows.rows(); ++r) {
      if (!spec.rows.row(r).allFinite() || !std::isfinite(spec.bounds(r)))
        fail(e, ModelField::Rows, "row " + std::to_string(r) + " has a NaN or infinite entry");
      if (spec.rows.row(r).cwiseAbs().maxCoeff() == 0.0)
        fail(e, ModelField::Rows, "row " + std::to_string(r) + " has all coefficients 0");
    }
    set.rows = spec.rows;
    set.bounds = spec.bounds;
    // Emptiness with the limits: the set's rows and the limits of its inputs.
    const int k = static_cast<int>(width);
    VecX lower(k), upper(k);
    for (int j = 0; j < k; ++j) {
      lower(j) = m.actuators[static_cast<size_t>(set.inputs[static_cast<size_t>(j)])].lower;
      upper(j) = m.actuators[static_cast<size_t>(set.inputs[static_cast<size_t>(j)])].upper;
    }
    MatX A;
    VecX c;
    stackWithBounds(set.rows, set.bounds, lower, upper, A, c);
    InequalityQp qp(k, static_cast<int>(A.rows()));
    const InequalityQpResult& r = qp.solve(MatX::Identity(k, k), VecX::Zero(k), A, c, 10 * static_cast<int>(A.rows()) + 50);
    if (r.status == InequalityQpStatus::Infeasible)
      fail(e, ModelField::Rows, "no input satisfies all rows together with the limits of its inputs: the set is empty");
    if (r.status != InequalityQpStatus::Optimal)
      fail(e, ModelField::Rows, "could not decide whether the set is empty (" + std::string(toString(r.status)) + ")");
    m.input_sets.push_back(std::move(set));
  }
}

/// Named frames: on an existing body (not the world), with names no body or other frame has.
void addNamedFrames(const std::vector<std::pair<std::string, FrameSpec>>& frames, const Tree& tree, Model& m) {
  std::set<std::string, std::less<>> names;
  for (const auto& [name, spec] : frames) {
    const ElementRef e{ModelElement::Model, 0, name};
    if (name.empty()) fail(e, ModelField::Name, "a named frame needs a name");
    if (tree.hasBody(name) || !names.insert(name).second)
      fail(e, ModelField::Name, "frame '" + name + "': the name is already used by a body or another frame");
    if (spec.body == kWorld) fail(e, ModelField::Body, "frame '" + name + "': named frames are on bodies, not the world");
    m.frames.push_back(NamedFrame{name, resolveFrame(spec, tree, e, ModelField::Body, "frame '" + name + "':")});
  }
}

/// One free-floating body driven by body forces and torques only: the dynamics take the
/// Newton–Euler shortcut (core/dynamics).
bool isSingleRigidBody(const Model& m) {
  return m.joints.size() == 1 && m.joints[0].parent < 0 && hasIdentityMotionSubspace(m.joints[0]) &&
         m.springs.empty() && m.dampers.empty() && m.joint_spring_dampers.empty() && m.propellers.empty() &&
         m.loop_closures.empty() && std::all_of(m.actuators.begin(), m.actuators.end(), [](const Actuator& a) {
           return !actsOnJoint(a.kind);
         });
}

}  // namespace

const char* modelElementName(ModelElement kind) {
  switch (kind) {
    case ModelElement::Model: return "model";
    case ModelElement::Body: return "body";
    case ModelElement::Joint: return "joint";
    case ModelElement::Spring: return "spring";
    case ModelElement::Damper: return "damper";
    case ModelElement::JointSpring: return "joint spring";
    case ModelElement::ExternalWrench: return "external wrench";
    case ModelElement::Actuator: return "actuator";
    case ModelElement::Propeller: return "propeller";
    case ModelElement::LoopClosure: return "loop closure";
    case ModelElement::Visual: return "visual";
    case ModelElement::InputSet: return "input set";
  }
  return "element";
}

const char* modelFieldName(ModelField field) {
  switch (field) {
    case ModelField::None: return "none";
    case ModelField::Name: return "name";
    case ModelField::Gravity: return "gravity";
    case ModelField::Mass: return "mass";
    case ModelField::CentreOfMass: return "centre of mass";
    case ModelField::Inertia: return "inertia";
    case ModelField::Parent: return "parent";
    case ModelField::Child: return "child";
    case ModelField::ParentPlacement: return "parent placement";
    case ModelField::ChildPlacement: return "child placement";
    case ModelField::Axis: return "axis";
    case ModelField::SecondAxis: return "second axis";
    case ModelField::Armature: return "armature";
    case ModelField::RotorCoupling: return "rotor_coupling";
    case ModelField::InitialPosition: return "initial position";
    case ModelField::InitialPose: return "initial pose";
    case ModelField::InitialVelocity: return "initial velocity";
    case ModelField::Limits: return "limits";
    case ModelField::FirstFrame: return "first frame";
    case ModelField::SecondFrame: return "second frame";
    case ModelField::Frames: return "frames";
    case ModelField::RestPose: return "rest pose";
    case ModelField::Stiffness: return "stiffness";
    case ModelField::Centre: return "centre";
    case ModelField::RotationalStiffness: return "rotational stiffness";
    case ModelField::Damping: return "damping";
    case ModelField::RotationalDamping: return "rotational damping";
    case ModelField::RestPosition: return "rest position";
    case ModelField::StabilizationFrequency: return "stabilization frequency";
    case ModelField::StabilizationDamping: return "stabilization damping";
    case ModelField::Joint: return "joint";
    case ModelField::Body: return "body";
    case ModelField::Point: return "point";
    case ModelField::Force: return "force";
    case ModelField::Torque: return "torque";
    case ModelField::Component: return "component";
    case ModelField::Gain: return "gain";
    case ModelField::TimeConstant: return "time constant";
    case ModelField::Direction: return "direction";
    case ModelField::TorqueRatio: return "torque ratio";
    case ModelField::ThrustDirection: return "thrust direction";
    case ModelField::ThrustCoefficient: return "thrust coefficient";
    case ModelField::DragCoefficient: return "drag coefficient";
    case ModelField::Friction: return "friction";
    case ModelField::SpeedLimits: return "speed limits";
    case ModelField::Origin: return "origin";
    case ModelField::Size: return "size";
    case ModelField::Colour: return "colour";
    case ModelField::Mesh: return "mesh";
    case ModelField::Inputs: return "inputs";
    case ModelField::Rows: return "rows";
  }
  return "field";
}

ModelError::ModelError(ModelElement kind, int index, std::string name, ModelField field, const std::string& message)
    : std::runtime_error(message), kind_(kind), index_(index), name_(std::move(name)), field_(field) {}

std::string inertiaProblem(const Mat3& inertia_com, double mass) {
  const Vec3 ev = Eigen::SelfAdjointEigenSolver<Mat3>(inertia_com).eigenvalues();  // ascending
  // The body's own scale: its largest moment, or its mass at kRoundingLength for a point mass
  // whose file writes noise for the moments (iCub's l_ankle_2: 0.2675 kg, moments ±1.36e-20).
  const double scale = std::max({ev(2), mass * kRoundingLength * kRoundingLength, 0.0});
  if (ev(0) < -kInertiaRounding * scale || ev(2) < -kInertiaRounding * scale)
    return "inertia tensor is not positive semidefinite (principal moments " + str(ev(0)) + ", " + str(ev(1)) + ", " +
           str(ev(2)) + " kg m²)";
  return {};
}

Mat3 withLeastPrincipalMoment(const Mat3& inertia_com, double least, double tolerance) {
  const Eigen::SelfAdjointEigenSolver<Mat3> eigen(inertia_com);
  if (eigen.eigenvalues()(0) >= least - tolerance) return inertia_com;
  const Mat3& V = eigen.eigenvectors();
  return V * eigen.eigenvalues().cwiseMax(least).asDiagonal() * V.transpose();
}

bool applyLowerBounds(BodySpec& body, double bound_mass, double bound_inertia) {
  // A negative mass or an indefinite tensor is an error in the file, not a light part: left for
  // the validation to report.
  bool raised = false;
  if (body.mass >= 0.0 && body.mass < bound_mass) {
    if (body.mass == 0.0) body.com.setZero();
    body.mass = bound_mass;
    raised = true;
  }
  if (bound_inertia > 0.0 && body.inertia.allFinite() && body.mass >= 0.0 &&
      inertiaProblem(body.inertia, body.mass).empty()) {
    const Mat3 bounded = withLeastPrincipalMoment(body.inertia, bound_inertia);
    raised = raised || bounded != body.inertia;
    body.inertia = bounded;
  }
  return raised;
}

std::string lowerBoundsWarning(double bound_mass, double bound_inertia, const std::vector<std::string>& raised) {
  std::ostringstream what;
  what << "bound_mass " << bound_mass << " kg and bound_inertia " << bound_inertia
       << " kg m² raised the mass or the least principal moment of " << raised.size()
       << (raised.size() == 1 ? " body: " : " bodies: ") << quotedNames(raised);
  return what.str();
}

Mat3 withoutRoundingNoise(const Mat3& inertia_com) {
  // Below 1e-12 of the largest moment is the eigen solver's own rounding: left as it is.
  const double largest = Eigen::SelfAdjointEigenSolver<Mat3>(inertia_com, Eigen::EigenvaluesOnly).eigenvalues()(2);
  return withLeastPrincipalMoment(inertia_com, 0.0, 1e-12 * std::max(largest, 0.0));
}

double triangleInequalityExcess(const Mat3& inertia_com) {
  const Vec3 ev = Eigen::SelfAdjointEigenSolver<Mat3>(inertia_com).eigenvalues();  // ascending
  // equality is a flat plate; 1e-9 relative tolerates the rounding of a rotated plate's tensor
  const double excess = ev(2) - ev(0) - ev(1);
  return excess > 1e-9 * ev(2) ? excess : 0.0;
}

Mat3 balanceInertia(const Mat3& inertia_com) {
  if (triangleInequalityExcess(inertia_com) == 0.0) return inertia_com;
  return inertia_com.trace() / 3.0 * Mat3::Identity();
}

Mat3 applyTriangleInequalityPolicy(const Mat3& inertia_com, bool balance, const std::string& remedy,
                                   std::string& warning) {
  warning.clear();
  const double excess = triangleInequalityExcess(inertia_com);
  if (excess == 0.0) return inertia_com;
  const Vec3 ev = Eigen::SelfAdjointEigenSolver<Mat3>(inertia_com).eigenvalues();
  warning = "principal moments " + str(ev(0)) + ", " + str(ev(1)) + ", " + str(ev(2)) +
            " kg m² violate the triangle inequality I₁ + I₂ ≥ I₃ by " + str(excess) + " kg m²";
  if (!balance) {
    warning += " (no real mass distribution has them); simulated as given, " + remedy + " makes them valid";
    return inertia_com;
  }
  const Mat3 balanced = balanceInertia(inertia_com);
  warning += "; balanced to " + str(balanced(0, 0)) + " kg m² about every axis (" + remedy + ")";
  return balanced;
}

Mat6 spatialInertia(double mass, const Vec3& com, const Mat3& inertia_com) {
  const Mat3 S = wed(com);
  Mat6 M;
  M.topLeftCorner<3, 3>() = mass * Mat3::Identity();
  M.topRightCorner<3, 3>() = mass * S.transpose();
  M.bottomLeftCorner<3, 3>() = mass * S;
  M.bottomRightCorner<3, 3>() = inertia_com + mass * S.transpose() * S;  // parallel axes
  return M;
}

Mat6 rigidBodyStiffness(double k, const Vec3& center, const Mat3& rotational_about_center) {
  const Mat3 H = wed(center);
  Mat6 K;
  K.topLeftCorner<3, 3>() = k * Mat3::Identity();
  K.topRightCorner<3, 3>() = k * H.transpose();
  K.bottomLeftCorner<3, 3>() = k * H;
  K.bottomRightCorner<3, 3>() = rotational_about_center + k * H * H.transpose();
  return K;
}

ModelBuilder& ModelBuilder::setGravity(const Vec3& a_G) {
  gravity_ = a_G;
  return *this;
}
ModelBuilder& ModelBuilder::addBody(BodySpec spec) {
  bodies_.push_back(std::move(spec));
  return *this;
}
ModelBuilder& ModelBuilder::addJoint(JointSpec spec) {
  joints_.push_back(std::move(spec));
  return *this;
}
ModelBuilder& ModelBuilder::addSpring(SpringSpec spec) {
  springs_.push_back(std::move(spec));
  return *this;
}
ModelBuilder& ModelBuilder::addDamper(DamperSpec spec) {
  dampers_.push_back(std::move(spec));
  return *this;
}
ModelBuilder& ModelBuilder::addJointSpringDamper(JointSpringDamperSpec spec) {
  joint_spring_dampers_.push_back(std::move(spec));
  return *this;
}
ModelBuilder& ModelBuilder::addExternalWrench(ExternalWrenchSpec spec) {
  external_wrenches_.push_back(std::move(spec));
  return *this;
}
ModelBuilder& ModelBuilder::addActuator(ActuatorSpec spec) {
  actuators_.push_back(std::move(spec));
  return *this;
}
ModelBuilder& ModelBuilder::addPropeller(PropellerSpec spec) {
  propellers_.push_back(std::move(spec));
  return *this;
}
ModelBuilder& ModelBuilder::addLoopClosure(LoopClosureSpec spec) {
  loop_closures_.push_back(std::move(spec));
  return *this;
}

ModelBuilder& ModelBuilder::addInputSet(InputSetSpec spec) {
  input_sets_.push_back(std::move(spec));
  return *this;
}

ModelBuilder& ModelBuilder::addVisual(VisualSpec spec) {
  visuals_.push_back(std::move(spec));
  return *this;
}

ModelBuilder& ModelBuilder::addFrame(std::string name, FrameSpec frame) {
  frames_.emplace_back(std::move(name), std::move(frame));
  return *this;
}

std::string axialThrustInputName(const std::string& propeller) { return propeller + "_axial"; }
std::string tangentialThrustInputName(const std::string& propeller) { return propeller + "_tangential"; }

ModelBuilder ModelBuilder::rotorsAsThrusters() const { return forceModel(0); }

ModelBuilder ModelBuilder::rotorsAsThrustVectors(int sector_chords) const {
  if (sector_chords < 1 || sector_chords > kMaxSectorChords)
    throw ModelError(ModelElement::Model, 0, "", ModelField::None,
                     "thrust vectors: sector_chords = " + std::to_string(sector_chords) + " is not in 1…" +
                         std::to_string(kMaxSectorChords));
  return forceModel(sector_chords);
}

namespace {

/// A joint with its parameters reset to a weld at its zero position (what a locked rotor or a
/// servo-tilted arm at θ = 0 is to the force model).
void weldAtZero(JointSpec& joint) {
  joint.type = JointType::Fixed;
  joint.initial_position.reset();
  joint.initial_velocity = VecX();
  joint.limits.reset();
  joint.armature = 0.0;  // a locked rotor's gear is part of the parent
  joint.rotor_coupling = 0.0;
}

/// The box around the annular sector {(r sin α, r cos α)} for |α| < π/2: the tangential and axial
/// components' limits.
void sectorBox(double r_min, double r_max, double a_min, double a_max, ActuatorSpec& tangential, ActuatorSpec& axial) {
  tangential.lower = std::min(r_min * std::sin(a_min), r_max * std::sin(a_min));
  tangential.upper = std::max(r_min * std::sin(a_max), r_max * std::sin(a_max));
  axial.lower = r_min * std::min(std::cos(a_min), std::cos(a_max));
  axial.upper = r_max * (a_min <= 0.0 && a_max >= 0.0 ? 1.0 : std::max(std::cos(a_min), std::cos(a_max)));
}

}  // namespace

ModelBuilder ModelBuilder::forceModel(int sector_chords) const {
  ModelBuilder out = *this;
  out.propellers_.clear();
  std::set<std::string, std::less<>> dropped;  // actuators on welded joints (a thrust may reuse a name)
  std::set<std::string, std::less<>> tilts;    // tilt joints already carrying a thrust vector
  const auto find_joint = [&](auto&& match) {
    return std::find_if(out.joints_.begin(), out.joints_.end(), match);
  };
  const auto drop_actuators_on = [&](const std::string& joint) {
    std::erase_if(out.actuators_, [&](const ActuatorSpec& a) {
      const bool on = actsOnJoint(a.kind) && a.joint == joint;
      if (on) dropped.insert(a.name);
      return on;
    });
    std::erase_if(out.joint_spring_dampers_, [&](const JointSpringDamperSpec& s) { return s.joint == joint; });
  };
  for (std::size_t index = 0; index < propellers_.size(); ++index) {
    const PropellerSpec& p = propellers_[index];
    const auto fail = [&](ModelField field, const std::string& why) {
      return ModelError(ModelElement::Propeller, static_cast<int>(index), p.name, field,
                        "propeller '" + p.name + "' as a thrust vector: " + why);
    };
    auto joint = find_joint([&](const JointSpec& j) { return j.name == p.joint; });
    if (joint == out.joints_.end()) continue;  // build() of the original reports it
    const Vec3 spin_axis = joint->child_placement.R.transpose() * joint->axis;
    const Vec3 d = p.thrust_direction.normalized();
    // The drag torque −κ_T ϖ² a on the rotor reaches the body through the motor (5.34): about the
    // thrust direction d that is −(d·a) κ_T/κ_F per newton of thrust.
    const double torque_ratio = -d.dot(spin_axis) * p.drag_coefficient / p.thrust_coefficient;
    const double f_min = p.thrust_coefficient * p.min_speed * p.min_speed;
    const double f_max = p.max_speed < 1e150 ? p.thrust_coefficient * p.max_speed * p.max_speed : 1e300;

    // A servo-tilted arm above the rotor?
    auto tilt = sector_chords > 0 ? find_joint([&](const JointSpec& j) { return j.child == joint->parent; })
                                  : out.joints_.end();
    if (tilt != out.joints_.end() && tilts.count(tilt->name))  // welded already, with its servo
      throw fail(ModelField::Joint, "tilt joint '" + tilt->name + "' carries a second propeller");
    std::optional<ActuatorSpec> servo;  // a copy: dropping the rotor's actuators moves the list
    if (tilt != out.joints_.end() && tilt->type == JointType::Revolute && tilt->parent != kWorld)  // an arm, not a stand
      for (const ActuatorSpec& a : out.actuators_)
        if (a.kind == ActuatorKind::JointServo && a.joint == tilt->name) servo = a;
    const Pose rotor_in_arm = joint->parent_placement * joint->child_placement;  // rotor joint at zero
    weldAtZero(*joint);
    drop_actuators_on(p.joint);

    ActuatorSpec thrust;
    thrust.kind = ActuatorKind::BodyForce;
    thrust.body = joint->child;
    thrust.torque_ratio = torque_ratio;
    if (!servo) {  // a scalar thrust along d
      thrust.name = p.name;
      thrust.direction = d;
      thrust.lower = f_min;
      thrust.upper = f_max;
      out.actuators_.push_back(thrust);
      continue;
    }

    // Thrust vector. Tilt axis a and a point on it in the rotor's frame (tilt joint at zero).
    tilts.insert(tilt->name);
    const Pose arm_in_joint = tilt->child_placement;
    const Pose to_rotor = rotor_in_arm.inverse() * arm_in_joint.inverse();  // tilt joint frame → rotor frame
    const Vec3 a = to_rotor.R * tilt->axis;
    if (std::abs(a.dot(d)) > 1e-6)
      throw fail(ModelField::ThrustDirection,
                 "the thrust is at " + std::to_string(std::acos(std::clamp(a.dot(d), -1.0, 1.0)) * 180.0 / std::numbers::pi) +
                     "° to the axis of tilt joint '" + tilt->name +
                     "'; it must be perpendicular for the tilted thrust to be linear in (F sin θ, F cos θ)");
    // Where the thrust line (through the rotor origin along d) meets the axis: the point of the
    // axis nearest to it. If the two miss each other by δ, the force model leaves out the moment
    // F δ a of the offset.
    const Vec3 on_axis = to_rotor.r;
    const Vec3 point = on_axis - on_axis.dot(a) * a;
    if (!(f_max < 1e150)) throw fail(ModelField::SpeedLimits, "the thrust sector needs a finite maximum speed");
    double a_min = servo->lower, a_max = servo->upper;
    if (!(a_min > -1e150 && a_max < 1e150) && tilt->limits) {
      a_min = std::max(a_min, tilt->limits->lower);
      a_max = std::min(a_max, tilt->limits->upper);
    }
    if (!(a_min > -std::numbers::pi / 2 && a_max < std::numbers::pi / 2))
      throw fail(ModelField::Limits, "the tilt range of servo '" + servo->name +
                                         "' must lie within ±90° (give the servo or joint '" + tilt->name + "' limits)");
    InputSetSpec set;
    set.name = p.name;
    set.inputs = {tangentialThrustInputName(p.name), axialThrustInputName(p.name)};
    try {
      annularSectorPolygon(f_min, f_max, a_min, a_max, sector_chords, set.rows, set.bounds);
    } catch (const std::invalid_argument& e) {
      throw fail(ModelField::SpeedLimits, std::string("the (thrust, tilt) sector has no convex inner polygon: ") + e.what());
    }
    ActuatorSpec tangential = thrust, axial = thrust;
    axial.name = set.inputs[1];
    axial.direction = d;
    axial.point = point;
    tangential.name = set.inputs[0];
    tangential.direction = a.cross(d).normalized();
    tangential.point = point;
    sectorBox(f_min, f_max, a_min, a_max, tangential, axial);
    out.actuators_.push_back(tangential);
    out.actuators_.push_back(axial);
    out.input_sets_.push_back(std::move(set));
    const std::string tilt_name = tilt->name;
    weldAtZero(*tilt);
    drop_actuators_on(tilt_name);
  }
  std::erase_if(out.input_sets_, [&](const InputSetSpec& set) {  // sets over a dropped actuator
    return std::any_of(set.inputs.begin(), set.inputs.end(), [&](const std::string& input) { return dropped.count(input) > 0; });
  });
  return out;
}

int ModelBuilder::count(ModelElement kind) const {
  switch (kind) {
    case ModelElement::Model: return 1;
    case ModelElement::Body: return static_cast<int>(bodies_.size());
    case ModelElement::Joint: return static_cast<int>(joints_.size());
    case ModelElement::Spring: return static_cast<int>(springs_.size());
    case ModelElement::Damper: return static_cast<int>(dampers_.size());
    case ModelElement::JointSpring: return static_cast<int>(joint_spring_dampers_.size());
    case ModelElement::ExternalWrench: return static_cast<int>(external_wrenches_.size());
    case ModelElement::Actuator: return static_cast<int>(actuators_.size());
    case ModelElement::Propeller: return static_cast<int>(propellers_.size());
    case ModelElement::LoopClosure: return static_cast<int>(loop_closures_.size());
    case ModelElement::Visual: return static_cast<int>(visuals_.size());
    case ModelElement::InputSet: return static_cast<int>(input_sets_.size());
  }
  return 0;
}

bool ModelBuilder::hasBody(const std::string& name) const {
  return std::any_of(bodies_.begin(), bodies_.end(), [&](const BodySpec& b) { return b.name == name; });
}

int ModelBuilder::jointDeclarationIndex(const std::string& name) const {
  const auto it = std::find_if(joints_.begin(), joints_.end(), [&](const JointSpec& j) { return j.name == name; });
  return it == joints_.end() ? -1 : static_cast<int>(it - joints_.begin());
}

Model ModelBuilder::build() const {
  const std::string no_name;
  if (!gravity_.allFinite())
    throw ModelError(ModelElement::Model, 0, no_name, ModelField::Gravity, "gravity contains NaN or infinite values");
  if (bodies_.empty()) throw ModelError(ModelElement::Model, 0, no_name, ModelField::None, "the model has no bodies");

  Tree tree;
  checkBodies(bodies_, tree);
  connectJoints(bodies_, joints_, tree);
  orderTopologically(bodies_, joints_, tree);

  Model m;
  m.gravity = gravity_;
  addBodies(bodies_, tree, m);
  addJoints(joints_, tree, m);
  setInitialState(joints_, tree, m);
  setJointLimits(joints_, tree, m);
  analyseSparsity(m);
  addSprings(springs_, tree, m);
  addDampers(dampers_, tree, m);
  addJointSpringDampers(joint_spring_dampers_, m);
  addExternalWrenches(external_wrenches_, tree, m);
  addActuators(actuators_, tree, m);
  addPropellers(propellers_, m);
  addLoopClosures(loop_closures_, tree, m);
  addInputSets(input_sets_, m);
  addVisuals(visuals_, tree, m);
  addNamedFrames(frames_, tree, m);
  m.single_rigid_body = isSingleRigidBody(m);
  // Rotation-matrix coordinates (spherical, spherical_absolute, free) are orthonormal only up to
  // the drift the integration leaves; the world-axes recursion and the composite path then extend
  // the equations off SO(3) differently (Rᵀ against R⁻¹), so those models keep the thesis' form.
  const bool orthonormal_rotations = std::none_of(m.joints.begin(), m.joints.end(), [](const Joint& j) {
    return j.type == JointType::Spherical || j.type == JointType::SphericalAbsolute || j.type == JointType::Free;
  });
  m.articulated_body_dynamics = !m.constant_mass_matrix && m.constraint_rows == 0 && orthonormal_rotations;
  std::vector<int> children(m.bodies.size(), 0), only_child(m.bodies.size(), -1);
  for (const Joint& j : m.joints)
    if (j.parent >= 0) ++children[j.parent], only_child[j.parent] = j.child;
  m.recursion_origin_body.resize(m.bodies.size());
  for (const Joint& j : m.joints) {  // topological order: a parent's entry is set first
    if (j.parent >= 0) {
      m.recursion_origin_body[j.child] = m.recursion_origin_body[j.parent];
      continue;
    }
    int origin = j.child;
    while ((m.joints[origin].type == JointType::Prismatic || m.joints[origin].type == JointType::Fixed) &&
           children[origin] == 1)
      origin = only_child[origin];
    m.recursion_origin_body[j.child] = origin;
  }
  return m;
}

}  // namespace rbs
