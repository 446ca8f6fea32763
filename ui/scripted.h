// Scripted use of the window (the command-line options of rbsim; also what the tests drive):
// simulate to a time as fast as possible, then take a screenshot, export the plots, record a
// video, and exit.
#pragma once

#include <iosfwd>
#include <optional>
#include <string>

namespace rbs::ui {

class MainWindow;

struct ScriptOptions {
  std::optional<std::string> screenshot;    ///< PNG of the 3D view at `at`
  double at = 0.0;                          ///< [s]
  std::optional<std::string> record;        ///< MP4 of `t_end` s (lockstep)
  std::optional<std::string> export_plots;  ///< folder: every plot group as PNG, PDF, CSV at t_end
  std::optional<std::string> window_shot;   ///< PNG of the whole window at the end
  std::optional<double> t_end;              ///< [s]; nothing: the scene's integrator.t_end
  /// Runs at real time for this many seconds of wall time with a 60 s plot window and prints the
  /// 3D view's frame rate, the plot rate, the real-time factor and dropped samples (docs/BENCHMARKS.md).
  std::optional<double> measure;
  int width = 1280, height = 720;           ///< screenshot and video size
  bool any() const { return screenshot || record || export_plots || window_shot || measure; }
};

/// Runs the window's simulation as fast as possible up to t [s], keeping the GUI alive (events,
/// frames, plots). False when the simulation stopped before (its message is in the snapshot).
bool simulateTo(MainWindow& window, double t);

/// Runs `options` on a window with a scene loaded. Returns the process exit code: 0 done,
/// 1 the simulation stopped early or a file could not be written (the reason on `err`).
int runScript(MainWindow& window, const ScriptOptions& options, std::ostream& err);

}  // namespace rbs::ui
