// The closed loop a scene describes, made in one place for the CLI, the GUI and the tests:
// controller (wrapped in the force-control layer for vehicles with propellers), reference, and
// the perturbations (controller model error, noisy and delayed measurement).
#pragma once

#include <memory>
#include <string>

#include "core/scene/scene.h"
#include "sim/input_source.h"

namespace rbs {

/// The model a scene's controller and reference are designed on: the rigid-body force model of a
/// vehicle with propellers (rotors locked, thrust inputs), else the plant itself.
const Model& designModel(const Scene& scene);

/// Makes the input source of `scene`: its controller, or the one named `controller` instead
/// ("" or "none": no controller, returns null; another name: that controller with its default
/// parameters and options, behind the scene's `controller.actuation` layer if any), tracking the
/// scene's reference. Throws SceneError located at the offending
/// section (controller, controller.actuation, reference, perturbation) for settings that
/// cannot be realized, e.g. "…:12:3: controller: unknown controller 'pd'".
std::shared_ptr<InputSource> makeSceneInputSource(const Scene& scene, const std::string& controller);
/// The scene's own controller.
std::shared_ptr<InputSource> makeSceneInputSource(const Scene& scene);

}  // namespace rbs
