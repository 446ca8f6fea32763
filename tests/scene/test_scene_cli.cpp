// rbsim-cli end to end: the built executable (RBSIM_CLI) on good and bad scenes, exit codes and
// what it prints.
#include <gtest/gtest.h>
#include <sys/wait.h>

#include <fstream>
#include <sstream>

#include "tests/scene/scene_test_util.h"

namespace rbs {
namespace {

using test::CliResult;
class Cli : public test::SceneDir {};

const char* kPendulum =
    "name: pendulum\n"
    "bodies:\n"
    "  - {name: link, mass: 1, com: [0, 0, -0.5], inertia: [0.1, 0.1, 0.01, 0, 0, 0]}\n"
    "joints:\n"
    "  - {name: hinge, type: revolute, parent: world, child: link, axis: [0, 1, 0]}\n"
    "actuators:\n"
    "  - {name: motor, type: joint_effort, joint: hinge}\n";

TEST_F(Cli, CheckPrintsASummaryAndExitsZero) {
  const auto file = write("pendulum.yaml", kPendulum);
  const CliResult r = run("check '" + file.string() + "'");
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out, file.string() + ": 1 body, nu = 1, n = 1, 1 input, 0 loop closures\n");
  EXPECT_EQ(r.err, "");
}

TEST_F(Cli, WarningsGoToStderrWithTheirPlaceAndTheCommandGoesOn) {
  const auto urdf = write("arm.urdf",
                          "<robot name=\"arm\">\n"
                          "  <link name=\"world\"/>\n"
                          "  <link name=\"a\"><inertial><mass value=\"1\"/><inertia ixx=\"0.01\" iyy=\"0.01\" izz=\"0.01\" "
                          "ixy=\"0\" ixz=\"0\" iyz=\"0\"/></inertial><visual><geometry><box size=\"0.1 0.1 0.1\"/></geometry>"
                          "</visual></link>\n"
                          "  <joint name=\"j1\" type=\"continuous\"><parent link=\"world\"/><child link=\"a\"/>"
                          "<axis xyz=\"0 1 0\"/><dynamics friction=\"0.3\"/></joint>\n"
                          "</robot>\n");
  const auto scene = write("arm.yaml", "name: arm\ninclude: arm.urdf\n");
  for (const auto& file : {urdf, scene}) {
    const CliResult r = run("check '" + file.string() + "'");
    EXPECT_EQ(r.exit_code, 0) << r.err;
    EXPECT_EQ(r.err, urdf.string() + ":4:3: warning: joint friction (<dynamics friction>) is off (--joint-friction or "
                                     "joint_friction: true models it as smooth Coulomb friction); ignored on 1 joint: 'j1'\n");
  }
  // asked for, it is modelled and nothing is said
  const CliResult on = run("check '" + urdf.string() + "' --joint-friction");
  EXPECT_EQ(on.exit_code, 0) << on.err;
  EXPECT_EQ(on.err, "");
  const auto keyed = write("keyed.yaml", "name: arm\ninclude: arm.urdf\njoint_friction: true\n");
  EXPECT_EQ(loadScene(keyed).model.joint_spring_dampers.at(0).friction, 0.3);
}

// A mesh that exists but cannot be drawn (here an OBJ that is an error page, the kind of file a
// failed download leaves behind; the loader itself only sniffs STL files): `check` says so, as
// `render` and the window do, naming the file and the body; the model itself is fine (exit 0).
TEST_F(Cli, CheckReportsAMeshThatCannotBeRead) {
  write("broken.obj", "<html>404 Not Found</html>\n");
  const auto urdf = write("hand.urdf",
                          "<robot name=\"hand\">\n"
                          "  <link name=\"palm\"><inertial><mass value=\"1\"/><inertia ixx=\"0.01\" iyy=\"0.01\" izz=\"0.01\" "
                          "ixy=\"0\" ixz=\"0\" iyz=\"0\"/></inertial><visual><geometry><mesh filename=\"broken.obj\"/></geometry>"
                          "</visual></link>\n"
                          "</robot>\n");
  const CliResult r = run("check '" + urdf.string() + "'");
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.err.find(urdf.string() + ": warning: cannot read mesh '"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("broken.obj'; drawn as a magenta box (body 'palm')"), std::string::npos) << r.err;
}

// A robot hand's fingers: strong joint damping on light links makes modes of 10⁵ 1/s, beyond rk4
// at 1 ms (the public Allegro hand diverged at t = 0.002 s on the defaults, issue 47). With no
// stepper named the scene gets rk_dopri5 and `check` says why; the run on the defaults finishes;
// rk4 asked for diverges with a message that names the joint and what would run; a named stepper
// is kept.
TEST_F(Cli, AStiffHandRunsOnTheDefaults) {
  const auto hand = write("hand.urdf", R"(<robot name="hand">
  <link name="world"/>
  <link name="palm"><inertial><mass value="0.4"/><inertia ixx="1e-4" iyy="1e-4" izz="1e-4" ixy="0" ixz="0" iyz="0"/></inertial></link>
  <joint name="mount" type="fixed"><parent link="world"/><child link="palm"/></joint>
  <link name="proximal"><inertial><origin xyz="0 0 0.02"/><mass value="0.01"/><inertia ixx="1e-6" iyy="1e-6" izz="5e-7" ixy="0" ixz="0" iyz="0"/></inertial></link>
  <joint name="knuckle" type="revolute"><parent link="palm"/><child link="proximal"/><origin xyz="0 0 0.05"/><axis xyz="0 1 0"/>
    <limit lower="-1" upper="1" effort="1" velocity="5"/><dynamics damping="0.3"/></joint>
  <link name="distal"><inertial><origin xyz="0 0 0.015"/><mass value="0.008"/><inertia ixx="5e-7" iyy="5e-7" izz="2e-7" ixy="0" ixz="0" iyz="0"/></inertial></link>
  <joint name="tip" type="revolute"><parent link="proximal"/><child link="distal"/><origin xyz="0 0 0.04"/><axis xyz="0 1 0"/>
    <limit lower="-1" upper="1" effort="1" velocity="5"/><dynamics damping="0.3"/></joint>
</robot>
)");
  const CliResult check = run("check '" + hand.string() + "'");
  EXPECT_EQ(check.exit_code, 0) << check.err;
  EXPECT_NE(check.out.find("integrator: rk_dopri5 (rtol 1e-08, atol 1e-08), the default for this model: its fastest "
                           "joint mode runs at"), std::string::npos) << check.out;
  EXPECT_NE(check.out.find("(joint 'tip': "), std::string::npos) << check.out;
  const std::string bent = " --set joint.knuckle.position=0.5 --set joint.tip.position=-0.5 --t-end 1 --out '" +
                           (dir_ / "hand.csv").string() + "'";
  const CliResult defaults = run("run '" + hand.string() + "'" + bent);
  EXPECT_EQ(defaults.exit_code, 0) << defaults.err;
  EXPECT_NE(defaults.err.find("simulated 1 s"), std::string::npos) << defaults.err;
  EXPECT_NE(defaults.err.find("stepper rk_dopri5"), std::string::npos) << defaults.err;
  const CliResult rk4 = run("run '" + hand.string() + "'" + bent + " --integrator rk4");
  EXPECT_NE(rk4.err.find("the integration diverged"), std::string::npos) << rk4.err;
  EXPECT_NE(rk4.err.find("(joint 'tip'), beyond rk4 at dt = 0.001 s: use the error-controlled rk_dopri5, or dt below"),
            std::string::npos) << rk4.err;
  const CliResult named = run("check '" + hand.string() + "' --set integrator.stepper=rk4");
  EXPECT_EQ(named.exit_code, 0) << named.err;
  EXPECT_EQ(named.out.find("integrator:"), std::string::npos) << named.out;
}

// The bounds as scene keys for an included URDF (the larger of key and option wins) and on the
// command line.
TEST_F(Cli, BoundsOnMassAndInertiaAsSceneKeysAndOptions) {
  write("finger.urdf", "<robot name=\"f\"><link name=\"world\"/><link name=\"finger\"/>"
                       "<joint name=\"curl\" type=\"continuous\"><parent link=\"world\"/><child link=\"finger\"/>"
                       "<origin xyz=\"0.1 0 0\"/><axis xyz=\"0 1 0\"/></joint></robot>\n");
  const Scene keyed = load("name: f\ninclude: finger.urdf\nbound_mass: 0.002\nbound_inertia: 1.0e-6\n");
  EXPECT_EQ(keyed.model.bodies[0].mass, 0.002);
  EXPECT_EQ(keyed.model.bodies[0].inertia_com(1, 1), 1e-6);
  const CliResult r = run("check '" + (dir_ / "finger.urdf").string() + "' --bound-mass 0.001 --bound-inertia 1e-5");
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.err.find("raised the mass or the least principal moment of 1 body: 'finger'"), std::string::npos) << r.err;
  expectError("name: f\nbound_mass: -1\nbodies: []\n", 2, 13, {"bound_mass: expected a number ≥ 0"});
}

