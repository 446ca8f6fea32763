// Input allocation (core/control/allocation.h, konz-control §8): exact (4.51), M̄-weighted least
// squares (4.53), matching residual (4.54)/(4.57), and the box QP of (4.63) (§12.5 item 11).
// Every reference value is computed along a different path than the allocator's (LU instead of
// Cholesky, QR of the weighted system, an explicit B⊥, brute-force grids, closed forms).
#include <gtest/gtest.h>

// Eigen decompositions used for the independent solutions trip a GCC 12 -Wmaybe-uninitialized
// false positive.
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"

#include <Eigen/Cholesky>
#include <Eigen/LU>
#include <algorithm>
#include <cmath>
#include <limits>
#include <random>
#include <stdexcept>
#include <string>
#include <vector>

#include "core/control/allocation.h"
#include "tests/support/linear_algebra.h"

namespace rbs {
namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

// ---- random data --------------------------------------------------------------------------------

double uniform(std::mt19937& rng, double lo, double hi) {
  return std::uniform_real_distribution<double>(lo, hi)(rng);
}

MatX randomMatrix(int rows, int cols, std::mt19937& rng) {
  MatX a(rows, cols);
  for (int j = 0; j < cols; ++j)
    for (int i = 0; i < rows; ++i) a(i, j) = uniform(rng, -1.0, 1.0);
  return a;
}

VecX randomVector(int n, std::mt19937& rng, double scale) {
  return scale * randomMatrix(n, 1, rng).col(0);
}

/// Random orthogonal matrix: modified Gram–Schmidt, applied twice, on a random matrix. (Eigen's
/// householderQ() trips a GCC 12 -Wmaybe-uninitialized false positive inside Eigen.)
MatX randomOrthogonal(int n, std::mt19937& rng) {
  MatX q = randomMatrix(n, n, rng);
  for (int pass = 0; pass < 2; ++pass) {
    for (int j = 0; j < n; ++j) {
      for (int k = 0; k < j; ++k) q.col(j) -= q.col(k).dot(q.col(j)) * q.col(k);
      q.col(j).normalize();
    }
  }
  return q;
}

/// Q diag(s) Qᵀ with eigenvalues s in [lo, hi]: SPD with condition number ≤ hi/lo.
MatX randomSpd(int n, std::mt19937& rng, double lo = 0.5, double hi = 5.0) {
  const MatX q = randomOrthogonal(n, rng);
  VecX s(n);
  for (int i = 0; i < n; ++i) s(i) = uniform(rng, lo, hi);
  return q * s.asDiagonal() * q.transpose();
}

/// rows×cols (rows ≥ cols) with singular values in [lo, hi]: full column rank, controlled
/// conditioning.
MatX randomFullRank(int rows, int cols, std::mt19937& rng, double lo = 0.5, double hi = 2.0) {
  const MatX u = randomOrthogonal(rows, rng).leftCols(cols);
  const MatX v = randomOrthogonal(cols, rng);
  VecX s(cols);
  for (int i = 0; i < cols; ++i) s(i) = uniform(rng, lo, hi);
  return u * s.asDiagonal() * v.transpose();
}

/// Plant M ξ̇ + b = B u and template M̄ ξ̇ + b̄ = 0.
struct Problem {
  MatX M, B, Mbar;
  VecX b, bbar;
  int n() const { return static_cast<int>(M.rows()); }
  int p() const { return static_cast<int>(B.cols()); }
};

Problem randomProblem(int n, int p, std::mt19937& rng) {
  Problem q;
  q.M = randomSpd(n, rng);
  q.B = randomFullRank(n, p, rng);
  q.Mbar = randomSpd(n, rng);
  q.b = randomVector(n, rng, 3.0);
  q.bbar = randomVector(n, rng, 3.0);
  return q;
}

VecX noBound(int p, double sign) {
  return VecX::Constant(p, sign * kInf);
}

/// Runs a fresh allocator, expects success and evaluates the diagnostics.
AllocationResult allocate(const Problem& q, AllocationMode mode, const VecX& lower,
                          const VecX& upper, bool constant_matrices = false) {
  Allocator allocator(q.n(), q.p(), constant_matrices);
  AllocationResult out;
  EXPECT_TRUE(allocator.solve(q.M, q.b, q.B, q.Mbar, q.bbar, lower, upper, mode, out));
  if (out.u.size() == q.p()) allocator.evaluateDeviations(out);
  return out;
}

AllocationResult allocate(const Problem& q, AllocationMode mode) {
  return allocate(q, mode, noBound(q.p(), -1.0), noBound(q.p(), 1.0));
}

// ---- independent references (LU solves, never the allocator's Cholesky path) --------------------

/// Plant acceleration M⁻¹(B u − b).
VecX plantAcceleration(const Problem& q, const VecX& u) {
  return q.M.partialPivLu().solve(q.B * u - q.b);
}

/// Template acceleration a_des = −M̄⁻¹ b̄.
VecX templateAcceleration(const Problem& q) {
  return -q.Mbar.partialPivLu().solve(q.bbar);
}

/// Gauss function Ḡ(u) = ½ ‖M⁻¹(B u − b) − a_des‖²_M̄ (4.52).
double gaussFunction(const Problem& q, const VecX& u) {
  const VecX r = plantAcceleration(q, u) - templateAcceleration(q);
  return 0.5 * r.dot(q.Mbar * r);
}

/// H = Bᵀ M⁻¹ M̄ M⁻¹ B (4.53).
MatX hessian(const Problem& q) {
  const MatX minv_b = q.M.partialPivLu().solve(q.B);
  return minv_b.transpose() * q.Mbar * minv_b;
}

/// Ḡ₀ = ½ λᵀ S λ with λ = (B⊥)ᵀ(M M̄⁻¹ b̄ − b), S = ((M B⊥)ᵀ M̄⁻¹ M B⊥)⁻¹ (4.57).
double lambdaSLambda(const Problem& q, const MatX& b_perp) {
  const VecX lambda = b_perp.transpose() * (q.M * q.Mbar.partialPivLu().solve(q.bbar) - q.b);
  const MatX m_b_perp = q.M * b_perp;
  const MatX s_inv = m_b_perp.transpose() * q.Mbar.partialPivLu().solve(m_b_perp);
  return 0.5 * lambda.dot(s_inv.partialPivLu().solve(lambda));
}

// ---- Exact --------------------------------------------------------------------------------------

TEST(Allocation, ExactRealizesTheTemplate) {
  // B singular values in [0.5, 2], M, M̄ eigenvalues in [0.5, 5]: the LU solve has a backward
  // error of a few ε·n, so the realized acceleration misses a_des by ≲ 1e-14 of the accelerations
  // being balanced; 1e-12 leaves margin for the reference's own LU solves.
  constexpr double kRealizationTolerance = 1e-12;
  std::mt19937 rng(11);
  for (int trial = 0; trial < 200; ++trial) {
    const int n = 1 + trial % 8;
    const Problem q = randomProblem(n, n, rng);
    const AllocationResult out = allocate(q, AllocationMode::Exact);
    const VecX a_des = templateAcceleration(q);
    const double scale = a_des.norm() + q.M.partialPivLu().solve(q.b).norm();
    SCOPED_TRACE("trial " + std::to_string(trial));
    EXPECT_LE((plantAcceleration(q, out.u) - a_des).norm(), kRealizationTolerance * scale);
    // Ḡ₀ = 0 when fully actuated (4.54): only rounding, of order (ε·scale)²·‖M̄‖.
    EXPECT_LE(out.matching_residual, 1e-24 * scale * scale * q.Mbar.norm());
    EXPECT_EQ(out.template_deviation, out.matching_residual);
    EXPECT_EQ(out.u, out.u_unconstrained);
    EXPECT_EQ(out.saturated, std::vector<signed char>(n, 0));
    EXPECT_EQ(out.qp_iterations, 0);
  }
}

// The plant's acceleration from the allocator's factors (the closed loop's shared rates) is
// M⁻¹(B u − b) for any u, and refused where the forward dynamics would stop with
// SingularMassMatrix: an M that passes Eigen's Cholesky with a pivot lost to rounding.
TEST(Allocation, PlantAccelerationIsTheDynamicsAndRefusesASingularM) {
  const MatX B = (MatX(2, 2) << 2, 0.5, 0, 1).finished();
  const MatX Mbar = MatX::Identity(2, 2);
  const VecX b = (VecX(2) << 0.3, -0.7).finished(), bbar = (VecX(2) << 1, 2).finished();
  const VecX none;
  Allocator allocator(2, 2);
  AllocationResult out;
  const MatX M = (MatX(2, 2) << 2, 0.4, 0.4, 1).finished();
  ASSERT_TRUE(allocator.solve(M, b, B, Mbar, bbar, none, none, AllocationMode::Exact, out));
  const VecX u = (VecX(2) << 0.9, -1.3).finished();
  VecX xidot(2);
  ASSERT_TRUE(allocator.plantAcceleration(b, u, xidot));
  EXPECT_LE((xidot - M.llt().solve(B * u - b)).norm(), 1e-15);
  const MatX singular = (MatX(2, 2) << 1, 1, 1, 1 + 1e-15).finished();  // L₂₂² = 1e-15 M₂₂
  ASSERT_TRUE(singular.llt().info() == Eigen::Success);
  ASSERT_TRUE(allocator.solve(singular, b, B, Mbar, bbar, none, none, AllocationMode::Exact, out));
  EXPECT_FALSE(allocator.plantAcceleration(b, u, xidot));
}

TEST(Allocation, ExactRejectsNonSquareSingularAndIndefiniteData) {
  std::mt19937 rng(12);
  const Problem q = randomProblem(4, 4, rng);
  AllocationResult out;
  const VecX lo = noBound(4, -1.0), hi = noBound(4, 1.0);

  Allocator rect(4, 3);  // p ≠ n
  const Problem r = randomProblem(4, 3, rng);
  EXPECT_FALSE(rect.solve(r.M, r.b, r.B, r.Mbar, r.bbar, lo.head(3), hi.head(3),
                          AllocationMode::Exact, out));

  Allocator allocator(4, 4);
  MatX singular_b = q.B;
  singular_b.col(2) = 2.0 * singular_b.col(0) - singular_b.col(1);
  EXPECT_FALSE(
      allocator.solve(q.M, q.b, singular_b, q.Mbar, q.bbar, lo, hi, AllocationMode::Exact, out));
  MatX indefinite = q.M;
  indefinite(3, 3) = -1.0;  // a negative pivot: not positive definite
  EXPECT_FALSE(
      allocator.solve(indefinite, q.b, q.B, q.Mbar, q.bbar, lo, hi, AllocationMode::Exact, out));
  EXPECT_FALSE(allocator.solve(q.M, q.b, q.B, -q.Mbar, q.bbar, lo, hi, AllocationMode::Exact, out));
  // The same allocator still works afterwards.
  EXPECT_TRUE(allocator.solve(q.M, q.b, q.B, q.Mbar, q.bbar, lo, hi, AllocationMode::Exact, out));
}

// ---- Least squares ------------------------------------------------------------------------------

TEST(Allocation, LeastSquaresEqualsExactWhenFullyActuated) {
  // cond(H) = cond(L̄ᵀM⁻¹B)² ≤ (√10·10·4)² ≈ 1.6e4, so the normal equations lose ~4 digits to
  // the Exact path's LU: 1e-10 relative is comfortably above that.
  constexpr double kAgreement = 1e-10;
  std::mt19937 rng(13);
  for (int trial = 0; trial < 100; ++trial) {
    const int n = 1 + trial % 8;
    const Problem q = randomProblem(n, n, rng);
    const AllocationResult exact = allocate(q, AllocationMode::Exact);
    const AllocationResult ls = allocate(q, AllocationMode::LeastSquares);
    SCOPED_TRACE("trial " + std::to_string(trial));
    EXPECT_LE((ls.u - exact.u).norm(), kAgreement * exact.u.norm());
    const double scale = templateAcceleration(q).norm() + q.M.partialPivLu().solve(q.b).norm();
    EXPECT_LE(ls.matching_residual, 1e-20 * scale * scale * q.Mbar.norm());  // rounding only
  }
}

TEST(Allocation, LeastSquaresMinimizesTheGaussFunctionWhenUnderactuated) {
  // The QR reference solves the weighted system directly (cond ≤ 130), the allocator its normal
  // equations (cond² ≤ 1.6e4): they agree to ≲ 1e-12; 1e-9 relative is a safe bound.
  constexpr double kAgreement = 1e-9;
  // Ḡ is evaluated with relative rounding ~1e-15; ½ δᵀHδ ≥ 1e-8 for the perturbations below.
  constexpr double kGaussRounding = 1e-13;
  std::mt19937 rng(14);
  int perturbations = 0;
  for (int trial = 0; trial < 150; ++trial) {
    const int n = 2 + trial % 7;
    const int p = 1 + static_cast<int>(rng() % static_cast<unsigned>(n - 1));
    const Problem q = randomProblem(n, p, rng);
    const AllocationResult out = allocate(q, AllocationMode::LeastSquares);
    SCOPED_TRACE("trial " + std::to_string(trial) + ", n = " + std::to_string(n) +
                 ", p = " + std::to_string(p));

    // Reference: Ḡ(u) = ½ ‖W u − y‖² with W = L̄ᵀ M⁻¹ B, y = L̄ᵀ(M⁻¹ b + a_des), M̄ = L̄ L̄ᵀ.
    const MatX lbar_t = q.Mbar.llt().matrixU();
    const MatX w = lbar_t * q.M.partialPivLu().solve(q.B);
    const VecX y = lbar_t * (q.M.partialPivLu().solve(q.b) + templateAcceleration(q));
    const VecX u_ref = test::leastSquaresSolution(w, y);
    EXPECT_LE((out.u - u_ref).norm(), kAgreement * (1.0 + u_ref.norm()));
    EXPECT_EQ(out.u, out.u_unconstrained);
    EXPECT_EQ(out.template_deviation, out.matching_residual);

    // u₀ is a minimizer: no perturbation decreases Ḡ, and Ḡ = Ḡ₀ + ½ ‖u − u₀‖²_H (4.54).
    const double g0 = gaussFunction(q, out.u);
    EXPECT_NEAR(out.matching_residual, g0, kGaussRounding * (1.0 + g0));
    const MatX h = hessian(q);
    for (int k = 0; k < 20; ++k) {
      const VecX delta = randomVector(p, rng, 1e-2 * (1.0 + out.u.norm()));
      const double g = gaussFunction(q, out.u + delta);
      EXPECT_GE(g, g0 - kGaussRounding * (1.0 + g0));
      EXPECT_NEAR(g - g0, 0.5 * delta.dot(h * delta), 1e-9 * (1.0 + g0));
      ++perturbations;
    }
  }
  EXPECT_EQ(perturbations, 150 * 20);
}

TEST(Allocation, MatchingResidualEqualsLambdaSLambdaForAnyComplementBasis) {
  // Ḡ₀ is O(1) here; both sides are computed with relative rounding ≲ 1e-13 (cond ≤ 1.6e4).
  constexpr double kRelative = 1e-9;
  std::mt19937 rng(15);
  for (int trial = 0; trial < 120; ++trial) {
    const int n = 2 + trial % 7;
    const int p = 1 + static_cast<int>(rng() % static_cast<unsigned>(n - 1));
    const Problem q = randomProblem(n, p, rng);
    const AllocationResult out = allocate(q, AllocationMode::LeastSquares);
    SCOPED_TRACE("trial " + std::to_string(trial));

    const MatX b_perp_lu = test::nullSpaceBasis(q.B.transpose());
    ASSERT_EQ(b_perp_lu.cols(), n - p);
    ASSERT_LE((q.B.transpose() * b_perp_lu).norm(), 1e-12 * b_perp_lu.norm());
    const double reference = lambdaSLambda(q, b_perp_lu);
    ASSERT_GT(reference, 1e-6);  // generic data violate the matching condition: not vacuous
    EXPECT_NEAR(out.matching_residual, reference, kRelative * reference);

    // Another basis of the same complement: the SVD's, and B⊥T for random invertible T.
    // SVD of Bᵀ padded to n×n; the right singular vectors
    // of the n − p zero singular values span null(Bᵀ).
    MatX bt_square = MatX::Zero(n, n);
    bt_square.topRows(p) = q.B.transpose();
    const MatX b_perp_svd = test::rightSingularVectors(bt_square).rightCols(n - p);
    ASSERT_LE((q.B.transpose() * b_perp_svd).norm(), 1e-12);
    EXPECT_NEAR(lambdaSLambda(q, b_perp_svd), reference, kRelative * reference);
    const MatX t = randomFullRank(n - p, n - p, rng, 0.2, 5.0);
    EXPECT_NEAR(lambdaSLambda(q, b_perp_lu * t), reference, kRelative * reference);
  }
}

TEST(Allocation, MatchingResidualVanishesWhenTheTemplateIsFeasible) {
  std::mt19937 rng(16);
  for (int trial = 0; trial < 100; ++trial) {
    const int n = 2 + trial % 7;
    const int p = 1 + static_cast<int>(rng() % static_cast<unsigned>(n - 1));
    Problem q = randomProblem(n, p, rng);
    // b̄ such that −M̄⁻¹ b̄ = M⁻¹(B v − b): the template asks for an acceleration the plant has.
    const VecX v = randomVector(p, rng, 2.0);
    const VecX a = plantAcceleration(q, v);
    q.bbar = -q.Mbar * a;
    const AllocationResult out = allocate(q, AllocationMode::LeastSquares);
    SCOPED_TRACE("trial " + std::to_string(trial));
    // u₀ = v up to the normal equations' conditioning (≤ 1.6e4·ε).
    EXPECT_LE((out.u - v).norm(), 1e-10 * (1.0 + v.norm()));
    // Only rounding remains: accelerations off by ~1e-12·|a| at most, squared.
    const double scale = a.squaredNorm() + q.M.partialPivLu().solve(q.b).squaredNorm();
    EXPECT_LE(out.matching_residual, 1e-22 * scale * q.Mbar.norm());
    // Disturbing b̄ in a direction the inputs cannot follow makes it positive again.
    const MatX b_perp = test::nullSpaceBasis(q.B.transpose());
    Problem disturbed = q;
    disturbed.bbar += q.Mbar * q.M.partialPivLu().solve(b_perp.col(0));
    EXPECT_GT(allocate(disturbed, AllocationMode::LeastSquares).matching_residual, 1e-6);
  }
}

TEST(Allocation, RankDeficientBGivesTheLeastNormMinimizer) {
  // Redundant inputs (e.g. four thrusts making only F_z, τ_x, τ_y): every minimizer of Ḡ realizes
  // the same acceleration; the allocator returns the one of least norm, W⁺ L̄ᵀ ã.
  std::mt19937 rng(19);
  const Problem q = randomProblem(5, 3, rng);
  MatX dependent = q.B;
  dependent.col(2) = 0.5 * dependent.col(0) - 3.0 * dependent.col(1);  // rank 2
  const Eigen::LLT<MatX> mbar(q.Mbar);
  const MatX minv_b = q.M.llt().solve(dependent);
  const MatX W = mbar.matrixU() * minv_b;  // Ḡ(u) = ½ ‖W u − L̄ᵀ ã‖²
  const VecX a_tilde = q.M.llt().solve(q.b) - q.Mbar.llt().solve(q.bbar);
  const VecX target = mbar.matrixU() * a_tilde;
  const VecX least_norm = test::minimumNormSolution(W, target);
  Allocator allocator(5, 3);
  AllocationResult out;
  const VecX lo = noBound(3, -1.0), hi = noBound(3, 1.0);
  ASSERT_TRUE(allocator.solve(q.M, q.b, dependent, q.Mbar, q.bbar, lo, hi, AllocationMode::LeastSquares, out));
  // Regularization bias ~ 1e-9 relative (kRegularization) times the conditioning of W.
  EXPECT_LT((out.u - least_norm).norm(), 1e-6 * (1.0 + least_norm.norm()));
  MatX zero_column = q.B;
  zero_column.col(1).setZero();
  ASSERT_TRUE(allocator.solve(q.M, q.b, zero_column, q.Mbar, q.bbar, lo, hi, AllocationMode::LeastSquares, out));
  EXPECT_NEAR(out.u[1], 0.0, 1e-9);  // an input without effect stays at zero
}

TEST(Allocation, LeastSquaresRejectsIndefiniteInertiaAndNonFiniteData) {
  std::mt19937 rng(17);
  const Problem q = randomProblem(5, 3, rng);
  const VecX lo = noBound(3, -1.0), hi = noBound(3, 1.0);
  Allocator allocator(5, 3);
  AllocationResult out;
  for (AllocationMode mode : {AllocationMode::LeastSquares, AllocationMode::Constrained}) {
    EXPECT_FALSE(allocator.solve(-q.M, q.b, q.B, q.Mbar, q.bbar, lo, hi, mode, out));
    MatX indefinite = q.Mbar;
    indefinite(0, 0) = -indefinite(0, 0);
    EXPECT_FALSE(allocator.solve(q.M, q.b, q.B, indefinite, q.bbar, lo, hi, mode, out));
    VecX nan_b = q.b;
    nan_b(1) = std::nan("");
    EXPECT_FALSE(allocator.solve(q.M, nan_b, q.B, q.Mbar, q.bbar, lo, hi, mode, out));
    EXPECT_TRUE(allocator.solve(q.M, q.b, q.B, q.Mbar, q.bbar, lo, hi, mode, out));
  }
}

TEST(Allocation, WrongSizesAndInvalidBoundsThrow) {
  std::mt19937 rng(18);
  const Problem q = randomProblem(4, 2, rng);
  const VecX lo = noBound(2, -1.0), hi = noBound(2, 1.0);
  AllocationResult out;
  Allocator small(3, 2);  // n larger than constructed
  EXPECT_THROW(
      small.solve(q.M, q.b, q.B, q.Mbar, q.bbar, lo, hi, AllocationMode::LeastSquares, out),
      std::invalid_argument);
  Allocator narrow(4, 1);  // p larger than constructed
  EXPECT_THROW(
      narrow.solve(q.M, q.b, q.B, q.Mbar, q.bbar, lo, hi, AllocationMode::LeastSquares, out),
      std::invalid_argument);
  Allocator allocator(4, 2);
  EXPECT_THROW(allocator.solve(q.M, q.b.head(3), q.B, q.Mbar, q.bbar, lo, hi,
                               AllocationMode::LeastSquares, out),
               std::invalid_argument);
  EXPECT_THROW(allocator.solve(q.M, q.b, q.B, q.Mbar, q.bbar, lo.head(1), hi,
                               AllocationMode::Constrained, out),
               std::invalid_argument);
  const VecX crossed_lo = VecX::Constant(2, 1.0), crossed_hi = VecX::Constant(2, -1.0);
  EXPECT_THROW(allocator.solve(q.M, q.b, q.B, q.Mbar, q.bbar, crossed_lo, crossed_hi,
                               AllocationMode::Constrained, out),
               std::invalid_argument);
  EXPECT_THROW(Allocator(3, 0), std::invalid_argument);  // no inputs: nothing to allocate
  // Bounds are not read outside Constrained mode.
  EXPECT_TRUE(allocator.solve(q.M, q.b, q.B, q.Mbar, q.bbar, VecX(), VecX(),
                              AllocationMode::LeastSquares, out));
}

TEST(Allocation, ReusedAllocatorMatchesAFreshOneBitForBit) {
  // Both solution paths: triangular solves, and explicit inverses for constant matrices.
  for (bool constant : {false, true}) {
    std::mt19937 rng(19);
    Allocator shared(6, 4, constant);  // also used for smaller problems
    AllocationResult out;
    for (int trial = 0; trial < 60; ++trial) {
      const int n = 2 + trial % 5;
      const int p = std::min(n, 1 + trial % 4);
      const Problem q = randomProblem(n, p, rng);
      const VecX lo = VecX::Constant(p, -0.5), hi = VecX::Constant(p, 0.5);
      const AllocationMode mode = p == n && trial % 3 == 0 ? AllocationMode::Exact
                                  : trial % 2 == 0         ? AllocationMode::Constrained
                                                           : AllocationMode::LeastSquares;
      SCOPED_TRACE("trial " + std::to_string(trial));
      // The allocator keeps the factorizations of M, B and M̄ while they are unchanged: a second
      // problem with new b, b̄ reuses them, then each matrix in turn changes and must refactorize.
      std::vector<Problem> sequence(5, q);
      sequence[1].b = randomVector(n, rng, 3.0);
      sequence[1].bbar = randomVector(n, rng, 3.0);
      for (int k = 2; k < 5; ++k) sequence[k] = sequence[k - 1];
      sequence[2].M += MatX::Identity(n, n);
      sequence[3].Mbar *= 1.5;
      sequence[4].B(0, 0) += 0.25;
      for (const Problem& step : sequence) {
        ASSERT_TRUE(shared.solve(step.M, step.b, step.B, step.Mbar, step.bbar, lo, hi, mode, out));
        shared.evaluateDeviations(out);
        const AllocationResult fresh = allocate(step, mode, lo, hi, constant);
        EXPECT_EQ(out.u, fresh.u);
        EXPECT_EQ(out.u_unconstrained, fresh.u_unconstrained);
        EXPECT_EQ(out.matching_residual, fresh.matching_residual);
        EXPECT_EQ(out.template_deviation, fresh.template_deviation);
        EXPECT_EQ(out.saturated, fresh.saturated);
        EXPECT_EQ(out.qp_iterations, fresh.qp_iterations);
      }
    }
  }
}

// ---- Box QP -------------------------------------------------------------------------------------

struct BoxProblem {
  MatX H;
  VecX u0, lower, upper;
};

double objective(const BoxProblem& q, const VecX& u) {
  const VecX d = u - q.u0;
  return 0.5 * d.dot(q.H * d);
}

/// H with eigenvalues spanning up to 3 decades and an overall scale in [1e-2, 1e2]; u₀ mostly
/// outside bounds of every kind: finite box, one-sided, none, fixed (lower = upper).
BoxProblem randomBoxProblem(int p, std::mt19937& rng) {
  BoxProblem q;
  q.H = std::pow(10.0, uniform(rng, -2.0, 2.0)) *
        randomSpd(p, rng, std::pow(10.0, -uniform(rng, 0.0, 3.0)), 1.0);
  q.u0 = randomVector(p, rng, 4.0);
  q.lower.resize(p);
  q.upper.resize(p);
  for (int i = 0; i < p; ++i) {
    const double l = uniform(rng, -2.0, 1.0), width = uniform(rng, 0.1, 2.0);
    const unsigned kind = rng() % 7;
    q.lower(i) = kind == 4 || kind == 5 ? -kInf : l;
    q.upper(i) = kind <= 2 ? l + width : kind == 3 || kind == 5 ? kInf : l;  // 6: fixed
  }
  return q;
}

/// Feasibility, flags consistent with u, and the KKT conditions of the box QP with the gradient
/// g = H (u − u₀): g_i = 0 free, g_i ≥ 0 on a lower bound, g_i ≤ 0 on an upper bound.
void expectOptimal(const BoxProblem& q, const VecX& u, const std::vector<signed char>& active) {
  // g is computed from u, u₀ with rounding ~p·ε·‖H‖(‖u‖ + ‖u₀‖), amplified by cond(H_FF) ≤ 1e3
  // in the solve: 1e-9 of that scale.
  constexpr double kKktTolerance = 1e-9;
  const int p = static_cast<int>(u.size());
  ASSERT_EQ(static_cast<int>(active.size()), p);
  const VecX g = q.H * (u - q.u0);
  const double tolerance = kKktTolerance * q.H.cwiseAbs().maxCoeff() *
                           (u.lpNorm<Eigen::Infinity>() + q.u0.lpNorm<Eigen::Infinity>());
  for (int i = 0; i < p; ++i) {
    SCOPED_TRACE("input " + std::to_string(i));
    EXPECT_LE(q.lower(i), u(i));
    EXPECT_LE(u(i), q.upper(i));
    if (active[i] == 0) {
      EXPECT_LE(std::abs(g(i)), tolerance);
    } else if (active[i] < 0) {
      EXPECT_EQ(u(i), q.lower(i));
      EXPECT_GE(g(i), -tolerance);
    } else {
      EXPECT_EQ(u(i), q.upper(i));
      EXPECT_LE(g(i), tolerance);
    }
  }
}

TEST(BoxQp, FeasibleU0IsReturnedExactly) {
  std::mt19937 rng(21);
  for (int trial = 0; trial < 200; ++trial) {
    const int p = 1 + trial % 8;
    BoxProblem q = randomBoxProblem(p, rng);
    for (int i = 0; i < p; ++i) {  // move u₀ into the box, sometimes exactly onto a bound
      const int where = static_cast<int>(rng() % 4);
      if (where == 0 && std::isfinite(q.lower(i))) {
        q.u0(i) = q.lower(i);
      } else if (where == 1 && std::isfinite(q.upper(i))) {
        q.u0(i) = q.upper(i);
      } else {
        q.u0(i) = std::clamp(q.u0(i), q.lower(i), q.upper(i));
      }
    }
    VecX u;
    std::vector<signed char> active(3, 7);  // stale content must be replaced
    EXPECT_EQ(solveBoxQp(q.H, q.u0, q.lower, q.upper, u, active), 0);
    for (int i = 0; i < p; ++i) EXPECT_EQ(u(i), q.u0(i));  // bitwise, not approximately
    EXPECT_EQ(active, std::vector<signed char>(p, 0));
  }
}

TEST(BoxQp, RandomCasesAreFeasibleOptimalAndDeterministic) {
  std::mt19937 rng(22);
  int saturated = 0, released = 0;
  for (int trial = 0; trial < 800; ++trial) {
    const int p = 1 + trial % 8;
    const BoxProblem q = randomBoxProblem(p, rng);
    SCOPED_TRACE("trial " + std::to_string(trial) + ", p = " + std::to_string(p));
    VecX u;
    std::vector<signed char> active;
    const int iterations = solveBoxQp(q.H, q.u0, q.lower, q.upper, u, active);
    ASSERT_GE(iterations, 0);
    expectOptimal(q, u, active);
    // A second run gives the same bits.
    VecX again;
    std::vector<signed char> active_again;
    EXPECT_EQ(solveBoxQp(q.H, q.u0, q.lower, q.upper, again, active_again), iterations);
    EXPECT_EQ(again, u);
    EXPECT_EQ(active_again, active);
    for (int i = 0; i < p; ++i) {
      saturated += active[i] != 0;
      // A component whose own bound u₀ violates but that ends free: the coupling in H let it go.
      released += active[i] == 0 && (q.u0(i) < q.lower(i) || q.u0(i) > q.upper(i));
    }
  }
  EXPECT_GT(saturated, 500);  // the cases exercise the bounds, not only the interior
  EXPECT_GT(released, 20);    // and the multiplier test that drops bounds
}

TEST(BoxQp, MoreInputsThanTheStackWorkspace) {
  std::mt19937 rng(23);
  for (int trial = 0; trial < 40; ++trial) {
    const BoxProblem q = randomBoxProblem(13 + trial % 8, rng);
    VecX u;
    std::vector<signed char> active;
    ASSERT_GE(solveBoxQp(q.H, q.u0, q.lower, q.upper, u, active, 400), 0);
    expectOptimal(q, u, active);
  }
}

TEST(BoxQp, MatchesBruteForceOnAGridForOneAndTwoInputs) {
  std::mt19937 rng(24);
  for (int trial = 0; trial < 160; ++trial) {
    const int p = 1 + trial % 2;
    BoxProblem q;
    q.H = randomSpd(p, rng, 0.05, 2.0);
    q.u0 = randomVector(p, rng, 3.0);
    q.lower.resize(p);
    q.upper.resize(p);
    for (int i = 0; i < p; ++i) {
      q.lower(i) = uniform(rng, -2.0, 0.5);
      q.upper(i) = q.lower(i) + uniform(rng, 0.2, 2.5);
    }
    VecX u;
    std::vector<signed char> active;
    ASSERT_GE(solveBoxQp(q.H, q.u0, q.lower, q.upper, u, active), 0);
    const double f = objective(q, u);

    const int cells = p == 1 ? 4000 : 400;
    const VecX h = (q.upper - q.lower) / cells;
    double best = kInf;
    VecX best_u(p), v(p);
    for (int i = 0; i <= cells; ++i) {
      for (int j = 0; j <= (p == 2 ? cells : 0); ++j) {
        v(0) = i == cells ? q.upper(0) : q.lower(0) + i * h(0);
        if (p == 2) v(1) = j == cells ? q.upper(1) : q.lower(1) + j * h(1);
        const double fv = objective(q, v);
        if (fv < best) {
          best = fv;
          best_u = v;
        }
      }
    }
    SCOPED_TRACE("trial " + std::to_string(trial) + ", p = " + std::to_string(p));
    // Objective values are O(10); rounding in them is ≲ 1e-14 relative.
    const double rounding = 1e-12 * (1.0 + best);
    // The optimum is at least as good as every feasible grid point ...
    EXPECT_LE(f, best + rounding);
    // ... and some grid point lies within h/2 per coordinate of it, worse by at most
    // g·δ + ½ δᵀHδ with |δ_i| ≤ h_i/2 (g = H(u − u₀) at the optimum).
    const VecX g = q.H * (u - q.u0);
    const double resolution = g.cwiseAbs().dot(h / 2) + 0.5 * q.H.norm() * (h / 2).squaredNorm();
    EXPECT_LE(best - f, resolution + rounding);
    // First-order optimality on the box gives f(v) − f(u) ≥ ½ ‖v − u‖²_H for feasible v: the
    // grid's best point is close to u in the H-norm.
    const VecX d = best_u - u;
    EXPECT_LE(0.5 * d.dot(q.H * d), best - f + rounding);
  }
}

TEST(BoxQp, EqualBoundsFixTheComponent) {
  std::mt19937 rng(25);
  for (int trial = 0; trial < 100; ++trial) {
    BoxProblem q;
    q.H = randomSpd(4, rng, 0.1, 3.0);
    q.u0 = randomVector(4, rng, 4.0);
    q.lower = VecX::Constant(4, -1.0);
    q.upper = VecX::Constant(4, 1.0);
    q.lower(1) = q.upper(1) = 0.3;
    q.lower(3) = q.upper(3) = -0.7;
    if (trial % 5 == 0) q.u0(1) = 0.3;  // u₀ already on the fixed value
    VecX u;
    std::vector<signed char> active;
    ASSERT_GE(solveBoxQp(q.H, q.u0, q.lower, q.upper, u, active), 0);
    EXPECT_EQ(u(1), 0.3);
    EXPECT_EQ(u(3), -0.7);
    expectOptimal(q, u, active);
  }
  // Every input fixed.
  BoxProblem q;
  q.H = randomSpd(3, rng);
  q.u0 = VecX::Constant(3, 5.0);
  q.lower = q.upper = VecX::LinSpaced(3, -1.0, 1.0);
  VecX u;
  std::vector<signed char> active;
  ASSERT_GE(solveBoxQp(q.H, q.u0, q.lower, q.upper, u, active), 0);
  EXPECT_EQ(u, q.lower);
  expectOptimal(q, u, active);
}

TEST(BoxQp, OneSidedAndInfiniteBoundsWithClosedForms) {
  // H couples the inputs, so the unbounded input moves too (H decides who yields, §8.4):
  // u₁ on its bound, then ∂/∂u₂ = H₂₁(u₁ − u₀₁) + H₂₂(u₂ − u₀₂) = 0.
  constexpr double kClosedForm = 1e-14;  // a 2×2 solve on O(1) numbers
  MatX h(2, 2);
  h << 2.0, 1.0, 1.0, 2.0;
  VecX u;
  std::vector<signed char> active;

  VecX u0(2), lower(2), upper(2);
  u0 << 3.0, 3.0;
  lower << -kInf, -kInf;
  upper << 1.0, kInf;
  ASSERT_GE(solveBoxQp(h, u0, lower, upper, u, active), 1);
  EXPECT_EQ(u(0), 1.0);
  EXPECT_NEAR(u(1), 3.0 - (1.0 - 3.0) / 2.0, kClosedForm);  // = 4
  EXPECT_EQ(active, (std::vector<signed char>{1, 0}));

  u0 << -3.0, 0.0;
  lower << 2.0, -kInf;
  upper << kInf, kInf;
  ASSERT_GE(solveBoxQp(h, u0, lower, upper, u, active), 1);
  EXPECT_EQ(u(0), 2.0);
  EXPECT_NEAR(u(1), 0.0 - (2.0 + 3.0) / 2.0, kClosedForm);  // = −2.5
  EXPECT_EQ(active, (std::vector<signed char>{-1, 0}));

  // No finite bound at all: u₀.
  lower << -kInf, -kInf;
  EXPECT_EQ(solveBoxQp(h, u0, lower, upper, u, active), 0);
  EXPECT_EQ(u, u0);
  EXPECT_EQ(active, (std::vector<signed char>{0, 0}));
}

TEST(BoxQp, ReportsNonConvergenceWithAFeasibleIterate) {
  std::mt19937 rng(26);
  int several = 0;
  for (int trial = 0; trial < 300; ++trial) {
    const int p = 2 + trial % 7;
    const BoxProblem q = randomBoxProblem(p, rng);
    VecX u;
    std::vector<signed char> active;
    const int iterations = solveBoxQp(q.H, q.u0, q.lower, q.upper, u, active);
    ASSERT_GE(iterations, 0);
    if (iterations < 2) continue;
    ++several;
    SCOPED_TRACE("trial " + std::to_string(trial));
    EXPECT_EQ(solveBoxQp(q.H, q.u0, q.lower, q.upper, u, active, iterations - 1), -1);
    EXPECT_EQ(static_cast<int>(active.size()), p);
    for (int i = 0; i < p; ++i) {
      EXPECT_LE(q.lower(i), u(i));
      EXPECT_LE(u(i), q.upper(i));
    }
  }
  EXPECT_GT(several, 100);  // the cut-off really interrupted the iteration
}

TEST(BoxQp, RejectsInvalidArguments) {
  const MatX h = MatX::Identity(2, 2);
  const VecX u0 = VecX::Zero(2);
  VecX u;
  std::vector<signed char> active;
  VecX lower(2), upper(2);
  lower << 1.0, 0.0;
  upper << 0.0, 1.0;  // lower > upper
  EXPECT_THROW(solveBoxQp(h, u0, lower, upper, u, active), std::invalid_argument);
  lower << std::nan(""), 0.0;
  EXPECT_THROW(solveBoxQp(h, u0, lower, upper, u, active), std::invalid_argument);
  lower << kInf, 0.0;
  upper << kInf, 1.0;  // no finite value satisfies u ≥ +inf
  EXPECT_THROW(solveBoxQp(h, u0, lower, upper, u, active), std::invalid_argument);
  lower << 0.0, 0.0;
  EXPECT_THROW(solveBoxQp(h, VecX::Zero(3), lower, upper, u, active), std::invalid_argument);
  VecX aliased = VecX::Constant(2, 3.0);
  EXPECT_THROW(solveBoxQp(h, aliased, lower, upper, aliased, active), std::invalid_argument);
}

// ---- Constrained allocation end to end ----------------------------------------------------------

/// Planar vehicle, twist ξ = (v_x, v_y, ω) in the body frame: m = 2 kg, J_c = 0.05 kg m², CoM at
/// body x = 0.1 m; two thrusters along body x at y = ±0.25 m (torque −y·F), 0 ≤ F ≤ 3 N. b is the
/// Coriolis/centrifugal force at v = (1, 0.2) m/s, ω = 0.5 rad/s. No lateral input: n = 3, p = 2.
Problem planarVehicle(const Eigen::Vector3d& a_des) {
  const double m = 2.0, j = 0.05, c = 0.1, y = 0.25, vx = 1.0, vy = 0.2, w = 0.5;
  Problem q;
  q.M.resize(3, 3);
  q.M << m, 0.0, 0.0, 0.0, m, m * c, 0.0, m * c, j + m * c * c;
  q.b.resize(3);
  q.b << -m * w * (vy + w * c), m * w * vx, m * c * w * vx;
  q.B.resize(3, 2);
  q.B << 1.0, 1.0, 0.0, 0.0, -y, y;
  q.Mbar = Eigen::Vector3d(4.0, 4.0, 0.2).asDiagonal();
  q.Mbar(0, 2) = q.Mbar(2, 0) = 0.1;  // some desired coupling of surge and yaw
  q.bbar = -q.Mbar * a_des;           // template M̄ ξ̇ + b̄ = 0 with ξ̇ = a_des
  return q;
}

TEST(Allocation, ConstrainedPlanarVehicleSaturatesAndTradesOffByH) {
  // Closed forms and the QP solve are O(1) 2×2 computations: 1e-12 absolute.
  constexpr double kTolerance = 1e-12;
  const VecX lower = VecX::Zero(2), upper = VecX::Constant(2, 3.0);

  // Hard left turn with forward acceleration: the right thruster (y = −0.25, input 2) wants more
  // than 3 N, the left one (input 1) stays inside.
  const Problem q = planarVehicle(Eigen::Vector3d(2.5, 0.5, 12.0));
  const AllocationResult ls = allocate(q, AllocationMode::LeastSquares);
  const AllocationResult out = allocate(q, AllocationMode::Constrained, lower, upper);
  EXPECT_EQ(out.u_unconstrained, ls.u);
  ASSERT_GT(ls.u(1), upper(1));
  ASSERT_GT(ls.u(0), lower(0));
  EXPECT_EQ(out.saturated, (std::vector<signed char>{0, 1}));
  EXPECT_GE(out.qp_iterations, 1);
  EXPECT_EQ(out.u(1), 3.0);
  // Input 1 minimizes ½ (u − u₀)ᵀ H (u − u₀) with u₂ = 3: u₁ = u₀₁ − H₁₂/H₁₁ (3 − u₀₂).
  const MatX h = hessian(q);
  const VecX u0 = ls.u;
  EXPECT_NEAR(out.u(0), u0(0) - h(0, 1) / h(0, 0) * (3.0 - u0(1)), kTolerance);
  EXPECT_GE(out.u(0), lower(0));
  EXPECT_LE(out.u(0), upper(0));
  // Diagnostics: Ḡ₀ as least squares; Ḡ(u) = Ḡ₀ + ½ ‖u − u₀‖²_H (4.54), checked independently.
  EXPECT_EQ(out.matching_residual, ls.matching_residual);
  EXPECT_GT(out.matching_residual, 0.1);  // lateral 0.5 m/s² cannot be realized
  const VecX d = out.u - u0;
  EXPECT_NEAR(out.template_deviation, ls.matching_residual + 0.5 * d.dot(h * d), kTolerance);
  EXPECT_NEAR(out.template_deviation, gaussFunction(q, out.u), kTolerance);

  // Braking while turning hard the other way: u₀ ≈ (2.14, −4.68) N violates only input 2's lower
  // bound, but with input 2 held at 0 the coupling in H drives input 1 onto its upper bound too.
  const Problem braking = planarVehicle(Eigen::Vector3d(-1.0, 0.0, -40.0));
  const AllocationResult both = allocate(braking, AllocationMode::Constrained, lower, upper);
  ASSERT_LT(both.u_unconstrained(1), lower(1));
  ASSERT_GT(both.u_unconstrained(0), lower(0));
  ASSERT_LT(both.u_unconstrained(0), upper(0));
  EXPECT_EQ(both.saturated, (std::vector<signed char>{1, -1}));
  EXPECT_EQ(both.u, (VecX(2) << 3.0, 0.0).finished());
  BoxProblem box{hessian(braking), both.u_unconstrained, lower, upper};
  expectOptimal(box, both.u, both.saturated);

  // A gentle request stays inside: u = u₀ exactly, nothing saturated, no QP.
  const Problem gentle = planarVehicle(Eigen::Vector3d(0.5, 0.0, 1.0));
  const AllocationResult inside = allocate(gentle, AllocationMode::Constrained, lower, upper);
  ASSERT_TRUE(
      ((inside.u_unconstrained.array() > 0.0) && (inside.u_unconstrained.array() < 3.0)).all());
  EXPECT_EQ(inside.u, inside.u_unconstrained);
  EXPECT_EQ(inside.saturated, (std::vector<signed char>{0, 0}));
  EXPECT_EQ(inside.qp_iterations, 0);
  EXPECT_EQ(inside.template_deviation, inside.matching_residual);
}


// ---- Input sets W u ≤ l (4.63) -------------------------------------------------------------------

// A set that is a box, given as rows ±e_i ≤ bounds with no bounds of their own, gives what the box
// QP (a different algorithm: primal active set on the bounds) gives with those bounds.
TEST(Allocation, AnInputSetThatIsABoxAllocatesLikeTheBounds) {
  std::mt19937 rng(22);
  int saturating = 0;
  for (int trial = 0; trial < 200; ++trial) {
    const int n = 3 + trial % 4, p = 1 + trial % n;
    const Problem q = randomProblem(n, p, rng);
    VecX lower(p), upper(p);
    for (int i = 0; i < p; ++i) {
      lower(i) = uniform(rng, -1.5, 0.0);
      upper(i) = lower(i) + uniform(rng, 0.1, 2.0);
    }
    const AllocationResult box = allocate(q, AllocationMode::Constrained, lower, upper);
    MatX W(2 * p, p);
    W << MatX::Identity(p, p), -MatX::Identity(p, p);
    VecX l(2 * p);
    l << upper, -lower;
    Allocator with_set(n, p);
    with_set.setInputSetRows(W, l);
    AllocationResult set;
    ASSERT_TRUE(with_set.solve(q.M, q.b, q.B, q.Mbar, q.bbar, noBound(p, -1), noBound(p, 1), AllocationMode::Constrained, set));
    with_set.evaluateDeviations(set);
    ASSERT_EQ(set.qp_status, InequalityQpStatus::Optimal);
    EXPECT_LT((set.u - box.u).cwiseAbs().maxCoeff(), 1e-10 * (1 + box.u.cwiseAbs().maxCoeff())) << "trial " << trial;
    for (int i = 0; i < p; ++i) {  // bounds at which the box QP stops are the set's active rows
      if (box.saturated[i] == 1) {
        EXPECT_TRUE(set.set_rows_active[i]) << trial;
      }
      if (box.saturated[i] == -1) {
        EXPECT_TRUE(set.set_rows_active[p + i]) << trial;
      }
      EXPECT_EQ(set.saturated[i], 0);  // the allocator's own bounds are infinite
    }
    EXPECT_NEAR(set.template_deviation, gaussFunction(q, set.u), 1e-9 * (1 + set.template_deviation));
    saturating += box.qp_iterations > 0;
  }
  EXPECT_GT(saturating, 50);
}

// A random polygon beside random bounds: the result satisfies the KKT conditions of (4.63) —
// feasible, and H (u − u₀) = −Σ λ_j a_j over the active rows with λ ≥ 0 (found here by a
// non-negative least-squares fit over the rows that hold as equalities, not the solver's set).
TEST(Allocation, InputSetsGiveTheKktPointOfTheConstrainedProblem) {
  std::mt19937 rng(23);
  int active_polygon = 0;
  for (int trial = 0; trial < 200; ++trial) {
    const int n = 4 + trial % 3, p = 2 + trial % 3, m = 1 + trial % 5;
    const Problem q = randomProblem(n, p, rng);
    const MatX W = randomMatrix(m, p, rng);
    const VecX l = VecX::NullaryExpr(m, [&] { return uniform(rng, 0.2, 1.5); });  // u = 0 inside
    const VecX lower = VecX::Constant(p, -2.0), upper = VecX::Constant(p, 2.0);
    Allocator allocator(n, p);
    allocator.setInputSetRows(W, l);
    AllocationResult out;
    ASSERT_TRUE(allocator.solve(q.M, q.b, q.B, q.Mbar, q.bbar, lower, upper, AllocationMode::Constrained, out));
    // All rows: the set's and the bounds'.
    MatX A(m + 2 * p, p);
    A << W, MatX::Identity(p, p), -MatX::Identity(p, p);
    VecX c(m + 2 * p);
    c << l, upper, -lower;
    const VecX slack = c - A * out.u;
    ASSERT_GT(slack.minCoeff(), -1e-10) << trial;
    std::vector<int> tight;
    for (int j = 0; j < A.rows(); ++j)
      if (slack(j) < 1e-9) tight.push_back(j);
    const MatX h = hessian(q);
    const VecX g = h * (out.u - out.u_unconstrained);
    if (tight.empty()) {
      EXPECT_LT(g.norm(), 1e-9 * (1 + h.norm())) << trial;
      continue;
    }
    MatX At(p, static_cast<int>(tight.size()));
    for (std::size_t k = 0; k < tight.size(); ++k) At.col(static_cast<int>(k)) = A.row(tight[k]).transpose();
    // Stationarity with λ ≥ 0: projected gradient on λ (the tight rows are few and independent).
    VecX lambda = VecX::Zero(At.cols());
    const MatX AtA = At.transpose() * At;
    for (int it = 0; it < 20000; ++it) {
      const VecX grad = AtA * lambda + At.transpose() * g;
      lambda = (lambda - grad / (AtA.norm() + 1e-12)).cwiseMax(0.0);
    }
    EXPECT_LT((g + At * lambda).norm(), 1e-6 * (1 + g.norm())) << "trial " << trial << ": no λ ≥ 0";
    for (int j = 0; j < m; ++j) active_polygon += out.set_rows_active[j];
  }
  EXPECT_GT(active_polygon, 40);
}

TEST(Allocation, AnEmptyInputSetIsAFailureThatSaysSo) {
  std::mt19937 rng(24);
  const Problem q = randomProblem(4, 2, rng);
  Allocator allocator(4, 2);
  allocator.setInputSetRows((MatX(2, 2) << 1, 0, -1, 0).finished(), (VecX(2) << -1.0, -1.0).finished());  // u₁ ≤ −1 ≤ u₁ − 2
  AllocationResult out;
  EXPECT_FALSE(allocator.solve(q.M, q.b, q.B, q.Mbar, q.bbar, noBound(2, -1), noBound(2, 1), AllocationMode::Constrained, out));
  EXPECT_EQ(out.qp_status, InequalityQpStatus::Infeasible);
  EXPECT_THROW(allocator.setInputSetRows(MatX::Ones(1, 3), VecX::Ones(1)), std::invalid_argument);
  // Least squares ignores sets as it ignores bounds.
  EXPECT_TRUE(allocator.solve(q.M, q.b, q.B, q.Mbar, q.bbar, noBound(2, -1), noBound(2, 1), AllocationMode::LeastSquares, out));
}

// ---- Priorities with owned rows (issue 46) ------------------------------------------------------

// A toy vehicle with an arm: coordinates (tilt, altitude, joint), inputs (differential thrust d,
// collective thrust c, joint torque τ). The joint torque reacts on the tilt (B), and the mass
// matrix couples the joint to both, so either side could serve the other.
struct ArmOnVehicle {
  Problem q;
  VecX lower = Vec3(-1.0, 0.0, -3.0), upper = Vec3(1.0, 3.0, 3.0);
  explicit ArmOnVehicle(const Vec3& a_des) {
    q.M = (MatX(3, 3) << 1.0, 0.0, 0.3, 0.0, 1.0, 0.4, 0.3, 0.4, 1.0).finished();
    q.B = (MatX(3, 3) << 1.0, 0.0, -0.5, 0.0, 1.0, 0.0, 0.0, 0.0, 1.0).finished();
    q.Mbar = MatX::Identity(3, 3);
    q.b = VecX::Zero(3);
    q.bbar = -a_des;  // a_des = −M̄⁻¹ b̄
  }
  /// The levels: [the joint, owned by τ,] the tilt [with the joint as a plain row], the altitude.
  enum class Joint { InTheMetric, Owned, PlainRow };
  AllocationResult allocate(Joint joint) const {
    std::vector<Allocator::PriorityLevel> levels{{MatX::Zero(1, 3), {}}, {MatX::Zero(1, 3), {}}};
    levels[0].accelerations(0, 0) = 1.0;
    levels[1].accelerations(0, 1) = 1.0;
    if (joint == Joint::Owned) levels.insert(levels.begin(), {(MatX(1, 3) << 0.0, 0.0, 1.0).finished(), {2}});
    if (joint == Joint::PlainRow) levels[0].accelerations = (MatX(2, 3) << 1.0, 0.0, 0.0, 0.0, 0.0, 1.0).finished();
    Allocator allocator(3, 3);
    allocator.setPriorities(levels);
    AllocationResult out;
    EXPECT_TRUE(allocator.solve(q.M, q.b, q.B, q.Mbar, q.bbar, lower, upper, AllocationMode::Constrained, out));
    return out;
  }
};

// A level its owner can meet is met whatever the other inputs do, so the owner does not serve the
// later levels: the joint torque is no reaction wheel for a tilt the thrust cannot give.
TEST(AllocationPriorities, AnOwnerMeetsItsRowsAndServesNoOthers) {
  const ArmOnVehicle vehicle(Vec3(5.0, 0.5, 0.0));  // a tilt beyond the differential thrust
  const AllocationResult owned = vehicle.allocate(ArmOnVehicle::Joint::Owned);
  const VecX a = plantAcceleration(vehicle.q, owned.u);
  EXPECT_NEAR(a(2), 0.0, 1e-5);                  // the arm holds (to the levels' regularization)
  EXPECT_LT(std::abs(owned.u(2)), 3.0 - 1e-6);   // with its torque inside its bounds
  EXPECT_NEAR(owned.u(0), 1.0, 1e-9);            // the thrust gives what tilt it can
  const AllocationResult metric = vehicle.allocate(ArmOnVehicle::Joint::InTheMetric);
  const VecX a_metric = plantAcceleration(vehicle.q, metric.u);
  EXPECT_GT(a_metric(0), a(0) + 0.05);           // there the joint torque turned the vehicle
  EXPECT_GT(std::abs(a_metric(2)), 0.05);        // at the arm's expense
}

// An owner on its bound gives its level up: the allocation is the one without it, and the other
// inputs keep to their own levels — as a plain row beside the tilt, the saturated joint draws the
// collective thrust away from the altitude.
TEST(AllocationPriorities, ASaturatedOwnerGivesItsRowsUp) {
  const ArmOnVehicle vehicle(Vec3(0.0, 0.5, 20.0));  // a joint acceleration beyond its torque
  const AllocationResult owned = vehicle.allocate(ArmOnVehicle::Joint::Owned);
  const AllocationResult without = vehicle.allocate(ArmOnVehicle::Joint::InTheMetric);
  EXPECT_LT((owned.u - without.u).norm(), 1e-9);
  EXPECT_NEAR(plantAcceleration(vehicle.q, owned.u)(1), 0.5, 1e-5);  // the altitude as asked
  const AllocationResult plain = vehicle.allocate(ArmOnVehicle::Joint::PlainRow);
  EXPECT_GT(std::abs(plantAcceleration(vehicle.q, plain.u)(1) - 0.5), 0.05);
}

}  // namespace
}  // namespace rbs
