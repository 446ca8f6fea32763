// Integration of the equations of motion z = [x; ξ], ż = [A(x) ξ; ξ̇] with Boost.Odeint
// (vector-space algebra on Eigen::VectorXd). Coordinate drift (RᵀR − I, |q| − 1, c² + s² − 1) is
// handled by a policy: projection after every accepted step (default), the stabilization term of
// (A.10)–(A.12) inside the right-hand side, or nothing.
#pragma once

#include <functional>
#include <string>
#include <string_view>

#include "core/dynamics/dynamics.h"

namespace rbs {

enum class StepperKind { Euler, Rk4, RkCashKarp54, RkDopri5, RkFehlberg78 };
std::string_view stepperName(StepperKind kind);
bool isAdaptive(StepperKind kind);

enum class DriftPolicy { Project, Stabilize, None };

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

/// Inputs u(t, x, ξ) of size model.numInputs(); writes into `u`.
using InputFunction = std::function<void(double t, const State& state, VecX& u)>;

/// The right-hand side ż = f(z, t) as an odeint system.
class DynamicsRhs {
 public:
  DynamicsRhs(const Model& model, InputFunction input, double stabilization_gain);
  void operator()(const VecX& z, VecX& dzdt, double t);

  DynamicsStatus status() const { return status_; }
  long evaluations() const { return evaluations_; }
  Workspace& workspace() { return ws_; }

 private:
  const Model& model_;
  InputFunction input_;
  double gain_;
  Workspace ws_;
  State state_;
  VecX u_;
  DynamicsStatus status_ = DynamicsStatus::Ok;
  long evaluations_ = 0;
};

struct IntegrationResult {
  bool ok = true;
  double t = 0.0;            ///< time reached
  std::string message;       ///< why it stopped early (time and cause)
  long steps = 0;            ///< accepted steps
  long rhs_evaluations = 0;
  double max_drift = 0.0;    ///< largest coordinate drift seen before projection
};

/// Integrates `state` from t0 to t1. `observer(t, state)` is called at t0 and then every dt_out
/// (the adaptive steppers use dense output or step to the sample times, so samples do not depend on
/// the internal steps); dt_out ≤ 0 calls it after every step.
IntegrationResult integrate(const Model& model, State& state, double t0, double t1,
                            const IntegrationOptions& options, const InputFunction& input,
                            double dt_out = 0.0,
                            const std::function<void(double, const State&)>& observer = {});

}  // namespace rbs
