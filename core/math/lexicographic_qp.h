// Strict priorities among quadratic objectives over linear inequalities (issue 46: the allocation
// of a saturated multicopter keeps its thrust direction before its altitude and its heading last):
//   level 1:  min ½ ‖C₁ u − d₁‖²                                 s.t.  A u ≤ c
//   level k:  min ½ ‖C_k u − d_k‖²   s.t.  A u ≤ c,  C_j u = C_j u*_j  for every j < k
//   last:     min ½ (u − u₀)ᵀ H (u − u₀)  over what the levels leave free
// (u*_j: the solution of level j). A level can only use the freedom the levels above it leave, so
// a lower level never trades away what a higher one achieved — unlike one weighted objective, where
// a large enough error of a low-priority row always wins against a small one of a high-priority
// row. Without levels this is InequalityQp itself.
//
// Each level is solved as a strictly convex QP: its objective plus ε ½ ‖u − u₀‖²_H with
// ε = kLevelRegularization relative to the level's scale, so that a level that does not fix every
// direction still has one minimizer (the one nearest u₀ in H); the levels are strict up to that ε.
// The first level's QP is as ill-conditioned as 1/ε: where the dual method fails on it, ε grows
// tenfold, at most kRegularizationRetries times.
// The equalities of the levels above are eliminated by an orthonormal basis N of their null space
// (u = u*_{k−1} + N z), the inequalities go to InequalityQp in z. Sizes are fixed at construction;
// no heap allocation after the first solve of each reduced size.
#pragma once

#include <optional>
#include <span>
#include <vector>

#include "core/math/inequality_qp.h"

namespace rbs {

class LexicographicQp {
 public:
  /// Relative weight of ½ ‖u − u₀‖²_H in a level's objective (see above).
  static constexpr double kLevelRegularization = 1e-6;
  /// Tenfold increases of a first level's regularization when the QP fails on it (solve()).
  static constexpr int kRegularizationRetries = 4;

  /// p variables, m inequality rows, at most `max_level_rows` rows in one level.
  LexicographicQp(int p, int m, int max_level_rows);

  /// One level: rows C (r × p, r ≤ max_level_rows; none: skipped) and their target d (r).
  struct Level {
    MatX C;
    VecX d;
  };

  /// H (p×p) symmetric positive definite; u₀ (p); `levels` in order of priority; A (m×p), c (m). The result's `active` marks
  /// the rows of A that hold as equalities at u (within the tolerance of satisfiesInequalities);
  /// `multipliers` are those of the last reduced QP solved and are not those of the full problem.
  /// The status is InequalityQp's for the first level (Infeasible when A u ≤ c is empty);
  /// a later level always has the feasible point z = 0.
  const InequalityQpResult& solve(const MatX& H, const VecX& u0, std::span<const Level> levels, const MatX& A,
                                  const VecX& c, int max_iterations = 100);

 private:
  /// One InequalityQp (and its objective matrix) per reduced size q = 1 … p, so that every size
  /// keeps its own buffers.
  InequalityQp& qpOfSize(int q);
  /// Replaces basis_ (p × q₀ orthonormal columns) by an orthonormal basis of the part of its span
  /// that `rows` (r × p) maps to zero: basis_ ← basis_ · null(rows · basis_).
  void restrictBasis(const MatX& rows);
  /// level_objective_ Q and level_minimizer_ u_c of a level (null: the last, H and u₀) with the
  /// regularization ε (factors in basis_scratch_; false if Q is not definite).
  bool levelObjective(const Level* level, double epsilon, const MatX& H, const VecX& u0);

  int p_, m_;
  std::vector<std::optional<InequalityQp>> qp_;  ///< index q − 1
  std::vector<MatX> reduced_h_, reduced_a_;       ///< per size q: Nᵀ Q N (q×q) and A N (m×q)
  std::vector<VecX> reduced_z0_;                  ///< per size q
  MatX level_objective_;  ///< Q = Cᵀ C + ε H (p×p)
  VecX level_minimizer_;  ///< u_c = Q⁻¹ (Cᵀ d + ε H u₀): the level's objective is ½ (u − u_c)ᵀ Q (u − u_c) + const
  MatX basis_;            ///< N (p × q), q = basis_columns_
  MatX basis_scratch_;    ///< p × p
  MatX complement_;       ///< coefficients of the new basis in the old one (q × q_new)
  MatX image_;            ///< rows · N (r × q), orthonormalized in place
  VecX reduced_c_;        ///< c − A u (m)
  VecX work_p_, work_p2_;
  int basis_columns_ = 0;
  InequalityQpResult result_;
};

}  // namespace rbs
