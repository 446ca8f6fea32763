// Input allocation (konz-control §8, thesis 4.5): the input u whose plant acceleration
// M⁻¹(B u − b) comes closest to the template acceleration a_des = −M̄⁻¹ b̄ in the metric of the
// desired inertia M̄ (Gauss' principle, (4.52)):
//   exact          u = B⁻¹(b − M M̄⁻¹ b̄)                                   (4.51)/(4.67a corrected)
//   least squares  u₀ = H⁻¹ Bᵀ M⁻¹ (M̄ M⁻¹ b − b̄),  H = Bᵀ M⁻¹ M̄ M⁻¹ B       (4.53)/(4.67b)
//   constrained    min ½ (u − u₀)ᵀ H (u − u₀)  s.t.  lower ≤ u ≤ upper, W u ≤ l   (4.63)
//                  (the box QP without input sets; with them the dual active-set QP)
// Diagnostics: the matching residual Ḡ₀ = ½ λᵀ S λ with λ = (B⊥)ᵀ(M M̄⁻¹ b̄ − b),
// S = ((M B⊥)ᵀ M̄⁻¹ M B⊥)⁻¹ (4.57; the printed (4.67c) swaps M and M̄), and which inputs sit on a
// bound.
#pragma once

#include <vector>

#include <Eigen/Cholesky>
#include <Eigen/LU>

#include <optional>
#include <span>

#include "core/math/inequality_qp.h"
#include "core/math/lexicographic_qp.h"
#include "core/math/se3.h"

namespace rbs {

enum class AllocationMode {
  Exact,         ///< p = n and B invertible; bounds ignored
  LeastSquares,  ///< M̄-weighted least squares; bounds ignored
  Constrained,   ///< least squares, then the box QP when u₀ violates a bound
};

struct AllocationResult {
  VecX u;                           ///< the input to apply (size p)
  VecX u_unconstrained;             ///< u₀ (size p)
  // Diagnostics: NaN after Allocator::solve(), filled by Allocator::evaluateDeviations().
  double matching_residual = 0.0;   ///< Ḡ₀ = ½ λᵀ S λ ≥ 0 (0 when fully actuated)
  double template_deviation = 0.0;  ///< Ḡ(u) = ½ ‖M⁻¹(B u − b) + M̄⁻¹ b̄‖²_M̄ at the applied u
  /// Per input: −1 on its lower bound, +1 on its upper bound, 0 free (Constrained mode only).
  std::vector<signed char> saturated;
  /// Per row of the input-set inequalities W u ≤ l: 1 when it is active at u (Constrained mode).
  std::vector<char> set_rows_active;
  int qp_iterations = 0;
  /// How the input-set QP ended (Optimal also when it was not needed); solve() returns false
  /// otherwise.
  InequalityQpStatus qp_status = InequalityQpStatus::Optimal;
};

/// Preallocated solver for one problem size (n velocity coordinates, p inputs).
class Allocator {
 public:
  /// `constant_matrices`: the caller expects M, B and M̄ to stay the same from call to call (a
  /// single rigid body with a base template). Then, for n ≤ 12, the least-squares modes keep M⁻¹,
  /// M̄⁻¹ and H⁻¹(M̄M⁻¹B)ᵀ explicitly and solve by three products; otherwise by the factors.
  /// Either way the factorizations are reused while the matrices are unchanged.
  Allocator(int n, int p, bool constant_matrices = false);

  /// M (n×n, SPD), b (n): plant M ξ̇ + b = B u; B (n×p); M̄ (n×n, SPD), b̄ (n): template
  /// M̄ ξ̇ + b̄ = 0; lower/upper (p): input bounds (±inf allowed). Returns false (and leaves `out`
  /// unspecified) when M or M̄ is not positive definite, the data is not finite, or Exact is
  /// asked for with a singular or non-square B. A rank-deficient B (redundant inputs) in the
  /// least-squares modes gives the least-norm minimizer (Tikhonov limit).
  bool solve(const MatX& M, const VecX& b, const MatX& B, const MatX& Mbar, const VecX& bbar,
             const VecX& lower, const VecX& upper, AllocationMode mode, AllocationResult& out);

  /// The diagnostics of the last successful solve() into `out`, the result that call wrote:
  /// matching_residual and template_deviation. They cost about a fifth of the allocation, so a
  /// controller asks for them per output sample, not per right-hand side.
  void evaluateDeviations(AllocationResult& out);

  /// Linear inequalities W u ≤ l (m × p, p = this allocator's inputs; Model::input_sets stacked by
  /// stackInputSetRows) that Constrained mode keeps beside the bounds: the QP (4.63) then runs on
  /// the polygon by the dual active-set method (InequalityQp). Without rows (the default) the box
  /// QP is used. Throws std::invalid_argument for a wrong width or non-finite entries.
  void setInputSetRows(const MatX& W, const VecX& l);

