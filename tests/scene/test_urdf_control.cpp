// A controller on an imported robot without writing the robot by hand (scenes/arm7_tracking.yaml):
// `joint_actuators` gives the URDF's joints joint-effort actuators limited by <limit effort>, and
// the prototype controller tracks a joint-space move from an initial error, saturating where the
// URDF says. Errors in the key are located.
#include <gtest/gtest.h>

#include <string>

#include "core/scene/scene.h"
#include "tests/scene/scene_test_util.h"
#include "tests/support/scene_run.h"

namespace rbs {
namespace {

TEST(UrdfControl, JointActuatorsDriveEveryJointOfTheUrdfWithItsEffortLimit) {
  const Scene scene = loadScene(test::libraryScene("arm7_tracking.yaml"));
  const Model& m = scene.model;
  ASSERT_EQ(m.numInputs(), 7);
  // <limit effort> of assets/urdf/arm7.urdf, joint1 … joint7
  const double effort[7] = {176, 176, 110, 110, 110, 40, 40};
  for (int k = 0; k < 7; ++k) {
    const Actuator& a = m.actuators[k];
    const std::string joint = "joint" + std::to_string(k + 1);
    EXPECT_EQ(a.name, "tau_" + joint);
    EXPECT_EQ(a.kind, ActuatorKind::JointEffort);
    EXPECT_EQ(m.joints[a.joint].name, joint);
    EXPECT_EQ(a.lower, -effort[k]) << joint;
    EXPECT_EQ(a.upper, effort[k]) << joint;
  }
}

TEST(UrdfControl, TheImportedArmTracksFromAnInitialErrorWithinTheUrdfsEffortLimits) {
  // joint2 starts 1 rad off: the controller asks for more than 176 N m, the actuator gives 176.
  const test::SceneRun run = test::runLibraryScene("arm7_tracking.yaml", {"joint.joint2.position=1.0"});
  ASSERT_TRUE(run.ok) << run.message;
  EXPECT_NEAR(run.at(0.0, "error.joints"), 1.0, 1e-12);
  EXPECT_EQ(run.max("u.tau_joint2"), 176.0);  // clamped, exactly
  EXPECT_LT(run.at(1.0, "error.joints"), 0.02);
  EXPECT_LT(run.end("error.joints"), 1e-6);  // on the goal, held against gravity
  for (int k = 1; k <= 7; ++k) {
    const std::string u = "u.tau_joint" + std::to_string(k);
    EXPECT_LE(run.max(u), k <= 2 ? 176.0 : k <= 5 ? 110.0 : 40.0) << u;
  }
}

TEST(UrdfControl, ComputedTorqueTracksTheImportedArmToo) {
  const test::SceneRun run = test::runLibraryScene("arm7_tracking.yaml", {"joint.joint2.position=0.5"}, "computed_torque");
  ASSERT_TRUE(run.ok) << run.message;
  EXPECT_NEAR(run.at(0.0, "error.joints"), 0.5, 1e-12);
  EXPECT_LT(run.at(1.0, "error.joints"), 0.05);  // 0.020 measured
  EXPECT_LT(run.end("error.joints"), 1e-8);      // 1.8e-10 measured
}

class JointActuatorsKey : public test::SceneDir {};

TEST_F(JointActuatorsKey, ListsAndMistakesAreLocated) {
  const std::string arm = std::string(RBS_SOURCE_DIR) + "/assets/urdf/arm7.urdf";
  const Scene two = load("name: a\ninclude: " + arm + "\njoint_actuators: [joint4, joint1]\n");
  ASSERT_EQ(two.model.numInputs(), 2);
  EXPECT_EQ(two.model.actuators[0].name, "tau_joint4");
  EXPECT_EQ(two.model.actuators[1].upper, 176.0);
  expectError("name: a\ninclude: " + arm + "\njoint_actuators: [joint1, jiont2]\n", 3, 27,
              {"joint_actuators.1", "no revolute, continuous or prismatic joint named 'jiont2'", "joint2"});
  expectError("name: a\ninclude: " + arm + "\njoint_actuators: [joint1, joint1]\n", 3, 27, {"listed twice"});
  expectError("name: a\ninclude: " + arm + "\njoint_actuators: some\n", 3, 18, {"joint_actuators", "all"});
  expectError("name: a\njoint_actuators: all\nbodies: []\n", 2, 18, {"applies to the joints of an included URDF"});
  // a name taken by the file's own actuator: at the key
  expectError("name: a\ninclude: " + arm + "\njoint_actuators: all\nactuators:\n"
              "  - {name: tau_joint3, type: joint_effort, joint: joint3}\n",
              0, 0, {"tau_joint3"});
}

}  // namespace
}  // namespace rbs
