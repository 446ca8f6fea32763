// Recovery from large errors (issue 46, docs/CONTROL.md "Recovery"): the bounded template's
// energy and wrench against finite differences and the quadratic template, and the allocator's
// strict priorities on a saturated vehicle.
#include <gtest/gtest.h>

#include <cmath>
#include <numbers>
#include <vector>

#include "core/control/allocation.h"
#include "core/control/prototype_template.h"
#include "tests/support/test_models.h"

namespace rbs {
namespace {

/// A random stiffness in moment form: total k, centre h, a symmetric positive moment tensor Π.
Mat4 randomStiffness(test::Rng& rng, double k) {
  const Mat3 R = test::randomRotation(rng);
  const Vec3 principal(test::uniform(rng, 0.1, 2.0), test::uniform(rng, 0.1, 2.0), test::uniform(rng, 0.1, 2.0));
  const Mat3 Pi = R * principal.asDiagonal() * R.transpose();
  const Vec3 h(test::uniform(rng, -0.3, 0.3), test::uniform(rng, -0.3, 0.3), test::uniform(rng, -0.3, 0.3));
  return momentMatrix(k, h, Pi);
}

Vec6 quadraticForce(const Mat4& K, const Pose& G_E) {
  return vee2(Mat4((Mat4::Identity() - G_E.inverse().matrix()) * K));
}

double boundedEnergy(const Mat4& K, double limit, const Pose& G_E, bool tilt_only = false) {
  Vec6 f;
  double V = 0.0;
  boundedStiffness(K, limit, tilt_only, G_E, f, V);
  return V;
}

// The wrench is the gradient of the energy: central differences along G_E exp(wed δ) in each of the
// six directions, at random poses up to turns of nearly π and displacements of several σ; for the
// whole rotation and for the tilt-only energy 4 Π̄ (1 − cos(α/2)) of the stabilizing template.
TEST(BoundedTemplate, TheWrenchIsTheGradientOfTheEnergy) {
  test::Rng rng(461);
  for (const bool tilt_only : {false, true}) {  // the whole rotation, or the thrust direction alone
    for (int trial = 0; trial < 200; ++trial) {
      const double k = trial % 5 == 0 ? 0.0 : test::uniform(rng, 1.0, 20.0);  // some pure rotation springs
      const Mat4 K = randomStiffness(rng, k);
      const double limit = test::uniform(rng, 0.5, 10.0);
      Pose G = test::randomPose(rng, 2.0);
      Vec6 f;
      double V = 0.0;
      boundedStiffness(K, limit, tilt_only, G, f, V);
      const double eps = 1e-6;
      for (int i = 0; i < 6; ++i) {
        const Vec6 delta = eps * Vec6::Unit(i);
        const double dV = (boundedEnergy(K, limit, G * expSE3(delta), tilt_only) -
                           boundedEnergy(K, limit, G * expSE3(-delta), tilt_only)) /
                          (2 * eps);
        EXPECT_NEAR(f(i), dV, 1e-6 * (1.0 + std::abs(dV)))
            << "trial " << trial << " direction " << i << (tilt_only ? " (tilt only)" : "");
      }
    }
  }
}

// Near G_E = I the bounded template is the thesis' template to second order: the wrench differs
// from vee2((I − G_E⁻¹) K̄') by O(|δ|²) (so the Hessians, the linearization (4.48) and its poles
// agree), and the energies by O(|δ|³). Checked at δ = 1e-2 … 1e-4 along random directions.
TEST(BoundedTemplate, NearZeroItIsTheQuadraticTemplate) {
  test::Rng rng(462);
  for (int trial = 0; trial < 50; ++trial) {
    const Mat4 K = randomStiffness(rng, test::uniform(rng, 1.0, 20.0));
    const double limit = test::uniform(rng, 0.5, 10.0);
    Vec6 direction = Vec6::NullaryExpr([&] { return test::uniform(rng, -1, 1); });
    direction.normalize();
    double previous_ratio = 0.0;
    for (double size : {1e-2, 1e-3, 1e-4}) {
      const Pose G = expSE3(size * direction);
      Vec6 f;
      double V = 0.0;
      boundedStiffness(K, limit, false, G, f, V);
      const Vec6 f_quadratic = quadraticForce(K, G);
      const double V_quadratic = 0.5 * ((G.matrix() - Mat4::Identity()) * K).cwiseProduct(G.matrix() - Mat4::Identity()).sum();
      const double ratio = (f - f_quadratic).norm() / (size * size);
      EXPECT_LT(ratio, 100.0 * (1.0 + K.norm() / limit)) << "trial " << trial << " size " << size;
      EXPECT_LT(std::abs(V - V_quadratic), 100.0 * K.norm() * size * size * size) << "trial " << trial;
      if (size < 1e-2) {
        EXPECT_LT(ratio, 2.0 * previous_ratio + 1e-6) << "trial " << trial;  // O(δ²), not O(δ)
      }
      previous_ratio = ratio;
    }
  }
}

// The spring at the centre pulls with at most force_limit, however far the centre is, and its
// force is k d scaled down, never turned: along R_Eᵀ d.
TEST(BoundedTemplate, TheCentreForceIsBoundedAndPointsBack) {
  test::Rng rng(463);
  for (int trial = 0; trial < 100; ++trial) {
    const double k = test::uniform(rng, 1.0, 20.0), limit = test::uniform(rng, 0.5, 10.0);
    const Mat4 K = randomStiffness(rng, k);
    const Pose G = test::randomPose(rng, std::pow(10.0, test::uniform(rng, -2, 3)));
    Vec6 f;
    double V = 0.0;
    boundedStiffness(K, limit, false, G, f, V);
    EXPECT_LE(f.head<3>().norm(), limit * (1 + 1e-12)) << "trial " << trial;
    const Vec3 h = K.topRightCorner<3, 1>() / k;
    const Vec3 d = G.R * h + G.r - h;
    EXPECT_NEAR(f.head<3>().dot(G.R.transpose() * d), f.head<3>().norm() * d.norm(), 1e-9 * (1 + d.norm() * limit));
    EXPECT_GE(V, 0.0);
  }
}

// A vehicle upside down is turned back: for Π = π I the half-angle energy gives the torque
// 2π sin(θ/2) about the axis of the error, largest (2π) at θ = π, where the trace energy's
// π sin θ has none. The quadratic energy at θ agrees to second order: ½ π θ².
TEST(BoundedTemplate, TheTurningTorqueGrowsUpToHalfATurn) {
  const double pi_bar = 1.2;
  const Mat4 K = momentMatrix(0.0, Vec3::Zero(), pi_bar * Mat3::Identity());
  const Vec3 axis = Vec3(1, 2, -0.5).normalized();
  double previous = 0.0;
  for (double theta : {0.3, 1.0, 2.0, 2.8, std::numbers::pi - 1e-6}) {
    Vec6 f;
    double V = 0.0;
    boundedStiffness(K, 1.0, false, Pose{axisAngleRotation(axis, theta), Vec3::Zero()}, f, V);
    EXPECT_NEAR(f.tail<3>().dot(axis), 2 * pi_bar * std::sin(theta / 2), 1e-12) << theta;
    EXPECT_NEAR(f.tail<3>().cross(axis).norm(), 0.0, 1e-12);
    EXPECT_NEAR(V, 4 * pi_bar * (1 - std::cos(theta / 2)), 1e-12);
    EXPECT_GT(f.tail<3>().dot(axis), previous);  // monotone in θ
    previous = f.tail<3>().dot(axis);
    const double trace_torque = quadraticForce(K, Pose{axisAngleRotation(axis, theta), Vec3::Zero()}).tail<3>().dot(axis);
    EXPECT_NEAR(trace_torque, pi_bar * std::sin(theta), 1e-12);
  }
}

}  // namespace
}  // namespace rbs
