// Helpers of the scene tests: a per-test temporary directory and error assertions.
#pragma once

#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <cstdlib>
#include <initializer_list>
#include <sstream>
#include <string>
#include <vector>

#include "core/scene/scene.h"

namespace rbs::test {

/// `warnings` without the one that names the bodies drawn as their inertia box (a test robot
/// written without <visual>s, in a test about something else).
inline std::vector<SceneWarning> besidesInertiaBoxes(std::vector<SceneWarning> warnings) {
  std::erase_if(warnings, [](const SceneWarning& w) { return w.message.find("no <visual>: ") != std::string::npos; });
  return warnings;
}

/// Exit code and captured output of one rbsim-cli run.
struct CliResult {
  int exit_code = -1;
  std::string out, err;
};

/// A fresh directory per test (removed afterwards) for the scene files a test writes.
class SceneDir : public ::testing::Test {
 protected:
  /// Runs the built rbsim-cli (RBSIM_CLI) with `args` (shell words), capturing stdout and stderr.
  CliResult run(const std::string& args) const {
    const auto out = dir_ / "stdout.txt", err = dir_ / "stderr.txt";
    const std::string cmd =
        std::string("'") + RBSIM_CLI + "' " + args + " >'" + out.string() + "' 2>'" + err.string() + "'";
    const int status = std::system(cmd.c_str());
    CliResult r;
    r.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
    r.out = slurp(out);
    r.err = slurp(err);
    return r;
  }
  static std::string slurp(const std::filesystem::path& p) {
    std::ifstream in(p);
    std::stringstream ss;
    ss << in.rdbuf();
    return ss.str();
  }
  void SetUp() override {
    const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
    dir_ = std::filesystem::temp_directory_path() /
           ("rbs_scene_" + std::string(info->test_suite_name()) + "_" + info->name() + "_" +
            std::to_string(::getpid()));
    std::filesystem::remove_all(dir_);
    std::filesystem::create_directories(dir_);
  }
  void TearDown() override {
    std::error_code ec;
    std::filesystem::remove_all(dir_, ec);
  }
  /// Writes `text` to dir/name and returns the path.
  std::filesystem::path write(const std::string& name, const std::string& text) const {
    const auto p = dir_ / name;
    std::ofstream(p, std::ios::binary) << text;
    return p;
  }
  Scene load(const std::string& yaml, const std::vector<std::string>& overrides = {}) const {
    return loadScene(write("scene.yaml", yaml), overrides);
  }
  /// Expects loading to throw SceneError at line:column (0: not checked) whose message contains
  /// every fragment.
  void expectError(const std::string& yaml, int line, int column, std::initializer_list<std::string> fragments,
                   const std::vector<std::string>& overrides = {}) const {
    expectFileError(write("scene.yaml", yaml), line, column, fragments, overrides);
  }
  static void expectFileError(const std::filesystem::path& file, int line, int column,
                              std::initializer_list<std::string> fragments,
                              const std::vector<std::string>& overrides = {}) {
    try {
      loadScene(file, overrides);
      ADD_FAILURE() << "loadScene did not throw";
    } catch (const SceneError& e) {
      const std::string msg = e.what();
      EXPECT_EQ(e.file(), file.string()) << msg;
      if (line > 0) {
        EXPECT_EQ(e.line(), line) << msg;
      }
      if (column > 0) {
        EXPECT_EQ(e.column(), column) << msg;
      }
      for (const auto& f : fragments)
        EXPECT_NE(msg.find(f), std::string::npos) << "message: " << msg << "\nmissing: " << f;
    }
  }

  std::filesystem::path dir_;
};

}  // namespace rbs::test
