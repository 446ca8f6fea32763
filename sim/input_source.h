// Where the simulator's inputs u come from: a plain function of (t, state), or a closed loop of
// a reference and a controller (sim/closed_loop.h) that also reports its own channels.
#pragma once

#include <string>
#include <vector>

#include "core/control/reference.h"
#include "core/model/model.h"
#include "sim/channels.h"

namespace rbs {

class InputSource {
 public:
  virtual ~InputSource() = default;
  /// u (size model.numInputs()) at (t, state); called inside the right-hand side. On numerical
  /// trouble: fill u with NaN (the run stops there) and make failure() say why.
  virtual void compute(double t, const State& state, VecX& u) = 0;
  /// Evaluates at an output sample under a zero-order hold, only so that sample() can report the
  /// channels there: the result is not applied, and it must not change what later compute()
  /// calls return (no failure recorded, no history or random numbers used). Default: compute().
  virtual void evaluateForSample(double t, const State& state, VecX& u) { compute(t, state, u); }
  /// The plant's ż = (ẋ, ξ̇) at (state, u) from what the last compute() already evaluated, for a
  /// source that evaluated this very model's dynamics terms at this very state (a plant-based
  /// controller, Controller::plantRate); u is the input applied (clamped). Returns false when it
  /// cannot; the right-hand side then evaluates the dynamics. Default: false.
  virtual bool plantRate(const Model& /*plant*/, const State& /*state*/, const VecX& /*u*/,
                         double /*stabilization_gain*/, VecX& /*xdot*/, VecX& /*xidot*/) {
    return false;
  }
  /// The simulation restarts at t0 (Simulator::reset): forget failures and history.
  virtual void reset(double /*t0*/) {}
  /// [s] between the supervision instants t0 + k·period (the simulator makes them events, like the
  /// instants of a zero-order hold, and calls supervise() there); 0: none (the default).
  virtual double supervisionPeriod() const { return 0.0; }
  /// At a supervision instant: the source may change what it computes from t on (a controller's
  /// recovery, core/control/recovery.h); true when it did (the simulator then restarts its stepper
  /// there). Default: false.
  virtual bool supervise(double /*t*/, const State& /*state*/) { return false; }
  /// Channels this source adds after the model's (fixed after construction).
  virtual std::vector<ChannelInfo> channels() const { return {}; }
  /// Writes the values of channels() for the state of the last compute() (output samples only).
  virtual void sample(double* /*out*/) {}
  /// True when the source tracks a reference state (x_R, ξ_R): the recorder then adds the
  /// reference.* channels (fixed after construction).
  virtual bool tracksReference() const { return false; }
  /// The reference at time t in the plant's coordinates, as the source tracks it there (output
  /// samples and the ghost of the 3D view; also under a hold, where the controller last ran
  /// earlier); null when there is none (not tracking, or the reference fails at t).
  virtual const ReferenceSample* referenceForSample(double /*t*/) { return nullptr; }
  /// Non-empty after a failed compute(): the cause, for the simulator's stop message.
  virtual std::string failure() const { return {}; }
};

}  // namespace rbs
