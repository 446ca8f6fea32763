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
                          "ixy=\"0\" ixz=\"0\" iyz=\"0\"/></inertial></link>\n"
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
