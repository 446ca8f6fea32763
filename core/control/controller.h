// Tracking controllers (konz-control; ARCHITECTURE §4): u = u(t, x, ξ, x_R, ξ_R, ξ̇_R).
// Every controller declares its tunable parameters (ParameterSet: name, unit, default, range,
// scale) and the signals it reports (tracking errors, template energies, matching residual, …).
// Made by name through core/control/registry.h.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "core/control/parameters.h"
#include "core/control/reference.h"
#include "core/model/model.h"

namespace rbs {

class Recovery;

/// A named scalar signal a controller reports (the simulator turns it into a channel).
struct SignalInfo {
  std::string name;         ///< dotted, e.g. "error.position", "control.matching_residual"
  std::string unit;         ///< SI, "1" for dimensionless
  std::string description;  ///< one line
};

/// Declared signals, as Controller::addSignal / addSignals return them: `count` consecutive
/// entries of signalValues() from `first`. The one way a controller writes its signals
/// (Controller::signal, Controller::signalBlock), so it writes only what it declared.
struct SignalSlot {
  int first = -1;
  int count = 0;
  bool declared() const { return first >= 0; }
};

class Controller {
 public:
  virtual ~Controller() = default;

  /// The registry name ("prototype_body", "computed_torque", …).
  virtual std::string_view name() const = 0;

  /// Tunable parameters. Changing a value takes effect at the next compute(). A controller is not
  /// thread-safe: change parameters from the thread that runs the simulation, between steps.
  ParameterSet& parameters() { return parameters_; }
  const ParameterSet& parameters() const { return parameters_; }

  /// The signals, fixed after construction, and their values at the last compute().
  const std::vector<SignalInfo>& signals() const { return signals_; }
  const VecX& signalValues() const { return signal_values_; }

  /// Computes the input u (size model.numInputs()) at time t [s] for the state and the reference
  /// sample taken at the same t. Returns false on numerical trouble
  /// (singular desired inertia, non-finite numbers, …): message() says what; u is then undefined.
  virtual bool compute(double t, const State& state, const ReferenceSample& reference, VecX& u) = 0;

  /// Fills signalValues() for the state of the last successful compute(). Kept apart from
  /// compute() so that the right-hand side of the integration does not pay for plot signals; the
  /// simulator calls it at output samples only. The default does nothing (signals computed in
  /// compute()).
  virtual void updateSignals() {}

  /// The plant's rates ż = (ẋ, ξ̇) at `state`, the state of the last successful compute(), for
  /// the input u the simulator applies (u clamped to the actuator limits, so not always the u
  /// compute() returned): ξ̇ = M⁻¹(B u − b) (4.2) from the M, b, B and factorization of M that
  /// compute() already evaluated, ẋ = A(x) ξ (+ the drift term with gain λ) from its kinematics.
  /// This spares the right-hand side a second evaluation of the dynamics; it is offered only
  /// when those terms are the plant's own: `plant` is the very model the controller was made
  /// with (not a scaled copy or a force model), without loop closures (not part of b), and no
  /// external-force estimate shifted b. Returns false otherwise; the caller then evaluates the
  /// dynamics itself. Default: false.
  virtual bool plantRate(const Model& /*plant*/, const State& /*state*/, const VecX& /*u*/,
                         double /*stabilization_gain*/, VecX& /*xdot*/, VecX& /*xidot*/) {
    return false;
  }

  /// The recovery supervisor of a controller that recovers from large errors (docs/CONTROL.md
  /// "Recovery"; core/control/recovery.h), or null (the default).
  virtual Recovery* recovery() { return nullptr; }
  /// At a supervision instant (Recovery::kPeriod apart; the simulator makes them events) with the
  /// state of the model the simulation runs: lets the recovery supervisor decide; true when the
  /// controller's reference or template changed from t on. The default passes the state on to
  /// recovery() (false without one); a controller on another model maps it first.
  virtual bool supervise(double t, const State& state);

  /// Forget internal state (filters, integrators): the simulation restarts. Default: nothing.
  virtual void reset() {}
  /// True when compute() advances internal state (discrete filters): then it must be called once
  /// per control instant only, never for evaluation at an output sample.
  virtual bool hasInternalState() const { return false; }

  const std::string& message() const { return message_; }

  /// An estimate f̂ (size n = model.nxi, generalized forces in the coordinates of ξ) of the forces
  /// the controller's model lacks: the plant is taken as M ξ̇ + b = B u + f̂ (thesis 5.4.2, 5.4.6:
  /// the estimated force/torque bias F_B, τ_B takes the place of integral action). Used from the
  /// next compute() on by the controllers built on evaluatePlant (prototype_*, tiltrotor_inversion,
  /// computed_torque; geometric_se3 on its base wrench); others ignore it. Empty (the default):
  /// none, and the controllers compute exactly what they compute without this hook.
  void setExternalForceEstimate(const VecX& f) { external_force_ = f; }
  const VecX& externalForceEstimate() const { return external_force_; }

 protected:
  /// b ← b − f̂ when an estimate of size b.size() is set (plant-based controllers, after
  /// evaluatePlant); otherwise b is left untouched.
  void compensateExternalForce(VecX& b) const {
    if (external_force_.size() != 0 && external_force_.size() == b.size()) b -= external_force_;
  }

  /// Declares a signal; call in the constructor only.
  SignalSlot addSignal(std::string name, std::string unit, std::string description);
  /// Declares several consecutive signals (e.g. TrackingErrors::signals()).
  SignalSlot addSignals(const std::vector<SignalInfo>& signals);
  /// Entry k of a declared slot.
  double& signal(SignalSlot slot, int k = 0) {
    RBS_ASSERT(slot.declared() && k >= 0 && k < slot.count, "the signal was not declared in this slot");
    return signal_values_[slot.first + k];
  }
  /// The slot's `count` entries, for writers of a whole block (TrackingErrors::evaluate).
  double* signalBlock(SignalSlot slot) {
    RBS_ASSERT(slot.declared(), "the signals were not declared");
    return signal_values_.data() + slot.first;
  }
  /// Sets message() and returns false (for `return fail("…")`).
  bool fail(std::string message);

  ParameterSet parameters_;
  std::string message_;

 private:
  std::vector<SignalInfo> signals_;
  VecX signal_values_;
  VecX external_force_;
};

}  // namespace rbs
