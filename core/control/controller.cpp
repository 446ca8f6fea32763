#include "core/control/controller.h"

namespace rbs {

int Controller::addSignal(std::string name, std::string unit, std::string description) {
  signals_.push_back({std::move(name), std::move(unit), std::move(description)});
  signal_values_.setZero(static_cast<int>(signals_.size()));
  return static_cast<int>(signals_.size()) - 1;
}

int Controller::addSignals(const std::vector<SignalInfo>& signals) {
  const int first = static_cast<int>(signals_.size());
  for (const SignalInfo& s : signals) addSignal(s.name, s.unit, s.description);
  return first;
}

bool Controller::fail(std::string message) {
  message_ = std::move(message);
  return false;
}

}  // namespace rbs
