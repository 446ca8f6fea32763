// URDF import (core/urdf): the URDF double pendulum against its textbook equations of motion and
// the hand-built model; the 7-DoF arm's bodies, limits, inertias and body poses against the joint
// transforms composed by hand from the values written in assets/urdf/arm7.urdf; rotated inertial
// frames; floating bases; massless fixed links; planar/prismatic joints; and the errors (missing
// file, malformed XML, zero axis, massless moving link, urdfdom-level errors).
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <numbers>
#include <string>

#include "core/dynamics/dynamics.h"
#include "core/dynamics/energy.h"
#include "core/dynamics/kinematics.h"
#include "core/scene/scene.h"
#include "core/urdf/urdf_import.h"
#include "tests/scene/scene_test_util.h"
#include "tests/support/matrix_compare.h"
#include "tests/support/mesh_files.h"
#include "tests/support/report.h"
#include "tests/support/test_models.h"

namespace rbs {
namespace {

constexpr double kPi = std::numbers::pi;
constexpr double kG = 9.81;

// M, c, f_G of the pendulum are O(0.01–30) and are evaluated with a handful of 3×3 products;
// rounding leaves ~1e-15 relative. A wrong import (CoM sign, parallel axes, axis) is O(0.1).
constexpr double kTermTol = 1e-11;
// Poses of a 7-link chain: ~20 products of 3×3 rotations with entries ≤ 1 and lengths ≤ 1.2 m;
// rounding leaves ~1e-15. A wrong rpy order or a missed rotated origin moves them by ≳ 1e-2.
constexpr double kPoseTol = 1e-12;
// Inertia tensors ~1e-2 kg m²; R I Rᵀ with unit-norm R rounds to ~1e-18.
constexpr double kInertiaTol = 1e-14;

std::filesystem::path assetPath(const std::string& name) {
  // tests/scene/<this file> → repository root → assets/urdf/<name>
  return std::filesystem::path(__FILE__).parent_path().parent_path().parent_path() / "assets" /
         "urdf" / name;
}

/// Writes `text` to a file unique to the running test and returns its path.
std::filesystem::path writeTemp(const std::string& text, const std::string& suffix = "") {
  const auto* info = testing::UnitTest::GetInstance()->current_test_info();
  const std::filesystem::path dir = std::filesystem::path(testing::TempDir()) / "rbs_urdf_tests";
  std::filesystem::create_directories(dir);
  const std::filesystem::path p =
      dir / (std::string(info->test_suite_name()) + "_" + info->name() + suffix + ".urdf");
  std::ofstream(p) << text;
  return p;
}

Model importAndBuild(const std::filesystem::path& file, const UrdfOptions& options = {},
                     UrdfSummary* summary = nullptr) {
  ModelBuilder b;
  const UrdfSummary s = importUrdf(file, b, options);
  if (summary) *summary = s;
  return b.build();
}

/// R_z(yaw) R_y(pitch) R_x(roll) from Eigen's axis-angle rotations (independent of rbs).
Mat3 rpy(double roll, double pitch, double yaw) {
  return (Eigen::AngleAxisd(yaw, Vec3::UnitZ()) * Eigen::AngleAxisd(pitch, Vec3::UnitY()) *
          Eigen::AngleAxisd(roll, Vec3::UnitX()))
      .toRotationMatrix();
}

Mat4 homogeneous(const Mat3& R, const Vec3& r) {
  Mat4 G = Mat4::Identity();
  G.topLeftCorner<3, 3>() = R;
  G.topRightCorner<3, 1>() = r;
  return G;
}

/// Max-abs difference of the link pose against an expected 4×4 transform.
double poseError(const Pose& G, const Mat4& expected) {
  return (G.matrix() - expected).cwiseAbs().maxCoeff();
}

// ---- (a) double pendulum ----------------------------------------------------------------------
// The closed form of tests/core/test_pendulum.cpp (Lagrange with φ₁ = θ₁, φ₂ = θ₁ + θ₂):
// a = m₁l₁²/3 + m₂l₁², b = m₂l₁l₂/2, d = m₂l₂²/3, C = cos θ₂, S = sin θ₂,
//   M = [a + 2bC + d, bC + d; bC + d, d],  c = [−bS(2θ̇₁θ̇₂ + θ̇₂²); bS θ̇₁²],
//   f_G = g [(m₁/2 + m₂) l₁ sin θ₁ + m₂l₂/2 sin(θ₁+θ₂); m₂l₂/2 sin(θ₁+θ₂)].
// The URDF gives the rods a tiny axial moment (1e-6 of the transverse one) about z; with the axes
// along y it never enters M.
struct DoublePendulum {
  double m1 = 1.2, m2 = 0.7, l1 = 0.9, l2 = 0.6;  // as written in assets/urdf/double_pendulum.urdf

