// What rbsim validates on an imported robot, and how (docs/SCENE_FORMAT.md, "What is validated"):
// links on fixed joints merged into one body, checked against the unmerged model's M, c and f_G;
// point masses and rods accepted per body, the assembled mass matrix checked instead (naming the
// joint whose direction has no inertia, compared with Eigen's eigenvalues); a massless root that
// floats; inertias violating the triangle inequality warned about or balanced.
#include <gtest/gtest.h>

#include <functional>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <string>

#include "core/dynamics/dynamics.h"
#include "core/dynamics/kinematics.h"
#include "core/dynamics/mass_matrix_check.h"
#include "core/scene/scene.h"
#include "core/urdf/urdf_import.h"
#include "sim/settings.h"
#include "sim/simulator.h"
#include "tests/scene/scene_test_util.h"
#include "tests/support/linear_algebra.h"
#include "tests/support/matrix_compare.h"
#include "tests/support/test_models.h"

namespace rbs {
namespace {

bool contains(const std::string& s, const std::string& part) {
  return s.find(part) != std::string::npos;
}

Mat3 rpy(double roll, double pitch, double yaw) {
  return (Eigen::AngleAxisd(yaw, Vec3::UnitZ()) * Eigen::AngleAxisd(pitch, Vec3::UnitY()) *
          Eigen::AngleAxisd(roll, Vec3::UnitX()))
      .toRotationMatrix();
}

// An arm with what published robots have on fixed joints: a point-mass flange (inertia 0), a
// sensor with a rotated inertial frame fixed to the flange, a moving link hanging from the flange
// (a rod: no moment about its own axis), and a point-mass tip on it.
constexpr const char* kArm = R"(<robot name="arm">
  <link name="base"><inertial><mass value="3"/><inertia ixx="0.05" iyy="0.05" izz="0.05" ixy="0" ixz="0" iyz="0"/></inertial></link>
  <link name="link1"><inertial><origin xyz="0 0 0.1"/><mass value="2"/><inertia ixx="0.02" iyy="0.02" izz="0.01" ixy="0" ixz="0" iyz="0"/></inertial></link>
  <link name="flange"><inertial><origin xyz="0.01 0 0.02"/><mass value="0.5"/><inertia ixx="0" iyy="0" izz="0" ixy="0" ixz="0" iyz="0"/></inertial></link>
  <link name="sensor"><inertial><origin xyz="0 0.01 0" rpy="0.1 0.2 0.3"/><mass value="0.2"/><inertia ixx="1e-4" iyy="2e-4" izz="2.5e-4" ixy="0" ixz="0" iyz="0"/></inertial></link>
  <link name="link2"><inertial><origin xyz="0.2 0 0"/><mass value="1"/><inertia ixx="0" iyy="0.013" izz="0.013" ixy="0" ixz="0" iyz="0"/></inertial></link>
  <link name="tip"><inertial><mass value="0.3"/><inertia ixx="0" iyy="0" izz="0" ixy="0" ixz="0" iyz="0"/></inertial></link>
  <joint name="joint1" type="revolute"><parent link="base"/><child link="link1"/><origin xyz="0 0 0.3"/><axis xyz="0 0 1"/>
    <limit lower="-3" upper="3" effort="50" velocity="3"/></joint>
  <joint name="flange_joint" type="fixed"><parent link="link1"/><child link="flange"/><origin xyz="0 0 0.25" rpy="0.3 0 0"/></joint>
  <joint name="sensor_joint" type="fixed"><parent link="flange"/><child link="sensor"/><origin xyz="0.05 0 0" rpy="0 0.5 0.2"/></joint>
  <joint name="joint2" type="revolute"><parent link="flange"/><child link="link2"/><origin xyz="0 0 0.1"/><axis xyz="0 1 0"/>
    <limit lower="-3" upper="3" effort="20" velocity="3"/></joint>
  <joint name="tip_joint" type="fixed"><parent link="link2"/><child link="tip"/><origin xyz="0.4 0 0"/></joint>
</robot>
)";

/// The same arm built by hand without merging: every link a body, fixed joints as joints.
Model unmergedArm() {
  ModelBuilder b;
  auto body = [&](const std::string& name, double m, const Vec3& com, const Mat3& I) { b.addBody({name, m, com, I}); };
  body("base", 3, Vec3::Zero(), 0.05 * Mat3::Identity());
  body("link1", 2, Vec3(0, 0, 0.1), Vec3(0.02, 0.02, 0.01).asDiagonal());
  body("flange", 0.5, Vec3(0.01, 0, 0.02), Mat3::Zero());
  const Mat3 Ri = rpy(0.1, 0.2, 0.3);
  body("sensor", 0.2, Vec3(0, 0.01, 0), Ri * Vec3(1e-4, 2e-4, 2.5e-4).asDiagonal() * Ri.transpose());
  body("link2", 1, Vec3(0.2, 0, 0), Vec3(0, 0.013, 0.013).asDiagonal());
  body("tip", 0.3, Vec3::Zero(), Mat3::Zero());
  auto joint = [&](const std::string& name, JointType type, const std::string& parent, const std::string& child,
                   const Pose& placement, const Vec3& axis) {
    JointSpec j;
    j.name = name;
    j.type = type;
    j.parent = parent;
    j.child = child;
    j.parent_placement = placement;
    j.axis = axis;
    b.addJoint(j);
  };
  joint("base_to_world", JointType::Fixed, kWorld, "base", Pose::identity(), Vec3::UnitZ());
  joint("joint1", JointType::Revolute, "base", "link1", Pose::translation(Vec3(0, 0, 0.3)), Vec3::UnitZ());
  joint("flange_joint", JointType::Fixed, "link1", "flange", Pose(rpy(0.3, 0, 0), Vec3(0, 0, 0.25)), Vec3::UnitZ());
  joint("sensor_joint", JointType::Fixed, "flange", "sensor", Pose(rpy(0, 0.5, 0.2), Vec3(0.05, 0, 0)), Vec3::UnitZ());
  joint("joint2", JointType::Revolute, "flange", "link2", Pose::translation(Vec3(0, 0, 0.1)), Vec3::UnitY());
  joint("tip_joint", JointType::Fixed, "link2", "tip", Pose::translation(Vec3(0.4, 0, 0)), Vec3::UnitZ());
  b.setGravity(Vec3(0, 0, -9.81));
  return b.build();
}

class UrdfValidation : public test::SceneDir {};

TEST_F(UrdfValidation, LinksOnFixedJointsAreMergedWithTheUnmergedModelsDynamics) {
  const Scene scene = loadScene(write("arm.urdf", kArm));
  const Model& merged = scene.model;
  EXPECT_TRUE(test::besidesInertiaBoxes(scene.warnings).empty()) << scene.warnings.front().text();
  // base, link1 (+ flange, sensor), link2 (+ tip)
  ASSERT_EQ(merged.numBodies(), 3);
  EXPECT_EQ(merged.bodyIndex("flange"), -1);
  EXPECT_EQ(merged.bodyIndex("tip"), -1);
  const Model unmerged = unmergedArm();
  ASSERT_EQ(merged.nxi, 2);
  ASSERT_EQ(unmerged.nxi, 2);
  ASSERT_EQ(merged.nx, unmerged.nx);
  Workspace wm(merged), wu(unmerged);
  test::Rng rng(18);
  for (int trial = 0; trial < 20; ++trial) {
    const State s = test::randomState(merged, rng, 3.0);
    for (auto [model, ws] : {std::pair{&merged, &wm}, std::pair{&unmerged, &wu}}) {
      computeKinematics(*model, s.x, s.xi, *ws);
      computeMassMatrix(*model, *ws);
      computeInertialForces(*model, *ws);
      computeGravityForces(*model, *ws);
    }
    // entries O(0.1–10); composing in another order rounds differently at ~1e-16
    EXPECT_MATRIX_NEAR(wm.mass_matrix, wu.mass_matrix, 1e-12);
    EXPECT_MATRIX_NEAR(wm.inertial_forces, wu.inertial_forces, 1e-12);
    EXPECT_MATRIX_NEAR(wm.gravity_forces, wu.gravity_forces, 1e-12);
    // the body frames are the links' frames
    EXPECT_LT((wm.pose[merged.bodyIndex("link2")].matrix() - wu.pose[unmerged.bodyIndex("link2")].matrix()).norm(), 1e-12);
  }
  // The merged links are named frames, recorded like bodies: frame.tip.* is where the unmerged
  // model's body "tip" is.
  ASSERT_EQ(merged.frames.size(), 3u);
  EXPECT_EQ(merged.frames[0].name, "flange");
  EXPECT_EQ(merged.frames[0].frame.body, merged.bodyIndex("link1"));
  EXPECT_EQ(merged.frames[2].name, "tip");
  Simulator sim(merged, simulationOptions(scene.integrator));
  State start = merged.initial_state;
  start.xi << 1.0, -2.0;
  sim.reset(start);
  ASSERT_TRUE(sim.advanceTo(0.5)) << sim.message();
  computeKinematics(unmerged, sim.state().x, sim.state().xi, wu);
  const Pose& tip = wu.pose[unmerged.bodyIndex("tip")];
  const Recording& rec = sim.recording();
  const int px = rec.channels.find("frame.tip.px");
  ASSERT_GE(px, 0);
  const std::span<const double> last = rec.values.back();
  EXPECT_NEAR(last[px], tip.r.x(), 1e-12);
  EXPECT_NEAR(last[px + 1], tip.r.y(), 1e-12);
  EXPECT_NEAR(last[px + 2], tip.r.z(), 1e-12);
  const Vec4 q(last[px + 3], last[px + 4], last[px + 5], last[px + 6]);
  EXPECT_LT((quaternionToRotation(q) - tip.R).norm(), 1e-12);
}

TEST_F(UrdfValidation, SetOnALinkReplacesItsInertialBeforeTheMerge) {
  // The tip (a point mass merged into link2) gets another mass and an inertia; link2's body is
  // recomposed from them: m = 1 + 0.6, CoM x = (1·0.2 + 0.6·0.4) / 1.6 = 0.275, and about it
  // I = diag(0, .013, .013) + 1e-3 I + (1·0.075² + 0.6·0.125²)(I − e_x e_xᵀ).
  const auto urdf = write("arm.urdf", kArm);
  const Scene scene = loadScene(urdf, {"link.tip.mass=0.6", "link.tip.inertia=[1e-3, 1e-3, 1e-3, 0, 0, 0]"});
  const Body& link2 = scene.model.bodies[scene.model.bodyIndex("link2")];
  EXPECT_NEAR(link2.mass, 1.6, 1e-15);
  EXPECT_LT((link2.com - Vec3(0.275, 0, 0)).norm(), 1e-15);
  EXPECT_LT((link2.inertia_com - Vec3(0.001, 0.029, 0.029).asDiagonal().toDenseMatrix()).norm(), 1e-15);
  // A link of its own: the values as the file writes them (com = the inertial origin's xyz).
  const Scene moved = loadScene(urdf, {"link.link2.com=[0.3, 0, 0]", "link.link2.mass=2", "link.tip.mass=0"});
  const Body& b = moved.model.bodies[moved.model.bodyIndex("link2")];
  EXPECT_EQ(b.mass, 2.0);
  EXPECT_EQ(b.com, Vec3(0.3, 0, 0));
  // Mistakes name the assignment.
  expectFileError(urdf, 0, 0, {"--set link.tpi.mass=1", "no link named 'tpi'", "tip"}, {"link.tpi.mass=1"});
  expectFileError(urdf, 0, 0, {"--set link.tip.mass=-1", "expected a mass ≥ 0"}, {"link.tip.mass=-1"});
  expectFileError(urdf, 0, 0, {"link.tip.inertia", "6"}, {"link.tip.inertia=[1, 2, 3]"});
  expectFileError(urdf, 0, 0, {"expected link.NAME.mass, link.NAME.com or link.NAME.inertia"}, {"link.tip.density=3"});
  // An inertia made invalid is refused at the link.
  expectFileError(urdf, 0, 0, {"link 'link2'", "as set by --set link.link2.*"}, {"link.link2.inertia=[-1, 1, 1, 0, 0, 0]"});
}

TEST_F(UrdfValidation, ARootFixedToTheWorldIsNotValidatedButAMovingLinkIs) {
  // The root's inertia is nonsense (negative moment); it never moves, so it loads.
  std::string arm = kArm;
  arm.replace(arm.find(R"(ixx="0.05" iyy="0.05")"), 22, R"(ixx="-1" iyy="0.05")");
  EXPECT_NO_THROW(loadScene(write("root.urdf", arm)));
  // The same on link1 (moving) is an error at link1.
  arm = kArm;
  arm.replace(arm.find(R"(ixx="0.02" iyy="0.02")"), 22, R"(ixx="-1" iyy="0.02")");
  expectFileError(write("link1.urdf", arm), 3, 3, {"link 'link1': inertia tensor is not positive semidefinite"});
}

TEST_F(UrdfValidation, AJointWhoseDirectionMovesNoInertiaIsNamedAtItsElement) {
  // joint2 spins the point mass "tip" (with nothing else on link2 but a rod along the axis) about
  // an axis through it: the mass matrix is singular in joint2's direction.
  const std::string robot = R"(<robot name="spinner">
  <link name="base"><inertial><mass value="3"/><inertia ixx="0.05" iyy="0.05" izz="0.05" ixy="0" ixz="0" iyz="0"/></inertial></link>
  <link name="link1"><inertial><mass value="2"/><inertia ixx="0.02" iyy="0.02" izz="0.01" ixy="0" ixz="0" iyz="0"/></inertial></link>
  <link name="link2"><inertial><origin xyz="0 0 0.1"/><mass value="1"/><inertia ixx="0.001" iyy="0.001" izz="0" ixy="0" ixz="0" iyz="0"/></inertial></link>
  <joint name="joint1" type="revolute"><parent link="base"/><child link="link1"/><axis xyz="1 0 0"/>
    <limit lower="-3" upper="3" effort="50" velocity="3"/></joint>
  <joint name="joint2" type="continuous"><parent link="link1"/><child link="link2"/><axis xyz="0 0 1"/></joint>
</robot>
)";
  const std::filesystem::path file = write("spinner.urdf", robot);
  expectFileError(file, 7, 3, {"joint 'joint2': the mass matrix is singular at the initial pose", "moves no inertia"});
  // The same through a scene file that includes it, and in a scene file's own joint.
  try {
    load("name: s\ninclude: spinner.urdf\n");
    ADD_FAILURE() << "expected a SceneError";
  } catch (const SceneError& e) {
    EXPECT_EQ(e.file(), file.string());  // at the joint in the included URDF
    EXPECT_EQ(e.line(), 7);
    EXPECT_TRUE(contains(e.message(), "joint 'joint2': the mass matrix is singular")) << e.what();
  }
  expectError(R"(name: s
bodies:
  - {name: bead, mass: 1, inertia: [0, 0, 0, 0, 0, 0]}
joints:
  - {name: spin, type: revolute, parent: world, child: bead, axis: [0, 0, 1]}
)",
              5, 5, {"joint 'spin': the mass matrix is singular"});
}

