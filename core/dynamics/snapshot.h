// Fills a Snapshot (core/model/snapshot.h) from a model's configuration coordinates: forward
// kinematics only (thesis (3.104)), no velocities, no dynamics.
#pragma once

#include "core/dynamics/workspace.h"
#include "core/model/snapshot.h"

namespace rbs {

/// snapshot.time = t and snapshot.body_poses = the world poses G_b at configuration x (size ν).
/// Leaves reference_poses and forces as they are. Uses ws for the kinematics (its pose and
/// twist buffers are overwritten).
void fillBodyPoses(const Model& model, const VecX& x, double t, Workspace& ws, Snapshot& snapshot);

/// snapshot.reference_poses = the world poses at the reference configuration x_R (size ν).
void fillReferencePoses(const Model& model, const VecX& x_ref, Workspace& ws, Snapshot& snapshot);

/// snapshot.forces: for every BodyForce actuator i the force u_i · direction_i at its point, in
/// world coordinates, from snapshot.body_poses (fill those first). u has size numInputs() [N].
void fillActuatorForces(const Model& model, const VecX& u, Snapshot& snapshot);

}  // namespace rbs
