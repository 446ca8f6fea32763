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

/// snapshot.forces: for every BodyForce actuator i the force u_i · direction_i at its point, and for
/// every propeller its thrust κ_F ϖ|ϖ| (5.3) at the rotor, in world coordinates, from
/// snapshot.body_poses (fill those first). u has size numInputs() [N]; xi the velocities (rotor
/// rates ϖ), may be empty when the model has no propellers.
void fillActuatorForces(const Model& model, const VecX& xi, const VecX& u, Snapshot& snapshot);

/// AppliedForce::actuator of propeller p's thrust: numInputs() + p (after the actuators).
inline int propellerForceIndex(const Model& model, int p) { return model.numInputs() + p; }

}  // namespace rbs