TEST(MassMatrixCheck, AgreesWithTheEigenvaluesOfTheAssembledMassMatrix) {
  // Random trees with random bodies: M is positive definite, no deficiency. The same trees with
  // one body's mass properties zeroed where it is a leaf on a revolute joint: a deficiency exactly
  // when the smallest eigenvalue of M (Eigen, an independent computation) is ~0, at that joint.
  test::Rng rng(7);
  for (int trial = 0; trial < 10; ++trial) {
    ModelBuilder b;
    b.addBody(test::randomBody(rng, "root"));
    JointSpec free_joint;
    free_joint.name = "float";
    free_joint.type = JointType::Free;
    free_joint.child = "root";
    b.addJoint(free_joint);
    std::string parent = "root";
    for (int k = 0; k < 4; ++k) {
      const std::string name = "l" + std::to_string(k);
      BodySpec body = test::randomBody(rng, name);
      if (k == 3) {  // the leaf: a point mass on the joint axis
        body.com = Vec3(0, 0, 0.3);
        body.inertia.setZero();
      }
      b.addBody(body);
      JointSpec j;
      j.name = "j" + std::to_string(k);
      j.type = JointType::Revolute;
      j.parent = parent;
      j.child = name;
      j.parent_placement = test::randomPose(rng);
      j.axis = Vec3::UnitZ();
      b.addJoint(j);
      parent = name;
    }
    const Model m = b.build();
    const State s = test::randomState(m, rng);
    Workspace ws(m);
    computeKinematics(m, s.x, s.xi, ws);
    computeMassMatrix(m, ws);
    const VecX ev = test::symmetricEigenvalues(ws.mass_matrix);
    EXPECT_LT(std::abs(ev(0)), 1e-12 * ev(ev.size() - 1));
    const auto deficiency = findMassMatrixDeficiency(m, s.x);
    ASSERT_TRUE(deficiency.has_value());
    EXPECT_EQ(m.joints[deficiency->joint].name, "j3");
    EXPECT_EQ(deficiency->coordinate, m.nxi - 1);
  }
  // and a model whose bodies all have inertia has none
  const Model full = test::randomTreeWith(JointType::Spherical, false, 3);
  EXPECT_FALSE(findMassMatrixDeficiency(full, test::randomState(full, rng).x).has_value());
}

