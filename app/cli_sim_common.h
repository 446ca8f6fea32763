// Helpers shared by the simulating subcommands of rbsim-cli (run, bench): number options and the
// integrator settings a command line may override.
#pragma once

#include <iosfwd>
#include <optional>
#include <string>

#include "app/cli_args.h"
#include "core/scene/scene.h"
#include "sim/simulator.h"

namespace rbs::cli {

/// The value of `--name` as a finite number > 0, or `fallback` when the option is absent (the last
/// occurrence wins). Throws UsageError for anything else.
double positiveOption(const ParsedArgs& parsed, const std::string& name, double fallback);

/// The value of `--name` as an integer ≥ 1, or `fallback` when absent. Throws UsageError otherwise.
long countOption(const ParsedArgs& parsed, const std::string& name, long fallback);

/// Loads `file` with the command line's --set overrides and --floating. A SceneError is printed to
/// `err` (FILE:LINE:COLUMN: message) and gives nothing: the command then exits 2.
std::optional<Scene> loadSceneArgument(const ParsedArgs& parsed, const std::string& file, std::ostream& err);

/// simulationOptions(settings); an invalid setting is printed as "rbsim-cli COMMAND: message" and
/// gives nothing (exit 2).
std::optional<SimulationOptions> simulationOptionsOrReport(const IntegratorSettings& settings,
                                                           const std::string& command, std::ostream& err);

/// Checks `--controller NAME`: controllers arrive with a later issue, so only "none" (zero inputs)
/// exists. Returns an empty string when the name is accepted, else the error message
/// ("unknown controller 'x'; available: none").
std::string checkControllerName(const ParsedArgs& parsed);

/// A warning (one line, no newline) when the scene names a controller that is not available and
/// the command line did not choose one; empty otherwise.
std::string controllerWarning(const Scene& scene, const ParsedArgs& parsed);

}  // namespace rbs::cli
