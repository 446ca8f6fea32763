// rbsim-cli: headless front end. Dispatches to the subcommands in the table below (check, run,
// bench, render). docs/CLI.md describes them.
#include <exception>
#include <iostream>
#include <string>
#include <vector>

#include "app/cli_args.h"
#include "app/cli_commands.h"
#include "core/io/resource_path.h"
#include "sim/study_run.h"

namespace {

using rbs::cli::Command;

const std::vector<Command>& commands() {
  static const std::vector<Command> table = {
      {"check", "load a scene or URDF file, build the model and print a summary", rbs::cli::checkUsage,
       rbs::cli::runCheck},
      {"run", "simulate a scene and write every channel as CSV", rbs::cli::runUsage, rbs::cli::runRun},
      {"bench", "time the right-hand side and the real-time factor of a scene", rbs::cli::benchUsage,
       rbs::cli::runBench},
      {"render", "simulate a scene and draw it into an MP4 video, PNG frames or a screenshot",
       rbs::cli::renderUsage, rbs::cli::runRender},
      {"study", "run a parameter study on local worker processes and write its results as CSV",
       rbs::cli::studyUsage, rbs::cli::runStudy},
  };
  return table;
}

std::string programUsage() {
  std::string s =
      "usage: rbsim-cli COMMAND [ARGS]...\n"
      "       rbsim-cli COMMAND --help\n"
      "       rbsim-cli --version\n"
      "\n"
      "rbsim headless command line.\n"
      "\n"
      "commands:\n";
  for (const auto& c : commands()) {
    std::string left = "  " + std::string(c.name);
    left.resize(12, ' ');
    s += left + std::string(c.summary) + "\n";
  }
  return s;
}

}  // namespace

int main(int argc, char** argv) {
  const std::vector<std::string> args(argv + 1, argv + argc);
  if (args.empty()) {
    std::cerr << programUsage();
    return 2;
  }
  if (args[0] == "--help" || args[0] == "-h" || args[0] == "help") {
    std::cout << programUsage();
    return 0;
  }
  if (args[0] == "--version") {  // and where the shipped assets are looked up
    std::cout << "rbsim-cli " << rbs::rbsimVersion() << "\nassets: " << rbs::defaultAssetsDir().string() << "\n";
    return 0;
  }
  for (const auto& c : commands()) {
    if (args[0] != c.name) continue;
    try {
      return c.run(std::vector<std::string>(args.begin() + 1, args.end()), std::cout, std::cerr);
    } catch (const rbs::cli::UsageError& e) {
      std::cerr << "rbsim-cli " << c.name << ": " << e.what() << "\n\n" << c.usage();
      return 2;
    } catch (const std::exception& e) {
      std::cerr << "rbsim-cli " << c.name << ": " << e.what() << "\n";
      return 1;
    }
  }
  std::cerr << "rbsim-cli: unknown command '" << args[0] << "'\n\n" << programUsage();
  return 2;
}
