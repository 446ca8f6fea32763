// The inputs the integration applies (SimulationOptions::control_rate): the source's u(t, state),
// clamped to the actuator limits and projected onto the model's input sets, either evaluated inside every right-hand side (a smooth closed
// loop) or evaluated at the hold instants t0 + k/rate and held constant in between (a zero-order
// hold, as a digital controller runs). The simulator decides when a hold instant is reached.
#pragma once

#include <memory>
#include <optional>

#include "core/model/input_sets.h"

#include "sim/input_source.h"
#include "sim/integrator.h"

namespace rbs {

/// What a run does to the inputs before the plant sees them: each clamped to its actuator's
/// [lower, upper], then projected onto the input sets (`projection`, made for the model; null
/// when the model has none).
void limitInputs(const Model& model, VecX& u, InputSetProjection* projection);

class InputHold {
 public:
  /// control_rate 0: no hold. `source` may be empty (u = 0).
  InputHold(const Model& model, std::shared_ptr<InputSource> source, double control_rate);

  bool holds() const { return rate_ > 0.0; }
  /// The k-th hold instant after t0, by one division (no accumulated sum).
  double instant(double t0, long k) const { return t0 + static_cast<double>(k) / rate_; }
  /// 1/rate [s]; 0 without a hold.
  double period() const { return holds() ? 1.0 / rate_ : 0.0; }

  /// u = clamp(source(t, state)) to the actuator limits, then onto the input sets (the nearest
  /// point, when a set is violated); zero without a source.
  void evaluate(double t, const State& state, VecX& u) const;
  /// u inside the right-hand side at (t, state): the held value under a hold, else evaluate().
  void rhsInput(double t, const State& state, VecX& u) const;
  /// ż at (state, u) from the source's own evaluation of the plant (InputSource::plantRate), right
  /// after rhsInput() gave u at that state; false under a hold (the source last ran at a hold
  /// instant, at another state), without a source, or when the source cannot.
  bool plantRate(const State& state, const VecX& u, double stabilization_gain, VecX& xdot, VecX& xidot) const;
  /// The value held from a hold instant at (t, state) on.
  void hold(double t, const State& state) { evaluate(t, state, held_); }
  /// Under a hold, the value held at the start of a run: evaluate(), or zero for a non-finite
  /// state. Without a hold nothing (the source is not called).
  void start(double t, const State& state, bool finite);
  const VecX& held() const { return held_; }

  InputSource* source() const { return source_.get(); }

 private:
  const Model& model_;
  std::shared_ptr<InputSource> source_;
  double rate_;
  VecX held_;
  mutable std::optional<InputSetProjection> projection_;  ///< with input sets only
};

/// The right-hand side under `hold` (which must outlive it): rhsInput() gives u, plantRate() the
/// rates when the source already evaluated the plant at that state.
DynamicsRhs makeRhs(const Model& model, const InputHold& hold, double stabilization_gain);

}  // namespace rbs
