// The control tests' closed loop: plant and controller integrated by the classic RK4 with the
// controller inside every stage, independent of sim/ (so that a fault in the simulator cannot
// hide in the controller tests, and the other way round). One helper for every control test.
#pragma once

#include <functional>
#include <string>

#include "core/control/controller.h"
#include "core/dynamics/dynamics.h"

namespace rbs::test {

/// r(t): the reference sample the controller sees at time t.
using ReferenceFunction = std::function<void(double t, ReferenceSample& out)>;

class Rk4ClosedLoop {
 public:
  /// Called after every step with the new time and state.
  using Observer = std::function<void(double t, const State& state)>;

  /// An empty `reference` gives the controller a default-constructed sample (controllers that
  /// carry their own trajectory).
  Rk4ClosedLoop(const Model& model, Controller& controller, ReferenceFunction reference = {});

  /// u = 0 and the controller is not called for t < t_on (actuation switched on later).
  void zeroInputBefore(double t_on) { t_on_ = t_on; }

  /// ẋ, ξ̇ at (t, state) with the controller's u; false (and failure()) if it or the dynamics fail.
  bool derivative(double t, const State& state, VecX& xdot, VecX& xidot);

  /// One RK4 step of length h from (t, state); x is projected onto its manifold afterwards.
  bool step(double t, State& state, double h);

  /// round(duration / h) steps from t; t_k = t_start + k h (no accumulated rounding), t ends at
  /// the last step's time. `observe` runs after each step. False at the first failure.
  bool run(State& state, double& t, double duration, double h = 1e-3, const Observer& observe = {});

  /// Runs the controller at (t, state) alone, for its signals and input().
  bool evaluate(double t, const State& state);
  const VecX& input() const { return u_; }

  /// Why the last call returned false: the time and the controller's or the dynamics' message.
  const std::string& failure() const { return failure_; }

 private:
  bool fail(double t, const std::string& what);

  const Model& model_;
  Controller& controller_;
  ReferenceFunction reference_;
  double t_on_ = -1e300;
  Workspace ws_;
  ReferenceSample sample_;
  VecX u_;
  VecX k_x_[4], k_xi_[4];
  std::string failure_;
};

}  // namespace rbs::test
