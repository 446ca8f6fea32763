// SimulationOptions from the integrator section of a scene (core/scene/scene.h). IntegratorSettings
// is a plain struct: including its header needs no library.
#pragma once

#include "core/scene/scene.h"
#include "sim/simulator.h"

namespace rbs {

/// stepper, dt, rtol, atol, drift, stabilization_gain and dt_out of `settings` (t_end is the
/// caller's: it is not an option of the simulator). Throws std::invalid_argument naming an unknown
/// stepper or drift policy (with the list of known names), or a non-positive dt, dt_out or
/// tolerance.
SimulationOptions simulationOptions(const IntegratorSettings& settings);

}  // namespace rbs
