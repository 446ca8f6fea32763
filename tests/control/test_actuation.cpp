// The quadcopter's force-vector filter (thesis 5.3.4, konz-multicopters §A.6) on its own: the
// matrices of (5.34) for the LSR quadcopter (Table 5.1), steps of f_D, and the claim of Fig. 5.17
// that the filter with the rotors' reaction f_dyn follows a heading-torque step without the
// overshoot of the static filter (5.42).
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>

#include "core/control/actuation.h"

namespace rbs {
namespace {

constexpr double kF = 1.44e-5, kT = 2.45e-7, kArm = 0.24, kThetaP = 3.6e-5;  // Table 5.1
constexpr double kMass = 1.001, kG = 9.81;
constexpr double kTs = 0.005;  // the vehicles' control period

/// (5.34): rows F_z, τ_x, τ_y, τ_z; rotors at 0°, 90°, 180°, 270° with spins ε = +, −, +, −.
struct QuadMaps {
  Eigen::Matrix4d B, D;
  QuadMaps() {
    B << kF, kF, kF, kF,                    //
        0, kF * kArm, 0, -kF * kArm,        //
        -kF * kArm, 0, kF * kArm, 0,        //
        -kT, kT, -kT, kT;
    D.setZero();
    D.row(3) << -kThetaP, kThetaP, -kThetaP, kThetaP;
  }
};

double hoverSpeed() { return std::sqrt(kMass * kG / (4 * kF)); }
double p4() { return kThetaP / (2 * kT * hoverSpeed()); }

/// Response of f (the force the rotors produce while following the filter) to a step of f_D.
std::vector<Eigen::Vector4d> stepResponse(bool rotor_inertia, const Eigen::Vector4d& step, double duration) {
  const QuadMaps q;
  FlatForceFilter filter(q.B, q.D, Eigen::Vector4d::Constant(50.0), Eigen::Vector4d::Constant(754.0));
  filter.setGains(60.0, 60.0, 20.0, p4(), rotor_inertia);
  filter.reset(Eigen::Vector4d::Constant(hoverSpeed()));
  const Eigen::Vector4d hover = filter.force();
  std::vector<Eigen::Vector4d> out;
  for (int k = 0; k * kTs < duration; ++k) {
    EXPECT_TRUE(filter.step(hover + step, kTs));
    out.push_back(filter.force() - hover);
  }
  return out;
}

TEST(FlatForceFilter, HoldsHoverAndReachesAConstantForce) {
  const QuadMaps q;
  FlatForceFilter filter(q.B, q.D, Eigen::Vector4d::Constant(50.0), Eigen::Vector4d::Constant(754.0));
  filter.setGains(60.0, 60.0, 20.0, p4(), true);
  const Eigen::Vector4d hover_speeds = Eigen::Vector4d::Constant(hoverSpeed());
  filter.reset(hover_speeds);
  const Eigen::Vector4d hover = filter.force();
  EXPECT_NEAR(hover(0), kMass * kG, 1e-12);
  for (int k = 0; k < 100; ++k) ASSERT_TRUE(filter.step(hover, kTs));
  EXPECT_LT((filter.speed() - hover_speeds).norm(), 1e-9);  // at rest it stays
  const Eigen::Vector4d target(12.0, 0.05, -0.03, 0.02);
  for (int k = 0; k < 800; ++k) ASSERT_TRUE(filter.step(target, kTs));  // 4 s ≫ all time constants
  // At rest f = f_stat = B ϖ² = f_D: ϖ² = B⁻¹ f_D, the flat output's static inverse.
  const Eigen::Vector4d expected = (q.B.inverse() * target).cwiseSqrt();
  EXPECT_LT((filter.speed() - expected).norm(), 1e-6);
  EXPECT_LT(filter.speedRate().norm(), 1e-6);
}

TEST(FlatForceFilter, HeadingStepWithoutOvershootOnlyWithTheRotorReaction) {
  const Eigen::Vector4d step(0, 0, 0, 0.05);  // [N m] yaw torque
  const auto with = stepResponse(true, step, 1.5), without = stepResponse(false, step, 1.5);
  double peak_with = 0, peak_without = 0, t63 = -1;
  for (std::size_t k = 0; k < with.size(); ++k) {
    peak_with = std::max(peak_with, with[k](3));
    peak_without = std::max(peak_without, without[k](3));
    if (t63 < 0 && with[k](3) >= (1 - std::exp(-1.0)) * step(3)) t63 = (k + 1) * kTs;
  }
  std::printf("[ heading step ] peak with f_dyn %.4f, static filter %.4f (of %.2f N m), t63 %.3f s\n",
              peak_with, peak_without, step(3), t63);
  // With k_head1 = 1/p₄ the pole-zero cancellation leaves ω_H/(s + ω_H): no overshoot, time constant
  // 1/ω_H = 50 ms (Euler at 5 ms: within 15 %).
  EXPECT_LT(peak_with, 1.01 * step(3));
  EXPECT_NEAR(t63, 1.0 / 20.0, 0.15 / 20.0);
  EXPECT_NEAR(with.back()(3), step(3), 1e-6);
  // The static filter ignores f_dyn = Θ_P Σε ϖ̇: the rotors' acceleration adds to the yaw torque,
  // the overshoot of Fig. 5.17.
  EXPECT_GT(peak_without, 1.5 * step(3));  // measured 2.15×
}

TEST(FlatForceFilter, SpeedsStayWithinTheirLimits) {
  const Eigen::Vector4d step(30.0, 0.5, 0.0, 0.0);  // far beyond 4 · 8.19 N
  const QuadMaps q;
  FlatForceFilter filter(q.B, q.D, Eigen::Vector4d::Constant(100.0), Eigen::Vector4d::Constant(754.0));
  filter.setGains(60.0, 60.0, 20.0, p4(), true);
  filter.reset(Eigen::Vector4d::Constant(hoverSpeed()));
  for (int k = 0; k < 400; ++k) {
    ASSERT_TRUE(filter.step(filter.force() * 0 + Eigen::Vector4d(kMass * kG, 0, 0, 0) + step, kTs));
    EXPECT_LE(filter.speed().maxCoeff(), 754.0);
    EXPECT_GE(filter.speed().minCoeff(), 100.0);
  }
  // Saturated in the end: the two rotors of the τ_x pair at their limits, the filter state finite.
  EXPECT_DOUBLE_EQ(filter.speed().maxCoeff(), 754.0);
}

TEST(FlatForceFilter, GoesFromEveryCornerOfItsLimitsToEveryOther) {
  // What a saturated recovery asks for, at quadcopter_table51.yaml's cut-offs (150 rad/s, heading
  // 30 rad/s, at 5 ms, lead 1): each rotor at 100 or 754 rad/s, held, then another such corner.
  // Held at a corner, the filter's rates are round-off (1e-11 rad/s²) into the limits; an
  // anti-windup that reset ĥ to the motion the limits allowed then dropped each period's input:
  // 3 of the 240 switches never arrived (e.g. rotors 1 and 2 full, 3 and 4 least → only rotor 1
  // full) and others took up to 378 periods.
  const QuadMaps q;
  const auto force = [&](const Eigen::Vector4d& w) { return Eigen::Vector4d(q.B * w.cwiseProduct(w)); };
  std::vector<Eigen::Vector4d> corners;
  for (int m = 0; m < 16; ++m)
    corners.emplace_back((m & 1) ? 754 : 100, (m & 2) ? 754 : 100, (m & 4) ? 754 : 100, (m & 8) ? 754 : 100);
  int slowest = 0;
  for (const Eigen::Vector4d& from : corners) {
    for (const Eigen::Vector4d& to : corners) {
      if (from == to) continue;
      FlatForceFilter filter(q.B, q.D, Eigen::Vector4d::Constant(100.0), Eigen::Vector4d::Constant(754.0));
      filter.setGains(150.0, 150.0, 30.0, p4(), true);
      filter.setLead(1.0);
      filter.reset(Eigen::Vector4d::Constant(hoverSpeed()));
      for (int k = 0; k < 200; ++k) ASSERT_TRUE(filter.step(force(from), kTs));
      int reached = -1;
      for (int k = 0; k < 400 && reached < 0; ++k) {
        ASSERT_TRUE(filter.step(force(to), kTs));
        if ((filter.speed() - to).norm() < 5.0) reached = k + 1;
      }
      EXPECT_GT(reached, 0) << from.transpose() << " → " << to.transpose() << ": stayed at " << filter.speed().transpose();
      // The two corners of pure yaw torque (rotors 1, 3 or 2, 4 full) go through the slow heading
      // channel (the hover pole −ω_H after the pole-zero cancellation): measured 329–372 periods.
      const bool pure_yaw = to(0) == to(2) && to(1) == to(3) && to(0) != to(1);
      if (!pure_yaw) slowest = std::max(slowest, reached);
    }
  }
  std::printf("[ corners ] slowest switch to a corner other than pure yaw: %d periods\n", slowest);
  EXPECT_LE(slowest, 40);  // 0.2 s (measured 13)
}

}  // namespace
}  // namespace rbs
