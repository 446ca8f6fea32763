// The scene loader (issue 3): every section and value type of docs/SCENE_FORMAT.md on tiny inline
// scenes, and errors located at file:line:column with the key and what was expected.
#include <gtest/gtest.h>

#include <cmath>
#include <fstream>
#include <numbers>
#include <sstream>

#include "core/dynamics/dynamics.h"
#include "core/io/resource_path.h"
#include "core/scene/mass_properties.h"
#include "tests/scene/scene_test_util.h"
#include "tests/support/matrix_compare.h"
#include "tests/support/test_models.h"

namespace rbs {
namespace {

using test::SceneDir;
constexpr double kPi = std::numbers::pi;
// Closed-form values computed in double precision: agreement to rounding.
constexpr double kExact = 1e-12;

/// One body "b" on a joint of the given YAML (indented as a list element under joints:).
std::string oneBody(const std::string& joint_yaml) {
  return "name: t\n"
         "bodies:\n"
         "  - {name: b, mass: 2.0, inertia: [0.1, 0.2, 0.25, 0, 0, 0]}\n"
         "joints:\n" +
         joint_yaml;
}

// ---- mass properties --------------------------------------------------------------------------

class SceneLoader : public SceneDir {};

TEST_F(SceneLoader, BoxFromDensity) {
  const Scene s = load(
      "name: t\n"
      "bodies:\n"
      "  - name: b\n"
      "    solid: {box: [0.3, 0.1, 0.2], density: 1000}\n"
      "joints: [{name: j, type: fixed, child: b}]\n");
  const Body& b = s.model.bodies[0];
  const double m = 1000 * 0.3 * 0.1 * 0.2;  // 6 kg
  EXPECT_NEAR(b.mass, m, kExact);
  EXPECT_MATRIX_NEAR(b.com, Vec3::Zero(), 0.0);
  const Vec3 I = m / 12 * Vec3(0.01 + 0.04, 0.09 + 0.04, 0.09 + 0.01);
  EXPECT_MATRIX_NEAR(b.inertia_com, Mat3(I.asDiagonal()), kExact);
}

TEST_F(SceneLoader, CylinderSphereCapsuleFromMassAndOrigin) {
  const Scene s = load(
      "name: t\n"
      "bodies:\n"
      "  - name: cyl\n"
      "    solid: {cylinder: {radius: 0.1, length: 0.6}, mass: 3, origin: {xyz: [0, 0, -0.3], rpy: [1.5707963267948966, 0, 0]}}\n"
      "  - name: ball\n"
      "    solid: {sphere: {radius: 0.2}, mass: 5}\n"
      "  - name: cap\n"
      "    solid: {capsule: {radius: 0.1, length: 0.4}, density: 1000}\n"
      "joints:\n"
      "  - {name: j1, type: fixed, child: cyl}\n"
      "  - {name: j2, type: fixed, child: ball}\n"
      "  - {name: j3, type: fixed, child: cap}\n");
  const Model& m = s.model;
  // Cylinder: axis along z of the origin, rotated onto −y of the body by roll π/2.
  const Body& cyl = m.bodies[m.bodyIndex("cyl")];
  EXPECT_NEAR(cyl.mass, 3.0, kExact);
  EXPECT_MATRIX_NEAR(cyl.com, Vec3(0, 0, -0.3), kExact);
  const double transverse = 3.0 * (3 * 0.01 + 0.36) / 12, axial = 0.5 * 3.0 * 0.01;
  EXPECT_MATRIX_NEAR(cyl.inertia_com, Mat3(Vec3(transverse, axial, transverse).asDiagonal()), kExact);
  const Body& ball = m.bodies[m.bodyIndex("ball")];
  EXPECT_MATRIX_NEAR(ball.inertia_com, Mat3(Vec3::Constant(0.4 * 5 * 0.04).asDiagonal()), kExact);
  // Capsule r = 0.1, l = 0.4: cylinder part ρπr²l, two hemispheres ρ 4/3 π r³.
  const Body& cap = m.bodies[m.bodyIndex("cap")];
  const double mc = 1000 * kPi * 0.01 * 0.4, ms = 1000 * 4.0 / 3.0 * kPi * 0.001;
  EXPECT_NEAR(cap.mass, mc + ms, 1e-9);
  const double cap_t = mc * (3 * 0.01 + 0.16) / 12 + ms * (0.4 * 0.01 + 0.25 * 0.16 + 0.375 * 0.4 * 0.1);
  const double cap_a = 0.5 * mc * 0.01 + 0.4 * ms * 0.01;
  EXPECT_MATRIX_NEAR(cap.inertia_com, Mat3(Vec3(cap_t, cap_t, cap_a).asDiagonal()), 1e-10);
}

TEST(MassProperties, CapsuleOfZeroLengthIsASphere) {
  const Solid capsule{SolidShape::Capsule, Vec3(0.3, 0.0, 0.0), Pose()};
  const Solid sphere{SolidShape::Sphere, Vec3(0.3, 0.0, 0.0), Pose()};
  EXPECT_NEAR(solidVolume(capsule), solidVolume(sphere), kExact);
  EXPECT_MATRIX_NEAR(solidCentralInertia(capsule, 2.0), solidCentralInertia(sphere, 2.0), kExact);
}

TEST_F(SceneLoader, MassInertiaAndCom) {
  const Scene s = load(
      "name: t\n"
      "bodies:\n"
      "  - {name: b, mass: 2.0, com: [0.1, 0, -0.2], inertia: [0.1, 0.2, 0.25, 0, 0, 0]}\n"
      "joints: [{name: j, type: fixed, child: b}]\n");
  const Body& b = s.model.bodies[0];
  EXPECT_EQ(b.mass, 2.0);
  EXPECT_MATRIX_NEAR(b.com, Vec3(0.1, 0, -0.2), 0.0);
  EXPECT_MATRIX_NEAR(b.inertia_com, Mat3(Vec3(0.1, 0.2, 0.25).asDiagonal()), 0.0);
}

// ---- poses and rotations ----------------------------------------------------------------------

TEST_F(SceneLoader, AllRotationSpellingsAgree) {
  const Mat3 R = rotationZYX(0.3, -0.2, 0.5);
  const Vec4 q = rotationToQuaternion(R);
  const Vec3 aa = logSO3(R);
  std::ostringstream y;
  y.precision(17);
  y << "name: t\nbodies:\n";
  for (int i = 0; i < 4; ++i) y << "  - {name: b" << i << ", mass: 1, inertia: [1, 1, 1, 0, 0, 0]}\n";
  y << "joints:\n"
    << "  - {name: j0, type: fixed, child: b0, origin: {xyz: [1, 2, 3], rpy: [0.3, -0.2, 0.5]}}\n"
    << "  - {name: j1, type: fixed, child: b1, origin: {rotation: {quaternion: [" << q[0] << ", " << q[1] << ", "
    << q[2] << ", " << q[3] << "]}}}\n"
    << "  - {name: j2, type: fixed, child: b2, origin: {rotation: {matrix: [[" << R(0, 0) << ", " << R(0, 1) << ", "
    << R(0, 2) << "], [" << R(1, 0) << ", " << R(1, 1) << ", " << R(1, 2) << "], [" << R(2, 0) << ", " << R(2, 1)
    << ", " << R(2, 2) << "]]}}}\n"
    << "  - {name: j3, type: fixed, child: b3, child_origin: {xyz: [0, 0, -1], rotation: {axis: ["
    << aa.normalized()[0] << ", " << aa.normalized()[1] << ", " << aa.normalized()[2] << "], angle: " << aa.norm()
    << "}}}\n";
  const Model m = load(y.str()).model;
  EXPECT_MATRIX_NEAR(m.joints[0].parent_placement.r, Vec3(1, 2, 3), 0.0);
  for (int i = 0; i < 3; ++i) EXPECT_MATRIX_NEAR(m.joints[i].parent_placement.R, R, 1e-14) << i;
  EXPECT_MATRIX_NEAR(m.joints[3].child_placement.R, R, 1e-14);
  EXPECT_MATRIX_NEAR(m.joints[3].child_placement.r, Vec3(0, 0, -1), 0.0);
}

// ---- joints and initial values ----------------------------------------------------------------

TEST_F(SceneLoader, JointTypesAndCoordinateChoices) {
  struct Case {
    std::string yaml;
    JointType type;
  };
  const std::vector<Case> cases = {
      {"type: fixed", JointType::Fixed},
      {"type: revolute", JointType::Revolute},
      {"type: revolute, coordinates: unit_circle", JointType::RevoluteUnitCircle},
      {"type: revolute_unit_circle", JointType::RevoluteUnitCircle},
      {"type: prismatic", JointType::Prismatic},
      {"type: spherical", JointType::Spherical},
      {"type: spherical, coordinates: quaternion", JointType::SphericalQuaternion},
      {"type: spherical, coordinates: euler_zyx", JointType::SphericalEulerZYX},
      {"type: spherical, velocity: absolute", JointType::SphericalAbsolute},
      {"type: free", JointType::Free},
      {"type: free, coordinates: quaternion", JointType::FreeQuaternion},
      {"type: planar", JointType::Planar},
      {"type: universal, axis: [1, 0, 0], axis2: [0, 1, 0]", JointType::Universal},
  };
  for (const auto& c : cases) {
    const Scene s = load(oneBody("  - {name: j, parent: world, child: b, " + c.yaml + "}\n"));
    EXPECT_EQ(s.model.joints[0].type, c.type) << c.yaml;
  }
}

TEST_F(SceneLoader, InitialValuesPerJointType) {
  {  // revolute: angle → x, rate → ξ; limits
    const Model m = load(oneBody("  - name: j\n    type: revolute\n    child: b\n    axis: [0, 1, 0]\n"
                                 "    initial: {position: 0.3, velocity: -1.5}\n"
                                 "    limits: {lower: -1, upper: 2, effort: 10, velocity: 5}\n"))
                        .model;
    EXPECT_EQ(m.initial_state.x(0), 0.3);
    EXPECT_EQ(m.initial_state.xi(0), -1.5);
    ASSERT_TRUE(m.joint_limits[0].has_value());
    EXPECT_EQ(m.joint_limits[0]->lower, -1);
    EXPECT_EQ(m.joint_limits[0]->upper, 2);
    EXPECT_EQ(m.joint_limits[0]->effort, 10);
    EXPECT_EQ(m.joint_limits[0]->velocity, 5);
    EXPECT_MATRIX_NEAR(m.joints[0].axis, Vec3::UnitY(), 0.0);
  }
  {  // unit circle: (cos, sin)
    const Model m = load(oneBody("  - {name: j, type: revolute, coordinates: unit_circle, child: b, "
                                 "initial: {position: 0.7}}\n"))
                        .model;
    EXPECT_NEAR(m.initial_state.x(0), std::cos(0.7), kExact);
    EXPECT_NEAR(m.initial_state.x(1), std::sin(0.7), kExact);
  }
  {  // spherical with rotation matrix and with quaternion coordinates
    const Mat3 R = rotationZYX(0.1, 0.2, 0.3);
    const Model m = load(oneBody("  - {name: j, type: spherical, child: b, initial: {rotation: {rpy: [0.1, 0.2, 0.3]}, "
                                 "angular_velocity: [1, 2, 3]}}\n"))
                        .model;
    EXPECT_MATRIX_NEAR(Eigen::Map<const Mat3>(m.initial_state.x.data()), R, kExact);
    EXPECT_MATRIX_NEAR(m.initial_state.xi, Vec3(1, 2, 3), 0.0);
    const Model mq = load(oneBody("  - {name: j, type: spherical, coordinates: quaternion, child: b, "
                                  "initial: {rotation: {rpy: [0.1, 0.2, 0.3]}}}\n"))
                         .model;
    EXPECT_MATRIX_NEAR(quaternionToRotation(mq.initial_state.x.head<4>()), R, kExact);
    const Model me = load(oneBody("  - {name: j, type: spherical, coordinates: euler_zyx, child: b, "
                                  "initial: {rotation: {rpy: [0.1, 0.2, 0.3]}, angular_velocity: [0.5, 0, 0]}}\n"))
                         .model;
    EXPECT_MATRIX_NEAR(me.initial_state.x, Vec3(0.1, 0.2, 0.3), kExact);
  }
  {  // free: pose and body twist
    const Model m = load(oneBody("  - {name: j, type: free, child: b, initial: {pose: {xyz: [1, 2, 3], rotation: "
                                 "{axis: [0, 0, 1], angle: 0.5}}, twist: [1, 0, 0, 0, 0, 2]}}\n"))
                        .model;
    EXPECT_MATRIX_NEAR(m.initial_state.x.head<3>(), Vec3(1, 2, 3), 0.0);
    EXPECT_MATRIX_NEAR(Eigen::Map<const Mat3>(m.initial_state.x.data() + 3),
                       axisAngleRotation(Vec3::UnitZ(), 0.5), kExact);
    Vec6 twist;
    twist << 1, 0, 0, 0, 0, 2;
    EXPECT_MATRIX_NEAR(m.initial_state.xi, twist, 0.0);
  }
  {  // planar and universal keep their angles as given (no wrap)
    const Model m = load(oneBody("  - {name: j, type: planar, child: b, initial: {position: [1, 2, 4.0], "
                                 "velocity: [0.1, 0.2, 0.3]}}\n"))
                        .model;
    EXPECT_MATRIX_NEAR(m.initial_state.x, Vec3(1, 2, 4.0), 0.0);
    EXPECT_MATRIX_NEAR(m.initial_state.xi, Vec3(0.1, 0.2, 0.3), 0.0);
    const Model u = load(oneBody("  - {name: j, type: universal, child: b, axis: [1, 0, 0], axis2: [0, 1, 0], "
                                 "initial: {position: [0.3, -0.4], velocity: [1, 2]}}\n"))
                        .model;
    EXPECT_MATRIX_NEAR(u.initial_state.x, Eigen::Vector2d(0.3, -0.4), 0.0);
    EXPECT_MATRIX_NEAR(u.initial_state.xi, Eigen::Vector2d(1, 2), 0.0);
  }
}

// ---- a whole scene against the C++ model ------------------------------------------------------

TEST_F(SceneLoader, DoublePendulumEqualsTheBuilderModel) {
  const double m1 = 1.0, m2 = 1.5, l1 = 1.0, l2 = 0.8;
  std::ostringstream y;
  y.precision(17);
  auto body = [&](const char* name, double m, double l) {
    const double I = m * l * l / 12.0;
    y << "  - {name: " << name << ", mass: " << m << ", com: [0, 0, " << -l / 2 << "], inertia: [" << I << ", " << I
      << ", " << 1e-6 * I << ", 0, 0, 0]}\n";
  };
  y << "name: Double pendulum\nbodies:\n";
  body("link1", m1, l1);
  body("link2", m2, l2);
  y << "joints:\n"
    << "  - {name: shoulder, type: revolute, parent: world, child: link1, axis: [0, 1, 0]}\n"
    << "  - {name: elbow, type: revolute, parent: link1, child: link2, axis: [0, 1, 0], origin: {xyz: [0, 0, "
    << -l1 << "]}}\n";
  const Model a = load(y.str()).model;
  const Model b = test::doublePendulum(m1, m2, l1, l2);
  ASSERT_EQ(a.nx, b.nx);
  ASSERT_EQ(a.nxi, b.nxi);
  Workspace wa(a), wb(b);
  test::Rng rng(31);
  for (int trial = 0; trial < 10; ++trial) {
    const State s = test::randomState(b, rng, 2.0);
    ASSERT_EQ(computeForwardDynamics(a, s.x, s.xi, VecX(), wa), DynamicsStatus::Ok);
    ASSERT_EQ(computeForwardDynamics(b, s.x, s.xi, VecX(), wb), DynamicsStatus::Ok);
    test::computeEquationTerms(a, wa);
    test::computeEquationTerms(b, wb);
    EXPECT_MATRIX_NEAR(wa.mass_matrix, wb.mass_matrix, kExact);
    EXPECT_MATRIX_NEAR(wa.inertial_forces, wb.inertial_forces, kExact);
    EXPECT_MATRIX_NEAR(wa.gravity_forces, wb.gravity_forces, kExact);
  }
}

// ---- force elements, actuators, settings ------------------------------------------------------

TEST_F(SceneLoader, ForceElementsActuatorsAndSettings) {
  const Scene s = load(R"(name: All sections
description: every section once
gravity: [0, 0, -1.62]
bodies:
  - {name: base, mass: 2, inertia: [0.1, 0.1, 0.1, 0, 0, 0]}
  - name: arm
    solid: {box: [0.1, 0.1, 1], mass: 1, origin: {xyz: [0, 0, -0.5]}}
    visuals:
      - {box: [0.1, 0.1, 1], origin: {xyz: [0, 0, -0.5]}, color: [1, 0, 0, 0.5]}
      - {mesh: {file: meshes/propeller.obj, scale: [2, 2, 2]}}
      - {capsule: {radius: 0.05, length: 1}, color: [0, 1, 0]}
joints:
  - {name: root, type: free, child: base}
  - {name: elbow, type: revolute, parent: base, child: arm, axis: [1, 0, 0]}
springs:
  - name: tether
    frames: [world, {body: base, origin: {xyz: [0, 0, 0.1]}}]
    stiffness: 100
    center: [0, 0, 0.1]
    rotational_stiffness: [1, 2, 3, 0.1, 0, 0]
    rest: {xyz: [0, 0, 1]}
dampers:
  - {name: air, frames: [world, base], damping: 0.3, rotational_damping: [0.1, 0.1, 0.1, 0, 0, 0]}
joint_springs:
  - {joint: elbow, stiffness: 5.0, rest_position: 0.2, damping: 0.1}
loop_closures:
  - {name: pin, type: ball, frames: [world, {body: arm, origin: {xyz: [0, 0, -1]}}], frequency: 10, damping: 0.7}
external_wrenches:
  - {body: base, point: [0, 0, 0], force: [0, 0, 1], torque: [0, 0, 0.5], axes: world}
actuators:
  - {name: elbow_motor, type: joint_effort, joint: elbow, limits: [-10, 10]}
  - {name: thrust, type: body_force, body: base, point: [0.2, 0, 0], direction: [0, 0, 1], limits: [0, 8]}
  - {name: yaw, type: body_torque, body: base, direction: [0, 0, 1]}
controller:
  name: prototype_body
  parameters: {omega: 4.0, zeta: 1}
reference:
  generator: circle
  parameters: {radius: 1.0, center: [0, 0, 1]}
integrator: {stepper: rk_dopri5, dt: 0.002, rtol: 1e-6, atol: 1e-7, drift: stabilize, stabilization_gain: 5, t_end: 3, dt_out: 0.05}
plots:
  - {title: Energies, channels: [energy.kinetic, energy.total]}
camera: {mode: follow, target: base, distance: 4, azimuth: 0.1, elevation: 0.2}
)");
  const Model& m = s.model;
  EXPECT_EQ(s.name, "All sections");
  EXPECT_EQ(s.description, "every section once");
  EXPECT_MATRIX_NEAR(m.gravity, Vec3(0, 0, -1.62), 0.0);
  ASSERT_EQ(m.visuals.size(), 3u);
  EXPECT_EQ(m.visuals[0].shape, Visual::Shape::Box);
  EXPECT_MATRIX_NEAR(m.visuals[0].color, Vec4(1, 0, 0, 0.5), 0.0);
  // relative to the scene file (a temporary folder), then to assets/
  EXPECT_EQ(m.visuals[1].mesh_file, (defaultAssetsDir() / "meshes/propeller.obj").lexically_normal().string());
  EXPECT_MATRIX_NEAR(m.visuals[1].size, Vec3(2, 2, 2), 0.0);
  EXPECT_MATRIX_NEAR(m.visuals[2].size, Vec3(0.05, 1, 0), 0.0);
  EXPECT_MATRIX_NEAR(m.visuals[2].color, Vec4(0, 1, 0, 1), 0.0);
  ASSERT_EQ(m.springs.size(), 1u);
  EXPECT_EQ(m.springs[0].a.body, -1);
  EXPECT_MATRIX_NEAR(m.springs[0].b.offset.r, Vec3(0, 0, 0.1), 0.0);
  Mat3 Pi_s;
  Pi_s << 1, 0.1, 0, 0.1, 2, 0, 0, 0, 3;
  EXPECT_MATRIX_NEAR(m.springs[0].stiffness, rigidBodyStiffness(100, Vec3(0, 0, 0.1), Pi_s), kExact);
  EXPECT_MATRIX_NEAR(m.springs[0].rest.r, Vec3(0, 0, 1), 0.0);
  ASSERT_EQ(m.dampers.size(), 1u);
  ASSERT_EQ(m.joint_spring_dampers.size(), 1u);
  EXPECT_EQ(m.joint_spring_dampers[0].rest_position, 0.2);
  ASSERT_EQ(m.loop_closures.size(), 1u);
  EXPECT_EQ(m.loop_closures[0].kind, LoopClosure::Kind::Ball);
  EXPECT_EQ(m.loop_closures[0].stabilization_frequency, 10);
  ASSERT_EQ(m.external_wrenches.size(), 1u);
  EXPECT_TRUE(m.external_wrenches[0].world_axes);
  ASSERT_EQ(m.numInputs(), 3);
  EXPECT_EQ(m.actuators[0].kind, ActuatorKind::JointEffort);
  EXPECT_EQ(m.actuators[0].lower, -10);
  EXPECT_EQ(m.actuators[1].kind, ActuatorKind::BodyForce);
  EXPECT_MATRIX_NEAR(m.actuators[1].point, Vec3(0.2, 0, 0), 0.0);
  EXPECT_EQ(m.actuators[2].kind, ActuatorKind::BodyTorque);
  EXPECT_EQ(s.controller.name, "prototype_body");
  EXPECT_EQ(s.controller.parameters.at("omega"), 4.0);
  EXPECT_EQ(s.reference.generator, "circle");
  EXPECT_EQ(s.reference.parameters.at("center"), (std::vector<double>{0, 0, 1}));
  EXPECT_EQ(s.reference.parameters.at("radius"), (std::vector<double>{1.0}));
  EXPECT_EQ(s.integrator.stepper, "rk_dopri5");
  EXPECT_EQ(s.integrator.dt, 0.002);
  EXPECT_EQ(s.integrator.drift, "stabilize");
  EXPECT_EQ(s.integrator.stabilization_gain, 5);
  EXPECT_EQ(s.integrator.dt_out, 0.05);
  ASSERT_EQ(s.plots.size(), 1u);
  EXPECT_EQ(s.plots[0].channels[1], "energy.total");
  EXPECT_EQ(s.camera.mode, "follow");
  EXPECT_EQ(s.camera.target_body, "base");
  EXPECT_EQ(s.camera.distance, 4);
}

TEST_F(SceneLoader, IncludesAUrdfAndLoadsUrdfFiles) {
  write("arm.urdf", R"(<?xml version="1.0"?>
<robot name="tiny_arm">
  <link name="base">
    <inertial><mass value="2"/><inertia ixx="0.1" iyy="0.1" izz="0.1" ixy="0" ixz="0" iyz="0"/></inertial>
  </link>
  <link name="link">
    <inertial><origin xyz="0 0 -0.5"/><mass value="1"/><inertia ixx="0.1" iyy="0.1" izz="0.01" ixy="0" ixz="0" iyz="0"/></inertial>
  </link>
  <joint name="hinge" type="revolute">
    <parent link="base"/><child link="link"/><axis xyz="0 1 0"/>
    <limit lower="-1" upper="1" effort="5" velocity="2"/>
  </joint>
</robot>
)");
  const Scene s = load(
      "name: with urdf\n"
      "include: arm.urdf\n"
      "bodies: [{name: tool, mass: 0.1, inertia: [0.001, 0.001, 0.001, 0, 0, 0]}]\n"
      "joints: [{name: tool_mount, type: fixed, parent: link, child: tool, origin: {xyz: [0, 0, -1]}}]\n");
  EXPECT_EQ(s.model.numBodies(), 3);
  EXPECT_EQ(s.model.nxi, 1);
  const Scene floating = loadScene(write("s2.yaml", "name: f\ninclude: arm.urdf\nfloating_base: true\n"));
  EXPECT_EQ(floating.model.nxi, 7);
  const Scene direct = loadScene(dir_ / "arm.urdf", {"gravity=[0, 0, -1]"}, true);
  EXPECT_EQ(direct.name, "tiny_arm");
  EXPECT_EQ(direct.model.nxi, 7);
  EXPECT_MATRIX_NEAR(direct.model.gravity, Vec3(0, 0, -1), 0.0);
  // Initial values of URDF joints through --set.
  const Scene set = loadScene(dir_ / "arm.urdf", {"joint.hinge.position=0.3", "joint.hinge.velocity=-1"});
  ASSERT_EQ(set.model.nx, 1);
  EXPECT_EQ(set.model.initial_state.x(0), 0.3);
  EXPECT_EQ(set.model.initial_state.xi(0), -1.0);
  SceneDir::expectFileError(dir_ / "arm.urdf", 0, 0, {"--set joint.hinje.position=1", "did you mean 'hinge'?"},
                            {"joint.hinje.position=1"});
}

TEST_F(SceneLoader, EveryExampleOfTheFormatDocumentLoads) {
  std::ifstream in(std::filesystem::path(RBS_SOURCE_DIR) / "docs" / "SCENE_FORMAT.md");
  std::stringstream ss;
  ss << in.rdbuf();
  const std::string doc = ss.str();
  const auto examples = doc.find("## Examples");
  ASSERT_NE(examples, std::string::npos);
  // Written as if in scenes/, so that "../assets/..." resolves.
  std::filesystem::create_directories(dir_ / "scenes");
  std::filesystem::create_directory_symlink(std::filesystem::path(RBS_SOURCE_DIR) / "assets", dir_ / "assets");
  int count = 0;
  for (auto pos = doc.find("```yaml\n", examples); pos != std::string::npos; pos = doc.find("```yaml\n", pos)) {
    const auto begin = pos + 8, end = doc.find("```", begin);
    const auto file = write("scenes/example" + std::to_string(count++) + ".yaml", doc.substr(begin, end - begin));
    EXPECT_NO_THROW(loadScene(file)) << doc.substr(begin, end - begin);
    pos = end + 3;
  }
  EXPECT_GE(count, 6);
}

// ---- overrides ----------------------------------------------------------------------------------

TEST_F(SceneLoader, OverridesReplaceAndAddValues) {
  const std::string yaml =
      "name: t\n"
      "bodies:\n"
      "  - {name: b, mass: 2.0, inertia: [0.1, 0.2, 0.25, 0, 0, 0]}\n"
      "joints:\n"
      "  - {name: elbow, type: revolute, child: b}\n"
      "controller: {name: pd, parameters: {kp: 1}}\n"
      "integrator: {dt: 0.01}\n";
  const Scene s = load(yaml, {"body.b.mass=3", "joint.elbow.position=0.3", "joints.elbow.initial.velocity=2",
                              "controller.kp=4", "controller.parameters.kd=0.5", "integrator.dt=1e-4",
                              "gravity=[0,0,-1.62]", "integrator.stepper=euler", "name=renamed"});
  EXPECT_EQ(s.model.bodies[0].mass, 3.0);
  EXPECT_EQ(s.model.initial_state.x(0), 0.3);
  EXPECT_EQ(s.model.initial_state.xi(0), 2.0);
  EXPECT_EQ(s.controller.parameters.at("kp"), 4.0);
  EXPECT_EQ(s.controller.parameters.at("kd"), 0.5);
  EXPECT_EQ(s.integrator.dt, 1e-4);
  EXPECT_EQ(s.integrator.stepper, "euler");
  EXPECT_MATRIX_NEAR(s.model.gravity, Vec3(0, 0, -1.62), 0.0);
  EXPECT_EQ(s.name, "renamed");
}

// ---- errors ---------------------------------------------------------------------------------------

TEST_F(SceneLoader, UnknownKeyWithSuggestion) {
  expectError("name: t\nbodies:\n  - name: b\n    masss: 1\n", 4, 5,
              {"body.b", "unknown key 'masss'", "did you mean 'mass'?"});
  expectError("name: t\nintegrater: {dt: 1}\n", 2, 1, {"unknown key 'integrater'", "did you mean 'integrator'?"});
  expectError(oneBody("  - {name: j, type: revolut, child: b}\n"), 5, 21,
              {"joint.j.type", "expected one of", "did you mean 'revolute'?"});
}

TEST_F(SceneLoader, WrongTypes) {
  expectError("name: t\ngravity: down\n", 2, 10, {"gravity", "expected a list of 3 numbers, got a string 'down'"});
  expectError("name: t\ngravity: [0, 0]\n", 2, 10, {"gravity", "expected a list of 3 numbers, got a list of 2"});
  expectError("name: t\nbodies:\n  - {name: b, mass: heavy, inertia: [1, 1, 1, 0, 0, 0]}\n", 3, 21,
              {"body.b.mass", "expected a number, got a string 'heavy'"});
  expectError("name: t\nbodies:\n  - {name: b, mass: \"1\", inertia: [1, 1, 1, 0, 0, 0]}\n", 3, 21,
              {"expected a number, got a string '1'"});
  expectError("name: t\nbodies: {b: 1}\n", 2, 9, {"bodies", "expected a list, got a map"});
}

TEST_F(SceneLoader, MissingRequiredKeys) {
  expectError("bodies: []\n", 1, 1, {"missing required key 'name'"});
  expectError("name: t\nbodies:\n  - {name: b, mass: 1}\n", 3, 5, {"body.b", "missing required key 'inertia'"});
  expectError(oneBody("  - {name: j, type: revolute}\n"), 5, 5, {"joint.j", "missing required key 'child'"});
  expectError("name: t\nbodies:\n  - name: b\n    solid: {box: [1, 1, 1]}\n", 4, 12,
              {"body.b.solid", "mass | density"});
}

TEST_F(SceneLoader, BuilderErrorsPointAtTheElement) {
  // Negative mass: the builder's ModelError, located at the body's mass.
  expectError("name: t\nbodies:\n  - name: b\n    mass: -2\n    inertia: [1, 1, 1, 0, 0, 0]\n"
              "joints: [{name: j, type: fixed, child: b}]\n",
              4, 11, {"body 'b'", "mass is -2 kg", "≥ 0"});
  // A joint to a body that does not exist: at the joint's child.
  expectError(oneBody("  - {name: j, type: revolute, child: b}\n  - {name: k, type: fixed, parent: b, child: ghost}\n"),
              6, 46, {"joint 'k'", "child body 'ghost' does not exist"});
  // A non-unit axis (the loader checks it, with the tolerance of docs/SCENE_FORMAT.md): at the axis.
  expectError(oneBody("  - name: j\n    type: revolute\n    child: b\n    axis: [0, 1, 1]\n"), 8, 11,
              {"joint.j.axis", "norm 1.41421", "unit vector"});
  // Duplicate names: at the second one.
  expectError("name: t\nbodies:\n  - {name: b, mass: 1, inertia: [1, 1, 1, 0, 0, 0]}\n"
              "  - {name: b, mass: 1, inertia: [1, 1, 1, 0, 0, 0]}\n",
              4, 12, {"'b' is used by more than one body", "line 3"});
}

TEST_F(SceneLoader, RotationsMustBeRotations) {
  expectError(oneBody("  - {name: j, type: fixed, child: b, origin: {rotation: {matrix: [[1, 0, 0], [0, 1, 0], [0, 0.5, 1]]}}}\n"),
              5, 66, {"joint.j.origin.rotation.matrix", "not a rotation matrix", "det +1"});
  expectError(oneBody("  - {name: j, type: fixed, child: b, origin: {rotation: {matrix: [[-1, 0, 0], [0, 1, 0], [0, 0, 1]]}}}\n"),
              5, 66, {"not a rotation matrix", "det = -1"});
  expectError(oneBody("  - {name: j, type: fixed, child: b, origin: {rotation: {quaternion: [1, 1, 0, 0]}}}\n"), 5, 70,
              {"quaternion has norm 1.41", "unit quaternion"});
  expectError(oneBody("  - {name: j, type: fixed, child: b, origin: {rpy: [0, 0, 0], rotation: {rpy: [0, 0, 0]}}}\n"), 5, 63,
              {"exclude each other"});
}

TEST_F(SceneLoader, NonFiniteAndHugeNumbers) {
  expectError("name: t\ngravity: [0, .nan, -9.81]\n", 2, 14, {"gravity[1]", "expected a finite number, got NaN"});
  expectError("name: t\ngravity: [0, -.inf, -9.81]\n", 2, 14, {"gravity[1]", "infinity"});
  expectError("name: t\ngravity: [0, 1e999, -9.81]\n", 2, 14, {"out of the range"});
  expectError("name: t\nbodies:\n  - name: b\n    solid: {box: [1e200, 1e200, 1e200], density: 1}\n", 4, 12,
              {"not a positive finite number"});
}

TEST_F(SceneLoader, NotYamlAtAll) {
  expectError("", 0, 0, {"the file is empty"});
  expectError("# only a comment\n", 0, 0, {"the file is empty"});
  std::string garbage = "name: t\n";
  for (int i = 0; i < 256; ++i) garbage += static_cast<char>((i * 73 + 11) % 256);
  expectError(garbage, 2, 0, {"binary file"});
  expectError("name: t\ndescription: caf\xe9\n", 2, 17, {"invalid UTF-8"});
  expectError("name: t\ngravity: [0, 0\n", 3, 1, {"YAML syntax error"});
  expectError("- 1\n- 2\n", 1, 1, {"expected a scene", "got a list"});
  expectError("name: a\n---\nname: b\n", 0, 0, {"2 YAML documents"});
  expectError("name: a\nname: b\n", 2, 1, {"duplicate key 'name'", "line 1"});
  SceneDir::expectFileError(dir_ / "missing.yaml", 0, 0, {"no such file"});
}

TEST_F(SceneLoader, DeepNestingIsAnErrorNotACrash) {
  const std::string flow(100000, '[');
  expectError(flow, 1, 65, {"nested more than 64 levels"});
  std::string block;
  for (int i = 0; i < 100000; ++i) block += "- ";
  expectError(block, 1, 0, {"nested more than 64 levels"});
  std::string maps;
  for (int i = 0; i < 80; ++i) maps += std::string(2 * i, ' ') + "a:\n";
  expectError(maps, 65, 0, {"nested more than 64 levels"});
  // Aliases that expand exponentially ("billion laughs") are bounded too.
  std::string laughs = "a0: &a0 [x, x, x, x, x, x, x, x, x, x]\n";
  for (int i = 1; i < 9; ++i) {
    laughs += "a" + std::to_string(i) + ": &a" + std::to_string(i) + " [";
    for (int k = 0; k < 10; ++k) laughs += std::string(k ? ", " : "") + "*a" + std::to_string(i - 1);
    laughs += "]\n";
  }
  expectError(laughs, 0, 0, {"more than 1000000 values"});
}

TEST_F(SceneLoader, BadOverrides) {
  const std::string yaml = oneBody("  - {name: elbow, type: revolute, child: b}\n");
  expectError(yaml, 0, 0, {"--set joint.elbw.position=1", "no element named 'elbw'", "did you mean 'elbow'?"},
              {"joint.elbw.position=1"});
  expectError(yaml, 0, 0, {"--set integrator.dtt=1", "unknown key 'dtt'", "did you mean 'dt'?"}, {"integrator.dtt=1"});
  expectError(yaml, 0, 0, {"--set body.b.mass=abc", "body.b.mass", "expected a number"}, {"body.b.mass=abc"});
  expectError(yaml, 0, 0, {"--set nonsense", "expected PATH=VALUE"}, {"nonsense"});
  expectError(yaml, 0, 0, {"--set name.first=x", "holds a single value"}, {"name.first=x"});
  expectError(yaml, 0, 0, {"--set body.b.mass=-1", "mass is -1 kg"}, {"body.b.mass=-1"});
  expectError(yaml, 0, 0, {"--set gravity=[0, 0", "not valid YAML"}, {"gravity=[0, 0"});
}

}  // namespace
}  // namespace rbs

