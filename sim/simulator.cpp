// The simulation engine (sim/simulator.h): the schedule of events and nothing else.
//
// Time grid. Samples are taken at t0 + k·dt_out, zero-order-hold instants are t0 + k/rate, both
// computed by one multiplication/division from t0 (no accumulated sums). These events and the end
// of each advanceTo slice are the only times the stepping (sim/stepping.h) must reach; how each
// stepper gets there, and the checks and projection after every step, are its business. The
// inputs and their hold are sim/input_hold.h, the channels and the recording sim/sample_recorder.h.
// For the steppers other than rk_dopri5 a slice end that is not on the sample/hold grid adds a
// step boundary; the GUI slices at multiples of dt_out, where the recording does not depend on the
// slicing.
#include "sim/simulator.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <limits>
#include <stdexcept>

#include "core/math/time_grid.h"
#include "sim/input_hold.h"
#include "sim/sample_recorder.h"
#include "sim/stepping.h"

namespace rbs {

/// A plain input function as an input source (no channels, never fails).
class FunctionSource : public InputSource {
 public:
  explicit FunctionSource(InputFunction f) : f_(std::move(f)) {}
  void compute(double t, const State& state, VecX& u) override { f_(t, state, u); }

 private:
  InputFunction f_;
};

struct Simulator::Impl {
  const Model& model;
  SimulationOptions options;
  SimulationStats stats;
  InputHold input;
  PushForces pushes;
  SampleRecorder recorder;
  DynamicsRhs rhs;
  DriftControl drift;
  std::unique_ptr<Stepping> stepping;

  double t0 = 0.0;
  double t_now = 0.0;
  State state_now;
  long next_sample = 1;
  long next_hold = 1;
  long next_supervision = 1;
  bool failed = false;
  bool started = false;
  std::string message;
  VecX u_sample;     ///< the input at an output sample
  State step_state;  ///< the state handed to Simulator::on_step

  Impl(const Model& m, SimulationOptions o, std::shared_ptr<InputSource> source)
      : model(m),
        options(validated(o)),
        input(m, std::move(source), o.control_rate),
        pushes(m),
        recorder(m, input.source(), input.holds(), o.max_recorded_samples, &pushes),
        rhs(makeRhs(m, input,
                    o.integration.drift == DriftPolicy::Stabilize ? o.integration.stabilization_gain : 0.0)),
        drift(m, options.integration),
        stepping(makeStepping(m, options.integration, rhs)),
        u_sample(VecX::Zero(m.numInputs())) {
    rhs.setPushes(&pushes);
  }

  static const SimulationOptions& validated(const SimulationOptions& o) {
    const IntegrationOptions& io = o.integration;
    if (!(std::isfinite(o.dt_out) && o.dt_out > 0.0))
      throw std::invalid_argument("Simulator: dt_out must be a finite number > 0");
    if (!(std::isfinite(o.control_rate) && o.control_rate >= 0.0))
      throw std::invalid_argument("Simulator: control_rate must be a finite number >= 0");
    if (!(std::isfinite(io.dt) && io.dt > 0.0))
      throw std::invalid_argument("Simulator: dt must be a finite number > 0");
    if (isAdaptive(io.stepper) && !(io.rtol > 0.0 && io.atol > 0.0))
      throw std::invalid_argument("Simulator: rtol and atol must be > 0");
    return o;
  }

  void reset(const State& s, double t_start) {
    // Validate sizes first (a wrong-sized state is a programming error): nothing changes then.
    if (s.x.size() != model.nx || s.xi.size() != model.nxi)
      throw std::invalid_argument("Simulator::reset: state has the wrong size");
    t0 = t_start;
    t_now = t_start;
    if (input.source()) input.source()->reset(t_start);
    pushes.clear();
    pushes.restart(t0, eventMerge(t0));
    state_now = s;
    next_sample = 1;
    next_hold = 1;
    next_supervision = 1;
    failed = false;
    message.clear();
    stats = SimulationStats{};
    recorder.clear();
    started = true;
    rhs.clearStatus();
    const VecX z = joinState(s);
    const bool finite = z.allFinite();
    input.start(t0, s, finite);
    stepping->restart(t0, z);
    const DynamicsStatus status = record(t0, z, finite);
    if (!finite) {
      fail(atTime(t0, "non-finite state"));
    } else if (status != DynamicsStatus::Ok) {
      fail(withSourceFailure(atTime(t0, std::string(toString(status)))));
    } else if (const double d = drift.measure(z); !drift.withinBound(d)) {
      fail(atTime(t0, drift.boundMessage(d)));
    }
  }

