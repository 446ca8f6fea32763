#include "core/model/model_builder.h"

#include <Eigen/Eigenvalues>
#include <algorithm>
#include <cmath>
#include <map>
#include <set>
#include <sstream>

namespace rbs {
namespace {

// Tolerances of the validation. A rotation counts as orthonormal when ‖RᵀR − I‖_F stays below
// 1e-6 (what six printed digits allow); unit axes likewise.
constexpr double kOrthonormalTol = 1e-6;
constexpr double kUnitTol = 1e-6;
// From this many coordinates on, a pure chain is factorized by Eigen's blocked Cholesky instead of
// the tree-sparse one (measured crossover between 10 and 30 coordinates, docs/BENCHMARKS.md).
constexpr int kDenseCholeskyMinSize = 24;

[[noreturn]] void fail(const std::string& what, const std::string& name, const std::string& msg) {
  throw ModelError(what + " '" + name + "': " + msg);
}

std::string str(double v) {
  std::ostringstream os;
  os.precision(6);
  os << v;
  return os.str();
}

template <class Derived>
bool allFinite(const Eigen::MatrixBase<Derived>& m) {
  return m.allFinite();
}

bool finitePose(const Pose& p) { return p.R.allFinite() && p.r.allFinite(); }

void checkRotation(const Mat3& R, const std::string& what, const std::string& name,
                   const std::string& field) {
  if (!R.allFinite()) fail(what, name, field + " contains NaN or infinite values");
  const double err = orthogonalityError(R);
  if (err > kOrthonormalTol || R.determinant() < 0.0)
    fail(what, name,
         field + " is not a rotation matrix (‖RᵀR − I‖ = " + str(err) + ", det = " +
             str(R.determinant()) + "; expected orthonormal with det +1)");
}

void checkPose(const Pose& p, const std::string& what, const std::string& name,
               const std::string& field) {
  if (!finitePose(p)) fail(what, name, field + " contains NaN or infinite values");
  checkRotation(p.R, what, name, field + " rotation");
}

Vec3 checkUnit(const Vec3& a, const std::string& what, const std::string& name,
               const std::string& field) {
  if (!a.allFinite()) fail(what, name, field + " contains NaN or infinite values");
  const double n = a.norm();
  if (n < 1e-12) fail(what, name, field + " is the zero vector; expected a unit vector");
  if (std::abs(n - 1.0) > kUnitTol)
    fail(what, name, field + " has norm " + str(n) + "; expected a unit vector");
  return a / n;
}

void checkSymmetricPsd(const Mat3& A, const std::string& what, const std::string& name,
                       const std::string& field) {
  if (!A.allFinite()) fail(what, name, field + " contains NaN or infinite values");
  const double scale = std::max(1.0, A.cwiseAbs().maxCoeff());
  if ((A - A.transpose()).cwiseAbs().maxCoeff() > 1e-9 * scale)
    fail(what, name, field + " is not symmetric");
  const Vec3 ev = Eigen::SelfAdjointEigenSolver<Mat3>(A).eigenvalues();
  if (ev.minCoeff() < -1e-12 * scale)
    fail(what, name, field + " is not positive semidefinite (smallest eigenvalue " +
                         str(ev.minCoeff()) + ")");
}

void checkNonNegative(double v, const std::string& what, const std::string& name,
                      const std::string& field) {
  if (!std::isfinite(v)) fail(what, name, field + " is NaN or infinite");
  if (v < 0.0) fail(what, name, field + " is " + str(v) + "; expected ≥ 0");
}

/// Inertia of a joint's child body about the joint axis through the body-frame origin.
double rotorAxisInertia(const Model& m, const Joint& joint) {
  const Vec3 a = joint.child_placement.R.transpose() * joint.axis;
  return a.dot(m.bodies[joint.child].inertia_origin * a);
}

void checkBody(const BodySpec& b) {
  const std::string what = "body";
  if (b.name.empty()) throw ModelError("body with empty name");
  if (b.name == kWorld) fail(what, b.name, "the name 'world' is reserved for the inertial frame");
  if (!std::isfinite(b.mass)) fail(what, b.name, "mass is NaN or infinite");
  if (b.mass <= 0.0) fail(what, b.name, "mass is " + str(b.mass) + " kg; expected > 0");
  if (!b.com.allFinite()) fail(what, b.name, "centre of mass contains NaN or infinite values");
  if (!b.inertia.allFinite()) fail(what, b.name, "inertia contains NaN or infinite values");
  const double scale = b.inertia.cwiseAbs().maxCoeff();
  if ((b.inertia - b.inertia.transpose()).cwiseAbs().maxCoeff() > 1e-9 * std::max(scale, 1e-300))
    fail(what, b.name, "inertia tensor is not symmetric");
  if (const std::string problem = inertiaProblem(b.inertia); !problem.empty()) fail(what, b.name, problem);
}

}  // namespace

std::string inertiaProblem(const Mat3& inertia_com) {
  const Vec3 ev = Eigen::SelfAdjointEigenSolver<Mat3>(inertia_com).eigenvalues();  // ascending
  const std::string moments = str(ev(0)) + ", " + str(ev(1)) + ", " + str(ev(2)) + " kg m²";
  if (ev(0) <= 0.0) return "inertia tensor is not positive definite (principal moments " + moments + ")";
  // A real mass distribution has I₁ + I₂ ≥ I₃ for its principal moments (equality: a flat plate).
  if (ev(0) + ev(1) < ev(2) * (1.0 - 1e-9))
    return "principal moments " + moments + " violate the triangle inequality I₁ + I₂ ≥ I₃";
  return {};
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

ModelBuilder& ModelBuilder::addVisual(VisualSpec spec) {
  visuals_.push_back(std::move(spec));
  return *this;
}

ModelBuilder ModelBuilder::rotorsAsThrusters() const {
  ModelBuilder out = *this;
  out.propellers_.clear();
  for (const PropellerSpec& p : propellers_) {
    auto joint = std::find_if(out.joints_.begin(), out.joints_.end(), [&](const JointSpec& j) { return j.name == p.joint; });
    if (joint == out.joints_.end()) continue;  // build() of the original reports it
    const Vec3 spin_axis = joint->child_placement.R.transpose() * joint->axis;
    joint->type = JointType::Fixed;
    joint->initial_position.reset();
    joint->initial_velocity = VecX();
    joint->limits.reset();
    joint->armature = 0.0;
    std::erase_if(out.actuators_, [&](const ActuatorSpec& a) {
      return (a.kind == ActuatorKind::JointEffort || a.kind == ActuatorKind::JointServo ||
              a.kind == ActuatorKind::JointSpeedServo) && a.joint == p.joint;
    });
    std::erase_if(out.joint_spring_dampers_, [&](const JointSpringDamperSpec& s) { return s.joint == p.joint; });
    ActuatorSpec thrust;
    thrust.name = p.name;
    thrust.kind = ActuatorKind::BodyForce;
    thrust.body = joint->child;
    thrust.direction = p.thrust_direction.normalized();
    // The drag torque −κ_T ϖ² a on the rotor reaches the body through the motor (5.34): about the
    // thrust direction d that is −(d·a) κ_T/κ_F per newton of thrust.
    thrust.torque_ratio = -thrust.direction.dot(spin_axis) * p.drag_coefficient / p.thrust_coefficient;
    thrust.lower = p.thrust_coefficient * p.min_speed * p.min_speed;
    thrust.upper = p.max_speed < 1e150 ? p.thrust_coefficient * p.max_speed * p.max_speed : 1e300;
    out.actuators_.push_back(thrust);
  }
  return out;
}

bool ModelBuilder::hasBody(const std::string& name) const {
  return std::any_of(bodies_.begin(), bodies_.end(), [&](const BodySpec& b) { return b.name == name; });
}

Model ModelBuilder::build() const {
  if (!gravity_.allFinite()) throw ModelError("gravity contains NaN or infinite values");
  if (bodies_.empty()) throw ModelError("the model has no bodies");

  // ---- bodies -----------------------------------------------------------------------------
  std::map<std::string, int, std::less<>> body_by_name;  // declaration index
  for (size_t i = 0; i < bodies_.size(); ++i) {
    checkBody(bodies_[i]);
    if (!body_by_name.emplace(bodies_[i].name, static_cast<int>(i)).second)
      fail("body", bodies_[i].name, "name is used by more than one body");
  }

  // ---- joints: structure ------------------------------------------------------------------
  std::set<std::string, std::less<>> joint_names;
  std::vector<int> parent_joint_of(bodies_.size(), -1);  // declaration indices
  for (size_t j = 0; j < joints_.size(); ++j) {
    const JointSpec& js = joints_[j];
    if (js.name.empty()) throw ModelError("joint with empty name (child '" + js.child + "')");
    if (!joint_names.insert(js.name).second) fail("joint", js.name, "name is used by more than one joint");
    if (js.child == kWorld) fail("joint", js.name, "the world cannot be a child");
    auto c = body_by_name.find(js.child);
    if (c == body_by_name.end()) fail("joint", js.name, "child body '" + js.child + "' does not exist");
    if (js.parent != kWorld && !body_by_name.count(js.parent))
      fail("joint", js.name, "parent body '" + js.parent + "' does not exist");
    if (js.parent == js.child) fail("joint", js.name, "connects body '" + js.child + "' to itself");
    if (parent_joint_of[c->second] >= 0)
      fail("joint", js.name,
           "body '" + js.child + "' already has parent joint '" + joints_[parent_joint_of[c->second]].name +
               "'; a second connection closes a loop: declare it as a loop closure");
    parent_joint_of[c->second] = static_cast<int>(j);
  }
  for (size_t b = 0; b < bodies_.size(); ++b)
    if (parent_joint_of[b] < 0)
      fail("body", bodies_[b].name,
           "has no parent joint; connect it to 'world' or another body (use a fixed or free joint)");

  // Topological order from the world; bodies not reached lie on a cycle.
  std::vector<int> order;  // declaration indices
  std::vector<int> new_index(bodies_.size(), -1);
  {
    // Breadth first from the world, children in declaration order; `order` itself is the queue.
    std::map<std::string, std::vector<int>, std::less<>> children_of;  // parent name → joints
    for (size_t j = 0; j < joints_.size(); ++j) children_of[joints_[j].parent].push_back(static_cast<int>(j));
    auto visit = [&](const std::string& parent) {
      const auto it = children_of.find(parent);
      if (it == children_of.end()) return;
      for (int j : it->second) {
        const int c = body_by_name.at(joints_[j].child);
        new_index[c] = static_cast<int>(order.size());
        order.push_back(c);
      }
    };
    visit(kWorld);
    for (size_t next = 0; next < order.size(); ++next) visit(bodies_[order[next]].name);
  }
  if (order.size() != bodies_.size()) {
    for (size_t b = 0; b < bodies_.size(); ++b)
      if (new_index[b] < 0) {
        const JointSpec& js = joints_[parent_joint_of[b]];
        fail("joint", js.name,
             "is part of a cycle in the joint tree (body '" + bodies_[b].name +
                 "' is not connected to the world); close loops with a loop closure instead");
      }
  }

  Model m;
  m.gravity = gravity_;
  for (int b : order) {
    const BodySpec& bs = bodies_[b];
    Body body;
    body.name = bs.name;
    body.mass = bs.mass;
    body.com = bs.com;
    body.inertia_com = 0.5 * (bs.inertia + bs.inertia.transpose());
    body.spatial_inertia = spatialInertia(bs.mass, bs.com, body.inertia_com);
    body.inertia_origin = body.spatial_inertia.bottomRightCorner<3, 3>();
    m.bodies.push_back(body);
  }
  auto bodyIndex = [&](const std::string& name) { return name == kWorld ? -1 : new_index[body_by_name.at(name)]; };

  // ---- joints: geometry and coordinates ---------------------------------------------------
  for (int b : order) {
    const JointSpec& js = joints_[parent_joint_of[b]];
    Joint j;
    j.name = js.name;
    j.type = js.type;
    j.parent = bodyIndex(js.parent);
    j.child = new_index[b];
    checkPose(js.parent_placement, "joint", js.name, "parent placement");
    checkPose(js.child_placement, "joint", js.name, "child placement");
    j.parent_placement = js.parent_placement;
    j.child_placement = js.child_placement;
    j.has_child_placement = !js.child_placement.isIdentity();
    j.has_parent_placement = !js.parent_placement.isIdentity();
    const bool uses_axis = js.type == JointType::Revolute || js.type == JointType::RevoluteUnitCircle ||
                           js.type == JointType::Prismatic || js.type == JointType::Universal;
    if (uses_axis) j.axis = checkUnit(js.axis, "joint", js.name, "axis");
    if (js.type == JointType::Universal) {
      j.axis2 = checkUnit(js.axis2, "joint", js.name, "second axis");
      if (j.axis.cross(j.axis2).norm() < 1e-6)
        fail("joint", js.name, "universal joint axes are parallel; expected two independent axes");
    }
    if (js.type == JointType::SphericalAbsolute && j.has_child_placement)
      fail("joint", js.name,
           "spherical_absolute requires the child frame at the joint (identity child placement)");
    if (js.armature != 0.0) {
      if (!uses_axis || js.type == JointType::Universal)
        fail("joint", js.name, "armature applies to one-axis joints (revolute, prismatic)");
      if (!(js.armature > 0.0) || !std::isfinite(js.armature))
        fail("joint", js.name, "armature must be finite and ≥ 0");
      j.armature = js.armature;
    }
    j.nx = configurationSize(js.type);
    j.nxi = velocitySize(js.type);
    j.x_offset = m.nx;
    j.xi_offset = m.nxi;
    m.nx += j.nx;
    m.nxi += j.nxi;
    m.joints.push_back(j);
  }

  // ---- initial state ------------------------------------------------------------------------
  m.initial_state = m.neutralState();
  for (const Joint& j : m.joints) {
    const JointSpec& js = joints_[parent_joint_of[order[j.child]]];
    double* x = m.initial_state.x.data() + j.x_offset;
    if (js.initial_position) {
      if (j.nxi != 1 || j.type == JointType::Universal)
        fail("joint", js.name, "an initial position (scalar) needs a one-degree-of-freedom joint");
      const double q = *js.initial_position;
      if (!std::isfinite(q)) fail("joint", js.name, "initial position is NaN or infinite");
      if (j.type == JointType::Revolute || j.type == JointType::Prismatic) {
        x[0] = q;
      } else {
        x[0] = std::cos(q);
        x[1] = std::sin(q);
      }
    }
    if (js.initial_motion) {
      checkPose(*js.initial_motion, "joint", js.name, "initial pose");
      jointCoordinatesFromMotion(j, *js.initial_motion, x);
    }
    if (js.initial_velocity.size() != 0) {
      if (js.initial_velocity.size() != j.nxi)
        fail("joint", js.name,
             "initial velocity has " + std::to_string(js.initial_velocity.size()) +
                 " components; the joint has " + std::to_string(j.nxi));
      if (!js.initial_velocity.allFinite()) fail("joint", js.name, "initial velocity is NaN or infinite");
      m.initial_state.xi.segment(j.xi_offset, j.nxi) = js.initial_velocity;
    }
  }

  // ---- joint limits ---------------------------------------------------------------------------
  m.joint_limits.resize(m.joints.size());
  for (const Joint& j : m.joints) {
    const JointSpec& js = joints_[parent_joint_of[order[j.child]]];
    if (!js.limits) continue;
    if (j.nxi != 1 || j.type == JointType::Universal)
      fail("joint", js.name, "limits apply to one-degree-of-freedom joints");
    const JointLimits& l = *js.limits;
    if (std::isnan(l.lower) || std::isnan(l.upper) || l.lower > l.upper)
      fail("joint", js.name, "position limits [" + str(l.lower) + ", " + str(l.upper) + "] are not an interval");
    if (!(l.effort >= 0.0) || !(l.velocity >= 0.0))
      fail("joint", js.name, "effort and velocity limits must be ≥ 0");
    m.joint_limits[j.child] = l;
  }

  // ---- Jacobian support ---------------------------------------------------------------------
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

  // ---- force elements -------------------------------------------------------------------------
  auto frame = [&](const FrameSpec& f, const std::string& what, const std::string& name,
                   const std::string& which) {
    if (f.body != kWorld && !body_by_name.count(f.body))
      fail(what, name, which + " body '" + f.body + "' does not exist");
    checkPose(f.offset, what, name, which + " frame offset");
    return Frame{bodyIndex(f.body), f.offset};
  };
  for (const SpringSpec& s : springs_) {
    Spring sp;
    sp.name = s.name;
    sp.a = frame(s.a, "spring", s.name, "first");
    sp.b = frame(s.b, "spring", s.name, "second");
    if (sp.a.body == sp.b.body) fail("spring", s.name, "connects a body to itself");
    checkPose(s.rest, "spring", s.name, "rest pose");
    sp.rest = s.rest;
    checkNonNegative(s.stiffness, "spring", s.name, "stiffness");
    if (!s.center.allFinite()) fail("spring", s.name, "centre of stiffness is NaN or infinite");
    checkSymmetricPsd(s.rotational_stiffness, "spring", s.name, "rotational stiffness");
    sp.stiffness = rigidBodyStiffness(s.stiffness, s.center, s.rotational_stiffness);
    sp.stiffness_moment = Wed(sp.stiffness);
    m.springs.push_back(sp);
  }
  for (const DamperSpec& d : dampers_) {
    Damper dp;
    dp.name = d.name;
    dp.a = frame(d.a, "damper", d.name, "first (fluid)");
    dp.b = frame(d.b, "damper", d.name, "second");
    if (dp.a.body == dp.b.body) fail("damper", d.name, "connects a body to itself");
    checkNonNegative(d.damping, "damper", d.name, "damping");
    if (!d.center.allFinite()) fail("damper", d.name, "centre of damping is NaN or infinite");
    checkSymmetricPsd(d.rotational_damping, "damper", d.name, "rotational damping");
    dp.damping = rigidBodyStiffness(d.damping, d.center, d.rotational_damping);
    m.dampers.push_back(dp);
  }
  for (const JointSpringDamperSpec& s : joint_spring_dampers_) {
    const int j = m.jointIndex(s.joint);
    if (j < 0) fail("joint spring", s.joint, "joint does not exist");
    const JointType t = m.joints[j].type;
    if (t != JointType::Revolute && t != JointType::RevoluteUnitCircle && t != JointType::Prismatic)
      fail("joint spring", s.joint,
           "joint springs act on revolute, revolute_unit_circle or prismatic joints; use a spring "
           "between frames for '" + std::string(jointTypeName(t)) + "'");
    checkNonNegative(s.stiffness, "joint spring", s.joint, "stiffness");
    checkNonNegative(s.damping, "joint spring", s.joint, "damping");
    if (!std::isfinite(s.rest_position)) fail("joint spring", s.joint, "rest position is NaN or infinite");
    m.joint_spring_dampers.push_back({j, s.stiffness, s.rest_position, s.damping});
  }
  for (const ExternalWrenchSpec& w : external_wrenches_) {
    if (!body_by_name.count(w.body)) fail("external wrench", w.body, "body does not exist");
    if (!w.point.allFinite() || !w.force.allFinite() || !w.torque.allFinite())
      fail("external wrench", w.body, "contains NaN or infinite values");
    m.external_wrenches.push_back({bodyIndex(w.body), w.point, w.force, w.torque, w.world_axes});
  }
  std::set<std::string, std::less<>> actuator_names;
  for (const ActuatorSpec& a : actuators_) {
    if (a.name.empty()) throw ModelError("actuator with empty name");
    if (!actuator_names.insert(a.name).second) fail("actuator", a.name, "name is used by more than one actuator");
    Actuator act;
    act.name = a.name;
    act.kind = a.kind;
    if (std::isnan(a.lower) || std::isnan(a.upper) || a.lower > a.upper)
      fail("actuator", a.name, "limits [" + str(a.lower) + ", " + str(a.upper) + "] are not an interval");
    act.lower = a.lower;
    act.upper = a.upper;
    if (a.kind == ActuatorKind::JointEffort || a.kind == ActuatorKind::JointServo ||
        a.kind == ActuatorKind::JointSpeedServo) {
      act.joint = m.jointIndex(a.joint);
      if (act.joint < 0) fail("actuator", a.name, "joint '" + a.joint + "' does not exist");
      const Joint& joint = m.joints[act.joint];
      if (a.component < 0 || a.component >= joint.nxi)
        fail("actuator", a.name,
             "component " + std::to_string(a.component) + " is out of range; joint '" + a.joint + "' has " +
                 std::to_string(joint.nxi) + " velocity coordinates");
      act.component = a.component;
      if (!(a.gain > 0.0) || !std::isfinite(a.gain)) fail("actuator", a.name, "gain must be finite and > 0");
      act.gain = a.gain;
      if (a.kind == ActuatorKind::JointServo) {
        // (5.2) compares θ_R with the joint angle: only angle/displacement coordinates have one.
        if (joint.type != JointType::Revolute && joint.type != JointType::Prismatic)
          fail("actuator", a.name,
               "a servo needs a revolute joint with angle coordinates or a prismatic joint; joint '" +
                   a.joint + "' is " + std::string(jointTypeName(joint.type)));
        if (!(a.damping >= 0.0) || !std::isfinite(a.damping))
          fail("actuator", a.name, "damping must be finite and ≥ 0");
        act.damping = a.damping;
      }
      if (a.kind == ActuatorKind::JointSpeedServo) {
        if (joint.type != JointType::Revolute && joint.type != JointType::RevoluteUnitCircle)
          fail("actuator", a.name, "a speed servo needs a revolute joint; joint '" + a.joint + "' is " +
                                       std::string(jointTypeName(joint.type)));
        if (!(a.time_constant > 0.0) || !std::isfinite(a.time_constant))
          fail("actuator", a.name, "time constant must be finite and > 0");
        act.gain = (rotorAxisInertia(m, joint) + joint.armature) / a.time_constant;
      }
    } else {
      if (!body_by_name.count(a.body)) fail("actuator", a.name, "body '" + a.body + "' does not exist");
      act.body = bodyIndex(a.body);
      act.direction = checkUnit(a.direction, "actuator", a.name, "direction");
      if (!a.point.allFinite()) fail("actuator", a.name, "point is NaN or infinite");
      act.point = a.point;
      if (!std::isfinite(a.torque_ratio)) fail("actuator", a.name, "torque_ratio is NaN or infinite");
      if (a.kind != ActuatorKind::BodyForce && a.torque_ratio != 0.0)
        fail("actuator", a.name, "torque_ratio applies to body_force actuators only");
      act.torque_ratio = a.torque_ratio;
      if (a.kind == ActuatorKind::BodyForce)
        act.unit_wrench << act.direction, act.point.cross(act.direction) + act.torque_ratio * act.direction;
      else
        act.unit_wrench << Vec3::Zero(), act.direction;
    }
    m.actuators.push_back(act);
  }
  std::set<std::string, std::less<>> propeller_names;
  for (const PropellerSpec& p : propellers_) {
    if (p.name.empty()) throw ModelError("propeller with empty name");
    if (!propeller_names.insert(p.name).second) fail("propeller", p.name, "name is used by more than one propeller");
    Propeller prop;
    prop.name = p.name;
    prop.joint = m.jointIndex(p.joint);
    if (prop.joint < 0) fail("propeller", p.name, "joint '" + p.joint + "' does not exist");
    const Joint& joint = m.joints[prop.joint];
    if (joint.type != JointType::Revolute && joint.type != JointType::RevoluteUnitCircle)
      fail("propeller", p.name, "joint '" + p.joint + "' must be revolute; it is " + std::string(jointTypeName(joint.type)));
    if (m.propellerOnJoint(prop.joint) >= 0)
      fail("propeller", p.name, "joint '" + p.joint + "' already carries a propeller");
    prop.spin_axis = joint.child_placement.R.transpose() * joint.axis;  // joint frame → rotor body frame
    prop.thrust_direction = checkUnit(p.thrust_direction, "propeller", p.name, "thrust direction");
    if (std::abs(prop.thrust_direction.dot(prop.spin_axis)) < 1.0 - 1e-9)
      fail("propeller", p.name, "thrust direction must be parallel to the spin axis of joint '" + p.joint + "'");
    if (!(p.thrust_coefficient > 0.0) || !std::isfinite(p.thrust_coefficient))
      fail("propeller", p.name, "thrust coefficient must be finite and > 0");
    checkNonNegative(p.drag_coefficient, "propeller", p.name, "drag coefficient");
    checkNonNegative(p.friction, "propeller", p.name, "friction");
    checkNonNegative(p.min_speed, "propeller", p.name, "minimum speed");
    if (!(p.max_speed > p.min_speed))
      fail("propeller", p.name, "speed limits [" + str(p.min_speed) + ", " + str(p.max_speed) + "] are not an interval");
    prop.thrust_coefficient = p.thrust_coefficient;
    prop.drag_coefficient = p.drag_coefficient;
    prop.friction = p.friction;
    prop.min_speed = p.min_speed;
    prop.max_speed = p.max_speed;
    m.propellers.push_back(prop);
  }
  for (const LoopClosureSpec& l : loop_closures_) {
    LoopClosure lc;
    lc.name = l.name;
    lc.kind = l.kind;
    lc.a = frame(l.a, "loop closure", l.name, "first");
    lc.b = frame(l.b, "loop closure", l.name, "second");
    if (lc.a.body == lc.b.body) fail("loop closure", l.name, "connects a body to itself");
    checkNonNegative(l.stabilization_frequency, "loop closure", l.name, "stabilization frequency");
    checkNonNegative(l.stabilization_damping, "loop closure", l.name, "stabilization damping");
    lc.stabilization_frequency = l.stabilization_frequency;
    lc.stabilization_damping = l.stabilization_damping;
    m.constraint_rows += lc.rows();
    m.loop_closures.push_back(lc);
  }
  for (const VisualSpec& v : visuals_) {
    if (!body_by_name.count(v.body)) fail("visual", v.body, "body does not exist");
    checkPose(v.origin, "visual", v.body, "origin");
    if (!v.size.allFinite() || (v.size.array() < 0.0).any())
      fail("visual", v.body, "sizes must be finite and ≥ 0");
    if (!v.color.allFinite() || (v.color.array() < 0.0).any() || (v.color.array() > 1.0).any())
      fail("visual", v.body, "colour components must lie in [0, 1]");
    if (v.shape == Visual::Shape::Mesh && v.mesh_file.empty()) fail("visual", v.body, "mesh without a file");
    m.visuals.push_back(Visual{bodyIndex(v.body), v.shape, v.size, v.mesh_file, v.origin, v.color});
  }
  m.single_rigid_body =
      m.joints.size() == 1 && m.joints[0].parent < 0 && !m.joints[0].has_child_placement &&
      (m.joints[0].type == JointType::Free || m.joints[0].type == JointType::FreeQuaternion) &&
      m.springs.empty() && m.dampers.empty() && m.joint_spring_dampers.empty() && m.propellers.empty() &&
      m.loop_closures.empty() &&
      std::all_of(m.actuators.begin(), m.actuators.end(), [](const Actuator& a) {
        return a.kind == ActuatorKind::BodyForce || a.kind == ActuatorKind::BodyTorque;
      });
  return m;
}

}  // namespace rbs
