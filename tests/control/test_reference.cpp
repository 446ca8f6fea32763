// Reference generators (core/control/reference.h): for every generator on small models with free,
// free_quaternion, spherical, spherical_quaternion, spherical_euler_zyx, planar, revolute,
// revolute_unit_circle and prismatic joints:
//  - x_R lies on the coordinate manifold;
//  - a central difference of x_R matches ẋ = A(x_R) ξ_R, and one of ξ_R matches ξ̇_R;
//  - the world pose (and body twist) of the base body is the requested path point.
// Plus the rest-to-rest polynomials, the circle's smooth start, angle/quaternion continuity and
// the error messages. The flatness-based references are checked in test_flatness.cpp.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <functional>
#include <numbers>
#include <string>
#include <vector>

#include "core/control/reference.h"
#include "core/control/tracking.h"
#include "core/control/trajectory.h"
#include "core/dynamics/kinematics.h"
#include "tests/support/matrix_compare.h"
#include "tests/support/test_models.h"

namespace rbs {
namespace {

constexpr double kPi = std::numbers::pi;
// Central differences with step kFdStep have truncation error δ²/6 |f⁽³⁾| ≲ 1e-8 on these paths
// (third derivatives ≲ 1e3) and rounding error ≲ 1e-16/δ·|f| ≈ 1e-10: 1e-6 (relative to
// 1 + |ḟ|) leaves a margin of 100 and still catches any wrong factor or sign.
constexpr double kFdStep = 1e-5;
constexpr double kFdTol = 1e-6;
// Coordinates built from rotations by jointCoordinatesFromMotion are exact up to rounding.
constexpr double kManifoldTol = 1e-12;
// Poses composed through placements and back: a few roundings of O(1) numbers.
constexpr double kPoseTol = 1e-12;

using test::Rng;

ReferenceSettings settings(std::string generator,
                           std::map<std::string, std::vector<double>> parameters,
                           std::map<std::string, std::string> options = {}) {
  return ReferenceSettings{std::move(generator), std::move(parameters), std::move(options)};
}

/// world → [fixed → stand →] base (`type`, random T_p, T_c) → revolute → prismatic →
/// revolute_unit_circle, random bodies and axes. Spherical types hang from a welded stand.
Model baseModel(JointType type, std::uint64_t seed) {
  Rng rng(seed);
  ModelBuilder b;
  std::string parent = kWorld;
  const bool rotation_only =
      type != JointType::Free && type != JointType::FreeQuaternion && type != JointType::Planar;
  if (rotation_only) {
    b.addBody(test::randomBody(rng, "stand"));
    Pose mount = test::randomPose(rng);
    if (type == JointType::SphericalEulerZYX) mount.R.setIdentity();
    b.addJoint(JointSpec{.name = "mount",
                         .type = JointType::Fixed,
                         .parent = kWorld,
                         .child = "stand",
                         .parent_placement = mount});
    parent = "stand";
  }
  b.addBody(test::randomBody(rng, "base"));
  JointSpec j{.name = "base_joint", .type = type, .parent = parent, .child = "base"};
  j.parent_placement = test::randomPose(rng);
  // Planar paths refer to the joint's moving frame; the other types to the body frame, so T_c
  // may be anything (spherical_absolute requires T_c = I). Euler angles: no placement rotations,
  // so the joint's gimbal lock is the body's pitch ±90°.
  if (type == JointType::SphericalEulerZYX) {
    j.parent_placement.R.setIdentity();
    j.child_placement = Pose::translation(test::randomVector(rng, 0.5));
  } else if (type != JointType::Planar && type != JointType::SphericalAbsolute) {
    j.child_placement = test::randomPose(rng);
  }
  b.addJoint(j);
  const JointType chain[3] = {JointType::Revolute, JointType::Prismatic,
                              JointType::RevoluteUnitCircle};
  std::string p = "base";
  for (int i = 0; i < 3; ++i) {
    const std::string name = "link" + std::to_string(i + 1);
    b.addBody(test::randomBody(rng, name));
    JointSpec c{.name = "j" + std::to_string(i + 1), .type = chain[i], .parent = p, .child = name};
    c.parent_placement = test::randomPose(rng);
    c.child_placement = test::randomPose(rng);
    c.axis = test::randomVector(rng, 1.0).normalized();
    b.addJoint(c);
    p = name;
  }
  return b.build();
}

/// A fixed-base arm: prismatic cart → revolute → revolute_unit_circle (no base).
Model cartModel() {
  Rng rng(7);
  ModelBuilder b;
  const char* names[3] = {"cart", "link1", "link2"};
  const JointType types[3] = {JointType::Prismatic, JointType::Revolute,
                              JointType::RevoluteUnitCircle};
  std::string parent = kWorld;
  for (int i = 0; i < 3; ++i) {
    b.addBody(test::randomBody(rng, names[i]));
    JointSpec j{.name = std::string("q") + std::to_string(i),
                .type = types[i],
                .parent = parent,
                .child = names[i]};
    j.parent_placement = test::randomPose(rng);
    j.axis = test::randomVector(rng, 1.0).normalized();
    j.initial_position = 0.3 * (i + 1);
    b.addJoint(j);
    parent = names[i];
  }
  return b.build();
}

struct Consistency {
  double manifold = 0.0;  ///< largest coordinate drift
  double xdot = 0.0;      ///< largest |FD(x) − Aξ| / (1 + |Aξ|)
  double xidot = 0.0;     ///< largest |FD(ξ) − ξ̇| / (1 + |ξ̇|)
};

Consistency consistency(const Model& model, const Reference& ref, double t0, double t1, int n) {
  Consistency c;
  Workspace ws(model);
  ReferenceSample s, sp, sm;
  for (int i = 0; i < n; ++i) {
    // Off-grid times: the rest-to-rest ends of degree 5 and 7 have jumps in q⃛ or q⁽⁴⁾, where a
    // central difference of ξ is one-sided.
    const double t = t0 + (t1 - t0) * (i + 0.371) / n;
    ref.sample(t, s);
    ref.sample(t + kFdStep, sp);
    ref.sample(t - kFdStep, sm);
    c.manifold = std::max(c.manifold, model.coordinateDrift(s.x));
    computeKinematics(model, s.x, s.xi, ws);
    computeConfigurationRate(model, s.x, s.xi, ws, 0.0);
    const VecX xdot_fd = (sp.x - sm.x) / (2 * kFdStep);
    const VecX xidot_fd = (sp.xi - sm.xi) / (2 * kFdStep);
    c.xdot = std::max(
        c.xdot, (xdot_fd - ws.xdot).cwiseAbs().maxCoeff() / (1.0 + ws.xdot.cwiseAbs().maxCoeff()));
    c.xidot = std::max(c.xidot, (xidot_fd - s.xidot).cwiseAbs().maxCoeff() /
                                    (1.0 + s.xidot.cwiseAbs().maxCoeff()));
  }
  return c;
}

void expectConsistent(const Model& model, const Reference& ref, double t0, double t1, int n = 60) {
  const Consistency c = consistency(model, ref, t0, t1, n);
  EXPECT_LT(c.manifold, kManifoldTol);
  EXPECT_LT(c.xdot, kFdTol);
  EXPECT_LT(c.xidot, kFdTol);
}

/// World pose and body twist of body `b` at the sample.
std::pair<Pose, Vec6> bodyState(const Model& model, const ReferenceSample& s, int b) {
  Workspace ws(model);
  computeKinematics(model, s.x, s.xi, ws);
  return {ws.pose[b], ws.twist[b]};
}

int bodyIndex(const Model& m, const char* name) {
  return m.bodyIndex(name);
}

const std::vector<JointType> kBaseTypes{
    JointType::Free,      JointType::FreeQuaternion,      JointType::Planar,
    JointType::Spherical, JointType::SphericalQuaternion, JointType::SphericalEulerZYX};

std::string typeName(JointType t) {
  return std::string(jointTypeName(t));
}

// ---- rest-to-rest polynomials
// --------------------------------------------------------------------

TEST(RestToRest, BoundaryConditionsDerivativesAndDegrees) {
  // Polynomial identities: exact up to rounding of O(100) coefficients.
  constexpr double kTol = 1e-12;
  for (int degree : {5, 7, 9}) {
    const int order = (degree - 1) / 2;  // derivatives 1…order vanish at both ends
    SCOPED_TRACE(degree);
    // Just inside [0, 1]: a vanishing derivative is at most (largest coefficient of the next
    // one, ≤ 2e4) · eps.
    const double eps = 1e-12;
    const traj::Jet s0 = traj::restToRest(degree, eps), s1 = traj::restToRest(degree, 1 - eps);
    EXPECT_NEAR(s0[0], 0.0, kTol);
    EXPECT_NEAR(s1[0], 1.0, kTol);
    for (int k = 1; k <= std::min(order, 4); ++k) {
      EXPECT_NEAR(s0[k], 0.0, 2e4 * eps) << k;
      EXPECT_NEAR(s1[k], 0.0, 2e4 * eps) << k;
    }
    if (order < 4) {
      EXPECT_GT(std::abs(traj::restToRest(degree, 1e-9)[order + 1]), 1.0);
    }
    EXPECT_NEAR(traj::restToRest(degree, 0.5)[0], 0.5, kTol);  // odd symmetry about ½
    // Derivatives against central differences (step 1e-5, |s⁽ᵏ⁾| ≤ 1e5 ⇒ error ≤ 1e-4 relative).
    for (double tau : {0.13, 0.5, 0.77}) {
      const traj::Jet a = traj::restToRest(degree, tau);
      const traj::Jet p = traj::restToRest(degree, tau + 1e-5),
                      m = traj::restToRest(degree, tau - 1e-5);
      for (int k = 0; k < 4; ++k)
        EXPECT_NEAR((p[k] - m[k]) / 2e-5, a[k + 1], 1e-4 * (1 + std::abs(a[k + 1])))
            << tau << " " << k;
    }
  }
  // The three degrees are different curves: faster start and steeper middle with higher degree.
  const double s5 = traj::restToRest(5, 0.2)[0], s7 = traj::restToRest(7, 0.2)[0],
               s9 = traj::restToRest(9, 0.2)[0];
  EXPECT_GT(s5, s7);
  EXPECT_GT(s7, s9);
  EXPECT_LT(traj::restToRest(5, 0.5)[1], traj::restToRest(9, 0.5)[1]);
}

TEST(PolynomialReference, RestToRestReachesGoalAndDegreesDiffer) {
  const Model model = test::randomChain(3, 11);
  const std::vector<double> start{0.2, -0.4, 1.0}, goal{1.2, 0.5, -2.0};
  ReferenceSample s;
  double mid[3] = {0, 0, 0};
  int i = 0;
  for (double degree : {5.0, 7.0, 9.0}) {
    const auto ref = makeReference(model, settings("polynomial", {{"degree", {degree}},
                                                                  {"start_time", {0.5}},
                                                                  {"duration", {2.0}},
                                                                  {"start", start},
                                                                  {"goal", goal}}));
    for (double t : {-1.0, 0.5, 2.5, 4.0}) {
      ref->sample(t, s);
      const auto& target = t <= 0.5 ? start : goal;
      for (int k = 0; k < 3; ++k) EXPECT_NEAR(s.x(k), target[k], 1e-15) << t;
      EXPECT_EQ(s.xi.cwiseAbs().maxCoeff(), 0.0) << t;     // at rest ...
      EXPECT_EQ(s.xidot.cwiseAbs().maxCoeff(), 0.0) << t;  // ... without acceleration
    }
    ref->sample(0.9, s);
    mid[i++] = s.x(0);
    expectConsistent(model, *ref, 0.0, 3.0);
  }
  EXPECT_GT(std::abs(mid[0] - mid[1]), 1e-3);
  EXPECT_GT(std::abs(mid[1] - mid[2]), 1e-3);
}

// ---- every generator, every base type
// -------------------------------------------------------------

TEST(ConstantReference, PosesEveryBaseTypeAndHoldsTheRest) {
  for (JointType type : kBaseTypes) {
    SCOPED_TRACE(typeName(type));
    const Model model = baseModel(type, 3);
    const int base = bodyIndex(model, "base");
    std::map<std::string, std::vector<double>> p{{"joints", {0.4, -0.2}}};
    if (type == JointType::Planar) {
      p["position"] = {0.3, -0.7};
      p["angle"] = {2.5};
    } else {
      p["rpy"] = {0.3, -0.6, 2.9};
      if (type == JointType::Free || type == JointType::FreeQuaternion) p["position"] = {1, 2, 3};
    }
    const auto ref = makeReference(model, settings("constant", p));
    ReferenceSample s;
    ref->sample(1.3, s);
    EXPECT_LT(model.coordinateDrift(s.x), kManifoldTol);
    EXPECT_EQ(s.xi.cwiseAbs().maxCoeff(), 0.0);
    const auto [G, V] = bodyState(model, s, base);
    if (type == JointType::Planar) {
      const Joint& j = model.joints[base];
      const Pose expected =
          j.parent_placement * Pose{axisAngleRotation(Vec3::UnitZ(), 2.5), Vec3(0.3, -0.7, 0)};
      EXPECT_MATRIX_NEAR(G.matrix(), expected.matrix(), kPoseTol);
    } else {
      EXPECT_MATRIX_NEAR(G.R, rotationZYX(0.3, -0.6, 2.9), kPoseTol);
      if (type == JointType::Free || type == JointType::FreeQuaternion) {
        EXPECT_MATRIX_NEAR(G.r, Vec3(1, 2, 3), kPoseTol);
      }
    }
    // Scalar joints in index order: revolute, prismatic get the values; the unit circle is held.
    const Joint& j1 = model.joints[model.jointIndex("j1")];
    const Joint& j2 = model.joints[model.jointIndex("j2")];
    const Joint& j3 = model.joints[model.jointIndex("j3")];
    EXPECT_EQ(s.x(j1.x_offset), 0.4);
    EXPECT_EQ(s.x(j2.x_offset), -0.2);
    EXPECT_MATRIX_NEAR(s.x.segment(j3.x_offset, 2), model.initial_state.x.segment(j3.x_offset, 2),
                       0.0);
  }
}

TEST(ConstantTwistReference, ConsistentOnEveryBaseType) {
  for (JointType type : kBaseTypes) {
    SCOPED_TRACE(typeName(type));
    const Model model = baseModel(type, 5);
    const int base = bodyIndex(model, "base");
    const bool rotation_only =
        type != JointType::Free && type != JointType::FreeQuaternion && type != JointType::Planar;
    std::map<std::string, std::vector<double>> p;
    Vec6 V;
    if (type == JointType::Planar) {
      p["twist"] = {0.4, -0.3, 2.1};
      p["position"] = {0.1, 0.2};
      p["angle"] = {3.0};
    } else if (rotation_only) {
      // Slow enough for Euler angles to stay clear of gimbal lock on [0, 1.5].
      p["twist"] = {0.2, 0.3, 2.2};
      p["rpy"] = {0.1, 0.2, 3.0};
    } else {
      p["twist"] = {0.5, -0.2, 0.3, 1.1, -2.4, 3.3};
      p["position"] = {0.1, 0.2, 0.3};
      p["rpy"] = {0.1, 0.2, 3.0};
    }
    p["joints"] = {0.5};
    const auto ref = makeReference(model, settings("constant_twist", p));
    // Runs through yaw = ±π and quaternion w = 0: continuity must hold there.
    expectConsistent(model, *ref, 0.0, 1.5);
    if (type == JointType::Planar) continue;
    const Vec3 w(p["twist"][rotation_only ? 0 : 3], p["twist"][rotation_only ? 1 : 4],
                 p["twist"][rotation_only ? 2 : 5]);
    V << (rotation_only ? Vec3::Zero() : Vec3(p["twist"][0], p["twist"][1], p["twist"][2])), w;
    const Pose G0{rotationZYX(0.1, 0.2, 3.0), Vec3(0.1, 0.2, 0.3)};
    ReferenceSample s;
    ref->sample(1.2, s);
    const auto [G, Vb] = bodyState(model, s, base);
    const Pose expected = G0 * expSE3(1.2 * V);
    EXPECT_MATRIX_NEAR(G.R, expected.R, 1e-12);
    EXPECT_MATRIX_NEAR(Vb.tail<3>(), w, 1e-12);
    if (!rotation_only) {
      EXPECT_MATRIX_NEAR(G.r, expected.r, 1e-12);
      EXPECT_MATRIX_NEAR(Vb, V, 1e-12);
    }
  }
}

TEST(ConstantTwistReference, FreeRigidBodySceneReference) {
  // Thesis 4.7.5: r_R = 0, α_R = π t about z.
  const Model model = baseModel(JointType::Free, 9);
  const auto ref = makeReference(
      model,
      settings("constant_twist",
               {{"position", {0, 0, 0}}, {"rpy", {0, 0, 0}}, {"twist", {0, 0, 0, 0, 0, kPi}}}));
  ReferenceSample s;
  ref->sample(0.25, s);
  const auto [G, V] = bodyState(model, s, bodyIndex(model, "base"));
  EXPECT_MATRIX_NEAR(G.R, axisAngleRotation(Vec3::UnitZ(), kPi / 4), kPoseTol);
  EXPECT_MATRIX_NEAR(G.r, Vec3::Zero(), kPoseTol);
}

TEST(SinusoidReference, JointsAndBasePosition) {
  for (JointType type : {JointType::Free, JointType::FreeQuaternion, JointType::Planar}) {
    SCOPED_TRACE(typeName(type));
    const Model model = baseModel(type, 13);
    const bool planar = type == JointType::Planar;
    std::map<std::string, std::vector<double>> p{{"period", {2.5}},
                                                 {"amplitude", {0.5, 0.2, 1.5}},
                                                 {"offset", {0.1, -0.3, 0.2}},
                                                 {"phase", {0.4}}};
    p["position"] = planar ? std::vector<double>{0.2, 1.0} : std::vector<double>{0.2, 1.0, 2.0};
    p["position_amplitude"] =
        planar ? std::vector<double>{0.3, 0.1} : std::vector<double>{0.3, 0.1, 0.2};
    p[planar ? "angle" : "yaw"] = {0.7};
    const auto ref = makeReference(model, settings("sinusoid", p));
    expectConsistent(model, *ref, 0.0, 3.0);
    ReferenceSample s;
    const double t = 0.8, w = 2 * kPi / 2.5;
    ref->sample(t, s);
    const Joint& j1 = model.joints[model.jointIndex("j1")];
    const Joint& j3 = model.joints[model.jointIndex("j3")];
    EXPECT_NEAR(s.x(j1.x_offset), 0.1 + 0.5 * std::sin(w * t + 0.4), 1e-14);
    EXPECT_NEAR(s.xi(j1.xi_offset), 0.5 * w * std::cos(w * t + 0.4), 1e-13);
    const double q3 = 0.2 + 1.5 * std::sin(w * t + 0.4);
    EXPECT_NEAR(s.x(j3.x_offset), std::cos(q3), 1e-14);
    EXPECT_NEAR(s.x(j3.x_offset + 1), std::sin(q3), 1e-14);
    const auto [G, V] = bodyState(model, s, bodyIndex(model, "base"));
    const double sn = std::sin(w * t);  // position_phase defaults to 0
    if (planar) {
      const Vec3 expected = model.joints[bodyIndex(model, "base")].parent_placement *
                            Vec3(0.2 + 0.3 * sn, 1.0 + 0.1 * sn, 0.0);
      EXPECT_MATRIX_NEAR(G.r, expected, kPoseTol);
    } else {
      EXPECT_MATRIX_NEAR(G.r, Vec3(0.2 + 0.3 * sn, 1.0 + 0.1 * sn, 2.0 + 0.2 * sn), kPoseTol);
      EXPECT_MATRIX_NEAR(G.R, axisAngleRotation(Vec3::UnitZ(), 0.7), kPoseTol);
    }
  }
}

TEST(CircleReference, FixedAndFollowingAttitudeOnFreeAndPlanarBases) {
  for (JointType type : {JointType::Free, JointType::FreeQuaternion, JointType::Planar}) {
    for (const char* attitude : {"fixed", "follow"}) {
      SCOPED_TRACE(typeName(type) + " " + attitude);
      const Model model = baseModel(type, 17);
      const bool planar = type == JointType::Planar;
      std::map<std::string, std::vector<double>> p{
          {"radius", {0.8}}, {"period", {2.0}}, {"start_time", {0.3}}};
      if (planar) {
        p["center"] = {0.5, -0.2};
        p["angle"] = {0.4};
      } else {
        p["center"] = {0.5, -0.2, 1.0};
        p["normal"] = {0, 1, 0};  // vertical circle: φ = 0 at the bottom
        p["rpy"] = {0.2, -0.1, 0.4};
      }
      const auto ref = makeReference(model, settings("circle", p, {{"attitude", attitude}}));
      expectConsistent(model, *ref, 0.0, 2.5);
      ReferenceSample s;
      const double t = 0.9, phi = 2 * kPi * (t - 0.3) / 2.0;
      ref->sample(t, s);
      const int base = bodyIndex(model, "base");
      const auto [G, V] = bodyState(model, s, base);
      const bool follow = std::string(attitude) == "follow";
      if (planar) {
        // The random plane has an in-plane gravity part: φ = 0 is "down" in the plane.
        const Pose C = model.joints[base].parent_placement;
        const Eigen::Vector2d g = (C.R.transpose() * model.gravity).head<2>();
        const Eigen::Vector2d a = g.normalized(), b(-a.y(), a.x());
        const Eigen::Vector2d pos =
            Eigen::Vector2d(0.5, -0.2) + 0.8 * (std::cos(phi) * a + std::sin(phi) * b);
        const double angle = 0.4 + (follow ? phi : 0.0);
        const Pose expected =
            C * Pose{axisAngleRotation(Vec3::UnitZ(), angle), Vec3(pos.x(), pos.y(), 0)};
        EXPECT_MATRIX_NEAR(G.matrix(), expected.matrix(), kPoseTol);
      } else {
        const Vec3 a(0, 0, -1), b = Vec3(0, 1, 0).cross(a);
        EXPECT_MATRIX_NEAR(
            G.r, Vec3(0.5, -0.2, 1.0) + 0.8 * (std::cos(phi) * a + std::sin(phi) * b), kPoseTol);
        const Mat3 R0 = rotationZYX(0.2, -0.1, 0.4);
        const Mat3 expected = follow ? Mat3(axisAngleRotation(Vec3::UnitY(), phi) * R0) : R0;
        EXPECT_MATRIX_NEAR(G.R, expected, kPoseTol);
        // Body velocity: speed 2π ρ / period along the tangent.
        EXPECT_NEAR(V.head<3>().norm(), 2 * kPi * 0.8 / 2.0, 1e-12);
      }
    }
  }
}

TEST(CircleReference, SmoothStartLoopsAndStop) {
  const Model model = baseModel(JointType::Free, 19);
  const double period = 1.5, ramp = 1.0, loops = 2.0, t0 = 0.5;
  const auto ref = makeReference(model, settings("circle", {{"center", {0, 0, 2}},
                                                            {"radius", {1.0}},
                                                            {"period", {period}},
                                                            {"normal", {0, 1, 0}},
                                                            {"loops", {loops}},
                                                            {"ramp", {ramp}},
                                                            {"start_time", {t0}}}));
  ReferenceSample s;
  const int base = bodyIndex(model, "base");
  // At rest at the bottom before the start and after loops·period + ramp.
  for (double t : {0.0, t0, t0 + loops * period + ramp, 9.0}) {
    ref->sample(t, s);
    EXPECT_LT(s.xi.norm(), 1e-14) << t;
    EXPECT_LT(s.xidot.norm(), 1e-14) << t;
    EXPECT_MATRIX_NEAR(bodyState(model, s, base).first.r, Vec3(0, 0, 1), 1e-12);
  }
  // Full speed 2π ρ/period on the cruise part.
  ref->sample(t0 + ramp + 0.3, s);
  EXPECT_NEAR(bodyState(model, s, base).second.head<3>().norm(), 2 * kPi / period, 1e-12);
  expectConsistent(model, *ref, 0.0, t0 + loops * period + ramp + 0.5, 120);
  // loops·period < ramp is impossible.
  EXPECT_THROW(makeReference(model, settings("circle", {{"center", {0, 0, 2}},
                                                        {"radius", {1.0}},
                                                        {"period", {1.0}},
                                                        {"loops", {1}},
                                                        {"ramp", {2.0}}})),
               ControlError);
}

TEST(WaypointsReference, DegreeNineTransitionsOfPositionAndYaw) {
  for (JointType type : {JointType::Free, JointType::FreeQuaternion, JointType::Planar,
                         JointType::SphericalEulerZYX}) {
    SCOPED_TRACE(typeName(type));
    const Model model = baseModel(type, 23);
    const bool planar = type == JointType::Planar;
    const bool rotation_only = type == JointType::SphericalEulerZYX;
    std::map<std::string, std::vector<double>> p{
        {"times", {1.0, 4.0, 7.0}}, {"transition", {2.0}}, {"joints", {0.3}}};
    if (!rotation_only) {
      p["x"] = {0.0, 1.0, 1.0};
      p["y"] = {0.5, 0.5, -1.0};
    }
    if (!planar && !rotation_only) p["z"] = {1.0, 1.0, 2.0};
    p[planar ? "angle" : "yaw"] = {0.0, 1.5, 3.5};  // past π: unwrapped continuously
    const auto ref = makeReference(model, settings("waypoints", p));
    expectConsistent(model, *ref, 0.0, 10.0, 100);
    ReferenceSample s;
    const int base = bodyIndex(model, "base");
    for (int k = 0; k < 3; ++k) {
      ref->sample(p["times"][k] + 2.0, s);  // transition k complete
      EXPECT_LT(s.xi.norm(), 1e-14);
      const Pose G = bodyState(model, s, base).first;
      if (planar) {
        const Pose expected =
            model.joints[base].parent_placement *
            Pose{axisAngleRotation(Vec3::UnitZ(), p["angle"][k]), Vec3(p["x"][k], p["y"][k], 0)};
        EXPECT_MATRIX_NEAR(G.matrix(), expected.matrix(), kPoseTol);
      } else {
        EXPECT_MATRIX_NEAR(G.R, axisAngleRotation(Vec3::UnitZ(), p["yaw"][k]), kPoseTol);
        if (!rotation_only) {
          EXPECT_MATRIX_NEAR(G.r, Vec3(p["x"][k], p["y"][k], p["z"][k]), kPoseTol);
        }
      }
    }
    // Half way through the transition toward set-point 1 (x: 0 → 1) the polynomial is at ½.
    ref->sample(4.0 + 1.0, s);
    if (!rotation_only && !planar) {
      EXPECT_NEAR(bodyState(model, s, base).first.r.x(), 0.5, 1e-12);
    }
  }
}

/// world → base (`base_type`, random T_p, T_c) → load on a `load_type` spherical joint with a
/// random hook, random placements and its centre of mass 0.45 m from the joint centre.
Model suspendedLoadModel(JointType base_type, JointType load_type, std::uint64_t seed) {
  Rng rng(seed);
  ModelBuilder b;
  b.addBody(test::randomBody(rng, "base"));
  JointSpec base{.name = "flight", .type = base_type, .parent = kWorld, .child = "base"};
  base.parent_placement = test::randomPose(rng);
  base.child_placement = test::randomPose(rng);
  b.addJoint(base);
  BodySpec load = test::randomBody(rng, "load");
  load.com = Vec3(0.03, -0.02, -0.45);
  b.addBody(load);
  JointSpec hang{.name = "rope", .type = load_type, .parent = "base", .child = "load"};
  hang.parent_placement = Pose::translation(Vec3(0.01, 0.02, -0.05));
  if (load_type != JointType::SphericalEulerZYX) {
    hang.parent_placement.R = test::randomPose(rng).R;
    hang.child_placement.R = test::randomPose(rng).R;
  }
  b.addJoint(hang);
  return b.build();
}

// The path is the load's centre of mass y. Independent of the construction through the rope
// direction: along the reference the CoM (from the reference's coordinates by forward kinematics)
// is y, it is accelerated by gravity and a force along the rope only (point mass on a massless
// rope: ÿ − a_G ∥ joint centre − CoM, with ÿ from a second difference), the rope keeps its
// length, the base keeps its heading, and the load does not spin about the rope.
TEST(SuspendedLoadReference, TheCentreOfMassFollowsThePathOnTheRopeDirection) {
  for (JointType base_type : {JointType::Free, JointType::FreeQuaternion}) {
    for (JointType load_type : {JointType::Spherical, JointType::SphericalQuaternion, JointType::SphericalEulerZYX}) {
      SCOPED_TRACE(typeName(base_type) + " / " + typeName(load_type));
      const Model model = suspendedLoadModel(base_type, load_type, 41);
      const int base = bodyIndex(model, "base"), load = bodyIndex(model, "load");
      std::map<std::string, std::vector<double>> p{{"times", {0.5, 3.0}},  {"transition", {1.5}},
                                                   {"x", {1.0, -0.5}},     {"y", {0.0, 0.8}},
                                                   {"z", {0.4, 1.0}},      {"yaw", {0.7, -0.4}}};
      const auto ref = makeReference(model, settings("waypoints", p, {{"suspended_load", "rope"}}));
      expectConsistent(model, *ref, 0.0, 5.0, 100);

      Workspace ws(model);
      const auto com = [&](double t, Vec3* centre = nullptr, Mat3* R_base = nullptr) {
        ReferenceSample s;
        ref->sample(t, s);
        computeKinematics(model, s.x, s.xi, ws);
        if (centre) *centre = ws.pose[base] * model.joints[load].parent_placement.r;
        if (R_base) *R_base = ws.pose[base].R;
        return Vec3(ws.pose[load] * model.bodies[load].com);
      };
      const double h = 1e-3;
      double rope_length = -1.0, max_angle = 0.0;
      for (int i = 0; i < 50; ++i) {
        const double t = 0.5 + 4.0 * (i + 0.37) / 50;
        Vec3 centre;
        Mat3 R_base;
        const Vec3 y = com(t, &centre, &R_base);
        const Vec3 y_ddot = (com(t + h) - 2 * y + com(t - h)) / (h * h);
        const Vec3 rope = centre - y;
        if (rope_length < 0) rope_length = rope.norm();
        EXPECT_NEAR(rope.norm(), rope_length, 1e-12);
        // Rope force ∥ rope: the angle between ÿ − a_G and the rope (second difference: ~1e-6).
        const Vec3 pull = y_ddot - model.gravity;
        EXPECT_LT(pull.cross(rope).norm() / (pull.norm() * rope.norm()), 1e-5) << "t = " << t;
        EXPECT_GT(pull.dot(rope), 0.0);
        max_angle = std::max(max_angle, std::acos(rope.normalized().z()));
        // Heading of the base: the yaw waypoints (degree-9 transitions) with zero roll and pitch.
        EXPECT_NEAR(R_base(2, 2), 1.0, 1e-12);
        // The load turns about the rope by at most tan(θ/2) of its angular velocity (the shortest
        // rotation from hanging straight; θ the swing angle).
        ReferenceSample s;
        ref->sample(t, s);
        computeKinematics(model, s.x, s.xi, ws);
        const Vec3 omega_world = ws.pose[load].R * ws.twist[load].tail<3>();
        const double swing = std::acos(rope.normalized().z());
        EXPECT_LE(std::abs(omega_world.dot(rope.normalized())), std::tan(swing / 2) * omega_world.norm() + 1e-12)
            << "t = " << t;
      }
      EXPECT_GT(max_angle, 0.1);  // the transitions do swing the rope
      // At the waypoints the CoM is at the set-points, hanging straight below the joint centre.
      for (int k = 0; k < 2; ++k) {
        Vec3 centre;
        const Vec3 y = com(p["times"][k] + 1.5, &centre);
        EXPECT_MATRIX_NEAR(y, Vec3(p["x"][k], p["y"][k], p["z"][k]), kPoseTol);
        EXPECT_MATRIX_NEAR(Vec3((centre - y).normalized()), Vec3::UnitZ(), 1e-12);
      }
    }
  }
}

// A move along x swings the load in the vertical x-z plane: the shortest rotation from hanging
// straight then turns it about the world y axis only.
TEST(SuspendedLoadReference, APlanarSwingTurnsAboutTheHorizontalNormalOnly) {
  const Model model = suspendedLoadModel(JointType::Free, JointType::Spherical, 8);
  const auto ref = makeReference(
      model, settings("waypoints", {{"times", {0.2}}, {"transition", {1.2}}, {"x", {0.8}}}, {{"suspended_load", "rope"}}));
  expectConsistent(model, *ref, 0.0, 1.6);
  const int load = bodyIndex(model, "load");
  Workspace ws(model);
  ReferenceSample s;
  double largest = 0.0;
  for (int i = 0; i < 40; ++i) {
    ref->sample(0.2 + 1.2 * (i + 0.5) / 40, s);
    computeKinematics(model, s.x, s.xi, ws);
    const Vec3 omega_world = ws.pose[load].R * ws.twist[load].tail<3>();
    largest = std::max(largest, std::abs(omega_world.y()));
    EXPECT_LT(std::hypot(omega_world.x(), omega_world.z()), 1e-12 * (1.0 + omega_world.norm()));
  }
  EXPECT_GT(largest, 0.5);
  // Before the move it hangs straight down from the joint centre.
  ref->sample(0.0, s);
  computeKinematics(model, s.x, s.xi, ws);
  const Vec3 centre = ws.pose[bodyIndex(model, "base")] * model.joints[load].parent_placement.r;
  const Vec3 com = ws.pose[load] * model.bodies[load].com;
  EXPECT_MATRIX_NEAR(Vec3((com - centre).normalized()), Vec3(-Vec3::UnitZ()), 1e-12);
}

// error.swing.J: turning the load's joint by θ about an axis across its arm (joint centre → CoM)
// turns the arm by θ; the base's own spherical-free joint gets no swing signal.
TEST(TrackingErrors, SwingIsTheAngleBetweenTheArms) {
  const Model model = suspendedLoadModel(JointType::Free, JointType::Spherical, 12);
  const TrackingErrors errors(model);
  std::vector<std::string> names;
  for (const SignalInfo& s : errors.signals()) names.push_back(s.name);
  ASSERT_EQ(names.back(), "error.swing.rope");
  EXPECT_EQ(std::count_if(names.begin(), names.end(), [](const std::string& n) { return n.rfind("error.swing", 0) == 0; }), 1);
  const Joint& rope = model.joints[model.jointIndex("rope")];
  const Vec3 arm = rope.child_placement.R * model.bodies[rope.child].com + rope.child_placement.r;  // moving frame
  const Vec3 across = arm.unitOrthogonal();
  Workspace ws(model), ws_ref(model);
  const VecX x_ref = model.initial_state.x, xi = VecX::Zero(model.nxi);
  computeKinematics(model, x_ref, xi, ws_ref);
  for (double theta : {0.0, 0.3, 1.2, 2.9}) {
    VecX x = x_ref;
    Eigen::Map<Mat3> R_M(x.data() + rope.x_offset);  // spherical: R column-stacked
    R_M = Mat3(R_M * axisAngleRotation(across, theta));
    computeKinematics(model, x, xi, ws);
    std::vector<double> out(errors.signals().size());
    errors.evaluate(ws, ws_ref, x, x_ref, out.data());
    EXPECT_NEAR(out.back(), theta, 1e-12);
    EXPECT_NEAR(out[0], 0.0, 1e-15);  // the base did not move
  }
}

TEST(SuspendedLoadReference, NeedsASphericalJointBelowAFreeBaseAndAPrescribedAttitude) {
  const Model model = suspendedLoadModel(JointType::Free, JointType::Spherical, 5);
  const std::map<std::string, std::vector<double>> p{{"times", {1.0}}, {"transition", {1.0}}, {"x", {1.0}}};
  const auto message = [&](const Model& m, std::map<std::string, std::string> options) {
    try {
      makeReference(m, settings("waypoints", p, std::move(options)));
    } catch (const ControlError& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  EXPECT_NE(message(model, {{"suspended_load", "flight"}}).find("expected one of: none, rope"), std::string::npos);
  EXPECT_NE(message(model, {{"suspended_load", "rope"}, {"attitude", "flat"}}).find("prescribed attitude"),
            std::string::npos);
  EXPECT_NE(message(baseModel(JointType::Free, 3), {{"suspended_load", "j1"}}).find("needs a spherical joint"),
            std::string::npos);
}

TEST(WaypointsReference, RejectsOverlappingTransitions) {
  const Model model = baseModel(JointType::Free, 23);
  try {
    makeReference(
        model,
        settings("waypoints", {{"times", {1.0, 2.0}}, {"transition", {2.0}}, {"x", {0.0, 1.0}}}));
    FAIL();
  } catch (const ControlError& e) {
    EXPECT_NE(std::string(e.what()).find("'transition'"), std::string::npos) << e.what();
  }
}

TEST(HalfCircleReference, DrivesTheCartAndHoldsTheArm) {
  const Model model = cartModel();
  const auto ref =
      makeReference(model, settings("half_circle", {{"center", {0, -1.5, 0}},
                                                    {"radius", {1}},
                                                    {"angle_start", {kPi}},
                                                    {"angle_end", {0}},
                                                    {"cart_start", {-1}},
                                                    {"cart_end", {1}},
                                                    {"start_time", {0.2}},
                                                    {"duration", {1.5}},
                                                    {"degree", {5}},
                                                    {"end_effector_point", {0, -0.5, 0}}}));
  ReferenceSample s;
  ref->sample(0.2 + 0.75, s);
  EXPECT_NEAR(s.x(0), 0.0, 1e-14);  // half way
  EXPECT_GT(s.xi(0), 0.0);
  EXPECT_MATRIX_NEAR(s.x.tail(s.x.size() - 1), model.initial_state.x.tail(s.x.size() - 1), 0.0);
  EXPECT_EQ(s.xi.tail(s.xi.size() - 1).cwiseAbs().maxCoeff(), 0.0);
  ref->sample(2.0, s);
  EXPECT_EQ(s.x(0), 1.0);
  expectConsistent(model, *ref, 0.0, 2.0);
}

TEST(EmptyGenerator, HoldsTheInitialState) {
  const Model model = baseModel(JointType::FreeQuaternion, 29);
  const auto ref = makeReference(model, ReferenceSettings{});
  ReferenceSample s;
  ref->sample(3.0, s);
  EXPECT_MATRIX_NEAR(s.x, model.initial_state.x, 0.0);
  EXPECT_EQ(s.xi.size(), model.nxi);
  EXPECT_EQ(s.xi.cwiseAbs().maxCoeff(), 0.0);
  EXPECT_EQ(s.xidot.cwiseAbs().maxCoeff(), 0.0);
}

TEST(ReferenceSample, NoReallocationAfterTheFirstCall) {
  const Model model = baseModel(JointType::Free, 31);
  const auto ref = makeReference(
      model, settings("circle", {{"center", {0, 0, 1}}, {"radius", {1}}, {"period", {2}}}));
  ReferenceSample s;
  ref->sample(0.0, s);
  const double* x = s.x.data();
  const double* xi = s.xi.data();
  for (int i = 1; i < 10; ++i) ref->sample(0.1 * i, s);
  EXPECT_EQ(s.x.data(), x);
  EXPECT_EQ(s.xi.data(), xi);
}

TEST(ReferenceGenerators, NamesAreListed) {
  const auto names = referenceGeneratorNames();
  for (const char* n : {"constant", "polynomial", "sinusoid", "circle", "waypoints",
                        "constant_twist", "half_circle"})
    EXPECT_NE(std::find(names.begin(), names.end(), n), names.end()) << n;
}

// ---- errors -------------------------------------------------------------------------------------

struct BadCase {
  std::string label;
  const Model* model;
  ReferenceSettings settings;
  std::vector<std::string> fragments;
};

TEST(ReferenceErrors, NameGeneratorParameterAndExpectation) {
  const Model free_model = baseModel(JointType::Free, 37);
  const Model planar_model = baseModel(JointType::Planar, 37);
  const Model sphere_model = baseModel(JointType::Spherical, 37);
  const Model arm = test::randomChain(2, 37);
  const Model one_joint = test::randomChain(1, 37);
  ModelBuilder ab;  // free base → spherical_absolute child
  ab.addBody(BodySpec{"a", 1.0, Vec3::Zero(), Mat3::Identity()});
  ab.addBody(BodySpec{"b", 1.0, Vec3::Zero(), Mat3::Identity()});
  ab.addJoint(JointSpec{.name = "float", .type = JointType::Free, .parent = kWorld, .child = "a"});
  ab.addJoint(
      JointSpec{.name = "ball", .type = JointType::SphericalAbsolute, .parent = "a", .child = "b"});
  const Model absolute = ab.build();
  const std::map<std::string, std::vector<double>> circle{
      {"center", {0, 0, 1}}, {"radius", {1}}, {"period", {2}}};
  auto with = [&](std::map<std::string, std::vector<double>> base,
                  const std::map<std::string, std::vector<double>>& extra) {
    for (const auto& [k, v] : extra) base[k] = v;
    return base;
  };
  auto without = [&](std::map<std::string, std::vector<double>> base, const std::string& key) {
    base.erase(key);
    return base;
  };
  const std::vector<BadCase> cases{
      {"unknown generator",
       &free_model,
       settings("spiral", {}),
       {"unknown reference generator 'spiral'", "circle"}},
      {"parameters without generator",
       &free_model,
       settings("", {{"radius", {1}}}),
       {"without a generator"}},
      {"missing",
       &free_model,
       settings("circle", without(circle, "radius")),
       {"'circle'", "missing parameter 'radius'", "> 0"}},
      {"length",
       &free_model,
       settings("circle", with(circle, {{"center", {1, 2}}})),
       {"'circle'", "parameter 'center'", "expected 3 numbers", "got 2"}},
      {"sign",
       &free_model,
       settings("circle", with(circle, {{"radius", {-1}}})),
       {"parameter 'radius'", "expected a number > 0", "-1"}},
      {"unknown parameter",
       &free_model,
       settings("circle", with(circle, {{"radus", {1}}})),
       {"unknown parameter 'radus'", "accepted here", "radius"}},
      {"unknown option",
       &free_model,
       settings("circle", circle, {{"atitude", "flat"}}),
       {"unknown option 'atitude'", "attitude"}},
      {"bad option value",
       &free_model,
       settings("circle", circle, {{"attitude", "sideways"}}),
       {"option 'attitude'", "'sideways'", "fixed, follow, flat"}},
      {"degree",
       &arm,
       settings("polynomial", {{"duration", {1}}, {"degree", {6}}, {"start", {0}}, {"goal", {1}}}),
       {"'polynomial'", "parameter 'degree'", "5, 7 or 9"}},
      {"missing pair",
       &arm,
       settings("polynomial", {{"duration", {1}}, {"start", {0}}}),
       {"'start' needs 'goal'"}},
      {"nothing to drive",
       &arm,
       settings("polynomial", {{"duration", {1}}}),
       {"needs at least one pair"}},
      {"too many joints",
       &arm,
       settings("polynomial", {{"duration", {1}}, {"start", {0, 0, 0}}, {"goal", {1, 1, 1}}}),
       {"parameter 'start'", "only 2 scalar joints"}},
      {"goal length",
       &arm,
       settings("polynomial", {{"duration", {1}}, {"start", {0, 0}}, {"goal", {1}}}),
       {"parameter 'goal'", "expected 2 numbers"}},
      {"no base", &arm, settings("circle", circle), {"'circle'", "needs a base joint"}},
      {"no base for position",
       &arm,
       settings("constant", {{"position", {0, 0, 1}}}),
       {"parameter 'position'", "needs a base joint"}},
      {"spherical has no position",
       &sphere_model,
       settings("constant", {{"position", {0, 0, 1}}}),
       {"parameter 'position'", "'base_joint'", "no position"}},
      {"planar yaw",
       &planar_model,
       settings("constant", {{"yaw", {1}}}),
       {"parameter 'yaw'", "planar", "use 'angle'"}},
      {"planar normal",
       &planar_model,
       settings("circle",
                {{"center", {0, 0}}, {"radius", {1}}, {"period", {1}}, {"normal", {0, 0, 1}}}),
       {"parameter 'normal'", "joint plane"}},
      {"flat on spherical",
       &sphere_model,
       settings("constant", {{"rpy", {0, 0, 0}}}, {{"attitude", "flat"}}),
       {"'attitude: flat'", "free or planar base", "'base_joint'"}},
      {"flat and rpy",
       &free_model,
       settings("circle", with(circle, {{"rpy", {0, 0, 0}}}), {{"attitude", "flat"}}),
       {"parameter 'rpy'", "give 'yaw'"}},
      {"epsilon without flat",
       &free_model,
       settings("circle", with(circle, {{"epsilon", {0.01}}})),
       {"parameter 'epsilon'", "needs option 'attitude: flat'"}},
      {"yaw_rate without integrated",
       &free_model,
       settings("circle", with(circle, {{"yaw_rate", {0.1}}}), {{"attitude", "flat"}}),
       {"parameter 'yaw_rate'", "'heading: integrated'"}},
      {"rpy and yaw",
       &free_model,
       settings("constant", {{"rpy", {0, 0, 0}}, {"yaw", {1}}}),
       {"parameter 'yaw'", "either 'rpy' or 'yaw'"}},
      {"offset without amplitude",
       &free_model,
       settings("sinusoid", {{"period", {1}}, {"offset", {1}}, {"position_amplitude", {1, 0, 0}}}),
       {"parameter 'offset'", "needs 'amplitude'"}},
      {"sinusoid phase length",
       &arm,
       settings("sinusoid", {{"period", {1}}, {"amplitude", {1, 1}}, {"phase", {1, 2, 3}}}),
       {"parameter 'phase'", "expected 1 or 2 numbers"}},
      {"spring needs two joints",
       &one_joint,
       settings("polynomial", {{"duration", {1}}, {"start", {0}}, {"goal", {1}}, {"varpi", {1}}},
                {{"flat_output", "spring"}}),
       {"'flat_output: spring'", "first two scalar joints"}},
      {"spring needs varpi",
       &arm,
       settings("polynomial", {{"duration", {1}}, {"start", {0}}, {"goal", {1}}},
                {{"flat_output", "spring"}}),
       {"missing parameter 'varpi'"}},
      {"varpi without spring",
       &arm,
       settings("polynomial", {{"duration", {1}}, {"start", {0}}, {"goal", {1}}, {"varpi", {1}}}),
       {"parameter 'varpi'", "'flat_output: spring'"}},
      {"twist length",
       &free_model,
       settings("constant_twist", {{"twist", {0, 0, 1}}}),
       {"parameter 'twist'", "expected 6 numbers"}},
      {"waypoint length",
       &free_model,
       settings("waypoints", {{"times", {1, 4}}, {"transition", {1}}, {"x", {0}}}),
       {"parameter 'x'", "expected 2 numbers"}},
      {"held absolute joint",
       &absolute,
       settings("constant", {{"position", {0, 0, 1}}}),
       {"'ball'", "spherical_absolute", "'float'"}},
      {"non-finite",
       &free_model,
       settings("circle", with(circle, {{"radius", {std::nan("")}}})),
       {"parameter 'radius'", "finite"}},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.label);
    try {
      makeReference(*c.model, c.settings);
      ADD_FAILURE() << "no ControlError";
    } catch (const ControlError& e) {
      const std::string msg = e.what();
      for (const auto& f : c.fragments)
        EXPECT_NE(msg.find(f), std::string::npos) << "message: " << msg << "\nmissing: " << f;
    }
  }
}

}  // namespace
}  // namespace rbs
