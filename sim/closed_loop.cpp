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

void ClosedLoop::compute(double t, const State& state, VecX& u) {
  reference_->sample(t, sample_);
  last_ok_ = controller_->compute(t, state, sample_, u);
  if (!last_ok_) {
    if (failure_.empty()) failure_ = controller_->message();
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
