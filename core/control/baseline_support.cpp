// GCC 12 reports a false "may be used uninitialized" inside Eigen's JacobiSVD (a triangular
// product of its QR preconditioner) when Eigen is included as a non-system header.
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"

#include "core/control/baseline_support.h"

#include <algorithm>
#include <cmath>
#include <numbers>

#include "core/control/registry.h"

namespace rbs::baseline {

Mat3 eulerZYXRateMatrix(double roll, double pitch) {
  const double sa = std::sin(roll), ca = std::cos(roll);
  const double sb = std::sin(pitch), cb = std::cos(pitch);
  Mat3 Y;
  Y << 1, 0, -sb,      //
      0, ca, sa * cb,  //
      0, -sa, ca * cb;
  return Y;
}

Mat3 eulerZYXRateMatrixDot(double roll, double pitch, double roll_rate, double pitch_rate) {
  const double sa = std::sin(roll), ca = std::cos(roll);
  const double sb = std::sin(pitch), cb = std::cos(pitch);
  const double da = roll_rate, db = pitch_rate;
  Mat3 Yd;
  Yd << 0, 0, -cb * db,                          //
      0, -sa * da, ca * cb * da - sa * sb * db,  //
      0, -ca * da, -sa * cb * da - ca * sb * db;
  return Yd;
}

Vec3 eulerZYXRatesFromBody(double roll, double pitch, const Vec3& a) {
  // Y⁻¹ = [1, sα tβ, cα tβ; 0, cα, −sα; 0, sα/cβ, cα/cβ].
  const double sa = std::sin(roll), ca = std::cos(roll);
  const double cb = std::cos(pitch), tb = std::tan(pitch);
  const double yz = sa * a.y() + ca * a.z();
  return Vec3(a.x() + yz * tb, ca * a.y() - sa * a.z(), yz / cb);
}

double wrapAngle(double angle) {
  double wrapped = std::remainder(angle, 2.0 * std::numbers::pi);  // [−π, π]
  if (wrapped <= -std::numbers::pi) wrapped += 2.0 * std::numbers::pi;
  return wrapped;
}

MinimumNormLeastSquares::MinimumNormLeastSquares(int rows, int cols)
    : svd_(rows, cols, Eigen::ComputeThinU | Eigen::ComputeThinV),
      a_(rows, cols),
      projected_(std::min(rows, cols)),
      residual_(rows) {}

int MinimumNormLeastSquares::solve(const Eigen::Ref<const MatX>& A, const VecX& b, VecX& x,
                                   double relative_tolerance) {
  a_ = A;
  svd_.compute(a_, Eigen::ComputeThinU | Eigen::ComputeThinV);
  const auto& sigma = svd_.singularValues();  // descending
  const double tolerance = sigma.size() > 0 ? relative_tolerance * sigma(0) : 0.0;
  // x = V Σ⁺ Uᵀ b
  projected_.noalias() = svd_.matrixU().transpose() * b;
  int rank = 0;
  for (int i = 0; i < projected_.size(); ++i) {
    if (sigma(i) > tolerance && sigma(i) > 0.0) {
      projected_(i) /= sigma(i);
      ++rank;
    } else {
      projected_(i) = 0.0;
    }
  }
  if (x.size() != a_.cols()) x.resize(a_.cols());
  x.noalias() = svd_.matrixV() * projected_;
  residual_.noalias() = a_ * x;
  residual_ -= b;
  residual_norm_ = residual_.norm();
  return rank;
}

std::string trackedBodyOption(const ControllerSettings& settings,
                              const std::vector<std::string>& known) {
  checkControllerOptions(settings, known);
  return controllerOption(settings, "tracked_body", "", {});
}

std::vector<std::string> splitList(const std::string& text) {
  std::vector<std::string> out;
  std::string item;
  for (char c : text + ",") {
    if (c == ',' || c == ' ' || c == '\t') {
      if (!item.empty()) out.push_back(item);
      item.clear();
    } else {
      item += c;
    }
  }
  return out;
}

}  // namespace rbs::baseline
