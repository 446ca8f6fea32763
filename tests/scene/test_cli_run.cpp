// rbsim-cli run and bench end to end: the built executable (RBSIM_CLI) on shipped scenes and URDF
// robots, the CSV it writes (columns, rows, values), exit codes and messages.
#include <gtest/gtest.h>
#include <sys/wait.h>

#include <cmath>
#include <cstdlib>
#include <fstream>
#include <map>
#include <set>
#include <sstream>

#include "tests/scene/scene_test_util.h"

namespace rbs {
namespace {

struct Csv {
  std::vector<std::string> header;
  std::vector<std::vector<double>> rows;
  int column(const std::string& name) const {
    for (std::size_t i = 0; i < header.size(); ++i)
      if (header[i] == name) return static_cast<int>(i);
    return -1;
  }
  double at(std::size_t row, const std::string& name) const {
    const int c = column(name);
    EXPECT_GE(c, 0) << "no column " << name;
    return c < 0 ? std::nan("") : rows.at(row).at(static_cast<std::size_t>(c));
  }
};

std::vector<std::string> split(const std::string& line) {
  std::vector<std::string> out;
  std::stringstream ss(line);
  std::string cell;
  while (std::getline(ss, cell, ',')) out.push_back(cell);
  return out;
}

Csv parseCsv(std::istream& in) {
  Csv csv;
  std::string line;
  if (!std::getline(in, line)) return csv;
  csv.header = split(line);
  while (std::getline(in, line)) {
    if (line.empty()) continue;
    std::vector<double> row;
    for (const auto& cell : split(line)) row.push_back(std::strtod(cell.c_str(), nullptr));
    EXPECT_EQ(row.size(), csv.header.size()) << "row " << csv.rows.size() << ": " << line;
    csv.rows.push_back(std::move(row));
  }
  return csv;
}

Csv readCsv(const std::filesystem::path& p) {
  std::ifstream in(p);
  EXPECT_TRUE(in.good()) << "cannot open " << p;
  return parseCsv(in);
}

std::string source(const std::string& relative) { return std::string(RBS_SOURCE_DIR) + "/" + relative; }

using test::CliResult;

class CliRun : public test::SceneDir {
 protected:
  std::string csvPath() const { return (dir_ / "out.csv").string(); }
  /// The files in the test directory other than the captured stdout/stderr.
  std::vector<std::string> outputFiles() const {
    std::vector<std::string> names;
    for (const auto& e : std::filesystem::directory_iterator(dir_)) {
      const std::string n = e.path().filename().string();
      if (n != "stdout.txt" && n != "stderr.txt") names.push_back(n);
    }
    std::sort(names.begin(), names.end());
    return names;
  }
};

/// The documented column order: t; body.NAME.px/py/pz/qw/qx/qy/qz per body in model order;
/// energy.kinetic, energy.potential, energy.total; then the other channels, among them the
/// bodies' velocities body.NAME.vx … wz (no pose after the energies). Returns the rest.
std::vector<std::string> expectDocumentedColumns(const Csv& csv, const Model& model) {
  std::vector<std::string> expected = {"t"};
  for (const auto& b : model.bodies)
    for (const char* c : {"px", "py", "pz", "qw", "qx", "qy", "qz"}) expected.push_back("body." + b.name + "." + c);
  for (const auto& f : model.frames)
    for (const char* c : {"px", "py", "pz", "qw", "qx", "qy", "qz"}) expected.push_back("frame." + f.name + "." + c);
  for (const char* e : {"energy.kinetic", "energy.potential", "energy.total"}) expected.push_back(e);
  EXPECT_GE(csv.header.size(), expected.size());
  const std::size_t n = std::min(expected.size(), csv.header.size());
  for (std::size_t i = 0; i < n; ++i) EXPECT_EQ(csv.header[i], expected[i]) << "column " << i;
  std::vector<std::string> rest(csv.header.begin() + static_cast<long>(n), csv.header.end());
  const std::set<std::string> velocities = {"vx", "vy", "vz", "wx", "wy", "wz"};
  for (const auto& name : rest) {
    if (name.rfind("body.", 0) == 0) {
      EXPECT_TRUE(velocities.count(name.substr(name.rfind('.') + 1))) << name << " after the energies";
    }
    EXPECT_NE(name.rfind("frame.", 0), 0u) << name << " after the energies";
    EXPECT_NE(name.rfind("energy.", 0), 0u) << name << " after the energies";
  }
  // Column names are unique.
  std::map<std::string, int> seen;
  for (const auto& h : csv.header) EXPECT_EQ(++seen[h], 1) << "duplicate column " << h;
  return rest;
}

bool contains(const std::vector<std::string>& v, const std::string& s) {
  return std::find(v.begin(), v.end(), s) != v.end();
}

/// Sampling times t_k = k dt_out: the last one equals t_end (tolerance: printed with 17 digits,
/// accumulated k·dt_out rounding only).
void expectTimes(const Csv& csv, double t_end, double dt_out) {
  const long rows = std::lround(t_end / dt_out) + 1;
  ASSERT_EQ(static_cast<long>(csv.rows.size()), rows);
  for (std::size_t k = 0; k < csv.rows.size(); ++k)
    EXPECT_NEAR(csv.rows[k][0], static_cast<double>(k) * dt_out, 1e-9) << "row " << k;
}

TEST_F(CliRun, DoublePendulumWritesTheDocumentedColumnsAndConservesEnergy) {
  const std::string scene = source("scenes/double_pendulum.yaml");
  const CliResult r = run("run '" + scene + "' --t-end 1 --dt-out 0.01 --quiet --out '" + csvPath() + "'");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.err, "");  // --quiet: no summary
  EXPECT_EQ(r.out, "");
  const Csv csv = readCsv(csvPath());
  const auto rest = expectDocumentedColumns(csv, loadScene(scene).model);
  EXPECT_TRUE(contains(rest, "power.input"));
  EXPECT_TRUE(contains(rest, "power.dissipation"));
  EXPECT_TRUE(contains(rest, "constraint.drift"));
  expectTimes(csv, 1.0, 0.01);
  // Passive and frictionless: W = T + V constant. rk_dopri5 at rtol = atol = 1e-10 over 1 s keeps
  // it to ~1e-9 J; 1e-6 J leaves room for other tolerances in the scene file.
  const double w0 = csv.at(0, "energy.total");
  for (std::size_t k = 0; k < csv.rows.size(); ++k) EXPECT_NEAR(csv.at(k, "energy.total"), w0, 1e-6) << "row " << k;
  EXPECT_NEAR(csv.at(0, "energy.kinetic"), 0.0, 1e-12);  // released at rest
  EXPECT_GT(csv.at(csv.rows.size() - 1, "energy.kinetic"), 0.1);  // and it moved
  EXPECT_EQ(outputFiles(), std::vector<std::string>{"out.csv"});  // no temporary file left
}

TEST_F(CliRun, ControlledSceneWritesTheControllerChannelsAndTracks) {
  const std::string scene = source("scenes/quadcopter.yaml");
  const CliResult r = run("run '" + scene + "' --t-end 6 --dt-out 0.05 --quiet --out '" + csvPath() + "'");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const Csv csv = readCsv(csvPath());
  const auto rest = expectDocumentedColumns(csv, loadScene(scene).model);
  for (const char* c : {"error.position", "error.attitude", "control.energy", "control.template_power",
                        "control.matching_residual", "saturation.thrust1", "u.thrust4"})
    EXPECT_TRUE(contains(rest, c)) << c;
  const std::size_t last = csv.rows.size() - 1;
  EXPECT_NEAR(csv.at(0, "error.position"), std::sqrt(0.75), 1e-12);  // 0.5 m on every axis
  EXPECT_LT(csv.at(last, "error.position"), 1e-4);
  // A gain set from the command line reaches the controller: a softer template is slower.
  const CliResult soft = run("run '" + scene + "' --t-end 6 --dt-out 0.05 --quiet --set controller.pole=2 --out '" +
                             csvPath() + "'");
  ASSERT_EQ(soft.exit_code, 0) << soft.err;
  EXPECT_GT(readCsv(csvPath()).at(last, "error.position"), 1e-3);
  // --controller none: zero inputs, no controller channels.
  ASSERT_EQ(run("run '" + scene + "' --t-end 0.1 --quiet --controller none --out '" + csvPath() + "'").exit_code, 0);
  EXPECT_FALSE(contains(readCsv(csvPath()).header, "error.position"));
}

TEST_F(CliRun, BadControllerSettingsExitTwoWithTheSceneLine) {
  const std::string scene = source("scenes/quadcopter.yaml");
  const CliResult range = run("run '" + scene + "' --set controller.pole=-1 --out '" + csvPath() + "'");
  EXPECT_EQ(range.exit_code, 2);
  EXPECT_NE(range.err.find(scene + ":"), std::string::npos) << range.err;
  EXPECT_NE(range.err.find("controller: controller parameter 'pole' = -1 is outside its range"), std::string::npos)
      << range.err;
  const CliResult unknown = run("check '" + scene + "' --set controller.kp=3");
  EXPECT_EQ(unknown.exit_code, 2);
  EXPECT_NE(unknown.err.find("unknown controller parameter 'kp'"), std::string::npos) << unknown.err;
  const CliResult listing = run("check '" + scene + "' --parameters");
  EXPECT_EQ(listing.exit_code, 0) << listing.err;
  EXPECT_NE(listing.out.find("  pole = 5 rad/s  [0.01, 1000] log"), std::string::npos) << listing.out;
  EXPECT_NE(listing.out.find("control.matching_residual"), std::string::npos) << listing.out;
}

TEST_F(CliRun, SummaryGoesToStderrWithoutQuiet) {
  const CliResult r =
      run("run '" + source("scenes/double_pendulum.yaml") + "' --t-end 0.1 --out '" + csvPath() + "'");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  for (const char* word : {"steps", "RHS evaluations", "wall time", "real-time factor", "max coordinate drift"})
    EXPECT_NE(r.err.find(word), std::string::npos) << word << " missing in: " << r.err;
  EXPECT_EQ(r.err.find('\r'), std::string::npos) << "progress bar although stderr is not a terminal";
}

TEST_F(CliRun, TricopterWithSuspendedLoad) {
  const std::string scene = source("scenes/tricopter_suspended_load.yaml");
  const CliResult r = run("run '" + scene + "' --t-end 0.05 --dt-out 0.005 --quiet --out '" + csvPath() + "'");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const Scene s = loadScene(scene);
  const Csv csv = readCsv(csvPath());
  const auto rest = expectDocumentedColumns(csv, s.model);
  for (const auto& a : s.model.actuators) EXPECT_TRUE(contains(rest, "u." + a.name)) << a.name;
  expectTimes(csv, 0.05, 0.005);
  // Zero inputs (no controller): every u column is 0.
  for (const auto& a : s.model.actuators) EXPECT_EQ(csv.at(csv.rows.size() - 1, "u." + a.name), 0.0) << a.name;
}

// A URDF robot whose root link has mass, so that it can float.
const char* kFloatingUrdf = R"(<?xml version="1.0"?>
<robot name="hammer">
  <link name="head">
    <inertial><mass value="2.0"/><inertia ixx="0.01" ixy="0" ixz="0" iyy="0.01" iyz="0" izz="0.01"/></inertial>
  </link>
  <joint name="hinge" type="revolute">
    <parent link="head"/>
    <child link="handle"/>
    <origin xyz="0 0 -0.1" rpy="0 0 0"/>
    <axis xyz="0 1 0"/>
    <limit lower="-1" upper="1" effort="5" velocity="3"/>
  </joint>
  <link name="handle">
    <inertial>
      <origin xyz="0 0 -0.2" rpy="0 0 0"/>
      <mass value="0.5"/>
      <inertia ixx="0.007" ixy="0" ixz="0" iyy="0.007" iyz="0" izz="0.0001"/>
    </inertial>
  </link>
</robot>
)";

