// A controller on an imported robot without writing the robot by hand (scenes/arm7_tracking.yaml):
// `joint_actuators` gives the URDF's joints joint-effort actuators limited by <limit effort>, and
// the prototype controller tracks a joint-space move from an initial error, saturating where the
// URDF says. Errors in the key are located. A task-space reference (scenes/arm7_tool_path.yaml:
// a point of the hand on a circle, attitude held) is tracked by the same controllers.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <sstream>
#include <string>
#include <vector>

#include "core/math/se3.h"
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

/// The point 10 cm beyond link7's flange (scenes/arm7_tool_path.yaml) and link7's attitude at
/// every recorded sample.
struct ToolTrace {
  std::vector<double> t;
  std::vector<Vec3> point;
  std::vector<Mat3> R;
};
ToolTrace toolTrace(const test::SceneRun& run) {
  ToolTrace trace;
  const int px = run.column("body.link7.px");
  for (std::size_t k = 0; k < run.rec.time.size(); ++k) {
    const std::span<const double> v = run.rec.values[k];
    const Mat3 R = quaternionToRotation(Vec4(v[px + 3], v[px + 4], v[px + 5], v[px + 6]));
    trace.t.push_back(run.rec.time[k]);
    trace.point.push_back(Vec3(v[px], v[px + 1], v[px + 2]) + R * Vec3(0, 0, 0.1));
    trace.R.push_back(R);
  }
  return trace;
}

TEST(UrdfControl, TheImportedArmsToolDrawsATaskSpaceCircleWithItsAttitudeHeld) {
  // Without an initial error the reference (inverse kinematics of the circle) is tracked exactly:
  // the point stays on the circle through its start, 0.1 m below the centre, in the plane y = y₀.
  const test::SceneRun exact = test::runLibraryScene("arm7_tool_path.yaml");
  ASSERT_TRUE(exact.ok) << exact.message;
  const ToolTrace ref = toolTrace(exact);
  const Vec3 centre = ref.point.front() + Vec3(0, 0, 0.1);
  double radius_error = 0.0, attitude_error = 0.0, lowest = 1e9, highest = -1e9;
  for (std::size_t k = 0; k < ref.t.size(); ++k) {
    radius_error = std::max(radius_error, std::abs((ref.point[k] - centre).norm() - 0.1));
    attitude_error = std::max(attitude_error, (ref.R[k] - ref.R.front()).norm());
    lowest = std::min(lowest, ref.point[k].z());
    highest = std::max(highest, ref.point[k].z());
  }
  EXPECT_LT(radius_error, 1e-9);  // 7e-13 measured: on the circle at every sample
  EXPECT_LT(attitude_error, 1e-9);
  EXPECT_NEAR(highest - lowest, 0.2, 1e-6);  // the whole circle is drawn
  EXPECT_LT((ref.point.back() - ref.point.front()).norm(), 1e-9);  // two loops, back at the start
  // From 0.2 rad off at the shoulder, the prototype controller and computed torque both bring the
  // point onto the circle and the hand to its attitude. The centre and the attitude are given: by
  // default the circle would pass through the (displaced) initial point and the hand would keep
  // its (displaced) initial attitude. The reference then starts with a jump to the
  // circle's start (Newton from the displaced state), on the same branch of the kinematics.
  std::ostringstream at_centre;
  at_centre.precision(17);
  at_centre << "reference.parameters.center=[" << centre.x() << ", " << centre.y() << ", " << centre.z() << "]";
  const Vec3 rpy = eulerZYXFromRotation(ref.R.front());
  std::ostringstream attitude;
  attitude.precision(17);
  attitude << "reference.parameters.rpy=[" << rpy.x() << ", " << rpy.y() << ", " << rpy.z() << "]";
  for (const std::string controller : {"prototype_energy", "computed_torque"}) {
    const test::SceneRun run =
        test::runLibraryScene("arm7_tool_path.yaml", {"joint.joint2.position=0.3", at_centre.str(), attitude.str()}, controller);
    ASSERT_TRUE(run.ok) << controller << ": " << run.message;
    const ToolTrace trace = toolTrace(run);
    EXPECT_GT((trace.point.front() - ref.point.front()).norm(), 0.1) << controller;  // 0.13 m
    double late = 0.0;
    for (std::size_t k = 0; k < trace.t.size(); ++k)
      if (trace.t[k] >= 3.0)
        late = std::max(late, (trace.point[k] - ref.point[k]).norm() + (trace.R[k] - ref.R[k]).norm());
    EXPECT_LT(late, 1e-4) << controller;
  }
}

class InitialPositionsKey : public test::SceneDir {};

TEST_F(InitialPositionsKey, SetsTheIncludedJointsAndSetWins) {
  const std::string arm = std::string(RBS_SOURCE_DIR) + "/assets/urdf/arm7.urdf";
  const std::string yaml = "name: a\ninclude: " + arm + "\ninitial_positions: {joint2: 0.5, joint4: -1.2}\n";
  const Scene scene = load(yaml, {"joint.joint4.position=-1.0"});
  const Model& m = scene.model;
  auto q = [&](const std::string& joint) { return m.initial_state.x(m.joints[m.jointIndex(joint)].x_offset); };
  EXPECT_EQ(q("joint2"), 0.5);
  EXPECT_EQ(q("joint4"), -1.0);  // --set after the file
  EXPECT_EQ(q("joint3"), 0.0);
  expectError("name: a\ninclude: " + arm + "\ninitial_positions: {joint2: 0.5, jiont4: 1}\n", 3, 42,
              {"no joint named 'jiont4'", "joint4"});
  expectError("name: a\ninclude: " + arm + "\ninitial_positions: [0.5]\n", 3, 20, {"expected a map JOINT: position"});
  expectError("name: a\ninitial_positions: {j: 1}\nbodies: []\n", 2, 20, {"applies to the joints of an included URDF"});
  // The file's own joints have `initial`.
  expectError("name: a\ninclude: " + arm + "\nbodies: [{name: tool, mass: 0.2, inertia: [1e-4, 1e-4, 1e-4, 0, 0, 0]}]\n"
              "joints: [{name: mount, type: revolute, parent: link7, child: tool, axis: [0, 0, 1]}]\n"
              "initial_positions: {mount: 0.1}\n",
              5, 21, {"'mount' is a joint of this file", "initial"});
  // --set link.* needs a URDF.
  expectError("name: a\nbodies: []\n", 0, 0, {"--set link.x.mass=1", "links of an included URDF"}, {"link.x.mass=1"});
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
