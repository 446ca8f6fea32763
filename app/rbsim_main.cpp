// rbsim: the desktop application (docs/GUI.md). Argument parsing only; the window is ui/.
//   rbsim [SCENE] [--set PATH=VALUE]... [--screenshot FILE.png --at S] [--record FILE.mp4 --t-end S]
//         [--export-plots DIR --t-end S] [--window-shot FILE.png]
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <iostream>
#include <memory>
#include <string>
#include <vector>

#include <QApplication>
#include <QSettings>

#include "app/cli_args.h"
#include "app/cli_scene_options.h"
#include "render/offscreen.h"
#include "render/virtual_display.h"
#include "ui/main_window.h"
#include "ui/scene_browser.h"
#include "ui/scripted.h"

namespace {

using rbs::cli::OptionSpec;
using rbs::cli::UsageError;

const std::vector<OptionSpec>& options() {
  static const std::vector<OptionSpec> specs = rbs::cli::withSceneLoadOptions({
      {"screenshot", true, "FILE.png", "write the 3D view at --at S as PNG, then exit"},
      {"at", true, "S", "simulation time of the screenshot [s] (default 0)"},
      {"record", true, "FILE.mp4", "record a video of --t-end S (lockstep with simulation time), then exit"},
      {"export-plots", true, "DIR", "simulate to --t-end S, write every plot group as PNG, PDF, CSV, then exit"},
      {"window-shot", true, "FILE.png", "write a picture of the whole window (after the other actions), then exit"},
      {"t-end", true, "S", "simulated time for --record and --export-plots [s] (default: the scene's t_end)"},
      {"measure", true, "S", "run at real time for S s of wall time with a 60 s plot window; print frame and plot rates"},
      {"size", true, "WxH", "image size of --screenshot and --record (default 1280x720)"},
      {"help", false, "", "show this help"},
  });
  return specs;
}

std::string usage() {
  return "usage: rbsim [SCENE] [--set PATH=VALUE]... [--floating] [--package-path DIR]...\n"
         "             [--screenshot FILE.png --at S]\n"
         "             [--record FILE.mp4 --t-end S] [--export-plots DIR --t-end S] [--window-shot FILE.png]\n"
         "\n"
         "The desktop application: the 3D view, run controls, gains and live plots of a scene (default:\n"
         "the last one opened, else scenes/quadcopter_looping.yaml). With --screenshot, --record,\n"
         "--export-plots or --window-shot it runs without showing a window (a private Xvfb is started\n"
         "when there is no display) and exits: 0 done, 1 the simulation stopped early or a file could\n"
         "not be written, 2 bad command line or scene. Without a display and without these options,\n"
         "use 'rbsim-cli render' to make videos and pictures.\n"
         "\n"
         "options:\n" +
         rbs::cli::formatOptions(options());
}

/// An X display: the 3D view renders through GLX (render/offscreen.h), whatever Qt's platform.
bool haveDisplay() {
  const char* display = std::getenv("DISPLAY");
  return display && *display;
}

}  // namespace

int main(int argc, char** argv) {
  rbs::cli::ParsedArgs parsed;
  rbs::ui::ScriptOptions script;
  rbs::LoadOptions load;
  try {
    parsed = rbs::cli::parseArgs(std::vector<std::string>(argv + 1, argv + argc), options());
    if (parsed.has("help")) {
      std::cout << usage();
      return 0;
    }
    if (parsed.positional.size() > 1) throw UsageError("at most one SCENE");
    const auto path = [&](const char* name) -> std::optional<std::string> {
      if (!parsed.has(name)) return std::nullopt;
      if (parsed.all(name).back().empty()) throw UsageError(std::string("--") + name + ": empty path");
      return parsed.all(name).back();
    };
    script.screenshot = path("screenshot");
    script.record = path("record");
    script.export_plots = path("export-plots");
    script.window_shot = path("window-shot");
    script.at = rbs::cli::nonNegativeOption(parsed, "at", 0.0);
    if (parsed.has("measure")) script.measure = rbs::cli::nonNegativeOption(parsed, "measure", 0.0);
    if (parsed.has("t-end")) script.t_end = rbs::cli::nonNegativeOption(parsed, "t-end", 0.0);
    if (parsed.has("size")) {
      try {
        std::tie(script.width, script.height) = rbs::render::parseSize(parsed.all("size").back());
      } catch (const std::invalid_argument& e) {
        throw UsageError(std::string("--size: ") + e.what());
      }
      if (script.record && (script.width % 2 || script.height % 2)) throw UsageError("--size: a video needs an even width and height");
    }
    if (parsed.has("at") && !script.screenshot) throw UsageError("--at goes with --screenshot");
    load = rbs::cli::sceneLoadOptions(parsed);
  } catch (const UsageError& e) {
    std::cerr << "rbsim: " << e.what() << "\n\n" << usage();
    return 2;
  }

  // a display: scripted runs get a private Xvfb; an interactive run needs a real one
  std::unique_ptr<rbs::render::VirtualDisplay> display;
  if (!haveDisplay()) {
    if (!script.any()) {
      std::cerr << "rbsim: no display (DISPLAY is not set): the window cannot be shown.\n"
                   "rbsim: use 'rbsim-cli render SCENE --out video.mp4' (or --screenshot) for pictures without\n"
                   "rbsim: a display, or 'rbsim SCENE --record FILE.mp4 --t-end S' (starts a private Xvfb).\n";
      return 1;
    }
    try {
      display = rbs::render::VirtualDisplay::startIfNeeded();
    } catch (const std::exception& e) {
      std::cerr << "rbsim: " << e.what() << "\n";
      return 1;
    }
  }
  // our own Xvfb shows nothing to anyone: no window system for the widgets either
  if (display && !std::getenv("QT_QPA_PLATFORM")) setenv("QT_QPA_PLATFORM", "offscreen", 1);

  QApplication app(argc, argv);
  QApplication::setOrganizationName("rbsim");
  QApplication::setApplicationName("rbsim");
  rbs::ui::MainWindow window;
  // scripted: shown on the offscreen platform (or briefly on the display) so that the layout is real
  if (!script.any()) {
    window.resize(1500, 950);
  } else {
    window.resize(1600, 1000);
    window.setPersistent(false);
  }

  std::filesystem::path scene_file;
  if (!parsed.positional.empty()) {
    scene_file = parsed.positional.front();
  } else {
    const QString last = QSettings().value("scenes/last").toString();
    scene_file = !last.isEmpty() && std::filesystem::exists(last.toStdString()) && !script.any()
                     ? std::filesystem::path(last.toStdString())
                     : rbs::ui::libraryDir() / "quadcopter_looping.yaml";
  }
  const bool loaded = window.openScene(scene_file, load);
  if (script.any()) {
    if (!loaded) {
      std::cerr << "rbsim: " << window.lastError().toStdString() << "\n";
      return 2;
    }
    window.show();
    return rbs::ui::runScript(window, script, std::cerr);
  }
  window.show();
  return QApplication::exec();
}
