// servo_constraint_pd against Seifried (2014) (digest seifried-underactuated §4.7, §5.3, §11.3):
// Example A (cart + 3 links, one passive joint, Table 4.2) and Example B (cart + 4 links, two
// passive joints, Tables 5.1/5.2) on the book's half-circle task. The models are the scenes'
// (scenes/seifried_cart_*.yaml), rebuilt here with ModelBuilder so that the test needs rbs_core
// only. Each simulation is tests/support's RK4 loop on computeForwardDynamics with the controller
// evaluated at every stage ("perfect model"), started in the feedforward's initial state.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <numbers>
#include <string>

#include "core/control/servo_constraint.h"
#include "core/dynamics/dynamics.h"
#include "core/dynamics/kinematics.h"
#include "core/model/model_builder.h"
#include "tests/support/closed_loop_rk4.h"
#include "tests/support/report.h"

namespace rbs {
namespace {

constexpr double kPi = std::numbers::pi;
constexpr double kWidth = 0.05;  // 50 mm square section (Table 7.1): inertia about the bar axis

struct Link {
  double mass, inertia, length, com;
};

// Specs filled member by member (no designated initializers: builds with
// -Wmissing-field-initializers too).
JointSpec joint(const std::string& name, JointType type, const std::string& parent,
                const std::string& child, double offset_y, const Vec3& axis, double q0) {
  JointSpec j;
  j.name = name;
  j.type = type;
  j.parent = parent;
  j.child = child;
  j.parent_placement = Pose::translation(Vec3(0.0, offset_y, 0.0));
  j.axis = axis;
  j.initial_position = q0;
  return j;
}

ActuatorSpec effort(const std::string& name, const std::string& joint_name) {
  ActuatorSpec a;
  a.name = name;
  a.joint = joint_name;
  return a;
}

/// Cart + planar chain in the horizontal xy plane (zero angles: links along −y), actuated x,
/// alpha1, alpha2; the remaining joints passive with spring c and damper d (digest §8 conventions).
Model cartChain(const std::vector<Link>& links, int actuated_links, double c, double d,
                const std::vector<double>& q0) {
  ModelBuilder b;
  b.addBody({"cart", 3.0, Vec3::Zero(), Vec3(0.0125, 0.025, 0.0325).asDiagonal()});
  b.addJoint(joint("x", JointType::Prismatic, kWorld, "cart", 0.0, Vec3::UnitX(), q0[0]));
  std::string parent = "cart";
  double parent_length = 0.0;
  int passive = 0;
  for (int i = 0; i < static_cast<int>(links.size()); ++i) {
    const Link& l = links[i];
    const std::string body = "link" + std::to_string(i + 1);
    b.addBody({body, l.mass, Vec3(0.0, -l.com, 0.0),
               Vec3(l.inertia, l.mass * kWidth * kWidth / 6.0, l.inertia).asDiagonal()});
    const bool active = i < actuated_links;
    const std::string name =
        active ? "alpha" + std::to_string(i + 1)
               : (links.size() == 3 ? std::string("beta") : "beta" + std::to_string(++passive));
    b.addJoint(joint(name, JointType::Revolute, parent, body, -parent_length, Vec3::UnitZ(),
                     q0[i + 1]));
    if (!active) b.addJointSpringDamper({name, c, 0.0, d});
    parent = body;
    parent_length = l.length;
  }
  b.addActuator(effort("F", "x"));
  b.addActuator(effort("T1", "alpha1"));
  b.addActuator(effort("T2", "alpha2"));
  return b.build();
}

/// Example A, Table 4.2 (scenes/seifried_cart_three_links_passive_spring.yaml).
Model exampleA() {
  return cartChain({{6.875, 0.5743, 1.0, 0.5}, {3.438, 0.0723, 0.5, 0.25},
                    {3.438, 0.0723, 0.5, 0.25}},
                   2, 50.0, 0.25, {-1.0, 0.72273424781341566, -1.4454684956268313, 0.0});
}

/// Example B, Table 5.1 (minimum phase) or 5.2 (non-minimum phase).
Model exampleB(bool minimum_phase) {
  std::vector<Link> links = {{6.875, 0.5743, 1.0, 0.5}, {2.292, 0.0217, 0.333, 0.167}};
  if (minimum_phase) {
    links.push_back({3.285, 0.0738, 0.333, 0.084});
    links.push_back({10.29, 0.7029, 0.333, 0.167});
  } else {
    links.push_back({2.292, 0.0217, 0.333, 0.167});
    links.push_back({8.292, 0.0825, 0.333, 0.287});
  }
  return cartChain(links, 2, 400.0, 0.25,
                   {-1.0, 0.72172627030561587, -1.4443338902988971, 0.0, 0.0});
}

/// The scenes' controller blocks (the book's task, our gains).
ControllerSettings settingsA() {
  ControllerSettings s;
  s.name = "servo_constraint_pd";
  s.parameters = {{"gamma_beta", 0.5}, {"stable_inversion", 1}, {"pre_actuation", 0.2},
                  {"post_actuation", 0.3}, {"end_effector_y", -0.5}};
  return s;
}

ControllerSettings settingsB(bool exact, bool stable) {
  ControllerSettings s;
  s.name = "servo_constraint_pd";
  s.parameters = {{"gamma_beta1", 2.0 / 3.0}, {"gamma_beta2", 1.0 / 3.0},
                  {"exact_output", exact ? 1.0 : 0.0}, {"stable_inversion", stable ? 1.0 : 0.0},
                  {"pre_actuation", 0.2}, {"post_actuation", 0.8}, {"end_effector_y", -0.333}};
  return s;
}

std::unique_ptr<ServoConstraintPd> make(const Model& model, const ControllerSettings& settings) {
  auto c = std::make_unique<ServoConstraintPd>(model, settings);
  c->parameters().setAll(settings.parameters);
  return c;
}

int signalIndex(const Controller& c, const std::string& name) {
  for (int i = 0; i < static_cast<int>(c.signals().size()); ++i)
    if (c.signals()[i].name == name) return i;
  ADD_FAILURE() << "no signal " << name;
  return 0;
}

struct RunResult {
  bool ok = false;
  double max_end_effector = 0.0;  ///< max distance from the desired path point [m]
  double max_radial = 0.0;        ///< max distance from the circle (path-normal error) [m]
  double max_joint_error = 0.0;   ///< max ‖q − q_d‖ [rad or m]
  double max_passive = 0.0;       ///< max |q_u|
};

/// The closed loop from t0 to t1 in the feedforward's initial state; the errors are observed at
/// every step. `hold_until`: u = 0 and no controller before this time (pre-actuation cut).
RunResult simulate(const Model& model, ServoConstraintPd& c, double t0, double t1, double dt,
                   double hold_until = -1e300) {
  RunResult r;
  ServoPoint p;
  if (!c.sampleFeedforward(t0, p)) {
    ADD_FAILURE() << c.message();
    return r;
  }
  State s{hold_until > t0 ? model.initial_state.x : p.q,
          hold_until > t0 ? model.initial_state.xi : p.qd};
  const int ee = signalIndex(c, "error.end_effector");
  const int ee_path = signalIndex(c, "error.end_effector_path");
  const int joints = signalIndex(c, "error.joints");
  const auto& passive = c.structure().passive;
  test::Rk4ClosedLoop loop(model, c);
  loop.zeroInputBefore(hold_until);
  auto observe = [&](double t, const State& state) {
    if (t >= hold_until) {
      if (!loop.evaluate(t, state)) return;
      c.updateSignals();
      r.max_end_effector = std::max(r.max_end_effector, c.signalValues()[ee]);
      r.max_radial = std::max(r.max_radial, c.signalValues()[ee_path]);
      r.max_joint_error = std::max(r.max_joint_error, c.signalValues()[joints]);
    }
    for (int j : passive) r.max_passive = std::max(r.max_passive, std::abs(state.x[j]));
  };
  double t = t0;
  observe(t, s);
  if (!loop.run(s, t, t1 - t0, dt, observe) || !loop.failure().empty()) {
    ADD_FAILURE() << loop.failure();
    return r;
  }
  r.ok = true;
  return r;
}

void report(const char* name, double value, const char* book) {
  test::recordError(name, value);
  std::printf("  %-44s %.4g  (book: %s)\n", name, value, book);
}

// ---- Trajectory ------------------------------------------------------------------------------

TEST(ServoConstraintPath, RestToRestProfilesHaveVanishingEndDerivativesAndExactRates) {
  for (int degree : {5, 7, 9}) {
    const double t0 = 0.2, T = 1.5;
    EXPECT_EQ(restToRestProfile(degree, t0, T, t0).s, 0.0);
    EXPECT_EQ(restToRestProfile(degree, t0, T, t0 + T).s, 1.0);
    EXPECT_NEAR(restToRestProfile(degree, t0, T, t0 + 0.5 * T).s, 0.5, 1e-14);
    for (double t : {t0 + 1e-9, t0 + T - 1e-9}) {
      const ProfileSample p = restToRestProfile(degree, t0, T, t);
      EXPECT_NEAR(p.ds, 0.0, 1e-12) << degree;
      EXPECT_NEAR(p.dds, 0.0, 1e-6) << degree;
    }
    for (double t : {0.3, 0.77, 1.2, 1.65}) {  // exact rates against central differences
      const double h = 1e-5;
      const ProfileSample p = restToRestProfile(degree, t0, T, t);
      const ProfileSample a = restToRestProfile(degree, t0, T, t - h);
      const ProfileSample b = restToRestProfile(degree, t0, T, t + h);
      EXPECT_NEAR(p.ds, (b.s - a.s) / (2 * h), 1e-8);
      EXPECT_NEAR(p.dds, (b.ds - a.ds) / (2 * h), 1e-7);
    }
  }
  // The book's half-circle: (−1, −1.5) over (0, −0.5) to (1, −1.5), cart −1 → 1.
  const ServoPath path;
  const PathSample a = samplePath(path, 0.0), m = samplePath(path, 0.95), e = samplePath(path, 5.0);
  EXPECT_NEAR((a.r - Eigen::Vector2d(-1.0, -1.5)).norm(), 0.0, 1e-12);
  EXPECT_NEAR((m.r - Eigen::Vector2d(0.0, -0.5)).norm(), 0.0, 1e-12);
  EXPECT_NEAR((e.r - Eigen::Vector2d(1.0, -1.5)).norm(), 0.0, 1e-12);
  EXPECT_NEAR(m.c, 0.0, 1e-12);
  const double h = 1e-5;
  for (double t : {0.5, 0.95, 1.4}) {
    const PathSample p = samplePath(path, t);
    const PathSample pa = samplePath(path, t - h), pb = samplePath(path, t + h);
    EXPECT_NEAR((p.dr - (pb.r - pa.r) / (2 * h)).norm(), 0.0, 1e-8);
    EXPECT_NEAR((p.ddr - (pb.dr - pa.dr) / (2 * h)).norm(), 0.0, 1e-7);
  }
}

// ---- The feedforward satisfies the model -------------------------------------------------------

/// M q̈_d + b(q_d, q̇_d) − B u_d = 0 on every row (actuated and passive), q̇_d and q̈_d are the
/// derivatives of q_d, and for the exact output the end effector lies on the path.
void expectConsistentFeedforward(const Model& model, const ControllerSettings& settings,
                                 const char* label) {
  auto c = make(model, settings);
  ASSERT_TRUE(c->prepareFeedforward()) << c->message();
  const bool exact = settings.parameters.at("exact_output") > 0.5;
  Workspace ws(model);
  PlantTerms plant;
  double worst_residual = 0.0, worst_rate = 0.0, worst_path = 0.0;
  const ServoFeedforward& ff = c->feedforward();
  for (double t = ff.t_begin + 0.0137; t < ff.t_end - 0.01; t += 0.0731) {
    ServoPoint p, a, b;
    ASSERT_TRUE(c->sampleFeedforward(t, p));
    State s{p.q, p.qd};
    evaluatePlant(model, s, ws, plant);
    const VecX r = plant.M * p.qdd + plant.b - plant.B * p.u;
    const double scale = std::max(1.0, (plant.B * p.u).lpNorm<Eigen::Infinity>());
    worst_residual = std::max(worst_residual, r.lpNorm<Eigen::Infinity>() / scale);
    const double h = 1e-5;
    ASSERT_TRUE(c->sampleFeedforward(t - h, a));
    ASSERT_TRUE(c->sampleFeedforward(t + h, b));
    const double rate = std::max(((b.q - a.q) / (2 * h) - p.qd).lpNorm<Eigen::Infinity>(),
                                 ((b.qd - a.qd) / (2 * h) - p.qdd).lpNorm<Eigen::Infinity>() /
                                     std::max(1.0, p.qdd.lpNorm<Eigen::Infinity>()));
    worst_rate = std::max(worst_rate, rate);
    if (exact) {
      const Vec3 e = c->inverseModel().endEffectorPosition(p.q);
      worst_path = std::max(worst_path, (Eigen::Vector2d(e.x(), e.y()) - p.r_desired).norm());
    }
  }
  EXPECT_LT(worst_residual, 1e-10) << label;
  EXPECT_LT(worst_rate, 1e-4) << label;
  EXPECT_LT(worst_path, 1e-11) << label;
  std::printf("  %s: equation residual %.2e, rate consistency %.2e, path %.2e\n", label,
              worst_residual, worst_rate, worst_path);
}

TEST(ServoConstraintPd, FeedforwardSatisfiesTheEquationsOfMotion) {
  ControllerSettings a = settingsA();
  a.parameters["exact_output"] = 1.0;
  expectConsistentFeedforward(exampleA(), a, "example A, exact output, stable inversion");
  expectConsistentFeedforward(exampleB(true), settingsB(true, false),
                              "example B min phase, exact output, forward");
  expectConsistentFeedforward(exampleB(false), settingsB(false, true),
                              "example B non-min phase, linear output, stable inversion");
}

// ---- Example A (Sect. 4.2.7) --------------------------------------------------------------------

TEST(ServoConstraintPd, ExampleAStableInversionTracksTheHalfCircle) {
  const Model model = exampleA();
  auto c = make(model, settingsA());
  ASSERT_TRUE(c->prepareFeedforward()) << c->message();
  const ServoFeedforward& ff = c->feedforward();
  // Saddle (digest §4.7): one stable, one unstable zero → one condition at each end.
  EXPECT_EQ(ff.stable_conditions, 1);
  EXPECT_EQ(ff.unstable_conditions, 1);
  std::vector<double> re;
  for (auto z : ff.zeros_start) re.push_back(z.real());
  std::sort(re.begin(), re.end());
  ASSERT_EQ(re.size(), 2u);
  EXPECT_NEAR(re[0], -24.8, 0.3);
  EXPECT_NEAR(re[1], 28.3, 0.3);
  // Pre-actuation: u_d ≠ 0 and β ≠ 0 before t₀ = 0.2 s although the output is at rest.
  ServoPoint p;
  ASSERT_TRUE(c->sampleFeedforward(0.15, p));
  EXPECT_GT(p.u.norm(), 1e-3);
  EXPECT_GT(std::abs(p.q[3]), 1e-5);
  EXPECT_LT(ff.max_passive, 0.5);

  std::printf("Example A (Table 4.2), half-circle, stable inversion + PD (omega 20, zeta 1):\n");
  const RunResult lin = simulate(model, *c, 0.0, 2.5, 2e-4);
  ASSERT_TRUE(lin.ok);
  report("A_linear_output_max_end_effector_error_m", lin.max_end_effector, "-");
  report("A_linear_output_max_path_normal_error_m", lin.max_radial, "~3 mm");
  report("A_linear_output_max_joint_error", lin.max_joint_error, "output reproduced exactly");
  report("A_max_beta_rad", lin.max_passive, "-");
  // The Γ approximation, O(β²): 1 − cos(β/2) along the auxiliary link. Its path-normal part is
  // the book's "≈ 3 mm" (the distance from the desired point is about twice that).
  EXPECT_GT(lin.max_radial, 2e-3);
  EXPECT_LT(lin.max_radial, 4.5e-3);
  EXPECT_LT(lin.max_end_effector, 8e-3);
  EXPECT_LT(lin.max_joint_error, 1e-5);   // the feedback has nothing to do

  c->parameters().set("exact_output", 1.0);
  ASSERT_TRUE(c->prepareFeedforward()) << c->message();
  const RunResult exact = simulate(model, *c, 0.0, 2.5, 2e-4);
  ASSERT_TRUE(exact.ok);
  report("A_exact_output_max_end_effector_error_m", exact.max_end_effector, "error removed");
  EXPECT_LT(exact.max_end_effector, 1e-5);

  // Pre-actuation cut (the book's Fig. 4.16 case): plant at rest, u = 0 before t₀.
  const RunResult cut = simulate(model, *c, 0.0, 2.5, 2e-4, 0.2);
  ASSERT_TRUE(cut.ok);
  report("A_exact_output_no_preactuation_error_m", cut.max_end_effector, "large, PID vibrates");
  EXPECT_GT(cut.max_end_effector, 10.0 * exact.max_end_effector);
}

TEST(ServoConstraintPd, ExampleAClassicalInversionDivergesStableInversionStaysBounded) {
  const Model model = exampleA();
  ControllerSettings s = settingsA();
  s.parameters["stable_inversion"] = 0.0;
  auto forward = make(model, s);
  EXPECT_FALSE(forward->prepareFeedforward());
  EXPECT_TRUE(forward->feedforward().diverged);
  EXPECT_NE(forward->message().find("diverged"), std::string::npos) << forward->message();
  const double t_div = forward->feedforward().diverged_at;
  EXPECT_GT(t_div, 0.2);  // at rest before t₀, then β grows like e^{28.3 t}
  EXPECT_LT(t_div, 2.0);
  auto stable = make(model, settingsA());
  ASSERT_TRUE(stable->prepareFeedforward());
  std::printf("Example A: forward integration diverges at t = %.3f s (|beta| > pi); stable "
              "inversion max |beta| = %.4f rad\n",
              t_div, stable->feedforward().max_passive);
  test::recordError("A_classical_inversion_diverges_at_s", t_div);
  EXPECT_LT(stable->feedforward().max_passive, 0.5);
}

// ---- Example B (Sect. 5.3, Table 5.3) ---------------------------------------------------------

TEST(ServoConstraintPd, ExampleBMinimumPhaseForwardIntegratedFeedforward) {
  const Model model = exampleB(true);
  std::printf("Example B minimum phase (Table 5.1), forward integration, feedforward only:\n");
  auto exact = make(model, settingsB(true, false));
  exact->parameters().set("omega", 0.0);  // u = u_d: Table 5.3 simulates the feedforward alone
  ASSERT_TRUE(exact->prepareFeedforward()) << exact->message();
  for (auto z : exact->feedforward().zeros_start) EXPECT_LT(z.real(), 0.0);
  const RunResult re = simulate(model, *exact, 0.0, 2.5, 1e-4);
  ASSERT_TRUE(re.ok);
  report("B_min_exact_output_max_end_effector_error_m", re.max_end_effector, "0.053 mm");
  EXPECT_LT(re.max_end_effector, 0.053e-3);

  auto linear = make(model, settingsB(false, false));
  linear->parameters().set("omega", 0.0);
  ASSERT_TRUE(linear->prepareFeedforward()) << linear->message();
  const RunResult rl = simulate(model, *linear, 0.0, 2.5, 2e-4);
  ASSERT_TRUE(rl.ok);
  report("B_min_linear_output_max_end_effector_error_m", rl.max_end_effector, "-");
  report("B_min_linear_output_max_path_normal_error_m", rl.max_radial, "2.754 mm");
  EXPECT_NEAR(rl.max_radial, 2.754e-3, 0.15e-3);
  EXPECT_LT(rl.max_end_effector, 8e-3);
}

TEST(ServoConstraintPd, ExampleBNonMinimumPhaseNeedsStableInversion) {
  const Model model = exampleB(false);
  auto forward = make(model, settingsB(false, false));
  EXPECT_FALSE(forward->prepareFeedforward());
  EXPECT_TRUE(forward->feedforward().diverged);
  const double t_div = forward->feedforward().diverged_at;
  EXPECT_LT(t_div, 1.7);
  test::recordError("B_nonmin_classical_inversion_diverges_at_s", t_div);

  std::printf("Example B non-minimum phase (Table 5.2): forward integration diverges at t = %.3f "
              "s; stable inversion, feedforward only:\n", t_div);
  auto linear = make(model, settingsB(false, true));
  linear->parameters().set("omega", 0.0);
  ASSERT_TRUE(linear->prepareFeedforward()) << linear->message();
  EXPECT_EQ(linear->feedforward().unstable_conditions, 2);  // −322.7, −56.1, +58.1, +404.2
  EXPECT_EQ(linear->feedforward().stable_conditions, 2);
  EXPECT_LT(linear->feedforward().max_passive, 0.5);
  const RunResult rl = simulate(model, *linear, 0.0, 2.5, 2e-4);
  ASSERT_TRUE(rl.ok);
  report("B_nonmin_linear_output_max_end_effector_error_m", rl.max_end_effector, "-");
  report("B_nonmin_linear_output_max_path_normal_error_m", rl.max_radial, "3.2 mm");
  EXPECT_NEAR(rl.max_radial, 3.2e-3, 0.2e-3);
  EXPECT_LT(rl.max_end_effector, 8e-3);

  auto exact = make(model, settingsB(true, true));
  exact->parameters().set("omega", 0.0);
  ASSERT_TRUE(exact->prepareFeedforward()) << exact->message();
  const RunResult re = simulate(model, *exact, 0.0, 2.5, 1e-4);
  ASSERT_TRUE(re.ok);
  report("B_nonmin_exact_output_max_end_effector_error_m", re.max_end_effector, "0.005 mm");
  EXPECT_LT(re.max_end_effector, 0.005e-3);
}

// ---- Controller plumbing -----------------------------------------------------------------------

TEST(ServoConstraintPd, FullyActuatedArmReducesToInverseKinematicsAndDynamics) {
  // Cart + two actuated links (no passive joint): no internal dynamics, the inverse model is
  // algebraic (Sect. 4.1) and both inversion modes give the same exact feedforward.
  const Model model = cartChain({{6.875, 0.5743, 1.0, 0.5}, {3.438, 0.0723, 1.0, 0.5}}, 2, 0.0,
                                0.0, {-1.0, 0.72273424781341566, -1.4454684956268313});
  for (double stable : {0.0, 1.0}) {
    ControllerSettings s;
    s.name = "servo_constraint_pd";
    s.parameters = {{"stable_inversion", stable}, {"end_effector_y", -1.0}, {"omega", 0.0}};
    auto c = make(model, s);
    ASSERT_TRUE(c->prepareFeedforward()) << c->message();
    EXPECT_EQ(c->inverseModel().stateSize(), 0);
    const RunResult r = simulate(model, *c, 0.0, 2.0, 5e-4);
    ASSERT_TRUE(r.ok);
    EXPECT_LT(r.max_end_effector, 1e-9) << "stable_inversion " << stable;
  }
}

TEST(ServoConstraintPd, ParametersSignalsAndModelChecks) {
  const Model model = exampleA();
  auto c = makeServoConstraintPd(model, settingsA());
  for (const char* p : {"omega", "zeta", "gamma_beta", "exact_output", "stable_inversion",
                        "center_x", "center_y", "end_effector_y", "degree"})
    EXPECT_GE(c->parameters().find(p), 0) << p;
  for (const char* s : {"error.position", "error.joints", "error.end_effector",
                        "control.feedforward.F", "control.feedforward.T2"})
    signalIndex(*c, s);
  ControllerSettings bad = settingsA();
  bad.options["plane"] = "xw";
  EXPECT_THROW(makeServoConstraintPd(model, bad), ControlError);
  bad.options = {{"no_such_option", "1"}};
  EXPECT_THROW(makeServoConstraintPd(model, bad), ControlError);
  // A model without enough inputs is refused with a message.
  ModelBuilder b;
  b.addBody({"link", 1.0, Vec3(0, -0.5, 0), Vec3(0.1, 0.01, 0.1).asDiagonal()});
  b.addJoint(joint("q", JointType::Revolute, kWorld, "link", 0.0, Vec3::UnitZ(), 0.0));
  b.addActuator(effort("T", "q"));
  const Model one = b.build();
  EXPECT_THROW(makeServoConstraintPd(one, settingsA()), ControlError);
  // Geometric Γ reproduces the book's Γ = l3/(l2 + l3) = 1/2 and (5.23).
  ControllerSettings g = settingsA();
  g.options["gamma"] = "geometric";
  auto cg = make(model, g);
  cg->inverseModel().configure([&] {
    ServoInversionSettings s = cg->inverseModel().settings();
    s.end_effector_point = Vec3(0, -0.5, 0);
    return s;
  }());
  EXPECT_NEAR(cg->inverseModel().geometricGamma()(2, 0), 0.5, 1e-12);
  const Model mb = exampleB(true);
  auto cb = make(mb, settingsB(true, false));
  ServoInversionSettings sb = cb->inverseModel().settings();
  sb.end_effector_point = Vec3(0, -0.333, 0);
  cb->inverseModel().configure(sb);
  const MatX gb = cb->inverseModel().geometricGamma();
  EXPECT_NEAR(gb(2, 0), 2.0 / 3.0, 1e-12);
  EXPECT_NEAR(gb(2, 1), 1.0 / 3.0, 1e-12);
  // A parameter change recomputes the feedforward lazily; the gains do not.
  auto cc = make(model, settingsA());
  ASSERT_TRUE(cc->prepareFeedforward());
  const double u0 = cc->feedforward().eta[100][0];
  cc->parameters().set("radius", 0.9);
  ASSERT_TRUE(cc->prepareFeedforward());
  EXPECT_NE(cc->feedforward().eta[100][0], u0);
}

}  // namespace
}  // namespace rbs
