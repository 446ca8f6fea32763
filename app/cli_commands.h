// The rbsim-cli subcommands. Each one gets its arguments (after the subcommand name) and returns
// the exit code: 0 success, 2 bad input (usage or scene errors), 1 other failures.
#pragma once

#include <iosfwd>
#include <string>
#include <string_view>
#include <vector>

namespace rbs {
struct Model;
}

namespace rbs::cli {

struct Command {
  std::string_view name;
  std::string_view summary;  ///< one line for the program's --help
  /// Usage text of the subcommand (printed by "rbsim-cli NAME --help").
  std::string (*usage)();
  int (*run)(const std::vector<std::string>& args, std::ostream& out, std::ostream& err);
};

std::string checkUsage();
int runCheck(const std::vector<std::string>& args, std::ostream& out, std::ostream& err);

/// run: simulate a scene and write its channels as CSV (exit 1 when the simulation stops early).
std::string runUsage();
int runRun(const std::vector<std::string>& args, std::ostream& out, std::ostream& err);

/// bench: right-hand-side timings and the real-time factor of a scene, as "key value" lines.
std::string benchUsage();
int runBench(const std::vector<std::string>& args, std::ostream& out, std::ostream& err);

/// render: simulate a scene and draw it offscreen into an MP4 video, PNG frames or one screenshot.
std::string renderUsage();
int runRender(const std::vector<std::string>& args, std::ostream& out, std::ostream& err);
/// What drawing the model would say about its meshes (files that exist but cannot be read, or hold
/// no geometry the reader takes), one line each; empty in a build without the rendering module.
std::vector<std::string> drawingWarnings(const Model& model);

/// study: a parameter study (docs/STUDIES.md) on a local pool of worker processes.
std::string studyUsage();
int runStudy(const std::vector<std::string>& args, std::ostream& out, std::ostream& err);

}  // namespace rbs::cli
