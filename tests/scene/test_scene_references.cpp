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

struct Consistency {
  bool finite = true;
  double drift = 0.0;  ///< largest coordinate drift of x_R
  double fd = 0.0;     ///< largest relative mismatch of central differences of x_R, ξ_R
};

/// Samples `ref` at `n` instants spread over [t0, t1] and compares central differences of x_R and
/// ξ_R with A(x_R) ξ_R and ξ̇_R.
Consistency checkConsistency(const Model& model, const Reference& ref, double t0, double t1, int n) {
  Workspace ws(model);
  ReferenceSample s, sp, sm;
  Consistency c;
  for (int i = 0; i < n; ++i) {
    const double t = t0 + (t1 - t0) * (i + 0.371) / n;
    ref.sample(t, s);
    ref.sample(t + kFdStep, sp);
    ref.sample(t - kFdStep, sm);
    EXPECT_EQ(s.x.size(), model.nx);
    EXPECT_EQ(s.xi.size(), model.nxi);
    EXPECT_EQ(s.xidot.size(), model.nxi);
    if (s.x.size() != model.nx || s.xi.size() != model.nxi || s.xidot.size() != model.nxi) return c;
    c.finite = c.finite && s.x.allFinite() && s.xi.allFinite() && s.xidot.allFinite();
    c.drift = std::max(c.drift, model.coordinateDrift(s.x));
    computeKinematics(model, s.x, s.xi, ws);
    computeConfigurationRate(model, s.x, s.xi, ws, 0.0);
    const VecX dx = (sp.x - sm.x) / (2 * kFdStep) - ws.xdot;
    const VecX dxi = (sp.xi - sm.xi) / (2 * kFdStep) - s.xidot;
    c.fd = std::max(c.fd, dx.cwiseAbs().maxCoeff() / (1 + ws.xdot.cwiseAbs().maxCoeff()));
    c.fd = std::max(c.fd, dxi.cwiseAbs().maxCoeff() / (1 + s.xidot.cwiseAbs().maxCoeff()));
  }
  return c;
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
    const Consistency c = checkConsistency(designModel(scene), *ref, 0.0, scene.integrator.t_end, 150);
    EXPECT_TRUE(c.finite);
    EXPECT_LT(c.drift, kDriftTol);
    EXPECT_LT(c.fd, kFdTol);
  }
  EXPECT_GE(with_reference, 15);
}

// The recovery rejoins a manoeuvre from rest where it was left (ReferenceRetiming,
// docs/CONTROL.md "Recovery"): every retimable reference block, held from the middle of its run and
// restarted later, stays consistent, is at rest until the restart, and runs on at its own pace
// after the run-up.
TEST(SceneReferences, RetimedReferencesAreConsistentAndStartFromRest) {
  int retimed = 0;
  for (const auto& entry : std::filesystem::directory_iterator(scenesDir())) {
    if (entry.path().extension() != ".yaml") continue;
    SCOPED_TRACE(entry.path().filename().string());
    const Scene scene = loadScene(entry.path());
    if (scene.reference.generator.empty() || scene.reference.generator == "tool_path") continue;
    const Model& model = designModel(scene);
    ReferenceRetiming retiming;
    retiming.tau_start = 0.43 * scene.integrator.t_end;
    retiming.t_start = retiming.tau_start + 7.0;
    retiming.ramp = 2.0;
    retiming.yaw = 0.3;
    const auto ref = makeReference(model, scene.reference, &retiming);
    ++retimed;
    const Consistency c =
        checkConsistency(model, *ref, retiming.t_start - 1.0, retiming.t_start + retiming.ramp + 3.0, 150);
    EXPECT_TRUE(c.finite);
    EXPECT_LT(c.drift, kDriftTol);
    EXPECT_LT(c.fd, kFdTol);
    ReferenceSample s;
    ref->sample(retiming.t_start - 0.5, s);
    EXPECT_LT(s.xi.cwiseAbs().maxCoeff(), 1e-12);
    EXPECT_LT(s.xidot.cwiseAbs().maxCoeff(), 1e-12);
  }
  EXPECT_GE(retimed, 15);
}

// An integrated heading with a yaw rate waits with the manoeuvre: at rest while held (ω_zR = 0),
// turning at yaw_rate · τ̇ during the run-up, consistent throughout.
TEST(SceneReferences, ARetimedIntegratedHeadingWaitsWithTheManoeuvre) {
  const Scene scene = loadScene(scenesDir() / "quadcopter_looping.yaml", {"reference.parameters.yaw_rate=0.7"});
  ReferenceRetiming retiming;
  retiming.tau_start = 3.0;
  retiming.t_start = 20.0;
  retiming.ramp = 2.0;
  retiming.yaw = 0.4;
  const auto ref = makeReference(scene.model, scene.reference, &retiming);
  const Consistency c = checkConsistency(scene.model, *ref, 19.0, 25.0, 150);
  EXPECT_TRUE(c.finite);
  EXPECT_LT(c.fd, kFdTol);
  ReferenceSample s;
  ref->sample(19.5, s);
  EXPECT_LT(s.xi.cwiseAbs().maxCoeff(), 1e-12);
  EXPECT_LT(s.xidot.cwiseAbs().maxCoeff(), 1e-12);
}

// The flat references stay flat when retimed: the looping held in its run-up (τ = 2.15 s, where
// the recovery of issue 46 left it) and restarted makes the matching force vanish for the
// underactuated quadcopter all along the restart, as the original does.
TEST(SceneReferences, RetimedLoopingMatchesTheQuadcopter) {
  const Scene scene = load("quadcopter_looping.yaml");
  const double scale = totalMass(scene.model) * 9.81;
  for (double tau : {2.15, 4.2}) {
    SCOPED_TRACE(tau);
    ReferenceRetiming retiming;
    retiming.tau_start = tau;
    retiming.t_start = 20.0;
    retiming.ramp = 2.0;
    retiming.yaw = -1.0;
    const auto ref = makeReference(scene.model, scene.reference, &retiming);
    ReferenceSample s;
    double worst = 0.0;
    for (int i = 0; i <= 400; ++i) {
      ref->sample(19.0 + 10.0 * i / 400.0, s);
      worst = std::max(worst, matchingForce(scene.model, s) / scale);
    }
    EXPECT_LT(worst, kMatchTol);
  }
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
