#include "tests/support/linear_algebra.h"

#include <algorithm>

// Eigen's EigenSolver (Hessenberg reduction) trips a GCC 12 -Wmaybe-uninitialized false positive.
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"

#include <Eigen/Eigenvalues>
#include <Eigen/LU>
#include <Eigen/QR>
#include <Eigen/SVD>

namespace rbs::test {

void sortByRealThenImaginary(std::vector<std::complex<double>>& v) {
  std::sort(v.begin(), v.end(), [](const std::complex<double>& x, const std::complex<double>& y) {
    return x.real() != y.real() ? x.real() < y.real() : x.imag() < y.imag();
  });
}

std::vector<std::complex<double>> sortedEigenvalues(const MatX& a) {
  const Eigen::VectorXcd ev = Eigen::EigenSolver<MatX>(a, false).eigenvalues();
  std::vector<std::complex<double>> out(ev.data(), ev.data() + ev.size());
  sortByRealThenImaginary(out);
  return out;
}

VecX symmetricEigenvalues(const MatX& a) {
  return Eigen::SelfAdjointEigenSolver<MatX>(a, Eigen::EigenvaluesOnly).eigenvalues();
}

MatX nullSpaceBasis(const MatX& a) {
  const Eigen::FullPivLU<MatX> lu(a);
  if (lu.rank() == a.cols()) return MatX(a.cols(), 0);
  return lu.kernel();
}

MatX rightSingularVectors(const MatX& a) { return Eigen::JacobiSVD<MatX>(a, Eigen::ComputeFullV).matrixV(); }

VecX leastSquaresSolution(const MatX& a, const VecX& b) { return a.colPivHouseholderQr().solve(b); }

VecX minimumNormSolution(const MatX& a, const VecX& b) { return a.completeOrthogonalDecomposition().solve(b); }

bool solveIfInvertible(const MatX& a, const VecX& b, VecX& x) {
  const Eigen::FullPivLU<MatX> lu(a);
  if (!lu.isInvertible()) return false;
  x = lu.solve(b);
  return true;
}

std::optional<KktPoint> bruteForceQp(const MatX& H, const VecX& u0, const MatX& A, const VecX& c) {
  const int p = static_cast<int>(u0.size()), m = static_cast<int>(c.size());
  for (unsigned mask = 0; mask < (1u << m); ++mask) {
    std::vector<int> W;
    for (int j = 0; j < m; ++j)
      if (mask & (1u << j)) W.push_back(j);
    const int k = static_cast<int>(W.size());
    if (k > p) continue;
    MatX K = MatX::Zero(p + k, p + k);
    VecX rhs(p + k);
    K.topLeftCorner(p, p) = H;
    rhs.head(p) = H * u0;
    for (int a = 0; a < k; ++a) {
      K.block(p + a, 0, 1, p) = A.row(W[a]);
      K.block(0, p + a, p, 1) = A.row(W[a]).transpose();
      rhs(p + a) = c(W[a]);
    }
    VecX sol;
    if (!solveIfInvertible(K, rhs, sol)) continue;
    const VecX u = sol.head(p), lambda = sol.tail(k);
    if ((A * u - c).maxCoeff() > 1e-9) continue;
    if (k > 0 && lambda.minCoeff() < -1e-9) continue;
    KktPoint out{u, std::vector<char>(m, 0)};
    for (int a = 0; a < k; ++a) out.active[W[a]] = lambda(a) > 1e-9;
    return out;
  }
  return std::nullopt;
}

}  // namespace rbs::test
