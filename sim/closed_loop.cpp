#include "sim/closed_loop.h"

#include <algorithm>
#include <limits>

namespace rbs {

ClosedLoop::ClosedLoop(std::unique_ptr<Controller> controller, std::unique_ptr<Reference> reference)
    : controller_(std::move(controller)), reference_(std::move(reference)) {}

ClosedLoop::ClosedLoop(std::unique_ptr<Controller> controller, std::unique_ptr<Reference> reference,
                       std::shared_ptr<const Model> controller_model)
    : controller_model_(std::move(controller_model)),
      controller_(std::move(controller)),
      reference_(std::move(reference)) {}

void ClosedLoop::compute(double t, const State& state, VecX& u) { evaluate(t, state, u, true); }

void ClosedLoop::evaluateForSample(double t, const State& state, VecX& u) {
  // A controller with discrete internal state (filters) may run once per control instant only:
  // its channels then report the last instant.
  if (controller_->hasInternalState()) return;
  evaluate(t, state, u, false);
}

void ClosedLoop::reset(double /*t0*/) {
  failure_.clear();
  last_ok_ = false;
  controller_->reset();
}

void ClosedLoop::evaluate(double t, const State& state, VecX& u, bool record_failure) {
  std::string message;
  try {
    reference_->sample(t, sample_);
    last_ok_ = controller_->compute(t, state, sample_, u);
    if (!last_ok_) message = controller_->message();
  } catch (const std::exception& e) {  // the contract is NaN + failure(), never an exception
    last_ok_ = false;
    message = std::string(controller_->name()) + ": " + e.what();
  }
  if (!last_ok_) {
    if (record_failure && failure_.empty()) failure_ = message;
    u.setConstant(std::numeric_limits<double>::quiet_NaN());
  }
}

std::vector<ChannelInfo> ClosedLoop::channels() const {
  std::vector<ChannelInfo> out;
  for (const SignalInfo& s : controller_->signals()) out.push_back({s.name, s.unit, s.description});
  return out;
}

void ClosedLoop::sample(double* out) {
  const VecX& v = controller_->signalValues();
  if (!last_ok_) {  // nothing meaningful to report at a state the controller failed on
    std::fill(out, out + v.size(), std::numeric_limits<double>::quiet_NaN());
    return;
  }
  controller_->updateSignals();
  for (int i = 0; i < v.size(); ++i) out[i] = v[i];
}

}  // namespace rbs
