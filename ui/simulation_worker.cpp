#include "ui/simulation_worker.h"

#include <chrono>
#include <cmath>
#include <limits>
#include <optional>
#include <stdexcept>

#include "core/dynamics/snapshot.h"
#include "render/frame_snapshot.h"
#include "sim/scene_loop.h"
#include "sim/settings.h"
#include "sim/simulator.h"

namespace rbs::ui {
namespace {

using Clock = std::chrono::steady_clock;

/// Output samples per slice of advanceTo: small enough that commands and snapshots stay fresh
/// (a slice of the slowest scenes takes a few milliseconds), large enough to amortize the locks.
constexpr long kMaxSliceSamples = 20;
/// Behind wall time by more than this [s of wall time]: give up catching up (MuJoCo's re-sync).
constexpr double kResyncLag = 0.1;
/// Window of the real-time-factor estimate [s of wall time].
constexpr double kRateWindow = 0.5;

double seconds(Clock::duration d) { return std::chrono::duration<double>(d).count(); }

}  // namespace

struct SimulationWorker::Engine {
  std::shared_ptr<const Scene> scene;
  SceneLoop loop;
  std::unique_ptr<Simulator> sim;
  std::unique_ptr<render::FrameSnapshot> frame;
  LoopChannels read;  ///< the inputs and the drift, read from every newest sample
  VecX u;

  // pending samples of the current slice, and the body poses at them (for the trails)
  std::vector<double> pending_time;
  SampleTable pending_values;
  std::deque<PathSample> pending_path;  ///< at most kPathSamples, the newest
  std::optional<Workspace> path_ws;  ///< for the poses of the samples
  Snapshot path_scratch;

