// The `reference:` blocks of the scene library (scenes/*.yaml) against the generators of
// core/control/reference.h:
//  - every block makes a reference, whose samples over [0, t_end] are finite, on the coordinate
//    manifold and consistent (central differences of x_R match A(x_R) ξ_R);
//  - the flatness-based blocks (PVTOL, two masses, bicopter in its tilt plane, quadcopter looping)
//    make the zero-error matching force λ = (B⊥)ᵀ (M ξ̇_R + b) vanish along the reference, with
//    the scene's own model (so ε, ϖ and the plane of the block fit the model);
//  - the looping is inverted at the top, as in Table 5.2.
#include <gtest/gtest.h>

#include <Eigen/LU>
#include <cmath>
#include <filesystem>
#include <string>
#include <vector>

#include "core/control/plant.h"
#include "core/control/reference.h"
#include "core/dynamics/kinematics.h"
#include "core/scene/scene.h"
#include "sim/scene_loop.h"
#include "tests/support/scene_run.h"

namespace rbs {
namespace {

using test::scenesDir;

// Central differences, step 1e-5: truncation δ²/6 |f⁽³⁾| ≲ 1e-8 on these references (see
// tests/control/test_reference.cpp), rounding ≲ 1e-10.
constexpr double kFdStep = 1e-5;
constexpr double kFdTol = 1e-6;
// Coordinates built from rotations are on their manifold up to rounding.
constexpr double kDriftTol = 1e-12;
// λ relative to m g: sums of O(m g) terms in double precision (tests/control/test_flatness.cpp).
constexpr double kMatchTol = 1e-9;

Scene load(const std::string& name) {
  return loadScene(scenesDir() / name);
}

/// |(B⊥)ᵀ (M ξ̇_R + b)| at the sample.
double matchingForce(const Model& model, const ReferenceSample& s) {
  Workspace ws(model);
  return unactuatedForce(model, State{s.x, s.xi}, s.xidot, ws);
}

double totalMass(const Model& m) {
  double mass = 0.0;
  for (const Body& b : m.bodies) mass += b.mass;
  return mass;
}

TEST(SceneReferences, EveryReferenceBlockMakesAConsistentReference) {
  int with_reference = 0;
  for (const auto& entry : std::filesystem::directory_iterator(scenesDir())) {
    if (entry.path().extension() != ".yaml") continue;
    SCOPED_TRACE(entry.path().filename().string());
    Scene scene;
    try {
      scene = loadScene(entry.path());
    } catch (const SceneError& e) {
      ADD_FAILURE() << e.what();
      continue;
    }
    if (scene.reference.generator.empty()) continue;
    ++with_reference;
    std::unique_ptr<Reference> ref;
    try {
      ref = makeReference(designModel(scene), scene.reference);
    } catch (const ControlError& e) {
      ADD_FAILURE() << e.what();
      continue;
    }
    const Model& model = designModel(scene);
    Workspace ws(model);
    ReferenceSample s, sp, sm;
    double drift = 0.0, fd = 0.0;
    bool finite = true;
    const int n = 150;
    for (int i = 0; i < n; ++i) {
      const double t = scene.integrator.t_end * (i + 0.371) / n;
      ref->sample(t, s);
      ref->sample(t + kFdStep, sp);
      ref->sample(t - kFdStep, sm);
      ASSERT_EQ(s.x.size(), model.nx);
      ASSERT_EQ(s.xi.size(), model.nxi);
      ASSERT_EQ(s.xidot.size(), model.nxi);
      finite = finite && s.x.allFinite() && s.xi.allFinite() && s.xidot.allFinite();
      drift = std::max(drift, model.coordinateDrift(s.x));
      computeKinematics(model, s.x, s.xi, ws);
      computeConfigurationRate(model, s.x, s.xi, ws, 0.0);
      const VecX dx = (sp.x - sm.x) / (2 * kFdStep) - ws.xdot;
      const VecX dxi = (sp.xi - sm.xi) / (2 * kFdStep) - s.xidot;
      fd = std::max(fd, dx.cwiseAbs().maxCoeff() / (1 + ws.xdot.cwiseAbs().maxCoeff()));
      fd = std::max(fd, dxi.cwiseAbs().maxCoeff() / (1 + s.xidot.cwiseAbs().maxCoeff()));
    }
    EXPECT_TRUE(finite);
    EXPECT_LT(drift, kDriftTol);
    EXPECT_LT(fd, kFdTol);
  }
  EXPECT_GE(with_reference, 15);
}

TEST(SceneReferences, FlatnessBlocksMatchTheirModels) {
  for (const char* name : {"pvtol.yaml", "two_masses_spring.yaml", "bicopter.yaml"}) {
    SCOPED_TRACE(name);
    const Scene scene = load(name);
    const auto ref = makeReference(scene.model, scene.reference);
    const double scale = totalMass(scene.model) * 9.81;
    ReferenceSample s;
    double worst = 0.0;
    for (int i = 0; i <= 400; ++i) {
      ref->sample(scene.integrator.t_end * i / 400.0, s);
      worst = std::max(worst, matchingForce(scene.model, s) / scale);
    }
    EXPECT_LT(worst, kMatchTol);
  }
}

TEST(SceneReferences, LoopingIsInvertedAtTheTopAndEndsAtRest) {
  const Scene scene = load("quadcopter_table51.yaml");
  const Model& model = designModel(scene);  // the reference is for the force model
  const auto ref = makeReference(model, scene.reference);
  const int base = model.bodyIndex("central");
  ASSERT_GE(base, 0);
  Workspace ws(model);
  ReferenceSample s;
  double lowest = 1.0, top_speed = 0.0;
  for (int i = 0; i <= 1000; ++i) {
    ref->sample(scene.integrator.t_end * i / 1000.0, s);
    computeKinematics(model, s.x, s.xi, ws);
    lowest = std::min(lowest, ws.pose[base].R(2, 2));
    top_speed = std::max(top_speed, ws.twist[base].head<3>().norm());
  }
  EXPECT_LT(lowest, -0.99);  // R_zR ≈ −e_z at the top
  // Table 5.2: max ‖v_R‖ ≈ 4.2 m/s for the centre of mass; the body origin 2 mm away moves
  // ω × 2 mm ≈ 0.02 m/s faster or slower.
  EXPECT_NEAR(top_speed, 2 * M_PI / 1.5, 0.03);
  ref->sample(scene.integrator.t_end, s);
  computeKinematics(model, s.x, s.xi, ws);
  EXPECT_LT(ws.twist[base].norm(), 1e-12);
}

}  // namespace
}  // namespace rbs
