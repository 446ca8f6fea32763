// Where a scene's build errors are shown (issue 17): the builder's ModelError names element kind,
// index and field, and the loader points at that element's key in the YAML file, or at the link
// or joint in an included URDF. One case per field the builder raises from a scene file; the
// expected line is the one marked "#<". Values the loader itself refuses earlier are located by
// the loader; cases of that kind are here too, so each field's location is checked once.
#include <gtest/gtest.h>

#include <sstream>

#include "tests/scene/scene_test_util.h"

namespace rbs::test {
namespace {

/// Two links on revolute joints about z, plus what a case adds.
std::string scene(const std::string& more_bodies, const std::string& more_joints, const std::string& sections = "") {
  return "name: locations\n"
         "bodies:\n"
         "  - {name: a, mass: 1, inertia: [0.01, 0.01, 0.01, 0, 0, 0]}\n"
         "  - {name: b, mass: 1, inertia: [0.01, 0.01, 0.01, 0, 0, 0]}\n" +
         more_bodies +
         "joints:\n"
         "  - {name: ja, type: revolute, parent: world, child: a, axis: [0, 0, 1]}\n"
         "  - {name: jb, type: revolute, parent: a, child: b, axis: [0, 0, 1]}\n" +
         more_joints + sections;
}

/// A third body c, and its joint from b with the given extra lines.
const std::string kBodyC = "  - {name: c, mass: 1, inertia: [0.01, 0.01, 0.01, 0, 0, 0]}\n";
std::string jointC(const std::string& type, const std::string& lines) {
  return "  - name: jc\n"
         "    type: " + type + "\n"
         "    parent: b\n"
         "    child: c\n" + lines;
}

struct Case {
  const char* label;  ///< the field, as ModelField names it
  std::string yaml;
  const char* fragment;
};

/// The 1-based line that ends with the marker.
int markedLine(const std::string& text) {
  std::istringstream in(text);
  std::string line;
  for (int n = 1; std::getline(in, line); ++n)
    if (line.size() >= 2 && line.compare(line.size() - 2, 2, "#<") == 0) return n;
  return 0;
}

std::vector<Case> cases() {
  const std::string spring_frames = "    frames: [{body: world}, {body: b}]\n";
  return {
      {"gravity", "gravity: [0, 0, .nan]  #<\n" + scene("", ""), "NaN"},
      {"body name", scene("  - name: world  #<\n    mass: 1\n    inertia: [1, 1, 1, 0, 0, 0]\n", ""), "reserved"},
      {"mass", scene("  - name: c\n    mass: -1  #<\n    inertia: [1, 1, 1, 0, 0, 0]\n", jointC("fixed", "")), "≥ 0"},
      {"inertia", scene("  - name: c\n    mass: 1\n    inertia: [1, 1, -0.1, 0, 0, 0]  #<\n", jointC("fixed", "")),
       "positive semidefinite"},
      {"body without joint", scene("  - name: c  #<\n    mass: 1\n    inertia: [1, 1, 1, 0, 0, 0]\n", ""),
       "no parent joint"},
      {"parent", scene(kBodyC, "  - name: jc\n    type: fixed\n    parent: nope  #<\n    child: c\n"), "'nope' does not exist"},
      {"child", scene("", "  - name: jc\n    type: fixed\n    parent: world\n    child: b  #<\n"), "already has parent joint"},
      {"joint cycle",
       scene(kBodyC + "  - {name: d, mass: 1, inertia: [0.01, 0.01, 0.01, 0, 0, 0]}\n",
             "  - {name: jc, type: fixed, parent: d, child: c}  #<\n  - {name: jd, type: fixed, parent: c, child: d}\n"),
       "cycle"},
      {"parent placement", scene(kBodyC, jointC("fixed", "    origin: {rotation: {matrix: [[2, 0, 0], [0, 2, 0], [0, 0, 2]]}}  #<\n")),
       "rotation"},
      {"axis", scene(kBodyC, jointC("revolute", "    axis: [0, 0, 2]  #<\n")), "unit"},
      {"second axis", scene(kBodyC, jointC("universal", "    axis: [0, 0, 1]\n    axis2: [0, 0, 1]  #<\n")), "parallel"},
      {"armature", scene(kBodyC, jointC("fixed", "    armature: 0.1  #<\n")), "armature"},
      {"initial position", scene(kBodyC, jointC("spherical", "    initial: {position: 0.3}  #<\n")), "position"},
      {"limits", scene(kBodyC, jointC("revolute", "    limits: {lower: 1, upper: 0}  #<\n")), "lower"},
      {"first frame", scene("", "", "springs:\n  - name: s\n    frames:\n      - {body: nope}  #<\n      - {body: b}\n"),
       "'nope' does not exist"},
      {"second frame", scene("", "", "springs:\n  - name: s\n    frames:\n      - {body: world}\n      - {body: nope}  #<\n"),
       "'nope' does not exist"},
      {"frames", scene("", "", "springs:\n  - name: s\n    frames: [{body: b}, {body: b}]  #<\n"), "itself"},
      {"stiffness", scene("", "", "springs:\n  - name: s\n" + spring_frames + "    stiffness: -1  #<\n"), "≥ 0"},
      {"rotational stiffness",
       scene("", "", "springs:\n  - name: s\n" + spring_frames + "    rotational_stiffness: [-1, 0, 0, 0, 0, 0]  #<\n"),
       "positive semidefinite"},
      {"rotational damping",
       scene("", "", "dampers:\n  - name: d\n" + spring_frames + "    rotational_damping: [0, 0, -1, 0, 0, 0]  #<\n"),
       "positive semidefinite"},
      {"stabilization frequency",
       scene("", "", "loop_closures:\n  - name: l\n" + spring_frames + "    frequency: -1  #<\n"), "≥ 0"},
      {"joint spring's joint", scene("", "", "joint_springs:\n  - joint: nope  #<\n    stiffness: 1\n"), "does not exist"},
      {"joint spring on a ball joint",
       scene(kBodyC, jointC("spherical", ""), "joint_springs:\n  - joint: jc  #<\n    stiffness: 1\n"), "spherical"},
      {"external wrench's body", scene("", "", "external_wrenches:\n  - body: nope  #<\n    force: [0, 0, 1]\n"),
       "does not exist"},
      {"actuator's joint", scene("", "", "actuators:\n  - name: u\n    type: joint_effort\n    joint: nope  #<\n"),
       "'nope' does not exist"},
      {"component",
       scene("", "", "actuators:\n  - name: u\n    type: joint_effort\n    joint: jb\n    component: 3  #<\n"),
       "out of range"},
      {"servo's joint",
       scene(kBodyC, jointC("revolute", "    coordinates: unit_circle\n"),
             "actuators:\n  - name: u\n    type: servo\n    joint: jc  #<\n    stiffness: 1\n"),
       "angle coordinates"},
      {"actuator's body", scene("", "", "actuators:\n  - name: f\n    type: body_force\n    body: nope  #<\n"),
       "'nope' does not exist"},
      {"actuator name", scene("", "", "actuators:\n  - {name: u, type: joint_effort, joint: jb}\n  - name: u  #<\n"
                                      "    type: joint_effort\n    joint: ja\n"),
       "more than one"},
      {"propeller's joint",
       scene(kBodyC, jointC("prismatic", ""),
             "propellers:\n  - name: p\n    joint: jc  #<\n    thrust_coefficient: 1e-5\n"
             "    motor: {type: current, torque_constant: 0.01}\n"),
       "must be revolute"},
      {"propeller name taken by an actuator",
       scene("", "", "actuators:\n  - {name: p, type: body_force, body: b}\n"
                     "propellers:\n  - name: p  #<\n    joint: jb\n    thrust_coefficient: 1e-5\n"
                     "    motor: {type: current, torque_constant: 0.01}\n"),
       "thrust inputs"},
      {"thrust direction",
       scene("", "", "propellers:\n  - name: p\n    joint: jb\n    thrust_direction: [1, 0, 0]  #<\n"
                     "    thrust_coefficient: 1e-5\n    motor: {type: current, torque_constant: 0.01}\n"),
       "parallel"},
  };
}

class SceneErrorLocations : public SceneDir {};

TEST_F(SceneErrorLocations, EachBuildErrorPointsAtTheKeyItIsAbout) {
  for (const Case& c : cases()) {
    SCOPED_TRACE(c.label);
    const int line = markedLine(c.yaml);
    ASSERT_GT(line, 0) << "no #< marker";
    expectError(c.yaml, line, 0, {c.fragment});
  }
}

TEST_F(SceneErrorLocations, AnErrorInAnIncludedUrdfPointsAtItsLink) {
  const auto urdf = write("robot.urdf",
                          "<robot name=\"r\">\n"
                          "  <link name=\"base\">\n"
                          "    <inertial><mass value=\"1\"/><inertia ixx=\"1\" iyy=\"1\" izz=\"1\" ixy=\"0\" ixz=\"0\" "
                          "iyz=\"0\"/></inertial>\n"
                          "  </link>\n"
                          "  <link name=\"arm\">\n"
                          "    <inertial><mass value=\"1\"/><inertia ixx=\"1\" iyy=\"1\" izz=\"1\" ixy=\"0\" ixz=\"0\" "
                          "iyz=\"0\"/></inertial>\n"
                          "    <visual><geometry><box size=\"-1 1 1\"/></geometry></visual>\n"
                          "  </link>\n"
                          "  <joint name=\"elbow\" type=\"continuous\">\n"
                          "    <parent link=\"base\"/><child link=\"arm\"/><axis xyz=\"0 0 1\"/>\n"
                          "  </joint>\n"
                          "</robot>\n");
  // Line 5 is <link name="arm">, whose box has a negative edge: a visual the builder refuses.
  try {
    loadScene(write("scene.yaml", "name: with_urdf\ninclude: robot.urdf\n"));
    ADD_FAILURE() << "loadScene did not throw";
  } catch (const SceneError& e) {
    EXPECT_NE(std::string(e.what()).find("sizes"), std::string::npos) << e.what();
    EXPECT_EQ(e.file(), urdf.string()) << e.what();
    EXPECT_EQ(e.line(), 5) << e.what();
  }
  // A .urdf opened directly: the same place.
  try {
    loadScene(urdf);
    ADD_FAILURE() << "loadScene did not throw";
  } catch (const SceneError& e) {
    EXPECT_EQ(e.file(), urdf.string()) << e.what();
    EXPECT_EQ(e.line(), 5) << e.what();
  }
}

}  // namespace
}  // namespace rbs::test
