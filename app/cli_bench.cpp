// rbsim-cli bench SCENE: times the right-hand side at the scene's initial state and a 10 s
// simulation with the scene's integrator settings; prints "key value" lines (docs/CLI.md).
#include <algorithm>
#include <chrono>
#include <iomanip>
#include <ostream>
#include <stdexcept>
#include <vector>

#include "app/cli_args.h"
#include "app/cli_scene_options.h"
#include "app/cli_commands.h"
#include "app/cli_sim_common.h"
#include "core/dynamics/dynamics.h"
#include "core/scene/scene.h"
#include "sim/input_hold.h"
#include "sim/integrator.h"
#include "sim/settings.h"
#include "sim/simulator.h"

namespace rbs::cli {
namespace {

constexpr long kDefaultEvals = 10000;
constexpr int kBatches = 5;
constexpr double kDefaultDuration = 10.0;

const std::vector<OptionSpec>& benchOptions() {
  static const std::vector<OptionSpec> options = withSceneLoadOptions({
      {"evals", true, "N", "right-hand-side calls per measurement, in 5 batches of N/5 (default 10000)"},
      {"duration", true, "S", "simulated time [s] of the real-time-factor run (default 10)"},
      {"controller", true, "NAME", "controller instead of the scene's (none: zero inputs)"},
      {"help", false, "", "show this help"},
  });
  return options;
}

/// Median over `kBatches` batches of `per_batch` calls of `call`, in microseconds per call.
template <class F>
double medianMicroseconds(long per_batch, F&& call) {
  for (long i = 0; i < std::min<long>(per_batch, 100); ++i) call();  // warm up caches and branches
  std::vector<double> us;
  for (int b = 0; b < kBatches; ++b) {
    const auto start = std::chrono::steady_clock::now();
    for (long i = 0; i < per_batch; ++i) call();
    const std::chrono::duration<double, std::micro> d = std::chrono::steady_clock::now() - start;
    us.push_back(d.count() / static_cast<double>(per_batch));
  }
  std::sort(us.begin(), us.end());
  return us[us.size() / 2];
}

}  // namespace

std::string benchUsage() {
  return "usage: rbsim-cli bench SCENE [--evals N] [--duration S] [--set PATH=VALUE]... [--floating]\n"
         "                          [--package-path DIR]...\n"
         "\n"
         "Measures the cost of simulating SCENE (.yaml scene file or .urdf robot) and prints one\n"
         "\"key value\" line per measurement on stdout:\n"
         "\n"
         "  rhs_dynamics_us X          microseconds per right-hand side of the plant (kinematics, force\n"
         "                             terms, xi-dot by the articulated-body recursion or the mass\n"
         "                             matrix and its factorization, x-dot) at the scene's initial\n"
         "                             state with zero inputs; median over 5 batches of N/5 calls\n"
         "  rhs_with_controller_us X   a right-hand side of a run including the inputs: the reference\n"
         "                             sample and the scene's controller (or --controller) in every\n"
         "                             call (no hold), then the plant's rates, taken from the\n"
         "                             controller's own evaluation of the plant where it offers them;\n"
         "                             times 1 us apart; without a controller the zero-input call\n"
         "  controller_cost_ratio X    rhs_with_controller_us / rhs_dynamics_us: what closing the\n"
         "                             loop costs, in units of the plant's dynamics (1: nothing)\n"
         "  realtime_factor X          simulated time / wall time of a simulation of --duration seconds\n"
         "                             (default 10) from the initial state with the scene's integrator\n"
         "                             settings (stepper, dt or tolerances, drift policy, dt_out)\n"
         "\n"
         "Timings depend on the build type (use Release) and on the load of the machine.\n"
         "\n"
         "exit codes: 0 success; 1 the simulation stopped early (the factor is then computed from the\n"
         "time reached and the message is printed on stderr); 2 bad command line or scene.\n"
         "\n"
         "options:\n" +
         formatOptions(benchOptions());
}

int runBench(const std::vector<std::string>& args, std::ostream& out, std::ostream& err) {
  const ParsedArgs parsed = parseArgs(args, benchOptions());
  if (parsed.has("help")) {
    out << benchUsage();
    return 0;
  }
  const long evals = countOption(parsed, "evals", kDefaultEvals);
  const double duration = positiveOption(parsed, "duration", kDefaultDuration);
  const std::string& file = sceneArgument(parsed, "bench");
  if (const std::string e = checkControllerName(parsed); !e.empty()) {
    err << "rbsim-cli bench: " << e << "\n";
    return 2;
  }

  const std::optional<Scene> scene = loadSceneArgument(parsed, file, err);
  if (!scene) return 2;
  const Model& model = scene->model;
  const std::optional<SimulationOptions> checked_options = simulationOptionsOrReport(scene->integrator, "bench", err);
  if (!checked_options) return 2;
  const SimulationOptions& options = *checked_options;
  const double gain =
      options.integration.drift == DriftPolicy::Stabilize ? options.integration.stabilization_gain : 0.0;

  const long per_batch = std::max<long>(1, evals / kBatches);
  const State& s0 = model.initial_state;
  const VecX z0 = joinState(s0);
  VecX dz(z0.size());
  // Both numbers through the same right-hand side (DynamicsRhs: splitting z, the inputs, the
  // rates), so that without a controller the ratio is 1: first with no input source (u = 0).
  const InputHold no_input(model, nullptr, 0.0);
  DynamicsRhs plant_rhs = makeRhs(model, no_input, gain);
  const double rhs_us = medianMicroseconds(per_batch, [&] { plant_rhs(z0, dz, 0.0); });
  if (plant_rhs.status() != DynamicsStatus::Ok) {
    err << "rbsim-cli bench: the dynamics at the initial state fail: " << toString(plant_rhs.status()) << "\n";
    return 1;
  }
  const std::optional<SceneLoop> loop = sceneLoopOrReport(*scene, parsed, err);
  if (!loop) return 2;
  // The right-hand side of a run, with the source evaluated in every call (no hold, whatever the
  // scene's control_rate): a controller that evaluated the plant hands its rates over
  // (InputSource::plantRate). Each call at a new time (1 µs apart, from 0): a closed loop reuses a
  // reference sample at a repeated time, and the measurement is meant to include the reference.
  const InputHold every_call(model, loop->source, 0.0);
  DynamicsRhs rhs = makeRhs(model, every_call, gain);
  long call = 0;
  const double rhs_input_us =
      medianMicroseconds(per_batch, [&] { rhs(z0, dz, 1e-6 * static_cast<double>(call++)); });
  if (rhs.status() != DynamicsStatus::Ok || !dz.allFinite()) {
    const InputSource* input = loop->source.get();
    err << "rbsim-cli bench: the closed loop fails at the initial state: "
        << (input && !input->failure().empty() ? input->failure() : std::string(toString(rhs.status()))) << "\n";
    return 1;
  }

  Simulator sim(model, options, loop->source);
  sim.reset(model.initial_state, 0.0);
  const auto start = std::chrono::steady_clock::now();
  const bool ok = sim.advanceTo(duration);
  const std::chrono::duration<double> wall = std::chrono::steady_clock::now() - start;
  const double rtf = wall.count() > 0.0 ? sim.time() / wall.count() : 0.0;

  out << std::setprecision(6) << "rhs_dynamics_us " << rhs_us << "\n"
      << "rhs_with_controller_us " << rhs_input_us << "\n"
      << "controller_cost_ratio " << rhs_input_us / rhs_us << "\n"
      << "realtime_factor " << rtf << "\n";
  if (!ok) {
    err << "rbsim-cli bench: " << sim.message() << " (realtime_factor from the " << sim.time()
        << " s simulated before the stop)\n";
    return 1;
  }
  return 0;
}

}  // namespace rbs::cli
