#include "app/cli_sim_common.h"

#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <ostream>
#include <stdexcept>

#include "sim/settings.h"

namespace rbs::cli {

double positiveOption(const ParsedArgs& parsed, const std::string& name, double fallback) {
  if (!parsed.has(name) || parsed.all(name).empty()) return fallback;
  const std::string& text = parsed.all(name).back();
  char* end = nullptr;
  errno = 0;
  const double v = std::strtod(text.c_str(), &end);
  if (text.empty() || end != text.c_str() + text.size() || errno == ERANGE || !std::isfinite(v) || v <= 0.0)
    throw UsageError("option '--" + name + "' needs a finite number > 0, got '" + text + "'");
  return v;
}

long countOption(const ParsedArgs& parsed, const std::string& name, long fallback) {
  if (!parsed.has(name) || parsed.all(name).empty()) return fallback;
  const std::string& text = parsed.all(name).back();
  char* end = nullptr;
  errno = 0;
  const long v = std::strtol(text.c_str(), &end, 10);
  if (text.empty() || end != text.c_str() + text.size() || errno == ERANGE || v < 1)
    throw UsageError("option '--" + name + "' needs an integer >= 1, got '" + text + "'");
  return v;
}

std::string checkControllerName(const ParsedArgs& parsed) {
  if (!parsed.has("controller")) return "";
  const std::string& name = parsed.all("controller").back();
  if (name == "none") return "";
  return "unknown controller '" + name + "'; available: none";
}

std::string controllerWarning(const Scene& scene, const ParsedArgs& parsed) {
  if (parsed.has("controller") || scene.controller.name.empty()) return "";
  return "warning: the scene's controller '" + scene.controller.name +
         "' is not available in this version (no controllers are implemented yet); running with "
         "zero inputs (--controller none silences this warning)";
}

std::optional<Scene> loadSceneArgument(const ParsedArgs& parsed, const std::string& file, std::ostream& err) {
  try {
    return loadScene(file, parsed.all("set"), parsed.has("floating"));
  } catch (const SceneError& e) {
    err << e.what() << "\n";
    return std::nullopt;
  }
}

std::optional<SimulationOptions> simulationOptionsOrReport(const IntegratorSettings& settings,
                                                           const std::string& command, std::ostream& err) {
  try {
    return simulationOptions(settings);
  } catch (const std::invalid_argument& e) {
    err << "rbsim-cli " << command << ": " << e.what() << "\n";
    return std::nullopt;
  }
}

}  // namespace rbs::cli
