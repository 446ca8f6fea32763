// Helpers shared by the simulating subcommands of rbsim-cli (run, bench): number options and the
// integrator settings a command line may override.
#pragma once

#include <iosfwd>
#include <optional>
#include <memory>
#include <string>

#include "app/cli_args.h"
#include "core/scene/scene.h"
#include "sim/scene_loop.h"
#include "sim/simulator.h"

namespace rbs::cli {

/// The value of `--name` as a finite number > 0, or `fallback` when the option is absent (the last
/// occurrence wins). Throws UsageError for anything else.
double positiveOption(const ParsedArgs& parsed, const std::string& name, double fallback);

/// The value of `--name` as an integer ≥ 1, or `fallback` when absent. Throws UsageError otherwise.
long countOption(const ParsedArgs& parsed, const std::string& name, long fallback);

/// Loads `file` with the command line's --set, --floating and --package-path. A SceneError is printed to
/// `err` (FILE:LINE:COLUMN: message) and gives nothing: the command then exits 2.
std::optional<Scene> loadSceneArgument(const ParsedArgs& parsed, const std::string& file, std::ostream& err);

/// simulationOptions(settings); an invalid setting is printed as "rbsim-cli COMMAND: message" and
/// gives nothing (exit 2).
std::optional<SimulationOptions> simulationOptionsOrReport(const IntegratorSettings& settings,
                                                           const std::string& command, std::ostream& err);

/// Checks `--controller NAME` before the scene is loaded: a registered controller or "none".
/// Returns an empty string when the name is accepted, else the error message.
std::string checkControllerName(const ParsedArgs& parsed);

/// The closed loop of a simulating command: the scene's controller tracking the scene's reference;
/// the controller named by --controller instead (the scene's parameters and options are applied
/// when the name is the scene's, else the controller's defaults); or no source (u = 0) for
/// `--controller none` and scenes without a controller. A bad controller or reference setting is
/// printed as FILE:LINE:COLUMN: controller: message and gives nothing (the command exits 2).
std::optional<SceneLoop> sceneLoopOrReport(const Scene& scene, const ParsedArgs& parsed, std::ostream& err);

/// "NAME (description)" lines of every controller, for help texts.
std::string controllerList();

}  // namespace rbs::cli