TEST_F(UrdfValidation, AFloatingRobotWithAMasslessRootFloatsAsItsFirstLinkWithMass) {
  // A legged-robot layout: the root "base" is a massless frame, its mass is in "base_inertia"
  // fixed to it, the legs hang from "base".
  const std::string robot = R"(<robot name="walker">
  <link name="base"><visual><geometry><box size="0.4 0.2 0.1"/></geometry></visual></link>
  <link name="base_inertia"><inertial><mass value="8"/><inertia ixx="0.1" iyy="0.2" izz="0.25" ixy="0" ixz="0" iyz="0"/></inertial></link>
  <link name="leg_l"><inertial><origin xyz="0 0 -0.15"/><mass value="1"/><inertia ixx="0.01" iyy="0.01" izz="0.001" ixy="0" ixz="0" iyz="0"/></inertial></link>
  <link name="leg_r"><inertial><origin xyz="0 0 -0.15"/><mass value="1"/><inertia ixx="0.01" iyy="0.01" izz="0.001" ixy="0" ixz="0" iyz="0"/></inertial></link>
  <joint name="inertia_joint" type="fixed"><parent link="base"/><child link="base_inertia"/><origin xyz="0.02 0 0.01" rpy="0 0 0.1"/></joint>
  <joint name="hip_l" type="continuous"><parent link="base"/><child link="leg_l"/><origin xyz="0 0.12 -0.05"/><axis xyz="0 1 0"/></joint>
  <joint name="hip_r" type="continuous"><parent link="base"/><child link="leg_r"/><origin xyz="0 -0.12 -0.05"/><axis xyz="0 1 0"/></joint>
</robot>
)";
  const std::filesystem::path file = write("walker.urdf", robot);
  const Scene fixed = loadScene(file);
  const Scene floating = loadScene(file, {}, true);
  ASSERT_EQ(floating.model.numBodies(), 3);
  const Joint& root = floating.model.joints[floating.model.bodyIndex("base_inertia")];
  EXPECT_EQ(root.name, "base_inertia_to_world");
  EXPECT_EQ(root.type, JointType::Free);
  // the base's box is drawn with the floating body (then the legs, which have no <visual>, as the
  // boxes of their inertia)
  ASSERT_EQ(floating.model.visuals.size(), 3u);
  EXPECT_EQ(floating.model.visuals[0].body, floating.model.bodyIndex("base_inertia"));
  // at the initial state every link is where the fixed-base robot has it
  Workspace wf(fixed.model), wl(floating.model);
  computeKinematics(fixed.model, fixed.model.initial_state.x, fixed.model.initial_state.xi, wf);
  computeKinematics(floating.model, floating.model.initial_state.x, floating.model.initial_state.xi, wl);
  for (const char* link : {"base_inertia", "leg_l", "leg_r"})
    EXPECT_LT((wf.pose[fixed.model.bodyIndex(link)].matrix() - wl.pose[floating.model.bodyIndex(link)].matrix()).norm(),
              1e-14)
        << link;
  // it falls freely: 6 + 2 velocity coordinates, M positive definite
  EXPECT_EQ(floating.model.nxi, 8);
  EXPECT_FALSE(findMassMatrixDeficiency(floating.model, floating.model.initial_state.x).has_value());
}

