// Pushes from outside the model (sim/push_forces.h): the generalized force of an applied wrench
// against the work rate of its force and torque by finite differences, the energy balance with
// scripted pushes, their windows as exact events for every stepper (momentum changes by F·d and
// angular momentum by τ·d), the channels, and the mouse's spring against the closed form of a
// critically damped oscillator.
#include <gtest/gtest.h>

#include <cmath>
#include <numbers>

#include "core/dynamics/energy.h"
#include "sim/simulator.h"
#include "tests/sim/sim_test_models.h"
#include "tests/support/flow.h"
#include "tests/support/report.h"
#include "tests/support/test_models.h"

namespace rbs {
namespace {

using simtest::movingTricopter;
using simtest::tumblingBody;

/// Tight tolerances: the window tests compare adaptive steppers with exact momentum changes.
SimulationOptions options(StepperKind kind, double dt = 1e-3, double dt_out = 0.01) {
  return simtest::options(kind, dt, dt_out, 1e-11);
}

/// World pose of body b at configuration x.
Pose bodyPose(const Model& m, const VecX& x, int b) {
  Workspace w(m);
  computeKinematics(m, x, VecX::Zero(m.nxi), w);
  return w.pose[b];
}

TEST(Pushes, AppliedWrenchPowerIsTheWorkRateOfItsForceAndTorque) {
  // ξᵀ Σ J_bᵀ W = F · ṗ + τ · ω, with the point velocity ṗ and the angular velocity ω (world) by
  // differences of world poses along the flow: the mapping through the tree is independent of it.
  const Model m = movingTricopter();
  Workspace ws(m);
  test::Rng rng(811);
  VecX out(m.nxi);
  for (int trial = 0; trial < 4; ++trial) {
    const State s = test::randomState(m, rng, 1.5);
    computeKinematics(m, s.x, s.xi, ws);
    AppliedWrench w[2];
    w[0] = {m.bodyIndex("load"), test::randomVector(rng, 0.3), test::randomVector(rng, 5.0), test::randomVector(rng, 1.0)};
    w[1] = {m.bodyIndex("arm2"), test::randomVector(rng, 0.3), test::randomVector(rng, 5.0), test::randomVector(rng, 1.0)};
    computeAppliedForces(m, w, 2, ws, out);
    double power = 0.0;
    for (const AppliedWrench& a : w) {
      auto point = [&](double t) { return Vec3(bodyPose(m, test::flowConfiguration(m, s.x, s.xi, t), a.body) * a.point); };
      auto attitude = [&](double t) { return Mat3(bodyPose(m, test::flowConfiguration(m, s.x, s.xi, t), a.body).R); };
      const Vec3 p_dot = test::centralDifference(point, 1e-4);
      const Mat3 R_dot = test::centralDifference(attitude, 1e-4);
      const Mat3 W = R_dot * attitude(0.0).transpose();  // wed(ω), world
      const Vec3 omega(W(2, 1), W(0, 2), W(1, 0));
      power += a.force.dot(p_dot) + a.torque.dot(omega);
    }
    EXPECT_NEAR(s.xi.dot(out), power, 1e-8 * (1.0 + std::abs(power))) << "trial " << trial;
    EXPECT_GT(std::abs(power), 0.1);
  }
}

/// The work rate of `push` at a state (world force through the point, world torque), from the
/// body's pose and twist.
double pushPower(const Model& m, const State& s, const Push& push) {
  Workspace w(m);
  computeKinematics(m, s.x, s.xi, w);
  const Pose& G = w.pose[push.body];
  const Vec6& eta = w.twist[push.body];
  const Vec3 v = G.R * (eta.head<3>() + eta.tail<3>().cross(push.point));
  return push.force.dot(v) + push.torque.dot(G.R * eta.tail<3>());
}

TEST(Pushes, EnergyChangeEqualsTheWorkOfTheScriptedPushes) {
  // The passive tricopter (gravity, spinning rotors, swinging load) conserves W; two overlapping
  // pushes on the base and on the load change it by their work. ∫ ξᵀ f_E dt by Simpson's rule on
  // the 1 ms samples, piecewise between the window boundaries (even milliseconds): at a boundary
  // the integrand's left limit has the pushes of the interval before it.
  Model m = movingTricopter();
  const int base = m.bodyIndex("central"), load = m.bodyIndex("load");
  ASSERT_GE(base, 0);
  ASSERT_GE(load, 0);
  m.pushes.push_back({base, Vec3(0.1, 0.05, 0.0), Vec3(3.0, -2.0, 6.0), Vec3(0.1, 0.0, 0.2), 0.2, 0.3});
  m.pushes.push_back({load, Vec3(0.0, 0.02, 0.0), Vec3(-1.0, 0.5, 0.0), Vec3(0.0, 0.05, 0.0), 0.4, 0.2});
  // RK4 at 0.5 ms: the pushes shake the light load hard, and at 1 ms RK4's own error in W is 1e-7
  // J (3e-8 of the work; measured 1.1e-7, 6.9e-9, 3.7e-10 J at 1, 0.5, 0.25 ms: the dt⁴ of RK4).
  Simulator sim(m, options(StepperKind::Rk4, 5e-4, 1e-3));
  std::vector<double> t, W, P_right, P_left, P_diss;
  sim.on_sample = [&](double ts, std::span<const double> v) {
    const ChannelSet& c = sim.channels();
    t.push_back(ts);
    W.push_back(v[c.find("energy.total")]);
    P_right.push_back(v[c.find("power.input")]);
    P_diss.push_back(v[c.find("power.dissipation")]);
    // The left limit: the passive part plus the pushes acting just before ts.
    double left = v[c.find("power.input")] - v[c.find("power.perturbation")];
    for (const Push& p : m.pushes)
      if (p.t_start < ts - 1e-9 && ts <= p.t_end() + 1e-9) left += pushPower(m, sim.state(), p);
    P_left.push_back(left);
  };
  sim.reset(m.initial_state);
  ASSERT_TRUE(sim.advanceTo(1.0)) << sim.message();
  ASSERT_EQ(t.size(), 1001u);
  double integral = 0.0, worst = 0.0, work = 0.0;
  for (std::size_t k = 2; k < t.size(); k += 2) {
    const double h = t[k] - t[k - 1];
    auto net = [&](double p, std::size_t i) { return p - P_diss[i]; };
    const double step = h / 3.0 * (net(P_right[k - 2], k - 2) + 4.0 * net(P_right[k - 1], k - 1) + net(P_left[k], k));
    integral += step;
    work += h / 3.0 * (P_right[k - 2] + 4.0 * P_right[k - 1] + P_left[k]);
    worst = std::max(worst, std::abs(W[k] - W[0] - integral));
  }
  // The passive tricopter's RK4 drift over 1 s is 1e-10 J; the pushes do 3 J of work. A push
  // whose power were not in power.input, or a window off by one step, misses by ≥ 1e-3 J.
  EXPECT_GT(std::abs(work), 0.1) << "the pushes must do work";
  EXPECT_LT(worst, 1e-8 * std::max(1.0, std::abs(work))) << "push work " << work << " J";
  test::recordError("push_balance_residual_J", worst);
  test::recordError("push_work_J", work);
}

TEST(Pushes, ChannelsShowThePushExactlyInItsWindow) {
  Model m = tumblingBody();
  m.pushes.push_back({0, Vec3::Zero(), Vec3(1.0, 2.0, 3.0), Vec3(0.0, 0.0, 0.5), 0.1, 0.2});
  Simulator sim(m, options(StepperKind::Rk4));
  sim.reset(m.initial_state);
  ASSERT_TRUE(sim.advanceTo(0.5));
  const Recording& rec = sim.recording();
  const int fx = rec.channels.find("perturbation.force.x"), fz = rec.channels.find("perturbation.force.z");
  const int tz = rec.channels.find("perturbation.torque.z"), pw = rec.channels.find("power.perturbation");
  ASSERT_GE(fx, 0);
  ASSERT_GE(tz, 0);
  for (std::size_t k = 0; k < rec.time.size(); ++k) {
    const double tk = rec.time[k];
    const bool on = tk >= 0.1 - 1e-12 && tk < 0.3 - 1e-12;
    EXPECT_EQ(rec.values[k][fx], on ? 1.0 : 0.0) << "t = " << tk;
    EXPECT_EQ(rec.values[k][fz], on ? 3.0 : 0.0) << "t = " << tk;
    EXPECT_EQ(rec.values[k][tz], on ? 0.5 : 0.0) << "t = " << tk;
    EXPECT_EQ(rec.values[k][pw] != 0.0, on) << "t = " << tk;
  }
}

TEST(Pushes, WindowsAreExactEventsForEveryStepper) {
  // A body at rest without gravity, pushed through its centre of mass and then turned by a torque,
  // in windows off every grid: its momentum changes by exactly F·d (exact even for Euler: R = 1
  // and a constant acceleration until the torque starts) and its angular momentum by τ·d. A window
  // boundary stepped over (or a dense output interpolated across it) misses by O(F·h).
  ModelBuilder b;
  b.setGravity(Vec3::Zero());
  b.addBody({"body", 2.0, Vec3::Zero(), Vec3(0.3, 0.5, 0.7).asDiagonal()});
  b.addJoint({.name = "free", .type = JointType::Free, .child = "body"});
  Model m = b.build();
  const Vec3 F(0.3, -0.7, 1.1), tau(0.05, 0.02, -0.08);
  m.pushes.push_back({0, Vec3::Zero(), F, Vec3::Zero(), 0.1234, 0.0567});
  m.pushes.push_back({0, Vec3(0.3, 0.1, -0.2), Vec3::Zero(), tau, 0.2011, 0.0333});
  auto momenta = [&](const State& s) {  // linear, and angular about the centre of mass (world)
    Workspace w(m);
    computeKinematics(m, s.x, s.xi, w);
    const Mat3& R = w.pose[0].R;
    return std::pair<Vec3, Vec3>{2.0 * R * w.twist[0].head<3>(), R * m.bodies[0].inertia_com * w.twist[0].tail<3>()};
  };
  for (StepperKind kind : kAllSteppers) {
    Simulator sim(m, options(kind));
    sim.reset(m.initial_state);
    ASSERT_TRUE(sim.advanceTo(0.19)) << stepperName(kind) << ": " << sim.message();
    EXPECT_LT((momenta(sim.state()).first - 0.0567 * F).norm(), 1e-13) << stepperName(kind);
    ASSERT_TRUE(sim.advanceTo(0.3)) << stepperName(kind) << ": " << sim.message();
    // Euler's own error in the tumbling phase is O(h) = 1e-3 of the change.
    EXPECT_LT((momenta(sim.state()).second - 0.0333 * tau).norm(), kind == StepperKind::Euler ? 1e-5 : 1e-10)
        << stepperName(kind);
  }
}

TEST(Pushes, SlicedRunsGiveTheSameRecording) {
  Model m = movingTricopter();
  m.pushes.push_back({0, Vec3(0.1, 0.0, 0.0), Vec3(0.0, 4.0, 1.0), Vec3::Zero(), 0.0333, 0.1});
  for (StepperKind kind : {StepperKind::Rk4, StepperKind::RkDopri5, StepperKind::RkCashKarp54}) {
    Simulator whole(m, options(kind)), sliced(m, options(kind));
    whole.reset(m.initial_state);
    sliced.reset(m.initial_state);
    ASSERT_TRUE(whole.advanceTo(0.3));
    for (int k = 1; k <= 30; ++k) ASSERT_TRUE(sliced.advanceTo(0.01 * k));
    ASSERT_EQ(whole.recording().values.size(), sliced.recording().values.size());
    EXPECT_EQ(whole.recording().values, sliced.recording().values) << stepperName(kind);
  }
}

TEST(Pushes, SpringPullsLikeACriticallyDampedOscillatorOfTheCompositeMass) {
  // A free body without gravity grabbed at its centre of mass: x'' = −ω²(x − x_T) − 2ω x', so
  // x(t) = x_T + (x0 − x_T)(1 + ωt) e^{−ωt} whatever the mass.
  for (double mass : {0.01, 20.0}) {
    ModelBuilder b;
    b.setGravity(Vec3::Zero());
    b.addBody({"body", mass, Vec3(0.05, 0.0, 0.0), Vec3(0.3, 0.3, 0.3).asDiagonal() * mass});
    b.addJoint({.name = "free", .type = JointType::Free, .child = "body"});
    const Model m = b.build();
    Simulator sim(m, options(StepperKind::Rk4, 1e-3, 0.01));
    sim.reset(m.initial_state);
    EXPECT_DOUBLE_EQ(sim.pushes().compositeMass(0), mass);
    SpringPush spring;
    spring.body = 0;
    spring.point = Vec3(0.05, 0.0, 0.0);
    spring.target = Vec3(0.05, 0.12, -0.16);  // 0.2 m away: at most ω² · 0.2 = 7.9 m/s² < the cap
    sim.setSpringPush(spring);
    ASSERT_TRUE(sim.advanceTo(1.0));
    const double w = 2.0 * std::numbers::pi * PushForces::kSpringFrequency;
    const Vec3 expected = spring.target + (Vec3(0.05, 0.0, 0.0) - spring.target) * (1.0 + w) * std::exp(-w);
    const Vec3 p = bodyPose(m, sim.state().x, 0) * spring.point;
    EXPECT_LT((p - expected).norm(), 1e-8) << "mass " << mass;
    // The recorded force is m a at the sample: the oscillator's at t = 1.
    const auto& v = sim.recording().values.back();
    const ChannelSet& c = sim.channels();
    const Vec3 force(v[c.find("perturbation.force.x")], v[c.find("perturbation.force.y")], v[c.find("perturbation.force.z")]);
    const Vec3 accel = (spring.target - Vec3(0.05, 0.0, 0.0)) * w * w * (1.0 - w) * std::exp(-w);
    EXPECT_LT((force - mass * accel).norm(), 1e-7 * mass) << "mass " << mass;
    sim.setSpringPush(std::nullopt);
    ASSERT_TRUE(sim.advanceTo(1.1));
    EXPECT_EQ(sim.recording().values.back()[c.find("perturbation.force.y")], 0.0);
  }
}

TEST(Pushes, ASpringAnchoredToAMovingBodyPushesByTheOffsetOnly) {
  // The followed vehicle in flight: the target is an offset from its centre of mass and the
  // damping acts on the relative velocity. Grabbed at the centre of mass, a zero offset does
  // nothing to a body flying at 4 m/s, and an offset d pushes with the constant m ω² d:
  // x(t) = x0 + v0 t + ½ ω² d t².
  ModelBuilder b;
  b.setGravity(Vec3::Zero());
  b.addBody({"body", 1.5, Vec3(0.05, 0.0, 0.0), Vec3(0.02, 0.03, 0.04).asDiagonal()});
  JointSpec j{.name = "free", .type = JointType::Free, .child = "body"};
  j.initial_velocity = (VecX(6) << 4.0, 0.0, 0.0, 0.0, 0.0, 0.0).finished();
  b.addJoint(j);
  const Model m = b.build();
  const double w = 2.0 * std::numbers::pi * PushForces::kSpringFrequency;
  for (const Vec3& d : {Vec3(0.0, 0.0, 0.0), Vec3(0.0, 0.1, 0.05)}) {
    Simulator sim(m, options(StepperKind::Rk4, 1e-3, 0.01));
    sim.reset(m.initial_state);
    SpringPush spring;
    spring.body = 0;
    spring.anchor_body = 0;
    spring.point = Vec3(0.05, 0.0, 0.0);
    spring.target = d;
    sim.setSpringPush(spring);
    ASSERT_TRUE(sim.advanceTo(0.5));
    const Vec3 c = bodyPose(m, sim.state().x, 0) * spring.point;
    const Vec3 expected = Vec3(0.05, 0.0, 0.0) + Vec3(4.0, 0.0, 0.0) * 0.5 + 0.5 * w * w * d * 0.25;
    EXPECT_LT((c - expected).norm(), 1e-9) << d.transpose();
  }
}

TEST(Pushes, SpringForceIsCappedAndTorqueTurnsTheBody) {
  ModelBuilder b;
  b.setGravity(Vec3::Zero());
  b.addBody({"body", 2.0, Vec3::Zero(), Vec3(0.1, 0.1, 0.1).asDiagonal()});  // isotropic
  b.addJoint({.name = "free", .type = JointType::Free, .child = "body"});
  const Model m = b.build();
  Simulator sim(m, options(StepperKind::Rk4, 1e-3, 0.01));
  sim.reset(m.initial_state);
  SpringPush far;
  far.body = 0;
  far.target = Vec3(100.0, 0.0, 0.0);
  sim.setSpringPush(far);
  ASSERT_TRUE(sim.advanceTo(0.01));
  const auto& v = sim.recording().values.back();
  const ChannelSet& c = sim.channels();
  EXPECT_NEAR(v[c.find("perturbation.force.x")], 2.0 * PushForces::kMaxAcceleration, 1e-9);

  // Torque: an isotropic body turns about a fixed axis as θ(t) = θ_T (1 − (1 + ωt) e^{−ωt}).
  sim.reset(m.initial_state);
  EXPECT_DOUBLE_EQ(sim.pushes().compositeInertia(0), 0.1);
  SpringPush turn;
  turn.mode = SpringPush::Mode::Torque;
  turn.body = 0;
  turn.rotation = Vec3(0.0, 0.0, 1.2);
  sim.setSpringPush(turn);
  ASSERT_TRUE(sim.advanceTo(0.8));
  const double w = 2.0 * std::numbers::pi * PushForces::kSpringFrequency;
  const double theta = 1.2 * (1.0 - (1.0 + 0.8 * w) * std::exp(-0.8 * w));
  const Vec3 turned = logSO3(bodyPose(m, sim.state().x, 0).R);
  EXPECT_LT((turned - Vec3(0.0, 0.0, theta)).norm(), 1e-8);
}

// The mouse stays within what the vehicle can answer (issue 46): on the LSR quadcopter the pull is
// at most its weight and the twist at most its largest control torque, one rotor at full thrust
// on its 0.24 m arm (8.19 N × 0.24 m ≈ 1.97 N m, about x and y; the drag torques give only
// 2 × 0.017 × 8.19 ≈ 0.28 N m about z); held harder, up to four times as much.
TEST(Pushes, TheMouseIsBoundedByTheWeightAndTheLargestControlTorque) {
  const Model m = simtest::lsrQuadcopter();
  const PushForces pushes(m);
  const PushLimits& limit = pushes.limits(0);
  EXPECT_NEAR(limit.force, 1.001 * m.gravity.norm(), 1e-12);
  EXPECT_TRUE(limit.torque_from_actuators);
  EXPECT_NEAR(limit.torque, 8.19 * 0.24, 1e-12);
  for (const bool harder : {false, true}) {
    const double scale = harder ? PushForces::kHarderFactor : 1.0;
    Simulator sim(m, options(StepperKind::Rk4, 1e-4, 1e-3));  // the first millisecond: still at rest
    sim.reset(m.initial_state);
    SpringPush far;
    far.body = 0;
    far.target = Vec3(0.0, 100.0, 1.0);
    far.harder = harder;
    sim.setSpringPush(far);
    ASSERT_TRUE(sim.advanceTo(1e-3));
    const ChannelSet& c = sim.channels();
    const auto& v = sim.recording().values.back();
    const Vec3 force(v[c.find("perturbation.force.x")], v[c.find("perturbation.force.y")], v[c.find("perturbation.force.z")]);
    EXPECT_NEAR(force.norm(), scale * limit.force, 1e-9);
    SpringPush turn;
    turn.mode = SpringPush::Mode::Torque;
    turn.body = 0;
    turn.rotation = Vec3(3.1, 0.0, 0.0);
    turn.harder = harder;
    sim.reset(m.initial_state);
    sim.setSpringPush(turn);
    ASSERT_TRUE(sim.advanceTo(1e-3));
    const auto& w = sim.recording().values.back();
    const Vec3 torque(w[c.find("perturbation.torque.x")], w[c.find("perturbation.torque.y")], w[c.find("perturbation.torque.z")]);
    if (harder) {  // a near half turn asks Θ_x ω² · 3.1 rad ≈ 2.2 N m: beyond the default, within 4 ×
      EXPECT_GT(torque.norm(), 1.05 * limit.torque);
      EXPECT_LT(torque.norm(), scale * limit.torque);
    } else {
      EXPECT_NEAR(torque.norm(), limit.torque, 1e-9);
    }
  }
}

// A vehicle's default twist ends (issue 46: the recovery envelope guarantees 1 s at the largest
// control torque, and a twist held on at it loses the Table 5.1 quadcopter): at a fixed state the
// spring's torque is at its bound until 0.8 s after the grab, half of it at 0.9 s and nothing from
// 1 s on. Moving the mouse (a new target, same body and mode) is no new grab; letting go and
// grabbing again is. Held harder it does not end, and a body that carries no thrust (an actuated
// pendulum: its joint holds) keeps its twist however long it is held.
TEST(Pushes, TheMouseLetsGoOfAVehiclesTwistAfterOneSecond) {
  auto torqueAt = [](const Model& m, PushForces& pushes, double t) {
    Workspace ws(m);
    const VecX u = VecX::Zero(m.numInputs());
    EXPECT_EQ(computeForwardDynamicsWithPushes(m, t, m.initial_state, u, ws, 0.0, &pushes), DynamicsStatus::Ok);
    return pushes.torque().norm();
  };
  const Model quad = simtest::lsrQuadcopter();
  PushForces pushes(quad);
  const double bound = pushes.limits(0).torque;
  EXPECT_EQ(pushes.limits(0).twist_duration, PushForces::kTwistDuration);
  SpringPush turn;
  turn.mode = SpringPush::Mode::Torque;
  turn.body = 0;
  turn.rotation = Vec3(3.1, 0.0, 0.0);  // asks ≈ 2.2 N m, beyond the bound
  pushes.setSpring(turn, 3.0);
  EXPECT_NEAR(torqueAt(quad, pushes, 3.0), bound, 1e-12);
  turn.rotation = Vec3(0.0, 3.1, 0.0);  // the user drags on
  pushes.setSpring(turn, 3.5);
  EXPECT_NEAR(torqueAt(quad, pushes, 3.8), bound, 1e-12);
  EXPECT_NEAR(torqueAt(quad, pushes, 3.9), 0.5 * bound, 1e-9);
  EXPECT_EQ(torqueAt(quad, pushes, 4.0), 0.0);
  EXPECT_EQ(torqueAt(quad, pushes, 60.0), 0.0);
  turn.harder = true;
  pushes.setSpring(turn, 60.0);
  EXPECT_GT(torqueAt(quad, pushes, 60.0), 1.05 * bound);
  turn.harder = false;
  pushes.setSpring(std::nullopt, 61.0);
  pushes.setSpring(turn, 62.0);  // a new grab
  EXPECT_NEAR(torqueAt(quad, pushes, 62.5), bound, 1e-12);

  const Model pendulum = simtest::actuatedPendulum(-2.0, 2.0);
  PushForces held(pendulum);
  EXPECT_FALSE(std::isfinite(held.limits(0).twist_duration));
  turn.rotation = Vec3(0.0, 3.1, 0.0);
  held.setSpring(turn, 0.0);
  const double early = torqueAt(pendulum, held, 0.0);
  EXPECT_GT(early, 0.0);
  EXPECT_EQ(torqueAt(pendulum, held, 100.0), early);
}

}  // namespace
}  // namespace rbs
