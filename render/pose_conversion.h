// The one conversion from the core's Eigen types to OpenSceneGraph's. OSG multiplies row vectors
// from the left (p' = p · M), so the matrix of a pose G = [R r; 0 1] is its transpose:
// M = [Rᵀ 0; rᵀ 1] in OSG's row-major storage. Positions in metres, world frame z up.
#pragma once

#include <osg/Matrixd>
#include <osg/Quat>
#include <osg/Vec3d>
#include <osg/Vec4>

#include "core/math/se3.h"

namespace rbs::render {

/// The OSG matrix of G: a point p (frame of G) lands at (p · M) = R p + r.
osg::Matrixd toOsg(const Pose& G);
osg::Vec3d toOsg(const Vec3& v);
osg::Vec4 toOsgColor(const Vec4& rgba);
/// Back again (for tests and picking): the pose of an OSG matrix without scale or shear.
Pose fromOsg(const osg::Matrixd& M);
Vec3 fromOsg(const osg::Vec3d& v);

/// The rotation taking +z to the unit vector `direction` (identity for +z, a half turn about x for
/// −z); used to orient arrows and cylinders.
Mat3 rotationFromZ(const Vec3& direction);

}  // namespace rbs::render