  // run state
  bool running = false;
  double speed = 1.0;
  long k = 0;                    ///< index of the last output sample (time k·dt_out)
  long until_k = -1;             ///< ≥ 0: run as fast as possible to this sample, then pause
  long end_k = -1;               ///< the sample at the scene's t_end (< 0: none)
  bool stop_at_end = true;       ///< pause at end_k once; Play, runUntil past it and Step disarm it
  bool at_end = false;
  bool loop_scene = false;       ///< at end_k: start over at t = 0 and play on
  std::optional<SpringPush> spring;  ///< the mouse's, while held: kept across a restart
  Clock::time_point anchor_wall;
  double anchor_time = 0.0;
  std::deque<std::pair<Clock::time_point, double>> rate_history;
  std::uint64_t run = 0;
  std::uint64_t commands = 0;  ///< applied so far
  std::string parameter_error;
};

SimulationWorker::SimulationWorker(std::shared_ptr<const Scene> scene, const std::string& controller,
                                   const std::string& stepper)
    : scene_(std::move(scene)), engine_(std::make_unique<Engine>()) {
  Engine& e = *engine_;
  e.scene = scene_;
  const Scene& s = *scene_;
  IntegratorSettings settings = s.integrator;
  if (!stepper.empty()) settings.stepper = stepper;
  SimulationOptions options = simulationOptions(settings);  // throws std::invalid_argument
  // The worker reads only the newest sample of its own recording (the samples travel through the
  // bounded buffer): keep a few, so that a long run does not grow in memory.
  options.max_recorded_samples = 4;
  dt_out_ = options.dt_out;
  t_end_ = settings.t_end;
  e.end_k = settings.t_end > 0.0 ? std::lround(settings.t_end / dt_out_) : -1;
  stepper_name_ = settings.stepper;
  controller_name_ = controller.empty() ? s.controller.name : controller;
  e.loop = makeSceneLoop(s, controller_name_);  // throws SceneError
  controller_name_ = e.loop.controller_name;
  if (e.loop.parameters()) parameter_specs_ = *e.loop.parameters();
  e.sim = std::make_unique<Simulator>(s.model, options, e.loop.source);
  e.frame = std::make_unique<render::FrameSnapshot>(s.model, std::move(e.loop.ghost_reference));
  channels_ = e.sim->channels();
  e.read = findLoopChannels(s.model, channels_);
  e.u = VecX::Zero(s.model.numInputs());
  e.path_ws.emplace(s.model);
  e.sim->on_sample = [&e, &s](double t, std::span<const double> values) {
    e.pending_time.push_back(t);
    e.pending_values.push_back(values);
    if (!e.sim->state().x.allFinite()) return;
    fillBodyPoses(s.model, e.sim->state().x, t, *e.path_ws, e.path_scratch);
    e.pending_path.push_back(PathSample{t, e.path_scratch.body_poses});
    if (e.pending_path.size() > kPathSamples) e.pending_path.pop_front();
  };
  e.sim->reset(s.model.initial_state, 0.0);
  thread_ = std::thread([this] { loop(); });
}

SimulationWorker::~SimulationWorker() {
  {
    std::lock_guard lock(command_mutex_);
    quit_ = true;
  }
  wake_.notify_all();
  if (thread_.joinable()) thread_.join();
}

void SimulationWorker::send(Command command) {
  {
    std::lock_guard lock(command_mutex_);
    commands_.push_back(std::move(command));
    ++sent_;
  }
  wake_.notify_all();
}

void SimulationWorker::play() { send(Play{}); }
void SimulationWorker::pause() { send(Pause{}); }
void SimulationWorker::step(int samples) { send(Step{std::max(samples, 1)}); }
void SimulationWorker::setLoop(bool on) { send(Loop{on}); }
void SimulationWorker::reset() { send(Reset{}); }
void SimulationWorker::setSpeed(double speed) { send(Speed{speed}); }
void SimulationWorker::runUntil(double t) { send(RunUntil{t}); }
void SimulationWorker::setParameter(int index, double value) { send(SetParameter{index, value}); }
void SimulationWorker::resetParameters() { send(ResetParameters{}); }
void SimulationWorker::setPush(const std::optional<SpringPush>& push) { send(Push{push}); }

std::uint64_t SimulationWorker::commandsSent() const {
  std::lock_guard lock(command_mutex_);
  return sent_;
}

WorkerSnapshot SimulationWorker::snapshot() const {
  std::lock_guard lock(snapshot_mutex_);
  return snapshot_;
}

WorkerSnapshot SimulationWorker::takeSnapshot(std::vector<PathSample>& path) {
  std::lock_guard lock(snapshot_mutex_);
  path.assign(std::make_move_iterator(path_.begin()), std::make_move_iterator(path_.end()));
  path_.clear();
  return snapshot_;
}

void SimulationWorker::drainSamples(SampleBatch& out) {
  out.time.clear();
  out.values.clear();
  std::lock_guard lock(sample_mutex_);
  out.run = sample_run_;
  out.time.assign(sample_time_.begin(), sample_time_.end());
  out.values.append(sample_values_);
  sample_time_.clear();
  sample_values_.clear();
}

void SimulationWorker::loop() {
  Engine& e = *engine_;
  Simulator& sim = *e.sim;
  const Scene& s = *scene_;

  // Moves the slice's samples into the shared buffer (bounded: the oldest go first, counted).
  const auto publishSamples = [&] {
    std::lock_guard lock(sample_mutex_);
    if (sample_run_ != e.run) {
      sample_time_.clear();
      sample_values_.clear();
      sample_run_ = e.run;
    }
    sample_time_.insert(sample_time_.end(), e.pending_time.begin(), e.pending_time.end());
    sample_values_.append(e.pending_values);
    if (sample_time_.size() > kSampleCapacity) {  // a quarter at once: O(1) per sample on average
      const std::size_t drop = sample_time_.size() - kSampleCapacity + kSampleCapacity / 4;
      sample_time_.erase(sample_time_.begin(), sample_time_.begin() + static_cast<std::ptrdiff_t>(drop));
      sample_values_.dropOldest(drop);
      dropped_ += static_cast<long>(drop);
    }
    e.pending_time.clear();
    e.pending_values.clear();
  };

  // Fills the latest-wins snapshot (the frame is made here, off the GUI thread).
  const auto publishSnapshot = [&] {
    const Recording& rec = sim.recording();
    double drift = 0.0;
    if (!rec.values.empty()) {
      const std::span<const double> last = rec.values.back();
      e.read.readInputs(last, e.u);
      if (e.read.drift >= 0) drift = last[e.read.drift];
    }
    const Clock::time_point now = Clock::now();
    e.rate_history.emplace_back(now, sim.time());
    while (e.rate_history.size() > 2 && seconds(now - e.rate_history.front().first) > kRateWindow)
      e.rate_history.pop_front();
    double rate = 0.0;
    if (e.running && e.rate_history.size() >= 2) {
      const double wall = seconds(now - e.rate_history.front().first);
      if (wall > 1e-3) rate = (sim.time() - e.rate_history.front().second) / wall;
    }
    // a run that stopped on a non-finite state keeps showing the last finite pose
    const bool finite = sim.state().x.allFinite() && sim.state().xi.allFinite() && e.u.allFinite();
    const Snapshot* frame = finite ? &e.frame->make(sim.time(), sim.state(), e.u, sim.pushWrenches()) : nullptr;
    long dropped = 0;
    {
      std::lock_guard lock(sample_mutex_);
      dropped = dropped_;
    }
    std::lock_guard lock(snapshot_mutex_);
    for (PathSample& sample : e.pending_path) path_.push_back(std::move(sample));
    e.pending_path.clear();
    while (path_.size() > kPathSamples) path_.pop_front();
    if (frame) snapshot_.frame = *frame;
    snapshot_.time = sim.time();
    snapshot_.real_time_factor = rate;
    snapshot_.drift = drift;
    snapshot_.running = e.running;
    snapshot_.at_end = e.at_end;
    snapshot_.failed = sim.failed();
    snapshot_.message = sim.message();
    snapshot_.parameters.clear();
    if (const ParameterSet* parameters = e.loop.parameters())
      for (int i = 0; i < parameters->size(); ++i) snapshot_.parameters.push_back(parameters->value(i));
    snapshot_.parameter_error = e.parameter_error;
    snapshot_.dropped_samples = dropped;
    snapshot_.run = e.run;
    snapshot_.commands = e.commands;
    ++snapshot_.serial;
  };

  const auto anchor = [&] {
    e.anchor_wall = Clock::now();
    e.anchor_time = sim.time();
  };

  const auto advance = [&](long target_k) {
    if (target_k <= e.k) return;
    const bool ok = sim.advanceTo(static_cast<double>(target_k) * dt_out_);
    e.k = ok ? target_k : static_cast<long>(std::floor(sim.time() / dt_out_));
    if (!ok) e.running = false;
    publishSamples();
  };

  // Back to t = 0 with the initial state: a new run (the plots start over), stopping at the end
  // again.
  const auto restart = [&] {
    e.until_k = -1;
    e.stop_at_end = true;
    e.at_end = false;
    e.pending_time.clear();
    e.pending_values.clear();
    e.pending_path.clear();
    ++e.run;
    e.k = 0;
    sim.reset(s.model.initial_state, 0.0);  // records the sample at t = 0
    if (e.spring) sim.setSpringPush(e.spring);  // the user still holds the body
    e.rate_history.clear();
    publishSamples();
  };

  const auto apply = [&](const Command& command) {
    if (std::holds_alternative<Play>(command)) {
      if (e.at_end && e.loop_scene) restart();  // looping: Play at the end starts over
      e.running = !sim.failed();
      e.until_k = -1;
      if (e.at_end) e.stop_at_end = false;  // Play at the end continues past it, on purpose
      e.at_end = false;
      anchor();
    } else if (std::holds_alternative<Pause>(command)) {
      e.running = false;
      e.until_k = -1;
    } else if (const auto* step = std::get_if<Step>(&command)) {
      // through the run loop below (in slices, as fast as possible), so that Pause, Reset and a
      // closing window are heard during a long step, and the scene's end stops it as it stops a run
      if (e.at_end) e.stop_at_end = false;  // a step at the end goes on past it, as Play does
      e.at_end = false;
      e.until_k = e.k + step->samples;
      e.running = !sim.failed();
    } else if (std::holds_alternative<Reset>(command)) {
      e.running = false;
      restart();
    } else if (const auto* speed = std::get_if<Speed>(&command)) {
      e.speed = speed->value;
      anchor();
    } else if (const auto* until = std::get_if<RunUntil>(&command)) {
      e.until_k = std::lround(until->t / dt_out_);
      e.running = !sim.failed() && e.until_k > e.k;
      e.at_end = false;
      if (e.until_k > e.end_k) e.stop_at_end = false;  // asked for a time past the end
    } else if (const auto* set = std::get_if<SetParameter>(&command)) {
      ParameterSet* parameters = e.loop.parameters();
      if (parameters && set->index >= 0 && set->index < parameters->size()) {
        try {
          parameters->set(set->index, set->value);
          e.parameter_error.clear();
        } catch (const std::exception& ex) {  // ControlError: out of range, not finite
          e.parameter_error = ex.what();
        }
      }
    } else if (const auto* loop = std::get_if<Loop>(&command)) {
      e.loop_scene = loop->on;
    } else if (const auto* push = std::get_if<Push>(&command)) {
      const int n = s.model.numBodies();
      const bool valid = !push->spring || (push->spring->body >= 0 && push->spring->body < n &&
                                           push->spring->anchor_body >= -1 && push->spring->anchor_body < n);
      if (valid) e.spring = push->spring;
      if (valid && !sim.failed()) sim.setSpringPush(push->spring);
    } else if (std::holds_alternative<ResetParameters>(command)) {
      if (ParameterSet* parameters = e.loop.parameters())
        for (int i = 0; i < parameters->size(); ++i) parameters->set(i, parameter_specs_.value(i));
      e.parameter_error.clear();
    }
  };

  // the first sample (t = 0) and the first snapshot
  publishSamples();
  publishSnapshot();

  std::vector<Command> commands;
  for (;;) {
    {
      std::unique_lock lock(command_mutex_);
      if (!e.running && commands_.empty() && !quit_) wake_.wait(lock, [&] { return quit_ || !commands_.empty(); });
      if (quit_) return;
      commands.swap(commands_);
    }
    for (const Command& c : commands) apply(c);
    e.commands += commands.size();
    const bool had_commands = !commands.empty();
    commands.clear();

    if (e.running) {
      long target = e.k + kMaxSliceSamples;
      const bool stops_at_end = e.stop_at_end && e.end_k > e.k;
      if (stops_at_end) target = std::min(target, e.end_k);
      if (e.until_k >= 0) {
        target = std::min(target, e.until_k);
      } else if (e.speed > 0.0) {
        const double wall = seconds(Clock::now() - e.anchor_wall);
        double wanted = e.anchor_time + e.speed * wall;
        if (wanted - sim.time() > kResyncLag * std::max(e.speed, 1.0)) {  // too slow: stop catching up
          anchor();
          wanted = sim.time() + dt_out_;
        }
        target = std::min(target, static_cast<long>(std::floor(wanted / dt_out_ + 1e-9)));
        if (target <= e.k) {
          // ahead of the clock: sleep until the next sample is due (or a command arrives)
          const double due = (static_cast<double>(e.k + 1) * dt_out_ - e.anchor_time) / e.speed;
          const auto wake_at = e.anchor_wall + std::chrono::duration_cast<Clock::duration>(
                                                   std::chrono::duration<double>(due));
          if (had_commands) publishSnapshot();
          std::unique_lock lock(command_mutex_);
          wake_.wait_until(lock, std::min(wake_at, Clock::now() + std::chrono::milliseconds(20)),
                           [&] { return quit_ || !commands_.empty(); });
          continue;
        }
      }
      advance(target);
      if (e.until_k >= 0 && e.k >= e.until_k) {
        e.running = false;
        e.until_k = -1;
      }
      // loop: a playing run (not a step or a run to a time) starts over
      if (e.running && e.until_k < 0 && stops_at_end && e.k >= e.end_k && e.loop_scene && !sim.failed()) {
        restart();
        anchor();
      } else if (stops_at_end && e.k >= e.end_k) {  // the scene's end: pause once and say so
        e.running = false;
        e.until_k = -1;
        e.stop_at_end = false;
        e.at_end = true;
      }
    }
    publishSnapshot();
  }
}

}  // namespace rbs::ui
