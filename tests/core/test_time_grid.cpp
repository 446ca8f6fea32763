// Step counts between grid times (core/math/time_grid.h): one nominal step stays one step late in
// a run, where the rounding of the absolute times t0 + k·h exceeds 1e-9 of a step; spans that
// really are longer still get their extra step.
#include <gtest/gtest.h>

#include <cmath>

#include "core/math/time_grid.h"

namespace rbs {
namespace {

/// The count used before: ⌈span/h − 1e-9⌉.
double plainCount(double t0, double t1, double h) {
  return std::ceil((t1 - t0) / h - 1e-9);
}

TEST(TimeGrid, OneNominalStepIsOneStepAtAnyTime) {
  // The integrated heading's knots t_k = k·2 ms, from t = 0 to beyond 24 h.
  constexpr double kKnot = 0.002;
  long plain_extra = 0;
  for (const double t : {1.0, 4000.0, 70'000.0, 86'400.0, 200'000.0}) {
    const long k0 = std::lround(t / kKnot);
    for (long k = k0; k < k0 + 5000; ++k) {
      const double a = static_cast<double>(k) * kKnot, b = static_cast<double>(k + 1) * kKnot;
      ASSERT_EQ(stepCount(a, b, kKnot), 1.0) << "k = " << k;
      if (plainCount(a, b, kKnot) != 1.0) ++plain_extra;
    }
  }
  // The simulator's output grid t0 + k·dt_out, 5 ms covered by steps of 1 ms.
  for (const double t0 : {0.0, 86'400.0}) {
    for (const double t : {1.0, 10'000.0, 86'400.0}) {
      const long k0 = std::lround(t / 0.005);
      for (long k = k0; k < k0 + 5000; ++k) {
        const double a = t0 + static_cast<double>(k) * 0.005,
                     b = t0 + static_cast<double>(k + 1) * 0.005;
        ASSERT_EQ(stepCount(a, b, 0.001), 5.0) << "t0 = " << t0 << ", k = " << k;
        if (plainCount(a, b, 0.001) != 5.0) ++plain_extra;
      }
    }
  }
  // The sample covers rounding the plain count gets wrong (~half of the late spans): otherwise
  // this test would prove nothing.
  EXPECT_GT(plain_extra, 10'000);
}

TEST(TimeGrid, LongerSpansKeepTheirSteps) {
  for (const double t : {0.0, 86'400.0, -86'400.0}) {
    EXPECT_EQ(stepCount(t, t + 0.0025, 0.002), 2.0);
    EXPECT_EQ(stepCount(t, t + 0.002 + 1e-7, 0.002), 2.0);  // 1e-7 s is no rounding at 24 h
    EXPECT_EQ(stepCount(t + 0.01, t, 0.002), 5.0);          // either direction
    EXPECT_LE(stepCount(t, t, 0.002), 0.0);
  }
  EXPECT_GT(stepCount(0.0, 1.0, 1e-300), 1e12);  // absurd counts stay visible to the caller
}

}  // namespace
}  // namespace rbs
