#include "tests/support/closed_loop_rk4.h"

#include <cmath>
#include <sstream>

namespace rbs::test {

Rk4ClosedLoop::Rk4ClosedLoop(const Model& model, Controller& controller, ReferenceFunction reference)
    : model_(model), controller_(controller), reference_(std::move(reference)), ws_(model),
      u_(VecX::Zero(model.numInputs())) {}

bool Rk4ClosedLoop::fail(double t, const std::string& what) {
  std::ostringstream text;
  text << "t = " << t << ": " << what;
  failure_ = text.str();
  return false;
}

bool Rk4ClosedLoop::evaluate(double t, const State& state) {
  if (t < t_on_) {
    u_.setZero();
    return true;
  }
  if (reference_) reference_(t, sample_);
  if (!controller_.compute(t, state, sample_, u_)) return fail(t, controller_.message());
  return true;
}

bool Rk4ClosedLoop::derivative(double t, const State& state, VecX& xdot, VecX& xidot) {
  if (!evaluate(t, state)) return false;
  const DynamicsStatus status = computeForwardDynamics(model_, state.x, state.xi, u_, ws_);
  if (status != DynamicsStatus::Ok) return fail(t, std::string(toString(status)));
  xdot = ws_.xdot;
  xidot = ws_.xidot;
  return true;
}

bool Rk4ClosedLoop::step(double t, State& state, double h) {
  // Butcher tableau of the classic RK4: stages at 0, h/2, h/2, h; weights 1/6, 2/6, 2/6, 1/6.
  if (!derivative(t, state, k_x_[0], k_xi_[0])) return false;
  if (!derivative(t + h / 2, State{state.x + h / 2 * k_x_[0], state.xi + h / 2 * k_xi_[0]}, k_x_[1], k_xi_[1]))
    return false;
  if (!derivative(t + h / 2, State{state.x + h / 2 * k_x_[1], state.xi + h / 2 * k_xi_[1]}, k_x_[2], k_xi_[2]))
    return false;
  if (!derivative(t + h, State{state.x + h * k_x_[2], state.xi + h * k_xi_[2]}, k_x_[3], k_xi_[3])) return false;
  state.x += h / 6 * (k_x_[0] + 2 * k_x_[1] + 2 * k_x_[2] + k_x_[3]);
  state.xi += h / 6 * (k_xi_[0] + 2 * k_xi_[1] + 2 * k_xi_[2] + k_xi_[3]);
  model_.projectCoordinates(state.x);
  return true;
}

bool Rk4ClosedLoop::run(State& state, double& t, double duration, double h, const Observer& observe) {
  const double t_start = t;
  const long steps = std::lround(duration / h);
  for (long k = 0; k < steps; ++k) {
    if (!step(t_start + static_cast<double>(k) * h, state, h)) return false;
    t = t_start + static_cast<double>(k + 1) * h;
    if (observe) observe(t, state);
  }
  return true;
}

}  // namespace rbs::test
