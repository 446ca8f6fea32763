// Convex input sets beyond the per-input limits (thesis (4.63): W u ≤ l). An actuator with a
// nonlinear input map gets an auxiliary input whose feasible set is not a box — the bicopter's
// u = (F sin θ, F cos θ) per propeller with 2 N ≤ F ≤ 14 N, |θ| ≤ 30° fills an annular sector
// (§4.8.4, Fig. 4.20) — and the allocation's QP needs a convex inner approximation of it as
// linear inequalities over the inputs (Model::input_sets).
#pragma once

#include <optional>

#include "core/math/inequality_qp.h"
#include "core/model/model.h"

namespace rbs {

/// More chords than this buy nothing (64 chords of a 60° arc sag 3e-5 of the radius) and would
/// only make the QP's rows many.
inline constexpr int kMaxSectorChords = 64;

/// A convex polygon inside the annular sector {(r sin α, r cos α) : r_min ≤ r ≤ r_max,
/// α_min ≤ α ≤ α_max} of the plane (u_s, u_c), as rows A (u_s, u_c)ᵀ ≤ c:
///   - the inner arc (not convex from inside) replaced by its tangent at the middle angle,
///     n(α_m) · u ≥ r_min with n(α) = (sin α, cos α): every point beyond it has r ≥ r_min;
///   - the two sides α ≥ α_min, α ≤ α_max;
///   - the outer arc (convex) replaced by `chords` equal chords between points on it.
/// Every point of the polygon lies in the sector; the sector's points it gives up are those
/// below the tangent (at the corners r_min (1/cos(half width) − 1) along the sides) and the slivers between
/// chords and arc (r_max (1 − cos(Δ/2)) deep, Δ = width / chords). Requires 0 ≤ r_min, r_min <
/// r_max cos(Δ/2) (else the polygon is empty), 0 < α_max − α_min < π, 1 ≤ chords ≤ 64; throws
/// std::invalid_argument saying which condition fails.
void annularSectorPolygon(double r_min, double r_max, double angle_min, double angle_max, int chords, MatX& A,
                          VecX& c);

/// The rows of all of the model's input sets over the whole input vector: W (m × p), l (m), with
/// m the sum of the sets' rows, in the order of Model::input_sets. Empty (0 × p) without sets.
void stackInputSetRows(const Model& model, MatX& W, VecX& l);

/// Keeps an input vector in the model's input sets: the point of the sets and the limits nearest
/// to u in the Euclidean norm (min ½‖v − u‖² s.t. W v ≤ l, lower ≤ v ≤ upper, by InequalityQp).
/// What the simulator applies to the plant, whatever produced u (any controller, a hold, a user's
/// manual input). No heap allocation after construction.
class InputSetProjection {
 public:
  explicit InputSetProjection(const Model& model);

  /// u (size p): left alone when it satisfies every row (satisfiesInequalities) and limit, else
  /// replaced by the nearest point. Returns false, leaving u alone, when the QP finds none (not for
  /// a model that build() accepted, unless u is not finite).
  bool project(VecX& u);
  /// How many calls moved u.
  long projections() const { return projections_; }

 private:
  MatX rows_;    ///< [W; I; −I] (stackWithBounds)
  VecX bounds_;  ///< [l; upper; −lower]
  MatX identity_;
  InequalityQp qp_;
  long projections_ = 0;
};

}  // namespace rbs
