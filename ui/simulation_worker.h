// The simulation of the desktop application on its own thread (docs/GUI.md). The GUI and the
// worker meet only in three places (reference/code-style-anchors.md §R.4):
//   commands   GUI -> worker, a mutex-protected queue applied between steps (play, pause, step,
//              reset, speed, run-until, set parameter, the mouse's push);
//   snapshot   worker -> GUI, latest wins: body poses, time, real-time factor, drift, the
//              parameter values the controller used, status;
//   samples    worker -> GUI, a bounded buffer of every output sample (drops counted, never silent).
// The worker never touches a Qt or OSG object; the GUI never touches the Simulator.
#pragma once

#include <condition_variable>
#include <cstdint>
#include <deque>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <variant>
#include <vector>

#include "core/control/parameters.h"
#include "core/model/snapshot.h"
#include "core/scene/scene.h"
#include "sim/channels.h"
#include "sim/push_forces.h"

namespace rbs::ui {

/// What the worker last published. `run` counts resets (the plots start over when it changes).
struct WorkerSnapshot {
  Snapshot frame;                   ///< poses at `time` (and reference ghost, thrust arrows)
  double time = 0.0;                ///< simulation time [s]
  double real_time_factor = 0.0;    ///< sim time / wall time over the last ~0.5 s
  double drift = 0.0;               ///< constraint.drift of the last sample
  bool running = false;
  bool failed = false;
  /// Paused because the run reached the scene's integrator.t_end (Play continues past it).
  bool at_end = false;
  std::string message;              ///< the simulator's stop message when failed
  std::vector<double> parameters;   ///< the values the controller used in the last step
  std::string parameter_error;      ///< the last rejected parameter change (empty: none)
  long dropped_samples = 0;         ///< samples lost because the GUI did not drain in time
  std::uint64_t run = 0;
  std::uint64_t serial = 0;         ///< increases with every publication
  std::uint64_t commands = 0;       ///< commands applied so far (compare commandsSent())
};

/// Samples taken from the buffer: one row of channel values per time.
struct SampleBatch {
  std::uint64_t run = 0;
  std::vector<double> time;
  SampleTable values;
};

class SimulationWorker {
 public:
  /// `speed` 0: as fast as possible.
  static constexpr double kMaxSpeed = 0.0;
  static constexpr std::size_t kSampleCapacity = 1 << 18;

  /// Builds the closed loop of `scene` with `controller` ("" or the scene's name: the scene's own
  /// controller with its parameters; "none": no inputs) and the stepper `stepper` ("": the
  /// scene's). Throws SceneError or std::invalid_argument (with the loader's message) on the
  /// calling thread; then starts the thread, paused at t = 0.
  SimulationWorker(std::shared_ptr<const Scene> scene, const std::string& controller,
                   const std::string& stepper);
  ~SimulationWorker();
  SimulationWorker(const SimulationWorker&) = delete;
  SimulationWorker& operator=(const SimulationWorker&) = delete;

  const Scene& scene() const { return *scene_; }
  const ChannelSet& channels() const { return channels_; }
  /// The controller's parameters at start: specs, controller defaults, and as values the scene's
  /// settings (what resetParameters() restores); empty without a controller.
  const ParameterSet& parameterSpecs() const { return parameter_specs_; }
  /// The scene's integrator.t_end [s]: a run pauses there once (Play continues past it).
  double endTime() const { return t_end_; }
  const std::string& controllerName() const { return controller_name_; }
  const std::string& stepperName() const { return stepper_name_; }
  double outputStep() const { return dt_out_; }

  void play();
  void pause();
  void stepOnce() { step(1); }  ///< one output step, then paused
  /// `samples` (≥ 1) output steps as fast as possible, then paused (at the scene's end if it comes
  /// first, unless paused there already).
  void step(int samples);
  void reset();     ///< back to t = 0, paused, stopping at endTime() again; parameters keep their values
  void setSpeed(double speed);  ///< sim seconds per wall second; kMaxSpeed: as fast as possible
  /// As fast as possible up to t [s], then paused (past endTime() if t is beyond it).
  void runUntil(double t);
  /// On: a run that reaches endTime() starts over at t = 0 (a new run, parameters kept) and
  /// plays on, instead of pausing there; Play while paused at the end starts over too. A run
  /// continued past the end (Run to, Step) loops again after the next Reset.
  void setLoop(bool on);
  void setParameter(int index, double value);
  /// Every parameter back to the scene's value (parameterSpecs().value(i)).
  void resetParameters();
  /// The mouse's spring on a body from now on (nullopt: released); a reset releases it.
  void setPush(const std::optional<SpringPush>& push);

  WorkerSnapshot snapshot() const;
  /// The snapshot, and in `path` the body poses at the output samples up to it that no earlier
  /// call took (at most kPathSamples, the newest; for the trails).
  WorkerSnapshot takeSnapshot(std::vector<PathSample>& path);
  static constexpr std::size_t kPathSamples = 1024;
  /// Commands sent so far: a snapshot with `commands` ≥ this value reflects all of them.
  std::uint64_t commandsSent() const;
  /// Moves the samples published since the last call into `out` (replacing its content).
  void drainSamples(SampleBatch& out);

 private:
  struct Play {};
  struct Pause {};
  struct Step { int samples; };
  struct Reset {};
  struct Speed { double value; };
  struct RunUntil { double t; };
  struct SetParameter { int index; double value; };
  struct ResetParameters {};
  struct Loop { bool on; };
  struct Push { std::optional<SpringPush> spring; };
  using Command = std::variant<Play, Pause, Step, Reset, Speed, RunUntil, SetParameter, ResetParameters, Loop, Push>;

  struct Engine;  // the simulator and the closed loop: touched by the worker thread only

  std::shared_ptr<const Scene> scene_;
  ChannelSet channels_;
  ParameterSet parameter_specs_;
  std::string controller_name_, stepper_name_;
  double dt_out_ = 0.01;
  double t_end_ = 0.0;
  std::unique_ptr<Engine> engine_;

  mutable std::mutex command_mutex_;
  std::condition_variable wake_;
  std::vector<Command> commands_;
  bool quit_ = false;
  std::uint64_t sent_ = 0;

  mutable std::mutex snapshot_mutex_;
  WorkerSnapshot snapshot_;
  std::deque<PathSample> path_;  ///< samples for takeSnapshot (guarded by snapshot_mutex_)

  std::mutex sample_mutex_;
  std::vector<double> sample_time_;
  SampleTable sample_values_;
  std::uint64_t sample_run_ = 0;
  long dropped_ = 0;

  std::thread thread_;

  void send(Command command);
  void loop();
};

}  // namespace rbs::ui
