// Mass properties of homogeneous solids (scene files: `solid:`), docs/SCENE_FORMAT.md.
#pragma once

#include "core/math/se3.h"

namespace rbs {

enum class SolidShape { Box, Cylinder, Sphere, Capsule };

/// A homogeneous solid centred at the origin of its frame `origin` (in the body frame).
/// size: box (l_x, l_y, l_z); cylinder and capsule (radius, length, 0) with the axis along z of
/// `origin` (capsule: length between the centres of the hemispherical caps); sphere (radius, 0, 0).
/// All lengths in metres.
struct Solid {
  SolidShape shape = SolidShape::Box;
  Vec3 size = Vec3::Ones();
  Pose origin;
};

struct MassProperties {
  double mass = 0.0;               ///< [kg]
  Vec3 com = Vec3::Zero();         ///< centre of mass in the body frame [m]
  Mat3 inertia = Mat3::Zero();     ///< about the CoM, body axes [kg m²]
};

/// Volume [m³].
double solidVolume(const Solid& solid);
/// Inertia about the centre in the solid's own axes for mass m [kg m²] (diagonal).
Mat3 solidCentralInertia(const Solid& solid, double mass);
/// Mass properties of the solid with the given mass, in the body frame (CoM = origin.r,
/// inertia R I Rᵀ).
MassProperties solidMassProperties(const Solid& solid, double mass);

}  // namespace rbs
