// The closed loop a scene describes, made in one place for the CLI, the GUI and the tests:
// controller (wrapped in the force-control layer for vehicles with propellers), reference, and
// the perturbations (controller model error, noisy and delayed measurement).
#pragma once

#include <memory>
#include <string>
#include <span>
#include <vector>

#include "core/control/controller.h"
#include "core/control/parameters.h"
#include "core/control/reference.h"
#include "core/scene/scene.h"
#include "sim/channels.h"
#include "sim/input_source.h"

namespace rbs {

/// The model a scene's controller and reference are designed on: the rigid-body force model of a
/// vehicle with propellers (rotors locked, thrust inputs), else the plant itself.
const Model& designModel(const Scene& scene);

/// A scene's closed loop with everything a front end (CLI run and render, the GUI's worker and its
/// video export) needs to run and draw it; they build none of it themselves.
struct SceneLoop {
  /// The simulator's input source: controller, reference, force-control layer and perturbations
  /// of the scene. Null without a controller (u = 0).
  std::shared_ptr<InputSource> source;
  /// The controller inside `source` (null without one): its name, signals and parameters.
  Controller* controller = nullptr;
  /// The reference in the plant's coordinates, for drawing the ghost (null without a controller):
  /// what the loop tracks at t (InputSource::referenceForSample; the controller's own reference
  /// is built on its design model, which for a vehicle with propellers has no rotor joints), a
  /// recovery's reference included. Sample it from the thread that runs the simulation.
  std::unique_ptr<Reference> ghost_reference;
  /// The controller's registry name; "none" without a controller.
  std::string controller_name = "none";

  /// The controller's tunable parameters (null without a controller). Change them between steps,
  /// from the thread that runs the simulation.
  ParameterSet* parameters() const { return controller ? &controller->parameters() : nullptr; }
};

/// Makes the closed loop of `scene` with its controller, or with the one named `controller`
/// instead ("" or "none": no controller; another name: that controller with its default
/// parameters and options, behind the scene's `controller.actuation` layer if any), tracking the
/// scene's reference. Throws SceneError located at the offending section (controller,
/// controller.actuation, reference, perturbation) for settings that cannot be realized, e.g.
/// "…:12:3: controller: unknown controller 'pd'".
SceneLoop makeSceneLoop(const Scene& scene, const std::string& controller);
/// With the scene's own controller.
SceneLoop makeSceneLoop(const Scene& scene);

/// The channels a front end reads at every frame, as indices into Simulator::channels().
struct LoopChannels {
  std::vector<int> inputs;  ///< u.<actuator>, one per model input, in input order
  int drift = -1;           ///< constraint.drift

  /// u (size inputs.size()) as applied at `sample` (values aligned with the channels).
  void readInputs(std::span<const double> sample, VecX& u) const;
};
LoopChannels findLoopChannels(const Model& model, const ChannelSet& channels);

}  // namespace rbs