// The bounds apply to a scene file's own bodies too (issue 47): a massless body alone on a hinge is
// an error at the hinge that names the way forward; with bound_mass (key or option) it loads, its centre of mass
// at its origin, with one warning at the body. A negative mass stays an error whatever the bounds.
TEST_F(Cli, BoundsRaiseTheScenesOwnBodies) {
  const std::string massless =
      "name: f\n"
      "bodies:\n"
      "  - {name: arm, mass: 2, com: [0, 0, -0.5], inertia: [0.1, 0.1, 0.01, 0, 0, 0]}\n"
      "  - {name: finger, mass: 0, com: [0, 0, -0.1], inertia: [0, 0, 0, 0, 0, 0]}\n"
      "joints:\n"
      "  - {name: shoulder, type: revolute, parent: world, child: arm, axis: [0, 1, 0]}\n"
      "  - {name: curl, type: revolute, parent: arm, child: finger, axis: [0, 1, 0], origin: {xyz: [0, 0, -1]}}\n";
  expectError(massless, 7, 5, {"joint 'curl': the mass matrix is singular", "--bound-mass and --bound-inertia, scene keys"});
  const auto file = write("massless.yaml", massless);
  const CliResult r = run("check '" + file.string() + "' --bound-mass 0.001 --bound-inertia 1e-6");
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.err, file.string() + ":4:5: warning: bound_mass 0.001 kg and bound_inertia 1e-06 kg m² raised the mass or the "
                                   "least principal moment of 1 body: 'finger'\n");
  const Scene keyed = load("bound_mass: 0.001\nbound_inertia: 1.0e-6\n" + massless);
  const Body& finger = keyed.model.bodies[keyed.model.bodyIndex("finger")];
  EXPECT_EQ(finger.mass, 0.001);
  EXPECT_EQ(finger.com, Vec3::Zero());
  EXPECT_EQ(finger.inertia_com(0, 0), 1e-6);
  EXPECT_EQ(keyed.model.bodies[keyed.model.bodyIndex("arm")].mass, 2.0);  // above the bound: as written
  std::string negative = massless;
  negative.replace(negative.find("mass: 0,"), 8, "mass: -1,");
  expectError("bound_mass: 0.001\n" + negative, 5, 26, {"body 'finger': mass is -1 kg; expected ≥ 0"});
}

