// A closed loop whose controller sees a perturbed state (core/control/perturbation.h): the true
// state delayed and sampled as by a motion-capture system (5.47) and with white Gaussian noise.
// There is no state estimator: the controller acts on the raw delayed, noisy measurement,
// velocities included (the chapter 5.4 estimator, konz-multicopters §A.7, is future work).
//
// Needs a zero-order hold (SimulationOptions::control_rate > 0): the simulator then calls
// compute() only at the hold instants, always with the true state of that time (output samples
// use evaluateForSample(), which leaves the history and the noise alone). The loop keeps these (t, state) pairs; the controller gets the latest one with time ≤ the
// measured time, so the delay is quantized to the spacing of the kept states (the control period):
// with 200 Hz and 34 ms, the controller sees the state of 35 ms ago. Before the first kept state
// it sees the first one. Noise is drawn once per hold instant; a reset (or a call at an earlier
// time than the last) clears the history and restarts the noise sequence.
#pragma once

#include <deque>
#include <memory>
#include <vector>

#include "core/control/perturbation.h"
#include "sim/closed_loop.h"

namespace rbs {

class PerturbedLoop : public ClosedLoop {
 public:
  /// `model` gives the joint layout (the plant or the controller's model: same layout); it is
  /// copied where needed. `controller_model` as in ClosedLoop (may be null). Throws
  /// std::invalid_argument for invalid settings (perturbationError).
  PerturbedLoop(const Model& model, std::unique_ptr<Controller> controller,
                std::unique_ptr<Reference> reference, const PerturbationSettings& settings,
                std::shared_ptr<const Model> controller_model = {});

  void compute(double t, const State& state, VecX& u) override;
  /// At an output sample the controller is evaluated on the true state (so the channels report
  /// the true errors) without touching the measurement history or the noise sequence.
  void evaluateForSample(double t, const State& state, VecX& u) override;
  void reset(double t0) override;

  const PerturbationSettings& settings() const { return settings_; }
  /// The state the controller was given at the last compute().
  const State& measuredState() const { return measured_; }
  /// The time of the true state behind measuredState() (before noise).
  double measuredTime() const { return measured_time_; }

 private:
  struct Entry {
    double t;
    State state;
  };
  void restart();

  Model layout_;  ///< a copy of the model: its joint layout, for addMeasurementNoise
  PerturbationSettings settings_;
  NoiseGenerator rng_;
  std::deque<Entry> history_;  ///< true states at the times compute() was called, ascending
  State measured_;
  double measured_time_ = 0.0;
  double last_t_ = 0.0;
  bool have_last_ = false;
};

}  // namespace rbs