TEST_F(CliRun, UrdfRobotFixedAndFloating) {
  // The shipped 7-joint arm, root fixed to the world.
  const std::string arm = source("assets/urdf/arm7.urdf");
  const CliResult fixed = run("run '" + arm + "' --t-end 0.1 --dt-out 0.01 --quiet --out '" + csvPath() + "'");
  ASSERT_EQ(fixed.exit_code, 0) << fixed.err;
  const Scene s = loadScene(arm);
  const Csv csv = readCsv(csvPath());
  expectDocumentedColumns(csv, s.model);
  expectTimes(csv, 0.1, 0.01);
  // Its root link is massless: it cannot float, and says where.
  const CliResult cannot = run("run '" + arm + "' --floating --t-end 0.1 --out '" + csvPath() + "'");
  EXPECT_EQ(cannot.exit_code, 2);
  EXPECT_NE(cannot.err.find(arm + ":13:3: link 'base_link': is massless and so is every link fixed to it"), std::string::npos)
      << cannot.err;

  // A robot with a massive root link, fixed and floating.
  const std::string urdf = write("hammer.urdf", kFloatingUrdf).string();
  const CliResult still = run("run '" + urdf + "' --t-end 0.1 --dt-out 0.01 --quiet --out '" + csvPath() + "'");
  ASSERT_EQ(still.exit_code, 0) << still.err;
  const Csv scsv = readCsv(csvPath());
  expectDocumentedColumns(scsv, loadScene(urdf).model);
  expectTimes(scsv, 0.1, 0.01);
  EXPECT_EQ(scsv.at(scsv.rows.size() - 1, "body.head.pz"), scsv.at(0, "body.head.pz"));  // fixed to the world

  const std::string floating_csv = (dir_ / "floating.csv").string();
  const CliResult floating =
      run("run '" + urdf + "' --floating --t-end 0.1 --dt-out 0.01 --quiet --out '" + floating_csv + "'");
  ASSERT_EQ(floating.exit_code, 0) << floating.err;
  const Scene sf = loadScene(urdf, {}, true);
  const Csv fcsv = readCsv(floating_csv);
  expectDocumentedColumns(fcsv, sf.model);
  expectTimes(fcsv, 0.1, 0.01);
  // Free fall from rest, no other force: every point drops g t²/2 = 0.049 m in 0.1 s
  // (rk4 at dt = 1 ms is exact for the quadratic; 1e-9 m for the CSV and rounding).
  EXPECT_NEAR(fcsv.at(fcsv.rows.size() - 1, "body.head.pz") - fcsv.at(0, "body.head.pz"), -0.5 * 9.81 * 0.01, 1e-9);
}

