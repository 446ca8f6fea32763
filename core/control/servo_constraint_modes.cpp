// GCC (12/13) reports a false -Wmaybe-uninitialized inside Eigen's Hessenberg reduction
// (TriangularMatrixVector.h) when Eigen is included with -I rather than as a system header. The
// pragma must precede every Eigen include, so it comes before this file's own header; this
// translation unit holds only the eigen-decomposition.
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"

#include "core/control/servo_constraint_modes.h"

#include <algorithm>
#include <cmath>
#include <sstream>

#include <Eigen/Eigenvalues>
#include <Eigen/LU>
#include <Eigen/SVD>

namespace rbs {

bool modalConditionRows(const MatX& A, bool stable, MatX& rows,
                        std::vector<std::complex<double>>& eigenvalues, std::string& error) {
  const int n = static_cast<int>(A.rows());
  eigenvalues.clear();
  rows.resize(0, n);
  if (n == 0) return true;
  Eigen::EigenSolver<MatX> es(A);
  if (es.info() != Eigen::Success) {
    error = "eigenvalues of the linearized zero dynamics failed";
    return false;
  }
  const Eigen::VectorXcd lambda = es.eigenvalues();
  eigenvalues.assign(lambda.data(), lambda.data() + n);
  const double scale = std::max(1.0, lambda.cwiseAbs().maxCoeff());
  Eigen::VectorXcd select = Eigen::VectorXcd::Zero(n);
  int count = 0;
  for (int i = 0; i < n; ++i) {
    if (std::abs(lambda[i].real()) < 1e-9 * scale) {
      std::ostringstream m;
      m << "the zero dynamics are not hyperbolic (eigenvalue " << lambda[i]
        << " on the imaginary axis): stable inversion needs damping";
      error = m.str();
      return false;
    }
    if ((lambda[i].real() < 0.0) == stable) {
      select[i] = 1.0;
      ++count;
    }
  }
  rows.resize(count, n);
  if (count == 0) return true;
  // Spectral projector P = V diag(selected) V⁻¹ onto the selected eigenspace (real for a real A,
  // conjugate pairs being selected together). Its row space is spanned by the selected left
  // eigenvectors (rows of V⁻¹), so P δ = 0 ⇔ those modal components of δ vanish; the SVD turns it
  // into `count` orthonormal rows.
  const Eigen::MatrixXcd V = es.eigenvectors();
  const Eigen::MatrixXcd Vinv = V.fullPivLu().inverse();
  const MatX P = (V * select.asDiagonal() * Vinv).real();
  Eigen::JacobiSVD<MatX> svd(P, Eigen::ComputeFullV);
  rows = svd.matrixV().leftCols(count).transpose();
  return true;
}

}  // namespace rbs

#pragma GCC diagnostic pop
