#include "core/math/inequality_qp.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>

namespace rbs {
namespace {

/// A row counts as violated when a_jᵀ u − c_j exceeds this fraction of |c_j| + |a_j|ᵀ|u| (+1):
/// rounding in a_jᵀ u is of that order.
constexpr double kViolation = 1e-11;
/// The added row is a combination of the active ones when its curvature along the step,
/// a_qᵀ z = a_qᵀ H⁻¹ a_q − vᵀ S⁻¹ v, is below this fraction of a_qᵀ H⁻¹ a_q.
constexpr double kDependent = 1e-12;

}  // namespace

double inequalityTolerance(const MatX& A, const VecX& c, const VecX& u, Eigen::Index j) {
  return kViolation * (1.0 + std::abs(c(j)) + A.row(j).cwiseAbs().dot(u.cwiseAbs()));
}

void stackWithBounds(const MatX& W, const VecX& l, const VecX& lower, const VecX& upper, MatX& A, VecX& c) {
  const Eigen::Index m = W.rows(), p = lower.size();
  if (l.size() != m || upper.size() != p || (m > 0 && W.cols() != p))
    throw std::invalid_argument("stackWithBounds: inconsistent sizes of W, l, lower, upper");
  A.setZero(m + 2 * p, p);
  A.topRows(m) = W;
  A.middleRows(m, p).diagonal().setOnes();
  A.bottomRows(p).diagonal().setConstant(-1.0);
  c.resize(m + 2 * p);
  c.head(m) = l;
  setBoundRows(lower, upper, m, c);
}

void setBoundRows(const VecX& lower, const VecX& upper, Eigen::Index m, VecX& c) {
  const Eigen::Index p = lower.size();
  for (Eigen::Index i = 0; i < p; ++i) {
    c(m + i) = std::min(upper(i), 1e300);
    c(m + p + i) = -std::max(lower(i), -1e300);
  }
}

bool satisfiesInequalities(const MatX& A, const VecX& c, const VecX& u) {
  for (Eigen::Index j = 0; j < A.rows(); ++j)
    if (!(A.row(j).dot(u) - c(j) <= inequalityTolerance(A, c, u, j))) return false;
  return true;
}

std::string_view toString(InequalityQpStatus status) {
  switch (status) {
    case InequalityQpStatus::Optimal: return "optimal";
    case InequalityQpStatus::Infeasible: return "infeasible: the constraints A u <= c admit no u";
    case InequalityQpStatus::IterationLimit: return "no optimum within the iteration limit";
    case InequalityQpStatus::InvalidData: return "H is not positive definite, or the data is not finite";
  }
  return "unknown";
}

InequalityQp::InequalityQp(int p, int m)
    : p_max_(p),
      m_max_(m),
      h_llt_(p),
      n_(p, m),
      g_(m, m),
      s_(m, m),
      r_(m),
      z_(p),
      tolerance_(m) {
  if (p < 1 || m < 0) throw std::invalid_argument("InequalityQp: needs p >= 1 and m >= 0");
  active_set_.reserve(static_cast<std::size_t>(m));
  result_.u.resize(p);
  result_.multipliers.resize(m);
  result_.active.reserve(static_cast<std::size_t>(m));
}

void InequalityQp::drop(int k) {
  const int j = active_set_[static_cast<std::size_t>(k)];
  result_.multipliers(j) = 0.0;
  result_.active[static_cast<std::size_t>(j)] = 0;
  active_set_.erase(active_set_.begin() + k);
}

const InequalityQpResult& InequalityQp::solve(const MatX& H, const VecX& u0, const MatX& A, const VecX& c,
                                              int max_iterations) {
  const Eigen::Index p = u0.size(), m = c.size();
  if (H.rows() != p || H.cols() != p || A.rows() != m || (m > 0 && A.cols() != p))
    throw std::invalid_argument("InequalityQp::solve: inconsistent sizes of H, u0, A, c");
  if (p > p_max_ || m > m_max_ || p == 0)
    throw std::invalid_argument("InequalityQp::solve: problem empty or larger than the solver was built for");
  InequalityQpResult& out = result_;
  out.u = u0;
  out.multipliers.setZero(m);
  out.active.assign(static_cast<std::size_t>(m), 0);
  out.iterations = 0;
  active_set_.clear();
  out.status = InequalityQpStatus::InvalidData;
  if (!H.allFinite() || !u0.allFinite() || !A.allFinite() || !c.allFinite()) return out;
  h_llt_.compute(H);
  if (h_llt_.info() != Eigen::Success) return out;
  out.status = InequalityQpStatus::Optimal;
  if (m == 0) return out;

  // N = H⁻¹ Aᵀ and G = A H⁻¹ Aᵀ once: every later quantity is a block of them.
  auto N = n_.leftCols(m);
  auto G = g_.topLeftCorner(m, m);
  N = A.transpose();
  h_llt_.solveInPlace(N);
  G.noalias() = A * N;

  while (true) {
    // The most violated row (relative to its tolerance) that is not active.
    int q = -1;
    double worst = 0.0, violation_q = 0.0;
    for (Eigen::Index j = 0; j < m; ++j) {
      if (out.active[static_cast<std::size_t>(j)]) continue;
      const double value = A.row(j).dot(out.u) - c(j);
      const double tolerance = inequalityTolerance(A, c, out.u, j);
      if (value > tolerance && value / tolerance > worst) {
        worst = value / tolerance;
        q = static_cast<int>(j);
        violation_q = value;
      }
    }
    if (q < 0) return out;  // every row holds: the multipliers are ≥ 0 by construction

    // Raise λ_q from 0 until row q holds as an equality, keeping the active rows as equalities:
    // u moves by −t z with z = H⁻¹(a_q − A_Wᵀ r), λ_W by −t r, where S r = A_W H⁻¹ a_q.
    while (true) {
      if (++out.iterations > max_iterations) {
        out.status = InequalityQpStatus::IterationLimit;
        return out;
      }
      const int k = static_cast<int>(active_set_.size());
      for (int a = 0; a < k; ++a) {
        r_(a) = G(active_set_[static_cast<std::size_t>(a)], q);
        for (int b = 0; b <= a; ++b)
          s_(a, b) = G(active_set_[static_cast<std::size_t>(a)], active_set_[static_cast<std::size_t>(b)]);
      }
      auto r = r_.head(k);  // v = A_W H⁻¹ a_q, then r = S⁻¹ v in place
      double curvature = G(q, q);
      if (k > 0) {
        Eigen::Ref<MatX> s = s_.topLeftCorner(k, k);
        const Eigen::LLT<Eigen::Ref<MatX>> s_llt(s);  // in place, reads the lower triangle
        if (s_llt.info() != Eigen::Success) {
          out.status = InequalityQpStatus::InvalidData;  // the active rows lost independence
          return out;
        }
        // curvature = a_qᵀH⁻¹a_q − vᵀ S⁻¹ v, with S = L Lᵀ: ‖L⁻¹ v‖².
        s_llt.matrixL().solveInPlace(r);
        curvature -= r.squaredNorm();
        s_llt.matrixU().solveInPlace(r);
      }
      z_.head(p) = N.col(q);
      for (int a = 0; a < k; ++a) z_.head(p) -= r(a) * N.col(active_set_[static_cast<std::size_t>(a)]);

      // Partial step: the first active row whose multiplier reaches 0.
      int blocking = -1;
      double t_partial = std::numeric_limits<double>::infinity();
      const double r_floor = 1e-13 * std::max(1.0, k > 0 ? r.cwiseAbs().maxCoeff() : 0.0);
      for (int a = 0; a < k; ++a) {
        if (r(a) <= r_floor) continue;
        const double t = out.multipliers(active_set_[static_cast<std::size_t>(a)]) / r(a);
        if (t < t_partial) {
          t_partial = t;
          blocking = a;
        }
      }
      const bool dependent = curvature <= kDependent * G(q, q);
      if (dependent && blocking < 0) {
        // a_q = A_Wᵀ r with r ≤ 0: row q contradicts the active rows, which hold as equalities
        // with multipliers ≥ 0 (Goldfarb & Idnani, step 2(c)(i)).
        out.status = InequalityQpStatus::Infeasible;
        return out;
      }
      const double t_full = dependent ? std::numeric_limits<double>::infinity() : violation_q / curvature;
      const double t = std::min(t_partial, t_full);
      for (int a = 0; a < k; ++a) out.multipliers(active_set_[static_cast<std::size_t>(a)]) -= t * r(a);
      out.multipliers(q) += t;
      if (!dependent) {
        out.u.noalias() -= t * z_.head(p);
        violation_q -= t * curvature;
      }
      if (t_full <= t_partial) {  // row q is now an equality: it joins the active set
        active_set_.push_back(q);
        out.active[static_cast<std::size_t>(q)] = 1;
        break;
      }
      drop(blocking);
    }
  }
}

}  // namespace rbs
