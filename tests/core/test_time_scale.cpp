// The fastest joint rate (core/dynamics/time_scale.h) against the closed form of a damped, sprung
// double pendulum, and the default stepper it sets (docs/SCENE_FORMAT.md, "integrator").
#include <gtest/gtest.h>

#include <cmath>

#include "core/dynamics/time_scale.h"
#include "tests/support/test_models.h"

namespace rbs {
namespace {

// Uniform rods hanging straight down (angles 0): M = [[(m1/3 + m2) l1² + m2 l2²/3 + m2 l1 l2,
// m2 l2²/3 + m2 l1 l2/2], [·, m2 l2²/3]]. A damper d and a spring k on the upper joint only are
// rank one: the only nonzero eigenvalues of D v = λ M v and K v = ω² M v are d (M⁻¹)₀₀ and
// k (M⁻¹)₀₀.
TEST(TimeScale, DampedSprungDoublePendulumMatchesTheClosedForm) {
  const double m1 = 1.0, m2 = 0.5, l1 = 0.6, l2 = 0.4, d = 2.0, k = 30.0;
  Model model = test::doublePendulum(m1, m2, l1, l2);
  model.joint_spring_dampers.push_back(JointSpringDamper{0, k, 0.0, d, 0.0, 0.01});
  const double M00 = (m1 / 3 + m2) * l1 * l1 + m2 * l2 * l2 / 3 + m2 * l1 * l2;
  const double M01 = m2 * l2 * l2 / 3 + m2 * l1 * l2 / 2;
  const double M11 = m2 * l2 * l2 / 3;
  const double inverse00 = M11 / (M00 * M11 - M01 * M01);
  const FastestRate fastest = fastestJointRate(model, model.initial_state.x);
  EXPECT_NEAR(fastest.rate, d * inverse00 + std::sqrt(k * inverse00), 1e-10 * fastest.rate);
  EXPECT_GE(fastest.joint, 0);
  // Regularized Coulomb friction μ tanh(q̇ / v_s) has the slope μ / v_s at rest: damping.
  model.joint_spring_dampers.back() = JointSpringDamper{0, 0.0, 0.0, 0.0, 0.3, 0.01};
  EXPECT_NEAR(fastestJointRate(model, model.initial_state.x).rate, 0.3 / 0.01 * inverse00, 1e-9);
}

TEST(TimeScale, NoJointTermsNoRate) {
  const Model model = test::doublePendulum(1.0, 1.0, 1.0, 1.0);
  const FastestRate fastest = fastestJointRate(model, model.initial_state.x);
  EXPECT_EQ(fastest.rate, 0.0);
  EXPECT_EQ(fastest.joint, -1);
}

}  // namespace
}  // namespace rbs
