// The simulation engine: integrates one model from a state, samples every channel at a fixed
// output step dt_out (independent of the internal steps), and stops on divergence with a message
// naming time and cause. Used by the CLI (batch) and the GUI (incrementally, on a worker thread).
#pragma once

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <span>
#include <vector>

#include "sim/channels.h"
#include "sim/input_source.h"
#include "sim/integrator.h"
#include "sim/push_forces.h"

namespace rbs {

struct SimulationOptions {
  IntegrationOptions integration;
  double dt_out = 0.01;  ///< output sampling step [s]
  /// 0: the input function is evaluated inside every right-hand-side evaluation (smooth closed
  /// loop). > 0: zero-order hold, evaluated at this rate [Hz] and held in between.
  double control_rate = 0.0;
  /// 0: the recording keeps every sample. N > 0: it keeps at most N, dropping the oldest quarter
  /// when full (Recording::dropped counts them): a long interactive run that only needs its newest
  /// samples then has bounded memory.
  std::size_t max_recorded_samples = 0;
};

struct SimulationStats {
  long steps = 0;
  long rhs_evaluations = 0;
  double max_drift = 0.0;   ///< largest coordinate drift seen (before projection)
  double wall_time = 0.0;   ///< [s] spent in advanceTo
};

class Simulator {
 public:
  /// `input` computes u(t, state) (size model.numInputs()); empty: u = 0. The model must outlive
  /// the simulator.
  Simulator(const Model& model, SimulationOptions options, InputFunction input = {});
  /// Inputs from a source that may add channels (e.g. a ClosedLoop: controller + reference).
  /// A failing source stops the run with its failure() as the cause.
  Simulator(const Model& model, SimulationOptions options, std::shared_ptr<InputSource> source);

  /// Sets the state and time, clears the recording and records the first sample.
  void reset(const State& state, double t0 = 0.0);

  /// Integrates to t_end, recording a sample every dt_out. Returns false when the run stopped
  /// early (message() says at what time and why); further calls then do nothing.
  /// Samples are at t0 + k·dt_out exactly (computed by one multiplication). The stepper state is
  /// kept between calls: rk_dopri5 samples by dense output, so its recording does not depend on
  /// how the run is sliced; the other steppers also step onto t_end when it is off the sample
  /// (and hold) grid — slices at multiples of dt_out give the same recording as one call.
  /// A t_end at or before time() does nothing.
  bool advanceTo(double t_end);

  /// Attaches the mouse's spring to a body (or detaches it: nullopt) from time() on; kept until
  /// changed or reset() (which detaches it). The scripted pushes of model.pushes act in their
  /// windows by themselves.
  /// Call between advanceTo calls.
  void setSpringPush(const std::optional<SpringPush>& spring);
  /// The pushes: the spring and the composite masses and inertias that scale it.
  const PushForces& pushes() const;
  /// The wrenches pushing at time() and state() (null: none), for drawing them.
  const std::vector<AppliedWrench>* pushWrenches();

  double time() const;
  /// The state at time() (projected when the drift policy is Project; at a failure, the state
  /// where the run stopped).
  const State& state() const;
  bool failed() const;
  const std::string& message() const;
  const SimulationStats& stats() const;

  /// The channels: body poses (body.NAME.px/py/pz/qw/qx/qy/qz), energy.kinetic,
  /// energy.potential, energy.total, power.input, power.dissipation, constraint.drift, then
  /// u.NAME per actuator, constraint.closure when the model has loop closures, power.perturbation,
  /// perturbation.force.x/y/z and perturbation.torque.x/y/z (the pushes, sim/push_forces.h), then
  /// the input source's channels (error.*, control.*, saturation.* of a controller).
  /// Units: m, 1 (quaternion), J, W, 1 (drift), N or N m (inputs), m (closure). The quaternion is
  /// (w, x, y, z) of the body frame's world attitude, sign kept continuous between samples (the
  /// first has w ≥ 0). constraint.drift is model.coordinateDrift before projection; u.NAME is the
  /// input value used (after clamping to the actuator's limits; the held value with a zero-order
  /// hold).
  const ChannelSet& channels() const;
  /// All samples so far.
  const Recording& recording() const;

  /// Called after every recorded sample (time, values aligned with channels()); during the call,
  /// state() is the state at that sample.
  std::function<void(double t, std::span<const double> values)> on_sample;
  /// Called after every accepted internal step (after projection), e.g. for event detection.
  std::function<void(double t, const State& state)> on_step;

 private:
  struct Impl;
  std::shared_ptr<Impl> impl_;
};

struct IntegrationResult {
  bool ok = true;
  double t = 0.0;            ///< time reached
  std::string message;       ///< why it stopped early (time and cause)
  long steps = 0;            ///< accepted steps
  long rhs_evaluations = 0;
  double max_drift = 0.0;    ///< largest coordinate drift seen before projection
};

/// Integrates `state` from t0 to t1: a convenience over Simulator for batch use.
/// `observer(t, state)` is called at t0 and then at every sample t0 + k·dt_out; dt_out ≤ 0 calls
/// it after every accepted internal step instead.
IntegrationResult integrate(const Model& model, State& state, double t0, double t1,
                            const IntegrationOptions& options, const InputFunction& input,
                            double dt_out = 0.0,
                            const std::function<void(double, const State&)>& observer = {});

}  // namespace rbs
