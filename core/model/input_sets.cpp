#include "core/model/input_sets.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>

namespace rbs {

void annularSectorPolygon(double r_min, double r_max, double angle_min, double angle_max, int chords, MatX& A,
                          VecX& c) {
  const double width = angle_max - angle_min;
  if (!(std::isfinite(r_min) && std::isfinite(r_max) && std::isfinite(angle_min) && std::isfinite(angle_max)))
    throw std::invalid_argument("radii and angles must be finite numbers");
  if (!(width > 0.0 && width < M_PI))
    throw std::invalid_argument("the angle range must be wider than 0 and narrower than pi (180 deg); it is " +
                                std::to_string(width) + " rad (angles are in radians)");
  if (chords < 1 || chords > kMaxSectorChords)
    throw std::invalid_argument("chords must be between 1 and " + std::to_string(kMaxSectorChords));
  const double delta = width / chords;
  const double chord_distance = r_max * std::cos(0.5 * delta);  // of each chord from the origin
  if (!(r_min >= 0.0 && r_min < chord_distance))
    throw std::invalid_argument("the radii must satisfy 0 <= r_min < r_max cos(width / (2 chords)) = " +
                                std::to_string(chord_distance) + "; r_min is " + std::to_string(r_min));
  A.resize(3 + chords, 2);
  c.resize(3 + chords);
  // Directions n(α) = (sin α, cos α): α is measured from the u_c axis toward the u_s axis.
  const double middle = 0.5 * (angle_min + angle_max);
  A.row(0) << -std::sin(middle), -std::cos(middle);  // inner tangent: n(α_m)·u ≥ r_min
  c(0) = -r_min;
  // u = r n(α): u_s cos α₀ − u_c sin α₀ = r sin(α − α₀), ≥ 0 beyond α_min and ≤ 0 before α_max.
  A.row(1) << -std::cos(angle_min), std::sin(angle_min);
  c(1) = 0.0;
  A.row(2) << std::cos(angle_max), -std::sin(angle_max);
  c(2) = 0.0;
  for (int k = 0; k < chords; ++k) {  // chord k: n(β_k)·u ≤ r_max cos(Δ/2), β_k its middle angle
    const double beta = angle_min + (k + 0.5) * delta;
    A.row(3 + k) << std::sin(beta), std::cos(beta);
    c(3 + k) = chord_distance;
  }
}

void stackInputSetRows(const Model& model, MatX& W, VecX& l) {
  Eigen::Index rows = 0;
  for (const InputSet& set : model.input_sets) rows += set.rows.rows();
  W.setZero(rows, model.numInputs());
  l.resize(rows);
  Eigen::Index row = 0;
  for (const InputSet& set : model.input_sets) {
    for (std::size_t k = 0; k < set.inputs.size(); ++k)
      W.block(row, set.inputs[k], set.rows.rows(), 1) = set.rows.col(static_cast<Eigen::Index>(k));
    l.segment(row, set.bounds.size()) = set.bounds;
    row += set.rows.rows();
  }
}

InputSetProjection::InputSetProjection(const Model& model)
    : qp_(std::max(model.numInputs(), 1), 0) {
  MatX W;
  VecX l, lower(model.numInputs()), upper(model.numInputs());
  stackInputSetRows(model, W, l);
  for (int i = 0; i < model.numInputs(); ++i) {
    lower(i) = model.actuators[static_cast<std::size_t>(i)].lower;
    upper(i) = model.actuators[static_cast<std::size_t>(i)].upper;
  }
  stackWithBounds(W, l, lower, upper, rows_, bounds_);
  identity_ = MatX::Identity(model.numInputs(), model.numInputs());
  qp_ = InequalityQp(std::max(model.numInputs(), 1), static_cast<int>(rows_.rows()));
}

bool InputSetProjection::project(VecX& u) {
  if (satisfiesInequalities(rows_, bounds_, u)) return true;
  const InequalityQpResult& r = qp_.solve(identity_, u, rows_, bounds_, 10 * static_cast<int>(rows_.rows()) + 50);
  if (r.status != InequalityQpStatus::Optimal) return false;
  u = r.u;
  ++projections_;
  return true;
}

}  // namespace rbs