namespace rbs {
namespace {

class SceneUnitVectors : public test::SceneDir {};

TEST_F(SceneUnitVectors, AxesWithinTheDocumentedToleranceAreNormalizedBeyondItRejected) {
  const std::string head =
      "name: s\n"
      "bodies: [{name: b, mass: 1, inertia: [1, 1, 1, 0, 0, 0]}]\n"
      "joints: [{name: j, type: revolute, parent: world, child: b, axis: ";
  // Printed with four digits, as users write them: |n − 1| ≈ 1.4e-5, within 1e-3.
  const Scene s = load(head + "[0, 0.7071, 0.7071]}]\n");
  EXPECT_NEAR(s.model.joints[0].axis.norm(), 1.0, 1e-15);
  EXPECT_NEAR(s.model.joints[0].axis.y(), std::sqrt(0.5), 1e-15);
  expectError(head + "[0, 0, 2]}]\n", 3, 0, {"joint.j.axis", "norm 2", "unit vector"});
}

}  // namespace
}  // namespace rbs

// ---- pushes ---------------------------------------------------------------------------------

namespace rbs {
namespace {

const char* const kPushScene =
    "name: t\n"
    "bodies:\n"
    "  - {name: b, mass: 2.0, inertia: [0.1, 0.2, 0.25, 0, 0, 0]}\n"
    "joints: [{name: j, type: free, child: b}]\n";

TEST_F(SceneLoader, PushesAreReadWithDefaultsAndSetOverrides) {
  const Scene s = load(std::string(kPushScene) +
                       "pushes:\n"
                       "  - {body: b, point: [0.1, 0, 0], force: [0, 4, 0], t_start: 1.5, duration: 0.3}\n"
                       "  - {body: b, torque: [0, 0, 2], t_start: 0, duration: 1}\n",
                       {"push.1.torque=[1, 0, 0]"});
  ASSERT_EQ(s.model.pushes.size(), 2u);
  const Push& p = s.model.pushes[0];
  EXPECT_EQ(p.body, 0);
  EXPECT_EQ(p.point, Vec3(0.1, 0, 0));
  EXPECT_EQ(p.force, Vec3(0, 4, 0));
  EXPECT_EQ(p.torque, Vec3::Zero());
  EXPECT_EQ(p.t_start, 1.5);
  EXPECT_EQ(p.duration, 0.3);
  EXPECT_EQ(s.model.pushes[1].torque, Vec3(1, 0, 0));  // --set wins
  EXPECT_TRUE(s.warnings.empty());
  // --set adds a pushes list to a scene without one
  const Scene added = load(kPushScene, {"pushes=[{body: b, force: [0, 6, 0], t_start: 4, duration: 0.3}]"});
  ASSERT_EQ(added.model.pushes.size(), 1u);
  EXPECT_EQ(added.model.pushes[0].force, Vec3(0, 6, 0));
}

TEST_F(SceneLoader, PushMistakesAreLocated) {
  const std::string s = kPushScene;
  expectError(s + "pushes:\n  - {body: bb, force: [1, 0, 0], t_start: 0, duration: 1}\n", 6, 12,
              {"pushes[0].body", "no body or link named 'bb'", "did you mean 'b'"});
  expectError(s + "pushes:\n  - {body: b, force: [1, 0, 0], t_start: -1, duration: 1}\n", 6, 42,
              {"pushes[0].t_start", "≥ 0"});
  expectError(s + "pushes:\n  - {body: b, force: [1, 0, 0], t_start: 0, duration: 0}\n", 6, 0,
              {"pushes[0].duration", "> 0"});
  expectError(s + "pushes:\n  - {body: b, force: [1, 0, 0], duration: 1}\n", 6, 0, {"pushes[0]", "t_start"});
  expectError(s + "pushes:\n  - {body: b, force: [1, 0], t_start: 0, duration: 1}\n", 6, 0, {"pushes[0].force"});
  expectError(s + "pushes:\n  - {body: b, forse: [1, 0, 0], t_start: 0, duration: 1}\n", 6, 0,
              {"forse", "did you mean 'force'"});
  // nothing to push with: accepted, with a warning at the element
  const Scene empty = load(s + "pushes:\n  - {body: b, t_start: 0, duration: 1}\n");
  ASSERT_EQ(empty.warnings.size(), 1u);
  EXPECT_NE(empty.warnings[0].message.find("neither a force nor a torque"), std::string::npos);
  EXPECT_EQ(empty.warnings[0].line, 6);
}

// mouse: caps on the GUI's pull and twist (Model::mouse_caps); without it there are none.
TEST_F(SceneLoader, MouseCapsAreReadAndChecked) {
  const std::string s = kPushScene;
  EXPECT_TRUE(std::isinf(load(s).model.mouse_caps.pull));
  EXPECT_TRUE(std::isinf(load(s).model.mouse_caps.twist));
  const Scene capped = load(s + "mouse: {pull: 4.4, twist: 0.56}\n", {"mouse.twist=0.5"});
  EXPECT_EQ(capped.model.mouse_caps.pull, 4.4);
  EXPECT_EQ(capped.model.mouse_caps.twist, 0.5);  // --set wins
  EXPECT_TRUE(std::isinf(load(s + "mouse: {pull: 2}\n").model.mouse_caps.twist));
  expectError(s + "mouse: {pull: 0}\n", 5, 0, {"mouse.pull", "> 0"});
  expectError(s + "mouse: {twist: -1}\n", 5, 0, {"mouse.twist", "> 0"});
  expectError(s + "mouse: {pul: 1}\n", 5, 0, {"pul", "did you mean 'pull'"});
}

// ---- input sets ---------------------------------------------------------------------------------

std::string twoForces(const std::string& input_sets_yaml) {
  return oneBody("  - {name: j, type: free, child: b}\n") +
         "actuators:\n"
         "  - {name: fs, type: body_force, body: b, direction: [1, 0, 0], limits: [-7, 7]}\n"
         "  - {name: fc, type: body_force, body: b, direction: [0, 0, 1], limits: [1, 14]}\n"
         "input_sets:\n" +
         input_sets_yaml;
}

TEST_F(SceneLoader, InputSetsAsSectorAndPolygon) {
  const Scene s = load(twoForces("  - {name: sector, type: sector, inputs: [fs, fc], radius: [2, 14], angle: [-0.5, 0.5], chords: 3}\n"));
  ASSERT_EQ(s.model.input_sets.size(), 1u);
  const InputSet& sector = s.model.input_sets[0];
  EXPECT_EQ(sector.inputs, (std::vector<int>{0, 1}));
  EXPECT_EQ(sector.rows.rows(), 6);  // tangent, two sides, three chords
  const Scene p = load(twoForces("  - {name: cap, type: polygon, inputs: [fc, fs], rows: [[1, 1], [1, -1]], bounds: [15, 15]}\n"));
  ASSERT_EQ(p.model.input_sets.size(), 1u);
  const InputSet& cap = p.model.input_sets[0];
  EXPECT_EQ(cap.inputs, (std::vector<int>{1, 0}));
  EXPECT_EQ(cap.rows, (MatX(2, 2) << 1, 1, 1, -1).finished());
  EXPECT_EQ(cap.bounds, (VecX(2) << 15, 15).finished());
  // An input in two sets is refused at the second set's inputs.
  expectError(twoForces("  - {name: sector, type: sector, inputs: [fs, fc], radius: [2, 14], angle: [-0.5, 0.5]}\n"
                        "  - {name: cap, type: polygon, inputs: [fc, fs], rows: [[1, 1]], bounds: [15]}\n"),
              11, 40, {"input set 'cap'", "already in input set 'sector'"});
}

TEST_F(SceneLoader, InputSetErrorsPointAtTheKey) {
  expectError(twoForces("  - {name: s, type: sector, inputs: [fs, fc], radius: [14, 14], angle: [-0.5, 0.5]}\n"), 10, 5,
              {"input_set.s", "r_min"});
  expectError(twoForces("  - {name: s, type: sector, inputs: [fs], radius: [2, 14], angle: [-0.5, 0.5]}\n"), 10, 37,
              {"input_set.s.inputs", "two inputs"});
  expectError(twoForces("  - {name: s, type: polygon, inputs: [fs, fc], rows: [[1, 0]], bounds: [1], chords: 2}\n"), 10, 85,
              {"'chords' does not apply to a polygon input set"});
  expectError(twoForces("  - {name: s, type: polygon, inputs: [fs, fc], rows: [[1, 0, 2]], bounds: [1]}\n"), 10, 55,
              {"input_set.s.rows[0]", "expected a list of 2 numbers"});
  expectError(twoForces("  - {name: s, type: polygon, inputs: [fs, fx], rows: [[1, 0]], bounds: [1]}\n"), 10, 38,
              {"input set 's'", "no actuator is named 'fx'"});
  expectError(twoForces("  - {name: s, type: polygon, inputs: [fs, fc], rows: [[0, 1]], bounds: [0.5]}\n"), 10, 54,
              {"input set 's'", "the set is empty"});  // f_c ≤ 0.5 against its limit f_c ≥ 1
}

}  // namespace
}  // namespace rbs
