#include "core/control/joint_pd.h"

#include <algorithm>
#include <cmath>

#include "core/control/baseline_support.h"
#include "core/control/registry.h"
#include "core/dynamics/dynamics.h"

namespace rbs {

JointPdController::JointPdController(const Model& model, const ControllerSettings& settings)
    : model_(model),
      tracking_(model, baseline::trackedBodyOption(
                           settings, {"gravity_compensation", "joints", "tracked_body"})),
      ws_(model),
      ws_ref_(model) {
  const bool gravity_compensation =
      controllerOption(settings, "gravity_compensation", "on", {"on", "off"}) == "on";

  // the controlled joints: every scalar joint, or the listed ones
  std::vector<int> selected;
  const std::string list = controllerOption(settings, "joints", "all", {});
  if (list == "all") {
    for (int j = 0; j < static_cast<int>(model.joints.size()); ++j)
      if (hasScalarPosition(model.joints[j].type)) selected.push_back(j);
    if (selected.empty())
      throw ControlError(
          "joint_pd needs a scalar joint (revolute, prismatic, revolute_unit_circle); the model "
          "has none");
  } else {
    for (const std::string& joint_name : baseline::splitList(list)) {
      const int j = model.jointIndex(joint_name);
      if (j < 0) throw ControlError("joint_pd: option joints: no joint named '" + joint_name + "'");
      if (!hasScalarPosition(model.joints[j].type))
        throw ControlError("joint_pd: option joints: joint '" + joint_name + "' is " +
                           std::string(jointTypeName(model.joints[j].type)) +
                           ", not a scalar joint (revolute, prismatic, revolute_unit_circle)");
      if (std::find(selected.begin(), selected.end(), j) == selected.end()) selected.push_back(j);
    }
    if (selected.empty()) throw ControlError("joint_pd: option joints lists no joint");
  }

  // the joint_effort actuator of every controlled joint (B column = unit vector of its coordinate)
  for (int j : selected) {
    int actuator = -1;
    for (int a = 0; a < model.numInputs() && actuator < 0; ++a)
      if (model.actuators[a].kind == ActuatorKind::JointEffort && model.actuators[a].joint == j)
        actuator = a;
    if (actuator < 0)
      throw ControlError("joint_pd: joint '" + model.joints[j].name +
                         "' has no joint_effort actuator (list the actuated joints in the option "
                         "joints)");
    joints_.push_back({j, actuator});
  }

  kp_ = parameters_.add(
      {"kp", "N m/rad", "joint stiffness K_p (N/m on prismatic joints)", 100.0, 0.0, 1e4});
  kd_ = parameters_.add(
      {"kd", "N m s/rad", "joint damping K_d (N s/m on prismatic joints)", 20.0, 0.0, 1e3});
  // the option sets where a run starts; the switch can be flipped during the run (the GUI's check box)
  gravity_compensation_ = parameters_.add(ParameterSpec::toggle(
      "gravity_compensation", "add the generalized gravity force g(q) to the PD torque", gravity_compensation));

  tracking_signals_ = addSignals(tracking_.signals());
  signal_pd_ =
      addSignal("control.pd_effort", "N m", "|K_p e + K_d de/dt| over the controlled joints");
  signal_gravity_ = addSignal("control.gravity_effort", "N m",
                              "|g(q)|: the gravity compensation over the controlled joints (0 when off)");
}

bool JointPdController::compute(double /*t*/, const State& state, const ReferenceSample& reference,
                                VecX& u) {
  if (state.x.size() != model_.nx || state.xi.size() != model_.nxi ||
      reference.x.size() != model_.nx || reference.xi.size() != model_.nxi)
    return fail("joint_pd: state or reference has the wrong size");

  computeKinematics(model_, state.x, state.xi, ws_);
  const bool gravity_compensation = parameters_[gravity_compensation_] != 0.0;
  if (gravity_compensation) {
    computeBodyJacobians(model_, ws_);
    computeGravityForces(model_, ws_);
  }
  computeKinematics(model_, reference.x, reference.xi, ws_ref_);
  tracking_.evaluate(ws_, ws_ref_, state.x, reference.x, signalBlock(tracking_signals_));

  if (u.size() != model_.numInputs()) u.resize(model_.numInputs());
  u.setZero();
  const double kp = parameters_[kp_], kd = parameters_[kd_];
  double pd_squared = 0.0, gravity_squared = 0.0;
  for (const ControlledJoint& c : joints_) {
    const Joint& joint = model_.joints[c.joint];
    const int o = joint.x_offset;
    double e = jointScalarPosition(joint, reference.x.data() + o) - jointScalarPosition(joint, state.x.data() + o);
    if (joint.type != JointType::Prismatic) e = baseline::wrapAngle(e);
    const double edot = reference.xi[joint.xi_offset] - state.xi[joint.xi_offset];
    const double pd = kp * e + kd * edot;
    const double gravity = gravity_compensation ? ws_.gravity_forces[joint.xi_offset] : 0.0;
    u[c.actuator] += pd + gravity;
    pd_squared += pd * pd;
    gravity_squared += gravity * gravity;
  }
  if (!u.allFinite()) return fail("joint_pd: the input is not finite (non-finite state?)");

  signal(signal_pd_) = std::sqrt(pd_squared);
  signal(signal_gravity_) = std::sqrt(gravity_squared);
  return true;
}

std::unique_ptr<Controller> makeJointPd(const Model& model, const ControllerSettings& settings) {
  return std::make_unique<JointPdController>(model, settings);
}

}  // namespace rbs
