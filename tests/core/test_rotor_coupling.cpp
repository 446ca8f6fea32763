// The geared rotor's coupling Θ_AC (Joint::rotor_coupling, thesis (5.9a), Table 5.1) against
// independent truth:
//   - the same rotor as a body of its own on a revolute joint, tied to the driven joint by a gear
//     (a JointCoupling loop closure q_R = n q): both models must give the same accelerations and
//     kinetic energy at random states of a tumbling base, through the composite and the
//     articulated-body paths (the gyroscopic reaction of the spinning rotor included);
//   - a two-mass closed form about one vertical axis;
//   - energy conservation of a passive tumbling run.
#include <gtest/gtest.h>

#include <cmath>
#include <tuple>

#include <Eigen/Cholesky>

#include "core/dynamics/dynamics.h"
#include "core/dynamics/energy.h"
#include "core/dynamics/kinematics.h"
#include "core/model/model_builder.h"
#include "tests/support/linear_algebra.h"
#include "tests/support/test_models.h"

namespace rbs {
namespace {

constexpr double kGear = 5.0;          // n (a real servo has 625; any n tests the identity)
constexpr double kRotorAxial = 2e-3;   // Θ_S [kg m²]
constexpr double kRotorTransverse = 1.3e-3;
constexpr double kRotorMass = 0.15;

struct RotorRig {
  Vec3 axis = Vec3(1.0, 0.4, -0.3).normalized();  // arm and rotor axis, base axes
  Vec3 arm_point{0.3, 0.1, 0.05};                  // the arm joint on the base
  Vec3 rotor_point{0.05, -0.04, 0.02};             // the rotor in the base
  BodySpec base, arm;
};

RotorRig makeRotorRig() {
  test::Rng rng(11);
  RotorRig s;
  s.base = test::randomBody(rng, "base");
  s.arm = test::randomBody(rng, "arm");
  return s;
}

/// Rotor inertia about its centre: axial Θ_S along a, transverse elsewhere (axisymmetric, so it
/// does not change as the rotor turns: the condition for folding it into the base).
Mat3 rotorInertia(const Vec3& a) {
  return kRotorAxial * a * a.transpose() + kRotorTransverse * (Mat3::Identity() - a * a.transpose());
}

JointSpec revolute(const char* name, const char* parent, const char* child, const Vec3& at, const Vec3& axis) {
  JointSpec j;
  j.name = name;
  j.type = JointType::Revolute;
  j.parent = parent;
  j.child = child;
  j.parent_placement = Pose{Mat3::Identity(), at};
  j.axis = axis;
  return j;
}

JointSpec freeBase() {
  JointSpec j;
  j.name = "flight";
  j.type = JointType::FreeQuaternion;
  j.child = "base";
  return j;
}

/// The rotor as a body on its own joint, geared to the arm joint by q_rotor = n q_arm.
Model explicitRotor(const RotorRig& s) {
  ModelBuilder b;
  b.setGravity(Vec3(0, 0, -9.81));
  b.addBody(s.base).addBody(s.arm);
  b.addBody({"rotor", kRotorMass, Vec3::Zero(), rotorInertia(s.axis)});
  b.addJoint(freeBase());
  b.addJoint(revolute("arm_joint", "base", "arm", s.arm_point, s.axis));
  b.addJoint(revolute("rotor_joint", "base", "rotor", s.rotor_point, s.axis));
  LoopClosureSpec gear;
  gear.name = "gear";
  gear.kind = LoopClosure::Kind::JointCoupling;
  gear.follower = "rotor_joint";
  gear.leader = "arm_joint";
  gear.multiplier = kGear;
  b.addLoopClosure(gear);
  return b.build();
}

/// The rotor folded into the base (mass and full inertia at its place), the gear as armature n²Θ_S
/// and coupling nΘ_S on the arm joint.
/// `body` with the rotor (mass and full inertia, axis `axis`) fixed at `at` in it.
void foldRotorInto(BodySpec& body, const Vec3& at, const Vec3& axis) {
  const double mass = body.mass + kRotorMass;
  const Vec3 com = (body.mass * body.com + kRotorMass * at) / mass;
  auto shift = [](double m, const Vec3& d) { return m * (d.squaredNorm() * Mat3::Identity() - d * d.transpose()); };
  body.inertia = body.inertia + shift(body.mass, body.com - com) + rotorInertia(axis) + shift(kRotorMass, at - com);
  body.mass = mass;
  body.com = com;
}

Model coupledRotor(const RotorRig& s, double coupling = kGear * kRotorAxial) {
  BodySpec base = s.base;
  foldRotorInto(base, s.rotor_point, s.axis);
  ModelBuilder b;
  b.setGravity(Vec3(0, 0, -9.81));
  b.addBody(base).addBody(s.arm);
  b.addJoint(freeBase());
  JointSpec arm = revolute("arm_joint", "base", "arm", s.arm_point, s.axis);
  arm.armature = kGear * kGear * kRotorAxial;
  arm.rotor_coupling = coupling;
  b.addJoint(arm);
  return b.build();
}

/// The explicit model's state for a coupled-model state: the rotor at n q, n q̇.
State explicitState(const Model& explicit_model, const State& coupled) {
  State s = explicit_model.initial_state;
  s.x.head(8) = coupled.x.head(8);  // r, q of the base; arm angle
  s.xi.head(7) = coupled.xi.head(7);
  const Joint& rotor = explicit_model.joints[explicit_model.jointIndex("rotor_joint")];
  s.x(rotor.x_offset) = kGear * coupled.x(7);
  s.xi(rotor.xi_offset) = kGear * coupled.xi(6);
  return s;
}

TEST(RotorCoupling, MatchesAnExplicitGearedRotorBody) {
  const RotorRig setup = makeRotorRig();
  const Model explicit_model = explicitRotor(setup);
  const Model coupled = coupledRotor(setup);
  ASSERT_EQ(coupled.nxi, 7);
  ASSERT_EQ(explicit_model.joints[explicit_model.jointIndex("arm_joint")].xi_offset, 6);
  ASSERT_TRUE(coupled.articulated_body_dynamics);
  Model composite = coupled;
  composite.articulated_body_dynamics = false;
  Workspace ws_explicit(explicit_model), ws_ab(coupled), ws_crb(composite);
  const VecX no_input_explicit = VecX::Zero(explicit_model.numInputs());
  const VecX no_input = VecX::Zero(coupled.numInputs());
  test::Rng rng(5);
  double worst = 0.0, worst_paths = 0.0, worst_energy = 0.0;
  for (int k = 0; k < 50; ++k) {
    const State s = test::randomState(coupled, rng, 3.0);
    const State e = explicitState(explicit_model, s);
    ASSERT_EQ(computeForwardDynamics(explicit_model, e.x, e.xi, no_input_explicit, ws_explicit), DynamicsStatus::Ok);
    ASSERT_EQ(computeForwardDynamics(coupled, s.x, s.xi, no_input, ws_ab), DynamicsStatus::Ok);
    ASSERT_EQ(computeForwardDynamics(composite, s.x, s.xi, no_input, ws_crb), DynamicsStatus::Ok);
    const double scale = std::max(1.0, ws_crb.xidot.cwiseAbs().maxCoeff());
    worst = std::max(worst, (ws_explicit.xidot.head(7) - ws_crb.xidot).cwiseAbs().maxCoeff() / scale);
    worst_paths = std::max(worst_paths, (ws_ab.xidot - ws_crb.xidot).cwiseAbs().maxCoeff() / scale);
    // The rotor body follows the gear: its acceleration is n q̈.
    const int rotor = explicit_model.joints[explicit_model.jointIndex("rotor_joint")].xi_offset;
    EXPECT_NEAR(ws_explicit.xidot(rotor), kGear * ws_crb.xidot(6), 1e-8 * scale * kGear);
    const double T_explicit = computeEnergies(explicit_model, e.x, e.xi, ws_explicit).kinetic;
    const double T_coupled = computeEnergies(composite, s.x, s.xi, ws_crb).kinetic;
    worst_energy = std::max(worst_energy, std::abs(T_explicit - T_coupled) / std::max(1.0, T_explicit));
  }
  // The explicit model goes through Gauss' principle with a 1e-12 regularization of Z M⁻¹ Zᵀ.
  EXPECT_LT(worst, 1e-9);
  EXPECT_LT(worst_paths, 1e-12);
  EXPECT_LT(worst_energy, 1e-13);
  // Without the coupling the two models disagree clearly: the test sees the term.
  const Model uncoupled = coupledRotor(setup, 0.0);
  Workspace ws_u(uncoupled);
  const State s = test::randomState(coupled, rng, 3.0);
  const State e = explicitState(explicit_model, s);
  computeForwardDynamics(explicit_model, e.x, e.xi, no_input_explicit, ws_explicit);
  computeForwardDynamics(uncoupled, s.x, s.xi, no_input, ws_u);
  EXPECT_GT((ws_explicit.xidot.head(7) - ws_u.xidot).cwiseAbs().maxCoeff(), 1e-3);
}

TEST(RotorCoupling, TwoGearedArmsBesideAPendulumMatchTheirExplicitRotors) {
  // A richer tree for both paths: two arms on skew axes with rotors geared by +n and −n, and a
  // double pendulum (spherical, then revolute) beside them on the same base.
  test::Rng rng(21);
  const Vec3 axis1 = Vec3(1.0, 0.4, -0.3).normalized(), axis2 = Vec3(-0.2, 1.0, 0.5).normalized();
  const Vec3 at1(0.3, 0.1, 0.05), at2(-0.25, 0.2, 0.0), rotor1(0.05, -0.04, 0.02), rotor2(-0.06, 0.03, -0.01);
  const double gear1 = kGear, gear2 = -3.0;
  const BodySpec base = test::randomBody(rng, "base"), arm1 = test::randomBody(rng, "arm1"),
                 arm2 = test::randomBody(rng, "arm2"), bob = test::randomBody(rng, "bob"),
                 tip = test::randomBody(rng, "tip");
  auto pendulum = [&](ModelBuilder& b) {
    b.addBody(bob).addBody(tip);
    JointSpec hang = test::randomJoint(rng, "hang", JointType::SphericalQuaternion, "base", "bob");
    b.addJoint(hang);
    b.addJoint(test::randomJoint(rng, "elbow", JointType::Revolute, "bob", "tip"));
  };
  test::Rng rng_explicit = rng, rng_coupled = rng;  // the same random pendulum joints in both
  ModelBuilder e;
  e.setGravity(Vec3(0, 0, -9.81));
  e.addBody(base).addBody(arm1).addBody(arm2);
  e.addBody({"r1", kRotorMass, Vec3::Zero(), rotorInertia(axis1)});
  e.addBody({"r2", kRotorMass, Vec3::Zero(), rotorInertia(axis2)});
  e.addJoint(freeBase());
  e.addJoint(revolute("j1", "base", "arm1", at1, axis1)).addJoint(revolute("j2", "base", "arm2", at2, axis2));
  e.addJoint(revolute("jr1", "base", "r1", rotor1, axis1)).addJoint(revolute("jr2", "base", "r2", rotor2, axis2));
  rng = rng_explicit;
  pendulum(e);
  for (auto [follower, leader, n] : {std::tuple{"jr1", "j1", gear1}, std::tuple{"jr2", "j2", gear2}}) {
    LoopClosureSpec g;
    g.name = std::string(follower) + "_gear";
    g.kind = LoopClosure::Kind::JointCoupling;
    g.follower = follower;
    g.leader = leader;
    g.multiplier = n;
    e.addLoopClosure(g);
  }
  const Model explicit_model = e.build();

  BodySpec merged = base;
  foldRotorInto(merged, rotor1, axis1);
  foldRotorInto(merged, rotor2, axis2);
  ModelBuilder c;
  c.setGravity(Vec3(0, 0, -9.81));
  c.addBody(merged).addBody(arm1).addBody(arm2);
  c.addJoint(freeBase());
  JointSpec j1 = revolute("j1", "base", "arm1", at1, axis1), j2 = revolute("j2", "base", "arm2", at2, axis2);
  j1.armature = gear1 * gear1 * kRotorAxial, j1.rotor_coupling = gear1 * kRotorAxial;
  j2.armature = gear2 * gear2 * kRotorAxial, j2.rotor_coupling = gear2 * kRotorAxial;
  c.addJoint(j1).addJoint(j2);
  rng = rng_coupled;
  pendulum(c);
  const Model coupled = c.build();
  ASSERT_TRUE(coupled.articulated_body_dynamics);
  Model composite = coupled;
  composite.articulated_body_dynamics = false;

  Workspace ws_e(explicit_model), ws_ab(coupled), ws_crb(composite);
  test::Rng draw(4);
  double worst = 0.0, worst_paths = 0.0;
  for (int k = 0; k < 30; ++k) {
    const State s = test::randomState(coupled, draw, 3.0);
    State se = explicit_model.initial_state;
    // Copy joint by joint (the explicit model has the rotor joints in between), then gear the rotors.
    for (const Joint& jc : coupled.joints) {
      const Joint& je = explicit_model.joints[explicit_model.jointIndex(jc.name)];
      se.x.segment(je.x_offset, je.nx) = s.x.segment(jc.x_offset, jc.nx);
      se.xi.segment(je.xi_offset, je.nxi) = s.xi.segment(jc.xi_offset, jc.nxi);
    }
    for (auto [rotor, arm, n] : {std::tuple{"jr1", "j1", gear1}, std::tuple{"jr2", "j2", gear2}}) {
      const Joint& jr = explicit_model.joints[explicit_model.jointIndex(rotor)];
      const Joint& ja = coupled.joints[coupled.jointIndex(arm)];
      se.x(jr.x_offset) = n * s.x(ja.x_offset);
      se.xi(jr.xi_offset) = n * s.xi(ja.xi_offset);
    }
    ASSERT_EQ(computeForwardDynamics(explicit_model, se.x, se.xi, VecX(), ws_e), DynamicsStatus::Ok);
    ASSERT_EQ(computeForwardDynamics(coupled, s.x, s.xi, VecX(), ws_ab), DynamicsStatus::Ok);
    ASSERT_EQ(computeForwardDynamics(composite, s.x, s.xi, VecX(), ws_crb), DynamicsStatus::Ok);
    const double scale = std::max(1.0, ws_crb.xidot.cwiseAbs().maxCoeff());
    for (const Joint& jc : coupled.joints) {
      const Joint& je = explicit_model.joints[explicit_model.jointIndex(jc.name)];
      worst = std::max(worst, (ws_e.xidot.segment(je.xi_offset, je.nxi) - ws_crb.xidot.segment(jc.xi_offset, jc.nxi))
                                      .cwiseAbs()
                                      .maxCoeff() /
                                  scale);
    }
    worst_paths = std::max(worst_paths, (ws_ab.xidot - ws_crb.xidot).cwiseAbs().maxCoeff() / scale);
  }
  EXPECT_LT(worst, 1e-9);
  EXPECT_LT(worst_paths, 1e-12);
}

TEST(RotorCoupling, TwoMassClosedFormAboutOneAxis) {
  // A turntable (inertia Θ_1 about z, the rotor's Θ_S included) carries an arm (Θ_2 about its own
  // z axis, mass m_2 on it at d = 0.2 m from the table's) on a geared joint with a constant torque
  // τ: T = ½ (Θ_1 + m_2 d²) ω² + ½ Θ_2 (ω + q̇)² + Θ_AC ω q̇ + ½ n² Θ_S q̇², so
  // M = [[Θ_1 + m_2 d² + Θ_2, Θ_2 + Θ_AC], [Θ_2 + Θ_AC, Θ_2 + n² Θ_S]] and ξ̇ = M⁻¹ [0; τ].
  const double theta1 = 0.03, theta2 = 0.004, tau = 0.2;
  ModelBuilder b;
  b.addBody({"table", 1.0, Vec3::Zero(), Vec3(0.02, 0.02, theta1).asDiagonal()});
  b.addBody({"arm", 0.2, Vec3::Zero(), Vec3(0.01, 0.01, theta2).asDiagonal()});
  b.addJoint(revolute("turn", kWorld, "table", Vec3::Zero(), Vec3::UnitZ()));
  JointSpec arm = revolute("tilt", "table", "arm", Vec3(0.2, 0, 0), Vec3::UnitZ());
  arm.armature = kGear * kGear * kRotorAxial;
  arm.rotor_coupling = kGear * kRotorAxial;
  b.addJoint(arm);
  ActuatorSpec motor;
  motor.name = "servo";
  motor.kind = ActuatorKind::JointEffort;
  motor.joint = "tilt";
  b.addActuator(motor);
  const Model m = b.build();
  Eigen::Matrix2d M;
  M << theta1 + 0.2 * 0.2 * 0.2 + theta2, theta2 + kGear * kRotorAxial, theta2 + kGear * kRotorAxial, theta2 + kGear * kGear * kRotorAxial;
  const Eigen::Vector2d expected = M.ldlt().solve(Eigen::Vector2d(0.0, tau));
  Workspace ws(m);
  const VecX u = VecX::Constant(1, tau);
  State s = m.initial_state;
  s.xi << 1.3, -0.7;  // axes parallel: no gyroscopic term, M constant
  ASSERT_EQ(computeForwardDynamics(m, s.x, s.xi, u, ws), DynamicsStatus::Ok);
  EXPECT_NEAR(ws.xidot(0), expected(0), 1e-12);
  EXPECT_NEAR(ws.xidot(1), expected(1), 1e-12);
  computeMassMatrix(m, ws);
  EXPECT_NEAR(ws.mass_matrix(0, 1), M(0, 1), 1e-15);
  EXPECT_NEAR(ws.mass_matrix(1, 1), M(1, 1), 1e-15);
  // The angular momentum about z, (Θ_1 + Θ_2) ω + (Θ_2 + Θ_AC) q̇, grows at the rate the world
  // joint's reaction allows: none, so it stays put — the torque only redistributes it.
  EXPECT_NEAR(M.row(0).dot(Eigen::Vector2d(ws.xidot(0), ws.xidot(1))), 0.0, 1e-14);
}

TEST(RotorCoupling, PassiveTumblingConservesEnergy) {
  const Model m = coupledRotor(makeRotorRig());
  Workspace ws(m);
  test::Rng rng(8);
  State s = test::randomState(m, rng, 4.0);
  const VecX u = VecX::Zero(m.numInputs());
  auto energy = [&](const State& st) {
    computeForwardDynamics(m, st.x, st.xi, u, ws);
    const Energies e = computeEnergies(m, st.x, st.xi, ws);
    return e.kinetic + e.potential();
  };
  auto rate = [&](const State& st, VecX& dx, VecX& dxi) {
    EXPECT_EQ(computeForwardDynamics(m, st.x, st.xi, u, ws), DynamicsStatus::Ok);
    dx = ws.xdot;
    dxi = ws.xidot;
  };
  const double W0 = energy(s), h = 1e-4;
  VecX k1x, k1v, k2x, k2v, k3x, k3v, k4x, k4v;
  for (int step = 0; step < 10000; ++step) {  // 1 s of RK4
    rate(s, k1x, k1v);
    State t = s;
    t.x += 0.5 * h * k1x, t.xi += 0.5 * h * k1v;
    rate(t, k2x, k2v);
    t = s;
    t.x += 0.5 * h * k2x, t.xi += 0.5 * h * k2v;
    rate(t, k3x, k3v);
    t = s;
    t.x += h * k3x, t.xi += h * k3v;
    rate(t, k4x, k4v);
    s.x += h / 6 * (k1x + 2 * k2x + 2 * k3x + k4x);
    s.xi += h / 6 * (k1v + 2 * k2v + 2 * k3v + k4v);
    s.x.segment<4>(3).normalize();
  }
  const double W1 = energy(s);
  EXPECT_LT(std::abs(W1 - W0) / std::max(1.0, std::abs(W0)), 1e-9) << W0 << " → " << W1;
}

TEST(RotorCoupling, BuilderRefusesWhatCannotBeARotor) {
  const RotorRig setup = makeRotorRig();
  auto error = [&](auto&& change) -> std::string {
    ModelBuilder b;
    b.addBody(setup.base).addBody(setup.arm);
    JointSpec root = freeBase();
    JointSpec arm = revolute("arm_joint", "base", "arm", setup.arm_point, setup.axis);
    arm.armature = 0.05;
    arm.rotor_coupling = 0.002;
    change(root, arm);
    b.addJoint(root).addJoint(arm);
    try {
      b.build();
    } catch (const ModelError& e) {
      return e.what();
    }
    return "accepted";
  };
  EXPECT_EQ(error([](JointSpec&, JointSpec&) {}), "accepted");
  EXPECT_NE(error([](JointSpec&, JointSpec& a) { a.type = JointType::Prismatic; }).find("applies to revolute joints"),
            std::string::npos);
  EXPECT_NE(error([](JointSpec&, JointSpec& a) { a.rotor_coupling = std::nan(""); }).find("must be finite"),
            std::string::npos);
  // Θ_S = Θ_AC²/armature: a rotor this strongly geared would need more inertia than the base has.
  const std::string big = error([](JointSpec&, JointSpec& a) { a.rotor_coupling = 5.0; });
  EXPECT_NE(big.find("more than the parent body 'base' holds"), std::string::npos) << big;
  EXPECT_NE(big.find("arm_joint"), std::string::npos) << big;
  EXPECT_NE(error([](JointSpec&, JointSpec& a) { a.armature = 0.0; }).find("needs the rotor's armature"),
            std::string::npos);
  // On a joint to the world there is no body to hold the rotor.
  const std::string world = error([](JointSpec& r, JointSpec&) {
    r.type = JointType::Revolute;
    r.rotor_coupling = 0.001;
    r.armature = 0.05;
  });
  EXPECT_NE(world.find("the parent is the world"), std::string::npos) << world;
}

TEST(RotorCoupling, BoundHoldsOffThePrincipalAxes) {
  // Θ_com = [[1, .9, 0], [.9, 1, 0], [0, 0, 1]] is a valid body (moments 1.9, 0.1, 1) with 1 about x,
  // but a rotor of Θ_S = 0.81 along x does not fit: Θ_com − 0.81 e_x e_xᵀ has determinant
  // 0.19 − 0.81 < 0. Θ_S ≤ Θ_xx alone would let it pass and M would be indefinite.
  auto build = [](double coupling) {
    ModelBuilder b;
    Mat3 inertia;
    inertia << 1, 0.9, 0, 0.9, 1, 0, 0, 0, 1;
    b.addBody({"base", 1.0, Vec3::Zero(), inertia}).addBody({"arm", 0.1, Vec3::Zero(), 0.01 * Mat3::Identity()});
    b.addJoint(freeBase());
    JointSpec arm = revolute("arm_joint", "base", "arm", Vec3(0.2, 0, 0), Vec3::UnitX());
    arm.armature = 1.0;
    arm.rotor_coupling = coupling;
    b.addJoint(arm);
    return b.build();
  };
  EXPECT_THROW(build(0.9), ModelError);
  // Θ_S = 0.18² = 0.0324 fits (0.19 − 0.0324 … positive Schur complement): accepted, and M is
  // positive definite.
  const Model m = build(0.18);
  Workspace ws(m);
  computeKinematics(m, m.initial_state.x, m.initial_state.xi, ws);
  computeMassMatrix(m, ws);
  EXPECT_GT(test::symmetricEigenvalues(ws.mass_matrix)(0), 0.0);
}

TEST(RotorCoupling, ALockedGearedPropellerLeavesTheForceModel) {
  // A propeller driven through a gear (armature and coupling on its joint): the force model locks
  // the rotor, so both belong to the parent body and must go with the joint's freedom.
  const RotorRig rig = makeRotorRig();
  ModelBuilder b;
  b.addBody(rig.base).addBody({"prop", 0.01, Vec3::Zero(), Vec3(1.8e-5, 1.8e-5, 3.6e-5).asDiagonal()});
  b.addJoint(freeBase());
  JointSpec spin = revolute("spin", "base", "prop", Vec3(0.2, 0, 0), Vec3::UnitZ());
  spin.armature = 1e-4;
  spin.rotor_coupling = 1e-4;
  b.addJoint(spin);
  PropellerSpec p;
  p.name = "rotor";
  p.joint = "spin";
  p.thrust_coefficient = 1.44e-5;
  b.addPropeller(p);
  ASSERT_NO_THROW(b.build());
  const Model force = b.rotorsAsThrusters().build();
  const Joint& locked = force.joints[force.jointIndex("spin")];
  EXPECT_EQ(locked.type, JointType::Fixed);
  EXPECT_EQ(locked.rotor_coupling, 0.0);
  EXPECT_EQ(locked.armature, 0.0);
}

}  // namespace
}  // namespace rbs