TEST_F(CliRun, SetChangesTheInitialState) {
  const std::string scene = source("scenes/double_pendulum.yaml");
  const CliResult r = run("run '" + scene + "' --set joint.shoulder.position=0.3 --t-end 0.02 --quiet --out '" +
                          csvPath() + "'");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const Csv csv = readCsv(csvPath());
  // link1 is rotated by 0.3 rad about y: q = (cos 0.15, 0, sin 0.15, 0); the elbow (link2's frame)
  // sits at R_y(0.3) (0, 0, −1) = (−sin 0.3, 0, −cos 0.3). Tolerance: 17-digit CSV, exact formulas.
  EXPECT_NEAR(csv.at(0, "body.link1.qw"), std::cos(0.15), 1e-12);
  EXPECT_NEAR(csv.at(0, "body.link1.qy"), std::sin(0.15), 1e-12);
  EXPECT_NEAR(csv.at(0, "body.link2.px"), -std::sin(0.3), 1e-12);
  EXPECT_NEAR(csv.at(0, "body.link2.pz"), -std::cos(0.3), 1e-12);
  // Without --set the scene's 2.0 rad.
  const CliResult d = run("run '" + scene + "' --t-end 0.02 --quiet --out '" + csvPath() + "'");
  ASSERT_EQ(d.exit_code, 0) << d.err;
  EXPECT_NEAR(readCsv(csvPath()).at(0, "body.link1.qw"), std::cos(1.0), 1e-12);
  // --set works for a URDF robot too (its joint names).
  const std::string urdf = source("assets/urdf/double_pendulum.urdf");
  const Scene s = loadScene(urdf);
  const std::string joint = s.model.joints.front().name;
  const CliResult u = run("run '" + urdf + "' --set joint." + joint + ".position=0.4 --t-end 0.01 --quiet --out '" +
                          csvPath() + "'");
  ASSERT_EQ(u.exit_code, 0) << u.err;
  const Csv ucsv = readCsv(csvPath());
  const std::string child = "body." + s.model.bodies.front().name + ".q";
  // A 0.4 rad rotation: |vector part of q| = sin 0.2 whatever the axis.
  const double qv = std::hypot(ucsv.at(0, child + "x"), ucsv.at(0, child + "y"), ucsv.at(0, child + "z"));
  EXPECT_NEAR(qv, std::sin(0.2), 1e-9);
}

