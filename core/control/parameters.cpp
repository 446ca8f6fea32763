#include "core/control/parameters.h"

#include <algorithm>
#include <cmath>
#include <sstream>

namespace rbs {

ParameterSpec ParameterSpec::toggle(std::string name, std::string description, bool on) {
  ParameterSpec s{std::move(name), "1", std::move(description), on ? 1.0 : 0.0, 0.0, 1.0};
  s.kind = ParameterKind::Toggle;
  return s;
}

ParameterSpec ParameterSpec::choice(std::string name, std::string description, std::vector<std::string> choices,
                                    const std::string& initial) {
  const auto it = std::find(choices.begin(), choices.end(), initial);
  if (choices.size() < 2 || it == choices.end())
    throw std::logic_error("ParameterSpec::choice: '" + initial + "' is not among the choices of " + name);
  ParameterSpec s{std::move(name), "1", std::move(description), static_cast<double>(it - choices.begin()), 0.0,
                  static_cast<double>(choices.size() - 1)};
  s.kind = ParameterKind::Choice;
  s.choices = std::move(choices);
  return s;
}

namespace {
bool isWhole(double v) { return std::floor(v) == v; }
}  // namespace

Parameter ParameterSet::add(ParameterSpec spec) {
  if (find(spec.name) >= 0) throw std::logic_error("ParameterSet: duplicate parameter " + spec.name);
  if (!(spec.min <= spec.default_value && spec.default_value <= spec.max) ||
      (spec.scale == ParameterScale::Log && !(spec.min > 0.0)))
    throw std::logic_error("ParameterSet: inconsistent range or default of " + spec.name);
  const bool discrete = spec.kind != ParameterKind::Real;
  if (discrete && (spec.min != 0.0 || !isWhole(spec.default_value) || spec.scale != ParameterScale::Linear ||
                   spec.max != (spec.kind == ParameterKind::Toggle ? 1.0 : static_cast<double>(spec.choices.size()) - 1.0)))
    throw std::logic_error("ParameterSet: inconsistent toggle or choice " + spec.name);
  values_.push_back(spec.default_value);
  specs_.push_back(std::move(spec));
  read_.push_back(0);
  ++version_;
  return Parameter(size() - 1);
}

std::vector<std::string> ParameterSet::unread() const {
  std::vector<std::string> names;
  for (int i = 0; i < size(); ++i)
    if (!read_[static_cast<std::size_t>(i)]) names.push_back(specs_[i].name);
  return names;
}

int ParameterSet::find(std::string_view name) const {
  for (int i = 0; i < size(); ++i)
    if (specs_[i].name == name) return i;
  return -1;
}

void ParameterSet::check(int i, double value) const {
  const ParameterSpec& s = specs_[i];
  if (!std::isfinite(value) || value < s.min || value > s.max) {
    std::ostringstream m;
    m << "controller parameter '" << s.name << "' = " << value << " is outside its range [" << s.min << ", "
      << s.max << "]" << (s.unit.empty() || s.unit == "1" ? "" : " " + s.unit);
    throw ControlError(m.str());
  }
  if (s.kind != ParameterKind::Real && !isWhole(value)) {
    std::ostringstream m;
    m << "controller parameter '" << s.name << "' = " << value << " is not one of its values:";
    if (s.kind == ParameterKind::Toggle) m << " 0 (off), 1 (on)";
    for (std::size_t c = 0; c < s.choices.size(); ++c) m << (c ? ", " : " ") << c << " (" << s.choices[c] << ")";
    throw ControlError(m.str());
  }
}

void ParameterSet::set(int i, double value) {
  check(i, value);
  if (values_[i] != value) {
    values_[i] = value;
    ++version_;
  }
}

void ParameterSet::set(std::string_view name, double value) {
  const int i = find(name);
  if (i < 0) {
    std::string known;
    for (const auto& s : specs_) known += (known.empty() ? "" : ", ") + s.name;
    throw ControlError("unknown controller parameter '" + std::string(name) + "' (known: " +
                       (known.empty() ? "none" : known) + ")");
  }
  set(i, value);
}

void ParameterSet::setAll(const std::map<std::string, double>& values) {
  ParameterSet trial = *this;  // all or nothing
  for (const auto& [name, value] : values) trial.set(name, value);
  *this = std::move(trial);
  ++version_;
}

void ParameterSet::resetToDefaults() {
  for (int i = 0; i < size(); ++i) values_[i] = specs_[i].default_value;
  ++version_;
}

}  // namespace rbs
