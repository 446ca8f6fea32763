// What a 3D view needs of one instant of a simulation, and nothing of how it was computed: the
// world poses of the bodies, optionally the bodies at their reference pose (the "ghost") and the
// forces of the force actuators. Plain data: render/ reads it without knowing sim/ (see
// docs/RENDER.md); core/dynamics/snapshot.h fills it from a Model and a State.
#pragma once

#include <vector>

#include "core/math/se3.h"

namespace rbs {

/// The world poses of the bodies at one output sample of a run: the path between two frames a
/// display draws, so that trails follow every sample and not only the frames shown.
struct PathSample {
  double time = 0.0;             ///< [s]
  std::vector<Pose> body_poses;  ///< as Snapshot::body_poses
};

/// A force an actuator applies, in world coordinates (for the force arrows).
struct AppliedForce {
  /// Index into model.actuators; a propeller's thrust: propellerForceIndex(model, p).
  int actuator = -1;
  Vec3 point = Vec3::Zero();   ///< application point, world frame [m]
  Vec3 force = Vec3::Zero();   ///< force vector, world axes [N]
};

struct Snapshot {
  double time = 0.0;  ///< simulation time t [s]
  /// G_b = ^0_b G, the world pose of every body frame (index = body index; size numBodies()).
  std::vector<Pose> body_poses;
  /// The bodies at the reference configuration x_R(t) (same indexing); empty: no reference.
  std::vector<Pose> reference_poses;
  /// One entry per BodyForce actuator (model order), then one per propeller; empty: not known.
  std::vector<AppliedForce> forces;
  /// The forces of the pushes acting now (scripted or the mouse's; actuator −1), world frame.
  std::vector<AppliedForce> pushes;
};

}  // namespace rbs
