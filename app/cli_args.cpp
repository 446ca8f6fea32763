#include "app/cli_args.h"

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdlib>

namespace rbs::cli {

const std::vector<std::string>& ParsedArgs::all(const std::string& option) const {
  static const std::vector<std::string> none;
  auto it = values.find(option);
  return it == values.end() ? none : it->second;
}

ParsedArgs parseArgs(const std::vector<std::string>& args, const std::vector<OptionSpec>& options) {
  ParsedArgs out;
  bool options_done = false;
  for (std::size_t i = 0; i < args.size(); ++i) {
    const std::string& a = args[i];
    if (options_done || a.size() < 2 || a[0] != '-') {
      out.positional.push_back(a);
      continue;
    }
    if (a == "--") {
      options_done = true;
      continue;
    }
    const std::string body = a.rfind("--", 0) == 0 ? a.substr(2) : a.substr(1);
    const auto eq = body.find('=');
    const std::string name = body.substr(0, eq);
    auto spec = std::find_if(options.begin(), options.end(), [&](const OptionSpec& o) { return o.name == name; });
    if (spec == options.end()) throw UsageError("unknown option '" + a + "'");
    if (!spec->takes_value) {
      if (eq != std::string::npos) throw UsageError("option '--" + name + "' takes no value");
      out.values[name];
      continue;
    }
    if (eq != std::string::npos) {
      out.values[name].push_back(body.substr(eq + 1));
    } else if (i + 1 < args.size()) {
      out.values[name].push_back(args[++i]);
    } else {
      throw UsageError("option '--" + name + "' needs a value (" + spec->value_name + ")");
    }
  }
  return out;
}

std::string formatOptions(const std::vector<OptionSpec>& options) {
  std::string out;
  for (const auto& o : options) {
    std::string left = "  --" + o.name + (o.takes_value ? " " + o.value_name : "");
    if (left.size() < 24) left.resize(24, ' ');
    else left += "  ";
    out += left + o.help + "\n";
  }
  return out;
}

const std::string& sceneArgument(const ParsedArgs& parsed, const std::string& command) {
  if (parsed.positional.size() != 1)
    throw UsageError(parsed.positional.empty()
                         ? command + " needs a scene file"
                         : command + " takes one scene file, got " + std::to_string(parsed.positional.size()));
  return parsed.positional[0];
}

double nonNegativeOption(const ParsedArgs& parsed, const std::string& name, double fallback) {
  if (!parsed.has(name)) return fallback;
  const std::string& text = parsed.all(name).back();
  char* end = nullptr;
  errno = 0;
  const double v = std::strtod(text.c_str(), &end);
  if (text.empty() || end != text.c_str() + text.size() || errno == ERANGE || !std::isfinite(v) || v < 0.0)
    throw UsageError("option '--" + name + "' needs a finite number >= 0, got '" + text + "'");
  return v;
}

}  // namespace rbs::cli
