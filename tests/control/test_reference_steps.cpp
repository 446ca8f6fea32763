// The steps of a generated reference on their own (core/control/reference_steps.h): the scalar
// joints' paths with the two-mass spring flat output, the shortest rotation and the suspended
// load. tests/control/test_reference.cpp checks them inside whole references.
#include <gtest/gtest.h>

#include <cmath>

#include "core/control/reference_steps.h"
#include "core/model/model_builder.h"

namespace rbs {
namespace {

Joint scalarJoint(JointType type, int x_offset, int xi_offset) {
  Joint j;
  j.type = type;
  j.nx = type == JointType::RevoluteUnitCircle ? 2 : 1;
  j.nxi = 1;
  j.x_offset = x_offset;
  j.xi_offset = xi_offset;
  return j;
}

ReferenceSample zeroSample(int nx, int nxi) {
  return {VecX::Zero(nx), VecX::Zero(nxi), VecX::Zero(nxi)};
}

TEST(ScalarJointPaths, WriteTheirJointsInEitherCoordinates) {
  ScalarJointPaths paths;
  paths.joints = {scalarJoint(JointType::Revolute, 0, 0), scalarJoint(JointType::RevoluteUnitCircle, 1, 1)};
  EXPECT_EQ(paths.driven(), 0);
  ReferenceSample out = zeroSample(3, 2);
  paths.apply(0.3, out);  // no path: nothing written
  EXPECT_EQ(out.x, VecX::Zero(3));
  paths.path = std::make_unique<traj::SinusoidPath>(std::vector<double>{0.1, 0.2}, std::vector<double>{0.5, 0.7},
                                                   std::vector<double>{2.0, 3.0}, std::vector<double>{0.0, 0.4});
  EXPECT_EQ(paths.driven(), 2);
  paths.apply(0.3, out);
  for (int k = 0; k < 2; ++k) {
    const traj::Jet q = paths.path->component(0.3, k);
    EXPECT_NEAR(jointScalarPosition(paths.joints[k], out.x.data() + paths.joints[k].x_offset), q[0], 1e-15);
    EXPECT_EQ(out.xi(k), q[1]);
    EXPECT_EQ(out.xidot(k), q[2]);
  }
}

TEST(ScalarJointPaths, SpringFlatOutputMakesTheSecondMassFollowItsSpring) {
  // M2 z̈2 = k (z1 − z2) along the reference, with ϖ = k/M2.
  ScalarJointPaths paths;
  paths.joints = {scalarJoint(JointType::Prismatic, 0, 0), scalarJoint(JointType::Prismatic, 1, 1)};
  paths.path = std::make_unique<traj::PolynomialPath>(std::vector<double>{0.0}, std::vector<double>{1.0}, 0.5, 2.0, 9);
  paths.spring_flat = true;
  paths.varpi = 4.0;
  EXPECT_EQ(paths.driven(), 2);
  for (double t : {0.0, 0.9, 1.5, 2.4}) {
    ReferenceSample out = zeroSample(2, 2);
    paths.apply(t, out);
    EXPECT_NEAR(out.xidot(1), paths.varpi * (out.x(0) - out.x(1)), 1e-12) << t;
    EXPECT_EQ(out.x(1), paths.path->component(t, 0)[0]);
  }
}

TEST(SuspendedLoadStep, ShortestRotationTurnsAOntoDWithMatchingRates) {
  const Vec3 a = Vec3(0.2, -0.3, -1.0).normalized();
  auto d = [](double t) {  // a unit vector sweeping around, with its derivatives
    flat::Vec3Jet raw{Vec3(std::sin(t), 0.3 * t, -1.0), Vec3(std::cos(t), 0.3, 0.0), Vec3(-std::sin(t), 0.0, 0.0)};
    return flat::normalized(raw);
  };
  const double t = 0.7, h = 1e-5;
  const flat::AttitudeJet q = shortestRotation(a, d(t));
  EXPECT_LT((q.R * a - d(t).v).norm(), 1e-14);
  EXPECT_LT((q.R.transpose() * q.R - Mat3::Identity()).norm(), 1e-14);
  // ω = vee(RᵀṘ) by central differences of R(t).
  const Mat3 R_dot = (shortestRotation(a, d(t + h)).R - shortestRotation(a, d(t - h)).R) / (2 * h);
  EXPECT_LT((vee(Mat3(q.R.transpose() * R_dot)) - q.omega).norm(), 1e-8);
  const Vec3 w_dot = (shortestRotation(a, d(t + h)).omega - shortestRotation(a, d(t - h)).omega) / (2 * h);
  EXPECT_LT((w_dot - q.omega_dot).norm(), 1e-7);
}

TEST(SuspendedLoadStep, AtRestTheLoadHangsBelowTheHook) {
  Joint joint;
  joint.type = JointType::Spherical;
  joint.parent_placement = Pose::translation(Vec3(0.0, 0.0, -0.1));
  const Vec3 gravity(0.0, 0.0, -9.81);
  const SuspendedLoadStep load(joint, 0.5, gravity, Mat3::Identity());
  const traj::Jet y[3] = {{1.0, 0, 0, 0, 0}, {2.0, 0, 0, 0, 0}, {3.0, 0, 0, 0, 0}};
  const flat::Vec3Jet n = load.ropeDirection(y);
  EXPECT_LT((n.v - Vec3::UnitZ()).norm(), 1e-15);  // load → joint centre: up
  EXPECT_EQ(n.d1, Vec3::Zero());
  Vec3 r(1.0, 2.0, 3.0), r_dot = Vec3::Zero(), r_ddot = Vec3::Zero();
  load.baseFromLoad(y, flat::AttitudeJet{}, r, r_dot, r_ddot);
  EXPECT_LT((r - Vec3(1.0, 2.0, 3.0 + 0.5 + 0.1)).norm(), 1e-15);  // y + L n − h
  EXPECT_EQ(r_dot, Vec3::Zero());
  // A horizontal acceleration: the load trails behind, so n (load → joint centre) leans towards ÿ.
  const traj::Jet pushed[3] = {{1.0, 0, 2.0, 0, 0}, {2.0, 0, 0, 0, 0}, {3.0, 0, 0, 0, 0}};
  EXPECT_NEAR(load.ropeDirection(pushed).v.x(), 2.0 / std::hypot(2.0, 9.81), 1e-15);
}

}  // namespace
}  // namespace rbs