  void terms(const Eigen::Vector2d& q, const Eigen::Vector2d& qd, Eigen::Matrix2d& M,
             Eigen::Vector2d& c, Eigen::Vector2d& fG) const {
    const double a = m1 * l1 * l1 / 3 + m2 * l1 * l1, b = m2 * l1 * l2 / 2, d = m2 * l2 * l2 / 3;
    const double C = std::cos(q(1)), S = std::sin(q(1));
    M << a + 2 * b * C + d, b * C + d, b * C + d, d;
    c << -b * S * (2 * qd(0) * qd(1) + qd(1) * qd(1)), b * S * qd(0) * qd(0);
    fG << kG * ((m1 / 2 + m2) * l1 * std::sin(q(0)) + m2 * l2 / 2 * std::sin(q(0) + q(1))),
        kG * m2 * l2 / 2 * std::sin(q(0) + q(1));
  }
};

TEST(UrdfImport, DoublePendulumMatchesTheTextbookEquationsAndTheHandBuiltModel) {
  const DoublePendulum dp;
  UrdfSummary summary;
  const Model m = importAndBuild(assetPath("double_pendulum.urdf"), {}, &summary);
  EXPECT_EQ(summary.robot_name, "double_pendulum");
  EXPECT_EQ(summary.root_link, "world");
  EXPECT_EQ(summary.root_body, "link1");
  ASSERT_EQ(m.numBodies(), 2);
  ASSERT_EQ(m.nxi, 2);
  ASSERT_EQ(m.jointIndex("shoulder"), 0);
  ASSERT_EQ(m.jointIndex("elbow"), 1);
  EXPECT_EQ(m.joints[0].type, JointType::Revolute);
  EXPECT_EQ(m.joints[0].parent, -1);
  // Continuous joints: no limits in the file, none in the model.
  EXPECT_FALSE(m.joint_limits[0].has_value());
  EXPECT_EQ(m.visuals.size(), 2u);

  const Model ref = test::doublePendulum(dp.m1, dp.m2, dp.l1, dp.l2);
  Workspace ws(m), ws_ref(ref);
  test::Rng rng(303);
  double max_err = 0.0, max_err_ref = 0.0;
  for (int trial = 0; trial < 25; ++trial) {
    const Eigen::Vector2d q(test::uniform(rng, -kPi, kPi), test::uniform(rng, -kPi, kPi));
    const Eigen::Vector2d qd(test::uniform(rng, -3, 3), test::uniform(rng, -3, 3));
    VecX x = m.neutralState().x;
    x(m.joints[0].x_offset) = q(0);
    x(m.joints[1].x_offset) = q(1);
    const VecX xi = qd;
    ASSERT_EQ(computeForwardDynamics(m, x, xi, VecX(), ws), DynamicsStatus::Ok);
    ASSERT_EQ(computeForwardDynamics(ref, x, xi, VecX(), ws_ref), DynamicsStatus::Ok);
    test::computeEquationTerms(m, ws);
    test::computeEquationTerms(ref, ws_ref);
    Eigen::Matrix2d M;
    Eigen::Vector2d c, fG;
    dp.terms(q, qd, M, c, fG);
    EXPECT_MATRIX_NEAR(ws.mass_matrix, M, kTermTol) << "q = " << q.transpose();
    EXPECT_MATRIX_NEAR(ws.inertial_forces, c, kTermTol) << "q = " << q.transpose();
    EXPECT_MATRIX_NEAR(ws.gravity_forces, fG, kTermTol) << "q = " << q.transpose();
    EXPECT_MATRIX_NEAR(ws.mass_matrix, ws_ref.mass_matrix, kTermTol);
    EXPECT_MATRIX_NEAR(ws.inertial_forces, ws_ref.inertial_forces, kTermTol);
    EXPECT_MATRIX_NEAR(ws.gravity_forces, ws_ref.gravity_forces, kTermTol);
    max_err = std::max({max_err, (ws.mass_matrix - M).cwiseAbs().maxCoeff(),
                        (ws.inertial_forces - c).cwiseAbs().maxCoeff(),
                        (ws.gravity_forces - fG).cwiseAbs().maxCoeff()});
    max_err_ref =
        std::max({max_err_ref, (ws.mass_matrix - ws_ref.mass_matrix).cwiseAbs().maxCoeff(),
                  (ws.inertial_forces - ws_ref.inertial_forces).cwiseAbs().maxCoeff(),
                  (ws.gravity_forces - ws_ref.gravity_forces).cwiseAbs().maxCoeff()});
  }
  test::recordError("max_term_error_closed_form", max_err);
  test::recordError("max_term_error_hand_built", max_err_ref);
  std::cout << "double pendulum: max |term − closed form| = " << max_err
            << ", max |term − hand-built model| = " << max_err_ref << "\n";
}

// ---- (b) the 7-DoF arm ------------------------------------------------------------------------
// The values written in assets/urdf/arm7.urdf, copied here by hand.
struct ArmJoint {
  const char* name;
  Vec3 xyz, rpy, axis;
  double lower, upper, effort, velocity;
};
const std::array<ArmJoint, 7> kArmJoints{{
    {"joint1", {0, 0, 0.15}, {0, 0, 0}, {0, 0, 1}, -2.96, 2.96, 176, 1.71},
    {"joint2", {0, 0, 0.20}, {0, 0, 0}, {0, 1, 0}, -2.09, 2.09, 176, 1.71},
    {"joint3", {0, 0, 0.22}, {0, 0, 0.3}, {0, 0, 1}, -2.96, 2.96, 110, 1.75},
    {"joint4", {0, 0, 0.20}, {0, 0, 0}, {0, -1, 0}, -2.09, 2.09, 110, 2.27},
    {"joint5", {0, 0.01, 0.20}, {-0.2, 0.1, 0}, {0, 0, 1}, -2.96, 2.96, 110, 2.44},
    {"joint6", {0, 0, 0.18}, {0, 0, 0}, {0, 1, 0}, -2.09, 2.09, 40, 3.14},
    {"joint7", {0, 0, 0.08}, {0, 0, 0}, {0, 0, 1}, -3.05, 3.05, 40, 3.14},
}};
struct ArmLink {
  const char* name;
  double mass;
  Vec3 xyz, rpy;
  double ixx, ixy, ixz, iyy, iyz, izz;
};
const std::array<ArmLink, 7> kArmLinks{{
    {"link1",
     4.0,
     {0, -0.01, 0.10},
     {0, 0, 0},
     0.018229,
     5.5e-05,
     -0.000336,
     0.019448,
     -0.001508,
     0.010048},
    {"link2",
     3.5,
     {0.005, 0.02, 0.09},
     {0, 0, 0},
     0.015422,
     0.000346,
     -0.000429,
     0.016453,
     0.000705,
     0.007475},
    {"link3",
     3.0,
     {0, 0.01, 0.11},
     {0.15, -0.1, 0.4},
     0.014302,
     -0.00047,
     -0.002073,
     0.01526,
     -0.002588,
     0.006622},
    {"link4",
     2.5,
     {0, -0.015, 0.09},
     {0, 0, 0},
     0.009675,
     -0.000312,
     -0.001773,
     0.01087,
     -0.001056,
     0.004502},
    {"link5",
     1.8,
     {0.002, 0.008, 0.08},
     {-0.3, 0.2, 0.05},
     0.005988,
     -3.7e-05,
     -1.9e-05,
     0.00629,
     0.000829,
     0.00242},
    {"link6",
     1.0,
     {0, 0.005, 0.04},
     {0, 0.25, 0},
     0.001345,
     -2.6e-05,
     -5e-06,
     0.001421,
     -9.1e-05,
     0.001033},
    {"link7", 0.5, {0, 0, 0.025}, {0, 0, 0}, 0.000306, -2e-06, 1.4e-05, 0.000328, 0, 0.000398},
}};

TEST(UrdfImport, Arm7HasSevenBodiesLimitsAndTheInertiasOfTheFile) {
  UrdfSummary summary;
  const Model m = importAndBuild(assetPath("arm7.urdf"), {}, &summary);
  EXPECT_EQ(summary.robot_name, "arm7");
  EXPECT_EQ(summary.root_link, "base_link");
  EXPECT_EQ(summary.root_body, "link1");
  ASSERT_EQ(m.numBodies(), 7);
  ASSERT_EQ(m.nxi, 7);
  ASSERT_EQ(m.nx, 7);
  for (const ArmJoint& aj : kArmJoints) {
    const int j = m.jointIndex(aj.name);
    ASSERT_GE(j, 0) << aj.name;
    EXPECT_EQ(m.joints[j].type, JointType::Revolute) << aj.name;
    ASSERT_TRUE(m.joint_limits[j].has_value()) << aj.name;
    const JointLimits& l = *m.joint_limits[j];
    EXPECT_EQ(l.lower, aj.lower) << aj.name;
    EXPECT_EQ(l.upper, aj.upper) << aj.name;
    EXPECT_EQ(l.effort, aj.effort) << aj.name;
    EXPECT_EQ(l.velocity, aj.velocity) << aj.name;
  }
  EXPECT_EQ(m.joints[m.jointIndex("joint1")].parent, -1);  // base_link (massless root) = world
  double max_err = 0.0;
  for (const ArmLink& al : kArmLinks) {
    const int b = m.bodyIndex(al.name);
    ASSERT_GE(b, 0) << al.name;
    EXPECT_EQ(m.bodies[b].mass, al.mass) << al.name;
    EXPECT_MATRIX_NEAR(m.bodies[b].com, al.xyz, 0.0) << al.name;
    Mat3 I;
    I << al.ixx, al.ixy, al.ixz, al.ixy, al.iyy, al.iyz, al.ixz, al.iyz, al.izz;
    const Mat3 R = rpy(al.rpy.x(), al.rpy.y(), al.rpy.z());
    const Mat3 expected = R * I * R.transpose();
    EXPECT_MATRIX_NEAR(m.bodies[b].inertia_com, expected, kInertiaTol) << al.name;
    max_err = std::max(max_err, (m.bodies[b].inertia_com - expected).cwiseAbs().maxCoeff());
  }
  // The rotated inertial frames really change the tensor (the test above would not notice an
  // ignored rpy on links with rpy = 0).
  const ArmLink& l3 = kArmLinks[2];
  Mat3 I3;
  I3 << l3.ixx, l3.ixy, l3.ixz, l3.ixy, l3.iyy, l3.iyz, l3.ixz, l3.iyz, l3.izz;
  EXPECT_GT((m.bodies[m.bodyIndex("link3")].inertia_com - I3).cwiseAbs().maxCoeff(), 1e-4);
  test::recordError("max_inertia_error", max_err);

  // Visuals: 11 shapes, colours from the named materials and one inline material.
  ASSERT_EQ(m.visuals.size(), 11u);
  const Visual& v1 = m.visuals[0];
  EXPECT_EQ(v1.body, m.bodyIndex("link1"));
  EXPECT_EQ(v1.shape, Visual::Shape::Cylinder);
  EXPECT_MATRIX_NEAR(v1.size, Vec3(0.07, 0.20, 0.0), 0.0);
  EXPECT_MATRIX_NEAR(v1.color, Vec4(0.6, 0.6, 0.62, 1.0), 1e-7);  // urdfdom stores float
  const Visual& tip = m.visuals.back();
  EXPECT_EQ(tip.body, m.bodyIndex("link7"));
  EXPECT_EQ(tip.shape, Visual::Shape::Box);
  EXPECT_MATRIX_NEAR(tip.size, Vec3(0.03, 0.08, 0.03), 0.0);
  EXPECT_MATRIX_NEAR(tip.color, Vec4(0.1, 0.6, 0.9, 1.0), 1e-7);
  EXPECT_MATRIX_NEAR(tip.origin.r, Vec3(0, 0, 0.065), 0.0);
  int spheres = 0;
  for (const Visual& v : m.visuals) spheres += v.shape == Visual::Shape::Sphere;
  EXPECT_EQ(spheres, 1);
}

TEST(UrdfImport, Arm7BodyPosesEqualTheHandComposedJointTransforms) {
  const Model m = importAndBuild(assetPath("arm7.urdf"));
  Workspace ws(m);
  test::Rng rng(404);
  double max_err = 0.0;
  for (int trial = 0; trial < 20; ++trial) {
    VecX x = m.neutralState().x;
    std::array<double, 7> q{};
    for (int i = 0; i < 7; ++i) {
      q[i] = test::uniform(rng, kArmJoints[i].lower, kArmJoints[i].upper);
      x(m.joints[m.jointIndex(kArmJoints[i].name)].x_offset) = q[i];
    }
    computeKinematics(m, x, VecX::Zero(m.nxi), ws);
    // ^0 G_link_k = Π_{i ≤ k} Trans(xyz_i) R_z R_y R_x(rpy_i) Rot(axis_i/|axis_i|, q_i).
    Mat4 G = Mat4::Identity();
    for (int i = 0; i < 7; ++i) {
      const ArmJoint& aj = kArmJoints[i];
      G = G * homogeneous(rpy(aj.rpy.x(), aj.rpy.y(), aj.rpy.z()), aj.xyz) *
          homogeneous(Eigen::AngleAxisd(q[i], aj.axis.normalized()).toRotationMatrix(),
                      Vec3::Zero());
      const int b = m.bodyIndex(kArmLinks[i].name);
      const double err = poseError(ws.pose[b], G);
      EXPECT_LT(err, kPoseTol) << kArmLinks[i].name << " at trial " << trial;
      max_err = std::max(max_err, err);
    }
  }
  test::recordError("max_pose_error", max_err);
  std::cout << "arm7: max |G_b − hand-composed| = " << max_err << "\n";
  // The arm is a real robot: its mass matrix is SPD at a random state.
  const State s = test::randomState(m, rng);
  ASSERT_EQ(computeForwardDynamics(m, s.x, s.xi, VecX(), ws), DynamicsStatus::Ok);
}

// ---- (c) rotated inertial frame ---------------------------------------------------------------
constexpr const char* kSingleLink = R"(<?xml version="1.0"?>
<robot name="single">
  <link name="body">
    <inertial>
      <origin xyz="0.1 -0.2 0.3" rpy="0 0 1.5707963267948966"/>
      <mass value="2.0"/>
      <inertia ixx="0.1" ixy="0" ixz="0" iyy="0.2" iyz="0" izz="0.25"/>
    </inertial>
  </link>
  <link name="tilted">
    <inertial>
      <origin xyz="0 0 0" rpy="0.3 -0.5 1.1"/>
      <mass value="1.0"/>
      <inertia ixx="0.04" ixy="0.002" ixz="-0.001" iyy="0.05" iyz="0.003" izz="0.07"/>
    </inertial>
  </link>
  <joint name="hinge" type="continuous">
    <parent link="body"/>
    <child link="tilted"/>
    <origin xyz="0 0 0.5"/>
    <axis xyz="1 0 0"/>
  </joint>
</robot>
)";

TEST(UrdfImport, RotatedInertialFrameRotatesTheInertiaIntoLinkAxes) {
  const Model m = importAndBuild(writeTemp(kSingleLink));
  ASSERT_EQ(m.numBodies(), 2);
  // Yaw 90°: the inertial frame's x is the link's y, so ixx and iyy swap (hand value).
  const Body& body = m.bodies[m.bodyIndex("body")];
  EXPECT_MATRIX_NEAR(body.inertia_com, Vec3(0.2, 0.1, 0.25).asDiagonal().toDenseMatrix(),
                     kInertiaTol);
  EXPECT_MATRIX_NEAR(body.com, Vec3(0.1, -0.2, 0.3), 0.0);
  EXPECT_EQ(body.mass, 2.0);
  // A general rotation with off-diagonal terms: R I Rᵀ with R = R_z(1.1) R_y(−0.5) R_x(0.3).
  Mat3 I;
  I << 0.04, 0.002, -0.001, 0.002, 0.05, 0.003, -0.001, 0.003, 0.07;
  const Mat3 R = rpy(0.3, -0.5, 1.1);
  const Mat3 expected = R * I * R.transpose();
  const Body& tilted = m.bodies[m.bodyIndex("tilted")];
  EXPECT_MATRIX_NEAR(tilted.inertia_com, expected, kInertiaTol);
  // The axis (link x) moment enters M directly: M = e_xᵀ R I Rᵀ e_x (CoM on the axis).
  Workspace ws(m);
  VecX x = m.neutralState().x;
  x(0) = 0.7;
  ASSERT_EQ(computeForwardDynamics(m, x, VecX::Zero(1), VecX(), ws), DynamicsStatus::Ok);
  computeMassMatrix(m, ws);
  EXPECT_NEAR(ws.mass_matrix(0, 0), expected(0, 0), kInertiaTol);
  EXPECT_GT(std::abs(expected(0, 0) - I(0, 0)), 1e-3);  // the rotation matters
  test::recordError("inertia_error", (tilted.inertia_com - expected).cwiseAbs().maxCoeff());
  // The root had mass: it is fixed to the world by "<root>_to_world".
  const int root_joint = m.jointIndex("body_to_world");
  ASSERT_GE(root_joint, 0);
  EXPECT_EQ(m.joints[root_joint].type, JointType::Fixed);
}

// ---- (d) floating base ------------------------------------------------------------------------
TEST(UrdfImport, FloatingBaseAddsAFreeRootJoint) {
  const std::filesystem::path file = writeTemp(kSingleLink);
  UrdfSummary summary;
  const Model m = importAndBuild(file, {.floating_base = true}, &summary);
  EXPECT_EQ(summary.root_body, "body");
  const int j = m.jointIndex("body_to_world");
  ASSERT_GE(j, 0);
  EXPECT_EQ(m.joints[j].type, JointType::Free);
  EXPECT_EQ(m.nxi, 6 + 1);
  const Model fixed = importAndBuild(file);
  EXPECT_EQ(m.nxi - fixed.nxi, 6);
}

TEST(UrdfImport, FloatingBaseUnderAMasslessRootFloatsTheOneBodyFixedToIt) {
  // world (massless) —fixed→ mount (massless) —fixed→ base (mass) —revolute→ arm.
  const std::string text = R"(<robot name="r">
  <link name="world"/>
  <link name="mount"/>
  <link name="base"><inertial><mass value="3"/><inertia ixx="0.1" iyy="0.1" izz="0.1" ixy="0" ixz="0" iyz="0"/></inertial></link>
  <link name="arm"><inertial><origin xyz="0 0 0.2"/><mass value="1"/><inertia ixx="0.01" iyy="0.01" izz="0.002" ixy="0" ixz="0" iyz="0"/></inertial></link>
  <joint name="world_mount" type="fixed"><parent link="world"/><child link="mount"/><origin xyz="0 0 1" rpy="0 0 0.5"/></joint>
  <joint name="mount_base" type="fixed"><parent link="mount"/><child link="base"/><origin xyz="0.2 0 0"/></joint>
  <joint name="shoulder" type="revolute"><parent link="base"/><child link="arm"/><axis xyz="0 1 0"/>
    <limit lower="-1" upper="1" effort="0" velocity="0"/></joint>
</robot>)";
  const std::filesystem::path file = writeTemp(text);
  UrdfSummary summary;
  const Model m = importAndBuild(file, {.floating_base = true}, &summary);
  EXPECT_EQ(summary.root_link, "world");
  EXPECT_EQ(summary.root_body, "base");
  ASSERT_EQ(m.numBodies(), 2);
  EXPECT_EQ(m.nxi, 7);
  const int j = m.jointIndex("base_to_world");
  ASSERT_GE(j, 0);
  EXPECT_EQ(m.joints[j].type, JointType::Free);
  // At the neutral state the base sits where the fixed chain puts it.
  Workspace ws(m);
  computeKinematics(m, m.neutralState().x, VecX::Zero(m.nxi), ws);
  const Mat4 expected =
      homogeneous(rpy(0, 0, 0.5), Vec3(0, 0, 1)) * homogeneous(Mat3::Identity(), Vec3(0.2, 0, 0));
  EXPECT_LT(poseError(ws.pose[m.bodyIndex("base")], expected), kPoseTol);
  // Effort and velocity 0 mean "not given".
  const JointLimits& l = *m.joint_limits[m.jointIndex("shoulder")];
  EXPECT_EQ(l.lower, -1.0);
  EXPECT_EQ(l.upper, 1.0);
  EXPECT_GT(l.effort, 1e100);
  EXPECT_GT(l.velocity, 1e100);
  // Without the option the chain is fixed to the world by the URDF's own joint.
  const Model fixed = importAndBuild(file);
  EXPECT_EQ(fixed.nxi, 1);
  EXPECT_EQ(fixed.joints[fixed.bodyIndex("base")].type, JointType::Fixed);
}