TEST_F(UrdfValidation, TriangleInequalityViolationsAreAWarningOrBalanced) {
  // CAD-style moments: 0.01 + 0.01 < 0.021, violated by 0.001 kg m².
  const std::string robot = R"(<robot name="cad">
  <link name="base"><inertial><mass value="1"/><inertia ixx="0.05" iyy="0.05" izz="0.05" ixy="0" ixz="0" iyz="0"/></inertial></link>
  <link name="part"><inertial><mass value="1"/><inertia ixx="0.01" iyy="0.01" izz="0.021" ixy="0" ixz="0" iyz="0"/></inertial></link>
  <joint name="j" type="continuous"><parent link="base"/><child link="part"/><axis xyz="1 0 0"/></joint>
</robot>
)";
  const std::filesystem::path file = write("cad.urdf", robot);
  const Scene kept = loadScene(file);
  ASSERT_EQ(test::besidesInertiaBoxes(kept.warnings).size(), 1u);
  EXPECT_EQ(kept.warnings[0].line, 3);
  EXPECT_TRUE(contains(kept.warnings[0].message, "link 'part': principal moments 0.01, 0.01, 0.021 kg m² violate the "
                                                 "triangle inequality I₁ + I₂ ≥ I₃ by 0.001 kg m²"))
      << kept.warnings[0].message;
  EXPECT_NEAR(kept.model.bodies[kept.model.bodyIndex("part")].inertia_com(2, 2), 0.021, 1e-15);

  LoadOptions balance;
  balance.balance_inertia = true;
  const Scene balanced = loadScene(file, balance);
  ASSERT_EQ(test::besidesInertiaBoxes(balanced.warnings).size(), 1u);
  EXPECT_TRUE(contains(balanced.warnings[0].message, "balanced to 0.0136667 kg m² about every axis")) << balanced.warnings[0].message;
  const Body& part = balanced.model.bodies[balanced.model.bodyIndex("part")];
  EXPECT_NEAR(part.inertia_com(0, 0), 0.041 / 3, 1e-15);
  EXPECT_NEAR(part.inertia_com(2, 2), 0.041 / 3, 1e-15);
  // the scene key does the same for an included URDF and the scene's own bodies
  const Scene keyed = load("name: k\ninclude: cad.urdf\nbalance_inertia: true\n");
  EXPECT_NEAR(keyed.model.bodies[keyed.model.bodyIndex("part")].inertia_com(0, 0), 0.041 / 3, 1e-15);
  const Scene own = load(R"(name: own
balance_inertia: true
bodies:
  - {name: b, mass: 1, inertia: [0.1, 0.1, 0.5, 0, 0, 0]}
joints:
  - {name: j, type: free, child: b}
)");
  ASSERT_EQ(own.warnings.size(), 1u);
  EXPECT_EQ(own.warnings[0].line, 4);
  EXPECT_NEAR(own.model.bodies[0].inertia_com(1, 1), 0.7 / 3, 1e-15);
  // and the command line
  const test::CliResult cli = run("check '" + file.string() + "' --balance-inertia");
  EXPECT_EQ(cli.exit_code, 0) << cli.err;
  EXPECT_TRUE(contains(cli.err, "cad.urdf:3:3: warning: link 'part': principal moments")) << cli.err;
  EXPECT_TRUE(contains(cli.err, "(--balance-inertia)")) << cli.err;
}

}  // namespace
}  // namespace rbs