TEST_F(CliRun, BadSceneExitsTwoWithTheLineAndKeepsAnExistingFile) {
  const auto file = write("bad.yaml",
                          "name: pendulum\n"
                          "bodies:\n"
                          "  - {name: link, mass: -1, com: [0, 0, -0.5], inertia: [0.1, 0.1, 0.01, 0, 0, 0]}\n"
                          "joints:\n"
                          "  - {name: hinge, type: revolute, child: link, axis: [0, 1, 0]}\n");
  write("out.csv", "old\n");
  const CliResult r = run("run '" + file.string() + "' --t-end 0.1 --out '" + csvPath() + "'");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find(file.string() + ":3:24: body 'link': mass is -1 kg"), std::string::npos) << r.err;
  EXPECT_EQ(slurp(csvPath()), "old\n");
  EXPECT_EQ(outputFiles(), (std::vector<std::string>{"bad.yaml", "out.csv"}));
  // A bad --set is a scene error as well.
  const CliResult s = run("run '" + source("scenes/double_pendulum.yaml") + "' --set joint.sholder.position=1 --out '" +
                          csvPath() + "'");
  EXPECT_EQ(s.exit_code, 2);
  EXPECT_NE(s.err.find("did you mean 'shoulder'?"), std::string::npos) << s.err;
}

