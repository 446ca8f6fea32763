// Energy balance W(t) − W(0) = ∫ (ξᵀ f_E − ξᵀ D ξ) dt (thesis 3.2.7, konz-modeling §13) for a tree
// with every force element: SE(3) springs to the world and between bodies (nonzero centre of
// stiffness, rotational stiffness), dampers to the world and between bodies, joint spring-dampers
// (angle and unit-circle revolute), constant external wrenches and actuators with time-varying
// inputs u(t). Plus the passive cases (W constant; W non-increasing with damping) and the force
// terms against independent truths: f_K = ∇V_K and f_G = ∇V_G by differences along the exact flow
// (§16.3 item 2), the dissipation against 2R of the relative twists, the input power against the
// work rate of the applied forces.
#include <gtest/gtest.h>

#include <cmath>
#include <sstream>
#include <vector>

#include "core/dynamics/dynamics.h"
#include "core/dynamics/energy.h"
#include "sim/simulator.h"
#include "tests/support/flow.h"
#include "tests/support/matrix_compare.h"
#include "tests/support/report.h"
#include "tests/support/test_models.h"

namespace rbs {
namespace {

struct Elements {
  bool dampers = true;
  bool inputs = true;  // external wrenches and actuators
};

// The system: a floating base (free), an arm on a revolute joint, a tip on a unit-circle revolute
// joint below the arm, and a ball on a quaternion spherical joint on the base.
Model testSystem(const Elements& e) {
  test::Rng rng(601);
  ModelBuilder b;
  for (const char* name : {"base", "arm", "tip", "ball"}) b.addBody(test::randomBody(rng, name));
  b.addJoint({.name = "float", .type = JointType::Free, .parent = rbs::kWorld, .child = "base"});
  JointSpec arm{.name = "shoulder", .type = JointType::Revolute, .parent = "base", .child = "arm"};
  arm.parent_placement = test::randomPose(rng, 0.4);
  arm.child_placement = test::randomPose(rng, 0.2);
  arm.axis = test::randomVector(rng, 1.0).normalized();
  JointSpec tip{
      .name = "wrist", .type = JointType::RevoluteUnitCircle, .parent = "arm", .child = "tip"};
  tip.parent_placement = test::randomPose(rng, 0.4);
  tip.axis = test::randomVector(rng, 1.0).normalized();
  JointSpec ball{
      .name = "ball", .type = JointType::SphericalQuaternion, .parent = "base", .child = "ball"};
  ball.parent_placement = test::randomPose(rng, 0.4);
  ball.child_placement = test::randomPose(rng, 0.2);
  b.addJoint(arm).addJoint(tip).addJoint(ball);

  const Mat3 Q = test::randomRotation(rng);
  b.addSpring({.name = "anchor",
               .a = {rbs::kWorld, test::randomPose(rng, 0.5)},
               .b = {"base", test::randomPose(rng, 0.2)},
               .rest = test::randomPose(rng, 0.3),
               .stiffness = 40.0,
               .center = Vec3(0.1, -0.05, 0.2),
               .rotational_stiffness = Q * Vec3(3.0, 4.0, 5.0).asDiagonal() * Q.transpose()});
  b.addSpring({.name = "coupling",
               .a = {"arm", test::randomPose(rng, 0.2)},
               .b = {"ball", test::randomPose(rng, 0.2)},
               .rest = test::randomPose(rng, 0.2),
               .stiffness = 25.0,
               .center = Vec3(0.05, 0.1, -0.1),
               .rotational_stiffness = Vec3(1.0, 2.0, 1.5).asDiagonal()});
  b.addJointSpringDamper({.joint = "shoulder",
                          .stiffness = 5.0,
                          .rest_position = 0.3,
                          .damping = e.dampers ? 0.2 : 0.0});
  b.addJointSpringDamper({.joint = "wrist",
                          .stiffness = 3.0,
                          .rest_position = -0.5,
                          .damping = e.dampers ? 0.1 : 0.0});
  if (e.dampers) {
    b.addDamper({.name = "air",
                 .a = {rbs::kWorld, Pose::identity()},
                 .b = {"base", test::randomPose(rng, 0.2)},
                 .damping = 0.8,
                 .center = Vec3(0.05, 0.0, -0.1),
                 .rotational_damping = Vec3(0.2, 0.3, 0.1).asDiagonal()});
    b.addDamper({.name = "oil",
                 .a = {"base", test::randomPose(rng, 0.2)},
                 .b = {"tip", test::randomPose(rng, 0.2)},
                 .damping = 0.5,
                 .center = Vec3(-0.1, 0.05, 0.0),
                 .rotational_damping = 0.05 * Mat3::Identity()});
  }
  if (e.inputs) {
    b.addExternalWrench({.body = "ball",
                         .point = Vec3(0.1, 0.0, 0.05),
                         .force = Vec3(1.0, -2.0, 0.5),
                         .torque = Vec3(0.2, 0.0, -0.1),
                         .world_axes = true});
    b.addExternalWrench({.body = "arm",
                         .point = Vec3(0.0, 0.2, 0.0),
                         .force = Vec3(0.0, 0.0, 0.7),
                         .torque = Vec3(0.0, 0.3, 0.0),
                         .world_axes = false});
    b.addActuator(
        {.name = "shoulder_motor", .kind = ActuatorKind::JointEffort, .joint = "shoulder"});
    b.addActuator({.name = "thruster",
                   .kind = ActuatorKind::BodyForce,
                   .body = "base",
                   .point = Vec3(0.1, 0.2, -0.1),
                   .direction = Vec3(0.0, 0.6, 0.8)});
    b.addActuator({.name = "reaction_wheel",
                   .kind = ActuatorKind::BodyTorque,
                   .body = "ball",
                   .direction = Vec3(1.0, 0.0, 0.0)});
  }
  return b.build();
}

/// Time-varying inputs u(t) (zero-size for models without actuators).
void inputs(double t, const State&, VecX& u) {
  if (u.size() == 0) return;
  u << 0.8 * std::sin(3.0 * t), 2.0 * std::cos(2.0 * t), 0.5 * std::sin(5.0 * t) + 0.2;
}

State initialState(const Model& m) {
  test::Rng rng(602);
  State s = test::randomState(m, rng, 1.5);
  return s;
}

IntegrationOptions rk4() {
  IntegrationOptions opt;
  opt.stepper = StepperKind::Rk4;
  opt.dt = 1e-3;
  return opt;
}

/// Samples of W, P_in = ξᵀf_E and P_diss = ξᵀf_D after every step (RK4: every 1 ms).
struct EnergyRun {
  std::vector<double> t, W, P_in, P_diss;
};

EnergyRun simulateEnergies(const Model& m, double duration, const IntegrationOptions& opt = rk4()) {
  EnergyRun run;
  State s = initialState(m);
  Workspace ws(m);
  VecX u(m.numInputs());
  const IntegrationResult r =
      integrate(m, s, 0.0, duration, opt, inputs, 0.0, [&](double t, const State& st) {
        inputs(t, st, u);
        EXPECT_EQ(computeForwardDynamics(m, st.x, st.xi, u, ws), DynamicsStatus::Ok);
        run.t.push_back(t);
        const Energies e = computeEnergies(m, st.x, st.xi, ws);
        run.W.push_back(e.total());
        run.P_in.push_back(e.input_power);
        run.P_diss.push_back(e.dissipation);
      });
  EXPECT_TRUE(r.ok) << r.message;
  return run;
}

TEST(EnergyBalance, EnergyChangeEqualsInputWorkMinusDissipation) {
  const Model m = testSystem({.dampers = true, .inputs = true});
  const EnergyRun run = simulateEnergies(m, 5.0);
  ASSERT_GT(run.t.size(), 4000u);
  // ∫ (P_in − P_diss) by composite Simpson over pairs of 1 ms steps: quadrature error
  // ~dt⁴ |P⁽⁴⁾| / 180 ≈ 1e-14 per unit time for the O(10–1000 /s⁴) derivatives here.
  double integral = 0.0, worst = 0.0, scale = 0.0, work_in = 0.0, dissipated = 0.0;
  for (size_t k = 2; k < run.t.size(); k += 2) {
    const double h = run.t[k] - run.t[k - 1];
    ASSERT_NEAR(run.t[k - 1] - run.t[k - 2], h, 1e-12);  // uniform 1 ms grid (Simpson's rule)
    auto net = [&](size_t i) { return run.P_in[i] - run.P_diss[i]; };
    integral += h / 3.0 * (net(k - 2) + 4.0 * net(k - 1) + net(k));
    work_in += h / 3.0 * (run.P_in[k - 2] + 4.0 * run.P_in[k - 1] + run.P_in[k]);
    dissipated += h / 3.0 * (run.P_diss[k - 2] + 4.0 * run.P_diss[k - 1] + run.P_diss[k]);
    worst = std::max(worst, std::abs(run.W[k] - run.W[0] - integral));
    scale = std::max({scale, std::abs(work_in), std::abs(dissipated)});
  }
  // The balance is exact for the exact flow; RK4 at 1 ms violates it by its global error, which
  // scales like dt⁴ (measured 3e-10 of the energy flows; the passive drift below shrinks 16× per
  // halving of dt). Bound: 1e-8 of the larger of the input work and the dissipated energy (here
  // ~5 J and ~150 J, checked non-trivial below). A missing or mis-signed force term breaks the
  // balance at the O(1e-2–1) relative level.
  constexpr double kBalanceTol = 1e-8;  // relative to the energy flows; 40× the measured 2.7e-10
  EXPECT_LT(worst, kBalanceTol * scale)
      << "input work " << work_in << " J, dissipated " << dissipated << " J";
  EXPECT_GT(std::abs(work_in), 0.1);
  EXPECT_GT(dissipated, 0.1);
  test::recordError("max_balance_residual_J", worst);
  test::recordError("relative_balance_residual", worst / scale);
  test::recordError("input_work_J", work_in);
  test::recordError("dissipated_J", dissipated);
}

TEST(EnergyBalance, PassiveConservativeSystemConservesEnergy) {
  // Springs, joint springs and gravity only: Ẇ = 0.
  const Model m = testSystem({.dampers = false, .inputs = false});
  IntegrationOptions opt;
  opt.stepper = StepperKind::RkDopri5;
  opt.rtol = opt.atol = 1e-12;
  const EnergyRun run = simulateEnergies(m, 5.0, opt);
  double worst = 0.0, kinetic_scale = 0.0;
  State s = initialState(m);
  Workspace ws(m);
  computeForwardDynamics(m, s.x, s.xi, VecX(), ws);
  kinetic_scale = computeEnergies(m, s.x, s.xi, ws).kinetic;
  for (size_t k = 0; k < run.t.size(); ++k) {
    worst = std::max(worst, std::abs(run.W[k] - run.W[0]));
    EXPECT_EQ(run.P_in[k], 0.0);
    EXPECT_EQ(run.P_diss[k], 0.0);
  }
  // Dopri5 at rtol = 1e-12 keeps W to ~1e-11 T(0) (measured 1.4e-11). (With RK4 the drift is
  // pure truncation: 1.3e-7, 8.4e-9, 5.3e-10 of T(0) at dt = 1, 0.5, 0.25 ms, the dt⁴ law.)
  // Bound 1e-9 T(0). A non-conservative error (wrong f_K or f_G) drifts by O(T) within seconds,
  // independently of the step size.
  constexpr double kDriftTol = 1e-9;  // relative to T(0); 70× the measured 1.4e-11
  EXPECT_LT(worst, kDriftTol * kinetic_scale) << "T(0) = " << kinetic_scale << " J";
  test::recordError("relative_energy_drift", worst / kinetic_scale);
}

TEST(EnergyBalance, WithDampingOnlyEnergyNeverIncreases) {
  const Model m = testSystem({.dampers = true, .inputs = false});
  const EnergyRun run = simulateEnergies(m, 5.0);
  double worst_rise = 0.0;
  for (size_t k = 1; k < run.t.size(); ++k) {
    worst_rise = std::max(worst_rise, run.W[k] - run.W[k - 1]);
    EXPECT_GE(run.P_diss[k], -1e-12);  // ξᵀDξ ≥ 0 (D positive semidefinite), up to rounding
  }
  // Per 1 ms step W may rise only by the RK4 local error (~1e-13 J here), not by a physical
  // amount: 1e-9 J allows rounding and truncation; a damper with the wrong sign raises W by
  // ~P_diss·dt ≈ 1e-3 J per step.
  constexpr double kRiseTol = 1e-9;  // J per step; RK4 local error ~1e-13 J, physical rise ~1e-3 J
  EXPECT_LT(worst_rise, kRiseTol);
  // The damping really acts: a substantial part of the initial energy is dissipated.
  EXPECT_LT(run.W.back(), run.W.front() - 0.5);
  test::recordError("max_energy_rise_per_step_J", worst_rise);
  test::recordError("energy_lost_J", run.W.front() - run.W.back());
}

// ---- Force terms against independent truths
// ---------------------------------------------------------

// Differences along the exact flow x(t) of ẋ = A(x) ξ (tests/support/flow.h), 4th-order central
// with h = 5e-4 s: truncation ~h⁴ f⁽⁵⁾ ≈ 1e-12 (|f⁽⁵⁾| ≲ 1e2), rounding ~1e-16 · |V| / h ≈ 1e-12.
// 1e-8 is far below any wrong term (O(0.1–10)).
constexpr double kH = 5e-4;
constexpr double kFdTol = 1e-8;

Energies energiesAt(const Model& m, const VecX& x) {
  Workspace w(m);
  const VecX zero = VecX::Zero(m.nxi);
  computeKinematics(m, x, zero, w);
  return computeEnergies(m, x, zero, w);
}

TEST(EnergyBalance, ElasticAndGravityForcesAreGradientsOfTheirPotentials) {
  const Model m = testSystem({.dampers = true, .inputs = true});
  Workspace ws(m);
  test::Rng rng(603);
  double worst = 0.0;
  for (int trial = 0; trial < 3; ++trial) {
    const State s = test::randomState(m, rng, 1.0);
    computeKinematics(m, s.x, s.xi, ws);
    computeElasticForces(m, s.x, ws);
    computeGravityForces(m, ws);
    VecX grad_K(m.nxi), grad_G(m.nxi);
    for (int i = 0; i < m.nxi; ++i) {
      // ∂_i V = d/dt V(x(t)) along the flow of ξ = e_i (the directional derivative of (2.2.1)).
      const VecX e = VecX::Unit(m.nxi, i);
      grad_K(i) = test::centralDifference(
          [&](double t) { return energiesAt(m, test::flowConfiguration(m, s.x, e, t)).elastic; },
          kH);
      grad_G(i) = test::centralDifference(
          [&](double t) {
            return energiesAt(m, test::flowConfiguration(m, s.x, e, t)).gravitational;
          },
          kH);
    }
    EXPECT_MATRIX_NEAR(ws.elastic_forces, grad_K, kFdTol) << "trial " << trial;
    EXPECT_MATRIX_NEAR(ws.gravity_forces, grad_G, kFdTol) << "trial " << trial;
    worst = std::max({worst, (ws.elastic_forces - grad_K).cwiseAbs().maxCoeff(),
                      (ws.gravity_forces - grad_G).cwiseAbs().maxCoeff()});
    // Non-trivial: the elastic forces are O(1–100) at these random states.
    EXPECT_GT(ws.elastic_forces.cwiseAbs().maxCoeff(), 1.0);
  }
  test::recordError("max_gradient_error", worst);
}

/// World pose of a frame at configuration x (independent of framePose: ws.pose · offset).
Pose worldFramePose(const Model& m, const VecX& x, int body, const Pose& offset) {
  if (body < 0) return offset;
  Workspace w(m);
  computeKinematics(m, x, VecX::Zero(m.nxi), w);
  return w.pose[body] * offset;
}

/// Body twist [v; ω] of the pose path G(t) at t = 0 in its own coordinates: vee(G⁻¹ Ġ).
template <class PoseOfT>
Vec6 twistByDifferences(PoseOfT&& G) {
  const Mat4 dG = test::centralDifference([&](double t) { return Mat4(G(t).matrix()); }, kH);
  return vee(Mat4(G(0.0).inverse().matrix() * dG));
}

TEST(EnergyBalance, DissipationIsTwiceTheRayleighFunctionOfTheRelativeTwists) {
  // 2R = Σ_dampers ^aξ_bᵀ D_s ^aξ_b + Σ_joints d q̇² (3.117), with the relative twist of frame b
  // w.r.t. the fluid frame a from differences of G_ab(t) = G_a⁻¹ G_b along the flow, and
  // D_s = [d I, d wed(l)ᵀ; d wed(l), Υ_s + d wed(l) wed(l)ᵀ] written out from the spec.
  const Model m = testSystem({.dampers = true, .inputs = false});
  Workspace ws(m);
  test::Rng rng(604);
  double worst = 0.0;
  for (int trial = 0; trial < 3; ++trial) {
    const State s = test::randomState(m, rng, 1.5);
    ASSERT_EQ(computeForwardDynamics(m, s.x, s.xi, VecX(), ws), DynamicsStatus::Ok);
    double two_R = 0.0;
    for (const Damper& d : m.dampers) {
      auto G_ab = [&](double t) {
        const VecX x = test::flowConfiguration(m, s.x, s.xi, t);
        return worldFramePose(m, x, d.a.body, d.a.offset).inverse() *
               worldFramePose(m, x, d.b.body, d.b.offset);
      };
      const Vec6 rel = twistByDifferences(G_ab);
      two_R += rel.dot(d.damping * rel);
    }
    for (const JointSpringDamper& j : m.joint_spring_dampers) {
      const double qd = s.xi(m.joints[j.joint].xi_offset);
      two_R += j.damping * qd * qd;
    }
    // D_s built by the builder equals the written-out form (3.68)/(3.72) for both dampers.
    const Vec3 l[2] = {Vec3(0.05, 0.0, -0.1), Vec3(-0.1, 0.05, 0.0)};
    const double dd[2] = {0.8, 0.5};
    const Mat3 ups[2] = {Vec3(0.2, 0.3, 0.1).asDiagonal(), 0.05 * Mat3::Identity()};
    for (int k = 0; k < 2; ++k) {
      Mat6 D;
      D << dd[k] * Mat3::Identity(), dd[k] * wed(l[k]).transpose(), dd[k] * wed(l[k]),
          ups[k] + dd[k] * wed(l[k]) * wed(l[k]).transpose();
      EXPECT_MATRIX_NEAR(m.dampers[k].damping, D, 1e-15);  // same products: rounding only
    }
    const double dissipation = computeEnergies(m, s.x, s.xi, ws).dissipation;
    EXPECT_NEAR(dissipation, two_R, kFdTol) << "trial " << trial;
    EXPECT_GT(two_R, 0.1);
    worst = std::max(worst, std::abs(dissipation - two_R));
  }
  test::recordError("max_dissipation_error_W", worst);
}

TEST(EnergyBalance, InputPowerIsTheWorkRateOfTheAppliedForces) {
  // ξᵀ f_E = Σ F·ṗ + τ·ω over the applied forces and torques (world axes), with point velocities
  // ṗ and body angular velocities ω from differences of world poses along the flow, plus u q̇ for
  // joint efforts.
  const Model m = testSystem({.dampers = false, .inputs = true});
  Workspace ws(m);
  test::Rng rng(605);
  VecX u(m.numInputs());
  double worst = 0.0;
  for (int trial = 0; trial < 3; ++trial) {
    const State s = test::randomState(m, rng, 1.5);
    inputs(0.3 + trial, s, u);
    ASSERT_EQ(computeForwardDynamics(m, s.x, s.xi, u, ws), DynamicsStatus::Ok);
    // World pose of body b with a frame at p (rotation unchanged) along the flow.
    auto bodyPoseAt = [&](int b, const Vec3& p) {
      return [&, b, p](double t) {
        return worldFramePose(m, test::flowConfiguration(m, s.x, s.xi, t), b, Pose::translation(p));
      };
    };
    double power = 0.0;
    for (const ExternalWrench& e : m.external_wrenches) {
      const Pose G = worldFramePose(m, s.x, e.body, Pose::translation(e.point));
      const Vec6 tw = twistByDifferences(bodyPoseAt(e.body, e.point));  // point frame, body axes
      const Vec3 p_dot = G.R * tw.head<3>(), w_world = G.R * tw.tail<3>();
      const Vec3 F = e.world_axes ? e.force : Vec3(G.R * e.force);
      const Vec3 tau = e.world_axes ? e.torque : Vec3(G.R * e.torque);
      power += F.dot(p_dot) + tau.dot(w_world);
    }
    for (int i = 0; i < m.numInputs(); ++i) {
      const Actuator& a = m.actuators[i];
      if (a.kind == ActuatorKind::JointEffort) {
        power += u(i) * s.xi(m.joints[a.joint].xi_offset + a.component);
        continue;
      }
      const Pose G = worldFramePose(m, s.x, a.body, Pose::translation(a.point));
      const Vec6 tw = twistByDifferences(bodyPoseAt(a.body, a.point));
      const Vec3 dir_world = G.R * a.direction;
      power += u(i) * dir_world.dot(
                          G.R * (a.kind == ActuatorKind::BodyForce ? tw.head<3>() : tw.tail<3>()));
    }
    const double input_power = computeEnergies(m, s.x, s.xi, ws).input_power;
    EXPECT_NEAR(input_power, power, kFdTol) << "trial " << trial;
    EXPECT_GT(std::abs(power), 0.1);
    worst = std::max(worst, std::abs(input_power - power));
  }
  test::recordError("max_input_power_error_W", worst);
}

}  // namespace
}  // namespace rbs
