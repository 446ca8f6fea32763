// What a scene file (or the command line) says about the controller and the reference: plain
// data, validated when the controller and the reference are made (core/control/registry.h,
// core/control/reference.h).
#pragma once

#include <map>
#include <string>
#include <vector>

namespace rbs {

/// The force-control layer between a rigid-body controller and a multicopter's real inputs
/// (core/control/actuation.h): scene key `controller.actuation`.
struct ActuationSettings {
  std::string filter;                          ///< thrust_filter | flat_filter; empty: none
  std::map<std::string, double> parameters;    ///< time constants, cut-offs, speed gain
  std::map<std::string, std::string> options;  ///< rotor_inertia: true | false (flat filter)
  /// Servo-tilted propellers as thrust vectors (ModelBuilder::rotorsAsThrustVectors, `thrust:
  /// vector`) with this many outer chords of their sector; 0: every thrust a scalar (`thrust: scalar`).
  int sector_chords = 0;
  int line = 0;  ///< where the section starts in the scene file (1-based; 0: not from a file)
  int column = 0;
};

struct ControllerSettings {
  std::string name;                                ///< empty: no controller
  std::map<std::string, double> parameters;        ///< gains, checked against the controller's metadata
  std::map<std::string, std::string> options;      ///< discrete choices (allocation, template layout, …)
  ActuationSettings actuation;                     ///< propeller vehicles only
  int line = 0;  ///< where the section starts in the scene file (1-based; 0: not from a file)
  int column = 0;
};

struct ReferenceSettings {
  std::string generator;                                  ///< empty: hold the initial state
  std::map<std::string, std::vector<double>> parameters;  ///< scalars are 1-element lists
  std::map<std::string, std::string> options;             ///< discrete choices (attitude mode, …)
  int line = 0;  ///< where the section starts in the scene file (1-based; 0: not from a file)
  int column = 0;
};

}  // namespace rbs
