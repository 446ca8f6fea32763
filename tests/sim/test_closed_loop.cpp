// A controller tracking a reference inside the Simulator: its signals become channels, a failing
// controller stops the run with its message, and a zero-order hold keeps the input constant
// between control instants.
#include <gtest/gtest.h>

#include <cmath>
#include <numbers>
#include <vector>

#include "core/control/registry.h"
#include "core/dynamics/dynamics.h"
#include "core/model/model_builder.h"
#include "tests/support/example_models.h"
#include "tests/support/reference_fixtures.h"
#include "tests/support/test_models.h"
#include "sim/closed_loop.h"
#include "sim/input_hold.h"
#include "sim/integrator.h"
#include "sim/push_forces.h"
#include "sim/simulator.h"

namespace rbs {
namespace {

Model planarBody() { return test::actuatedPlanarBody(3.0); }

using test::SpinningReference;

std::shared_ptr<ClosedLoop> loop(const Model&, std::unique_ptr<Controller> c) {
  return std::make_shared<ClosedLoop>(std::move(c), std::make_unique<SpinningReference>());
}

SimulationOptions options(double control_rate = 0.0) {
  SimulationOptions o;
  o.integration.stepper = StepperKind::Rk4;
  o.integration.dt = 1e-3;
  o.dt_out = 0.05;
  o.control_rate = control_rate;
  return o;
}

double channel(const Simulator& sim, const std::string& name, std::size_t sample) {
  const int i = sim.channels().find(name);
  EXPECT_GE(i, 0) << name;
  return i < 0 ? NAN : sim.recording().values[sample][i];
}

TEST(ClosedLoop, ControllerSignalsAreChannelsAndTheErrorDecays) {
  const Model model = planarBody();
  // Particle-based: straight-line correction; the body-based loop does not survive these force
  // limits here (spinning the offset centre of mass about the origin alone needs ~2.2 N).
  Simulator sim(model, options(),
                loop(model, makeController(model, {"prototype_particle", {{"mbar", 1}, {"dbar", 4}, {"kbar", 4}}, {}})));
  State s0 = model.initial_state;
  s0.x[1] = 3.0;
  sim.reset(s0);
  ASSERT_TRUE(sim.advanceTo(6.0)) << sim.message();
  for (const char* name : {"error.position", "error.attitude", "control.energy", "control.template_power",
                           "control.matching_residual", "saturation.force_x", "control.saturated"})
    EXPECT_GE(sim.channels().find(name), 0) << name;
  const std::size_t last = sim.recording().time.size() - 1;
  EXPECT_NEAR(channel(sim, "error.position", 0), 3.0, 1e-12);
  // Force limits of ±3 N slow the start (the QP saturates), then the error decays as the template.
  EXPECT_LT(channel(sim, "error.position", last), 1e-3);
  double saturated = 0.0;
  for (std::size_t k = 0; k < sim.recording().time.size(); ++k) {
    saturated = std::max(saturated, channel(sim, "control.saturated", k));
    EXPECT_LE(std::abs(channel(sim, "u.force_x", k)), 3.0 + 1e-12);
  }
  EXPECT_GE(saturated, 1.0);
}

/// Fails from t = 0.5 s on.
class FailingController : public Controller {
 public:
  std::string_view name() const override { return "failing"; }
  bool compute(double t, const State&, const ReferenceSample&, VecX& u) override {
    u.setZero(3);
    return t < 0.5 || fail("failing: gave up on purpose");
  }
};

TEST(ClosedLoop, AFailingControllerStopsTheRunWithItsMessage) {
  const Model model = planarBody();
  Simulator sim(model, options(), loop(model, std::make_unique<FailingController>()));
  sim.reset(model.initial_state);
  EXPECT_FALSE(sim.advanceTo(2.0));
  EXPECT_NE(sim.message().find("gave up on purpose"), std::string::npos) << sim.message();
  EXPECT_NEAR(sim.time(), 0.5, 2e-3);
}

TEST(ClosedLoop, ZeroOrderHoldKeepsTheInputBetweenControlInstants) {
  const Model model = planarBody();
  // 10 Hz control, samples every 0.05 s: pairs of samples share one held input.
  Simulator sim(model, options(10.0),
                loop(model, makeController(model, {"prototype_particle", {{"mbar", 1}, {"dbar", 4}, {"kbar", 4}}, {}})));
  State s0 = model.initial_state;
  s0.x[1] = 0.5;
  sim.reset(s0);
  ASSERT_TRUE(sim.advanceTo(1.0)) << sim.message();
  for (std::size_t k = 0; k + 1 < sim.recording().time.size(); k += 2)
    EXPECT_EQ(channel(sim, "u.torque_z", k), channel(sim, "u.torque_z", k + 1)) << "sample " << k;
  // The error signals are evaluated at each sample, not held.
  EXPECT_NE(channel(sim, "error.position", 2), channel(sim, "error.position", 3));
}

/// SpinningReference that counts its samples.
class CountingReference : public Reference {
 public:
  explicit CountingReference(int* count) : count_(count) {}
  void sample(double t, ReferenceSample& out) const override {
    ++*count_;
    inner_.sample(t, out);
  }