  /// Strict priorities when the inputs saturate (issue 46; docs/CONTROL.md "Recovery"), in the
  /// Constrained mode with a u₀ (4.53) outside the bounds or sets: level 1 minimizes the squared
  /// residual of its rows (PriorityLevel), level 2 among the inputs that keep level 1's value, and
  /// so on, the Gauss functional Ḡ (4.52) last (LexicographicQp), within the bounds and sets in
  /// Constrained mode. A u₀ within the bounds and sets is the answer as without priorities, and the
  /// least-squares mode (no bounds) is unchanged; where the lexicographic QP fails, the allocation
  /// is the one without priorities. Kept for every later solve(); no levels (the default) is the
  /// allocation of (4.53)/(4.63). Throws std::invalid_argument for a wrong width.
  struct PriorityLevel {
    /// R (r × n, n = this allocator's coordinates): R (ξ̇(u) − a_des) with ξ̇(u) = M⁻¹(B u − b),
    /// a_des = −M̄⁻¹ b̄ — e.g. a multicopter's tilt, then its acceleration along the thrust axis.
    MatX accelerations;
    /// Inputs (indices into u) that own this level, e.g. an arm's joint torques owning the joints'
    /// accelerations, put before the vehicle's levels. Met first, the owned rows fix what the owners
    /// do as a function of the other inputs, so the owners cannot serve the later levels (an arm's
    /// torque is no reaction wheel for the tilt). When the answer leaves an owner on a bound (the
    /// owners cannot meet their rows alone), the levels with owners are given up and the others
    /// solved again without them, so the other inputs do not help rows whose owners cannot hold
    /// them (a saturated arm does not draw the thrust). Empty: an ordinary level.
    std::vector<int> owners;
  };
  void setPriorities(std::span<const PriorityLevel> levels);
  bool hasPriorities() const { return !priority_rows_.empty(); }

  /// The plant's acceleration ξ̇ = M⁻¹(B u − b) (4.2) for any input u (size p), by the factors of
  /// the last successful solve(): M and B are that call's, b is given again. xidot must have size
  /// n (no allocation). Returns false, leaving xidot alone, when M is singular to working
  /// precision by the dynamics' own test (regularCholeskyPivots: the forward dynamics would stop
  /// with SingularMassMatrix there, while the allocation itself may still succeed).
  bool plantAcceleration(const VecX& b, const VecX& u, VecX& xidot) const;

 private:
  /// With priorities (setPriorities): out.u from the lexicographic QP when `constrained` (the bounds
  /// and sets apply) and u₀ leaves them; else u₀.
  bool solvePrioritized(const VecX& lower, const VecX& upper, bool constrained, bool sets, AllocationResult& out);
  /// h_llt_ succeeded and no pivot is below the rank tolerance.
  bool wellConditioned() const;
  /// The factorizations that depend on M, B and M̄ alone (LLT of M and M̄, M⁻¹B, and H with its
  /// LLT or the LU of B). False when one of them fails.
  bool factorize(const MatX& M, const MatX& B, const MatX& Mbar, AllocationMode mode);

  int n_, p_;
  Eigen::LLT<MatX> m_llt_, mbar_llt_, h_llt_;  // M, M̄, H
  Eigen::FullPivLU<MatX> b_lu_;                // B (Exact mode)
  MatX minv_b_;                                // M⁻¹ B (n×p)
  MatX mbar_minv_b_;                           // M̄ M⁻¹ B (n×p)
  MatX h_;                                     // H (p×p)
  MatX qp_factor_;                             // box QP: Cholesky of the free block of H
  VecX a_tilde_;                               // ã = M⁻¹ b − M̄⁻¹ b̄ (n)
  VecX work_n_, work_n2_, work_p_, qp_gradient_, qp_step_;
  Eigen::VectorXi qp_free_;
  // The matrices the factorizations above belong to. A free flyer with body-twist coordinates
  // and a base template has constant M, B and M̄ (only b and b̄ vary), so solve() refactorizes
  // only when one of them differs, bit for bit, from the previous call.
  MatX factored_M_, factored_B_, factored_Mbar_;
  AllocationMode factored_mode_ = AllocationMode::LeastSquares;
  bool factors_valid_ = false;
  bool mass_regular_ = false;  ///< M passes regularCholeskyPivots (factorize())
  // Input sets: W, l, and the QP's rows [W; I; −I] with bounds [l; upper; −lower].
  MatX set_rows_;
  VecX set_bounds_;
  MatX qp_rows_;
  VecX qp_bounds_;
  std::optional<InequalityQp> set_qp_;
  // Priorities: the levels' rows, their input rows C_k = R_k M⁻¹B (per solve), and the
  // solver over the box rows [I; −I] (or the sets' rows when there are sets: qp_rows_).
  std::vector<PriorityLevel> priority_rows_;
  std::vector<LexicographicQp::Level> unowned_levels_;  // the levels without owners, in order
  std::vector<LexicographicQp::Level> priority_levels_;
  std::optional<LexicographicQp> priority_qp_;
  MatX box_rows_;
  VecX box_bounds_;
  // constant_matrices, n ≤ 12, least-squares modes: M⁻¹, M̄⁻¹ and H⁻¹(M̄M⁻¹B)ᵀ (factorize()).
  bool explicit_inverses_ = false;
  MatX m_inverse_, mbar_inverse_, gain_;
};

/// Strictly convex box QP  min ½ (u − u₀)ᵀ H (u − u₀)  s.t.  lower ≤ u ≤ upper  by a primal
/// active-set method (Nocedal & Wright, Alg. 16.3). H (p×p) SPD. Returns the number of
/// iterations, or −1 when it does not converge within `max_iterations` (then u is the last
/// feasible iterate). `active`: −1/0/+1 per component as in AllocationResult::saturated.
int solveBoxQp(const MatX& H, const VecX& u0, const VecX& lower, const VecX& upper, VecX& u,
               std::vector<signed char>& active, int max_iterations = 100);

}  // namespace rbs
