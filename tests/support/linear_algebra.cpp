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

}  // namespace rbs::test
