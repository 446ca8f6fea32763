#include "core/control/controller.h"

#include "core/control/recovery.h"

namespace rbs {

bool Controller::supervise(double t, const State& state) {
  Recovery* r = recovery();
  return r ? r->supervise(t, state) : false;
}

SignalSlot Controller::addSignal(std::string name, std::string unit, std::string description) {
  signals_.push_back({std::move(name), std::move(unit), std::move(description)});
  signal_values_.setZero(static_cast<int>(signals_.size()));
  return {static_cast<int>(signals_.size()) - 1, 1};
}

SignalSlot Controller::addSignals(const std::vector<SignalInfo>& signals) {
  const SignalSlot slot{static_cast<int>(signals_.size()), static_cast<int>(signals.size())};
  for (const SignalInfo& s : signals) addSignal(s.name, s.unit, s.description);
  return slot;
}

bool Controller::fail(std::string message) {
  message_ = std::move(message);
  return false;
}

}  // namespace rbs
