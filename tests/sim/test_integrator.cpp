// Integrator basics: convergence order of the fixed-step steppers on a tumbling free body, and
// determinism. (The full stepper/drift study belongs to the simulation tests.)
#include <gtest/gtest.h>

#include <cmath>

#include "sim/simulator.h"
#include "tests/support/test_models.h"

namespace rbs {
namespace {

Model tumblingBody() {
  ModelBuilder b;
  b.setGravity(Vec3::Zero());
  b.addBody({"body", 2.0, Vec3(0.05, -0.02, 0.01), Vec3(0.3, 0.5, 0.7).asDiagonal()});
  JointSpec j{.name = "free", .type = JointType::Free, .child = "body"};
  j.initial_velocity = (VecX(6) << 0.2, -0.1, 0.3, 1.0, 2.0, -1.5).finished();
  b.addJoint(j);
  return b.build();
}

double finalError(const Model& m, StepperKind kind, double dt, const State& reference) {
  State s = m.initial_state;
  IntegrationOptions opt;
  opt.stepper = kind;
  opt.dt = dt;
  opt.drift = DriftPolicy::None;
  opt.max_drift = 1e300;  // measure the raw error of the stepper, drift included
  const IntegrationResult r = integrate(m, s, 0.0, 1.0, opt, {});
  EXPECT_TRUE(r.ok) << r.message;
  return (s.x - reference.x).norm();
}

TEST(Integrator, FixedStepSteppersConvergeWithTheirOrder) {
  const Model m = tumblingBody();
  State reference = m.initial_state;
  IntegrationOptions fine;
  fine.stepper = StepperKind::RkFehlberg78;
  fine.rtol = fine.atol = 1e-13;
  fine.drift = DriftPolicy::None;
  ASSERT_TRUE(integrate(m, reference, 0.0, 1.0, fine, {}).ok);
  for (auto [kind, order] : {std::pair{StepperKind::Euler, 1.0}, std::pair{StepperKind::Rk4, 4.0}}) {
    const double dt = kind == StepperKind::Euler ? 1e-3 : 2e-2;
    const double e1 = finalError(m, kind, dt, reference);
    const double e2 = finalError(m, kind, dt / 2, reference);
    const double observed = std::log2(e1 / e2);
    // Halving the step divides the error by about 2^p; ±0.3 allows the asymptotic regime's slack.
    EXPECT_NEAR(observed, order, 0.3) << stepperName(kind) << ": errors " << e1 << ", " << e2;
  }
}

TEST(Integrator, SameInputsGiveBitIdenticalResults) {
  const Model m = tumblingBody();
  IntegrationOptions opt;
  opt.stepper = StepperKind::RkDopri5;
  State a = m.initial_state, b = m.initial_state;
  integrate(m, a, 0.0, 2.0, opt, {});
  integrate(m, b, 0.0, 2.0, opt, {});
  EXPECT_EQ(a.x, b.x);
  EXPECT_EQ(a.xi, b.xi);
}

}  // namespace
}  // namespace rbs
