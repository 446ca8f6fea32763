// Bounding spheres of what the 3D view draws, from the model's visuals at given body poses
// (no OSG: used by camera framing, the ground and the overlay sizes, and testable without GL).
#pragma once

#include <vector>

#include "core/model/model.h"

namespace rbs::render {

struct Bounds {
  Vec3 center = Vec3::Zero();  ///< world frame [m]
  double radius = 0.0;         ///< [m]; 0 for an empty set
  bool empty = true;
  /// The smallest sphere (of this simple kind) containing both.
  void expand(const Bounds& other);
  void expand(const Vec3& point, double point_radius = 0.0);
};

/// Radius of a sphere about the visual's origin that contains the shape [m] (meshes: unknown
/// extent, taken as the largest scale factor).
double visualRadius(const Visual& visual);

/// The sphere around every visual of `body` in the body frame (a body without visuals: its
/// origin and centre of mass, radius 0).
Bounds bodyBoundsLocal(const Model& model, int body);

/// The sphere around every visual at the world poses `body_poses` (size numBodies()). Bodies
/// without visuals count with their frame origin.
Bounds sceneBounds(const Model& model, const std::vector<Pose>& body_poses);

}  // namespace rbs::render
