// A task-space reference: a path for a point of a named body (a robot's tool, flange or hand) in
// world coordinates, with that body's orientation held (or left free), turned into a reference of
// the whole model x_R(t), ξ_R(t), ξ̇_R(t) — what every controller tracks — by position-level
// inverse kinematics. Internal to core/control (made by makeReference, generator `tool_path`,
// docs/SCENE_FORMAT.md "Reference generators").
//
// The kinematics are made square so that the joint motion is a function of the path alone:
// m task coordinates (3 for the point, + 3 for the orientation) are solved for exactly m joints.
// Joints that do not move the body are held at their initial coordinates; of the joints that do,
// the caller names the redundant ones to hold (a 7-joint arm with a 6-coordinate task: one).
// Then, with F(q, t) = [r_T(q) − r_R(t); log(R_Rᵀ R_b(q))] = 0 and A = ∂F/∂q regular:
//   x_R:  Newton on F (steps halved until ‖F‖ decreases) from the solution at the knot ⌊t/h⌋
//         (KnotTable: a chain of solutions 2 ms apart, so the value depends on t alone and the
//         branch is the one continued from x(0));
//   ξ_R:  A ξ = [ṙ_R; R_bᵀ ω_R]                       (the implicit-function derivative),
//   ξ̇_R:  A ξ̇ = [r̈_R − β; R_bᵀ ω̇_R − κ_ω]            (its time derivative),
// with the point's velocity R_b (v + ω × p) and bias β = R_b (ω × (v + ω × p) + κ_v + κ_ω × p)
// from the body twist η_b = (v, ω) and κ_b = J̇_b ξ of the forward pass (kinematics.h). The held
// orientation is constant, so ω_R = ω̇_R = 0.
#pragma once

#include <memory>
#include <optional>
#include <vector>

#include "core/control/reference.h"
#include "core/control/trajectory.h"

namespace rbs {

struct ToolPathTask {
  int body = -1;                ///< the body whose point follows the path
  Vec3 point = Vec3::Zero();    ///< p: the point in the body frame [m]
  std::shared_ptr<const traj::Path> path;  ///< r_R(t): the point's world position (3 components)
  std::optional<Mat3> orientation;  ///< R_R: the body's world attitude held; none: free
  std::vector<int> held;        ///< joints (indices) the caller holds at their initial coordinates
  /// Checked on construction: the solution is continued over [0, check_until] knot by knot (so a
  /// path out of reach or through a singular pose is an error when the scene loads, not mid-run).
  double check_until = 0.0;
};

/// Throws ControlError (prefixed "reference generator 'tool_path': ") when the joints that move
/// the body do not match the task (with the joints to hold), a joint that must move is not a
/// one-degree-of-freedom joint, the model has a ball or weld loop closure or a mimic coupling on a
/// moving joint, or the path cannot be followed on [0, check_until] (out of reach: the time and
/// the residual; a singular pose: the time and the joint values).
std::unique_ptr<Reference> makeToolPathReference(const Model& model, ToolPathTask task);

}  // namespace rbs
