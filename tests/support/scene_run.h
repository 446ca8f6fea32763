// A library scene run closed loop to its end with its own controller, reference and integrator
// (or another controller), and the statistics the scene tests take from the recording. Header
// only: the scene tests link the scene loader, the shared test support does not.
#pragma once

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <string>
#include <vector>

#include "core/scene/scene.h"
#include "sim/scene_loop.h"
#include "sim/settings.h"
#include "sim/simulator.h"

namespace rbs::test {

/// The shipped scene library, scenes/ in the source tree.
inline std::filesystem::path scenesDir() { return std::filesystem::path(RBS_SOURCE_DIR) / "scenes"; }
inline std::filesystem::path libraryScene(const std::string& file) { return scenesDir() / file; }

struct SceneRun {
  bool ok = false;
  std::string message;
  Recording rec;

  /// Column of a channel; a missing channel fails the test (and reads column 0).
  int column(const std::string& channel) const {
    const int i = rec.channels.find(channel);
    if (i < 0) ADD_FAILURE() << "no channel " << channel;
    return std::max(i, 0);
  }
  /// The first sample at or after t (the last one after the end).
  double at(double t, const std::string& channel) const {
    const int c = column(channel);
    for (std::size_t k = 0; k < rec.time.size(); ++k)
      if (rec.time[k] >= t - 1e-9) return rec.values[k][c];
    return rec.values.back()[c];
  }
  double end(const std::string& channel) const { return rec.values.back()[column(channel)]; }
  /// Largest magnitude over the run.
  double max(const std::string& channel) const {
    const int c = column(channel);
    double m = 0.0;
    for (const auto& v : rec.values) m = std::max(m, std::abs(v[c]));
    return m;
  }
  /// Root mean square over t ∈ [t0, t1] (the Table 5.2 statistic (5.74) over a manoeuvre).
  double rms(const std::string& channel, double t0, double t1) const {
    const int c = column(channel);
    double sum = 0.0;
    int n = 0;
    for (std::size_t k = 0; k < rec.time.size(); ++k)
      if (rec.time[k] >= t0 - 1e-9 && rec.time[k] <= t1 + 1e-9) {
        sum += rec.values[k][c] * rec.values[k][c];
        ++n;
      }
    return n ? std::sqrt(sum / n) : 0.0;
  }
};

/// Runs scenes/<file> with the overrides to its t_end; `controller` replaces the scene's.
inline SceneRun runLibraryScene(const std::string& file, const std::vector<std::string>& overrides = {},
                                const std::string& controller = "") {
  const Scene scene = loadScene(libraryScene(file), overrides);
  Simulator sim(scene.model, simulationOptions(scene.integrator),
                makeSceneLoop(scene, controller.empty() ? scene.controller.name : controller).source);
  sim.reset(scene.model.initial_state);
  SceneRun run;
  run.ok = sim.advanceTo(scene.integrator.t_end);
  run.message = sim.message();
  run.rec = sim.recording();
  return run;
}

}  // namespace rbs::test
