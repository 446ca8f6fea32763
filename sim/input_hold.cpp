#include "sim/input_hold.h"

namespace rbs {

void limitInputs(const Model& model, VecX& u, InputSetProjection* projection) {
  for (int i = 0; i < model.numInputs(); ++i) {
    const Actuator& a = model.actuators[i];
    if (u[i] < a.lower) u[i] = a.lower;
    if (u[i] > a.upper) u[i] = a.upper;
  }
  if (projection) projection->project(u);  // a failure leaves u: only a non-finite u fails
}

InputHold::InputHold(const Model& model, std::shared_ptr<InputSource> source, double control_rate)
    : model_(model), source_(std::move(source)), rate_(control_rate), held_(VecX::Zero(model.numInputs())) {
  if (!model.input_sets.empty()) projection_.emplace(model);
}

void InputHold::evaluate(double t, const State& state, VecX& u) const {
  u.setZero(model_.numInputs());  // no allocation once u has its size
  if (!source_) return;
  source_->compute(t, state, u);
  limitInputs(model_, u, projection_ ? &*projection_ : nullptr);
}

void InputHold::rhsInput(double t, const State& state, VecX& u) const {
  if (holds())
    u = held_;
  else
    evaluate(t, state, u);
}

bool InputHold::plantRate(const State& state, const VecX& u, double stabilization_gain, VecX& xdot,
                          VecX& xidot) const {
  if (holds() || !source_) return false;
  return source_->plantRate(model_, state, u, stabilization_gain, xdot, xidot);
}

DynamicsRhs makeRhs(const Model& model, const InputHold& hold, double stabilization_gain) {
  return DynamicsRhs(
      model, [&hold](double t, const State& s, VecX& u) { hold.rhsInput(t, s, u); }, stabilization_gain,
      [&hold](const State& s, const VecX& u, double gain, VecX& xdot, VecX& xidot) {
        return hold.plantRate(s, u, gain, xdot, xidot);
      });
}

void InputHold::start(double t, const State& state, bool finite) {
  if (!holds()) return;  // nothing is held; the source runs first inside the right-hand side
  if (finite)
    evaluate(t, state, held_);
  else
    held_.setZero();
}

}  // namespace rbs
