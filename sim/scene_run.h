// One run of a scene, defined once: `rbsim-cli run`, the Python module's Scene.run and a study's
// runs all make and advance it here, so that they give the same samples bit for bit.
#pragma once

#include <cstddef>
#include <functional>
#include <memory>
#include <optional>
#include <string>

#include "core/scene/scene.h"
#include "sim/run_overrides.h"
#include "sim/scene_loop.h"
#include "sim/simulator.h"

namespace rbs {

/// The scene's integrator settings with `overrides` applied. Throws std::invalid_argument for an
/// unknown stepper (with the list), tolerances given to a fixed-step stepper, or any invalid value
/// (the message names the setting).
IntegratorSettings runSettings(const IntegratorSettings& scene, const RunOverrides& overrides);

/// A scene's closed loop and its simulator. The scene must outlive it.
class SceneRun {
 public:
  /// Throws std::invalid_argument (runSettings) or SceneError (the controller cannot be made).
  SceneRun(const Scene& scene, const RunOverrides& overrides);

  Simulator& simulator() { return *sim_; }
  const Simulator& simulator() const { return *sim_; }
  const IntegratorSettings& settings() const { return settings_; }
  /// The closed loop (controller parameters, ghost reference); no controller: source is null.
  SceneLoop& loop() { return loop_; }

  /// Puts the simulator at t = 0 in the scene's initial state and records the first sample (set
  /// Simulator::on_sample before, to see it). runToEnd starts a run not started yet.
  void start();
  bool started() const { return started_; }

  /// Output steps per Simulator::advanceTo call: a stop request is honoured within one slice.
  static constexpr long kSamplesPerSlice = 100;

  /// Advances to settings().t_end in slices of kSamplesPerSlice output steps (slices end on the
  /// sample grid, so the recording equals one call's). Returns false when the simulation stopped
  /// early (Simulator::message() says why); `stop` (may be empty) is asked between slices and ends
  /// the run early when it returns true (then interrupted() is true).
  bool runToEnd(const std::function<bool()>& stop = {});
  bool interrupted() const { return interrupted_; }

 private:
  const Model& model_;
  IntegratorSettings settings_;
  SceneLoop loop_;
  std::unique_ptr<Simulator> sim_;
  bool started_ = false;
  bool interrupted_ = false;
};

}  // namespace rbs