TEST_F(CliRun, BadOptionsExitTwo) {
  const std::string scene = "'" + source("scenes/double_pendulum.yaml") + "'";
  const std::string out = " --out '" + csvPath() + "'";
  const CliResult integrator = run("run " + scene + " --integrator rk5" + out);
  EXPECT_EQ(integrator.exit_code, 2);
  EXPECT_NE(integrator.err.find("unknown integrator 'rk5'; available: "), std::string::npos) << integrator.err;
  EXPECT_NE(integrator.err.find("rk4"), std::string::npos) << integrator.err;
  const CliResult controller = run("run " + scene + " --controller pid" + out);
  EXPECT_EQ(controller.exit_code, 2);
  EXPECT_NE(controller.err.find("unknown controller 'pid'; available: none"), std::string::npos) << controller.err;
  const CliResult tol = run("run " + scene + " --integrator rk4 --rtol 1e-6" + out);
  EXPECT_EQ(tol.exit_code, 2);
  EXPECT_NE(tol.err.find("adaptive"), std::string::npos) << tol.err;
  for (const char* bad : {" --t-end -1", " --t-end abc", " --dt 0", " --dt-out nan", " --bogus"}) {
    const CliResult b = run("run " + scene + bad + out);
    EXPECT_EQ(b.exit_code, 2) << bad;
    EXPECT_NE(b.err.find("usage: rbsim-cli run"), std::string::npos) << bad << ": " << b.err;
  }
  const CliResult no_out = run("run " + scene);
  EXPECT_EQ(no_out.exit_code, 2);
  EXPECT_NE(no_out.err.find("--out"), std::string::npos) << no_out.err;
  const CliResult unwritable = run("run " + scene + " --t-end 0.01 --out '" + (dir_ / "no/such/dir.csv").string() + "'");
  EXPECT_EQ(unwritable.exit_code, 2);
  EXPECT_NE(unwritable.err.find("cannot write"), std::string::npos) << unwritable.err;
  EXPECT_TRUE(outputFiles().empty());
}

