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

/// The spheres of the visuals as drawn, in their body frames, indexed like Model::visuals: what
/// the scene graph measured of the meshes it read (render/shapes.h); an empty Bounds where nothing
/// was measured (shapes, unread meshes), which then count by visualRadius about their origin.
/// Without it a mesh counts as a sphere of its scale factor: 1 m for most robot files, whose links
/// are a tenth of that, so that framing and the ground were set for a scene ten times too big.
using VisualExtents = std::vector<Bounds>;

/// The sphere of visual `i` in its body frame.
Bounds visualBoundsLocal(const Model& model, int i, const VisualExtents* extents = nullptr);

/// The sphere around every visual of `body` in the body frame (a body without visuals: its
/// origin and centre of mass, radius 0).
Bounds bodyBoundsLocal(const Model& model, int body, const VisualExtents* extents = nullptr);

/// Each visual's sphere at the world poses `body_poses` (size numBodies()); a body without visuals
/// as a point at its frame origin.
std::vector<Bounds> visualSpheres(const Model& model, const std::vector<Pose>& body_poses,
                                  const VisualExtents* extents = nullptr);

/// The sphere around every visual at the world poses `body_poses` (size numBodies()). Bodies
/// without visuals count with their frame origin.
Bounds sceneBounds(const Model& model, const std::vector<Pose>& body_poses, const VisualExtents* extents = nullptr);

}  // namespace rbs::render
