// The exact flow of the kinematics ẋ = A(x) ξ at constant ξ, for finite-difference checks of
// Jacobians and biases (konz-modeling §16.3, item 3).
#pragma once

#include <type_traits>

#include "core/dynamics/kinematics.h"

namespace rbs::test {

/// x(t) with ẋ = A(x) ξ, ξ held constant, x(0) = x0; classical RK4 with steps ≤ 1e-5 s
/// (local error ~1e-25: exact to rounding for the flows of length ~1e-3 used in the tests).
VecX flowConfiguration(const Model& model, const VecX& x0, const VecX& xi, double t);

/// Fourth-order central difference of f along the flow: (f(−2h) − 8f(−h) + 8f(h) − f(2h)) / 12h.
/// f returns a concrete value (double or an Eigen matrix), never an expression template.
template <class F>
auto centralDifference(F&& f, double h) {
  using Value = std::decay_t<decltype(f(h))>;
  const Value result = (f(-2 * h) - 8.0 * f(-h) + 8.0 * f(h) - f(2 * h)) / (12.0 * h);
  return result;
}

}  // namespace rbs::test