  /// Events closer than this are one event: k·dt_out and j/rate may differ by an ulp, and an ulp
  /// grows with t (beyond t ≈ 9 h it exceeds 1e-9 of a 5 ms period). Split, a sample an ulp before
  /// its hold instant recorded the previous held input, one an ulp after it ran the controller
  /// a second time.
  double eventMerge(double t) const {
    const double dt_out = options.dt_out;
    const double base = 1e-9 * (input.holds() ? std::min(dt_out, input.period()) : dt_out);
    return std::max(base, gridRounding(std::abs(t) + dt_out));
  }

  /// The mouse's spring (or none) from now on: the right-hand side jumps at t_now.
  void setSpring(const std::optional<SpringPush>& spring) {
    pushes.setSpring(spring, t_now);
    if (started && !failed) stepping->discontinuity(t_now, joinState(state_now));
  }

  void fail(std::string m) {
    failed = true;
    message = std::move(m);
  }

  /// A stop caused by the input source (NaN inputs) names the source's reason.
  std::string withSourceFailure(const std::string& m) const {
    const std::string cause = input.source() ? input.source()->failure() : std::string();
    return cause.empty() ? m : m + " (" + cause + ")";
  }

  /// Records the sample at time t of z (= [x; ξ]), which becomes state(); returns the dynamics
  /// status there. `drift`: before projection (< 0: measured on z).
  DynamicsStatus record(double t, const VecX& z, bool finite, double drift_before_projection = -1.0) {
    splitState(model, z, state_now);
    if (input.holds())
      u_sample = input.held();
    else if (finite)
      input.evaluate(t, state_now, u_sample);
    else
      u_sample.setZero();
    return recorder.record(t, state_now, finite, u_sample, drift_before_projection);
  }

