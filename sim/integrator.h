// Integration of the equations of motion z = [x; ξ], ż = [A(x) ξ; ξ̇] with Boost.Odeint
// (vector-space algebra on Eigen::VectorXd). Coordinate drift (RᵀR − I, |q| − 1, c² + s² − 1) is
// handled by a policy: projection after every accepted step (default), the stabilization term of
// (A.10)–(A.12) inside the right-hand side, or nothing.
//
// Steppers: euler, rk4 (fixed step); rk_cash_karp54, rk_dopri5 (dense output), rk_fehlberg78,
// bulirsch_stoer (adaptive); rkmk4 — a Runge–Kutta–Munthe-Kaas method with the classical RK4
// tableau (fixed step, order 4) on the product group SO(3)ⁿ × S³ᵐ × SO(2)ᵏ × ℝᵈ: rotation matrices
// are updated by R ← R₀ · expSO3(u), quaternions by q ← q₀ ⊗ exp(u/2), unit-circle pairs by a
// rotation through the angle u, every other coordinate (r, ξ, angles, …) additively. The stage
// generators are the body angular velocities Ω = vee(Rᵀ Ṙ) read from ẋ (so the absolute-ω joint and
// the stabilization term need no special case: the latter is symmetric in Rᵀ Ṙ and drops out), with
// the exact inverse of the right-trivialized dexp on so(3). RᵀR = I, |q| = 1 and c² + s² = 1 are
// then kept to rounding without projection (sim/rkmk4.h).
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <string_view>

#include "core/dynamics/dynamics.h"
#include "sim/push_forces.h"

namespace rbs {

enum class StepperKind { Euler, Rk4, RkCashKarp54, RkDopri5, RkFehlberg78, BulirschStoer, Rkmk4 };
/// All steppers, in the order of the enum.
inline constexpr StepperKind kAllSteppers[] = {
    StepperKind::Euler,    StepperKind::Rk4,           StepperKind::RkCashKarp54, StepperKind::RkDopri5,
    StepperKind::RkFehlberg78, StepperKind::BulirschStoer, StepperKind::Rkmk4};
std::string_view stepperName(StepperKind kind);
/// The stepper of a name ("rk4", "bulirsch_stoer", "rkmk4", …); nullopt for an unknown name.
std::optional<StepperKind> stepperFromName(std::string_view name);
/// "euler, rk4, rk_cash_karp54, rk_dopri5, rk_fehlberg78, bulirsch_stoer, rkmk4".
std::string stepperNameList();
bool isAdaptive(StepperKind kind);
/// True for the steppers whose samples come from dense output (rk_dopri5).
bool hasDenseOutput(StepperKind kind);
/// Convergence order of a fixed-step stepper (euler 1, rk4 4, rkmk4 4); the error order of the
/// adaptive ones (5, 5, 8; bulirsch_stoer: variable, reported as 0).
int stepperOrder(StepperKind kind);

enum class DriftPolicy { Project, Stabilize, None };
std::string_view driftPolicyName(DriftPolicy policy);  ///< "project", "stabilize", "none"
std::optional<DriftPolicy> driftPolicyFromName(std::string_view name);

struct IntegrationOptions {
  StepperKind stepper = StepperKind::Rk4;
  double dt = 1e-3;             ///< fixed step, or initial step of the adaptive steppers [s]
  double rtol = 1e-8;           ///< adaptive steppers
  double atol = 1e-8;
  DriftPolicy drift = DriftPolicy::Project;
  double stabilization_gain = 10.0;  ///< λ [1/s] for DriftPolicy::Stabilize
  double max_drift = 1e-3;      ///< divergence bound on the coordinate drift
  double min_step = 1e-12;      ///< adaptive step-size underflow bound [s]
};

/// The integration's state vector z = [x; ξ] and the State it holds: the one place that splits
/// and joins them.
void splitState(const Model& model, const VecX& z, State& out);
VecX joinState(const State& state);

/// Inputs u(t, x, ξ) of size model.numInputs(); writes into `u`.
using InputFunction = std::function<void(double t, const State& state, VecX& u)>;

/// ż = (ẋ, ξ̇) at (state, u) from an evaluation of the plant that the input's source already made
/// (a plant-based controller, InputHold::plantRate); false when there is none.
using SharedRateFunction =
    std::function<bool(const State& state, const VecX& u, double stabilization_gain, VecX& xdot, VecX& xidot)>;

/// The right-hand side ż = f(z, t) as an odeint system.
class DynamicsRhs {
 public:
  /// `shared_rate` (optional) is asked first, right after `input`, while no push acts; when it
  /// gives a finite ż, the dynamics are not evaluated a second time (the closed loop then costs
  /// the controller plus a solve, not the controller plus the plant).
  DynamicsRhs(const Model& model, InputFunction input, double stabilization_gain, SharedRateFunction shared_rate = {});
  void operator()(const VecX& z, VecX& dzdt, double t);

  DynamicsStatus status() const { return status_; }
  /// Forgets a failure status (before a new trial step of an adaptive stepper).
  void clearStatus() { status_ = DynamicsStatus::Ok; }
  long evaluations() const { return evaluations_; }
  Workspace& workspace() { return ws_; }
  /// Pushes to add to f_E (sim/push_forces.h); null: none. Must outlive the right-hand side.
  void setPushes(PushForces* pushes) { pushes_ = pushes; }

 private:
  const Model& model_;
  InputFunction input_;
  SharedRateFunction shared_rate_;
  double gain_;
  Workspace ws_;
  State state_;
  VecX u_;
  PushForces* pushes_ = nullptr;
  DynamicsStatus status_ = DynamicsStatus::Ok;
  long evaluations_ = 0;
};

}  // namespace rbs
