// A closed loop whose controller sees a perturbed state (core/control/perturbation.h): the true
// state delayed and sampled as by a motion-capture system (5.47) and with white Gaussian noise, or,
// with `estimator.enabled`, the estimate of the chapter 5.4 state estimator fed by simulated IMU,
// motion-capture and encoder measurements (sim/estimator.h).
//
// Needs a zero-order hold (SimulationOptions::control_rate > 0): the simulator then calls
// compute() only at the hold instants, always with the true state of that time (output samples
// use evaluateForSample(), which leaves the history and the noise alone).
//
// Without the estimator the controller acts on the raw delayed, noisy measurement, velocities
// included. The loop keeps the (t, state) pairs of the hold instants; the controller gets the
// latest one with time ≤ the measured time, so the delay is quantized to the control period: with
// 200 Hz and 34 ms, the controller sees the state of 35 ms ago. Before the first kept state it sees
// the first one. Noise is drawn once per hold instant.
//
// With the estimator the controller sees its estimate at every hold instant and, with
// `estimator.bias_compensation`, receives the estimated force/torque bias
// (Controller::setExternalForceEstimate); the inputs it returns are the ones the next prediction
// uses. The channels gain the estimator's (SimulatedEstimator::channels()).
//
// A reset (or a call at an earlier time than the last) clears the history and restarts the noise
// sequence and the estimator.
#pragma once

#include <deque>
#include <memory>
#include <vector>

#include "core/control/perturbation.h"
#include "sim/closed_loop.h"
#include "sim/estimator.h"

namespace rbs {

class PerturbedLoop : public ClosedLoop {
 public:
  /// `model` gives the joint layout (the plant or the controller's model: same layout); it is
  /// copied where needed. `controller_model` as in ClosedLoop (may be null; the estimator uses it,
  /// else `model`). Throws std::invalid_argument for invalid settings (perturbationError) and, with
  /// the estimator, a model whose root joint is not free.
  PerturbedLoop(const Model& model, std::unique_ptr<Controller> controller,
                std::unique_ptr<Reference> reference, const PerturbationSettings& settings,
                std::shared_ptr<const Model> controller_model = {});

  void compute(double t, const State& state, VecX& u) override;
  /// At an output sample the controller is evaluated on the true state (so the channels report
  /// the true errors) without touching the measurement history or the noise sequence.
  void evaluateForSample(double t, const State& state, VecX& u) override;
  void reset(double t0) override;
  /// The recovery supervises what the controller measures (the last measuredState()), not the truth.
  bool supervise(double t, const State& state) override;
  std::vector<ChannelInfo> channels() const override;
  void sample(double* out) override;
  std::string failure() const override;

  const PerturbationSettings& settings() const { return settings_; }
  /// The state the controller was given at the last compute().
  const State& measuredState() const { return measured_; }
  /// The time of the true state behind measuredState() (before noise).
  double measuredTime() const { return measured_time_; }
  /// The estimator in the loop; null when it is off.
  const SimulatedEstimator* estimator() const { return estimator_.get(); }

 private:
  struct Entry {
    double t;
    State state;
  };
  void restart();
  void computeWithEstimator(double t, const State& state, VecX& u);

  Model layout_;  ///< a copy of the model: its joint layout, for addMeasurementNoise
  PerturbationSettings settings_;
  NoiseGenerator rng_;
  std::deque<Entry> history_;  ///< true states at the times compute() was called, ascending
  State measured_;
  double measured_time_ = 0.0;
  double last_t_ = 0.0;
  bool have_last_ = false;
  std::shared_ptr<const Model> estimator_model_;  ///< kept alive for estimator_ (may be the layout)
  std::unique_ptr<SimulatedEstimator> estimator_;
  VecX applied_;        ///< the inputs of the last compute() (held until the next instant)
  State sample_truth_;  ///< the true state of the last evaluateForSample() (estimator channels)
  std::string estimator_failure_;
};

}  // namespace rbs
