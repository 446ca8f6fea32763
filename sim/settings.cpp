#include "sim/settings.h"

#include <cmath>
#include <stdexcept>

namespace rbs {

SimulationOptions simulationOptions(const IntegratorSettings& s) {
  SimulationOptions o;
  const std::optional<StepperKind> stepper = stepperFromName(s.stepper);
  if (!stepper)
    throw std::invalid_argument("unknown stepper '" + s.stepper + "' (known: " + stepperNameList() + ")");
  const std::optional<DriftPolicy> drift = driftPolicyFromName(s.drift);
  if (!drift)
    throw std::invalid_argument("unknown drift policy '" + s.drift + "' (known: project, stabilize, none)");
  auto positive = [](double v, const char* what) {
    if (!(std::isfinite(v) && v > 0.0))
      throw std::invalid_argument(std::string("integrator ") + what + " must be a finite number > 0");
    return v;
  };
  o.integration.stepper = *stepper;
  o.integration.drift = *drift;
  o.integration.dt = positive(s.dt, "dt");
  o.integration.rtol = positive(s.rtol, "rtol");
  o.integration.atol = positive(s.atol, "atol");
  if (!(std::isfinite(s.stabilization_gain) && s.stabilization_gain >= 0.0))
    throw std::invalid_argument("integrator stabilization_gain must be a finite number >= 0");
  o.integration.stabilization_gain = s.stabilization_gain;
  o.dt_out = positive(s.dt_out, "dt_out");
  if (!(std::isfinite(s.control_rate) && s.control_rate >= 0.0))
    throw std::invalid_argument("integrator control_rate must be a finite number >= 0 (0: inside the right-hand side)");
  o.control_rate = s.control_rate;
  return o;
}

}  // namespace rbs