TEST(UrdfImport, FloatingBaseWithoutMassAtTheRootIsAnErrorAtTheRootLink) {
  // arm7's root is massless and carries joint1 (moving): nothing with mass is fixed to it.
  ModelBuilder b;
  try {
    importUrdf(assetPath("arm7.urdf"), b, {.floating_base = true});
    FAIL() << "expected SceneError";
  } catch (const SceneError& e) {
    EXPECT_NE(std::string(e.what()).find("link 'base_link': is massless and so is every link fixed to it"), std::string::npos)
        << e.what();
    EXPECT_EQ(e.line(), 13) << e.what();
  }
}

// ---- massless fixed links, planar and prismatic joints ----------------------------------------
TEST(UrdfImport, MasslessFixedLinksAreFoldedIntoTheirParent) {
  // base —fixed→ flange (massless, with a visual) —revolute→ tool; and a massless leaf frame.
  const std::string text = R"(<robot name="r">
  <link name="base"><inertial><mass value="2"/><inertia ixx="0.02" iyy="0.02" izz="0.02" ixy="0" ixz="0" iyz="0"/></inertial></link>
  <link name="flange"><visual><origin xyz="0 0 0.01"/><geometry><mesh filename="package://arm/meshes/flange.stl" scale="0.001 0.001 0.001"/></geometry></visual></link>
  <link name="tool"><inertial><mass value="0.5"/><inertia ixx="0.001" iyy="0.001" izz="0.001" ixy="0" ixz="0" iyz="0"/></inertial></link>
  <link name="tcp"/>
  <joint name="base_flange" type="fixed"><parent link="base"/><child link="flange"/><origin xyz="0 0 0.3" rpy="0.4 0 0"/></joint>
  <joint name="tool_joint" type="revolute"><parent link="flange"/><child link="tool"/><origin xyz="0.1 0 0"/><axis xyz="0 0 2"/>
    <limit lower="-1" upper="1" effort="5" velocity="2"/></joint>
  <joint name="tcp_joint" type="fixed"><parent link="tool"/><child link="tcp"/><origin xyz="0 0 0.1"/></joint>
</robot>)";
  const std::filesystem::path file = writeTemp(text);
  // package://arm/… is the folder "arm" beside the URDF (found searching upward)
  const std::filesystem::path mesh = file.parent_path() / "arm" / "meshes" / "flange.stl";
  std::filesystem::create_directories(mesh.parent_path());
  test::writeAsciiStlBox(mesh, Vec3(100, 100, 10));
  const Model m = importAndBuild(file);
  ASSERT_EQ(m.numBodies(), 2);
  EXPECT_EQ(m.bodyIndex("flange"), -1);
  EXPECT_EQ(m.bodyIndex("tcp"), -1);
  const Joint& j = m.joints[m.jointIndex("tool_joint")];
  EXPECT_EQ(j.parent, m.bodyIndex("base"));
  EXPECT_MATRIX_NEAR(j.axis, Vec3::UnitZ(), 0.0);  // normalized
  Workspace ws(m);
  VecX x = m.neutralState().x;
  x(j.x_offset) = 0.6;
  computeKinematics(m, x, VecX::Zero(m.nxi), ws);
  const Mat4 expected = homogeneous(rpy(0.4, 0, 0), Vec3(0, 0, 0.3)) *
                        homogeneous(Mat3::Identity(), Vec3(0.1, 0, 0)) *
                        homogeneous(rpy(0, 0, 0.6), Vec3::Zero());
  EXPECT_LT(poseError(ws.pose[m.bodyIndex("tool")], expected), kPoseTol);
  // The flange's mesh moved to the base with the composed origin, its file found (then the tool's
  // inertia box: it has no <visual>).
  ASSERT_EQ(m.visuals.size(), 2u);
  const Visual& v = m.visuals[0];
  EXPECT_EQ(v.body, m.bodyIndex("base"));
  EXPECT_EQ(v.shape, Visual::Shape::Mesh);
  EXPECT_EQ(v.mesh_file, mesh.lexically_normal().string());
  EXPECT_MATRIX_NEAR(v.size, Vec3::Constant(0.001), 0.0);
  EXPECT_MATRIX_NEAR(v.origin.r, rpy(0.4, 0, 0) * Vec3(0, 0, 0.01) + Vec3(0, 0, 0.3), 1e-15);
}

