// The propeller drive of thesis 5.3.2 on its own, on the discrete drive model (5.19) with the
// Table 5.1 numbers: the observer's error polynomial (5.24) against a finite-difference
// linearization of the observer and the plant, the chosen roots, the convergence of speed and
// friction on a constant-speed propeller, and the tracking law's error recursion (5.26).
#include <gtest/gtest.h>

#include <cmath>
#include <complex>

#include <Eigen/Eigenvalues>

#include "core/control/parameters.h"
#include "core/control/perturbation.h"
#include "core/control/propeller_drive.h"

namespace rbs {
namespace {

constexpr double kTs = 0.005;              // control period of the vehicles
constexpr double kThetaP = 3.6e-5;         // Θ_P [kg m²]
constexpr double kHover = 412.9;           // quadcopter hover speed [rad/s]
const PropellerDriveModel kDrive{2.45e-7 / kThetaP, 0.0105 / kThetaP, 0.005 / kThetaP};  // p_P1, p_P2, p_P3

double polynomialAt(const std::array<double, 3>& c, double x) { return ((x + c[2]) * x + c[1]) * x + c[0]; }

/// The error map of plant (5.19) + measurement (5.22) + observer (5.23) at constant current:
/// state z = (ϖ[k] − ϖ̂[k], ϖ[k−1] − ϖ̂[k−1], p_P3 − p̂_P3[k]) around the steady speed ϖ̄.
Eigen::Vector3d errorStep(const PropellerObserverGains& g, double speed, const Eigen::Vector3d& z) {
  const double current = (kDrive.p3 + kDrive.p1 * speed * speed) / kDrive.p2;  // ϖ̄ is an equilibrium
  // The observer's update (5.23) written out, at ϖ̂[k−1] = ϖ̄ − z1, ϖ̂[k] = ϖ̄ − z0, p̂ = p − z2.
  const double w_prev = speed - z(1), w_now = speed - z(0), p_hat = kDrive.p3 - z(2);
  const double measured = 0.5 * (speed + speed);  // the plant sits at ϖ̄
  const double e = measured - 0.5 * (w_now + w_prev);
  const double w_next = w_now + kTs * (kDrive.acceleration(w_now, current, p_hat) + g.l1 * e);
  const double p_next = p_hat + kTs * g.l2 * e;
  const double plant_next = kDrive.step(speed, current, kTs);
  return {plant_next - w_next, speed - w_now, kDrive.p3 - p_next};
}

TEST(PropellerObserver, ErrorPolynomialMatchesTheLinearizedObserverAndPlant) {
  // (5.24) against the characteristic polynomial of the finite-difference Jacobian of the true
  // error map (observer code path reproduced from (5.23) here, independent of the polynomial).
  const PropellerObserverGains g{120.0, -3000.0};
  for (double speed : {150.0, kHover, 700.0}) {
    Eigen::Matrix3d A;
    const double h = 1e-4;
    for (int j = 0; j < 3; ++j) {
      Eigen::Vector3d dz = Eigen::Vector3d::Zero();
      dz(j) = h;
      A.col(j) = (errorStep(g, speed, dz) - errorStep(g, speed, -dz)) / (2 * h);
    }
    // det(λI − A) = λ³ − tr(A) λ² + (sum of principal 2×2 minors) λ − det(A).
    const double minors = A(0, 0) * A(1, 1) - A(0, 1) * A(1, 0) + A(0, 0) * A(2, 2) - A(0, 2) * A(2, 0) +
                          A(1, 1) * A(2, 2) - A(1, 2) * A(2, 1);
    const std::array<double, 3> c = propellerObserverPolynomial(kDrive, kTs, speed, g);
    EXPECT_NEAR(c[2], -A.trace(), 1e-7) << speed;
    EXPECT_NEAR(c[1], minors, 1e-7) << speed;
    EXPECT_NEAR(c[0], -A.determinant(), 1e-7) << speed;
  }
}

TEST(PropellerObserver, GainsPlaceADoubleRootAndTheForcedThird) {
  for (double pole : {10.0, 40.0, 100.0, 150.0}) {
    const PropellerObserverGains g = propellerObserverGains(kDrive, kTs, kHover, pole);
    const std::array<double, 3> c = propellerObserverPolynomial(kDrive, kTs, kHover, g);
    const double d = std::exp(-pole * kTs), third = propellerObserverThirdRoot(kDrive, kTs, kHover, pole);
    EXPECT_NEAR(polynomialAt(c, d), 0.0, 1e-12) << pole;
    EXPECT_NEAR(3 * d * d + 2 * c[2] * d + c[1], 0.0, 1e-12) << pole;  // double: p'(λ_d) = 0
    EXPECT_NEAR(polynomialAt(c, third), 0.0, 1e-12) << pole;
    EXPECT_LT(std::abs(third), 1.0) << pole;
  }
  // The default 20 rad/s at hover: λ_d = 0.905, λ_3 = 0.085 (hand computation of (1 + λ_d)² (1 + λ_3)
  // = 4 − 4 T_S p_P1 ϖ̄).
  EXPECT_NEAR(propellerObserverThirdRoot(kDrive, kTs, kHover, 20.0), 0.0869, 1e-4);
  EXPECT_THROW(propellerObserverGains(kDrive, kTs, kHover, 200.0), ControlError);
  EXPECT_THROW(propellerObserverGains(kDrive, kTs, kHover, 0.0), ControlError);
  EXPECT_THROW(propellerObserverGains(kDrive, kTs, kHover, std::nan("")), ControlError);
}

TEST(PropellerObserver, ConvergesOnAConstantSpeedPropellerAtTheChosenRate) {
  // The plant holds ϖ̄ with the steady current; the observer starts 20 rad/s off and without
  // friction knowledge. Its errors obey the linear recursion of (5.24) up to the quadratic drag
  // term and vanish: speed and p_P3 exactly (constant speed: Euler and the plant agree).
  const double pole = 40.0, current = (kDrive.p3 + kDrive.p1 * kHover * kHover) / kDrive.p2;
  const PropellerObserverGains g = propellerObserverGains(kDrive, kTs, kHover, pole);
  const std::array<double, 3> c = propellerObserverPolynomial(kDrive, kTs, kHover, g);
  PropellerObserver observer(kDrive, kTs, g);
  observer.reset(kHover - 20.0, 0.0);
  std::vector<double> error;  // ϖ[k+1] − ϖ̂[k+1]
  for (int k = 0; k < 400; ++k) {
    observer.update(kHover, current);
    error.push_back(kHover - observer.speed());
  }
  double worst_residual = 0.0, scale = 0.0;
  for (std::size_t k = 0; k + 3 < error.size(); ++k) {
    const double r = error[k + 3] + c[2] * error[k + 2] + c[1] * error[k + 1] + c[0] * error[k];
    worst_residual = std::max(worst_residual, std::abs(r));
    scale = std::max(scale, std::abs(error[k]));
  }
  // The neglected term is T_S p_P1 ε² ≤ 0.005 · 0.0068 · 20² = 0.014 for the largest error.
  EXPECT_LT(worst_residual, kTs * kDrive.p1 * scale * scale * 1.01);
  EXPECT_NEAR(observer.speed(), kHover, 1e-9);
  EXPECT_NEAR(observer.friction(), kDrive.p3, 1e-7);
  // After 0.25 s (50 steps) the double root 0.819 has brought 20 rad/s below 0.1 rad/s.
  EXPECT_LT(std::abs(error[50]), 0.1);
  EXPECT_GT(std::abs(error[10]), 0.1);  // and not much faster than the roots say
}

TEST(PropellerTracking, ErrorFollowsTheThesisRecursionWithAConvergedObserver) {
  // (5.25) in (5.19) with ϖ̂ = ϖ and p̂_P3 = p_P3 must give (5.26) exactly, along a speed ramp.
  const double gain = 100.0;
  double speed = 380.0;
  double previous_current = (kDrive.p3 + kDrive.p1 * speed * speed) / kDrive.p2;
  auto desired = [](int k) { return 400.0 + 2.0 * k + 30.0 * std::sin(0.05 * k); };
  double worst = 0.0;
  for (int k = 0; k < 200; ++k) {
    // At instant k the current for [k+1, k+2) is computed from the prediction ϖ̂[k+1].
    const double predicted = kDrive.step(speed, previous_current, kTs);
    const double next_current =
        propellerTrackingCurrent(kDrive, kTs, desired(k + 1), desired(k + 2), predicted, kDrive.p3, gain);
    const double e1 = desired(k + 1) - predicted;
    const double speed_after = kDrive.step(predicted, next_current, kTs);
    const double e2 = desired(k + 2) - speed_after;
    const double expected = -(kTs * (2 * kDrive.p1 * predicted + gain) - 1) * e1 - kTs * kDrive.p1 * e1 * e1;
    worst = std::max(worst, std::abs(e2 - expected));
    speed = predicted;
    previous_current = next_current;
  }
  EXPECT_LT(worst, 1e-9);
  EXPECT_LT(std::abs(desired(200) - speed), 1e-3);  // ϖ[200]: converged onto the trajectory
}

TEST(PropellerObserver, FiltersTheNoisyMeanSpeed) {
  // Measurement (5.22) of a constant-speed rotor with white angle noise: the speed estimate
  // scatters several times less than the measurement itself, and p̂_P3 stays near p_P3.
  const double pole = 40.0, current = (kDrive.p3 + kDrive.p1 * kHover * kHover) / kDrive.p2;
  const double angle_noise = 0.02;  // [rad] on ψ: the measurement scatters √2·0.02/T_S = 5.7 rad/s
  PropellerObserver observer(kDrive, kTs, propellerObserverGains(kDrive, kTs, kHover, pole));
  observer.reset(kHover, kDrive.p3);
  NoiseGenerator rng(3);
  double previous = angle_noise * rng.normal();
  double measurement_ss = 0.0, estimate_ss = 0.0, friction_ss = 0.0;
  const int n = 20000;
  for (int k = 0; k < n; ++k) {
    const double now = angle_noise * rng.normal();
    const double measured = kHover + (now - previous) / kTs;
    previous = now;
    observer.update(measured, current);
    measurement_ss += (measured - kHover) * (measured - kHover);
    estimate_ss += (observer.speed() - kHover) * (observer.speed() - kHover);
    friction_ss += (observer.friction() - kDrive.p3) * (observer.friction() - kDrive.p3);
  }
  const double measurement_rms = std::sqrt(measurement_ss / n), estimate_rms = std::sqrt(estimate_ss / n);
  EXPECT_NEAR(measurement_rms, std::sqrt(2.0) * angle_noise / kTs, 0.2);
  EXPECT_LT(estimate_rms, measurement_rms / 3);
  EXPECT_LT(std::sqrt(friction_ss / n), 0.5 * kDrive.p3);
}

}  // namespace
}  // namespace rbs
