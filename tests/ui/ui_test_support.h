// Helpers of the GUI tests: a window with a library scene, driving frames without the timers.
#pragma once

#include <filesystem>
#include <string>

#include <QApplication>

#include "ui/main_window.h"

namespace rbs::ui::test {

inline std::filesystem::path sceneFile(const std::string& name) {
  return std::filesystem::path(RBS_SOURCE_DIR) / "scenes" / (name + ".yaml");
}

/// A fresh, empty folder under the temporary directory.
inline std::filesystem::path freshDir(const std::string& name) {
  const std::filesystem::path dir = std::filesystem::temp_directory_path() / ("rbsim_ui_test_" + name);
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  return dir;
}

/// One GUI frame as the timers would make it: events, the 3D view, the plots.
inline void frame(MainWindow& window) {
  QApplication::processEvents();
  window.frameTick();
  window.plotTick();
}

}  // namespace rbs::ui::test