TEST(UrdfImport, PlanarJointMovesInThePlaneNormalToItsAxisAndPrismaticAlongItsAxis) {
  const std::string text = R"(<robot name="r">
  <link name="world"/>
  <link name="slider"><inertial><mass value="1"/><inertia ixx="0.01" iyy="0.01" izz="0.01" ixy="0" ixz="0" iyz="0"/></inertial></link>
  <link name="puck"><inertial><mass value="1"/><inertia ixx="0.01" iyy="0.01" izz="0.01" ixy="0" ixz="0" iyz="0"/></inertial></link>
  <joint name="rail" type="prismatic"><parent link="world"/><child link="slider"/><origin xyz="0 0 1"/>
    <axis xyz="0 3 4"/><limit lower="-0.5" upper="0.5" effort="100" velocity="1"/></joint>
  <joint name="table" type="planar"><parent link="slider"/><child link="puck"/><origin xyz="0.2 0 0" rpy="0 0.3 0"/>
    <axis xyz="1 0 0"/></joint>
</robot>)";
  const Model m = importAndBuild(writeTemp(text));
  ASSERT_EQ(m.nxi, 1 + 3);
  const Joint& rail = m.joints[m.jointIndex("rail")];
  const Joint& table = m.joints[m.jointIndex("table")];
  EXPECT_EQ(rail.type, JointType::Prismatic);
  EXPECT_EQ(table.type, JointType::Planar);
  EXPECT_FALSE(m.joint_limits[m.jointIndex("table")].has_value());
  Workspace ws(m);
  // Neutral: the puck frame is the URDF joint frame.
  computeKinematics(m, m.neutralState().x, VecX::Zero(m.nxi), ws);
  const Mat4 slider0 = homogeneous(Mat3::Identity(), Vec3(0, 0, 1));
  const Mat4 joint_frame = homogeneous(rpy(0, 0.3, 0), Vec3(0.2, 0, 0));
  EXPECT_LT(poseError(ws.pose[m.bodyIndex("puck")], slider0 * joint_frame), kPoseTol);
  // Moved: the slider by 0.3 along (0, 0.6, 0.8); the puck translates in the joint frame's y-z
  // plane (normal x) and turns about x.
  test::Rng rng(505);
  for (int trial = 0; trial < 5; ++trial) {
    VecX x = m.neutralState().x;
    const double d = test::uniform(rng, -0.5, 0.5);
    x(rail.x_offset) = d;
    x(table.x_offset) = test::uniform(rng, -1, 1);
    x(table.x_offset + 1) = test::uniform(rng, -1, 1);
    x(table.x_offset + 2) = test::uniform(rng, -kPi, kPi);
    computeKinematics(m, x, VecX::Zero(m.nxi), ws);
    const Mat4 slider = homogeneous(Mat3::Identity(), Vec3(0, 0, 1) + d * Vec3(0, 0.6, 0.8));
    EXPECT_LT(poseError(ws.pose[m.bodyIndex("slider")], slider), kPoseTol);
    const Pose rel = Pose::fromMatrix(joint_frame).inverse() * Pose::fromMatrix(slider).inverse() *
                     ws.pose[m.bodyIndex("puck")];
    EXPECT_NEAR(rel.r.x(), 0.0, kPoseTol) << "translation leaves the plane";
    EXPECT_LT((rel.R * Vec3::UnitX() - Vec3::UnitX()).norm(), kPoseTol) << "rotation not about x";
    const double turned = std::atan2(rel.R(2, 1), rel.R(1, 1));
    EXPECT_NEAR(std::abs(std::remainder(turned, 2 * kPi)),
                std::abs(std::remainder(x(table.x_offset + 2), 2 * kPi)), 1e-12);
    EXPECT_NEAR(rel.r.norm(), std::hypot(x(table.x_offset), x(table.x_offset + 1)), 1e-12);
  }
}

