// Controllers by name (scene `controller.name`, CLI `--controller`, the GUI's selector).
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "core/control/controller.h"
#include "core/control/settings.h"

namespace rbs {

struct ControllerInfo {
  std::string name;
  std::string description;  ///< one line
};

/// Every registered controller, in the order the GUI lists them.
const std::vector<ControllerInfo>& controllerCatalog();

/// Makes the named controller for `model` with the scene's options, then applies the scene's
/// parameters. Throws ControlError for an unknown name (listing the known ones), an unknown
/// option or parameter, a value out of range, or a model the controller cannot handle (the
/// message says why, e.g. "computed_torque needs one actuator per velocity coordinate").
std::unique_ptr<Controller> makeController(const Model& model, const ControllerSettings& settings);

/// Reads a string option, checking it against `choices` (empty: any value); `fallback` when the
/// option is absent. Throws ControlError naming the option and the choices.
std::string controllerOption(const ControllerSettings& settings, const std::string& key,
                             const std::string& fallback, const std::vector<std::string>& choices);
/// Throws ControlError when `settings.options` has a key not in `known`.
void checkControllerOptions(const ControllerSettings& settings, const std::vector<std::string>& known);

}  // namespace rbs
