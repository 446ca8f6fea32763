#include "app/cli_sim_common.h"

#include <cerrno>
#include <cmath>
#include <algorithm>
#include <cstdlib>
#include <ostream>
#include <stdexcept>

#include "core/control/perturbation.h"
#include "core/control/registry.h"
#include "sim/closed_loop.h"
#include "sim/perturbed_loop.h"
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

std::optional<std::shared_ptr<InputSource>> inputSourceOrReport(const Scene& scene, const ParsedArgs& parsed,
                                                                std::ostream& err) {
  const std::string chosen = parsed.has("controller") ? parsed.all("controller").back() : scene.controller.name;
  if (chosen.empty() || chosen == "none") return std::shared_ptr<InputSource>();
  const bool from_scene = chosen == scene.controller.name;
  auto where = [&](int line, int column) {
    std::string w = scene.file.string();
    if (line > 0) w += ":" + std::to_string(line) + ":" + std::to_string(column);
    return w;
  };
  // perturbation.mass_scale, external_wrenches: unknown: the controller is made for (and keeps) a
  // copy of the plant that differs from it.
  const PerturbationSettings& perturbation = scene.perturbation;
  std::shared_ptr<const Model> controller_model = controllerModel(scene.model, perturbation);
  std::unique_ptr<Controller> controller;
  try {
    ControllerSettings settings = from_scene ? scene.controller : ControllerSettings{chosen, {}, {}};
    controller = makeController(controller_model ? *controller_model : scene.model, settings);
  } catch (const ControlError& e) {
    err << where(from_scene ? scene.controller.line : 0, scene.controller.column) << ": controller: " << e.what()
        << "\n";
    return std::nullopt;
  }
  std::unique_ptr<Reference> reference;
  try {
    reference = makeReference(scene.model, scene.reference);
  } catch (const ControlError& e) {
    err << where(scene.reference.line, scene.reference.column) << ": reference: " << e.what() << "\n";
    return std::nullopt;
  }
  if (perturbation.perturbsMeasurement()) {
    try {
      return std::make_shared<PerturbedLoop>(scene.model, std::move(controller),
                                             std::move(reference), perturbation,
                                             std::move(controller_model));
    } catch (const std::invalid_argument& e) {
      err << where(perturbation.line, perturbation.column) << ": " << e.what() << "\n";
      return std::nullopt;
    }
  }
  return std::make_shared<ClosedLoop>(std::move(controller), std::move(reference),
                                      std::move(controller_model));
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
