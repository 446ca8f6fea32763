// Soak: scenes/quadcopter_looping.yaml run for 24 h of simulated time at full speed, the way
// `rbsim-cli run` runs it (the scene's stepper, step, drift policy, output step and controller;
// makeSceneLoop + Simulator, advanced in slices of 100 output steps), except that the
// recording keeps only the newest few samples (SimulationOptions::max_recorded_samples), so that
// what grows, if anything, is the simulation itself. Per simulated hour it reports the real-time
// factor of that hour (simulated / wall seconds) and the process's memory: peak resident set
// (getrusage ru_maxrss) and current resident set (/proc/self/statm); also the real-time factor on
// the process's CPU time and how many cores' worth of CPU other processes used meanwhile, to tell
// a slower hour from a busier machine.
//
// The motivation: the looping ran at ~220× real time until t ≈ 4000 s and at 0.2–0.6× after it
// (the integrated heading's knot table, core/control/knot_table.h). A flat real-time factor and a
// flat memory line over 24 h are what this shows now.
//
// Protocol and results: docs/BENCHMARKS.md, "Soak: 24 h of the looping". Release build; run
//   rbs_bench_soak                      # 24 h of simulated time (~15 min of wall time at ~95×)
//   RBS_SOAK_HOURS=1 rbs_bench_soak     # a shorter span (fractions allowed, e.g. 0.05)
//   rbs_bench_soak --hours=1 --report=600
// --report (RBS_SOAK_REPORT_S) sets the row interval in simulated seconds (default 3600). The
// table goes to stderr as each row completes; the benchmark's counters summarize it. Not in ctest.
#include <benchmark/benchmark.h>
#include <sys/resource.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <memory>
#include <string>
#include <vector>

#include "core/scene/scene.h"
#include "sim/scene_loop.h"
#include "sim/settings.h"
#include "sim/simulator.h"

