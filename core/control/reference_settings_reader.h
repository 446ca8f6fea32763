// The reference section's settings (`reference.parameters`, `reference.options`), read by name
// with their shape checked, and everything left over reported at the end: a setting the chosen
// generator does not read is an error that names it and says what is accepted (or, through
// explain(), why it does not apply here). Messages name the generator, the parameter and what is
// expected.
#pragma once

#include <algorithm>
#include <cmath>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "core/control/parameters.h"
#include "core/control/settings.h"

namespace rbs {

/// "a, b, c".
std::string joinNames(const std::vector<std::string>& names);
/// A number as the messages print it (an ostream's default: 6 significant digits).
std::string formatNumber(double v);

/// Reads parameters and options by name, checks their shape and reports everything that is left
/// over at the end. Messages name the generator, the parameter and what is expected.
class ReferenceSettingsReader {
 public:
  explicit ReferenceSettingsReader(const ReferenceSettings& s) : s_(s) {}

  [[noreturn]] void fail(const std::string& message) const {
    throw ControlError("reference generator '" + s_.generator + "': " + message);
  }
  [[noreturn]] void failParameter(const std::string& name, const std::string& message) const {
    fail("parameter '" + name + "': " + message);
  }

  bool has(const std::string& name) {
    accepted_.insert(name);
    return s_.parameters.count(name) != 0;
  }

  /// The list if given; `size` > 0: exactly that many numbers; `sizes` lists the alternatives.
  std::optional<std::vector<double>> list(const std::string& name, std::vector<int> sizes,
                                          const std::string& what) {
    if (!has(name)) return std::nullopt;
    const std::vector<double>& v = s_.parameters.at(name);
    const int n = static_cast<int>(v.size());
    if (!sizes.empty() && std::find(sizes.begin(), sizes.end(), n) == sizes.end()) {
      std::string expected;
      for (std::size_t i = 0; i < sizes.size(); ++i)
        expected += (i == 0 ? "" : " or ") + std::to_string(sizes[i]);
      failParameter(name, "expected " + expected +
                              (sizes.size() == 1 && sizes[0] == 1 ? " number" : " numbers") + " (" +
                              what + "), got " + std::to_string(n));
    }
    if (n == 0)
      failParameter(name, "expected at least one number (" + what + "), got an empty list");
    for (double x : v)
      if (!std::isfinite(x)) failParameter(name, "expected finite numbers (" + what + ")");
    return v;
  }
  std::vector<double> requireList(const std::string& name, std::vector<int> sizes,
                                  const std::string& what) {
    auto v = list(name, sizes, what);
    if (!v) fail("missing parameter '" + name + "' (" + what + ")");
    return *v;
  }

  std::optional<double> scalar(const std::string& name, const std::string& what) {
    auto v = list(name, {1}, what);
    if (!v) return std::nullopt;
    return (*v)[0];
  }
  double scalar(const std::string& name, double fallback, const std::string& what) {
    return scalar(name, what).value_or(fallback);
  }
  double requireScalar(const std::string& name, const std::string& what) {
    auto v = scalar(name, what);
    if (!v) fail("missing parameter '" + name + "' (" + what + ")");
    return *v;
  }
  double positive(const std::string& name, std::optional<double> fallback,
                  const std::string& what) {
    auto v = scalar(name, what);
    if (!v) {
      if (!fallback) fail("missing parameter '" + name + "' (a number > 0: " + what + ")");
      return *fallback;
    }
    if (!(*v > 0.0))
      failParameter(name, "expected a number > 0 (" + what + "), got " + formatNumber(*v));
    return *v;
  }

  std::string option(const std::string& name, const std::vector<std::string>& allowed,
                     const std::string& fallback) {
    accepted_options_.insert(name);
    const auto it = s_.options.find(name);
    if (it == s_.options.end()) return fallback;
    if (std::find(allowed.begin(), allowed.end(), it->second) == allowed.end())
      fail("option '" + name + "': '" + it->second +
           "' is not possible here; expected one of: " + joinNames(allowed));
    return it->second;
  }

  /// An option whose value is a name (or a list of names) checked by the caller; "" if absent.
  std::string text(const std::string& name) {
    accepted_options_.insert(name);
    const auto it = s_.options.find(name);
    return it == s_.options.end() ? std::string() : it->second;
  }

  /// Why a parameter or option that is present does not apply (used by finish()).
  void explain(const std::string& name, const std::string& reason) { reasons_[name] = reason; }

  /// Throws for every parameter or option nobody asked for.
  void finish() const {
    for (const auto& [name, value] : s_.parameters) {
      if (accepted_.count(name)) continue;
      if (auto it = reasons_.find(name); it != reasons_.end()) failParameter(name, it->second);
      fail("unknown parameter '" + name + "'; accepted here: " + acceptedList(accepted_));
    }
    for (const auto& [name, value] : s_.options) {
      if (accepted_options_.count(name)) continue;
      if (auto it = reasons_.find(name); it != reasons_.end())
        fail("option '" + name + "': " + it->second);
      fail("unknown option '" + name + "'; accepted here: " +
           (accepted_options_.empty() ? std::string("none") : acceptedList(accepted_options_)));
    }
  }

 private:
  static std::string acceptedList(const std::set<std::string>& names) {
    return joinNames(std::vector<std::string>(names.begin(), names.end()));
  }
  const ReferenceSettings& s_;
  std::set<std::string> accepted_, accepted_options_;
  std::map<std::string, std::string> reasons_;
};

}  // namespace rbs