TEST(UrdfImport, JointDampingIsViscousDampingInTheEquationsOfMotion) {
  // A rod pendulum (m, l, hinge about y at its end) with <dynamics damping="d"/>: the textbook
  // q̈ = (−m g l/2 sin q − d q̇) / (m l²/3). Damping on a fixed joint moves nothing and is dropped.
  const double m = 2.0, l = 0.8, d = 0.3;
  const std::string text = R"(<robot name="r">
  <link name="world"/>
  <link name="rod"><inertial><origin xyz="0 0 -0.4"/><mass value="2"/>
    <inertia ixx="0.10666666666666667" iyy="0.10666666666666667" izz="1e-6" ixy="0" ixz="0" iyz="0"/></inertial></link>
  <link name="tip"><inertial><mass value="1e-9"/><inertia ixx="1e-12" iyy="1e-12" izz="1e-12" ixy="0" ixz="0" iyz="0"/></inertial></link>
  <joint name="hinge" type="continuous"><parent link="world"/><child link="rod"/><axis xyz="0 1 0"/>
    <dynamics damping="0.3" friction="0.05"/></joint>
  <joint name="weld" type="fixed"><parent link="rod"/><child link="tip"/><origin xyz="0 0 -0.8"/>
    <dynamics damping="5"/></joint>
</robot>)";
  const Model model = importAndBuild(writeTemp(text));
  ASSERT_EQ(model.nxi, 1);
  ASSERT_EQ(model.joint_spring_dampers.size(), 1u);
  EXPECT_EQ(model.joint_spring_dampers[0].joint, model.jointIndex("hinge"));
  EXPECT_EQ(model.joint_spring_dampers[0].damping, d);
  EXPECT_EQ(model.joint_spring_dampers[0].stiffness, 0.0);
  Workspace ws(model);
  const double tip = 1e-9;  // the tip's point mass at l
  for (const auto& [q, qd] : {std::pair{0.4, 1.5}, std::pair{-2.0, -0.7}, std::pair{3.0, 0.0}}) {
    VecX x = model.neutralState().x, xi(1);
    x(0) = q;
    xi << qd;
    ASSERT_EQ(computeForwardDynamics(model, x, xi, VecX(), ws), DynamicsStatus::Ok);
    const double inertia = m * l * l / 3 + tip * l * l;
    const double expected = (-(m * l / 2 + tip * l) * kG * std::sin(q) - d * qd) / inertia;
    EXPECT_NEAR(ws.xidot(0), expected, 1e-9 * (1 + std::abs(expected))) << "q = " << q << ", q̇ = " << qd;
  }
}

TEST(UrdfImport, JointFrictionIsOptInSmoothCoulombFrictionThatDissipatesWhatTheEnergyLoses) {
  // The rod pendulum with <dynamics damping="0.3" friction="0.05"/>, imported with joint_friction:
  // q̈ = (−m g l/2 sin q − d q̇ − μ tanh(q̇ / 0.01)) / (m l²/3), and along a simulated swing the
  // total energy falls by exactly the dissipated work ∫ q̇ (d q̇ + μ tanh(q̇ / v_s)) dt.
  const double m = 2.0, l = 0.8, d = 0.3, mu = 0.05, vs = 0.01;
  const std::string text = R"(<robot name="r">
  <link name="world"/>
  <link name="rod"><inertial><origin xyz="0 0 -0.4"/><mass value="2"/>
    <inertia ixx="0.10666666666666667" iyy="0.10666666666666667" izz="1e-6" ixy="0" ixz="0" iyz="0"/></inertial></link>
  <joint name="hinge" type="continuous"><parent link="world"/><child link="rod"/><axis xyz="0 1 0"/>
    <dynamics damping="0.3" friction="0.05"/></joint>
</robot>)";
  UrdfSummary summary;
  const Model off = importAndBuild(writeTemp(text), {}, &summary);
  EXPECT_EQ(off.joint_spring_dampers.at(0).friction, 0.0);
  ASSERT_EQ(test::besidesInertiaBoxes(summary.warnings).size(), 1u);
  EXPECT_NE(summary.warnings[0].message.find("joint friction (<dynamics friction>) is off (--joint-friction"), std::string::npos)
      << summary.warnings[0].message;
  const Model model = importAndBuild(writeTemp(text), {.joint_friction = true}, &summary);
  EXPECT_TRUE(test::besidesInertiaBoxes(summary.warnings).empty());
  ASSERT_EQ(model.joint_spring_dampers.size(), 1u);
  EXPECT_EQ(model.joint_spring_dampers[0].friction, mu);
  EXPECT_EQ(model.joint_spring_dampers[0].friction_velocity, vs);
  Workspace ws(model);
  const double inertia = m * l * l / 3;
  auto accel = [&](double q, double qd) {
    VecX x = model.neutralState().x, xi(1);
    x(0) = q;
    xi << qd;
    EXPECT_EQ(computeForwardDynamics(model, x, xi, VecX(), ws), DynamicsStatus::Ok);
    return ws.xidot(0);
  };
  for (const auto& [q, qd] : {std::pair{0.4, 1.5}, std::pair{-2.0, -0.7}, std::pair{3.0, 0.0}, std::pair{1.0, 0.004}}) {
    const double expected = (-m * l / 2 * kG * std::sin(q) - d * qd - mu * std::tanh(qd / vs)) / inertia;
    EXPECT_NEAR(accel(q, qd), expected, 1e-9 * (1 + std::abs(expected))) << "q = " << q << ", q̇ = " << qd;
  }
  // energy balance over 3 s from q = 1.2 (RK4 on q, q̇ and the dissipated work)
  auto energy = [&](double q, double qd) {
    VecX x = model.neutralState().x, xi(1);
    x(0) = q;
    xi << qd;
    computeKinematics(model, x, xi, ws);
    return computeEnergies(model, x, xi, ws).total();
  };
  auto power = [&](double qd) { return qd * (d * qd + mu * std::tanh(qd / vs)); };
  double q = 1.2, qd = 0.0, work = 0.0;
  const double W0 = energy(q, qd), h = 1e-4;
  for (int k = 0; k < 30000; ++k) {
    const double a1 = accel(q, qd), p1 = power(qd);
    const double a2 = accel(q + h / 2 * qd, qd + h / 2 * a1), p2 = power(qd + h / 2 * a1);
    const double a3 = accel(q + h / 2 * (qd + h / 2 * a1), qd + h / 2 * a2), p3 = power(qd + h / 2 * a2);
    const double a4 = accel(q + h * (qd + h / 2 * a2), qd + h * a3), p4 = power(qd + h * a3);
    q += h / 6 * (qd + 2 * (qd + h / 2 * a1) + 2 * (qd + h / 2 * a2) + (qd + h * a3));
    qd += h / 6 * (a1 + 2 * a2 + 2 * a3 + a4);
    work += h / 6 * (p1 + 2 * p2 + 2 * p3 + p4);
  }
  const double lost = W0 - energy(q, qd);
  EXPECT_GT(lost, 1.0);  // the swing decays: most of the 2·9.81·0.4·(1 − cos 1.2) = 5.0 J
  EXPECT_NEAR(lost, work, 1e-6 * lost);
}

