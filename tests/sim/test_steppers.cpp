// The stepper study: names, convergence orders (incl. the Lie-group rkmk4), adaptive tolerances,
// coordinate drift with and without projection, and the energy-drift table of the passive
// tricopter (numbers recorded with recordError for docs/BENCHMARKS.md).
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <sstream>

#include "sim/integrator.h"
#include "sim/rkmk4.h"
#include "sim/simulator.h"
#include "tests/sim/sim_test_models.h"
#include "tests/support/report.h"
#include "tests/support/test_models.h"

namespace rbs {
namespace {

using simtest::movingTricopter;
using simtest::tumblingBody;
using test::recordError;

IntegrationOptions rawOptions(StepperKind kind, double dt) {
  IntegrationOptions opt;
  opt.stepper = kind;
  opt.dt = dt;
  opt.drift = DriftPolicy::None;
  opt.max_drift = 1e300;  // measure the raw error of the stepper, drift included
  return opt;
}

State reference(const Model& m, double t1) {
  State s = m.initial_state;
  IntegrationOptions fine = rawOptions(StepperKind::RkFehlberg78, 1e-3);
  fine.rtol = fine.atol = 1e-13;
  const IntegrationResult r = integrate(m, s, 0.0, t1, fine, {});
  EXPECT_TRUE(r.ok) << r.message;
  return s;
}

double error(const State& a, const State& b) {
  return std::sqrt((a.x - b.x).squaredNorm() + (a.xi - b.xi).squaredNorm());
}

double finalError(const Model& m, const IntegrationOptions& opt, const State& ref, double t1) {
  State s = m.initial_state;
  const IntegrationResult r = integrate(m, s, 0.0, t1, opt, {});
  EXPECT_TRUE(r.ok) << r.message;
  return error(s, ref);
}

TEST(Steppers, NamesRoundTrip) {
  for (StepperKind k : kAllSteppers) {
    ASSERT_TRUE(stepperFromName(stepperName(k)).has_value()) << stepperName(k);
    EXPECT_EQ(*stepperFromName(stepperName(k)), k);
  }
  EXPECT_FALSE(stepperFromName("rk5").has_value());
  EXPECT_FALSE(stepperFromName("").has_value());
  EXPECT_EQ(stepperNameList(), "euler, rk4, rk_cash_karp54, rk_dopri5, rk_fehlberg78, bulirsch_stoer, rkmk4");
  EXPECT_TRUE(isAdaptive(StepperKind::BulirschStoer));
  EXPECT_FALSE(isAdaptive(StepperKind::Rkmk4));
  for (DriftPolicy p : {DriftPolicy::Project, DriftPolicy::Stabilize, DriftPolicy::None})
    EXPECT_EQ(driftPolicyFromName(driftPolicyName(p)), p);
  EXPECT_FALSE(driftPolicyFromName("projection").has_value());
}

// Halving the step divides the error by about 2^p (±0.3 for the asymptotic regime's slack).
TEST(Steppers, FixedStepSteppersConvergeWithTheirOrder) {
  struct Case {
    const char* model;
    Model m;
  };
  Case cases[] = {{"free_R", tumblingBody(JointType::Free)},
                  {"free_quaternion", tumblingBody(JointType::FreeQuaternion)},
                  {"unit_circle_double_pendulum", test::doublePendulum(1.0, 0.7, 0.6, 0.4, JointType::RevoluteUnitCircle)}};
  for (Case& c : cases) {
    c.m.initial_state.xi.setConstant(1.3);  // the pendulum starts at rest otherwise
    if (std::string(c.model) != "unit_circle_double_pendulum")
      c.m.initial_state.xi << 0.2, -0.1, 0.3, 1.0, 2.0, -1.5;
    const State ref = reference(c.m, 1.0);
    for (StepperKind kind : {StepperKind::Euler, StepperKind::Rk4, StepperKind::Rkmk4}) {
      const double dt = kind == StepperKind::Euler ? 1e-3 : 2e-2;
      const double e1 = finalError(c.m, rawOptions(kind, dt), ref, 1.0);
      const double e2 = finalError(c.m, rawOptions(kind, dt / 2), ref, 1.0);
      const double observed = std::log2(e1 / e2);
      EXPECT_NEAR(observed, stepperOrder(kind), 0.3)
          << c.model << " " << stepperName(kind) << ": errors " << e1 << ", " << e2;
      recordError(std::string("order_") + c.model + "_" + std::string(stepperName(kind)), observed);
      recordError(std::string("error_") + c.model + "_" + std::string(stepperName(kind)) + "_dt_" +
                      (kind == StepperKind::Euler ? "1e-3" : "2e-2"),
                  e1);
    }
  }
}

TEST(Steppers, Rkmk4FindsEveryGroupSlice) {
  EXPECT_EQ(Rkmk4Stepper(tumblingBody(JointType::Free)).numGroupSlices(), 1);
  EXPECT_EQ(Rkmk4Stepper(tumblingBody(JointType::FreeQuaternion)).numGroupSlices(), 1);
  // central free R, load R, three propeller circles
  EXPECT_EQ(Rkmk4Stepper(movingTricopter()).numGroupSlices(), 5);
}

// The adaptive steppers' global error over 1 s of tumbling is of the order of the tolerance
// (local control, global accumulation: within a factor 100) and shrinks with it.
TEST(Steppers, AdaptiveSteppersReachTheirTolerance) {
  const Model m = tumblingBody();
  const State ref = reference(m, 1.0);
  for (StepperKind kind : {StepperKind::RkCashKarp54, StepperKind::RkDopri5, StepperKind::RkFehlberg78,
                           StepperKind::BulirschStoer}) {
    double previous = 1e300;
    for (double tol : {1e-6, 1e-9}) {
      IntegrationOptions opt = rawOptions(kind, 1e-2);
      opt.rtol = opt.atol = tol;
      const double e = finalError(m, opt, ref, 1.0);
      EXPECT_LT(e, 100 * tol) << stepperName(kind) << " tol " << tol;
      EXPECT_LT(e, previous) << stepperName(kind);
      previous = e;
      std::ostringstream name;
      name << "adaptive_error_" << stepperName(kind) << "_tol_" << tol;
      recordError(name.str(), e);
    }
  }
}

// Orthogonality error ‖RᵀR − I‖ after N steps of the tumbling body: growing without projection
// for the ordinary steppers, rounding level with projection, and rounding level for rkmk4
// without any projection.
TEST(Steppers, OrthogonalityWithAndWithoutProjection) {
  const Model m = tumblingBody();
  const double t1 = 20.0, dt = 1e-2;  // N = 2000 steps
  auto orthogonality = [&](StepperKind kind, DriftPolicy policy) {
    SimulationOptions o;
    o.integration = rawOptions(kind, dt);
    o.integration.drift = policy;
    o.dt_out = 0.1;
    Simulator sim(m, o);
    sim.reset(m.initial_state);
    EXPECT_TRUE(sim.advanceTo(t1)) << sim.message();
    const double d = m.coordinateDrift(sim.state().x);
    recordError(std::string("orthogonality_") + std::string(stepperName(kind)) + "_" +
                    std::string(driftPolicyName(policy)),
                d);
    return d;
  };
  const double rk4_none = orthogonality(StepperKind::Rk4, DriftPolicy::None);
  const double rk4_project = orthogonality(StepperKind::Rk4, DriftPolicy::Project);
  const double rk4_stabilize = orthogonality(StepperKind::Rk4, DriftPolicy::Stabilize);
  const double rkmk_none = orthogonality(StepperKind::Rkmk4, DriftPolicy::None);
  const double rkmk_project = orthogonality(StepperKind::Rkmk4, DriftPolicy::Project);
  EXPECT_GT(rk4_none, 1e-9);                // grows without projection …
  EXPECT_GT(rk4_none, 1e3 * rk4_project);   // … projection keeps rounding level
  EXPECT_LT(rk4_project, 1e-14);
  EXPECT_LT(rkmk_none, 5e-14);              // rkmk4 stays on SO(3) without any projection
                                            // (rounding accumulated over the steps)
  EXPECT_LT(rkmk_project, 1e-14);
  // Stabilization (λ = 10/s) bounds the drift at a level set by the truncation error (C h⁴/λ):
  // at this coarse step it is larger than the still growing unprojected drift after 20 s, but it
  // does not grow. Check the bound over the second half against the first half.
  EXPECT_LT(rk4_stabilize, 1e-5);
  {
    SimulationOptions o;
    o.integration = rawOptions(StepperKind::Rk4, dt);
    o.integration.drift = DriftPolicy::Stabilize;
    Simulator sim(m, o);
    sim.reset(m.initial_state);
    double first = 0.0, second = 0.0;
    for (int k = 1; k <= 20; ++k) {
      ASSERT_TRUE(sim.advanceTo(k * 1.0));
      (k <= 10 ? first : second) = std::max(k <= 10 ? first : second, m.coordinateDrift(sim.state().x));
    }
    EXPECT_LT(second, 1.5 * first);
  }
  // Quaternion norm too.
  const Model mq = tumblingBody(JointType::FreeQuaternion);
  SimulationOptions o;
  o.integration = rawOptions(StepperKind::Rkmk4, dt);
  Simulator sim(mq, o);
  sim.reset(mq.initial_state);
  ASSERT_TRUE(sim.advanceTo(t1));
  EXPECT_LT(mq.coordinateDrift(sim.state().x), 1e-14);
}

// Relative energy drift max|W(t) − W(0)| / T(0) (relative to the initial kinetic energy: W itself
// has an arbitrary zero, the gravitational reference) over 10 s of the passive tricopter with load, per
// stepper and drift policy (recorded for docs/BENCHMARKS.md), and the largest coordinate drift.
TEST(Steppers, EnergyDriftTableOfThePassiveTricopter) {
  const Model m = movingTricopter();
  struct Row {
    StepperKind kind;
    double dt;
    double tol;
    double bound;  ///< on the relative energy drift (with projection)
  };
  const Row rows[] = {{StepperKind::Euler, 1e-4, 0, 1e3},     {StepperKind::Rk4, 1e-3, 0, 1e-6},
                      {StepperKind::Rkmk4, 1e-3, 0, 1e-6},    {StepperKind::RkCashKarp54, 1e-3, 1e-8, 1e-5},
                      {StepperKind::RkDopri5, 1e-3, 1e-8, 1e-5}, {StepperKind::RkFehlberg78, 1e-3, 1e-8, 1e-5},
                      {StepperKind::BulirschStoer, 1e-3, 1e-8, 1e-5}};
  for (const Row& row : rows) {
    for (DriftPolicy policy : {DriftPolicy::Project, DriftPolicy::Stabilize, DriftPolicy::None}) {
      SimulationOptions o;
      o.integration.stepper = row.kind;
      o.integration.dt = row.dt;
      if (row.tol > 0) o.integration.rtol = o.integration.atol = row.tol;
      o.integration.drift = policy;
      o.integration.max_drift = 1e300;
      o.dt_out = 0.01;
      Simulator sim(m, o);
      sim.reset(m.initial_state);
      const bool ok = sim.advanceTo(10.0);
      EXPECT_TRUE(ok) << stepperName(row.kind) << ": " << sim.message();
      const Recording& rec = sim.recording();
      const int total = rec.channels.find("energy.total");
      const double w0 = rec.values.front()[total];
      const double t0 = rec.values.front()[rec.channels.find("energy.kinetic")];
      double worst = 0.0;
      for (const auto& v : rec.values) worst = std::max(worst, std::abs(v[total] - w0));
      const double rel = worst / t0;
      const std::string key = std::string(stepperName(row.kind)) + "_" + std::string(driftPolicyName(policy));
      recordError("energy_drift_" + key, rel);
      recordError("coordinate_drift_" + key, sim.stats().max_drift);
      recordError("steps_" + key, static_cast<double>(sim.stats().steps));
      recordError("rhs_" + key, static_cast<double>(sim.stats().rhs_evaluations));
      if (policy == DriftPolicy::Project) {
        EXPECT_LT(rel, row.bound) << key;
      }
      std::printf("%-16s %-9s dt %.0e tol %.0e  energy %.3e  drift %.3e  steps %ld rhs %ld  wall %.2f s\n",
                  std::string(stepperName(row.kind)).c_str(), std::string(driftPolicyName(policy)).c_str(),
                  row.dt, row.tol, rel, sim.stats().max_drift, sim.stats().steps, sim.stats().rhs_evaluations,
                  sim.stats().wall_time);
    }
  }
}

}  // namespace
}  // namespace rbs
