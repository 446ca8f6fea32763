// Flatness-based references of underactuated systems (thesis 4.8, 5.5): along the reference the
// zero-error matching force λ = (B⊥)ᵀ (M ξ̇_R + b) at (x_R, ξ_R) must vanish (konz-control §8.2,
// sign per §13), with B⊥ an orthonormal basis of the null space of Bᵀ and M, b, B from the plant.
//  - quadcopter looping (heading integrated by (5.70)) and transitions with a yaw path;
//  - PVTOL on a circle with ε ≠ 0, with the corrected (4.133) α = atan2(−ÿ₁, ÿ₂ + g); the printed
//    atan2(+ÿ₁, ÿ₂ + g) is shown not to match (by hand, from (4.130));
//  - two masses with the flat output z2 and z1R = z2R + z̈2R/ϖ (4.124, corrected sign).
#include <gtest/gtest.h>

#include <Eigen/LU>
#include <cmath>
#include <numbers>

#include "core/control/flatness.h"
#include "core/control/plant.h"
#include "core/control/reference.h"
#include "core/control/trajectory.h"
#include "core/dynamics/kinematics.h"
#include "core/model/model_builder.h"
#include "tests/support/matrix_compare.h"

namespace rbs {
namespace {

constexpr double kPi = std::numbers::pi;
constexpr double kG = 9.81;
// λ is a sum of O(m g) terms computed in double precision from coordinates that are exact up to
// rounding: 1e-9 m g leaves 10⁵ × machine precision for the kinematic chain, and a wrong sign or
// a missing term of any flatness formula gives O(0.1 … 1) m g.
constexpr double kMatchTol = 1e-9;
// Central differences (see test_reference.cpp): truncation δ²/6 |f⁽³⁾| ≲ 1e-8 here.
constexpr double kFdStep = 1e-5;
constexpr double kFdTol = 1e-6;

ReferenceSettings settings(std::string generator,
                           std::map<std::string, std::vector<double>> parameters,
                           std::map<std::string, std::string> options = {}) {
  return ReferenceSettings{std::move(generator), std::move(parameters), std::move(options)};
}

/// |(B⊥)ᵀ (M ξ̇_R + b)| at the sample.
double matchingForce(const Model& model, const ReferenceSample& s) {
  Workspace ws(model);
  return unactuatedForce(model, State{s.x, s.xi}, s.xidot, ws);
}

/// Largest relative mismatch of central differences of x_R, ξ_R against A ξ_R, ξ̇_R.
double fdMismatch(const Model& model, const Reference& ref, double t0, double t1, int n) {
  Workspace ws(model);
  ReferenceSample s, sp, sm;
  double worst = 0.0;
  for (int i = 0; i < n; ++i) {
    const double t = t0 + (t1 - t0) * (i + 0.371) / n;
    ref.sample(t, s);
    ref.sample(t + kFdStep, sp);
    ref.sample(t - kFdStep, sm);
    computeKinematics(model, s.x, s.xi, ws);
    computeConfigurationRate(model, s.x, s.xi, ws, 0.0);
    const VecX dx = (sp.x - sm.x) / (2 * kFdStep) - ws.xdot;
    const VecX dxi = (sp.xi - sm.xi) / (2 * kFdStep) - s.xidot;
    worst = std::max(worst, dx.cwiseAbs().maxCoeff() / (1 + ws.xdot.cwiseAbs().maxCoeff()));
    worst = std::max(worst, dxi.cwiseAbs().maxCoeff() / (1 + s.xidot.cwiseAbs().maxCoeff()));
    worst = std::max(worst, model.coordinateDrift(s.x));
  }
  return worst;
}

// ---- quadcopter ---------------------------------------------------------------------------------

/// Free body with the frame at the centre of mass, four rotors along body z at ±l on the x and y
/// axes and a yaw torque (thesis (4.143)); B spans F_z, τ_x, τ_y, τ_z, so B⊥ = the F_x, F_y rows.
Model quadcopter(JointType type, double mass) {
  ModelBuilder b;
  b.addBody(BodySpec{"quad", mass, Vec3::Zero(), Vec3(0.0179, 0.018, 0.0307).asDiagonal()});
  b.addJoint(JointSpec{.name = "flight", .type = type, .parent = kWorld, .child = "quad"});
  const Vec3 arms[4] = {{0.24, 0, 0}, {0, 0.24, 0}, {-0.24, 0, 0}, {0, -0.24, 0}};
  for (int i = 0; i < 4; ++i)
    b.addActuator(ActuatorSpec{.name = "rotor" + std::to_string(i + 1),
                               .kind = ActuatorKind::BodyForce,
                               .body = "quad",
                               .point = arms[i],
                               .direction = Vec3::UnitZ()});
  b.addActuator(ActuatorSpec{
      .name = "yaw", .kind = ActuatorKind::BodyTorque, .body = "quad", .direction = Vec3::UnitZ()});
  return b.build();
}

TEST(QuadcopterFlatness, LoopingWithIntegratedHeadingMatches) {
  // Two loops of 2 m diameter in the x–z plane, 1.5 s per loop at full speed (≈ 4.2 m/s,
  // ≈ 17.5 m/s² as in Table 5.2), smooth start and stop: upside down at the top.
  for (JointType type : {JointType::Free, JointType::FreeQuaternion}) {
    SCOPED_TRACE(std::string(jointTypeName(type)));
    const double mass = 1.001;
    const Model model = quadcopter(type, mass);
    const auto ref =
        makeReference(model, settings("circle",
                                      {{"center", {0, 0, 2}},
                                       {"radius", {1}},
                                       {"period", {1.5}},
                                       {"normal", {0, 1, 0}},
                                       {"loops", {2}},
                                       {"ramp", {1.5}},
                                       {"start_time", {0.5}}},
                                      {{"attitude", "flat"}, {"heading", "integrated"}}));
    ReferenceSample s;
    Workspace ws(model);
    double worst = 0.0, lowest_z = 1.0, y_axis_drift = 0.0;
    for (int i = 0; i <= 700; ++i) {
      const double t = 0.01 * i;
      ref->sample(t, s);
      worst = std::max(worst, matchingForce(model, s) / (mass * kG));
      computeKinematics(model, s.x, s.xi, ws);
      lowest_z = std::min(lowest_z, ws.pose[0].R(2, 2));
      // ω_zR = 0 and a path in the x–z plane: (5.70) keeps the body y axis at world y.
      y_axis_drift = std::max(y_axis_drift, (ws.pose[0].R.col(1) - Vec3::UnitY()).norm());
    }
    EXPECT_LT(worst, kMatchTol);
    EXPECT_LT(lowest_z, -0.99);     // inverted at the top: R_zR ≈ −e_z
    EXPECT_LT(y_axis_drift, 1e-9);  // RK4 of (5.70): exact here up to rounding
    EXPECT_LT(fdMismatch(model, *ref, 0.0, 7.0, 200), kFdTol);
  }
}

TEST(QuadcopterFlatness, TransitionsWithYawPathMatchAndKeepTheHeading) {
  const double mass = 1.3;
  const Model model = quadcopter(JointType::FreeQuaternion, mass);
  const auto ref = makeReference(model, settings("waypoints",
                                                 {{"times", {0.5, 2.5, 4.5}},
                                                  {"transition", {1.5}},
                                                  {"x", {1.0, 1.0, -1.0}},
                                                  {"y", {0.0, 2.0, 0.5}},
                                                  {"z", {1.5, 1.0, 2.0}},
                                                  {"yaw", {0.5, 2.0, 4.0}}},
                                                 {{"attitude", "flat"}}));
  ReferenceSample s;
  Workspace ws(model);
  double worst = 0.0, max_tilt = 0.0;
  for (int i = 0; i <= 700; ++i) {
    const double t = 0.01 * i;
    ref->sample(t, s);
    worst = std::max(worst, matchingForce(model, s) / (mass * kG));
    computeKinematics(model, s.x, s.xi, ws);
    max_tilt = std::max(max_tilt, std::acos(std::clamp(ws.pose[0].R(2, 2), -1.0, 1.0)));
  }
  EXPECT_LT(worst, kMatchTol);
  EXPECT_GT(max_tilt, 0.3);  // the transitions really tilt the vehicle
  // After the last transition: hovering at the last set-point with yaw 4.0 (ZYX heading).
  ref->sample(7.0, s);
  computeKinematics(model, s.x, s.xi, ws);
  EXPECT_MATRIX_NEAR(ws.pose[0].R, axisAngleRotation(Vec3::UnitZ(), 4.0), 1e-12);
  EXPECT_MATRIX_NEAR(ws.pose[0].r, Vec3(-1.0, 0.5, 2.0), 1e-12);
  // During a transition the heading (ZYX yaw) is the yaw path.
  ref->sample(3.1, s);
  computeKinematics(model, s.x, s.xi, ws);
  const double yaw = 0.5 + (2.0 - 0.5) * traj::restToRest(9, (3.1 - 2.5) / 1.5)[0];
  EXPECT_NEAR(std::remainder(eulerZYXFromRotation(ws.pose[0].R)(2) - yaw, 2 * kPi), 0.0, 1e-12);
  EXPECT_LT(fdMismatch(model, *ref, 0.0, 7.0, 200), kFdTol);
}

TEST(QuadcopterFlatness, IntegratedYawRateTurnsTheHeading) {
  const Model model = quadcopter(JointType::Free, 1.0);
  const auto ref = makeReference(
      model, settings("constant", {{"position", {0, 0, 1}}, {"yaw", {0.3}}, {"yaw_rate", {0.5}}},
                      {{"attitude", "flat"}, {"heading", "integrated"}}));
  ReferenceSample s;
  Workspace ws(model);
  for (double t : {-1.3, 0.0, 2.7, 10.05}) {
    ref->sample(t, s);
    computeKinematics(model, s.x, s.xi, ws);
    // RK4 of ψ̇ = const is exact up to rounding over ≤ 1000 steps.
    EXPECT_MATRIX_NEAR(ws.pose[0].R, axisAngleRotation(Vec3::UnitZ(), 0.3 + 0.5 * t), 1e-11);
    EXPECT_NEAR(s.xi(5), 0.5, 1e-15);
  }
}

// ---- PVTOL --------------------------------------------------------------------------------------

constexpr double kPvtolMass = 1.001, kPvtolTheta = 0.018, kArm = 0.24, kBeta = 0.1;

/// (4.129): planar joint in the vertical x–z plane (joint x = world x, joint y = world z), frame
/// at the CoM, thrusters at ±l_A along body x tilted outwards by β, thrust along body y.
Model pvtol() {
  ModelBuilder b;
  b.addBody(
      BodySpec{"pvtol", kPvtolMass, Vec3::Zero(), Vec3(0.0179, 0.0307, kPvtolTheta).asDiagonal()});
  b.addJoint(JointSpec{.name = "plane",
                       .type = JointType::Planar,
                       .parent = kWorld,
                       .child = "pvtol",
                       .parent_placement = Pose::rotation(rotationZYX(kPi / 2, 0, 0))});
  const double s = std::sin(kBeta), c = std::cos(kBeta);
  b.addActuator(ActuatorSpec{.name = "right",
                             .kind = ActuatorKind::BodyForce,
                             .body = "pvtol",
                             .point = Vec3(kArm, 0, 0),
                             .direction = Vec3(s, c, 0)});
  b.addActuator(ActuatorSpec{.name = "left",
                             .kind = ActuatorKind::BodyForce,
                             .body = "pvtol",
                             .point = Vec3(-kArm, 0, 0),
                             .direction = Vec3(-s, c, 0)});
  return b.build();
}

double pvtolEpsilon() {
  return kPvtolTheta * std::sin(kBeta) / (kPvtolMass * kArm * std::cos(kBeta));  // (4.130)
}

TEST(PvtolFlatness, CircleAndLoopingMatchWithEpsilon) {
  const Model model = pvtol();
  const double eps = pvtolEpsilon();
  // The scene's circle (4 s per loop) and a fast looping (inverted at the top, α through ±π).
  for (double period : {4.0, 1.2}) {
    SCOPED_TRACE(period);
    const auto ref = makeReference(model, settings("circle",
                                                   {{"center", {0, 2.5}},
                                                    {"radius", {1}},
                                                    {"period", {period}},
                                                    {"ramp", {1.0}},
                                                    {"epsilon", {eps}}},
                                                   {{"attitude", "flat"}}));
    ReferenceSample s;
    double worst = 0.0, max_angle = 0.0;
    for (int i = 0; i <= 600; ++i) {
      ref->sample(0.01 * i, s);
      worst = std::max(worst, matchingForce(model, s) / (kPvtolMass * kG));
      max_angle = std::max(max_angle, std::abs(s.x(2)));
    }
    EXPECT_LT(worst, kMatchTol);
    if (period < 2) {
      EXPECT_GT(max_angle, kPi);  // continuous angle past ±π
    }
    EXPECT_LT(fdMismatch(model, *ref, 0.0, 6.0, 200), kFdTol);
  }
}

TEST(PvtolFlatness, PrintedAngleSignOf4133DoesNotMatch) {
  // λ from (4.130) by hand, in the plane: λ/m = (R(α)ᵀ r̈)_x + g sin α − ε α̈ (the x row of
  // (4.129) minus ε/Θ_z·m times its rotation row; B⊥ = [1, 0, −sin β/(l_A cos β)]). r̈ and α̈ by
  // central differences (step 1e-4: error ≲ 1e-6 m/s² on this circle).
  const double eps = pvtolEpsilon();
  const double period = 4.0;
  const traj::CirclePath y({0.0, 2.5}, {0.0, -1.0}, {1.0, 0.0}, 1.0,
                           traj::ArcProfile(0.0, period, 0.0, 0.0, 0.0));
  auto configuration = [&](double t, bool printed, double& alpha) {
    const double y1dd = y.component(t, 0)[2], y2dd = y.component(t, 1)[2];
    const double N = std::hypot(y1dd, y2dd + kG);
    alpha = std::atan2(printed ? y1dd : -y1dd, y2dd + kG);
    // (4.131), (4.132) with ÿ₂ + g: the same r in both variants.
    return Eigen::Vector2d(y.component(t, 0)[0] - eps * y1dd / N,
                           y.component(t, 1)[0] - eps * (y2dd + kG) / N);
  };
  auto residual = [&](double t, bool printed) {
    const double h = 1e-4;
    double a, ap, am;
    const Eigen::Vector2d r = configuration(t, printed, a);
    const Eigen::Vector2d rp = configuration(t + h, printed, ap);
    const Eigen::Vector2d rm = configuration(t - h, printed, am);
    const Eigen::Vector2d r_ddot = (rp - 2 * r + rm) / (h * h);
    const double alpha_ddot = (ap - 2 * a + am) / (h * h);
    const double ax = std::cos(a) * r_ddot.x() + std::sin(a) * r_ddot.y();  // (R(α)ᵀ r̈)_x
    return ax + kG * std::sin(a) - eps * alpha_ddot;
  };
  double corrected = 0.0, printed = 0.0;
  for (int i = 0; i < 100; ++i) {
    const double t = 0.0371 + period * i / 100.0;
    corrected = std::max(corrected, std::abs(residual(t, false)) / kG);
    printed = std::max(printed, std::abs(residual(t, true)) / kG);
  }
  EXPECT_LT(corrected, 1e-5);  // the hand formula vanishes with the corrected sign …
  EXPECT_GT(printed, 0.1);     // … and with the printed one the matching force is O(m g)
  // The generator uses the corrected form: its angle and position are those of the hand formula.
  const Model model = pvtol();
  const auto ref = makeReference(
      model,
      settings("circle",
               {{"center", {0, 2.5}}, {"radius", {1}}, {"period", {period}}, {"epsilon", {eps}}},
               {{"attitude", "flat"}}));
  ReferenceSample s;
  for (double t : {0.3, 1.7, 2.9}) {
    ref->sample(t, s);
    double alpha;
    const Eigen::Vector2d r = configuration(t, false, alpha);
    EXPECT_NEAR(std::remainder(s.x(2) - alpha, 2 * kPi), 0.0, 1e-12);
    EXPECT_NEAR(s.x(0), r.x(), 1e-12);
    EXPECT_NEAR(s.x(1), r.y(), 1e-12);
  }
}

// ---- two masses ---------------------------------------------------------------------------------

/// (4.114): carts z1, z2 on a rail (prismatic along x), spring k between them, force on cart 1.
Model twoMasses(double M1, double M2, double k) {
  ModelBuilder b;
  b.addBody(BodySpec{"rail", 5.0, Vec3::Zero(), Mat3::Identity()});
  b.addBody(BodySpec{"cart1", M1, Vec3::Zero(), 0.01 * Mat3::Identity()});
  b.addBody(BodySpec{"cart2", M2, Vec3::Zero(), 0.01 * Mat3::Identity()});
  b.addJoint(
      JointSpec{.name = "mount", .type = JointType::Fixed, .parent = kWorld, .child = "rail"});
  b.addJoint(JointSpec{.name = "z1",
                       .type = JointType::Prismatic,
                       .parent = "rail",
                       .child = "cart1",
                       .axis = Vec3::UnitX()});
  b.addJoint(JointSpec{.name = "z2",
                       .type = JointType::Prismatic,
                       .parent = "rail",
                       .child = "cart2",
                       .parent_placement = Pose::translation(Vec3(0.6, 0, 0)),
                       .axis = Vec3::UnitX()});
  b.addSpring(SpringSpec{.name = "coupling",
                         .a = FrameSpec{"cart1"},
                         .b = FrameSpec{"cart2"},
                         .rest = Pose::translation(Vec3(0.6, 0, 0)),
                         .stiffness = k});
  b.addActuator(ActuatorSpec{.name = "force", .kind = ActuatorKind::JointEffort, .joint = "z1"});
  return b.build();
}

TEST(TwoMassesFlatness, SpringFlatOutputMatchesAndThePrintedSignDoesNot) {
  const double M1 = 1.2, M2 = 1.5, k = 2.0, varpi = k / M2;
  const Model model = twoMasses(M1, M2, k);
  const auto ref = makeReference(model, settings("polynomial",
                                                 {{"degree", {9}},
                                                  {"start_time", {1}},
                                                  {"duration", {4}},
                                                  {"start", {0}},
                                                  {"goal", {1}},
                                                  {"varpi", {varpi}}},
                                                 {{"flat_output", "spring"}}));
  ReferenceSample s;
  double worst = 0.0, printed = 0.0;
  for (int i = 0; i <= 600; ++i) {
    const double t = 0.01 * i;
    ref->sample(t, s);
    worst = std::max(worst, matchingForce(model, s));
    // (4.124) as printed: z1R = z2R − z̈2R/ϖ, i.e. z1 moved by −2 z̈2/ϖ; then λ = 2 M2 z̈2.
    ReferenceSample wrong = s;
    const Joint& z1 = model.joints[model.jointIndex("z1")];
    const Joint& z2 = model.joints[model.jointIndex("z2")];
    wrong.x(z1.x_offset) -= 2.0 * s.xidot(z2.xi_offset) / varpi;
    printed = std::max(printed, matchingForce(model, wrong));
  }
  // λ = M2 z̈2 + k (z2 − z1): O(1) N terms, rounding only.
  EXPECT_LT(worst, 1e-12);
  EXPECT_GT(printed, 0.1);
  // Rest to rest: z1 = z2 = goal at the end.
  ref->sample(6.0, s);
  EXPECT_NEAR(s.x(0), 1.0, 1e-15);
  EXPECT_NEAR(s.x(1), 1.0, 1e-15);
  EXPECT_LT(fdMismatch(model, *ref, 0.0, 6.0, 100), kFdTol);
}

}  // namespace
}  // namespace rbs
