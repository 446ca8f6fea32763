// A controller tracking a reference inside the Simulator: its signals become channels, a failing
// controller stops the run with its message, and a zero-order hold keeps the input constant
// between control instants.
#include <gtest/gtest.h>

#include <cmath>
#include <numbers>
#include <vector>

#include "core/control/registry.h"
#include "core/model/model_builder.h"
#include "tests/support/example_models.h"
#include "tests/support/reference_fixtures.h"
#include "sim/closed_loop.h"
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

}  // namespace
}  // namespace rbs