namespace rbs {
namespace {

// Two equal rod pendulums side by side; "twin" mimics "arm" with q_twin = −q_arm + 0.2.
constexpr const char* kTwins = R"(<robot name="twins">
  <link name="world"/>
  <link name="arm"><inertial><origin xyz="0 0 -0.3"/><mass value="1"/><inertia ixx="0.03" iyy="0.03" izz="1e-4" ixy="0" ixz="0" iyz="0"/></inertial></link>
  <link name="twin"><inertial><origin xyz="0 0 -0.3"/><mass value="1"/><inertia ixx="0.03" iyy="0.03" izz="1e-4" ixy="0" ixz="0" iyz="0"/></inertial></link>
  <joint name="arm_joint" type="continuous"><parent link="world"/><child link="arm"/><axis xyz="0 1 0"/></joint>
  <joint name="twin_joint" type="continuous"><parent link="world"/><child link="twin"/><origin xyz="0 0.5 0"/><axis xyz="0 1 0"/>
    <mimic joint="arm_joint" multiplier="-1" offset="0.2"/></joint>
</robot>
)";

class UrdfMimic : public test::SceneDir {};

/// q(1 s) of q̈ = acc(q) from rest at q0: RK4 with a 0.1 ms step (the reference for the mimic runs).
double oneDegreeOfFreedomAt1s(double q0, const std::function<double(double)>& acc) {
  double q = q0, qd = 0.0;
  const double h = 1e-4;
  for (int k = 0; k < 10000; ++k) {
    const double k1q = qd, k1v = acc(q);
    const double k2q = qd + h / 2 * k1v, k2v = acc(q + h / 2 * k1q);
    const double k3q = qd + h / 2 * k2v, k3v = acc(q + h / 2 * k2q);
    const double k4q = qd + h * k3v, k4v = acc(q + h * k3q);
    q += h / 6 * (k1q + 2 * k2q + 2 * k3q + k4q);
    qd += h / 6 * (k1v + 2 * k2v + 2 * k3v + k4v);
  }
  return q;
}

TEST_F(UrdfMimic, AMimicJointFollowsItsLeaderAsTheOneDegreeOfFreedomSystemDoes) {
  const Scene scene = loadScene(write("twins.urdf", kTwins), {"joint.arm_joint.position=0.9"});
  EXPECT_TRUE(test::besidesInertiaBoxes(scene.warnings).empty()) << scene.warnings.front().text();
  const Model& m = scene.model;
  ASSERT_EQ(m.loop_closures.size(), 1u);
  EXPECT_EQ(m.loop_closures[0].name, "twin_joint_mimic");
  EXPECT_EQ(m.loop_closures[0].kind, LoopClosure::Kind::JointCoupling);
  const Joint& arm = m.joints[m.jointIndex("arm_joint")];
  const Joint& twin = m.joints[m.jointIndex("twin_joint")];
  EXPECT_EQ(m.initial_state.x(twin.x_offset), -0.9 + 0.2);  // the follower starts on the constraint

  // The coupled system is one degree of freedom q = q_arm with q_twin = 0.2 − q:
  // (I + I) q̈ = −m g c (sin q − sin(0.2 − q)), I = 0.03 + m c², c = 0.3 (RK4, small step).
  const double I = 0.03 + 0.09, mgc = 9.81 * 0.3;
  const double q = oneDegreeOfFreedomAt1s(0.9, [&](double a) { return -mgc * (std::sin(a) - std::sin(0.2 - a)) / (2 * I); });
  Simulator sim(m, simulationOptions(scene.integrator));
  sim.reset(m.initial_state);
  ASSERT_TRUE(sim.advanceTo(1.0)) << sim.message();
  const State& s = sim.state();
  EXPECT_NEAR(s.x(arm.x_offset), q, 1e-5);
  EXPECT_NEAR(s.x(twin.x_offset), 0.2 - q, 1e-5);
  // the constraint holds and does no work
  const Recording& rec = sim.recording();
  const int closure = rec.channels.find("constraint.closure"), energy = rec.channels.find("energy.total");
  ASSERT_GE(closure, 0);
  double worst = 0.0, drift = 0.0;
  for (const auto& row : rec.values) {
    worst = std::max(worst, std::abs(row[closure]));
    drift = std::max(drift, std::abs(row[energy] - rec.values.front()[energy]));
  }
  EXPECT_LT(worst, 1e-6);
  EXPECT_LT(drift, 1e-4);
}

// A massless follower (Romeo's and the Bravo 7's mimic fingers, issue 47) needs no bounds: it moves
// with its leader, which carries the inertia, so the constrained system is well posed although M
// is singular (solveAccelerations factorizes M + w Zᵀ Z then). It changes nothing in the motion:
// the arm swings as the lone pendulum I q̈ = −m g c sin q, and the twin follows it. Without the
// mimic, or with a mimic of a missing joint, the massless link moves on its own and is refused.
TEST_F(UrdfMimic, AMasslessFollowerMovesWithItsLeaderAndChangesNothing) {
  std::string ghostly = kTwins;
  const std::size_t twin_link = ghostly.find(R"(<link name="twin">)");
  ghostly.replace(twin_link, ghostly.find("</link>", twin_link) + 7 - twin_link,
                  R"(<link name="twin"><visual><geometry><box size="0.02 0.02 0.6"/></geometry></visual></link>)");
  const Scene scene = loadScene(write("ghostly.urdf", ghostly), {"joint.arm_joint.position=0.9"});
  const Model& m = scene.model;
  EXPECT_EQ(m.bodies[m.bodyIndex("twin")].mass, 0.0);
  const Joint& arm = m.joints[m.jointIndex("arm_joint")];
  const Joint& twin = m.joints[m.jointIndex("twin_joint")];
  const double I = 0.03 + 0.09, mgc = 9.81 * 0.3;
  const double q = oneDegreeOfFreedomAt1s(0.9, [&](double angle) { return -mgc * std::sin(angle) / I; });
  Simulator sim(m, simulationOptions(scene.integrator));
  sim.reset(m.initial_state);
  ASSERT_TRUE(sim.advanceTo(1.0)) << sim.message();
  EXPECT_NEAR(sim.state().x(arm.x_offset), q, 1e-5);
  EXPECT_NEAR(sim.state().x(twin.x_offset), 0.2 - q, 1e-5);

  std::string alone = ghostly;
  alone.replace(alone.find(R"(<mimic joint="arm_joint")"), 24, R"(<mimic joint="arm_jiont")");
  expectFileError(write("alone.urdf", alone), 4, 3,
                  {"link 'twin': has no mass", "--bound-mass and --bound-inertia, scene keys bound_mass and bound_inertia"});
}

// A massless link that carries mass (the cross of a universal joint: two hinges on orthogonal axes)
// loads: every joint direction moves the mass below it. On intersecting axes through a point mass
// it would not, and the mass matrix check refuses it at the joint.
TEST_F(UrdfMimic, AMasslessCrossOfAUniversalJointLoadsWhenWhatItCarriesHasInertia) {
  const std::string cross = R"(<robot name="u">
  <link name="world"/>
  <link name="cross"/>
  <link name="rod"><inertial><origin xyz="0 0 -0.5"/><mass value="1"/><inertia ixx="0.02" iyy="0.02" izz="1e-4" ixy="0" ixz="0" iyz="0"/></inertial></link>
  <joint name="u1" type="continuous"><parent link="world"/><child link="cross"/><axis xyz="1 0 0"/></joint>
  <joint name="u2" type="continuous"><parent link="cross"/><child link="rod"/><axis xyz="0 1 0"/></joint>
</robot>
)";
  const Scene scene = loadScene(write("cross.urdf", cross), {"joint.u1.position=0.3", "joint.u2.position=0.2"});
  Simulator sim(scene.model, simulationOptions(scene.integrator));
  sim.reset(scene.model.initial_state);
  ASSERT_TRUE(sim.advanceTo(1.0)) << sim.message();
  std::string point = cross;
  point.replace(point.find(R"(<origin xyz="0 0 -0.5"/>)"), 24, R"(<origin xyz="0 0 0"/>)");
  point.replace(point.find(R"(ixx="0.02" iyy="0.02")"), 21, R"(ixx="0" iyy="0")");
  point.replace(point.find(R"(izz="1e-4")"), 10, R"(izz="0")");
  expectFileError(write("point.urdf", point), 5, 3, {"joint 'u1': the mass matrix is singular"});
}