TEST_F(CliRun, OverridesOfTheIntegrator) {
  const std::string scene = "'" + source("scenes/double_pendulum.yaml") + "'";
  const CliResult a =
      run("run " + scene + " --integrator rk4 --dt 0.002 --t-end 0.1 --dt-out 0.02 --controller none --out '" +
          csvPath() + "'");
  ASSERT_EQ(a.exit_code, 0) << a.err;
  EXPECT_NE(a.err.find("50 steps"), std::string::npos) << a.err;  // 0.1 s / 0.002 s
  expectTimes(readCsv(csvPath()), 0.1, 0.02);
  const CliResult b = run("run " + scene + " --integrator rk_cash_karp54 --rtol 1e-6 --atol 1e-6 --t-end 0.1 --quiet --out -");
  ASSERT_EQ(b.exit_code, 0) << b.err;
  std::istringstream in(b.out);  // --out - writes the CSV to stdout
  const Csv csv = parseCsv(in);
  expectTimes(csv, 0.1, 0.01);  // the scene's dt_out
}

TEST_F(CliRun, DivergingRunExitsOneAndKeepsWhatWasSimulated) {
  // The Euler-angle body reaches gimbal lock at t ≈ 1.31 s (scenes/motivation_gimbal_lock.yaml).
  const std::string scene = source("scenes/motivation_gimbal_lock.yaml");
  const CliResult r = run("run '" + scene + "' --t-end 2 --quiet --out '" + csvPath() + "'");
  EXPECT_EQ(r.exit_code, 1) << r.err;
  const auto at = r.err.find("t = ");
  ASSERT_NE(at, std::string::npos) << r.err;
  const double t_stop = std::strtod(r.err.c_str() + at + 4, nullptr);
  EXPECT_GT(t_stop, 1.2) << r.err;
  EXPECT_LT(t_stop, 1.4) << r.err;
  EXPECT_NE(r.err.find("wrote the"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find(csvPath()), std::string::npos) << r.err;
  const Csv csv = readCsv(csvPath());
  expectDocumentedColumns(csv, loadScene(scene).model);
  ASSERT_FALSE(csv.rows.empty());
  // The last sample is the last output time before the stop (the state at the stop is not finite);
  // the message prints 6 digits.
  EXPECT_LE(csv.rows.back()[0], t_stop + 1e-6);
  EXPECT_GT(csv.rows.back()[0], t_stop - 0.01 - 1e-6);
  EXPECT_LT(csv.rows.size(), 201u);
  EXPECT_EQ(outputFiles(), std::vector<std::string>{"out.csv"});
  // Every sample is still the free body's motion: no input, no dissipation, so the kinetic energy
  // is that of the start (the step that blew up — 3e36 J one step before infinity — is refused,
  // not recorded, and no plot's autoscale jumps to it).
  const int kinetic = csv.column("energy.kinetic");
  ASSERT_GE(kinetic, 0);
  EXPECT_NEAR(csv.rows.back()[kinetic], csv.rows.front()[kinetic], 1e-9 * csv.rows.front()[kinetic]);
  EXPECT_NE(r.err.find("diverged"), std::string::npos) << r.err;
}

TEST_F(CliRun, BenchPrintsThreePositiveNumbers) {
  const CliResult r =
      run("bench '" + source("scenes/double_pendulum.yaml") + "' --evals 500 --duration 0.2");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  std::istringstream in(r.out);
  std::map<std::string, double> values;
  std::string key;
  double value = 0.0;
  std::vector<std::string> keys;
  while (in >> key >> value) {
    values[key] = value;
    keys.push_back(key);
  }
  EXPECT_EQ(keys, (std::vector<std::string>{"rhs_dynamics_us", "rhs_with_controller_us", "controller_cost_ratio",
                                            "realtime_factor"}))
      << r.out;
  for (const auto& [k, v] : values) EXPECT_GT(v, 0.0) << k;
  // the ratio is the two timings' (printed with 6 digits)
  EXPECT_NEAR(values["controller_cost_ratio"], values["rhs_with_controller_us"] / values["rhs_dynamics_us"],
              1e-5 * values["controller_cost_ratio"]);
  const CliResult bad = run("bench '" + source("scenes/double_pendulum.yaml") + "' --evals 0");
  EXPECT_EQ(bad.exit_code, 2);
}

TEST_F(CliRun, HelpListsEveryOption) {
  const CliResult program = run("--help");
  EXPECT_EQ(program.exit_code, 0);
  for (const char* c : {"check", "run", "bench"}) EXPECT_NE(program.out.find(std::string("  ") + c), std::string::npos) << c;
  const CliResult run_help = run("run --help");
  EXPECT_EQ(run_help.exit_code, 0);
  for (const char* o : {"--out", "--t-end", "--dt-out", "--integrator", "--dt", "--rtol", "--atol", "--controller",
                        "--set", "--floating", "--quiet"})
    EXPECT_NE(run_help.out.find(o), std::string::npos) << o;
  const CliResult bench_help = run("bench --help");
  EXPECT_EQ(bench_help.exit_code, 0);
  for (const char* o : {"--evals", "--duration", "--set", "--floating", "rhs_dynamics_us", "rhs_with_controller_us",
                        "controller_cost_ratio", "realtime_factor", "zero input"})
    EXPECT_NE(bench_help.out.find(o), std::string::npos) << o;
}

}  // namespace
}  // namespace rbs

