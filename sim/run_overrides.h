// What a run may change about a scene's own settings (sim/scene_run.h applies it). A header of its
// own so that the window can keep one without the controller headers.
#pragma once

#include <cstddef>
#include <optional>
#include <string>

namespace rbs {

/// What a run may change about the scene's own settings; unset: the scene's.
struct RunOverrides {
  std::optional<std::string> stepper;  ///< integrator.stepper
  std::optional<double> t_end, dt_out, dt, rtol, atol;
  std::optional<std::string> controller;  ///< "none", or a registered controller's name
  /// Samples the recording keeps (SimulationOptions::max_recorded_samples); 0: all.
  std::size_t keep_samples = 0;
};

}  // namespace rbs
