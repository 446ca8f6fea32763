// Joint-space PD with optional gravity compensation (konz-control §5.2: the M̄ = M "joint PD"
// case without its feed-forward M q̈_R + C q̇_R, gravity being part of b): on every controlled
// scalar joint (revolute, prismatic, revolute_unit_circle)
//   τ = K_p (q_R − q) + K_d (q̇_R − q̇) + g(q),
// g = f_G the generalized gravity force of the joint's coordinate (gravity_compensation: on), the
// angle error wrapped to (−π, π]. τ is the input of the joint's joint_effort actuator (the first
// one, if several act on the joint); every other input is 0. For a constant reference and
// compensation on, the joint errors tend to zero (Takegaki & Arimoto 1981); the free base of a
// floating model is not controlled.
//
// Parameters (shared by all controlled joints): kp [N m/rad, or N/m for prismatic joints],
// range [0, 1e4], default 100; kd [N m s/rad, or N s/m], range [0, 1e3], default 20;
// gravity_compensation, a switch (1 on, 0 off) that starts as the option says.
// Options: gravity_compensation: on | off (default on); joints: "all" (default: every scalar
// joint) or a comma-separated list of joint names; tracked_body (tracking.h).
// Construction throws ControlError when a controlled joint has no joint_effort actuator (the
// message names it), a listed joint is unknown or not scalar, or there is no scalar joint.
#pragma once

#include <memory>
#include <vector>

#include "core/control/controller.h"
#include "core/control/settings.h"
#include "core/control/tracking.h"

namespace rbs {

class JointPdController final : public Controller {
 public:
  JointPdController(const Model& model, const ControllerSettings& settings);

  std::string_view name() const override { return "joint_pd"; }
  bool compute(double t, const State& state, const ReferenceSample& reference, VecX& u) override;

 private:
  struct ControlledJoint {
    int joint = -1;
    int actuator = -1;
  };

  const Model& model_;
  std::vector<ControlledJoint> joints_;
  TrackingErrors tracking_;
  Parameter kp_, kd_, gravity_compensation_;
  SignalSlot tracking_signals_, signal_pd_, signal_gravity_;
  Workspace ws_, ws_ref_;
};

/// The registry's factory for "joint_pd".
std::unique_ptr<Controller> makeJointPd(const Model& model, const ControllerSettings& settings);

}  // namespace rbs