TEST_F(Cli, CheckAppliesSetAndFloating) {
  const auto file = write("pendulum.yaml", kPendulum);
  const CliResult r = run("check '" + file.string() + "' --set joint.hinge.position=0.3 --set=gravity=[0,0,-1]");
  EXPECT_EQ(r.exit_code, 0) << r.err;
  const CliResult bad = run("check '" + file.string() + "' --set joint.hing.position=0.3");
  EXPECT_EQ(bad.exit_code, 2);
  EXPECT_NE(bad.err.find("did you mean 'hinge'?"), std::string::npos) << bad.err;
}

TEST_F(Cli, CheckReportsErrorsWithTheirLineAndExitsTwo) {
  std::string yaml = kPendulum;
  yaml.replace(yaml.find("mass: 1"), 7, "mass: -1");
  const auto file = write("bad.yaml", yaml);
  const CliResult r = run("check '" + file.string() + "'");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(r.out, "");
  EXPECT_NE(r.err.find(file.string() + ":3:24: body 'link': mass is -1 kg"), std::string::npos) << r.err;
}

TEST_F(Cli, UsageErrorsExitTwoAndHelpExitsZero) {
  EXPECT_EQ(run("").exit_code, 2);
  const CliResult unknown = run("frobnicate");
  EXPECT_EQ(unknown.exit_code, 2);
  EXPECT_NE(unknown.err.find("unknown command 'frobnicate'"), std::string::npos);
  EXPECT_NE(unknown.err.find("usage: rbsim-cli"), std::string::npos);
  const CliResult option = run("check --bogus x.yaml");
  EXPECT_EQ(option.exit_code, 2);
  EXPECT_NE(option.err.find("unknown option '--bogus'"), std::string::npos);
  EXPECT_EQ(run("check").exit_code, 2);
  const CliResult help = run("--help");
  EXPECT_EQ(help.exit_code, 0);
  EXPECT_NE(help.out.find("check"), std::string::npos);
  const CliResult check_help = run("check --help");
  EXPECT_EQ(check_help.exit_code, 0);
  EXPECT_NE(check_help.out.find("--set PATH=VALUE"), std::string::npos);
}

}  // namespace
}  // namespace rbs
