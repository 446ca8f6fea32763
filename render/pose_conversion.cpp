#include "render/pose_conversion.h"

#include <cmath>

namespace rbs::render {

osg::Matrixd toOsg(const Pose& G) {
  // row i of M is column i of G: M(i, j) = G(j, i)
  return osg::Matrixd(G.R(0, 0), G.R(1, 0), G.R(2, 0), 0.0,  //
                      G.R(0, 1), G.R(1, 1), G.R(2, 1), 0.0,  //
                      G.R(0, 2), G.R(1, 2), G.R(2, 2), 0.0,  //
                      G.r.x(), G.r.y(), G.r.z(), 1.0);
}

osg::Vec3d toOsg(const Vec3& v) { return osg::Vec3d(v.x(), v.y(), v.z()); }

osg::Vec4 toOsgColor(const Vec4& c) {
  return osg::Vec4(static_cast<float>(c[0]), static_cast<float>(c[1]), static_cast<float>(c[2]),
                   static_cast<float>(c[3]));
}

Pose fromOsg(const osg::Matrixd& M) {
  Pose G;
  for (int i = 0; i < 3; ++i) {
    for (int j = 0; j < 3; ++j) G.R(i, j) = M(j, i);
    G.r[i] = M(3, i);
  }
  return G;
}

Vec3 fromOsg(const osg::Vec3d& v) { return Vec3(v.x(), v.y(), v.z()); }

Mat3 rotationFromZ(const Vec3& direction) {
  const Vec3 z = Vec3::UnitZ();
  const Vec3 d = direction.normalized();
  const Vec3 axis = z.cross(d);
  const double s = axis.norm();
  const double c = z.dot(d);
  if (s < 1e-12) return c > 0.0 ? Mat3::Identity() : Mat3(Eigen::AngleAxisd(M_PI, Vec3::UnitX()));
  return Mat3(Eigen::AngleAxisd(std::atan2(s, c), axis / s));
}

}  // namespace rbs::render
