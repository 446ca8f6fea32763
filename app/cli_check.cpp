// rbsim-cli check SCENE [--floating] [--set PATH=VALUE]...: loads the scene (YAML or URDF), builds
// the model and prints a one-line summary; errors go to stderr as file:line:column: message.
#include <exception>
#include <ostream>

#include "app/cli_args.h"
#include "app/cli_scene_options.h"
#include "app/cli_commands.h"
#include "app/cli_sim_common.h"
#include "core/scene/scene.h"

namespace rbs::cli {
namespace {

const std::vector<OptionSpec>& checkOptions() {
  static const std::vector<OptionSpec> options = withSceneLoadOptions({
      {"parameters", false, "", "list the controller's parameters (name, value, unit, range, scale) and signals"},
      {"help", false, "", "show this help"},
  });
  return options;
}

std::string count(long n, const char* singular, const char* plural) {
  return std::to_string(n) + " " + (n == 1 ? singular : plural);
}

}  // namespace

std::string checkUsage() {
  return "usage: rbsim-cli check SCENE [--floating] [--set PATH=VALUE]... [--package-path DIR]...\n"
         "                          [--parameters]\n"
         "\n"
         "Loads SCENE (.yaml scene file or .urdf robot), builds the model and prints a one-line\n"
         "summary. Errors are printed as FILE:LINE:COLUMN: message; the exit code is then 2.\n"
         "\n"
         "options:\n" +
         formatOptions(checkOptions());
}

int runCheck(const std::vector<std::string>& args, std::ostream& out, std::ostream& err) {
  const ParsedArgs parsed = parseArgs(args, checkOptions());
  if (parsed.has("help")) {
    out << checkUsage();
    return 0;
  }
  const std::string& file = sceneArgument(parsed, "check");
  const std::optional<Scene> scene = loadSceneArgument(parsed, file, err);
  if (!scene) return 2;
  const Model& m = scene->model;
  // The controller and reference are checked too: a scene whose gains are out of range or whose
  // reference the model cannot follow is a broken scene.
  const std::optional<SceneLoop> loop = sceneLoopOrReport(*scene, parsed, err);
  if (!loop) return 2;
  out << file << ": " << count(m.numBodies(), "body", "bodies") << ", nu = " << m.nx << ", n = " << m.nxi
      << ", " << count(m.numInputs(), "input", "inputs") << ", "
      << count(static_cast<long>(m.loop_closures.size()), "loop closure", "loop closures");
  if (loop->controller)
    out << ", controller " << scene->controller.name << " (" << scene->controller.parameters.size()
        << " parameters set)" << (scene->reference.generator.empty() ? "" : ", reference " + scene->reference.generator);
  out << "\n";
  if (!scene->integrator.default_stepper_note.empty()) out << "  " << scene->integrator.default_stepper_note << "\n";
  for (const std::string& w : drawingWarnings(m)) err << file << ": warning: " << w << "\n";
  if (parsed.has("parameters") && loop->controller) {
    const Controller& c = *loop->controller;
    const ParameterSet& p = c.parameters();
    out << "parameters of " << c.name() << " (set with --set controller.NAME=VALUE):\n";
    for (int i = 0; i < p.size(); ++i) {
      const ParameterSpec& spec = p.spec(i);
      out << "  " << spec.name << " = " << p.value(i) << " " << spec.unit << "  [" << spec.min << ", " << spec.max
          << "]" << (spec.scale == ParameterScale::Log ? " log" : "") << "  " << spec.description << "\n";
    }
    out << "signals:\n";
    for (const SignalInfo& sig : c.signals()) out << "  " << sig.name << " [" << sig.unit << "]  " << sig.description << "\n";
  }
  return 0;
}

}  // namespace rbs::cli
