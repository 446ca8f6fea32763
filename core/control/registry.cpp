#include "core/control/registry.h"

#include <algorithm>
#include <functional>

#include "core/control/computed_torque.h"
#include "core/control/geometric_se3.h"
#include "core/control/joint_pd.h"
#include "core/control/prototype.h"
#include "core/control/servo_constraint.h"
#include "core/control/tiltrotor.h"

namespace rbs {
namespace {

using Factory = std::function<std::unique_ptr<Controller>(const Model&, const ControllerSettings&)>;

struct Entry {
  ControllerInfo info;
  Factory make;
};

const std::vector<Entry>& entries() {
  static const std::vector<Entry> list = {
      {{"prototype_particle", "prototype template, particle-based velocity error (thesis 4.1): straight-line correction in the inertial frame"},
       [](const Model& m, const ControllerSettings& s) { return makePrototypeController(m, VelocityError::Particle, s); }},
      {{"prototype_body", "prototype template, body-based velocity error (thesis 4.2): autonomous error dynamics of a single body"},
       [](const Model& m, const ControllerSettings& s) { return makePrototypeController(m, VelocityError::Body, s); }},
      {{"prototype_energy", "prototype template, energy-based velocity error (thesis 4.3): the error energy is a Lyapunov function"},
       [](const Model& m, const ControllerSettings& s) { return makePrototypeController(m, VelocityError::Energy, s); }},
      {{"computed_torque", "computed torque on minimal coordinates (thesis 1.5; Kremer): linear error dynamics per coordinate, Euler angles for rotations"},
       makeComputedTorque},
      {{"joint_pd", "PD on the scalar joints with optional gravity compensation"}, makeJointPd},
      {{"geometric_se3", "Lee-Leok-McClamroch geometric tracking on SE(3) for multicopters"}, makeGeometricSe3},
      {{"tiltrotor_inversion", "tricopter force control (thesis 5.3.3): base template, thrust and tilt by inversion (5.28), servo PD (5.2)"},
       makeTiltrotorInversion},
      {{"servo_constraint_pd", "Seifried: feedforward by servo constraints / stable inversion of an end-effector path, PD on the actuated joints"},
       makeServoConstraintPd},
  };
  return list;
}

}  // namespace

const std::vector<ControllerInfo>& controllerCatalog() {
  static const std::vector<ControllerInfo> catalog = [] {
    std::vector<ControllerInfo> c;
    for (const Entry& e : entries()) c.push_back(e.info);
    return c;
  }();
  return catalog;
}

std::unique_ptr<Controller> makeController(const Model& model, const ControllerSettings& settings) {
  for (const Entry& e : entries()) {
    if (e.info.name != settings.name) continue;
    std::unique_ptr<Controller> controller = e.make(model, settings);
    controller->parameters().setAll(settings.parameters);
    return controller;
  }
  std::string known;
  for (const Entry& e : entries()) known += (known.empty() ? "" : ", ") + e.info.name;
  throw ControlError("unknown controller '" + settings.name + "' (known: " + known + ")");
}

std::string controllerOption(const ControllerSettings& settings, const std::string& key,
                             const std::string& fallback, const std::vector<std::string>& choices) {
  const auto it = settings.options.find(key);
  if (it == settings.options.end()) return fallback;
  if (!choices.empty() && std::find(choices.begin(), choices.end(), it->second) == choices.end()) {
    std::string list;
    for (const auto& c : choices) list += (list.empty() ? "" : ", ") + c;
    throw ControlError(settings.name + ": option " + key + " = '" + it->second + "' is not one of: " + list);
  }
  return it->second;
}

void checkControllerOptions(const ControllerSettings& settings, const std::vector<std::string>& known) {
  for (const auto& [key, value] : settings.options)
    if (std::find(known.begin(), known.end(), key) == known.end()) {
      std::string list;
      for (const auto& k : known) list += (list.empty() ? "" : ", ") + k;
      throw ControlError(settings.name + ": unknown option '" + key + "' (known: " + (list.empty() ? "none" : list) + ")");
    }
}

}  // namespace rbs
