// Input allocation (konz-control §8, thesis 4.5): exact (4.51), M̄-weighted least squares (4.53)
// and box-constrained (4.63) allocation of the template acceleration, and the primal active-set
// box QP (Nocedal & Wright 2006, Alg. 16.3) that the constrained mode uses.
#include "core/control/allocation.h"

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstring>
#include <limits>
#include <stdexcept>
#include <string>

#include "core/dynamics/dynamics.h"
#include "core/math/assert.h"

namespace rbs {
namespace {

/// H = WᵀW with W = L̄ᵀM⁻¹B. A Cholesky pivot L_ii² below kRankTolerance·H_ii means column i of W
/// lies within ~1e-6 rad of the span of the preceding ones: B is numerically rank deficient and u₀
/// would carry relative errors of order ε / kRankTolerance ≈ 1e-4.
constexpr double kRankTolerance = 1e-12;
/// Tikhonov weight for rank-deficient B, relative to the mean diagonal of H: far above the
/// rank tolerance (so the regularized H passes it), far below any physical input weighting.
constexpr double kRegularization = 1e-9;
/// Exact mode: B counts as singular when an LU pivot is below kSingularPivot times the largest
/// (cond(B) ≳ 1e12; u would keep only a few significant digits).
constexpr double kSingularPivot = 1e-12;
/// Box QP: a working-set multiplier counts as negative only below −kMultiplierTolerance·(gradient
/// scale). g = H(u − u₀) is computed with a relative error of a few p·ε·cond(H_FF); releasing a
/// bound on rounding noise would make the active set cycle.
constexpr double kMultiplierTolerance = 1e-11;
/// Iteration limit of the box QP inside Allocator::solve: the default of solveBoxQp, raised for
/// large p (the active-set method typically needs about one iteration per bound it touches).
int allocatorQpIterations(Eigen::Index p) {
  return std::max(100, 10 * static_cast<int>(p));
}
/// solveBoxQp keeps its workspace on the stack up to this many inputs (p ≤ 12 in practice).
constexpr int kStackInputs = 12;
constexpr double kInf = std::numeric_limits<double>::infinity();
/// Up to this many coordinates a caller with constant matrices gets explicit inverses: forming
/// them costs about as much as the factorizations, once; every solve is then three products
/// instead of six triangular solves. Chosen at construction, so results never depend on the
/// history of calls.
constexpr Eigen::Index kExplicitInverseMaxSize = 12;

void checkBounds(const VecX& lower, const VecX& upper, const char* who) {
  for (Eigen::Index i = 0; i < lower.size(); ++i) {
    // !(l ≤ u) also rejects NaN; l = +inf or u = −inf leaves no finite input.
    if (!(lower(i) <= upper(i)) || lower(i) == kInf || upper(i) == -kInf)
      throw std::invalid_argument(std::string(who) + ": invalid bounds for input " +
                                  std::to_string(i) + " (need lower <= upper, not NaN)");
  }
}

/// Ḡ(u) = ½ ‖M⁻¹(B u − b) + M̄⁻¹ b̄‖²_M̄ = ½ ‖L̄ᵀ(M⁻¹B u − ã)‖² with M̄ = L̄L̄ᵀ (4.52); the
/// factored form is ≥ 0 by construction. `r` is workspace (n).
double templateDeviation(const Eigen::LLT<MatX>& mbar_llt, const MatX& minv_b, const VecX& a_tilde,
                         const VecX& u, VecX& r) {
  r = -a_tilde;
  r.noalias() += minv_b * u;
  const MatX& l = mbar_llt.matrixLLT();  // L̄ in the lower triangle
  double sum = 0.0;
  for (Eigen::Index i = 0; i < r.size(); ++i) {
    const Eigen::Index tail = r.size() - i;
    const double li = l.col(i).tail(tail).dot(r.tail(tail));  // (L̄ᵀ r)_i
    sum += li * li;
  }
  return 0.5 * sum;
}

/// Primal active-set method for min ½ (u − u₀)ᵀ H (u − u₀) s.t. lower ≤ u ≤ upper
/// (Nocedal & Wright, Alg. 16.3, with the constraints u_i ≥ l_i and −u_i ≥ −h_i). The working set
/// lives in `active` (−1 lower, +1 upper, 0 free); a fixed input (l_i = h_i) is an equality that
/// is never released. Workspace: `factor` ≥ p×p, `gradient`, `step`, `free_index` ≥ p. Arguments
/// are validated by the callers; `u` must not alias `u0`.
int boxQpActiveSet(const MatX& H, const VecX& u0, const VecX& lower, const VecX& upper,
                   int max_iterations, VecX& u, std::vector<signed char>& active,
                   Eigen::Ref<MatX> factor, Eigen::Ref<VecX> gradient, Eigen::Ref<VecX> step,
                   Eigen::Ref<Eigen::VectorXi> free_index) {
  const Eigen::Index p = u0.size();
  u.resize(p);
  active.assign(static_cast<std::size_t>(p), 0);

  // Start at the projection of u₀ onto the box: feasible, and optimal when u₀ itself is (4.63).
  bool feasible = true;
  for (Eigen::Index i = 0; i < p; ++i) {
    u(i) = std::clamp(u0(i), lower(i), upper(i));
    feasible = feasible && u(i) == u0(i);
  }
  if (feasible) return 0;

  auto computeGradient = [&] {  // g = H (u − u₀), the objective's gradient
    for (Eigen::Index i = 0; i < p; ++i) {
      double g = 0.0;
      for (Eigen::Index j = 0; j < p; ++j) g += H(i, j) * (u(j) - u0(j));
      gradient(i) = g;
    }
  };
  auto isFixed = [&](Eigen::Index i) { return lower(i) == upper(i); };
  // At exit a fixed input reports the bound it presses against (sign of its multiplier).
  auto markFixed = [&] {
    for (Eigen::Index i = 0; i < p; ++i)
      if (isFixed(i)) active[i] = gradient(i) > 0.0 ? -1 : (gradient(i) < 0.0 ? 1 : 0);
  };
  const double h_max = H.cwiseAbs().maxCoeff();

  // Initial working set: fixed inputs and the bounds the gradient pushes against.
  computeGradient();
  for (Eigen::Index i = 0; i < p; ++i) {
    if (isFixed(i) || (u(i) == lower(i) && gradient(i) >= 0.0))
      active[i] = -1;
    else if (u(i) == upper(i) && gradient(i) <= 0.0)
      active[i] = 1;
  }

  bool at_minimizer = false;  // u minimizes the objective on the current working set
  for (int iteration = 1; iteration <= max_iterations; ++iteration) {
    if (!at_minimizer) {
      Eigen::Index nf = 0;
      for (Eigen::Index i = 0; i < p; ++i)
        if (active[i] == 0) free_index(nf++) = static_cast<int>(i);
      if (nf > 0) {
        // Equality-constrained subproblem on the free inputs: H_FF d_F = −g_F (N&W §16.5).
        for (Eigen::Index c = 0; c < nf; ++c)
          for (Eigen::Index a = c; a < nf; ++a) factor(a, c) = H(free_index(a), free_index(c));
        Eigen::Ref<MatX> h_ff = factor.topLeftCorner(nf, nf);
        const Eigen::LLT<Eigen::Ref<MatX>> llt(h_ff);  // in place, reads the lower triangle
        if (llt.info() != Eigen::Success) {
          markFixed();
          return -1;
        }
        auto d = step.head(nf);
        for (Eigen::Index a = 0; a < nf; ++a) d(a) = -gradient(free_index(a));
        llt.solveInPlace(d);

        // Ratio test against the bounds outside the working set (N&W §16.5); ties go to the
        // lowest index, so the iteration is deterministic.
        double alpha = 1.0;
        Eigen::Index blocking = -1;
        signed char side = 0;
        for (Eigen::Index a = 0; a < nf; ++a) {
          const Eigen::Index i = free_index(a);
          if (d(a) < 0.0 && std::isfinite(lower(i))) {
            const double t = (lower(i) - u(i)) / d(a);
            if (t < alpha) {
              alpha = t;
              blocking = i;
              side = -1;
            }
          } else if (d(a) > 0.0 && std::isfinite(upper(i))) {
            const double t = (upper(i) - u(i)) / d(a);
            if (t < alpha) {
              alpha = t;
              blocking = i;
              side = 1;
            }
          }
        }
        for (Eigen::Index a = 0; a < nf; ++a) {
          const Eigen::Index i = free_index(a);
          u(i) = std::clamp(u(i) + alpha * d(a), lower(i), upper(i));  // rounding stays inside
        }
        if (blocking >= 0) {
          u(blocking) = side < 0 ? lower(blocking) : upper(blocking);
          active[blocking] = side;
        }
        at_minimizer = blocking < 0;
        computeGradient();
        continue;
      }
      at_minimizer = true;  // nothing free: u is the subproblem's solution
    }

    // Optimality (N&W §16.5): multiplier g_i on a lower bound, −g_i on an upper bound, both ≥ 0.
    // Otherwise release the most negative one (first index on ties).
    const double tolerance = kMultiplierTolerance * static_cast<double>(p) * h_max *
                             (u.lpNorm<Eigen::Infinity>() + u0.lpNorm<Eigen::Infinity>());
    Eigen::Index release = -1;
    double most_negative = -tolerance;
    for (Eigen::Index i = 0; i < p; ++i) {
      if (active[i] == 0 || isFixed(i)) continue;
      const double multiplier = active[i] < 0 ? gradient(i) : -gradient(i);
      if (multiplier < most_negative) {
        most_negative = multiplier;
        release = i;
      }
    }
    if (release < 0) {
      markFixed();
      return iteration;
    }
    active[release] = 0;
    at_minimizer = false;
  }
  markFixed();
  return -1;
}

}  // namespace

Allocator::Allocator(int n, int p, bool constant_matrices)
    : n_(n),
      p_(p),
      m_llt_(n),
      mbar_llt_(n),
      h_llt_(p),
      b_lu_(n == p ? n : 0, n == p ? n : 0),
      minv_b_(n, p),
      mbar_minv_b_(n, p),
      h_(p, p),
      qp_factor_(p, p),
      a_tilde_(n),
      work_n_(n),
      work_n2_(n),
      work_p_(p),
      qp_gradient_(p),
      qp_step_(p),
      qp_free_(p) {
  if (n < 1 || p < 1) throw std::invalid_argument("Allocator: needs n >= 1 and p >= 1");
  explicit_inverses_ = constant_matrices && n <= kExplicitInverseMaxSize;
  b_lu_.setThreshold(kSingularPivot);
}

void Allocator::setInputSetRows(const MatX& W, const VecX& l) {
  if (W.cols() != p_ || l.size() != W.rows())
    throw std::invalid_argument("Allocator::setInputSetRows: W must be m × " + std::to_string(p_) + " and l of size m");
  if (!W.allFinite() || !l.allFinite()) throw std::invalid_argument("Allocator::setInputSetRows: non-finite W or l");
  set_rows_ = W;
  set_bounds_ = l;
  if (W.rows() == 0) {
    set_qp_.reset();
  } else {
    const VecX unbounded = VecX::Constant(p_, std::numeric_limits<double>::infinity());
    stackWithBounds(W, l, -unbounded, unbounded, qp_rows_, qp_bounds_);  // bounds refilled per solve()
    set_qp_.emplace(p_, static_cast<int>(qp_rows_.rows()));
  }
  if (!priority_rows_.empty()) setPriorities(std::vector<PriorityLevel>(priority_rows_));  // the solver's rows changed
}

void Allocator::setPriorities(std::span<const PriorityLevel> levels) {
  int max_rows = 0;
  std::size_t unowned = 0;
  for (const PriorityLevel& level : levels) {
    if (level.accelerations.cols() != n_)
      throw std::invalid_argument("Allocator::setPriorities: each level needs n = " + std::to_string(n_) + " columns");
    for (int i : level.owners)
      if (i < 0 || i >= p_)
        throw std::invalid_argument("Allocator::setPriorities: owner " + std::to_string(i) + " is no input");
    max_rows = std::max(max_rows, static_cast<int>(level.accelerations.rows()));
    unowned += level.owners.empty();
  }
  priority_rows_.assign(levels.begin(), levels.end());
  priority_levels_.resize(levels.size());
  unowned_levels_.clear();
  unowned_levels_.reserve(unowned);
  for (std::size_t k = 0; k < levels.size(); ++k) {
    priority_levels_[k].C.resize(levels[k].accelerations.rows(), p_);
    priority_levels_[k].d.resize(levels[k].accelerations.rows());
    if (levels[k].owners.empty()) unowned_levels_.push_back(priority_levels_[k]);
  }
  priority_qp_.reset();
  if (levels.empty()) return;
  const VecX unbounded = VecX::Constant(p_, std::numeric_limits<double>::infinity());
  stackWithBounds(MatX(0, p_), VecX(0), -unbounded, unbounded, box_rows_, box_bounds_);
  const int m = static_cast<int>(set_rows_.rows() > 0 ? qp_rows_.rows() : box_rows_.rows());
  priority_qp_.emplace(p_, m, max_rows);
}

bool Allocator::wellConditioned() const {
  if (h_llt_.info() != Eigen::Success) return false;
  const MatX& l = h_llt_.matrixLLT();
  for (Eigen::Index i = 0; i < l.rows(); ++i)
    if (l(i, i) * l(i, i) < kRankTolerance * h_(i, i)) return false;
  return true;
}

bool Allocator::solve(const MatX& M, const VecX& b, const MatX& B, const MatX& Mbar,
                      const VecX& bbar, const VecX& lower, const VecX& upper, AllocationMode mode,
                      AllocationResult& out) {
  const Eigen::Index n = M.rows(), p = B.cols();
  if (M.cols() != n || b.size() != n || B.rows() != n || Mbar.rows() != n || Mbar.cols() != n ||
      bbar.size() != n)
    throw std::invalid_argument("Allocator::solve: inconsistent sizes of M, b, B, Mbar, bbar");
  if (n > n_ || p > p_)
    throw std::invalid_argument(
        "Allocator::solve: problem larger than the allocator was built for");
  if (n == 0 || p == 0) throw std::invalid_argument("Allocator::solve: empty problem");
  out.qp_status = InequalityQpStatus::Optimal;  // a failure below is then not the QP's
  out.qp_iterations = 0;
  const bool constrained = mode == AllocationMode::Constrained;
  if (constrained) {  // bounds are read in Constrained mode only
    if (lower.size() != p || upper.size() != p)
      throw std::invalid_argument("Allocator::solve: bounds must have p entries");
    checkBounds(lower, upper, "Allocator::solve");
  }
  if (mode == AllocationMode::Exact && p != n) return false;
  const bool sets = constrained && set_rows_.rows() > 0;
  if (sets && p != p_) throw std::invalid_argument("Allocator::solve: input sets are over all the allocator's inputs");

  // Bit for bit (memcmp: a tenth of an element-wise loop's cost). −0 against +0 merely
  // refactorizes; NaN data repeated bit for bit reuses factors that give a non-finite u₀, which
  // fails below as a refactorization would.
  auto same = [](const MatX& x, const MatX& y) {
    return x.rows() == y.rows() && x.cols() == y.cols() &&
           std::memcmp(x.data(), y.data(), static_cast<std::size_t>(x.size()) * sizeof(double)) == 0;
  };
  if (!(factors_valid_ && factored_mode_ == mode && same(M, factored_M_) && same(B, factored_B_) &&
        same(Mbar, factored_Mbar_))) {
    factors_valid_ = factorize(M, B, Mbar, mode);
    if (!factors_valid_) return false;
    factored_M_ = M;
    factored_B_ = B;
    factored_Mbar_ = Mbar;
    factored_mode_ = mode;
  }

  // ã = M⁻¹ b − M̄⁻¹ b̄ (work_n_ = M̄⁻¹ b̄ = −a_des)
  const bool explicit_inverses = explicit_inverses_ && mode != AllocationMode::Exact;
  if (explicit_inverses) {  // n ≤ 12: coefficient-wise products, no GEMV kernel dispatch
    work_n_.noalias() = mbar_inverse_.lazyProduct(bbar);
    a_tilde_.noalias() = m_inverse_.lazyProduct(b);
  } else {
    work_n_ = bbar;
    mbar_llt_.solveInPlace(work_n_);
    a_tilde_ = b;
    m_llt_.solveInPlace(a_tilde_);
  }
  a_tilde_ -= work_n_;

  VecX& u0 = out.u_unconstrained;
  if (mode == AllocationMode::Exact) {
    // u = B⁻¹(b − M M̄⁻¹ b̄) (4.51, (4.67a) corrected). PBQ = LU; solved by hand because
    // FullPivLU::solve allocates a temporary.
    work_n2_ = b;
    work_n2_.noalias() -= M * work_n_;
    work_p_.noalias() = b_lu_.permutationP() * work_n2_;
    b_lu_.matrixLU().triangularView<Eigen::UnitLower>().solveInPlace(work_p_);
    b_lu_.matrixLU().triangularView<Eigen::Upper>().solveInPlace(work_p_);
    u0.resize(p);
    u0.noalias() = b_lu_.permutationQ() * work_p_;
  } else if (explicit_inverses) {
    u0.noalias() = gain_.lazyProduct(a_tilde_);  // (4.53) with the gain H⁻¹(M̄M⁻¹B)ᵀ formed once
  } else {
    // u₀ = H⁻¹ Bᵀ M⁻¹ M̄ ã = H⁻¹ Bᵀ M⁻¹ (M̄ M⁻¹ b − b̄) (4.53).
    work_p_.noalias() = mbar_minv_b_.transpose() * a_tilde_;
    u0 = work_p_;
    h_llt_.solveInPlace(u0);
  }
  if (!u0.allFinite()) return false;  // NaN in the data passes the factorizations

  // Diagnostics on request only (evaluateDeviations): they cost a fifth of the allocation.
  out.matching_residual = out.template_deviation = std::numeric_limits<double>::quiet_NaN();
  out.saturated.assign(static_cast<std::size_t>(p), 0);
  out.set_rows_active.assign(static_cast<std::size_t>(sets ? set_rows_.rows() : 0), 0);
  out.qp_iterations = 0;
  out.qp_status = InequalityQpStatus::Optimal;
  out.u = u0;
  if (priority_qp_ && n == n_ && p == p_ && mode != AllocationMode::Exact) {
    if (solvePrioritized(lower, upper, constrained, sets, out)) return true;
    // The lexicographic QP failed: the allocation of (4.63) without priorities.
    out.u = u0;
    out.qp_status = InequalityQpStatus::Optimal;
  }
  if (!constrained) return true;

  bool inside = true;
  for (Eigen::Index i = 0; i < p; ++i) inside = inside && lower(i) <= u0(i) && u0(i) <= upper(i);
  if (sets) inside = inside && satisfiesInequalities(set_rows_, set_bounds_, u0);
  if (inside) return true;  // (4.63): a feasible u₀ is the constrained optimum
  // min ½ (u − u₀)ᵀ H (u − u₀) s.t. lower ≤ u ≤ upper [, W u ≤ l] (4.63);
  // Ḡ(u) = Ḡ₀ + ½ ‖u − u₀‖²_H (4.54).
  if (!sets) {
    out.qp_iterations = boxQpActiveSet(h_, u0, lower, upper, allocatorQpIterations(p), out.u, out.saturated,
                                       qp_factor_, qp_gradient_, qp_step_, qp_free_);
  } else {
    const Eigen::Index m = set_rows_.rows();
    setBoundRows(lower, upper, m, qp_bounds_);
    const InequalityQpResult& r = set_qp_->solve(h_, u0, qp_rows_, qp_bounds_, allocatorQpIterations(m + 2 * p));
    out.qp_status = r.status;
    out.qp_iterations = r.iterations;
    if (r.status != InequalityQpStatus::Optimal) return false;
    out.u = r.u;
    for (Eigen::Index i = 0; i < p; ++i)
      out.saturated[static_cast<std::size_t>(i)] =
          r.active[static_cast<std::size_t>(m + i)] ? 1 : r.active[static_cast<std::size_t>(m + p + i)] ? -1 : 0;
    std::copy(r.active.begin(), r.active.begin() + m, out.set_rows_active.begin());
  }
  return true;
}

bool Allocator::solvePrioritized(const VecX& lower, const VecX& upper, bool constrained, bool sets,
                                 AllocationResult& out) {
  // Level k in inputs: C_k u − d_k = R_k (ξ̇(u) − a_des) with C_k = R_k M⁻¹B, d_k = R_k ã
  // (ã = M⁻¹ b − M̄⁻¹ b̄ = M⁻¹ b + a_des).
  // Priorities apply when the inputs saturate: a u₀ within the bounds and sets is the allocation
  // of (4.54)/(4.63) as without priorities, and so is the least-squares mode (no bounds).
  const VecX& u0 = out.u_unconstrained;
  const Eigen::Index p = u0.size();
  if (!constrained) return true;
  bool inside = true;
  for (Eigen::Index i = 0; i < p; ++i) inside = inside && lower(i) <= u0(i) && u0(i) <= upper(i);
  if (sets) inside = inside && satisfiesInequalities(set_rows_, set_bounds_, u0);
  if (inside) return true;
  bool any_owned = false;
  for (std::size_t k = 0; k < priority_rows_.size(); ++k) {
    priority_levels_[k].C.noalias() = priority_rows_[k].accelerations * minv_b_;
    priority_levels_[k].d.noalias() = priority_rows_[k].accelerations * a_tilde_;
    any_owned = any_owned || !priority_rows_[k].owners.empty();
  }
  const Eigen::Index m = sets ? set_rows_.rows() : 0;
  const MatX& rows = sets ? qp_rows_ : box_rows_;
  VecX& bounds = sets ? qp_bounds_ : box_bounds_;
  setBoundRows(lower, upper, m, bounds);
  const InequalityQpResult* r =
      &priority_qp_->solve(h_, u0, priority_levels_, rows, bounds, allocatorQpIterations(rows.rows()));
  out.qp_status = r->status;
  out.qp_iterations = r->iterations;
  if (r->status != InequalityQpStatus::Optimal) return false;
  // An owner on a bound (to the levels' accuracy, ~1e-9 of the bounds; `active` marks only the
  // constraints of the last reduced QP): the levels with owners are given up, the others solved again.
  const auto bound = [&](Eigen::Index i) -> signed char {
    constexpr double kTolerance = 1e-7;
    return r->u(i) >= upper(i) - kTolerance * std::max(1.0, std::abs(upper(i)))   ? 1
           : r->u(i) <= lower(i) + kTolerance * std::max(1.0, std::abs(lower(i))) ? -1
                                                                                   : 0;
  };
  bool owner_saturated = false;
  for (std::size_t k = 0; any_owned && k < priority_rows_.size(); ++k)
    for (int i : priority_rows_[k].owners) owner_saturated = owner_saturated || bound(i) != 0;
  if (owner_saturated) {
    for (std::size_t k = 0, j = 0; k < priority_rows_.size(); ++k) {
      if (!priority_rows_[k].owners.empty()) continue;
      unowned_levels_[j].C = priority_levels_[k].C;
      unowned_levels_[j++].d = priority_levels_[k].d;
    }
    const InequalityQpResult& unowned =
        priority_qp_->solve(h_, u0, unowned_levels_, rows, bounds, allocatorQpIterations(rows.rows()));
    if (unowned.status != InequalityQpStatus::Optimal) return false;
    out.qp_iterations += unowned.iterations;
    r = &unowned;
  }
  // The levels are feasible to their accuracy (LexicographicQp: ~1e-9 of the bounds); the plant
  // clamps to the bounds anyway, and the diagnostics should see the input it applies.
  out.u = r->u.cwiseMax(lower).cwiseMin(upper);
  for (Eigen::Index i = 0; i < p; ++i) out.saturated[static_cast<std::size_t>(i)] = bound(i);
  std::copy(r->active.begin(), r->active.begin() + m, out.set_rows_active.begin());
  return true;
}

void Allocator::evaluateDeviations(AllocationResult& out) {
  RBS_ASSERT(factors_valid_, "Allocator::evaluateDeviations before a successful solve()");
  const VecX& u0 = out.u_unconstrained;
  RBS_ASSERT(u0.size() == factored_B_.cols() && out.u.size() == u0.size(),
             "Allocator::evaluateDeviations: not the result of the last solve()");
  // Ḡ₀ = Ḡ(u₀) = ½ ‖P⊥ ã‖²_M̄ = ½ λᵀ S λ (4.54)/(4.57); ≈ 0 when fully actuated. Ḡ(u) at the applied u:
  // Ḡ₀ itself when the bounds left u₀ alone, else Ḡ₀ + ½ ‖u − u₀‖²_H (4.54), evaluated directly.
  out.matching_residual = templateDeviation(mbar_llt_, minv_b_, a_tilde_, u0, work_n_);
  const bool at_u0 = std::equal(out.u.data(), out.u.data() + out.u.size(), u0.data());
  out.template_deviation =
      at_u0 ? out.matching_residual : templateDeviation(mbar_llt_, minv_b_, a_tilde_, out.u, work_n_);
}

bool Allocator::plantAcceleration(const VecX& b, const VecX& u, VecX& xidot) const {
  RBS_ASSERT(factors_valid_, "Allocator::plantAcceleration before a successful solve()");
  if (!mass_regular_) return false;
  RBS_ASSERT(b.size() == factored_M_.rows() && u.size() == factored_B_.cols() && xidot.size() == b.size(),
             "Allocator::plantAcceleration: sizes differ from the last solve()");
  // −M⁻¹ b, then + (M⁻¹B) u with the M⁻¹B that factorize() keeps for every mode.
  if (explicit_inverses_ && factored_mode_ != AllocationMode::Exact) {
    xidot.noalias() = -m_inverse_.lazyProduct(b);
  } else {
    xidot = -b;
    m_llt_.solveInPlace(xidot);
  }
  xidot.noalias() += minv_b_ * u;
  return true;
}

bool Allocator::factorize(const MatX& M, const MatX& B, const MatX& Mbar, AllocationMode mode) {
  const Eigen::Index p = B.cols();
  m_llt_.compute(M);
  if (m_llt_.info() != Eigen::Success) return false;
  mass_regular_ = regularCholeskyPivots(m_llt_.matrixLLT(), M);
  mbar_llt_.compute(Mbar);
  if (mbar_llt_.info() != Eigen::Success) return false;
  minv_b_ = B;  // M⁻¹ B
  m_llt_.solveInPlace(minv_b_);
  if (mode == AllocationMode::Exact) {
    b_lu_.compute(B);
    return b_lu_.isInvertible();
  }
  // H = Bᵀ M⁻¹ M̄ M⁻¹ B (4.53).
  mbar_minv_b_.noalias() = Mbar * minv_b_;
  h_.noalias() = minv_b_.transpose() * mbar_minv_b_;
  for (Eigen::Index j = 0; j < p; ++j)  // exactly symmetric for the QP
    for (Eigen::Index i = j + 1; i < p; ++i) h_(j, i) = h_(i, j);
  h_llt_.compute(h_);
  if (!wellConditioned()) {
    // B is (numerically) rank deficient: redundant inputs, e.g. four thrusts that only make
    // F_z, τ_x, τ_y. The Gauss functional then has a whole affine set of minimizers; the
    // Tikhonov term δ‖u‖² picks (in the limit) the one of least norm, and keeps the box QP's
    // Hessian definite. δ relative to the mean diagonal changes well-posed directions by ~δ.
    const double delta = kRegularization * std::max(h_.trace() / static_cast<double>(p), 1e-300);
    h_.diagonal().array() += delta;
    h_llt_.compute(h_);
    if (!wellConditioned()) return false;
  }
  if (explicit_inverses_) {
    m_inverse_.setIdentity(M.rows(), M.rows());
    m_llt_.solveInPlace(m_inverse_);
    mbar_inverse_.setIdentity(M.rows(), M.rows());
    mbar_llt_.solveInPlace(mbar_inverse_);
    gain_ = mbar_minv_b_.transpose();  // H⁻¹ (M̄M⁻¹B)ᵀ
    h_llt_.solveInPlace(gain_);
  }
  return true;
}

int solveBoxQp(const MatX& H, const VecX& u0, const VecX& lower, const VecX& upper, VecX& u,
               std::vector<signed char>& active, int max_iterations) {
  const Eigen::Index p = u0.size();
  if (H.rows() != p || H.cols() != p || lower.size() != p || upper.size() != p)
    throw std::invalid_argument("solveBoxQp: inconsistent sizes of H, u0, lower, upper");
  if (&u == &u0) throw std::invalid_argument("solveBoxQp: u must not alias u0");
  if (!H.allFinite() || !u0.allFinite())
    throw std::invalid_argument("solveBoxQp: H and u0 must be finite");
  checkBounds(lower, upper, "solveBoxQp");
  if (p == 0) {
    u.resize(0);
    active.clear();
    return 0;
  }
  if (p <= kStackInputs) {  // no heap allocation beyond `u` and `active`
    using StackMat = Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::ColMajor,
                                   kStackInputs, kStackInputs>;
    using StackVec = Eigen::Matrix<double, Eigen::Dynamic, 1, Eigen::ColMajor, kStackInputs, 1>;
    using StackIdx = Eigen::Matrix<int, Eigen::Dynamic, 1, Eigen::ColMajor, kStackInputs, 1>;
    StackMat factor(p, p);
    StackVec gradient(p), step(p);
    StackIdx free_index(p);
    return boxQpActiveSet(H, u0, lower, upper, max_iterations, u, active, factor, gradient, step,
                          free_index);
  }
  MatX factor(p, p);
  VecX gradient(p), step(p);
  Eigen::VectorXi free_index(p);
  return boxQpActiveSet(H, u0, lower, upper, max_iterations, u, active, factor, gradient, step,
                        free_index);
}

}  // namespace rbs
