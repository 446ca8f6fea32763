// What the joint library answers for everyone else (core/model/joint.h): which types have a
// scalar position, reading and writing it in either coordinate choice, and a joint spring's
// potential and force on it, which types are free, and which coordinates name a motion in more
// than one way. No other folder asks a joint's type these questions.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <numbers>
#include <string>
#include <vector>

#include "core/model/joint.h"
#include "tests/support/test_models.h"

namespace rbs {
namespace {

Joint jointOf(JointType type) {
  Joint j;
  j.type = type;
  return j;
}

TEST(JointQuestions, ScalarPositionTypesAndAxes) {
  for (JointType t : {JointType::Revolute, JointType::RevoluteUnitCircle, JointType::Prismatic}) {
    EXPECT_TRUE(hasScalarPosition(t)) << jointTypeName(t);
    EXPECT_TRUE(usesAxis(t)) << jointTypeName(t);
  }
  EXPECT_TRUE(isRevoluteType(JointType::RevoluteUnitCircle));
  EXPECT_FALSE(isRevoluteType(JointType::Prismatic));
  EXPECT_TRUE(usesAxis(JointType::Universal));
  EXPECT_FALSE(hasScalarPosition(JointType::Universal));
  for (JointType t : {JointType::Fixed, JointType::Free, JointType::FreeQuaternion, JointType::Spherical})
    EXPECT_FALSE(hasScalarPosition(t)) << jointTypeName(t);
}

TEST(JointQuestions, ScalarPositionRoundTripsInBothCoordinateChoices) {
  for (JointType t : {JointType::Revolute, JointType::RevoluteUnitCircle, JointType::Prismatic}) {
    const Joint j = jointOf(t);
    double x[2] = {0.0, 0.0};
    for (double q : {-3.0, -0.4, 0.0, 1.2, 3.1}) {
      setJointScalarPosition(j, q, x);
      EXPECT_NEAR(jointScalarPosition(j, x), q, 1e-15) << jointTypeName(t) << " " << q;
    }
  }
}

TEST(JointQuestions, SpringForceIsTheDerivativeOfItsPotential) {
  const double k = 7.0, rest = 0.6, h = 1e-5;
  for (JointType t : {JointType::Revolute, JointType::RevoluteUnitCircle, JointType::Prismatic}) {
    const Joint j = jointOf(t);
    double x[2];
    auto V = [&](double q) {
      setJointScalarPosition(j, q, x);
      return jointSpringPotential(j, x, k, rest);
    };
    for (double q : {-2.5, 0.1, 0.6, 1.9}) {
      const double dV = (V(q - 2 * h) - 8 * V(q - h) + 8 * V(q + h) - V(q + 2 * h)) / (12 * h);
      setJointScalarPosition(j, q, x);
      EXPECT_NEAR(jointSpringForce(j, x, k, rest), dV, 1e-8) << jointTypeName(t) << " " << q;
    }
    EXPECT_NEAR(V(rest), 0.0, 1e-15);
  }
  // On the unit circle the spring is periodic and has the angle spring's stiffness at rest.
  const Joint circle = jointOf(JointType::RevoluteUnitCircle), angle = jointOf(JointType::Revolute);
  double c[2], a[1];
  setJointScalarPosition(circle, rest + 2 * std::numbers::pi + 1e-3, c);
  setJointScalarPosition(angle, rest + 1e-3, a);
  EXPECT_NEAR(jointSpringPotential(circle, c, k, rest), jointSpringPotential(angle, a, k, rest), 1e-12);
  // Unit-circle coordinates off the circle (between projections) are read by their direction.
  const double scaled[2] = {2.0 * std::cos(1.0), 2.0 * std::sin(1.0)};
  setJointScalarPosition(circle, 1.0, c);
  EXPECT_NEAR(jointSpringForce(circle, scaled, k, rest), jointSpringForce(circle, c, k, rest), 1e-14);
}

TEST(JointQuestions, FreeTypes) {
  for (int t = 0; t <= static_cast<int>(JointType::Universal); ++t) {
    const auto type = static_cast<JointType>(t);
    EXPECT_EQ(isFreeType(type), type == JointType::Free || type == JointType::FreeQuaternion)
        << jointTypeName(type);
  }
}

TEST(JointQuestions, AligningPicksTheRepresentativeNearestANeighbour) {
  // For every type: coordinates x of a random motion, another name y of the same motion (angles
  // shifted by multiples of 2π, the quaternion negated); aligning y with x (or with coordinates
  // near x) gives x back. Types without ambiguous coordinates are left bit for bit.
  constexpr double kTwoPi = 2.0 * std::numbers::pi;
  test::Rng rng(17);
  for (int t = 0; t <= static_cast<int>(JointType::Universal); ++t) {
    const auto type = static_cast<JointType>(t);
    SCOPED_TRACE(std::string(jointTypeName(type)));
    Joint j = jointOf(type);
    j.nx = configurationSize(type);
    j.nxi = velocitySize(type);
    j.axis = Vec3(0.3, -0.2, 0.9).normalized();
    j.axis2 = Vec3(1, 0, 0);
    double x[12] = {}, y[12] = {}, near[12] = {};
    jointCoordinatesFromMotion(j, test::randomPose(rng), x);
    std::copy(x, x + 12, y);
    std::vector<int> angles;
    int quaternion = -1;
    switch (type) {
      case JointType::Revolute: angles = {0}; break;
      case JointType::Universal: angles = {0, 1}; break;
      case JointType::Planar: angles = {2}; break;
      case JointType::SphericalEulerZYX: angles = {0, 2}; break;
      case JointType::SphericalQuaternion: quaternion = 0; break;
      case JointType::FreeQuaternion: quaternion = 3; break;
      default: break;
    }
    EXPECT_EQ(hasAmbiguousCoordinates(type), !angles.empty() || quaternion >= 0);
    int k = 1;
    for (int i : angles) y[i] += kTwoPi * (k++ % 2 == 0 ? -2 : 1);
    if (quaternion >= 0)
      for (int i = quaternion; i < quaternion + 4; ++i) y[i] = -y[i];
    if (type != JointType::Fixed) {
      EXPECT_LT((jointTransform(j, y).R - jointTransform(j, x).R).norm(), 1e-12);  // the same motion
    }
    for (int i = 0; i < 12; ++i) near[i] = x[i] + 0.1 * test::uniform(rng, -1.0, 1.0);
    double aligned[12];
    std::copy(y, y + 12, aligned);
    alignJointCoordinates(j, aligned, near);
    for (int i = 0; i < j.nx; ++i) EXPECT_NEAR(aligned[i], x[i], 1e-12) << "coordinate " << i;
    if (!hasAmbiguousCoordinates(type)) {
      std::copy(x, x + 12, aligned);
      alignJointCoordinates(j, aligned, near);
      for (int i = 0; i < j.nx; ++i) EXPECT_EQ(aligned[i], x[i]);
    }
  }
}

}  // namespace
}  // namespace rbs
