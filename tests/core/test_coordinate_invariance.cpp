// Choice-of-coordinates invariance (konz-modeling §10.1 "coordinate invariance", §16.3 item 6(e)):
// the same mechanical system described with different configuration/velocity coordinates must
// produce the same body trajectories. The physics does not know about the chart, so the world
// poses of every body agree up to integration error.
//  (a) 3-link revolute chain under gravity: angle θ versus unit-circle pair (c, s);
//  (b) free body (r + R | r + q) carrying a spherical child (R | q): all four combinations;
//  (c) planar joint (body-twist velocities) versus the chain prismatic x → prismatic y → revolute z
//      through two sliders of negligible mass (the builder requires m > 0; 1e-12 kg moves the
//      trajectory by ~1e-12 relative).
#include <gtest/gtest.h>

#include <cmath>
#include <sstream>
#include <vector>

#include "core/dynamics/kinematics.h"
#include "sim/simulator.h"
#include "tests/support/report.h"
#include "tests/support/test_models.h"

namespace rbs {
namespace {

using PoseHistory = std::vector<std::vector<Pose>>;  // [sample][body]

/// World poses of all bodies every 10 ms over [0, duration], RK4 at dt = 1 ms.
PoseHistory simulatePoses(const Model& m, State s, double duration) {
  PoseHistory out;
  Workspace ws(m);
  IntegrationOptions opt;
  opt.stepper = StepperKind::Rk4;
  opt.dt = 1e-3;
  const IntegrationResult r =
      integrate(m, s, 0.0, duration, opt, {}, 0.01, [&](double, const State& st) {
        computeKinematics(m, st.x, st.xi, ws);
        out.push_back(ws.pose);
      });
  EXPECT_TRUE(r.ok) << r.message;
  return out;
}

/// max over samples of |R_a − R_b| and |r_a − r_b| for body ia of run a and body ib of run b.
double maxPoseDifference(const PoseHistory& a, int ia, const PoseHistory& b, int ib) {
  EXPECT_EQ(a.size(), b.size());
  double worst = 0.0;
  for (size_t k = 0; k < std::min(a.size(), b.size()); ++k) {
    worst = std::max({worst, (a[k][ia].R - b[k][ib].R).cwiseAbs().maxCoeff(),
                      (a[k][ia].r - b[k][ib].r).cwiseAbs().maxCoeff()});
  }
  return worst;
}

// 1e-8 (poses of metre-sized systems over 2 s): two RK4 discretizations (dt = 1 ms) of the same
// flow in different charts differ by O(dt⁴) truncation terms, ~1e-11 here; the projection after
// each step changes only the norm of q, (c, s) and the orthogonality of R, not the pose. A wrong
// term in one chart (bias, kinematics, T_c mapping) gives O(1e-3–1) within 2 s.
constexpr double kPoseTol = 1e-8;

// ---- (a) revolute angle versus (c, s)
// ---------------------------------------------------------------

Model threeLinkChain(JointType revolute) {
  test::Rng rng(501);  // same geometry for both joint types
  ModelBuilder b;
  std::string parent = rbs::kWorld;
  for (int i = 0; i < 3; ++i) {
    const std::string name = "link" + std::to_string(i);
    b.addBody(test::randomBody(rng, name));
    JointSpec j{
        .name = "joint" + std::to_string(i), .type = revolute, .parent = parent, .child = name};
    j.parent_placement = test::randomPose(rng, 0.4);
    j.child_placement = test::randomPose(rng, 0.2);
    j.axis = test::randomVector(rng, 1.0).normalized();
    b.addJoint(j);
    parent = name;
  }
  return b.build();
}

TEST(CoordinateInvariance, RevoluteAngleAndUnitCircleChainsMoveIdentically) {
  const Model angle = threeLinkChain(JointType::Revolute);
  const Model circle = threeLinkChain(JointType::RevoluteUnitCircle);
  const double theta[3] = {0.4, -1.2, 2.5}, rate[3] = {1.5, -2.0, 0.7};
  State sa = angle.neutralState(), sc = circle.neutralState();
  for (int i = 0; i < 3; ++i) {
    sa.x(angle.joints[i].x_offset) = theta[i];
    sc.x(circle.joints[i].x_offset) = std::cos(theta[i]);
    sc.x(circle.joints[i].x_offset + 1) = std::sin(theta[i]);
    sa.xi(i) = sc.xi(i) = rate[i];  // both use the angle rate as velocity coordinate
  }
  const PoseHistory a = simulatePoses(angle, sa, 2.0), c = simulatePoses(circle, sc, 2.0);
  double worst = 0.0;
  for (int b = 0; b < 3; ++b) worst = std::max(worst, maxPoseDifference(a, b, c, b));
  EXPECT_LT(worst, kPoseTol);
  test::recordError("max_pose_difference", worst);
}

// ---- (b) free R/q carrying spherical R/q
// ------------------------------------------------------------

Model floatingPair(JointType free_type, JointType spherical_type) {
  test::Rng rng(502);
  ModelBuilder b;
  b.addBody(test::randomBody(rng, "base")).addBody(test::randomBody(rng, "child"));
  b.addJoint({.name = "float", .type = free_type, .parent = rbs::kWorld, .child = "base"});
  JointSpec s{.name = "ball", .type = spherical_type, .parent = "base", .child = "child"};
  s.parent_placement = test::randomPose(rng, 0.5);
  s.child_placement = test::randomPose(rng, 0.3);
  b.addJoint(s);
  return b.build();
}

TEST(CoordinateInvariance, FreeAndSphericalJointsAsMatrixOrQuaternionMoveIdentically) {
  test::Rng rng(503);
  const Pose base_pose = test::randomPose(rng, 1.0);
  const Mat3 ball_rotation = test::randomRotation(rng);
  Vec6 base_twist;
  base_twist << 0.5, -0.3, 1.0, 1.2, -0.8, 2.0;
  const Vec3 ball_omega(-1.5, 2.2, 0.6);  // relative body angular velocity (same ξ for R and q)

  PoseHistory reference;
  for (JointType free_type : {JointType::Free, JointType::FreeQuaternion}) {
    for (JointType spherical_type : {JointType::Spherical, JointType::SphericalQuaternion}) {
      const Model m = floatingPair(free_type, spherical_type);
      State s = m.neutralState();
      jointCoordinatesFromMotion(m.joints[0], base_pose, s.x.data() + m.joints[0].x_offset);
      jointCoordinatesFromMotion(m.joints[1], Pose::rotation(ball_rotation),
                                 s.x.data() + m.joints[1].x_offset);
      s.xi << base_twist, ball_omega;
      const PoseHistory h = simulatePoses(m, s, 2.0);
      if (reference.empty()) {
        reference = h;
        continue;
      }
      double worst = 0.0;
      for (int b = 0; b < 2; ++b) worst = std::max(worst, maxPoseDifference(reference, b, h, b));
      EXPECT_LT(worst, kPoseTol) << jointTypeName(free_type) << " + "
                                 << jointTypeName(spherical_type);
      const std::string key = "max_pose_difference_" + std::string(jointTypeName(free_type)) + "_" +
                              std::string(jointTypeName(spherical_type));
      test::recordError(key.c_str(), worst);
    }
  }
}

// ---- (c) planar versus prismatic–prismatic–revolute
// -----------------------------------------------

// The plane: the joint frame's xy plane, tilted so that gravity has in-plane and out-of-plane
// components; the moving body is a random body with a random T_c.
struct PlanarGeometry {
  Pose placement;
  Pose child_placement;
  BodySpec body;
};

PlanarGeometry planarGeometry() {
  test::Rng rng(504);
  PlanarGeometry g;
  g.placement = Pose{axisAngleRotation(Vec3::UnitX(), 1.3), test::randomVector(rng, 0.5)};
  g.child_placement = test::randomPose(rng, 0.3);
  g.body = test::randomBody(rng, "body");
  return g;
}

Model planarModel(const PlanarGeometry& g) {
  ModelBuilder b;
  b.addBody(g.body);
  JointSpec j{.name = "plane", .type = JointType::Planar, .parent = rbs::kWorld, .child = "body"};
  j.parent_placement = g.placement;
  j.child_placement = g.child_placement;
  b.addJoint(j);
  return b.build();
}

Model sliderChainModel(const PlanarGeometry& g) {
  // The sliders translate without rotating, so only their (negligible) mass enters T and V_G.
  constexpr double kTiny = 1e-12;
  const BodySpec slider_x{"slider_x", kTiny, Vec3::Zero(), kTiny * Mat3::Identity()};
  const BodySpec slider_y{"slider_y", kTiny, Vec3::Zero(), kTiny * Mat3::Identity()};
  ModelBuilder b;
  b.addBody(slider_x).addBody(slider_y).addBody(g.body);
  JointSpec px{
      .name = "px", .type = JointType::Prismatic, .parent = rbs::kWorld, .child = "slider_x"};
  px.parent_placement = g.placement;
  px.axis = Vec3::UnitX();
  JointSpec py{
      .name = "py", .type = JointType::Prismatic, .parent = "slider_x", .child = "slider_y"};
  py.axis = Vec3::UnitY();
  JointSpec rz{.name = "rz", .type = JointType::Revolute, .parent = "slider_y", .child = "body"};
  rz.axis = Vec3::UnitZ();
  rz.child_placement = g.child_placement;
  b.addJoint(px).addJoint(py).addJoint(rz);
  return b.build();
}

TEST(CoordinateInvariance, PlanarJointMatchesPrismaticPrismaticRevoluteChain) {
  const PlanarGeometry g = planarGeometry();
  const Model planar = planarModel(g), chain = sliderChainModel(g);
  const double px = 0.3, py = -0.2, theta = 0.8;  // in-plane position and angle
  const double vx = 0.6, vy = 1.1, omega = -2.5;  // ṗ_x, ṗ_y (joint-frame axes), θ̇
  State sp = planar.neutralState(), sc = chain.neutralState();
  sp.x << px, py, theta;
  sc.x << px, py, theta;
  sc.xi << vx, vy, omega;
  // The planar joint's velocity is the planar body twist: v_body = R_z(θ)ᵀ (ṗ_x, ṗ_y).
  sp.xi << std::cos(theta) * vx + std::sin(theta) * vy,
      -std::sin(theta) * vx + std::cos(theta) * vy, omega;
  const PoseHistory a = simulatePoses(planar, sp, 2.0), c = simulatePoses(chain, sc, 2.0);
  const double worst = maxPoseDifference(a, 0, c, 2);
  EXPECT_LT(worst, kPoseTol);
  test::recordError("max_pose_difference", worst);
  // The motion is not trivial: the body falls and turns (moves ≫ the tolerance).
  EXPECT_GT((a.back()[0].r - a.front()[0].r).norm(), 0.5);
}

}  // namespace
}  // namespace rbs