TEST(UrdfImport, WhatIsNotModelledIsAWarningWithItsPlaceNotASilentDrop) {
  // Friction (off): one warning for the file, at its first joint with friction, naming them all;
  // damping on a planar joint: one, at the joint. Friction on a fixed joint moves nothing and is
  // not mentioned. The mimic is enforced (a joint coupling), not a warning.
  const std::filesystem::path file = writeTemp(R"(<robot name="r">
  <link name="world"/>
  <link name="a"><inertial><mass value="1"/><inertia ixx="0.01" iyy="0.01" izz="0.01" ixy="0" ixz="0" iyz="0"/></inertial></link>
  <link name="b"><inertial><mass value="1"/><inertia ixx="0.01" iyy="0.01" izz="0.01" ixy="0" ixz="0" iyz="0"/></inertial></link>
  <link name="c"><inertial><mass value="1"/><inertia ixx="0.01" iyy="0.01" izz="0.01" ixy="0" ixz="0" iyz="0"/></inertial></link>
  <link name="d"><inertial><mass value="1"/><inertia ixx="0.01" iyy="0.01" izz="0.01" ixy="0" ixz="0" iyz="0"/></inertial></link>
  <joint name="j1" type="continuous"><parent link="world"/><child link="a"/><axis xyz="0 0 1"/><dynamics friction="0.3"/></joint>
  <joint name="j2" type="prismatic"><parent link="a"/><child link="b"/><axis xyz="1 0 0"/>
    <limit lower="-1" upper="1" effort="1" velocity="1"/><dynamics friction="0.1"/><mimic joint="j1"/></joint>
  <joint name="j3" type="planar"><parent link="b"/><child link="c"/><axis xyz="0 0 1"/><dynamics damping="2"/></joint>
  <joint name="weld" type="fixed"><parent link="c"/><child link="d"/><dynamics friction="1"/></joint>
</robot>)");
  UrdfSummary summary;
  const Model m = importAndBuild(file, {}, &summary);
  EXPECT_TRUE(m.joint_spring_dampers.empty());
  ASSERT_EQ(m.loop_closures.size(), 1u);
  EXPECT_EQ(m.loop_closures[0].kind, LoopClosure::Kind::JointCoupling);
  ASSERT_EQ(test::besidesInertiaBoxes(summary.warnings).size(), 2u);
  for (const SceneWarning& w : summary.warnings) {
    EXPECT_EQ(w.file, file.string());
    std::cout << w.text() << "\n";
  }
  auto contains = [](const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; };
  const SceneWarning& damping = summary.warnings[0];  // in file order; friction comes last, once
  EXPECT_EQ(damping.line, 10);
  EXPECT_TRUE(contains(damping.message, "joint 'j3': <dynamics> on a floating or planar joint is ignored")) << damping.message;
  const SceneWarning& friction = summary.warnings[1];
  EXPECT_EQ(friction.line, 7);
  EXPECT_TRUE(contains(friction.message, "ignored on 2 joints: 'j1', 'j2'")) << friction.message;
  EXPECT_EQ(friction.text().rfind(file.string() + ":7:3: warning: joint friction", 0), 0u) << friction.text();
}

// ---- (e) errors -------------------------------------------------------------------------------
/// Runs importUrdf and returns the SceneError (fails the test if there is none).
SceneError importError(const std::filesystem::path& file) {
  ModelBuilder b;
  try {
    importUrdf(file, b);
  } catch (const SceneError& e) {
    std::cout << "SceneError: " << e.what() << "\n";
    return e;
  }
  ADD_FAILURE() << "expected a SceneError for " << file;
  return SceneError(file.string(), 0, 0, "none");
}

bool contains(const std::string& s, const std::string& part) {
  return s.find(part) != std::string::npos;
}

TEST(UrdfImportErrors, MissingFile) {
  const std::filesystem::path file = std::filesystem::path(testing::TempDir()) / "no_such.urdf";
  const SceneError e = importError(file);
  EXPECT_EQ(e.file(), file.string());
  EXPECT_EQ(e.line(), 0);
  EXPECT_TRUE(contains(e.what(), file.string() + ": ")) << e.what();
  EXPECT_TRUE(contains(e.what(), "not found")) << e.what();
}

TEST(UrdfImportErrors, MalformedXmlIsLocated) {
  const std::filesystem::path file =
      writeTemp("<robot name=\"r\">\n  <link name=\"a\">\n  </lnk>\n</robot>\n");
  const SceneError e = importError(file);
  EXPECT_EQ(e.file(), file.string());
  EXPECT_TRUE(contains(e.what(), "malformed XML")) << e.what();
  EXPECT_GE(e.line(), 2) << e.what();
  EXPECT_TRUE(contains(e.what(), file.string() + ":" + std::to_string(e.line()) + ":")) << e.what();
}

TEST(UrdfImportErrors, DeepNestingIsAnErrorNotAStackOverflow) {
  // TinyXML parses recursively; 200 000 nested elements would overflow the stack.
  std::string text = "<robot name=\"r\">\n";
  for (int i = 0; i < 200000; ++i) text += "<a>";
  const SceneError e = importError(writeTemp(text));
  EXPECT_TRUE(contains(e.what(), "nested more than")) << e.what();
  EXPECT_EQ(e.line(), 2) << e.what();
}

