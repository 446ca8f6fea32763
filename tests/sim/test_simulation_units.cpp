// The simulator's units on their own: the drift policy (DriftControl), the stepping between
// events (Stepping), the input hold (InputHold) and the channel recording (SampleRecorder).
// tests/sim/test_simulator.cpp checks them together through Simulator.
#include <gtest/gtest.h>

#include <cmath>
#include <numbers>

#include "sim/input_hold.h"
#include "sim/sample_recorder.h"
#include "sim/stepping.h"
#include "tests/sim/sim_test_models.h"

namespace rbs {
namespace {

using simtest::actuatedPendulum;
using simtest::tumblingBody;

/// u = (value) whatever the state; counts its calls and reports one channel "test.calls".
class CountingSource : public InputSource {
 public:
  explicit CountingSource(double value) : value_(value) {}
  void compute(double, const State&, VecX& u) override {
    ++calls;
    u.setConstant(value_);
  }
  std::vector<ChannelInfo> channels() const override { return {{"test.calls", "1", "compute() calls so far"}}; }
  void sample(double* out) override { out[0] = calls; }
  int calls = 0;

 private:
  double value_;
};

/// A tumbling body whose rotation matrix is pushed off SO(3) by `amount`.
VecX driftedState(const Model& m, double amount) {
  VecX z = joinState(m.initial_state);
  z[3] += amount;  // R(0, 0) of the Free joint's (r, R) coordinates
  return z;
}

TEST(DriftControl, ProjectsOnlyUnderTheProjectPolicyAndAboveTheThreshold) {
  const Model m = tumblingBody();
  IntegrationOptions o;
  DriftControl drift(m, o);
  VecX z = driftedState(m, 1e-6);
  const double d = drift.measure(z);
  EXPECT_EQ(d, m.coordinateDrift(z.head(m.nx)));
  EXPECT_GT(d, DriftControl::kProjectionThreshold);

  VecX below = z;
  drift.apply(DriftControl::kProjectionThreshold, below);  // at the threshold: left alone
  EXPECT_EQ(below, z);
  VecX projected = z;
  drift.apply(d, projected);
  EXPECT_LT(drift.measure(projected), 1e-15);
  EXPECT_EQ(projected.tail(m.nxi), z.tail(m.nxi));  // velocities untouched

  for (DriftPolicy other : {DriftPolicy::Stabilize, DriftPolicy::None}) {
    IntegrationOptions no_projection;
    no_projection.drift = other;
    DriftControl keep(m, no_projection);
    VecX kept = z;
    keep.apply(d, kept);
    EXPECT_EQ(kept, z) << driftPolicyName(other);
  }
}

TEST(DriftControl, TheBoundRefusesNaNAndSaysBothNumbers) {
  const Model m = tumblingBody();
  IntegrationOptions o;
  o.max_drift = 1e-3;
  DriftControl drift(m, o);
  EXPECT_TRUE(drift.withinBound(1e-3));
  EXPECT_FALSE(drift.withinBound(2e-3));
  EXPECT_FALSE(drift.withinBound(std::nan("")));
  EXPECT_EQ(drift.boundMessage(0.002), "coordinate drift 0.002 exceeds the bound 0.001");
  EXPECT_EQ(atTime(0.25, "cause"), "t = 0.25 s: cause");
}

TEST(Stepping, Rk4CoversEachEventIntervalWithEqualStepsAndCountsThem) {
  const Model m = tumblingBody();
  IntegrationOptions o;
  o.stepper = StepperKind::Rk4;
  o.dt = 1e-3;
  DynamicsRhs rhs(m, {}, 0.0);
  const auto stepping = makeStepping(m, o, rhs);
  stepping->restart(0.0, joinState(m.initial_state));
  VecX z;
  ASSERT_TRUE(stepping->advance(0.005, z));
  EXPECT_EQ(stepping->steps(), 5);
  EXPECT_EQ(rhs.evaluations(), 20);  // four stages per step
  ASSERT_TRUE(stepping->advance(0.0075, z));  // 2.5 dt: three equal steps of dt·5/6
  EXPECT_EQ(stepping->steps(), 8);
  ASSERT_TRUE(stepping->advance(0.0075, z));  // already there: no step
  EXPECT_EQ(stepping->steps(), 8);
  EXPECT_EQ(z, stepping->committed());
  stepping->restart(0.0, joinState(m.initial_state));
  EXPECT_EQ(stepping->steps(), 0);
  EXPECT_EQ(stepping->maxDrift(), 0.0);
}

TEST(Stepping, EveryStepperStopsOnAStateBeyondTheDriftBoundWithTheTime) {
  const Model m = tumblingBody();
  for (StepperKind kind : kAllSteppers) {
    IntegrationOptions o;
    o.stepper = kind;
    o.max_drift = 1e-4;
    DynamicsRhs rhs(m, {}, 0.0);
    const auto stepping = makeStepping(m, o, rhs);
    stepping->restart(0.0, driftedState(m, 1e-3));
    VecX z;
    EXPECT_FALSE(stepping->advance(0.01, z)) << stepperName(kind);
    EXPECT_EQ(stepping->message().rfind("t = ", 0), 0u) << stepping->message();
    EXPECT_NE(stepping->message().find("exceeds the bound 0.0001"), std::string::npos) << stepping->message();
    EXPECT_GT(stepping->maxDrift(), 1e-4) << stepperName(kind);
  }
}

TEST(InputHold, ClampsToTheActuatorLimitsAndHoldsBetweenInstants) {
  const Model m = actuatedPendulum(-1.0, 2.0);
  auto source = std::make_shared<CountingSource>(5.0);
  InputHold direct(m, source, 0.0);
  EXPECT_FALSE(direct.holds());
  EXPECT_EQ(direct.period(), 0.0);
  VecX u;
  direct.rhsInput(0.0, m.initial_state, u);
  EXPECT_EQ(u[0], 2.0);  // 5 clamped to the upper limit
  EXPECT_EQ(source->calls, 1);
  direct.start(0.0, m.initial_state, true);  // nothing held: the source is not called
  EXPECT_EQ(source->calls, 1);

  InputHold held(m, source, 200.0);
  EXPECT_TRUE(held.holds());
  EXPECT_EQ(held.period(), 1.0 / 200.0);
  EXPECT_EQ(held.instant(1.0, 3), 1.0 + 3.0 / 200.0);
  held.start(0.0, m.initial_state, false);  // not finite: zero, no call
  EXPECT_EQ(held.held()[0], 0.0);
  EXPECT_EQ(source->calls, 1);
  held.hold(0.005, m.initial_state);
  EXPECT_EQ(source->calls, 2);
  held.rhsInput(0.006, m.initial_state, u);
  held.rhsInput(0.007, m.initial_state, u);
  EXPECT_EQ(u[0], 2.0);
  EXPECT_EQ(source->calls, 2);  // the right-hand side reads the held value

  InputHold none(m, nullptr, 0.0);
  none.rhsInput(0.0, m.initial_state, u);
  EXPECT_EQ(u[0], 0.0);
}

TEST(SampleRecorder, LaysOutTheModelsChannelsThenTheSources) {
  const Model m = actuatedPendulum();
  CountingSource source(0.0);
  SampleRecorder recorder(m, &source, false, 0);
  const ChannelSet& c = recorder.channels();
  ASSERT_EQ(c.size(), 30);
  EXPECT_EQ(c[0].name, "body.link.px");
  EXPECT_EQ(c[7].name, "energy.kinetic");
  EXPECT_EQ(c[12].name, "constraint.drift");
  EXPECT_EQ(c[13].name, "u.torque");
  EXPECT_EQ(c[13].unit, "N m");
  EXPECT_EQ(c[14].name, "power.perturbation");  // the pushes' channels: present without pushes
  EXPECT_EQ(c[20].name, "perturbation.torque.z");
  EXPECT_EQ(c[21].name, "body.link.vx");  // the motion: body velocities, then the joints' own coordinates
  EXPECT_EQ(c[26].name, "body.link.wz");
  EXPECT_EQ(c[27].name, "joint.hinge.angle");
  EXPECT_EQ(c[27].unit, "rad");
  EXPECT_EQ(c[28].name, "joint.hinge.rate");
  EXPECT_EQ(c[28].unit, "rad/s");
  EXPECT_EQ(c[29].name, "test.calls");  // no reference.* channels: the source tracks none
}

TEST(SampleRecorder, ABoundedRecordingKeepsTheNewestAndCountsTheDropped) {
  const Model m = actuatedPendulum();
  SampleRecorder recorder(m, nullptr, false, 8);
  const VecX u = VecX::Zero(1);
  for (int k = 0; k < 20; ++k) recorder.record(0.01 * k, m.initial_state, true, u, -1.0);
  const Recording& r = recorder.recording();
  EXPECT_GE(r.time.size(), 6u);
  EXPECT_LE(r.time.size(), 8u);
  EXPECT_EQ(r.dropped + r.time.size(), 20u);
  EXPECT_EQ(r.time.back(), 0.01 * 19);
  EXPECT_EQ(r.time.front(), 0.01 * static_cast<double>(r.dropped));
  recorder.clear();
  EXPECT_TRUE(recorder.recording().time.empty());
  EXPECT_EQ(recorder.recording().dropped, 0u);
}

TEST(SampleRecorder, QuaternionSignIsContinuousAndANonFiniteStateIsASampleOfNaNs) {
  const Model m = tumblingBody(JointType::FreeQuaternion);
  SampleRecorder recorder(m, nullptr, false, 0);
  const VecX u;
  // Turning about z through 180°: the canonical quaternion (w ≥ 0) would jump from
  // (cos 85°, 0, 0, sin 85°) to −(cos 95°, 0, 0, sin 95°); the recorded one goes on smoothly.
  State s = m.initial_state;
  const int qw = recorder.channels().find("body.body.qw"), qz = qw + 3;
  for (double degrees : {170.0, 190.0}) {
    const double half = degrees * std::numbers::pi / 360.0;
    s.x.tail<4>() << std::cos(half), 0.0, 0.0, std::sin(half);
    ASSERT_EQ(recorder.record(degrees, s, true, u, -1.0), DynamicsStatus::Ok);
    EXPECT_NEAR(recorder.recording().values.back()[qw], std::cos(half), 1e-15) << degrees;
    EXPECT_NEAR(recorder.recording().values.back()[qz], std::sin(half), 1e-15) << degrees;
  }
  // The drift channel: the value given, or measured when none is.
  recorder.record(0.02, s, true, u, 0.5);
  EXPECT_EQ(recorder.recording().values.back()[recorder.channels().find("constraint.drift")], 0.5);

  s.xi[0] = std::nan("");
  EXPECT_EQ(recorder.record(0.03, s, false, u, -1.0), DynamicsStatus::NonFinite);
  for (double v : recorder.recording().values.back()) EXPECT_TRUE(std::isnan(v));
}

}  // namespace
}  // namespace rbs