TEST_F(UrdfMimic, CyclesAreErrorsAtTheJoint) {
  std::string cycle = kTwins;
  cycle.replace(cycle.find(R"(<axis xyz="0 1 0"/></joint>)"), 27,
                R"(<axis xyz="0 1 0"/><mimic joint="twin_joint"/></joint>)");
  expectFileError(write("cycle.urdf", cycle), 5, 3, {"joint 'arm_joint': <mimic> joints form a cycle: 'arm_joint' → 'twin_joint' → 'arm_joint'"});
}

// A mimic naming a joint the file does not have is a warning at the joint, which then moves on its
// own (no coupling), as ROS tools take it.
TEST_F(UrdfMimic, AMimicOfAMissingJointIsAWarningAndTheJointIsFree) {
  std::string ghost = kTwins;
  ghost.replace(ghost.find(R"(joint="arm_joint")"), 17, R"(joint="arm_jiont")");
  const Scene scene = loadScene(write("ghost.urdf", ghost));
  ASSERT_EQ(test::besidesInertiaBoxes(scene.warnings).size(), 1u);
  EXPECT_NE(scene.warnings[0].text().find("joint 'twin_joint': <mimic joint=\"arm_jiont\">: no joint of that name; the joint "
                                          "moves on its own"),
            std::string::npos)
      << scene.warnings[0].text();
  EXPECT_EQ(scene.warnings[0].line, 6);
  EXPECT_TRUE(scene.model.loop_closures.empty());
}

}  // namespace
}  // namespace rbs
