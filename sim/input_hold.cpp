#include "sim/input_hold.h"

namespace rbs {

InputHold::InputHold(const Model& model, std::shared_ptr<InputSource> source, double control_rate)
    : model_(model), source_(std::move(source)), rate_(control_rate), held_(VecX::Zero(model.numInputs())) {}

void InputHold::evaluate(double t, const State& state, VecX& u) const {
  u.setZero(model_.numInputs());  // no allocation once u has its size
  if (!source_) return;
  source_->compute(t, state, u);
  for (int i = 0; i < model_.numInputs(); ++i) {
    const Actuator& a = model_.actuators[i];
    if (u[i] < a.lower) u[i] = a.lower;
    if (u[i] > a.upper) u[i] = a.upper;
  }
}

void InputHold::rhsInput(double t, const State& state, VecX& u) const {
  if (holds())
    u = held_;
  else
    evaluate(t, state, u);
}

void InputHold::start(double t, const State& state, bool finite) {
  if (!holds()) return;  // nothing is held; the source runs first inside the right-hand side
  if (finite)
    evaluate(t, state, held_);
  else
    held_.setZero();
}

}  // namespace rbs