  bool advanceTo(double t_end, const std::function<void(double, std::span<const double>)>& on_sample) {
    if (!started) throw std::logic_error("Simulator::advanceTo before reset");
    if (failed) return false;
    if (std::isnan(t_end)) throw std::invalid_argument("Simulator::advanceTo: t_end is NaN");
    const auto wall_start = std::chrono::steady_clock::now();
    const double dt_out = options.dt_out;
    if (std::isfinite(t_end) && t_end > t_now) recorder.reserve(static_cast<std::size_t>(std::min((t_end - t_now) / dt_out, 1e9)) + 2);
    VecX z_event;
    for (;;) {
      // The next events lie within dt_out of t_now.
      const double merge = eventMerge(t_now);
      if (failed || !(t_end > t_now + merge)) break;
      const double ts = t0 + static_cast<double>(next_sample) * dt_out;
      const double th = input.holds() ? input.instant(t0, next_hold) : std::numeric_limits<double>::infinity();
      const double tp = pushes.nextBoundary();
      // Supervision instants t0 + k·period, by one multiplication (InputSource::supervise).
      const double period = input.source() ? input.source()->supervisionPeriod() : 0.0;
      const double tv = period > 0.0 ? t0 + static_cast<double>(next_supervision) * period
                                     : std::numeric_limits<double>::infinity();
      // A supervision instant that merges with another event takes that event's time (the run
      // then steps exactly as without supervision while nothing changes).
      double te = std::min({ts, th, tp});
      if (tv < te - merge) te = tv;
      bool is_sample = false, is_hold = false, is_push = false, is_supervision = false;
      if (t_end < te - merge) {
        te = t_end;
      } else {
        is_sample = ts <= te + merge;
        is_hold = th <= te + merge;
        is_push = tp <= te + merge;
        is_supervision = tv <= te + merge;
      }
      if (!stepping->advance(te, z_event)) {
        fail(withSourceFailure(stepping->message()));
        t_now = stepping->failTime();
        splitState(model, stepping->committed(), state_now);
        break;
      }
      t_now = te;
      // The drift channel reports the drift before projection; everything else (and state())
      // uses the state the integration continues from.
      const double d = drift.measure(z_event);
      drift.apply(d, z_event);
      if (is_push) pushes.passBoundaries(te, merge);
      bool supervised_change = false;
      if (is_supervision) {  // before the hold: a held input then comes from what was decided here
        splitState(model, z_event, state_now);
        supervised_change = input.source()->supervise(te, state_now);
        ++next_supervision;
      }
      if (is_hold) {
        splitState(model, z_event, state_now);
        input.hold(te, state_now);
        ++next_hold;
      }
      if (is_hold || is_push || supervised_change) stepping->discontinuity(te, z_event);
      if (is_sample) {
        record(ts, z_event, z_event.allFinite(), d);
        ++next_sample;
        if (on_sample) on_sample(ts, recorder.recording().values.back());
      } else {
        splitState(model, z_event, state_now);
      }
    }
    stats.steps = stepping->steps();
    stats.max_drift = stepping->maxDrift();
    stats.rhs_evaluations = rhs.evaluations();
    stats.wall_time += std::chrono::duration<double>(std::chrono::steady_clock::now() - wall_start).count();
    return !failed;
  }
};

Simulator::Simulator(const Model& model, SimulationOptions options, InputFunction input)
    : impl_(std::make_shared<Impl>(model, std::move(options),
                                   input ? std::make_shared<FunctionSource>(std::move(input)) : nullptr)) {}

Simulator::Simulator(const Model& model, SimulationOptions options, std::shared_ptr<InputSource> source)
    : impl_(std::make_shared<Impl>(model, std::move(options), std::move(source))) {}

void Simulator::reset(const State& state, double t0) {
  impl_->reset(state, t0);
  const Recording& recording = impl_->recorder.recording();
  if (on_sample && !recording.time.empty()) on_sample(recording.time.back(), recording.values.back());
}

bool Simulator::advanceTo(double t_end) {
  if (on_step) {
    impl_->stepping->on_step = [this](double t, const VecX& z) {
      splitState(impl_->model, z, impl_->step_state);
      on_step(t, impl_->step_state);
    };
  } else {
    impl_->stepping->on_step = nullptr;
  }
  return impl_->advanceTo(t_end, on_sample);
}

void Simulator::setSpringPush(const std::optional<SpringPush>& spring) { impl_->setSpring(spring); }
const PushForces& Simulator::pushes() const { return impl_->pushes; }
const std::vector<AppliedWrench>* Simulator::pushWrenches() {
  return impl_->pushes.wrenchesAt(impl_->model, impl_->t_now, impl_->state_now, impl_->rhs.workspace());
}

double Simulator::time() const { return impl_->t_now; }
const State& Simulator::state() const { return impl_->state_now; }
bool Simulator::failed() const { return impl_->failed; }
const std::string& Simulator::message() const { return impl_->message; }
const SimulationStats& Simulator::stats() const { return impl_->stats; }
const ChannelSet& Simulator::channels() const { return impl_->recorder.channels(); }
const Recording& Simulator::recording() const { return impl_->recorder.recording(); }

IntegrationResult integrate(const Model& model, State& state, double t0, double t1,
                            const IntegrationOptions& options, const InputFunction& input,
                            double dt_out, const std::function<void(double, const State&)>& observer) {
  const bool per_step = !(dt_out > 0.0);
  SimulationOptions sim_options;
  sim_options.integration = options;
  // Per-step observation needs no sample grid: one sample interval over the whole run.
  sim_options.dt_out = per_step ? std::max(t1 - t0, std::numeric_limits<double>::min()) : dt_out;
  Simulator sim(model, sim_options, input);
  if (observer) {
    // During on_sample, state() is the state at the sample time.
    if (per_step) {
      sim.on_step = observer;
    } else {
      sim.on_sample = [&](double t, std::span<const double>) { observer(t, sim.state()); };
    }
  }
  sim.reset(state, t0);
  if (observer && per_step) observer(t0, state);
  sim.advanceTo(t1);
  state = sim.state();
  const SimulationStats& st = sim.stats();
  return IntegrationResult{!sim.failed(), sim.time(), sim.message(), st.steps, st.rhs_evaluations, st.max_drift};
}

}  // namespace rbs
