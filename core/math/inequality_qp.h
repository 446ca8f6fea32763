// Strictly convex QP with general linear inequalities (issue 22, item 1: convex polygonal input
// sets such as the thesis' convexified annular sector of the bicopter, Fig. 4.20):
//   min ½ (u − u₀)ᵀ H (u − u₀)   s.t.   A u ≤ c
// by the dual active-set method of Goldfarb & Idnani (Math. Programming 27, 1983): it starts at the
// unconstrained minimum u₀, adds the most violated constraint, and keeps the active constraints
// satisfied as equalities while it moves, dropping one whose multiplier would turn negative. It
// needs no feasible start and detects an empty set: a violated constraint that is a non-negative
// combination of the active ones. The active set stays linearly independent, so vertex solutions
// (p constraints active) and redundant constraints (two rows through the same edge) are handled.
// Dense, for the allocation's sizes (p ≤ 12 inputs, m ≤ a few dozen rows); no heap allocation
// after construction while p and m stay those of the constructor (smaller problems resize the
// result's vectors).
#pragma once

#include <string_view>
#include <vector>

#include <Eigen/Cholesky>

#include "core/math/se3.h"

namespace rbs {

enum class InequalityQpStatus {
  Optimal,         ///< u minimizes the objective on the set, λ ≥ 0 are its multipliers
  Infeasible,      ///< the set {u : A u ≤ c} is empty
  IterationLimit,  ///< no optimum within the iteration limit (u is the last iterate)
  InvalidData,     ///< H not positive definite, or non-finite H, u₀, A or c
};
std::string_view toString(InequalityQpStatus status);

struct InequalityQpResult {
  InequalityQpStatus status = InequalityQpStatus::InvalidData;
  VecX u;                   ///< the minimizer (size p)
  VecX multipliers;         ///< λ (size m): H (u − u₀) + Aᵀ λ = 0, λ ≥ 0, λ_j = 0 off the active set
  std::vector<char> active;  ///< per row of A: 1 when it is in the final active set
  int iterations = 0;       ///< constraints added and dropped
};

/// How far a_jᵀ u may exceed c_j before row j counts as violated (or fall short of it and still
/// count as holding with equality): 1e-11 (1 + |c_j| + |a_j|ᵀ|u|), the rounding of a_jᵀ u.
double inequalityTolerance(const MatX& A, const VecX& c, const VecX& u, Eigen::Index j);

/// Whether A u ≤ c holds up to rounding: every row within the tolerance the solver uses to call a
/// row violated, 1e-11 (1 + |c_j| + |a_j|ᵀ|u|). What the solver returns as Optimal satisfies it.
bool satisfiesInequalities(const MatX& A, const VecX& c, const VecX& u);

/// The inequality form of "W u ≤ l and lower ≤ u ≤ upper": A = [W; I; −I] (m + 2p rows) and
/// c = [l; upper; −lower], a missing bound (±inf, or beyond ±1e300) written as 1e300 so that c stays
/// finite and its row never binds. W may have 0 rows.
void stackWithBounds(const MatX& W, const VecX& l, const VecX& lower, const VecX& upper, MatX& A, VecX& c);
/// Refills the bounds' part of c (rows m … m + 2p − 1) as stackWithBounds does; no allocation.
void setBoundRows(const VecX& lower, const VecX& upper, Eigen::Index m, VecX& c);

/// Preallocated solver for up to p variables and m constraints.
class InequalityQp {
 public:
  InequalityQp(int p, int m);

  /// Solves the QP above; H (p×p) symmetric positive definite, A (m×p), c (m). Sizes up to those
  /// of the constructor (an m of 0 gives u₀). Throws std::invalid_argument for inconsistent or
  /// too large sizes; numerical trouble is a status.
  const InequalityQpResult& solve(const MatX& H, const VecX& u0, const MatX& A, const VecX& c,
                                  int max_iterations = 100);

 private:
  /// Drops the active constraint at position k of active_set_.
  void drop(int k);

  int p_max_, m_max_;
  Eigen::LLT<MatX> h_llt_;
  MatX n_;       ///< H⁻¹ Aᵀ (p×m)
  MatX g_;       ///< A H⁻¹ Aᵀ (m×m)
  MatX s_;       ///< scratch: G restricted to the active set, factorized in place
  VecX r_;       ///< multiplier change of the active set per unit of the added one
  VecX z_;       ///< primal step direction
  VecX tolerance_;  ///< per row: what counts as a violation
  std::vector<int> active_set_;  ///< indices of the active rows, in the order added
  InequalityQpResult result_;
};

}  // namespace rbs
