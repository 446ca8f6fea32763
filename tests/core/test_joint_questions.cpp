// What the joint library answers for everyone else (core/model/joint.h): which types have a
// scalar position, reading and writing it in either coordinate choice, and a joint spring's
// potential and force on it. No other folder asks a joint's type these questions.
#include <gtest/gtest.h>

#include <cmath>
#include <numbers>

#include "core/model/joint.h"

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

}  // namespace
}  // namespace rbs
