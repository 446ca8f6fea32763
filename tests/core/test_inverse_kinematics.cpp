// Joint inverse kinematics (core/dynamics/inverse_kinematics.h) against the forward kinematics:
// a twist the joint produces (V = S_e ξ_e, V̇ = S_e ξ̇_e + σ_e) gives back ξ_e and ξ̇_e, for every
// joint type with random placements; and the motion of a rotation-only joint that carries a child
// attitude reproduces that attitude, with the child twist checked by finite differences.
#include <gtest/gtest.h>

#include <random>

#include "core/dynamics/inverse_kinematics.h"
#include "tests/support/test_models.h"

namespace rbs {
namespace {

Vec3 randomVec3(test::Rng& rng) {
  std::uniform_real_distribution<double> u(-1.0, 1.0);
  return {u(rng), u(rng), u(rng)};
}

TEST(InverseKinematics, TwistsTheJointProducesGiveBackItsVelocitiesAndRates) {
  const JointType types[] = {JointType::Revolute,           JointType::RevoluteUnitCircle, JointType::Prismatic,
                             JointType::Universal,          JointType::Spherical,          JointType::SphericalQuaternion,
                             JointType::SphericalEulerZYX, JointType::Planar,             JointType::Free,
                             JointType::FreeQuaternion};
  test::Rng rng(11);
  std::uniform_real_distribution<double> u(-1.0, 1.0);
  int checked = 0;
  for (JointType type : types) {
    const Model model = test::randomTreeWith(type, true, 5);
    const State s = test::randomState(model, rng);
    for (const Joint& j : model.joints) {
      if (j.type != type) continue;
      const double* x = s.x.data() + j.x_offset;
      double xi[6], xidot[6], xi_back[6], xidot_back[6];
      for (int c = 0; c < j.nxi; ++c) {
        xi[c] = u(rng);
        xidot[c] = u(rng);
      }
      JointMotion jm;
      evaluateJoint(j, x, xi, Vec6::Zero(), Vec6::Zero(), jm);
      const Vec6 V = jm.S * Eigen::Map<const VecX>(xi, j.nxi);
      const Vec6 V_dot = jm.S * Eigen::Map<const VecX>(xidot, j.nxi) + jm.bias;
      jointVelocitiesFromTwist(j, x, V, V_dot, xi_back, xidot_back);
      for (int c = 0; c < j.nxi; ++c) {
        EXPECT_NEAR(xi_back[c], xi[c], 1e-12) << jointTypeName(type) << " velocity " << c;
        EXPECT_NEAR(xidot_back[c], xidot[c], 1e-11) << jointTypeName(type) << " rate " << c;
      }
      ++checked;
    }
  }
  EXPECT_GE(checked, 10);
}

TEST(InverseKinematics, RotationJointMotionCarriesTheChildAttitudeAndTwist) {
  test::Rng rng(3);
  const Model model = test::randomTreeWith(JointType::Spherical, false, 9);
  const Joint* spherical = nullptr;
  for (const Joint& j : model.joints)
    if (j.type == JointType::Spherical) spherical = &j;
  ASSERT_NE(spherical, nullptr);
  ASSERT_TRUE(spherical->has_child_placement);  // the child's origin is off the joint centre
  const Mat3 C_R = expSO3(randomVec3(rng)), R_child = expSO3(randomVec3(rng));
  const Vec3 omega = randomVec3(rng);
  Pose M;
  Vec6 V, V_dot;
  rotationJointMotion(*spherical, C_R, R_child, omega, Vec3::Zero(), M, V, V_dot);
  EXPECT_LT((C_R * M.R * spherical->child_placement.R - R_child).norm(), 1e-14);
  EXPECT_EQ(M.r, Vec3::Zero());
  EXPECT_LT((V.tail<3>() - omega).norm(), 1e-14);  // a body angular velocity is frame-independent
  EXPECT_EQ(V_dot, Vec6::Zero());

  // V is the body twist of the child frame relative to the joint's fixed frame, B(t) = M(t) T_c,
  // while the child turns with ω: R_child(t) = R_child exp(t ω).
  auto B = [&](double t) {
    Pose Mt;
    Vec6 unused, unused_dot;
    rotationJointMotion(*spherical, C_R, R_child * expSO3(t * omega), omega, Vec3::Zero(), Mt, unused, unused_dot);
    return Mat4((Mt * spherical->child_placement).matrix());
  };
  const double h = 1e-5;
  const Mat4 B_dot = (B(-2 * h) - 8 * B(-h) + 8 * B(h) - B(2 * h)) / (12 * h);
  const Mat4 twist = B(0).inverse() * B_dot;
  const Vec3 v = twist.block<3, 1>(0, 3);
  EXPECT_LT((v - V.head<3>()).norm(), 1e-9);
  EXPECT_LT((vee(Mat3(twist.block<3, 3>(0, 0))) - V.tail<3>()).norm(), 1e-9);
}

}  // namespace
}  // namespace rbs
