// Helpers of the GUI tests: a window with a library scene, driving frames without the timers.
#pragma once

#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include <QApplication>

#include "ui/main_window.h"

namespace rbs::ui::test {

inline std::filesystem::path sceneFile(const std::string& name) {
  return std::filesystem::path(RBS_SOURCE_DIR) / "scenes" / (name + ".yaml");
}

/// A fresh, empty folder under the temporary directory, removed when the test process exits.
/// Named with the process id: copies of the suite running at once (two checkouts' CI on one
/// machine) once deleted each other's videos.
inline std::filesystem::path freshDir(const std::string& name) {
  struct Created {
    std::vector<std::filesystem::path> dirs;
    ~Created() {
      std::error_code ec;
      for (const auto& d : dirs) std::filesystem::remove_all(d, ec);
    }
  };
  static Created created;
  const std::filesystem::path dir =
      std::filesystem::temp_directory_path() / ("rbsim_ui_test_" + name + "_" + std::to_string(::getpid()));
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  created.dirs.push_back(dir);
  return dir;
}

/// The whole content of a file.
inline std::string slurp(const std::filesystem::path& file) {
  std::ifstream in(file);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

/// What `command` prints (stdout); a non-zero exit status is appended as "(exit status N)".
inline std::string shell(const std::string& command) {
  std::string out;
  if (FILE* pipe = ::popen(command.c_str(), "r")) {
    char buffer[256];
    while (std::fgets(buffer, sizeof buffer, pipe)) out += buffer;
    const int status = ::pclose(pipe);
    if (status != 0) out += "\n(exit status " + std::to_string(status) + ")";
  }
  return out;
}

/// One GUI frame as the timers would make it: events, the 3D view, the plots.
inline void frame(MainWindow& window) {
  QApplication::processEvents();
  window.frameTick();
  window.plotTick();
}

}  // namespace rbs::ui::test
