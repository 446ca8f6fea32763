// The articulated-body path of computeForwardDynamics (Model::articulated_body_dynamics: O(n), in
// world axes, M never formed) against the composite-rigid-body path (M, its factorization and the
// separate force terms) on the same model: every joint type and coordinate choice it takes, at the
// root and below moving bodies, every force element, armature, long chains and wide trees. The
// two paths share only the kinematics and the generalized forces f_E, f_D, f_K.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>


#include "core/dynamics/dynamics.h"
#include "core/dynamics/kinematics.h"
#include "tests/support/benchmark_models.h"
#include "tests/support/example_models.h"
#include "tests/support/linear_algebra.h"
#include "tests/support/test_models.h"

namespace rbs {
namespace {

// Two exact algorithms in double precision: the difference is rounding, amplified by the
// condition of M (≤ ~1e4 for these models).
constexpr double kRelTol = 1e-12;

/// The joint types whose rotations are orthonormal at every x (the articulated-body path's).
const JointType kOrthonormalTypes[] = {JointType::Revolute,        JointType::RevoluteUnitCircle,
                                       JointType::Prismatic,       JointType::SphericalQuaternion,
                                       JointType::SphericalEulerZYX, JointType::FreeQuaternion,
                                       JointType::Planar,          JointType::Universal,
                                       JointType::Fixed};

/// world →(type) a →(revolute) b →(type) c, and a →(unit circle) d →(type) e: `type` at the root,
/// below a moving body and two levels down, random placements on both sides of every joint.
Model treeWith(JointType type, std::uint64_t seed) {
  test::Rng rng(seed);
  ModelBuilder b;
  for (const char* name : {"a", "b", "c", "d", "e"}) b.addBody(test::randomBody(rng, name));
  auto joint = [&](const char* name, JointType t, const char* parent, const char* child) {
    b.addJoint(test::randomJoint(rng, name, t, parent, child));
  };
  joint("ja", type, kWorld, "a");
  joint("jb", JointType::Revolute, "a", "b");
  joint("jc", type, "b", "c");
  joint("jd", JointType::RevoluteUnitCircle, "a", "d");
  joint("je", type, "d", "e");
  return b.build();
}

VecX randomInputs(const Model& m, test::Rng& rng) {
  VecX u(m.numInputs());
  for (int i = 0; i < u.size(); ++i) u(i) = test::uniform(rng, -3.0, 3.0);
  return u;
}

/// ξ̇ of both paths at `count` random states. `difference` is the largest max|Δξ̇| / max(1, max|ξ̇|);
/// `residual` the largest backward error of the articulated-body ξ̇ in M ξ̇ + c + f_G = f_E − f_D − f_K
/// (relative to the largest term); `condition` the largest condition number of M met.
struct Comparison {
  double difference = 0.0;
  double residual = 0.0;
  double condition = 0.0;
  /// Forward errors of both solves are ~ε κ(M): 1e-12 for the usual κ ≤ 1e3, more for the long
  /// random chains whose M reaches κ ~ 1e6.
  double differenceBound() const { return std::max(kRelTol, 1e-15 * condition); }
};

Comparison compare(const Model& model, int count, std::uint64_t seed, const std::string& what) {
  EXPECT_TRUE(model.articulated_body_dynamics) << what << ": the builder chose the composite-rigid-body path";
  Model composite = model;
  composite.articulated_body_dynamics = false;
  Workspace ws_ab(model), ws_crb(composite);
  test::Rng rng(seed);
  Comparison c;
  for (int k = 0; k < count; ++k) {
    const State s = test::randomState(model, rng, 1.5);
    const VecX u = randomInputs(model, rng);
    EXPECT_EQ(computeForwardDynamics(model, s.x, s.xi, u, ws_ab, 0.7), DynamicsStatus::Ok) << what;
    EXPECT_EQ(computeForwardDynamics(composite, s.x, s.xi, u, ws_crb, 0.7), DynamicsStatus::Ok) << what;
    const double scale = std::max(1.0, ws_crb.xidot.cwiseAbs().maxCoeff());
    c.difference = std::max(c.difference, (ws_ab.xidot - ws_crb.xidot).cwiseAbs().maxCoeff() / scale);
    EXPECT_EQ(ws_ab.xdot, ws_crb.xdot) << what << ": ẋ does not depend on the path";
    EXPECT_EQ(ws_ab.input_forces, ws_crb.input_forces) << what;
    EXPECT_EQ(ws_ab.damping_forces, ws_crb.damping_forces) << what;
    test::computeEquationTerms(model, ws_ab);
    const VecX Ma = ws_ab.mass_matrix * ws_ab.xidot;
    const VecX rest = ws_ab.inertial_forces + ws_ab.gravity_forces + ws_ab.damping_forces + ws_ab.elastic_forces;
    const double term_scale = std::max({1e-300, Ma.cwiseAbs().maxCoeff(), rest.cwiseAbs().maxCoeff(),
                                        ws_ab.input_forces.cwiseAbs().maxCoeff()});
    c.residual = std::max(c.residual, (Ma + rest - ws_ab.input_forces).cwiseAbs().maxCoeff() / term_scale);
    const VecX eig = test::symmetricEigenvalues(ws_ab.mass_matrix);
    c.condition = std::max(c.condition, eig.maxCoeff() / eig.minCoeff());
  }
  return c;
}

/// Both checks on one model: the backward error at rounding level, the two paths within the bound.
void expectSameAccelerations(const Model& model, int count, std::uint64_t seed, const std::string& what) {
  const Comparison c = compare(model, count, seed, what);
  // rounding level: evaluating M ξ̇ itself sums n products (observed up to 2e-14 at n = 100)
  EXPECT_LT(c.residual, 1e-13) << what;
  EXPECT_LT(c.difference, c.differenceBound()) << what << " (condition number of M " << c.condition << ")";
}

TEST(ArticulatedBody, MatchesTheMassMatrixSolveForEveryJointType) {
  for (JointType type : kOrthonormalTypes) expectSameAccelerations(treeWith(type, 51), 5, 52, std::string(jointTypeName(type)));
}

TEST(ArticulatedBody, MatchesTheMassMatrixSolveOnChainsAndTrees) {
  for (int n : {2, 7, 30, 100}) {
    expectSameAccelerations(test::randomChain(n, 61), 3, 62, "chain of " + std::to_string(n));
    expectSameAccelerations(test::randomTree(n, 63), 3, 64, "tree of " + std::to_string(n));
  }
  expectSameAccelerations(test::sevenDofArm(), 5, 65, "arm7");
}

TEST(ArticulatedBody, KeepsItsDigitsFarFromTheWorldOrigin) {
  // The recursion works about each tree's root, not the world origin: a tree 5 km away (a vehicle
  // after a long flight, a robot placed in a large scene) keeps its digits. What remains is the
  // world positions' own rounding, ε |r| ≈ 1e-12 m at 5 km.
  // A free joint carries the position in its first three coordinates, the Euler-angle variant's
  // three prismatic carriers one each: either way x starts with it.
  for (JointType base : {JointType::FreeQuaternion, JointType::SphericalEulerZYX}) {
    test::AerialManipulatorParameters parameters;
    parameters.base_joint = base;
    const Model far = test::kremerAerialManipulator(3, parameters);
    ASSERT_TRUE(far.articulated_body_dynamics);
    Model composite = far;
    composite.articulated_body_dynamics = false;
    Workspace ws(far), ws_crb(composite);
    test::Rng rng(75);
    for (int k = 0; k < 4; ++k) {
      State s = test::randomState(far, rng, 1.5);
      s.x.head<3>() += Vec3(3e3, -4e3, 1e3);
      ASSERT_EQ(computeForwardDynamics(far, s.x, s.xi, VecX::Zero(far.numInputs()), ws), DynamicsStatus::Ok);
      ASSERT_EQ(computeForwardDynamics(composite, s.x, s.xi, VecX::Zero(far.numInputs()), ws_crb),
                DynamicsStatus::Ok);
      EXPECT_LT((ws.xidot - ws_crb.xidot).cwiseAbs().maxCoeff() / std::max(1.0, ws_crb.xidot.cwiseAbs().maxCoeff()),
                1e-11)
          << jointTypeName(base);
    }
  }
}

TEST(ArticulatedBody, MatchesTheMassMatrixSolveOnTheAerialManipulatorAndTheCart) {
  // Kremer's quadcopter (quaternion base, thrusts as body forces) with 1–3 arm links, Seifried's
  // cart with its passive links. (Armature, servos and a propeller: the force-element test.)
  test::AerialManipulatorParameters quaternion_base;
  quaternion_base.base_joint = JointType::FreeQuaternion;
  for (int links = 1; links <= 3; ++links)
    expectSameAccelerations(test::kremerAerialManipulator(links, quaternion_base), 4, 71,
                            "kremer + " + std::to_string(links));
  expectSameAccelerations(test::seifriedCartTwoLinkArm(), 4, 74, "cart");
}

TEST(ArticulatedBody, MatchesTheMassMatrixSolveWithEveryForceElement) {
  // Springs and dampers between bodies and to the world, joint springs, dampers and friction,
  // armature, constant wrenches and all actuator kinds that act on bodies or joints.
  test::Rng rng(81);
  ModelBuilder b;
  for (const char* name : {"base", "arm", "wrist", "tool", "pod"}) b.addBody(test::randomBody(rng, name));
  auto joint = [&](const char* name, JointType type, const char* parent, const char* child, double armature) {
    JointSpec j = test::randomJoint(rng, name, type, parent, child);
    j.armature = armature;
    b.addJoint(j);
  };
  joint("j_base", JointType::FreeQuaternion, kWorld, "base", 0.0);
  joint("j_arm", JointType::Revolute, "base", "arm", 0.02);
  joint("j_wrist", JointType::Universal, "arm", "wrist", 0.0);
  joint("j_tool", JointType::Prismatic, "wrist", "tool", 0.5);
  joint("j_pod", JointType::SphericalQuaternion, "base", "pod", 0.0);
  b.addBody(test::randomBody(rng, "rotor"));  // a propeller: thrust, drag torque and bearing friction
  JointSpec spin{.name = "j_rotor", .type = JointType::Revolute, .parent = "base", .child = "rotor"};
  spin.parent_placement = test::randomPose(rng);
  spin.axis = test::randomVector(rng, 1.0).normalized();
  b.addJoint(spin);
  b.addPropeller({.name = "prop", .joint = "j_rotor", .thrust_direction = spin.axis, .thrust_coefficient = 1e-3,
                  .drag_coefficient = 2e-5, .friction = 0.01});
  SpringSpec spring{.name = "spring", .a = {"arm", test::randomPose(rng)}, .b = {"tool", test::randomPose(rng)}};
  spring.stiffness = 40.0;
  spring.rotational_stiffness = 3.0 * Mat3::Identity();
  b.addSpring(spring);
  DamperSpec damper{.name = "drag", .a = {std::string(kWorld), Pose()}, .b = {"pod", test::randomPose(rng)}};
  damper.damping = 2.0;
  damper.rotational_damping = 0.3 * Mat3::Identity();
  b.addDamper(damper);
  b.addJointSpringDamper({.joint = "j_arm", .stiffness = 5.0, .rest_position = 0.3, .damping = 0.4, .friction = 0.2});
  b.addJointSpringDamper({.joint = "j_tool", .stiffness = 50.0, .damping = 1.0});
  b.addExternalWrench({.body = "wrist", .point = Vec3(0.1, 0, 0), .force = Vec3(1, 2, 3), .torque = Vec3(0, 0.5, 0),
                       .world_axes = true});
  b.addActuator({.name = "thrust", .kind = ActuatorKind::BodyForce, .body = "base", .point = Vec3(0.2, 0, 0)});
  b.addActuator({.name = "arm_torque", .kind = ActuatorKind::JointEffort, .joint = "j_arm", .gain = 2.0});
  b.addActuator({.name = "wrist_effort", .kind = ActuatorKind::JointEffort, .joint = "j_wrist", .component = 1});
  b.addActuator({.name = "tool_servo", .kind = ActuatorKind::JointServo, .joint = "j_tool", .gain = 3.0,
                 .damping = 0.2});
  const Model m = b.build();
  expectSameAccelerations(m, 8, 82, "force elements");
}

TEST(ArticulatedBody, IsChosenWhereItApplies) {
  EXPECT_TRUE(test::randomChain(7, 1).articulated_body_dynamics);
  EXPECT_TRUE(test::seifriedCartTwoLinkArm().articulated_body_dynamics);
  // Rotation-matrix coordinates drift off SO(3): the tricopter's free base and ball joint.
  EXPECT_FALSE(test::tricopterWithLoad(false).articulated_body_dynamics);
  EXPECT_FALSE(treeWith(JointType::Spherical, 3).articulated_body_dynamics);
  EXPECT_FALSE(treeWith(JointType::Free, 3).articulated_body_dynamics);
  // A constant M (one body on a quaternion free joint) is factorized once: no recursion.
  test::Rng rng(2);
  ModelBuilder flyer;
  flyer.addBody(test::randomBody(rng, "flyer"));
  flyer.addJoint({.name = "free", .type = JointType::FreeQuaternion, .parent = kWorld, .child = "flyer"});
  const Model constant = flyer.build();
  EXPECT_TRUE(constant.constant_mass_matrix);
  EXPECT_FALSE(constant.articulated_body_dynamics);
  // Loop closures need M⁻¹ Zᵀ: the composite path.
  ModelBuilder b;
  b.addBody(test::randomBody(rng, "a")).addBody(test::randomBody(rng, "b"));
  b.addJoint({.name = "ja", .type = JointType::Revolute, .parent = kWorld, .child = "a"});
  b.addJoint({.name = "jb", .type = JointType::Revolute, .parent = "a", .child = "b"});
  b.addLoopClosure({.name = "loop", .kind = LoopClosure::Kind::Ball, .a = {"b", Pose()}, .b = {std::string(kWorld), Pose()}});
  EXPECT_FALSE(b.build().articulated_body_dynamics);
}

TEST(ArticulatedBody, ReportsASingularMassMatrixAtGimbalLock) {
  // Euler angles at pitch = π/2: S_e = [0; Y] loses rank, so does D = S_eᵀ I^A S_e.
  ModelBuilder b;
  test::Rng rng(91);
  b.addBody(test::randomBody(rng, "body"));
  b.addJoint({.name = "euler", .type = JointType::SphericalEulerZYX, .parent = kWorld, .child = "body"});
  const Model m = b.build();
  ASSERT_TRUE(m.articulated_body_dynamics);
  Workspace ws(m);
  const VecX x = Vec3(0.3, M_PI / 2, -0.2), xi = Vec3(0.1, 0.2, 0.3);
  EXPECT_EQ(computeForwardDynamics(m, x, xi, VecX(), ws), DynamicsStatus::SingularMassMatrix);
  const VecX near_lock = Vec3(0.3, M_PI / 2 - 1e-3, -0.2);
  EXPECT_EQ(computeForwardDynamics(m, near_lock, xi, VecX(), ws), DynamicsStatus::Ok);
}

TEST(JointFastPath, RevoluteGivesTheGeneralPathsNumbers) {
  // evaluateJoint takes a shortcut for revolute joints without a child placement; an identity child
  // placement sends the same joint down the general path.
  test::Rng rng(101);
  for (int k = 0; k < 20; ++k) {
    Joint fast;
    fast.type = JointType::Revolute;
    fast.nx = fast.nxi = 1;
    fast.axis = test::randomVector(rng, 1.0).normalized();
    fast.parent_placement = test::randomPose(rng);
    fast.has_parent_placement = k % 2 == 0;
    formRevoluteRotationTerms(fast);
    Joint general = fast;
    general.has_child_placement = true;  // T_c = I
    const double q = test::uniform(rng, -4.0, 4.0), rate = test::uniform(rng, -5.0, 5.0);
    const Vec6 parent_twist = Vec6::Random(), parent_bias = Vec6::Random();
    JointMotion a, b;
    evaluateJoint(fast, &q, &rate, parent_twist, parent_bias, a);
    evaluateJoint(general, &q, &rate, parent_twist, parent_bias, b);
    // Rodrigues with T_p folded in (Joint::rotation_constant…) rounds differently
    EXPECT_LT((a.transform.R - b.transform.R).cwiseAbs().maxCoeff(), 1e-15);
    EXPECT_EQ((a.transform.r - b.transform.r).cwiseAbs().maxCoeff(), 0.0);
    ASSERT_EQ(a.S.cols(), 1);
    EXPECT_EQ((a.S - b.S).cwiseAbs().maxCoeff(), 0.0);
    EXPECT_EQ((a.relative_twist - b.relative_twist).cwiseAbs().maxCoeff(), 0.0);
    EXPECT_EQ((a.bias - b.bias).cwiseAbs().maxCoeff(), 0.0);
    EXPECT_FALSE(a.drops_parent_rotation);
  }
  // A joint built by hand without formRevoluteRotationTerms: the defaults belong to the default axis.
  Joint plain;
  plain.type = JointType::Revolute;
  plain.nx = plain.nxi = 1;
  Joint general = plain;
  general.has_child_placement = true;
  const double q = 0.7, rate = 0.0;
  JointMotion a, b;
  evaluateJoint(plain, &q, &rate, Vec6::Zero(), Vec6::Zero(), a);
  evaluateJoint(general, &q, &rate, Vec6::Zero(), Vec6::Zero(), b);
  EXPECT_LT((a.transform.R - b.transform.R).cwiseAbs().maxCoeff(), 1e-15);
}

// computeInverseDynamicsForces (the recursive Newton–Euler pass) against M ξ̇ + c + f_G formed from
// the composite inertias and the separate force terms, at random states and accelerations.
double inverseDynamicsError(const Model& model, int count, std::uint64_t seed) {
  Workspace ws(model);
  test::Rng rng(seed);
  VecX xidot(model.nxi), recursive(model.nxi);
  double worst = 0.0;
  for (int k = 0; k < count; ++k) {
    const State s = test::randomState(model, rng, 1.5);
    for (int i = 0; i < model.nxi; ++i) xidot(i) = test::uniform(rng, -2.0, 2.0);
    computeKinematics(model, s.x, s.xi, ws);
    test::computeEquationTerms(model, ws);
    const VecX Ma = ws.mass_matrix * xidot;
    const VecX formed = Ma + ws.inertial_forces + ws.gravity_forces;
    computeInverseDynamicsForces(model, xidot, ws, recursive);
    const double scale = std::max({1.0, Ma.cwiseAbs().maxCoeff(), ws.inertial_forces.cwiseAbs().maxCoeff(),
                                   ws.gravity_forces.cwiseAbs().maxCoeff()});
    worst = std::max(worst, (recursive - formed).cwiseAbs().maxCoeff() / scale);
  }
  return worst;
}

TEST(InverseDynamics, IsTheMassMatrixTimesTheAccelerationPlusTheBiasForEveryJointType) {
  // All types, the non-orthonormal rotation-matrix ones and the absolute spherical joint (which
  // drops its parent's rotation) included: at the root and below a free body, two levels deep.
  for (JointType type : {JointType::Revolute, JointType::RevoluteUnitCircle, JointType::Prismatic,
                         JointType::Spherical, JointType::SphericalQuaternion, JointType::SphericalEulerZYX,
                         JointType::SphericalAbsolute, JointType::Free, JointType::FreeQuaternion,
                         JointType::Planar, JointType::Universal, JointType::Fixed})
    for (const bool at_root : {true, false})
      EXPECT_LT(inverseDynamicsError(test::randomTreeWith(type, at_root, 91), 5, 92), 1e-13)
          << jointTypeName(type) << (at_root ? " at the root" : " below a free body");
}

TEST(InverseDynamics, IsTheMassMatrixTimesTheAccelerationPlusTheBiasOnChainsTreesAndVehicles) {
  for (int n : {1, 7, 30}) {
    EXPECT_LT(inverseDynamicsError(test::randomChain(n, 93), 3, 94), 1e-13) << "chain of " << n;
    EXPECT_LT(inverseDynamicsError(test::randomTree(n, 95), 3, 96), 1e-13) << "tree of " << n;
  }
  EXPECT_LT(inverseDynamicsError(test::sevenDofArm(), 5, 97), 1e-13) << "arm7";
  test::AerialManipulatorParameters quaternion_base;
  quaternion_base.base_joint = JointType::FreeQuaternion;
  EXPECT_LT(inverseDynamicsError(test::kremerAerialManipulator(2, quaternion_base), 5, 98), 1e-13) << "kremer";
}

TEST(InverseDynamics, CountsArmatureAndGearedRotors) {
  // Θ_AC couples a joint's row to its parent's angular acceleration and bias (Joint::rotor_coupling):
  // both the M ξ̇ part and the c part, on joints below a free base and below another arm.
  test::Rng rng(99);
  ModelBuilder b;
  for (const char* name : {"base", "arm", "forearm"}) b.addBody(test::randomBody(rng, name));
  b.addJoint(test::randomJoint(rng, "j_base", JointType::FreeQuaternion, kWorld, "base"));
  JointSpec arm = test::randomJoint(rng, "j_arm", JointType::Revolute, "base", "arm");
  arm.armature = 0.9;
  arm.rotor_coupling = 0.03;
  b.addJoint(arm);
  JointSpec forearm = test::randomJoint(rng, "j_forearm", JointType::Revolute, "arm", "forearm");
  forearm.armature = 0.4;
  forearm.rotor_coupling = -0.02;
  b.addJoint(forearm);
  const Model m = b.build();
  ASSERT_NE(m.joints[m.jointIndex("j_forearm")].rotor_coupling, 0.0);
  EXPECT_LT(inverseDynamicsError(m, 8, 100), 1e-13);
}

}  // namespace
}  // namespace rbs