TEST(UrdfImportErrors, NegativeMassIsNamedNotTreatedAsMassless) {
  const SceneError e = importError(writeTemp(R"(<robot name="r">
  <link name="a"><inertial><mass value="1"/><inertia ixx="0.01" iyy="0.01" izz="0.01" ixy="0" ixz="0" iyz="0"/></inertial></link>
  <link name="b"><inertial><mass value="-1"/><inertia ixx="0.01" iyy="0.01" izz="0.01" ixy="0" ixz="0" iyz="0"/></inertial></link>
  <joint name="weld" type="fixed"><parent link="a"/><child link="b"/></joint>
</robot>)"));
  EXPECT_TRUE(contains(e.what(), "link 'b'")) << e.what();
  EXPECT_TRUE(contains(e.what(), "mass is -1 kg")) << e.what();
}

TEST(UrdfImportErrors, ZeroAxisNamesTheJoint) {
  const std::filesystem::path file = writeTemp(R"(<robot name="r">
  <link name="a"><inertial><mass value="1"/><inertia ixx="0.01" iyy="0.01" izz="0.01" ixy="0" ixz="0" iyz="0"/></inertial></link>
  <link name="b"><inertial><mass value="1"/><inertia ixx="0.01" iyy="0.01" izz="0.01" ixy="0" ixz="0" iyz="0"/></inertial></link>
  <joint name="bad_axis" type="continuous"><parent link="a"/><child link="b"/><axis xyz="0 0 0"/></joint>
</robot>)");
  const SceneError e = importError(file);
  EXPECT_EQ(e.file(), file.string());
  EXPECT_TRUE(contains(e.what(), "joint 'bad_axis'")) << e.what();
  EXPECT_TRUE(contains(e.what(), "axis")) << e.what();
  EXPECT_EQ(e.line(), 4) << e.what();
}

TEST(UrdfImportErrors, NegativeJointDampingNamesTheJoint) {
  const std::filesystem::path file = writeTemp(R"(<robot name="r">
  <link name="a"><inertial><mass value="1"/><inertia ixx="0.01" iyy="0.01" izz="0.01" ixy="0" ixz="0" iyz="0"/></inertial></link>
  <link name="b"><inertial><mass value="1"/><inertia ixx="0.01" iyy="0.01" izz="0.01" ixy="0" ixz="0" iyz="0"/></inertial></link>
  <joint name="leaky" type="revolute"><parent link="a"/><child link="b"/><axis xyz="0 0 1"/>
    <limit lower="-1" upper="1" effort="1" velocity="1"/><dynamics damping="-0.2"/></joint>
</robot>)");
  const SceneError e = importError(file);
  EXPECT_TRUE(contains(e.what(), "joint 'leaky'")) << e.what();
  EXPECT_TRUE(contains(e.what(), "damping = -0.2")) << e.what();
  EXPECT_EQ(e.line(), 4) << e.what();
}

TEST(UrdfImportErrors, MasslessLinkOnAMovingJointNamesTheLink) {
  const std::filesystem::path file = writeTemp(R"(<robot name="r">
  <link name="a"><inertial><mass value="1"/><inertia ixx="0.01" iyy="0.01" izz="0.01" ixy="0" ixz="0" iyz="0"/></inertial></link>
  <link name="ghost"/>
  <joint name="spin" type="continuous"><parent link="a"/><child link="ghost"/><axis xyz="0 0 1"/></joint>
</robot>)");
  const SceneError e = importError(file);
  EXPECT_EQ(e.file(), file.string());
  EXPECT_TRUE(contains(e.what(), "link 'ghost'")) << e.what();
  EXPECT_TRUE(contains(e.what(), "'spin'")) << e.what();
  EXPECT_EQ(e.line(), 3) << e.what();
}

TEST(UrdfImportErrors, UrdfdomErrorsAreQuoted) {
  // A revolute joint without <limit>: rejected by urdfdom itself; its reason is in our message.
  const std::filesystem::path file = writeTemp(R"(<robot name="r">
  <link name="a"><inertial><mass value="1"/><inertia ixx="0.01" iyy="0.01" izz="0.01" ixy="0" ixz="0" iyz="0"/></inertial></link>
  <link name="b"><inertial><mass value="1"/><inertia ixx="0.01" iyy="0.01" izz="0.01" ixy="0" ixz="0" iyz="0"/></inertial></link>
  <joint name="nolimit" type="revolute"><parent link="a"/><child link="b"/><axis xyz="0 0 1"/></joint>
</robot>)");
  const SceneError e = importError(file);
  EXPECT_EQ(e.file(), file.string());
  EXPECT_TRUE(contains(e.what(), "invalid URDF")) << e.what();
  EXPECT_TRUE(contains(e.what(), "nolimit")) << e.what();
  EXPECT_TRUE(contains(e.what(), "does not specify limits")) << e.what();
  EXPECT_EQ(e.line(), 4) << e.what();  // located at the <joint> element urdfdom names
}

// Rounding noise in a written tensor is not an error (issue 47: iCub's −1.36e-20 kg m² moment was
// refused): a flat plate whose smallest moment comes out −1e-9 of its largest loads floating, with
// that moment set to 0; −1e-4 of it is still refused (kInertiaRounding = 1e-6). A point mass whose
// moments are all noise (iCub's l_ankle_2: 0.2675 kg, ixz 1.36e-20, so ±1.36e-20) is measured
// against its mass at 1 mm, not against its noise.
TEST(UrdfImport, RoundingNoiseInAnInertiaLoadsAndIsCleaned) {
  auto plate = [](const std::string& izz) {
    return writeTemp(R"(<robot name="r">
  <link name="plate"><inertial><mass value="1"/><inertia ixx="1e-5" iyy="1e-5" izz=")" + izz +
                     R"(" ixy="0" ixz="0" iyz="0"/></inertial></link>
</robot>)");
  };
  ModelBuilder b;
  importUrdf(plate("-1e-14"), b, {.floating_base = true});
  const Model m = b.build();
  EXPECT_EQ(m.bodies[0].inertia_com(2, 2), 0.0);
  EXPECT_EQ(m.bodies[0].inertia_com(0, 0), 1e-5);
  ModelBuilder refused;
  try {
    importUrdf(plate("-1e-9"), refused, {.floating_base = true});
    FAIL() << "expected SceneError";
  } catch (const SceneError& e) {
    EXPECT_TRUE(contains(e.what(), "link 'plate': inertia tensor is not positive semidefinite")) << e.what();
  }
  ModelBuilder point;
  importUrdf(writeTemp(R"(<robot name="r">
  <link name="point"><inertial><mass value="0.2675"/><inertia ixx="0" iyy="0" izz="0" ixy="0" ixz="1.35525e-20" iyz="0"/></inertial></link>
</robot>)"),
             point, {.floating_base = true});
  const Model point_mass = point.build();
  EXPECT_EQ(point_mass.bodies[0].mass, 0.2675);
  EXPECT_EQ(point_mass.bodies[0].inertia_com, Mat3::Zero());
}

// MuJoCo-style lower bounds (issue 47: Romeo's and the Bravo 7's massless fingers on moving
// joints were refused, iCub's point-mass head on three intersecting neck axes has a singular mass
// matrix). Without bounds the refusals name the options; with them the massless finger gets the
// bounds at its origin, the point mass a least moment, and one warning names the bodies raised.
TEST(UrdfImport, BoundsOnMassAndInertiaMakeMasslessAndPointMassLinksSimulable) {
  const std::filesystem::path finger = writeTemp(R"(<robot name="r">
  <link name="world"/>
  <link name="palm"><inertial><mass value="0.5"/><inertia ixx="1e-3" iyy="1e-3" izz="1e-3" ixy="0" ixz="0" iyz="0"/></inertial></link>
  <joint name="mount" type="revolute"><parent link="world"/><child link="palm"/><axis xyz="0 0 1"/><limit lower="-1" upper="1" effort="1" velocity="1"/></joint>
  <link name="finger"/>
  <joint name="curl" type="revolute"><parent link="palm"/><child link="finger"/><origin xyz="0.1 0 0"/><axis xyz="0 1 0"/><limit lower="-1" upper="1" effort="1" velocity="1"/></joint>
</robot>)");
  try {
    importAndBuild(finger);
    FAIL() << "expected SceneError";
  } catch (const SceneError& e) {
    EXPECT_TRUE(contains(e.what(), "link 'finger': has no mass")) << e.what();
    EXPECT_TRUE(contains(e.what(), "--bound-mass and --bound-inertia, scene keys bound_mass and bound_inertia")) << e.what();
  }
  ModelBuilder b;
  const UrdfSummary s = importUrdf(finger, b, {.bound_mass = 0.001, .bound_inertia = 1e-5});
  const Model m = b.build();
  const Body& body = m.bodies[m.bodyIndex("finger")];
  EXPECT_EQ(body.mass, 0.001);
  EXPECT_EQ(body.com, Vec3::Zero());
  EXPECT_MATRIX_NEAR(body.inertia_com, 1e-5 * Mat3::Identity(), 1e-20);
  EXPECT_EQ(m.bodies[m.bodyIndex("palm")].mass, 0.5);  // above the bounds: as written
  ASSERT_EQ(test::besidesInertiaBoxes(s.warnings).size(), 1u);
  EXPECT_TRUE(contains(s.warnings[0].message, "raised the mass or the least principal moment of 1 body: 'finger'"))
      << s.warnings[0].message;

  // A point mass on three intersecting axes (a gimbal): it moves on a sphere, two directions for
  // three joints.
  const std::filesystem::path gimbal = writeTemp(R"(<robot name="g">
  <link name="world"/>
  <link name="a"/><link name="b"/>
  <link name="head"><inertial><origin xyz="0.02 0 0.1"/><mass value="1.3"/><inertia ixx="0" iyy="0" izz="0" ixy="0" ixz="0" iyz="0"/></inertial></link>
  <joint name="pitch" type="revolute"><parent link="world"/><child link="a"/><axis xyz="0 1 0"/><limit lower="-1" upper="1" effort="1" velocity="1"/></joint>
  <joint name="roll" type="revolute"><parent link="a"/><child link="b"/><axis xyz="1 0 0"/><limit lower="-1" upper="1" effort="1" velocity="1"/></joint>
  <joint name="yaw" type="revolute"><parent link="b"/><child link="head"/><axis xyz="0 0 1"/><limit lower="-1" upper="1" effort="1" velocity="1"/></joint>
</robot>)");
  try {
    loadScene(gimbal, LoadOptions{.bound_mass = 0.001});  // the massless a and b get a mass, the head no moment
    FAIL() << "expected SceneError";
  } catch (const SceneError& e) {
    EXPECT_TRUE(contains(e.what(), "the mass matrix is singular")) << e.what();
    EXPECT_TRUE(contains(e.what(), "--bound-mass and --bound-inertia, scene keys bound_mass and bound_inertia")) << e.what();
  }
  EXPECT_EQ(loadScene(gimbal, LoadOptions{.bound_mass = 0.001, .bound_inertia = 1e-5}).model.nxi, 3);
}

// A mesh's negative scale mirrors it (issue 47: every full Talos, TIAGo dual and pro were refused
// as "visual geometry sizes must be ≥ 0"); a primitive's negative size is still an error.
TEST(UrdfImport, NegativeMeshScaleMirrorsAndNegativeBoxSizeIsRefused) {
  test::writeBinaryStlBox(std::filesystem::path(testing::TempDir()) / "rbs_urdf_tests" / "leg.stl", Vec3(0.1, 0.1, 0.4));
  ModelBuilder b;
  importUrdf(writeTemp(R"(<robot name="r"><link name="world"/>
  <link name="leg"><inertial><mass value="1"/><inertia ixx="0.01" iyy="0.01" izz="0.01" ixy="0" ixz="0" iyz="0"/></inertial>
    <visual><geometry><mesh filename="leg.stl" scale="-1 1 1"/></geometry></visual></link>
  <joint name="fix" type="fixed"><parent link="world"/><child link="leg"/></joint>
</robot>)"), b);
  const Model m = b.build();
  ASSERT_EQ(m.visuals.size(), 1u);
  EXPECT_EQ(m.visuals[0].size, Vec3(-1, 1, 1));
  ModelBuilder refused;
  try {
    importUrdf(writeTemp(R"(<robot name="r"><link name="world"/>
  <link name="leg"><inertial><mass value="1"/><inertia ixx="0.01" iyy="0.01" izz="0.01" ixy="0" ixz="0" iyz="0"/></inertial>
    <visual><geometry><box size="-0.1 0.1 0.1"/></geometry></visual></link>
  <joint name="fix" type="fixed"><parent link="world"/><child link="leg"/></joint>
</robot>)", "_box"), refused);
    FAIL() << "expected SceneError";
  } catch (const SceneError& e) {
    EXPECT_TRUE(contains(e.what(), "link 'leg': visual geometry sizes must be finite and ≥ 0")) << e.what();
  }
}

// A link with no <visual> was an empty picture with nothing said (issue 47: a simple humanoid).
// It is drawn as the uniform box with its mass and principal moments (here the 0.2 × 0.1 × 0.4 m
// box of 2 kg the inertia was written from), at its centre of mass, and one warning says so; a
// link with a visual keeps its own.
TEST(UrdfImport, ABodyWithoutVisualIsDrawnAsTheBoxOfItsInertia) {
  ModelBuilder b;
  const UrdfSummary s = importUrdf(writeTemp(R"(<robot name="r">
  <link name="torso"><inertial><origin xyz="0 0 0.1"/><mass value="2"/>
    <inertia ixx="0.0283333333333" iyy="0.0333333333333" izz="0.00833333333333" ixy="0" ixz="0" iyz="0"/></inertial></link>
  <link name="arm"><inertial><mass value="0.5"/><inertia ixx="1e-3" iyy="1e-3" izz="1e-3" ixy="0" ixz="0" iyz="0"/></inertial>
    <visual><geometry><box size="0.05 0.05 0.3"/></geometry></visual></link>
  <joint name="shoulder" type="revolute"><parent link="torso"/><child link="arm"/><origin xyz="0 0.1 0.2"/><axis xyz="0 1 0"/>
    <limit lower="-1" upper="1" effort="1" velocity="1"/></joint>
</robot>)"), b, {.floating_base = true});
  const Model m = b.build();
  ASSERT_EQ(m.visuals.size(), 2u);
  const Visual& box = m.visuals[0].body == m.bodyIndex("torso") ? m.visuals[0] : m.visuals[1];
  const Visual& arm = m.visuals[0].body == m.bodyIndex("torso") ? m.visuals[1] : m.visuals[0];
  EXPECT_EQ(arm.body, m.bodyIndex("arm"));
  EXPECT_EQ(arm.size, Vec3(0.05, 0.05, 0.3));
  EXPECT_EQ(box.shape, Visual::Shape::Box);
  std::array<double, 3> sides{box.size(0), box.size(1), box.size(2)};
  std::sort(sides.begin(), sides.end());
  EXPECT_NEAR(sides[0], 0.1, 1e-9);
  EXPECT_NEAR(sides[1], 0.2, 1e-9);
  EXPECT_NEAR(sides[2], 0.4, 1e-9);
  EXPECT_MATRIX_NEAR(box.origin.r, Vec3(0, 0, 0.1), 1e-12);
  EXPECT_LT(box.color(3), 1.0);  // translucent
  ASSERT_EQ(s.warnings.size(), 1u);
  EXPECT_TRUE(contains(s.warnings[0].message, "1 body has no <visual>: 'torso'; drawn as the translucent box"))
      << s.warnings[0].message;
}

// A body with no <visual> but <collision> elements is drawn as its collision geometry, as peers do
// (the simple humanoid's feet and head), in the default colour; a body with both keeps its visual,
// and a body whose merged links have no visual but one has a collision is drawn from it alone.
TEST(UrdfImport, ABodyWithoutVisualIsDrawnAsItsCollisionGeometry) {
  ModelBuilder b;
  const UrdfSummary s = importUrdf(writeTemp(R"(<robot name="r">
  <link name="torso"><inertial><mass value="2"/><inertia ixx="0.03" iyy="0.03" izz="0.01" ixy="0" ixz="0" iyz="0"/></inertial>
    <collision><origin xyz="0 0 0.1"/><geometry><box size="0.2 0.1 0.4"/></geometry></collision>
    <collision><origin xyz="0 0 0.35"/><geometry><sphere radius="0.08"/></geometry></collision></link>
  <link name="plate"><collision><origin xyz="0 0 -0.1"/><geometry><cylinder radius="0.1" length="0.02"/></geometry></collision></link>
  <joint name="bolt" type="fixed"><parent link="torso"/><child link="plate"/><origin xyz="0 0 -0.1"/></joint>
  <link name="arm"><inertial><mass value="0.5"/><inertia ixx="1e-3" iyy="1e-3" izz="1e-3" ixy="0" ixz="0" iyz="0"/></inertial>
    <visual><geometry><box size="0.05 0.05 0.3"/></geometry></visual>
    <collision><geometry><box size="1 1 1"/></geometry></collision></link>
  <joint name="shoulder" type="revolute"><parent link="torso"/><child link="arm"/><origin xyz="0 0.1 0.2"/><axis xyz="0 1 0"/>
    <limit lower="-1" upper="1" effort="1" velocity="1"/></joint>
</robot>)"), b, {.floating_base = true});
  const Model m = b.build();
  ASSERT_EQ(m.visuals.size(), 4u);
  std::vector<Visual> torso, arm;
  for (const Visual& v : m.visuals) (v.body == m.bodyIndex("torso") ? torso : arm).push_back(v);
  ASSERT_EQ(arm.size(), 1u);
  EXPECT_EQ(arm[0].size, Vec3(0.05, 0.05, 0.3));  // the visual, not the 1 m collision box
  ASSERT_EQ(torso.size(), 3u);
  EXPECT_EQ(torso[0].shape, Visual::Shape::Box);
  EXPECT_EQ(torso[0].size, Vec3(0.2, 0.1, 0.4));
  EXPECT_MATRIX_NEAR(torso[0].origin.r, Vec3(0, 0, 0.1), 1e-12);
  EXPECT_EQ(torso[1].shape, Visual::Shape::Sphere);
  EXPECT_MATRIX_NEAR(torso[1].origin.r, Vec3(0, 0, 0.35), 1e-12);
  EXPECT_EQ(torso[2].shape, Visual::Shape::Cylinder);  // the merged plate's, at its pose in the torso
  EXPECT_MATRIX_NEAR(torso[2].origin.r, Vec3(0, 0, -0.2), 1e-12);
  EXPECT_EQ(torso[0].color, Visual{}.color);  // opaque, the default colour
  ASSERT_EQ(s.warnings.size(), 1u);
  EXPECT_TRUE(contains(s.warnings[0].message, "1 body has no <visual>: 'torso'; drawn as the <collision> geometry of its links, as peers do"))
      << s.warnings[0].message;
}

TEST(UrdfImportErrors, IndefiniteInertiaOfAMovingLinkNamesTheLink) {
  // A negative principal moment (0.01 ± 0.02 in the xy plane) is no mass distribution at all. On a
  // root fixed to the world it would not matter (not validated); floating, it is an error.
  const std::filesystem::path file = writeTemp(R"(<robot name="r">
  <link name="plate"><inertial><mass value="1"/><inertia ixx="0.01" iyy="0.01" izz="0.05" ixy="0.02" ixz="0" iyz="0"/></inertial></link>
</robot>)");
  {
    ModelBuilder b;
    importUrdf(file, b);
    EXPECT_NO_THROW(b.build());
  }
  ModelBuilder b;
  try {
    importUrdf(file, b, {.floating_base = true});
    FAIL() << "expected SceneError";
  } catch (const SceneError& e) {
    EXPECT_TRUE(contains(e.what(), "link 'plate': inertia tensor is not positive semidefinite")) << e.what();
    EXPECT_EQ(e.line(), 2) << e.what();
  }
}

TEST(UrdfImportErrors, SceneErrorFormatsFileLineAndColumn) {
  EXPECT_STREQ(SceneError("a.yaml", 3, 7, "bad").what(), "a.yaml:3:7: bad");
  EXPECT_STREQ(SceneError("a.urdf", 0, 0, "bad").what(), "a.urdf: bad");
  const SceneError e("b.yaml", 2, 5, "msg");
  EXPECT_EQ(e.file(), "b.yaml");
  EXPECT_EQ(e.line(), 2);
  EXPECT_EQ(e.column(), 5);
  EXPECT_EQ(e.message(), "msg");
}

}  // namespace
}  // namespace rbs
