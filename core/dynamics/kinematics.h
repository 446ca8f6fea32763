// Forward kinematics over the joint tree (konz-modeling §10, step 1; thesis (3.104), (3.122)).
#pragma once

#include "core/dynamics/workspace.h"

namespace rbs {

/// Forward pass in topological order: joint motions, world poses G_b, body twists η_b = J_b ξ and
/// κ_b = J̇_b ξ. x has size ν, xi size n.
void computeKinematics(const Model& model, const VecX& x, const VecX& xi, Workspace& ws);

/// Body Jacobians J_b = P_b Ad_{G_e⁻¹} J_λ + S_e (nonzero only in model.support[b]).
/// Requires computeKinematics.
void computeBodyJacobians(const Model& model, Workspace& ws);

/// ẋ = A(x) ξ for every joint, plus the drift stabilization (A.10)–(A.12) with gain λ ≥ 0 [1/s].
/// Requires computeKinematics (the absolute-ω joint reads its parent's twist). Result in ws.xdot.
void computeConfigurationRate(const Model& model, const VecX& x, const VecX& xi, Workspace& ws,
                              double stabilization_gain = 0.0);

/// World pose of a frame (body = −1: the world). Requires computeKinematics.
Pose framePose(const Model& model, const Workspace& ws, const Frame& frame);
/// Twist of a frame in its own coordinates. Requires computeKinematics.
Vec6 frameTwist(const Workspace& ws, const Frame& frame);

}  // namespace rbs