 private:
  int* count_;
  SpinningReference inner_;
};

// The loop samples the reference once per distinct time (RK4 calls it twice at each midpoint)
// and a sample evaluation that repeats the last evaluation's time and state keeps its signals;
// neither may change any result: every call must equal a fresh loop's.
TEST(ClosedLoop, RepeatedTimesReuseTheReferenceSampleWithoutChangingResults) {
  const Model model = planarBody();
  const ControllerSettings settings{"prototype_particle", {{"mbar", 1}, {"dbar", 4}, {"kbar", 4}}, {}};
  int samples = 0;
  ClosedLoop shared(makeController(model, settings), std::make_unique<CountingReference>(&samples));
  State a = model.initial_state, b = model.initial_state;
  a.x[1] = 0.5;
  b.x[1] = -0.3;
  b.xi[2] = 0.7;
  const struct { double t; const State* s; } calls[] = {{0.1, &a}, {0.1, &b}, {0.2, &b}, {0.1, &a}, {0.1, &a}};
  VecX u, u_fresh;
  for (const auto& c : calls) {
    shared.compute(c.t, *c.s, u);
    ClosedLoop fresh(makeController(model, settings), std::make_unique<SpinningReference>());
    fresh.compute(c.t, *c.s, u_fresh);
    EXPECT_EQ(u, u_fresh) << "t = " << c.t;
  }
  EXPECT_EQ(samples, 3);  // t = 0.1, 0.2, 0.1: consecutive repeats share the sample

  // Signals at a sample: after compute() at the same time and state they are already current;
  // at another state they are recomputed.
  const std::size_t n = shared.channels().size();
  std::vector<double> kept(n), recomputed(n), expected(n);
  shared.compute(0.3, a, u);
  shared.evaluateForSample(0.3, a, u);
  shared.sample(kept.data());
  shared.evaluateForSample(0.3, b, u);
  shared.sample(recomputed.data());
  ClosedLoop fresh(makeController(model, settings), std::make_unique<SpinningReference>());
  fresh.evaluateForSample(0.3, a, u_fresh);
  fresh.sample(expected.data());
  EXPECT_EQ(kept, expected);
  EXPECT_NE(recomputed, expected);
}

// The plant's rates a prototype controller hands over (from the M, b, B and factorization of M it
// evaluated) are those of the dynamics for any applied input, not only its own u: a clamped u
// differs from it. ẋ is the same function of the same kinematics (bit-identical); ξ̇ comes by
// M⁻¹(B u − b) instead of M⁻¹ f, the same to rounding.
TEST(ClosedLoop, APrototypeControllerHandsOverTheRatesOfTheDynamics) {
  const Model model = planarBody();
  test::Rng rng(3);
  Workspace ws(model);
  VecX u(model.numInputs()), xdot(model.nx), xidot(model.nxi);
  for (const char* name : {"prototype_particle", "prototype_body"}) {
    ClosedLoop cl(makeController(model, {name, {{"mbar", 1}, {"dbar", 4}, {"kbar", 4}}, {}}),
                  std::make_unique<SpinningReference>());
    for (int k = 0; k < 20; ++k) {
      const State s = test::randomState(model, rng);
      cl.compute(0.1 * k, s, u);
      ASSERT_TRUE(u.allFinite()) << cl.failure();
      const VecX applied = u + VecX::NullaryExpr(u.size(), [&] { return test::uniform(rng, -2, 2); });
      const double gain = 10.0 * (k % 2);
      ASSERT_TRUE(cl.plantRate(model, s, applied, gain, xdot, xidot)) << name;
      ASSERT_EQ(computeForwardDynamics(model, s.x, s.xi, applied, ws, gain), DynamicsStatus::Ok);
      EXPECT_EQ(xdot, ws.xdot) << name << " state " << k;
      EXPECT_LE((xidot - ws.xidot).norm(), 1e-13 * std::max(1.0, ws.xidot.norm())) << name << " state " << k;
    }
  }
}

// Only the plant's own terms at the controller's own state are handed over: not for a copy of the
// model, another state, a shifted b (an external-force estimate), after a failure, or under a hold.
TEST(ClosedLoop, PlantRatesAreHandedOverOnlyWhenTheyAreThePlants) {
  const Model model = planarBody();
  const Model copy = model;
  const ControllerSettings settings{"prototype_particle", {{"mbar", 1}, {"dbar", 4}, {"kbar", 4}}, {}};
  auto cl = std::make_shared<ClosedLoop>(makeController(model, settings), std::make_unique<SpinningReference>());
  State s = model.initial_state, other = model.initial_state;
  s.x[1] = 0.4;
  other.x[1] = 0.5;
  VecX u(model.numInputs()), xdot(model.nx), xidot(model.nxi);
  EXPECT_FALSE(cl->plantRate(model, s, u, 0.0, xdot, xidot));  // before any compute()
  cl->compute(0.2, s, u);
  EXPECT_TRUE(cl->plantRate(model, s, u, 0.0, xdot, xidot));
  EXPECT_FALSE(cl->plantRate(copy, s, u, 0.0, xdot, xidot));
  EXPECT_FALSE(cl->plantRate(model, other, u, 0.0, xdot, xidot));
  cl->controller().parameters().set("kbar", 5.0);
  EXPECT_FALSE(cl->plantRate(model, s, u, 0.0, xdot, xidot));  // the terms are of the old gains
  cl->compute(0.2, s, u);
  EXPECT_TRUE(cl->plantRate(model, s, u, 0.0, xdot, xidot));

  cl->controller().setExternalForceEstimate(VecX::Ones(model.nxi));
  cl->compute(0.2, s, u);
  EXPECT_FALSE(cl->plantRate(model, s, u, 0.0, xdot, xidot));
  cl->controller().setExternalForceEstimate(VecX());

  State broken = s;
  broken.xi[0] = NAN;
  cl->compute(0.2, broken, u);
  EXPECT_FALSE(cl->plantRate(model, broken, u, 0.0, xdot, xidot));

  cl->compute(0.2, s, u);
  const InputHold held(model, cl, 100.0), every_call(model, cl, 0.0);
  EXPECT_FALSE(held.plantRate(s, u, 0.0, xdot, xidot));
  EXPECT_TRUE(every_call.plantRate(s, u, 0.0, xdot, xidot));
}

// The right-hand side takes what the shared rates give, unless a push acts (the controller's
// terms lack it) or they are not finite (the dynamics then say what went wrong).
TEST(ClosedLoop, TheRightHandSideFallsBackToTheDynamicsUnderPushesAndForNonFiniteRates) {
  Model model = planarBody();
  model.pushes.push_back({.body = 0, .force = Vec3(1, 0, 0), .t_start = 1.0, .duration = 1.0});
  double marker = 7.0;
  DynamicsRhs rhs(model, nullptr, 0.0, [&](const State&, const VecX&, double, VecX& xdot, VecX& xidot) {
    xdot.setConstant(marker);
    xidot.setConstant(marker);
    return true;
  });
  PushForces pushes(model);
  rhs.setPushes(&pushes);
  pushes.restart(0.0, 1e-9);
  const VecX z = joinState(model.initial_state);
  VecX dz;
  rhs(z, dz, 0.0);
  EXPECT_TRUE((dz.array() == 7.0).all()) << dz.transpose();

  Workspace ws(model);
  const VecX u0 = VecX::Zero(model.numInputs());
  ASSERT_EQ(computeForwardDynamics(model, model.initial_state.x, model.initial_state.xi, u0, ws), DynamicsStatus::Ok);
  marker = NAN;
  rhs(z, dz, 0.0);
  EXPECT_EQ(dz.tail(model.nxi), ws.xidot);
  EXPECT_EQ(rhs.status(), DynamicsStatus::Ok);

  marker = 7.0;
  pushes.restart(1.5, 1e-9);  // the push acts
  ASSERT_TRUE(pushes.active());
  rhs(z, dz, 1.5);
  EXPECT_NE(dz.tail(model.nxi), ws.xidot);
  EXPECT_FALSE((dz.array() == 7.0).any()) << dz.transpose();
}

/// A ClosedLoop that counts the plant rates it handed over.
class CountingLoop : public ClosedLoop {
 public:
  using ClosedLoop::ClosedLoop;
  bool plantRate(const Model& plant, const State& state, const VecX& u, double gain, VecX& xdot,
                 VecX& xidot) override {
    const bool shared = ClosedLoop::plantRate(plant, state, u, gain, xdot, xidot);
    handed_over += shared;
    return shared;
  }
  int handed_over = 0;
};

// A run without a hold takes every right-hand side's rates from the controller; under a hold none.
TEST(ClosedLoop, ARunWithoutAHoldTakesEveryRightHandSidesRatesFromTheController) {
  const Model model = planarBody();
  const ControllerSettings settings{"prototype_body", {{"mbar", 1}, {"dbar", 4}, {"kbar", 4}}, {}};
  for (const double rate : {0.0, 50.0}) {
    auto counting = std::make_shared<CountingLoop>(makeController(model, settings), std::make_unique<SpinningReference>());
    Simulator sim(model, options(rate), counting);
    sim.reset(model.initial_state);
    ASSERT_TRUE(sim.advanceTo(0.1)) << sim.message();
    EXPECT_EQ(counting->handed_over, rate == 0.0 ? 4 * 100 : 0) << "control rate " << rate;
  }
}

/// Forwards compute() to a ClosedLoop but offers no plant rates: the run without sharing.
class WithoutSharedRates : public InputSource {
 public:
  explicit WithoutSharedRates(std::shared_ptr<ClosedLoop> loop) : loop_(std::move(loop)) {}
  void compute(double t, const State& state, VecX& u) override { loop_->compute(t, state, u); }

