// A small command-line parser for the rbsim-cli subcommands: options declared in a table,
// "--name VALUE", "--name=VALUE" and flags; everything else is positional.
#pragma once

#include <map>
#include <stdexcept>
#include <string>
#include <vector>

namespace rbs::cli {

/// A bad command line; main() prints it with the usage and exits 2.
class UsageError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

struct OptionSpec {
  std::string name;         ///< without the leading "--"
  bool takes_value = false;
  std::string value_name;   ///< for the usage text, e.g. "PATH=VALUE"
  std::string help;
};

struct ParsedArgs {
  std::vector<std::string> positional;
  std::map<std::string, std::vector<std::string>> values;  ///< option → values in order
  bool has(const std::string& option) const { return values.count(option) != 0; }
  const std::vector<std::string>& all(const std::string& option) const;
};

/// Parses `args` (without the program and subcommand names). Throws UsageError for an unknown
/// option or a missing value; "--" ends the options.
ParsedArgs parseArgs(const std::vector<std::string>& args, const std::vector<OptionSpec>& options);

/// The one positional SCENE argument of `command`; UsageError when there is none or more.
const std::string& sceneArgument(const ParsedArgs& parsed, const std::string& command);

/// The last value of option `name` as a finite number ≥ 0 (e.g. `--at 0`, the initial state);
/// `fallback` when the option is absent. Throws UsageError naming the option otherwise.
double nonNegativeOption(const ParsedArgs& parsed, const std::string& name, double fallback);

/// The options as usage lines ("  --set PATH=VALUE   help").
std::string formatOptions(const std::vector<OptionSpec>& options);

}  // namespace rbs::cli
