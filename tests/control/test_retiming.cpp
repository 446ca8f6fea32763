// The time pieces of a reference that waits (issue 46, docs/CONTROL.md "Recovery"): the planned
// moves of the way back (HermitePath, CruisePath, PathSequence), the manoeuvre clock and the chain
// rule through it (compose) — their jets against central differences, their boundary values and
// the bounds they promise.
#include <gtest/gtest.h>

#include <cmath>
#include <functional>
#include <limits>
#include <stdexcept>
#include <memory>
#include <vector>

#include "core/control/trajectory.h"

namespace rbs {
namespace {

using traj::Jet;

constexpr double kStep = 1e-5;

/// Largest mismatch of d/dt jet[k] against jet[k + 1] (k = 0 … 3) by central differences over
/// t ∈ [t0, t1], relative to 1 + |jet[k + 1]|.
double jetMismatch(const std::function<Jet(double)>& f, double t0, double t1, int n = 97) {
  double worst = 0.0;
  for (int i = 0; i <= n; ++i) {
    const double t = t0 + (t1 - t0) * (i + 0.37) / (n + 1);
    const Jet a = f(t), p = f(t + kStep), m = f(t - kStep);
    for (int k = 0; k < 4; ++k)
      worst = std::max(worst, std::abs((p[k] - m[k]) / (2 * kStep) - a[k + 1]) / (1.0 + std::abs(a[k + 1])));
  }
  return worst;
}

TEST(Retiming, AHermiteMoveMeetsItsEndJetsAndIsConsistent) {
  const std::vector<Jet> start{Jet{1.0, -2.0, 0.5, 0.0, 0.0}}, end{traj::constantJet(3.0)};
  const traj::HermitePath path(start, end, 2.0, 1.5);
  const Jet a = path.component(2.0, 0), b = path.component(3.5, 0);
  for (int k = 0; k < 5; ++k) {
    EXPECT_NEAR(a[k], start[0][k], 1e-9) << k;
    EXPECT_NEAR(b[k], end[0][k], 1e-9) << k;
  }
  EXPECT_EQ(path.component(5.0, 0), end[0]);  // held after the move
  EXPECT_LT(jetMismatch([&](double t) { return path.component(t, 0); }, 2.0, 3.5), 1e-5);
}

TEST(Retiming, ACruiseRunsUpHoldsItsSpeedAndStopsAtTheGoal) {
  const double speed = 3.0, ramp = 1.2;
  const traj::CruisePath path({0.0, 0.0}, {6.0, 8.0}, 1.0, speed, ramp);  // 10 m
  EXPECT_DOUBLE_EQ(path.duration(), 10.0 / speed + ramp);
  const double end = 1.0 + path.duration();
  for (int i = 0; i < 2; ++i) {
    EXPECT_EQ(path.component(0.5, i)[0], 0.0);
    EXPECT_NEAR(path.component(end, i)[0], i == 0 ? 6.0 : 8.0, 1e-12);
    EXPECT_NEAR(path.component(end, i)[1], 0.0, 1e-12);
    EXPECT_LT(jetMismatch([&](double t) { return path.component(t, i); }, 0.9, end + 0.1), 1e-5);
  }
  double peak_speed = 0.0, peak_accel = 0.0;
  for (int k = 0; k <= 2000; ++k) {
    const double t = 1.0 + path.duration() * k / 2000.0;
    const Jet x = path.component(t, 0), y = path.component(t, 1);
    peak_speed = std::max(peak_speed, std::hypot(x[1], y[1]));
    peak_accel = std::max(peak_accel, std::hypot(x[2], y[2]));
  }
  EXPECT_NEAR(peak_speed, speed, 1e-9);
  EXPECT_LE(peak_accel, 315.0 / 128.0 * speed / ramp * (1.0 + 1e-6));
  EXPECT_GT(peak_accel, 0.99 * 315.0 / 128.0 * speed / ramp);
}

// The way back: brake to rest, then cruise; where the two meet (at rest) the sequence is C⁴.
TEST(Retiming, ASequenceOfMovesMeetingAtRestIsSmooth) {
  const std::vector<Jet> start{Jet{0.0, 4.0, 0.0, 0.0, 0.0}}, stop{traj::constantJet(2.0)};
  auto brake = std::make_shared<traj::HermitePath>(start, stop, 0.0, 1.0);
  auto cruise = std::make_shared<traj::CruisePath>(std::vector<double>{2.0}, std::vector<double>{-5.0}, 1.0, 2.0, 1.0);
  const traj::PathSequence path({0.0, 1.0}, {brake, cruise});
  EXPECT_EQ(path.component(0.5, 0), brake->component(0.5, 0));
  EXPECT_EQ(path.component(1.5, 0), cruise->component(1.5, 0));
  EXPECT_LT(jetMismatch([&](double t) { return path.component(t, 0); }, 0.0, 1.0 + cruise->duration()), 1e-5);
  EXPECT_THROW(traj::PathSequence({1.0, 0.0}, {brake, cruise}), std::invalid_argument);
}

TEST(Retiming, TheClockWaitsRunsUpAndThenKeepsThePace) {
  const traj::ManoeuvreClock clock(10.0, 3.0, 2.0);
  EXPECT_EQ(clock.at(9.0)[0], 3.0);
  EXPECT_EQ(clock.at(9.0)[1], 0.0);
  // after the run-up τ = t − delay, delay = t_start + ramp/2 − τ_start
  const Jet late = clock.at(15.0);
  EXPECT_NEAR(late[0], 15.0 - (10.0 + 1.0 - 3.0), 1e-12);
  EXPECT_NEAR(late[1], 1.0, 1e-12);
  EXPECT_LT(jetMismatch([&](double t) { return clock.at(t); }, 9.5, 12.5), 1e-5);
  const traj::ManoeuvreClock held(10.0, 3.0, std::numeric_limits<double>::infinity());
  EXPECT_EQ(held.at(50.0), traj::constantJet(3.0));
}

// f(τ(t)) by Faà di Bruno against differences of f(τ(t)) itself.
TEST(Retiming, ComposeIsTheChainRuleToTheFourthDerivative) {
  const traj::ManoeuvreClock clock(0.0, 1.0, 3.0);
  const auto f = [](double tau) {  // sin τ with its derivatives
    return Jet{std::sin(tau), std::cos(tau), -std::sin(tau), -std::cos(tau), std::sin(tau)};
  };
  const auto composed = [&](double t) {
    const Jet tau = clock.at(t);
    return traj::compose(f(tau[0]), tau);
  };
  EXPECT_LT(jetMismatch(composed, 0.1, 4.0), 1e-5);
  EXPECT_NEAR(composed(2.0)[0], std::sin(clock.at(2.0)[0]), 1e-15);
}

}  // namespace
}  // namespace rbs
