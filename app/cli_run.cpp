// rbsim-cli run SCENE --out FILE.csv [options]: simulates a scene (YAML or URDF) headless and writes
// every channel as CSV (docs/CLI.md). The rows are written as they are simulated (memory does not
// grow with the run) into a temporary file that is renamed at the end, so FILE is either complete
// or untouched; a run that stops early still writes what it simulated.
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <csignal>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iomanip>
#include <iostream>
#include <optional>
#include <sstream>
#include <stdexcept>

#include "app/cli_args.h"
#include "app/cli_scene_options.h"
#include "app/cli_commands.h"
#include "app/cli_progress.h"
#include "app/cli_sim_common.h"
#include "core/scene/scene.h"
#include "sim/channels.h"
#include "sim/settings.h"
#include "sim/scene_run.h"
#include "sim/simulator.h"

namespace rbs::cli {
namespace {

const std::vector<OptionSpec>& runOptions() {
  static const std::vector<OptionSpec> options = withSceneLoadOptions({
      {"out", true, "FILE.csv", "where to write the CSV (required; '-' writes to stdout)"},
      {"t-end", true, "S", "simulated time [s] (default: the scene's integrator.t_end)"},
      {"dt-out", true, "S", "output sampling step [s], one CSV row each (default: integrator.dt_out)"},
      {"integrator", true, "NAME", "stepper (default: integrator.stepper); see the list below"},
      {"dt", true, "S", "step [s] of a fixed-step stepper, initial step of an adaptive one"},
      {"rtol", true, "R", "relative tolerance (adaptive steppers only)"},
      {"atol", true, "A", "absolute tolerance (adaptive steppers only)"},
      {"controller", true, "NAME", "controller computing the inputs (see below; none: zero inputs)"},
      {"quiet", false, "", "no progress bar and no summary on stderr (errors are still printed)"},
      {"help", false, "", "show this help"},
  });
  return options;
}

/// Removes the temporary output file unless it has been renamed (any early return or exception).
struct TempFileGuard {
  std::filesystem::path path;
  ~TempFileGuard() {
    if (path.empty()) return;
    std::error_code ec;
    std::filesystem::remove(path, ec);
  }
};

/// The fixed-step or the adaptive steppers, comma separated.
std::string stepperList(bool adaptive) {
  std::string s;
  for (const StepperKind k : kAllSteppers) {
    if (isAdaptive(k) != adaptive) continue;
    if (!s.empty()) s += ", ";
    s += stepperName(k);
  }
  return s;
}

std::string seconds(double s) {
  std::ostringstream o;
  o << std::setprecision(6) << s;
  return o.str();
}

/// Renames the complete temporary CSV onto `file`. Returns an error message, empty on success.
std::string renameOnto(const std::filesystem::path& temp, const std::filesystem::path& file) {
  std::error_code ec;
  std::filesystem::rename(temp, file, ec);
  if (ec) {
    std::error_code ignore;
    std::filesystem::remove(temp, ignore);
    return "cannot rename '" + temp.string() + "' to '" + file.string() + "': " + ec.message();
  }
  return "";
}

}  // namespace

std::string runUsage() {
  return "usage: rbsim-cli run SCENE --out FILE.csv [--t-end S] [--dt-out S] [--integrator NAME]\n"
         "                          [--dt S | --rtol R --atol A] [--controller NAME]\n"
         "                          [--set PATH=VALUE]... [--floating] [--package-path DIR]... [--quiet]\n"
         "\n"
         "Simulates SCENE (.yaml scene file or .urdf robot) from its initial state and writes every\n"
         "channel as CSV: a header row, then one row per output sample (every --dt-out seconds, from\n"
         "t = 0 to --t-end). Columns: t; body.NAME.px, .py, .pz (position [m]) and .qw, .qx, .qy, .qz\n"
         "(unit quaternion) for every body, then frame.NAME.* for merged URDF links; energy.kinetic,\n"
         "energy.potential, energy.total [J]; then the remaining channels (power.input,\n"
         "power.dissipation, constraint.drift, u.ACTUATOR, pushes, body.NAME.vx ... .wz [m/s, rad/s],\n"
         "joint.NAME.COORD in the joint's own coordinates, reference.*, the controller's error.* ...;\n"
         "docs/CLI.md lists them).\n"
         "Unset options come from the scene's integrator section. A progress bar is shown on stderr\n"
         "when it is a terminal, and a summary (steps, RHS evaluations, wall time, real-time factor,\n"
         "max coordinate drift) at the end, unless --quiet.\n"
         "\n"
         "The CSV is written to a temporary file and renamed to FILE.csv when complete. A simulation\n"
         "that stops early (divergence: non-finite state, singular mass matrix, drift over the bound,\n"
         "step-size underflow) still writes the samples up to the stop time.\n"
         "\n"
         "Integrators: " + stepperList(false) + " (fixed step, --dt);\n" + "             " +
         stepperList(true) + "\n             (adaptive: --rtol/--atol, --dt = initial step).\n" +
         "Controllers (default: the scene's controller tracking the scene's reference; its gains are\n"
         "set with --set controller.NAME=VALUE):\n" + controllerList() +
         "\n"
         "exit codes: 0 success; 1 the simulation stopped early (the CSV holds what was simulated) or\n"
         "the output could not be written; 2 bad command line or scene (FILE:LINE:COLUMN: message);\n"
         "130 interrupted by Ctrl-C or SIGTERM (the CSV holds what was simulated until then).\n"
         "\n"
         "options:\n" +
         formatOptions(runOptions());
}

int runRun(const std::vector<std::string>& args, std::ostream& out, std::ostream& err) {
  const ParsedArgs parsed = parseArgs(args, runOptions());
  if (parsed.has("help")) {
    out << runUsage();
    return 0;
  }
  if (!parsed.has("out") || parsed.all("out").back().empty()) throw UsageError("run needs --out FILE.csv");
  const std::string& file = sceneArgument(parsed, "run");
  const std::string out_file = parsed.all("out").back();
  const bool quiet = parsed.has("quiet");
  // Check every number before the (possibly slow) scene load; 0 = not given.
  const double t_end_opt = positiveOption(parsed, "t-end", 0.0);
  const double dt_out_opt = positiveOption(parsed, "dt-out", 0.0);
  const double dt_opt = positiveOption(parsed, "dt", 0.0);
  const double rtol_opt = positiveOption(parsed, "rtol", 0.0);
  const double atol_opt = positiveOption(parsed, "atol", 0.0);
  if (const std::string e = checkControllerName(parsed); !e.empty()) {
    err << "rbsim-cli run: " << e << "\n";
    return 2;
  }

  const std::optional<Scene> loaded = loadSceneArgument(parsed, file, err);
  if (!loaded) return 2;
  const Scene& scene = *loaded;

  RunOverrides overrides;
  if (parsed.has("integrator")) overrides.stepper = parsed.all("integrator").back();
  if (t_end_opt > 0.0) overrides.t_end = t_end_opt;
  if (dt_out_opt > 0.0) overrides.dt_out = dt_out_opt;
  if (dt_opt > 0.0) overrides.dt = dt_opt;
  if (rtol_opt > 0.0) overrides.rtol = rtol_opt;
  if (atol_opt > 0.0) overrides.atol = atol_opt;
  if (parsed.has("controller")) overrides.controller = parsed.all("controller").back();
  // The rows are written as the samples come: memory and the cost per sample stay the same
  // however long the run (the simulator keeps only its newest samples).
  overrides.keep_samples = 2;
  std::optional<SceneRun> run;
  try {
    run.emplace(scene, overrides);
  } catch (const std::invalid_argument& e) {
    err << "rbsim-cli run: " << e.what() << "\n";
    return 2;
  } catch (const SceneError& e) {
    err << e.what() << "\n";
    return 2;
  }
  const IntegratorSettings& settings = run->settings();

  // From here on Ctrl-C / SIGTERM only set a flag, so the temporary file below is always removed
  // or renamed.
  const InterruptGuard interrupt;
  // Create the temporary output file now: an unwritable --out is reported before a long run.
  const bool to_stdout = out_file == "-";
  const std::filesystem::path target(out_file);
  const std::filesystem::path temp =
      to_stdout ? std::filesystem::path() : std::filesystem::path(out_file + ".tmp-" + std::to_string(::getpid()));
  TempFileGuard guard{temp};
  std::ofstream file_out;
  if (!to_stdout) {
    file_out.open(temp, std::ios::binary | std::ios::trunc);
    if (!file_out) {
      err << "rbsim-cli run: cannot write '" << out_file << "' (creating '" << temp.string() << "' failed)\n";
      return 2;
    }
  }
  std::ostream& csv = to_stdout ? out : file_out;

  Simulator& sim = run->simulator();
  ProgressBar progress(err, !quiet && ::isatty(STDERR_FILENO) != 0, 0.0, settings.t_end);
  std::size_t rows = 0;
  double last_row_t = 0.0;
  writeCsvHeader(csv, sim.channels());
  sim.on_sample = [&](double t, std::span<const double> values) {
    writeCsvRow(csv, t, values);
    ++rows;
    last_row_t = t;
    progress.update(t);
  };
  // Slices of SceneRun::kSamplesPerSlice output steps: Ctrl-C / SIGTERM stops between slices and
  // what was simulated is still written.
  const bool ok = run->runToEnd([&] { return !csv || interrupt.requested(); });
  const bool interrupted = interrupt.requested() && run->interrupted();
  progress.finish();

  std::string write_error;
  csv.flush();
  if (to_stdout) {
    if (!out) write_error = "writing the CSV to stdout failed";
  } else {
    file_out.close();
    if (!file_out) write_error = "writing '" + temp.string() + "' failed (disk full?)";
    else write_error = renameOnto(temp, target);
  }

  const SimulationStats& st = sim.stats();
  const double simulated = sim.time();
  if (!quiet) {
    const double rtf = st.wall_time > 0.0 ? simulated / st.wall_time : 0.0;
    err << "simulated " << seconds(simulated) << " s in " << std::setprecision(3) << st.wall_time
        << " s wall time (real-time factor "
        << std::setprecision(4) << rtf << "), " << st.steps << " steps, " << st.rhs_evaluations
        << " RHS evaluations, stepper " << settings.stepper << ", max coordinate drift " << std::setprecision(3)
        << st.max_drift << "\n";
  }
  if (interrupted) {
    err << "rbsim-cli run: interrupted at t = " << seconds(sim.time()) << " s; wrote the " << rows
        << " samples simulated so far to " << (to_stdout ? "stdout" : out_file) << "\n";
    return write_error.empty() ? kExitInterrupted : 1;
  }
  if (!ok) {
    err << "rbsim-cli run: " << sim.message() << "\n";
    if (write_error.empty())
      err << "rbsim-cli run: the simulation stopped early; wrote the " << rows << " samples up to t = "
          << seconds(last_row_t) << " s to " << (to_stdout ? "stdout" : out_file)
          << "\n";
  }
  if (!write_error.empty()) {
    err << "rbsim-cli run: " << write_error << "\n";
    return 1;
  }
  if (ok && !quiet && !to_stdout)
    err << "wrote " << out_file << " (" << rows << " rows, " << sim.channels().size() + 1 << " columns)\n";
  return ok ? 0 : 1;
}

}  // namespace rbs::cli
