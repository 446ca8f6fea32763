#include "core/math/lexicographic_qp.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>

namespace rbs {
namespace {

/// A row of C N counts as independent of the rows before it when its part orthogonal to them is
/// above this fraction of the largest row norm (the rows are rounding-level combinations
/// otherwise, e.g. a tilt row that the thrust row of the same rigid body repeats).
constexpr double kRankTolerance = 1e-10;

}  // namespace

LexicographicQp::LexicographicQp(int p, int m, int max_level_rows)
    : p_(p),
      m_(m),
      level_objective_(p, p),
      level_minimizer_(p),
      basis_(p, p),
      basis_scratch_(p, p),
      complement_(p, p),
      image_(std::max(max_level_rows, 1), p),
      reduced_c_(m),
      work_p_(p),
      work_p2_(p) {
  if (p < 1 || m < 0 || max_level_rows < 0)
    throw std::invalid_argument("LexicographicQp: needs p >= 1, m >= 0 and max_level_rows >= 0");
  qp_.resize(static_cast<std::size_t>(p));
  reduced_h_.resize(static_cast<std::size_t>(p));
  reduced_a_.resize(static_cast<std::size_t>(p));
  reduced_z0_.resize(static_cast<std::size_t>(p));
  for (int q = 1; q <= p; ++q) {
    reduced_h_[static_cast<std::size_t>(q - 1)].resize(q, q);
    reduced_a_[static_cast<std::size_t>(q - 1)].resize(m, q);
    reduced_z0_[static_cast<std::size_t>(q - 1)].resize(q);
  }
  result_.u.resize(p);
  result_.multipliers.resize(m);
  result_.active.reserve(static_cast<std::size_t>(m));
}

InequalityQp& LexicographicQp::qpOfSize(int q) {
  std::optional<InequalityQp>& qp = qp_[static_cast<std::size_t>(q - 1)];
  if (!qp) qp.emplace(q, m_);
  return *qp;
}

void LexicographicQp::restrictBasis(const MatX& rows) {
  const int q = basis_columns_;
  const Eigen::Index r = rows.rows();
  auto image = image_.topLeftCorner(r, q);
  image.noalias() = rows * basis_.leftCols(q);
  // Orthonormal basis of the row space of C N (modified Gram–Schmidt, dependent rows dropped).
  const double scale = image.rowwise().norm().maxCoeff();
  int rank = 0;
  for (Eigen::Index i = 0; i < r; ++i) {
    auto v = image.row(i);
    for (int j = 0; j < rank; ++j) v -= v.dot(image.row(j)) * image.row(j);
    const double norm = v.norm();
    if (norm > kRankTolerance * scale && norm > 0.0) image.row(rank++) = v / norm;
  }
  if (rank == 0) return;  // the level fixes nothing the levels above left free
  // Its orthogonal complement in ℝ^q: the unit vectors with the row space and the complement
  // vectors found so far projected out, the largest remainder first (q ≤ p ≤ a dozen).
  const int q_new = q - rank;
  auto complement = complement_.topLeftCorner(q, q_new);
  for (int k = 0; k < q_new; ++k) {
    double best_norm = 0.0;
    for (int e = 0; e < q; ++e) {
      auto v = work_p_.head(q);
      v.setZero();
      v(e) = 1.0;
      for (int j = 0; j < rank; ++j) v -= image(j, e) * image.row(j).transpose();
      for (int j = 0; j < k; ++j) v -= complement(e, j) * complement.col(j);
      const double norm = v.norm();
      if (norm > best_norm) {
        best_norm = norm;
        work_p2_.head(q) = v;
      }
    }
    complement.col(k) = work_p2_.head(q) / best_norm;
  }
  basis_scratch_.leftCols(q_new).noalias() = basis_.leftCols(q) * complement;
  basis_.leftCols(q_new) = basis_scratch_.leftCols(q_new);
  basis_columns_ = q_new;
}

bool LexicographicQp::levelObjective(const Level* level, double epsilon, const MatX& H, const VecX& u0) {
  if (!level) {  // the last: ½ (u − u₀)ᵀ H (u − u₀)
    level_objective_ = H;
    level_minimizer_ = u0;
    return true;
  }
  // ½ ‖C u − d‖² + ε ½ ‖u − u₀‖²_H = ½ (u − u_c)ᵀ Q (u − u_c) + const with Q = CᵀC + ε H and
  // Q u_c = Cᵀ d + ε H u₀.
  level_objective_.noalias() = level->C.transpose() * level->C;
  level_objective_ += epsilon * H;
  level_minimizer_.noalias() = level->C.transpose() * level->d;
  work_p_.noalias() = H * u0;
  level_minimizer_ += epsilon * work_p_;
  basis_scratch_ = level_objective_;
  Eigen::Ref<MatX> factor = basis_scratch_;
  const Eigen::LLT<Eigen::Ref<MatX>> llt(factor);
  if (llt.info() != Eigen::Success) return false;
  llt.solveInPlace(level_minimizer_);
  return true;
}

const InequalityQpResult& LexicographicQp::solve(const MatX& H, const VecX& u0, std::span<const Level> levels,
                                                 const MatX& A, const VecX& c, int max_iterations) {
  const Eigen::Index p = u0.size(), m = c.size();
  if (p != p_ || m != m_ || H.rows() != p || H.cols() != p || A.rows() != m || (m > 0 && A.cols() != p))
    throw std::invalid_argument("LexicographicQp::solve: sizes differ from the constructor's or each other");
  for (const Level& level : levels)
    if ((level.C.rows() > 0 && level.C.cols() != p) || level.C.rows() > image_.rows() || level.d.size() != level.C.rows())
      throw std::invalid_argument("LexicographicQp::solve: a level has the wrong width, too many rows or a target of another size");
  InequalityQpResult& out = result_;
  out.iterations = 0;
  basis_.setIdentity();
  basis_columns_ = p_;
  bool have_point = false;
  const double h_trace = H.trace();
  for (std::size_t k = 0; k <= levels.size(); ++k) {
    const bool last = k == levels.size();
    if (!last && levels[k].C.rows() == 0) continue;
    const int q = basis_columns_;
    if (q == 0) break;  // the levels above fixed u
    // The level's objective ½ ‖C u − d‖² + ε ½ ‖u − u₀‖²_H (the last: ½ ‖u − u₀‖²_H).
    double epsilon = 0.0;
    if (!last) {
      level_objective_.noalias() = levels[k].C.transpose() * levels[k].C;
      const double scale = level_objective_.trace();
      if (!(scale > 0.0)) continue;  // all-zero rows: nothing to prioritize
      epsilon = kLevelRegularization * scale / h_trace;
    }
    if (!have_point) {
      // The first level over u itself: min ½ (u − u_c)ᵀ Q (u − u_c) s.t. A u ≤ c. Q is as
      // ill-conditioned as 1/ε; where the dual active-set method fails on it (a dependency it
      // misjudges, or active rows that drift off), ε grows tenfold, at most kRegularizationRetries
      // times: the level is then strict to that ε.
      for (int attempt = 0;; ++attempt, epsilon *= 10.0) {
        if (!levelObjective(last ? nullptr : &levels[k], epsilon, H, u0)) {
          out.status = InequalityQpStatus::InvalidData;
          return out;
        }
        const InequalityQpResult& r = qpOfSize(q).solve(level_objective_, level_minimizer_, A, c, max_iterations);
        out.iterations += r.iterations;
        out.status = r.status;
        // Optimal and within the rows to their tolerance (an ill-conditioned Q lets the active rows
        // drift as the dual steps accumulate); the last attempt's point is taken as it is.
        if (r.status == InequalityQpStatus::Optimal &&
            (satisfiesInequalities(A, c, r.u) || last || attempt == kRegularizationRetries)) {
          out.u = r.u;
          have_point = true;
          break;
        }
        if (last || attempt == kRegularizationRetries) {
          out.u = r.u;
          out.multipliers = r.multipliers;
          out.active = r.active;
          return out;
        }
      }
    } else {
      if (!levelObjective(last ? nullptr : &levels[k], epsilon, H, u0)) {
        out.status = InequalityQpStatus::InvalidData;
        return out;
      }
      // u = u* + N z:  ½ zᵀ (Nᵀ Q N) z + zᵀ Nᵀ Q (u* − u_c), s.t. (A N) z ≤ c − A u*, where z = 0 is
      // feasible (a rounding-level excess of u* over a bound is forgiven).
      const auto N = basis_.leftCols(q);
      MatX& Hz = reduced_h_[static_cast<std::size_t>(q - 1)];
      MatX& Az = reduced_a_[static_cast<std::size_t>(q - 1)];
      VecX& z0 = reduced_z0_[static_cast<std::size_t>(q - 1)];
      basis_scratch_.leftCols(q).noalias() = level_objective_ * N;
      Hz.noalias() = N.transpose() * basis_scratch_.leftCols(q);
      for (int i = 0; i < q; ++i)
        for (int j = i + 1; j < q; ++j) Hz(i, j) = Hz(j, i) = 0.5 * (Hz(i, j) + Hz(j, i));
      work_p_ = out.u - level_minimizer_;
      z0.setZero();
      z0.noalias() -= basis_scratch_.leftCols(q).transpose() * work_p_;  // −Nᵀ Q (u* − u_c), no temporary
      // z₀ = Hz⁻¹ (·): InequalityQp factors Hz again; the in-place LLT here needs no buffer.
      basis_scratch_.topLeftCorner(q, q) = Hz;
      Eigen::Ref<MatX> factor = basis_scratch_.topLeftCorner(q, q);
      const Eigen::LLT<Eigen::Ref<MatX>> llt(factor);
      if (llt.info() != Eigen::Success) break;  // keep u*: it meets every level above
      llt.solveInPlace(z0);
      if (m > 0) {
        Az.noalias() = A * N;
        reduced_c_.noalias() = c - A * out.u;
        reduced_c_ = reduced_c_.cwiseMax(0.0);
      }
      const InequalityQpResult& r = qpOfSize(q).solve(Hz, z0, Az, reduced_c_, max_iterations);
      out.iterations += r.iterations;
      if (r.status != InequalityQpStatus::Optimal) break;  // keep u*
      out.u.noalias() += N * r.u;
      out.multipliers = r.multipliers;
    }
    if (!last) restrictBasis(levels[k].C);
  }
  out.status = InequalityQpStatus::Optimal;
  out.active.assign(static_cast<std::size_t>(m), 0);
  for (Eigen::Index j = 0; j < m; ++j)
    out.active[static_cast<std::size_t>(j)] = std::abs(A.row(j).dot(out.u) - c(j)) <= inequalityTolerance(A, c, out.u, j);
  return out;
}

}  // namespace rbs
