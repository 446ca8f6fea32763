#include "tests/support/flow.h"

#include <cmath>

namespace rbs::test {

VecX flowConfiguration(const Model& model, const VecX& x0, const VecX& xi, double t) {
  Workspace ws(model);
  auto rate = [&](const VecX& x) {
    computeKinematics(model, x, xi, ws);
    computeConfigurationRate(model, x, xi, ws, 0.0);
    return VecX(ws.xdot);
  };
  const int steps = std::max(1, static_cast<int>(std::ceil(std::abs(t) / 1e-5)));
  const double h = t / steps;
  VecX x = x0;
  for (int k = 0; k < steps; ++k) {
    const VecX k1 = rate(x);
    const VecX k2 = rate(x + 0.5 * h * k1);
    const VecX k3 = rate(x + 0.5 * h * k2);
    const VecX k4 = rate(x + h * k3);
    x += h / 6.0 * (k1 + 2 * k2 + 2 * k3 + k4);
  }
  return x;
}

}  // namespace rbs::test
