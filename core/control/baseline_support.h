// Internal helpers shared by the baseline controllers (computed_torque, joint_pd, geometric_se3):
// the ZYX Euler-angle rate map of thesis (1.6b), angle wrapping and a preallocated minimum-norm
// least-squares solve for mapping a desired generalized force or body wrench to the inputs.
#pragma once

#include <Eigen/SVD>
#include <string>
#include <vector>

#include "core/control/settings.h"
#include "core/math/se3.h"

namespace rbs::baseline {

/// Y(α, β) of (1.6b): the body angular velocity of R = R_z(φ) R_y(β) R_x(α) is ω = Y (α̇, β̇, φ̇).
/// det Y = cos β: singular at pitch β = ±π/2 (gimbal lock).
Mat3 eulerZYXRateMatrix(double roll, double pitch);

/// Ẏ for the angle rates (α̇, β̇) (Y does not depend on the yaw φ).
Mat3 eulerZYXRateMatrixDot(double roll, double pitch, double roll_rate, double pitch_rate);

/// Y⁻¹ a: the angle rates of the body angular velocity a (or, with a = ω̇ − Ẏ Φ̇, the angle
/// accelerations). Divides by cos β: the caller makes sure |cos β| is not small.
Vec3 eulerZYXRatesFromBody(double roll, double pitch, const Vec3& a);

/// The angle wrapped to (−π, π].
double wrapAngle(double angle);

/// x = A⁺ b, the minimum-norm least-squares solution (Moore–Penrose pseudo-inverse) by a singular
/// value decomposition sized for one problem: no heap allocation after construction. Singular
/// values below relative_tolerance · σ_max count as zero, so a rank-deficient A (four coplanar
/// thrusts without drag torques) gives the solution of smallest norm.
class MinimumNormLeastSquares {
 public:
  MinimumNormLeastSquares(int rows, int cols);

  /// Solves for x (resized to cols on first use) and returns the numerical rank of A (rows×cols).
  int solve(const Eigen::Ref<const MatX>& A, const VecX& b, VecX& x,
            double relative_tolerance = 1e-10);
  /// ‖A x − b‖ of the last solve: the part of b the columns of A cannot produce.
  double residualNorm() const { return residual_norm_; }

 private:
  Eigen::JacobiSVD<MatX> svd_;
  MatX a_;
  VecX projected_;  // Uᵀ b, then Σ⁺ Uᵀ b
  VecX residual_;
  double residual_norm_ = 0.0;
};

/// Checks the options against `known` (checkControllerOptions; "tracked_body" must be one of
/// them) and returns the tracked_body option (empty: the default of TrackingErrors).
std::string trackedBodyOption(const ControllerSettings& settings,
                              const std::vector<std::string>& known);

/// Splits a list option ("a, b c") at commas and blanks.
std::vector<std::string> splitList(const std::string& text);

}  // namespace rbs::baseline