 private:
  std::shared_ptr<ClosedLoop> loop_;
};

// A closed-loop run on the shared rates follows the run that evaluates the dynamics in every
// right-hand side, to rounding (the body-based loop on a saturating force box).
TEST(ClosedLoop, ARunOnSharedRatesFollowsTheRunOnTheDynamics) {
  const Model model = planarBody();
  const ControllerSettings settings{"prototype_body", {{"mbar", 1}, {"dbar", 4}, {"kbar", 4}}, {}};
  State s0 = model.initial_state;
  s0.x[1] = 0.6;
  s0.xi[2] = -0.5;
  Simulator shared(model, options(), loop(model, makeController(model, settings)));
  Simulator plain(model, options(), std::make_shared<WithoutSharedRates>(loop(model, makeController(model, settings))));
  shared.reset(s0);
  plain.reset(s0);
  ASSERT_TRUE(shared.advanceTo(3.0)) << shared.message();
  ASSERT_TRUE(plain.advanceTo(3.0)) << plain.message();
  EXPECT_LE((shared.state().x - plain.state().x).norm(), 1e-11);
  EXPECT_LE((shared.state().xi - plain.state().xi).norm(), 1e-11);
  EXPECT_GT((shared.state().x - s0.x).norm(), 0.1);  // it moved
}

}  // namespace
}  // namespace rbs
