#include "app/cli_sim_common.h"

#include <cerrno>
#include <cmath>
#include <algorithm>
#include <cstdlib>
#include <ostream>
#include <stdexcept>

#include "app/cli_scene_options.h"
#include "core/control/perturbation.h"
#include "core/control/registry.h"
#include "sim/scene_loop.h"
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
  std::string known = "none";
  for (const ControllerInfo& c : controllerCatalog()) {
    if (c.name == name) return "";
    known += ", " + c.name;
  }
  return "unknown controller '" + name + "'; available: " + known;
}

std::string controllerList() {
  std::string out = "  none                    all inputs zero\n";
  for (const ControllerInfo& c : controllerCatalog()) {
    std::string name = "  " + c.name;
    name.resize(std::max<std::size_t>(name.size() + 1, 26), ' ');
    out += name + c.description + "\n";
  }
  return out;
}

std::optional<SceneLoop> sceneLoopOrReport(const Scene& scene, const ParsedArgs& parsed, std::ostream& err) {
  const std::string chosen = parsed.has("controller") ? parsed.all("controller").back() : scene.controller.name;
  try {
    return makeSceneLoop(scene, chosen);
  } catch (const SceneError& e) {
    err << e.what() << "\n";
    return std::nullopt;
  }
}

std::optional<Scene> loadSceneArgument(const ParsedArgs& parsed, const std::string& file, std::ostream& err) {
  try {
    Scene scene = loadScene(file, sceneLoadOptions(parsed));
    for (const SceneWarning& w : scene.warnings) err << w.text() << "\n";
    return scene;
  } catch (const SceneError& e) {
    err << e.what() << "\n";
    return std::nullopt;
  } catch (const UsageError& e) {
    err << "rbsim-cli: " << e.what() << "\n";
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
