// Tunable controller parameters with the metadata a GUI needs to make a slider (name, unit,
// default, range, linear or logarithmic scale) and the CLI needs to check `--set controller.X=V`.
#pragma once

#include <cstdint>
#include <map>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "core/math/assert.h"

namespace rbs {

/// A user error in a controller or reference setting (unknown name, value out of range, a
/// template the model cannot realize). The message says which setting and what is expected.
class ControlError : public std::invalid_argument {
 public:
  using std::invalid_argument::invalid_argument;
};

enum class ParameterScale { Linear, Log };

/// What a value means: a real number, a switch (0 off, 1 on) or one of named choices (0, 1, …).
/// The GUI shows a slider and a number field, a check box, or a combo box.
enum class ParameterKind { Real, Toggle, Choice };

struct ParameterSpec {
  std::string name;         ///< e.g. "omega", "kbar", "kp_joint1"
  std::string unit;         ///< SI, e.g. "rad/s", "N/m", "1"
  std::string description;  ///< one line for tooltips and --help
  double default_value = 0.0;
  double min = 0.0;         ///< inclusive range; a log-scale parameter has min > 0
  double max = 1.0;
  ParameterScale scale = ParameterScale::Linear;
  ParameterKind kind = ParameterKind::Real;
  std::vector<std::string> choices;  ///< Choice: the name of each value 0 … max (min = 0)

  /// A switch: values 0 (off) and 1 (on).
  static ParameterSpec toggle(std::string name, std::string description, bool on);
  /// One of `choices` (at least two), value = index; `initial` must be one of them.
  static ParameterSpec choice(std::string name, std::string description, std::vector<std::string> choices,
                              const std::string& initial);
};

/// A declared parameter, as ParameterSet::add returns it: the one way a controller reads a value
/// (ParameterSet::operator[]). A default-constructed handle names no parameter, and reading it is
/// a programming error (RBS_ASSERT): a controller can read only what it declared, and a test reads
/// ParameterSet::unread() to find what it declared but never applies.
class Parameter {
 public:
  Parameter() = default;
  bool declared() const { return index_ >= 0; }
  /// The position in its set (what front ends and ParameterSet::set(int, …) use).
  int index() const { return index_; }

 private:
  friend class ParameterSet;
  explicit Parameter(int index) : index_(index) {}
  int index_ = -1;
};

/// The ordered parameters of one controller and their current values. Front ends address them by
/// position (value(i), set(i, v)); the controller that declared them reads them by handle.
class ParameterSet {
 public:
  /// Appends a parameter (its value starts at the default) and returns its handle. Throws
  /// std::logic_error for a duplicate name or an inconsistent spec (programming errors).
  Parameter add(ParameterSpec spec);

  int size() const { return static_cast<int>(specs_.size()); }
  const ParameterSpec& spec(int i) const { return specs_[i]; }
  double value(int i) const { return values_[i]; }
  /// The value of a declared parameter, for the controller that declared it.
  double operator[](Parameter p) const {
    RBS_ASSERT(p.index_ >= 0 && p.index_ < size(), "the parameter was not declared in this set");
    read_[static_cast<std::size_t>(p.index_)] = 1;
    return values_[static_cast<std::size_t>(p.index_)];
  }
  /// The names of the parameters never read through operator[] since they were declared: declared
  /// but applied nowhere (a controller's tests check that none is left after a compute()).
  std::vector<std::string> unread() const;
  /// Index of a parameter, −1 if there is none.
  int find(std::string_view name) const;

  /// Sets a value. Throws ControlError for a non-finite value, one outside [min, max], or a
  /// toggle or choice that is not a whole number (the message names the parameter, the value and
  /// what is allowed).
  void set(int i, double value);
  /// Same by name; an unknown name throws ControlError listing the known ones.
  void set(std::string_view name, double value);
  /// Applies every entry of a scene's `parameters` map (all checked before any is applied).
  void setAll(const std::map<std::string, double>& values);
  void resetToDefaults();

  /// Increases with every change, so a controller can recompute derived gains lazily.
  std::uint64_t version() const { return version_; }

 private:
  void check(int i, double value) const;
  std::vector<ParameterSpec> specs_;
  std::vector<double> values_;
  mutable std::vector<char> read_;  ///< per parameter: read through operator[]
  std::uint64_t version_ = 0;
};

}  // namespace rbs
