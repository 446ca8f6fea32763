#include "sim/closed_loop.h"

#include <algorithm>
#include <cmath>
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
  // Under a hold the output instants usually coincide with hold instants, which have just run
  // the controller on the same time and state: its signals are already those of this sample.
  if (last_ok_ && t == last_t_ && controller_->parameters().version() == last_parameters_version_ &&
      state.x == last_state_.x && state.xi == last_state_.xi)
    return;
  evaluate(t, state, u, false);
}

bool ClosedLoop::plantRate(const Model& plant, const State& state, const VecX& u, double stabilization_gain,
                           VecX& xdot, VecX& xidot) {
  // Only for the state the controller last ran on, successfully, with the parameters it ran with.
  if (!last_ok_ || controller_->parameters().version() != last_parameters_version_ || state.x != last_state_.x ||
      state.xi != last_state_.xi)
    return false;
  return controller_->plantRate(plant, state, u, stabilization_gain, xdot, xidot);
}

void ClosedLoop::reset(double /*t0*/) {
  failure_.clear();
  supervision_failure_.clear();
  last_ok_ = false;
  controller_->reset();
  if (Recovery* r = recovery()) r->reset();
  sample_time_ = output_sample_time_ = std::numeric_limits<double>::quiet_NaN();
}

Recovery* ClosedLoop::recovery() const {
  Recovery* r = controller_->recovery();
  return r && r->attached() ? r : nullptr;
}

const Reference& ClosedLoop::activeReference() const {
  const Recovery* r = recovery();
  return r ? r->reference() : *reference_;
}

void ClosedLoop::setReferenceFactory(ReferenceFactory factory) {
  if (Recovery* r = controller_->recovery()) r->attach(*reference_, std::move(factory));
}

void ClosedLoop::setPlantReference(std::unique_ptr<Reference> reference, const Model& plant, const Model& design) {
  plant_reference_ = std::move(reference);
  shared_joints_.clear();
  for (const Joint& j : design.joints) {
    const int p = plant.jointIndex(j.name);
    if (p < 0 || j.nx == 0) continue;
    const Joint& pj = plant.joints[p];
    if (pj.nx != j.nx || pj.nxi != j.nxi) continue;
    shared_joints_.push_back({pj.x_offset, j.x_offset, j.nx, pj.xi_offset, j.xi_offset, j.nxi});
  }
}

double ClosedLoop::supervisionPeriod() const { return recovery() ? Recovery::kPeriod : 0.0; }

bool ClosedLoop::supervise(double t, const State& state) {
  if (!recovery()) return false;
  bool changed = false;
  try {
    changed = controller_->supervise(t, state);
  } catch (const std::exception& e) {  // a reference the supervisor could not make: the run stops here
    supervision_failure_ = std::string(controller_->name()) + ": recovery at t = " + std::to_string(t) + " s: " + e.what();
    changed = true;
  }
  if (changed) {  // the reference or the template changed from t on: nothing computed before holds
    sample_time_ = output_sample_time_ = std::numeric_limits<double>::quiet_NaN();
    last_ok_ = false;
  }
  return changed;
}

void ClosedLoop::evaluate(double t, const State& state, VecX& u, bool record_failure) {
  std::string message;
  if (!supervision_failure_.empty()) {
    last_ok_ = false;
    if (record_failure && failure_.empty()) failure_ = supervision_failure_;
    u.setConstant(std::numeric_limits<double>::quiet_NaN());
    return;
  }
  try {
    if (t != sample_time_) {
      sample_time_ = std::numeric_limits<double>::quiet_NaN();  // stays unset if sample() throws
      activeReference().sample(t, sample_);
      sample_time_ = t;
    }
    last_ok_ = controller_->compute(t, state, sample_, u);
    if (!last_ok_) message = controller_->message();
  } catch (const std::exception& e) {  // the contract is NaN + failure(), never an exception
    last_ok_ = false;
    message = std::string(controller_->name()) + ": " + e.what();
  }
  last_t_ = t;
  last_state_.x = state.x;
  last_state_.xi = state.xi;
  last_parameters_version_ = controller_->parameters().version();
  if (!last_ok_) {
    if (record_failure && failure_.empty()) failure_ = message;
    u.setConstant(std::numeric_limits<double>::quiet_NaN());
  }
}

const ReferenceSample* ClosedLoop::referenceForSample(double t) {
  // The controller's own sample when it is of this time and on the plant; otherwise the reference
  // at t on its own (a Reference is a function of t alone): under a hold the controller may have
  // last run at an earlier instant.
  if (!plant_reference_ && t == sample_time_) return &sample_;
  if (t != output_sample_time_) {
    output_sample_time_ = std::numeric_limits<double>::quiet_NaN();  // stays unset if sample() throws
    try {
      if (!plant_reference_) {
        activeReference().sample(t, output_sample_);
      } else {
        plant_reference_->sample(t, output_sample_);
        if (recovery()) {  // the recovery's reference, on the joints the plant shares with the design model
          activeReference().sample(t, design_sample_);
          for (const SharedJoint& j : shared_joints_) {
            output_sample_.x.segment(j.plant_x, j.nx) = design_sample_.x.segment(j.design_x, j.nx);
            output_sample_.xi.segment(j.plant_xi, j.nxi) = design_sample_.xi.segment(j.design_xi, j.nxi);
            output_sample_.xidot.segment(j.plant_xi, j.nxi) = design_sample_.xidot.segment(j.design_xi, j.nxi);
          }
        }
      }
    } catch (const std::exception&) {  // the controller reports the failure where it matters
      return nullptr;
    }
    output_sample_time_ = t;
  }
  return &output_sample_;
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
