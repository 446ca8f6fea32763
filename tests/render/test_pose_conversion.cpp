// Tests for render/pose_conversion.h: the one Eigen -> OSG conversion.
#include <gtest/gtest.h>

#include <osg/MatrixTransform>

#include "render/pose_conversion.h"

namespace rbs::render {
namespace {

/// float-free double arithmetic on both sides: only rounding differences
constexpr double kTol = 1e-12;

TEST(PoseConversion, RotatedTranslatedPointLandsWhereExpected) {
  // a quarter turn about z, then 1 m along x: body point (1, 0, 0) goes to (1, 1, 0)
  const Pose G{Mat3(Eigen::AngleAxisd(M_PI / 2, Vec3::UnitZ())), Vec3(1.0, 0.0, 0.0)};
  const osg::Vec3d p = osg::Vec3d(1.0, 0.0, 0.0) * toOsg(G);
  EXPECT_NEAR(p.x(), 1.0, kTol);
  EXPECT_NEAR(p.y(), 1.0, kTol);
  EXPECT_NEAR(p.z(), 0.0, kTol);
}

TEST(PoseConversion, GeneralPoseAgreesWithEigenOnManyPoints) {
  const Pose G{Mat3(Eigen::AngleAxisd(0.7, Vec3(1, 2, 3).normalized())), Vec3(0.3, -2.0, 5.0)};
  const osg::Matrixd M = toOsg(G);
  for (const Vec3& q : {Vec3(0, 0, 0), Vec3(1, 0, 0), Vec3(0.2, -0.4, 3.0), Vec3(-5, 2, 1)}) {
    const Vec3 expected = G * q;
    const Vec3 got = fromOsg(toOsg(q) * M);
    EXPECT_LT((got - expected).norm(), kTol) << "point " << q.transpose();
  }
}

TEST(PoseConversion, NestedTransformsComposeLikePoses) {
  // an OSG child under a parent transform sees parent ∘ child, as G_parent * G_child
  const Pose A{Mat3(Eigen::AngleAxisd(0.4, Vec3::UnitX())), Vec3(1, 2, 3)};
  const Pose B{Mat3(Eigen::AngleAxisd(-1.1, Vec3::UnitY())), Vec3(-0.5, 0.1, 0.2)};
  osg::ref_ptr<osg::MatrixTransform> parent = new osg::MatrixTransform(toOsg(A));
  osg::ref_ptr<osg::MatrixTransform> child = new osg::MatrixTransform(toOsg(B));
  parent->addChild(child);
  const osg::Matrixd world = osg::computeLocalToWorld(child->getParentalNodePaths()[0]);
  const Pose AB = A * B;
  const Pose back = fromOsg(world);
  EXPECT_LT((back.R - AB.R).norm(), kTol);
  EXPECT_LT((back.r - AB.r).norm(), kTol);
}

TEST(PoseConversion, RoundTrip) {
  const Pose G{Mat3(Eigen::AngleAxisd(2.5, Vec3(0, 1, 1).normalized())), Vec3(4, 5, 6)};
  const Pose back = fromOsg(toOsg(G));
  EXPECT_LT((back.R - G.R).norm(), kTol);
  EXPECT_LT((back.r - G.r).norm(), kTol);
}

TEST(PoseConversion, RotationFromZ) {
  for (const Vec3& d : {Vec3(0, 0, 1), Vec3(0, 0, -2), Vec3(1, 0, 0), Vec3(0.3, -0.2, 0.9)}) {
    const Mat3 R = rotationFromZ(d);
    EXPECT_LT((R * Vec3::UnitZ() - d.normalized()).norm(), kTol) << d.transpose();
    EXPECT_LT((R.transpose() * R - Mat3::Identity()).norm(), kTol);
    EXPECT_NEAR(R.determinant(), 1.0, kTol);
  }
}

}  // namespace
}  // namespace rbs::render