namespace rbs {
namespace {

using test::CliResult;
class CliInterrupt : public test::SceneDir {};

TEST_F(CliInterrupt, EndTimeMissedByRoundingStillEnds) {
  // 3 · 0.3 = 0.8999999999999999 < 0.9: the run must end at the last sample, not spin forever.
  const std::string scene = std::string(RBS_SOURCE_DIR) + "/scenes/double_pendulum.yaml";
  const auto csv = dir_ / "out.csv";
  const CliResult r =
      run("run '" + scene + "' --t-end 0.9 --dt-out 0.3 --quiet --out '" + csv.string() + "'");
  EXPECT_EQ(r.exit_code, 0) << r.err;
  std::ifstream in(csv);
  std::string line;
  long lines = 0;
  while (std::getline(in, line)) ++lines;
  EXPECT_EQ(lines, 1 + 4);  // header + t = 0, 0.3, 0.6, 0.9
}

TEST_F(CliInterrupt, CtrlCWritesWhatWasSimulatedAndExits130) {
  // A run far longer than the test, interrupted after 1 s: the CSV must hold the samples so far
  // (complete rows, renamed into place) and no temporary file may remain.
  const std::string scene = std::string(RBS_SOURCE_DIR) + "/scenes/double_pendulum.yaml";
  const auto csv = dir_ / "out.csv", err = dir_ / "stderr.txt", code = dir_ / "code.txt";
  const std::string cmd = std::string("'") + RBSIM_CLI + "' run '" + scene +
                          "' --t-end 1e9 --dt-out 0.01 --quiet --out '" + csv.string() + "' 2>'" +
                          err.string() + "' & pid=$!; sleep 1; kill -INT $pid; wait $pid; echo $? >'" +
                          code.string() + "'";
  ASSERT_EQ(std::system(cmd.c_str()), 0);
  EXPECT_EQ(std::stoi(slurp(code)), 130) << slurp(err);
  EXPECT_NE(slurp(err).find("interrupted at t = "), std::string::npos) << slurp(err);
  std::ifstream in(csv);
  std::string header, line, last;
  std::getline(in, header);
  long rows = 0;
  while (std::getline(in, line)) {
    last = line;
    ++rows;
  }
  EXPECT_EQ(header.rfind("t,body.link1.px", 0), 0u) << header;
  EXPECT_GT(rows, 10);
  // The last row is complete: as many fields as the header.
  EXPECT_EQ(std::count(last.begin(), last.end(), ','), std::count(header.begin(), header.end(), ','));
  for (const auto& entry : std::filesystem::directory_iterator(dir_))
    EXPECT_EQ(entry.path().filename().string().find(".tmp-"), std::string::npos) << entry.path();
}

}  // namespace
}  // namespace rbs
