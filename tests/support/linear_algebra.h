// Eigen's heavier decompositions for the tests, instantiated once, here. Each of them costs 4–24 s
// of compile time in every file that names it (EigenSolver the most, docs/BENCHMARKS.md "Build
// time"); the test files call these instead.
#pragma once

#include <complex>
#include <optional>
#include <vector>

#include "core/math/se3.h"

namespace rbs::test {

/// Sorts complex numbers by real part, then by imaginary part (to compare pole sets).
void sortByRealThenImaginary(std::vector<std::complex<double>>& v);
/// Eigenvalues of a general square matrix, in the order of sortByRealThenImaginary.
std::vector<std::complex<double>> sortedEigenvalues(const MatX& a);
/// Eigenvalues of a symmetric matrix (its lower triangle is read), ascending.
VecX symmetricEigenvalues(const MatX& a);
/// A basis of the null space of a (full-pivoting LU); no columns when a has full column rank.
MatX nullSpaceBasis(const MatX& a);
/// The right singular vectors of a, as columns in the order of decreasing singular value.
MatX rightSingularVectors(const MatX& a);
/// The least-squares solution of a x = b by column-pivoting QR (a with full column rank).
VecX leastSquaresSolution(const MatX& a, const VecX& b);
/// The least-squares solution of a x = b with the least norm (complete orthogonal decomposition),
/// also for rank-deficient a.
VecX minimumNormSolution(const MatX& a, const VecX& b);
/// x with a x = b by full-pivoting LU; false when a is singular (x is then unset).
bool solveIfInvertible(const MatX& a, const VecX& b, VecX& x);

/// The minimizer of ½ (u − u₀)ᵀ H (u − u₀) s.t. A u ≤ c (H SPD) and which rows are active, by
/// enumeration: for every set W of at most p rows, the equality-constrained minimizer (a KKT
/// linear solve); the optimum is the one that is feasible (within 1e-9) with λ_W ≥ 0. An
/// independent check of the QP solvers for m ≲ 15 rows; nullopt when no set qualifies.
struct KktPoint {
  VecX u;
  std::vector<char> active;  ///< per row: in W with λ > 1e-9
};
std::optional<KktPoint> bruteForceQp(const MatX& H, const VecX& u0, const MatX& A, const VecX& c);

}  // namespace rbs::test