namespace {

using namespace rbs;

/// Output steps per advanceTo call, as in rbsim-cli run (app/cli_run.cpp).
constexpr long kSamplesPerSlice = 100;
/// Samples the recording keeps: enough for a caller that looks at the newest ones.
constexpr std::size_t kRecordedSamples = 8;

struct SoakSpan {
  double hours = 24.0;       ///< simulated span [h]
  double report_s = 3600.0;  ///< one row per this many simulated seconds
};

double mebibytes(double bytes) {
  return bytes / (1024.0 * 1024.0);
}

/// Peak resident set of the process so far [MiB] (Linux: ru_maxrss is in KiB).
double peakRssMiB() {
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  return static_cast<double>(usage.ru_maxrss) / 1024.0;
}

/// Current resident set [MiB]: /proc/self/statm's second field, in pages.
double currentRssMiB() {
  std::ifstream statm("/proc/self/statm");
  long size_pages = 0, resident_pages = 0;
  statm >> size_pages >> resident_pages;
  return mebibytes(static_cast<double>(resident_pages) *
                   static_cast<double>(sysconf(_SC_PAGESIZE)));
}

/// CPU time of this process so far (user + system) [s].
double processCpuSeconds() {
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  const auto seconds = [](const timeval& tv) {
    return static_cast<double>(tv.tv_sec) + 1e-6 * static_cast<double>(tv.tv_usec);
  };
  return seconds(usage.ru_utime) + seconds(usage.ru_stime);
}

/// CPU time all processes on the machine have used so far [s] (/proc/stat: user, nice, system,
/// irq, softirq, steal), so that a row can say how busy the other cores were.
double machineBusySeconds() {
  std::ifstream stat("/proc/stat");
  std::string cpu;
  double user = 0, nice = 0, system = 0, idle = 0, iowait = 0, irq = 0, softirq = 0, steal = 0;
  stat >> cpu >> user >> nice >> system >> idle >> iowait >> irq >> softirq >> steal;
  return (user + nice + system + irq + softirq + steal) / static_cast<double>(sysconf(_SC_CLK_TCK));
}

void soak(benchmark::State& st, SoakSpan span) {
  const std::filesystem::path file =
      std::filesystem::path(RBS_SOURCE_DIR) / "scenes" / "quadcopter_looping.yaml";
  for (auto _ : st) {
    const Scene scene = loadScene(file);
    SimulationOptions options = simulationOptions(scene.integrator);
    options.max_recorded_samples = kRecordedSamples;
    Simulator sim(scene.model, options, makeSceneLoop(scene).source);
    sim.reset(scene.model.initial_state, 0.0);

    const double dt_out = options.dt_out;
    const double t_end = span.hours * 3600.0;
    const long rows = std::max(1L, static_cast<long>(std::ceil(t_end / span.report_s - 1e-9)));
    std::fprintf(stderr,
                 "soak %s: %s, dt %g s, dt_out %g s, %s, %g h simulated\n"
                 "%6s %10s %9s %9s %7s %9s %7s %15s %10s\n",
                 file.filename().c_str(), scene.integrator.stepper.c_str(), options.integration.dt,
                 dt_out, scene.controller.name.c_str(), span.hours, "row", "t_end [s]", "steps",
                 "wall [s]", "RTF", "RTF(CPU)", "others", "peak RSS [MiB]", "RSS [MiB]");
    double rtf_min = INFINITY, rtf_max = 0.0, rtf_first = 0.0, rtf_last = 0.0, wall_total = 0.0;
    const double rss_start = currentRssMiB();
    long slice = 1;
    bool ok = true;
    for (long row = 1; ok && row <= rows; ++row) {
      const double row_start = sim.time();
      const long steps_start = sim.stats().steps;
      const double row_end = std::min(t_end, static_cast<double>(row) * span.report_s);
      const double cpu_start = processCpuSeconds(), busy_start = machineBusySeconds();
      const auto wall_start = std::chrono::steady_clock::now();
      // Slices end on multiples of kSamplesPerSlice·dt_out (the CLI's grid), cut at the row end.
      while (ok && sim.time() < row_end - 1e-9 * dt_out) {
        const double slice_end = static_cast<double>(slice) * kSamplesPerSlice * dt_out;
        ok = sim.advanceTo(std::min(row_end, slice_end));
        if (slice_end <= row_end + 1e-9 * dt_out) ++slice;
      }
      const double wall =
          std::chrono::duration<double>(std::chrono::steady_clock::now() - wall_start).count();
      const double cpu = processCpuSeconds() - cpu_start;
      // Cores' worth of CPU that other processes used meanwhile (the machine is shared).
      const double others = (machineBusySeconds() - busy_start - cpu) / wall;
      wall_total += wall;
      const double rtf = (sim.time() - row_start) / wall;
      rtf_min = std::min(rtf_min, rtf);
      rtf_max = std::max(rtf_max, rtf);
      if (row == 1) rtf_first = rtf;
      rtf_last = rtf;
      std::fprintf(stderr, "%6ld %10.1f %9ld %9.2f %7.1f %9.1f %7.2f %15.1f %10.1f\n", row,
                   sim.time(), sim.stats().steps - steps_start, wall, rtf,
                   (sim.time() - row_start) / cpu, others, peakRssMiB(), currentRssMiB());
      std::fflush(stderr);
    }
    st.SetIterationTime(wall_total);
    if (!ok) {
      st.SkipWithError(("simulation stopped: " + sim.message()).c_str());
      return;
    }
    st.counters["sim_s"] = sim.time();
    st.counters["rtf"] = sim.time() / wall_total;
    st.counters["rtf_first"] = rtf_first;
    st.counters["rtf_last"] = rtf_last;
    st.counters["rtf_min"] = rtf_min;
    st.counters["rtf_max"] = rtf_max;
    st.counters["peak_rss_MiB"] = peakRssMiB();
    st.counters["rss_start_MiB"] = rss_start;
    st.counters["rss_end_MiB"] = currentRssMiB();
    st.counters["steps"] = static_cast<double>(sim.stats().steps);
  }
}

/// A positive number from "--NAME=VALUE" (removed from argv) or the environment variable ENV.
double spanSetting(int& argc, char** argv, const char* flag, const char* env, double fallback) {
  const std::string prefix = std::string("--") + flag + "=";
  const char* text = std::getenv(env);
  for (int i = 1; i < argc; ++i) {
    if (std::strncmp(argv[i], prefix.c_str(), prefix.size()) != 0) continue;
    text = argv[i] + prefix.size();
    for (int j = i; j + 1 < argc; ++j) argv[j] = argv[j + 1];
    --argc;
    break;
  }
  if (!text) return fallback;
  char* end = nullptr;
  const double v = std::strtod(text, &end);
  if (end == text || *end != '\0' || !(std::isfinite(v) && v > 0.0)) {
    std::fprintf(stderr, "rbs_bench_soak: %s / %s needs a number > 0, got '%s'\n", prefix.c_str(),
                 env, text);
    std::exit(2);
  }
  return v;
}

}  // namespace

int main(int argc, char** argv) {
  SoakSpan span;
  span.hours = spanSetting(argc, argv, "hours", "RBS_SOAK_HOURS", span.hours);
  span.report_s = spanSetting(argc, argv, "report", "RBS_SOAK_REPORT_S", span.report_s);
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  // One run: the span is the measurement (repetitions would only repeat the hours).
  benchmark::RegisterBenchmark("soak/quadcopter_looping", soak, span)
      ->Iterations(1)
      ->UseManualTime()
      ->Unit(benchmark::kSecond);
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
