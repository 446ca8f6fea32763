// The baseline controllers: computed torque on minimal coordinates (thesis (1.5), Kremer B11),
// joint PD with gravity compensation, and Lee et al.'s geometric SE(3) multicopter control. The
// closed loops are integrated by tests/support's RK4 on computeForwardDynamics (no sim/ library).
#include <gtest/gtest.h>

#include <map>

#include <cmath>
#include <functional>
#include <numbers>
#include <string>

#include "core/control/computed_torque.h"
#include "core/control/geometric_se3.h"
#include "core/control/joint_pd.h"
#include "core/dynamics/dynamics.h"
#include "core/model/model_builder.h"
#include "tests/support/benchmark_models.h"
#include "tests/support/closed_loop_rk4.h"

namespace rbs {
namespace {

/// The controller block of scenes/kremer_quadcopter_arm2.yaml (Kremer et al. B11 gains).
const std::map<std::string, double> kKremerGainsArm2 = {
    {"kp_x", 0},   {"kp_y", 0},   {"kp_z", 30},  {"kp_roll", 40},    {"kp_pitch", 40}, {"kp_yaw", 30},
    {"kd_x", 0},   {"kd_y", 0},   {"kd_z", 10},  {"kd_roll", 5},     {"kd_pitch", 5},  {"kd_yaw", 4},
    {"kp_joint1", 60}, {"kd_joint1", 24}, {"kp_joint2", 120}, {"kd_joint2", 24}};

constexpr double kPi = std::numbers::pi;

/// e(t) of ë + k_d ė + k_p e = 0 with e(0) = e0, ė(0) = v0.
double closedForm(double kp, double kd, double e0, double v0, double t) {
  const double disc = kd * kd - 4 * kp;
  if (std::abs(disc) < 1e-12) {
    const double l = -kd / 2;
    return (e0 + (v0 - l * e0) * t) * std::exp(l * t);
  }
  if (disc > 0) {
    const double l1 = (-kd + std::sqrt(disc)) / 2, l2 = (-kd - std::sqrt(disc)) / 2;
    const double c1 = (v0 - l2 * e0) / (l1 - l2);
    return c1 * std::exp(l1 * t) + (e0 - c1) * std::exp(l2 * t);
  }
  const double s = -kd / 2, w = std::sqrt(-disc) / 2;
  return std::exp(s * t) * (e0 * std::cos(w * t) + (v0 - s * e0) / w * std::sin(w * t));
}

double signal(const Controller& c, const std::string& name) {
  for (std::size_t i = 0; i < c.signals().size(); ++i)
    if (c.signals()[i].name == name) return c.signalValues()[static_cast<int>(i)];
  ADD_FAILURE() << "no signal " << name;
  return std::nan("");
}

bool hasSignal(const Controller& c, const std::string& name) {
  for (const SignalInfo& s : c.signals())
    if (s.name == name) return true;
  return false;
}

// ---- Models -----------------------------------------------------------------------------------

/// The double pendulum of tests/support (rods hanging along −z, axes y) with a joint torque on
/// each joint ("tau1", "tau2"); only joints listed in `actuated` get one.
Model actuatedDoublePendulum(bool shoulder_actuated = true, bool elbow_actuated = true) {
  const double m1 = 1.0, m2 = 0.8, l1 = 1.0, l2 = 0.7;
  auto rod = [](const std::string& name, double m, double l) {
    const double I = m * l * l / 12.0;
    return BodySpec{name, m, Vec3(0, 0, -l / 2), Vec3(I, I, 1e-6 * I).asDiagonal()};
  };
  ModelBuilder b;
  b.addBody(rod("link1", m1, l1)).addBody(rod("link2", m2, l2));
  JointSpec j1{.name = "shoulder", .type = JointType::Revolute, .parent = kWorld, .child = "link1"};
  j1.axis = Vec3::UnitY();
  JointSpec j2{.name = "elbow", .type = JointType::Revolute, .parent = "link1", .child = "link2"};
  j2.axis = Vec3::UnitY();
  j2.parent_placement = Pose::translation(Vec3(0, 0, -l1));
  b.addJoint(j1).addJoint(j2);
  if (shoulder_actuated)
    b.addActuator({.name = "tau1", .kind = ActuatorKind::JointEffort, .joint = "shoulder"});
  if (elbow_actuated)
    b.addActuator({.name = "tau2", .kind = ActuatorKind::JointEffort, .joint = "elbow"});
  return b.build();
}

/// A free_quaternion body with its CoM off the frame origin and six inputs: body forces along x,
/// y, z at the origin and body torques about x, y, z (B = I).
Model fullyActuatedBody() {
  ModelBuilder b;
  b.addBody({"box", 2.0, Vec3(0.05, -0.02, 0.03), Vec3(0.10, 0.15, 0.20).asDiagonal()});
  b.addJoint(
      {.name = "float", .type = JointType::FreeQuaternion, .parent = kWorld, .child = "box"});
  const char* axes[3] = {"x", "y", "z"};
  for (int i = 0; i < 3; ++i)
    b.addActuator({.name = std::string("f") + axes[i],
                   .kind = ActuatorKind::BodyForce,
                   .body = "box",
                   .direction = Vec3::Unit(i)});
  for (int i = 0; i < 3; ++i)
    b.addActuator({.name = std::string("t") + axes[i],
                   .kind = ActuatorKind::BodyTorque,
                   .body = "box",
                   .direction = Vec3::Unit(i)});
  return b.build();
}

/// The control model of scenes/quadcopter.yaml (1.001 kg, rotors at ±0.24 m on the body x and y
/// axes, thrust along body z) on a free joint (R), plus a lumped rotor drag torque about body z
/// ("yaw_torque") so that the heading can be controlled. `com`: CoM in the body frame.
Model quadcopter(const Vec3& com = Vec3::Zero()) {
  ModelBuilder b;
  b.addBody({"base", 1.001, com, Vec3(0.0179, 0.018, 0.0307).asDiagonal()});
  b.addJoint({.name = "flight", .type = JointType::Free, .parent = kWorld, .child = "base"});
  const Vec3 rotors[4] = {Vec3(0.24, 0, 0), Vec3(0, 0.24, 0), Vec3(-0.24, 0, 0), Vec3(0, -0.24, 0)};
  for (int r = 0; r < 4; ++r)
    b.addActuator({.name = "thrust" + std::to_string(r + 1),
                   .kind = ActuatorKind::BodyForce,
                   .body = "base",
                   .point = rotors[r],
                   .direction = Vec3::UnitZ()});
  b.addActuator({.name = "yaw_torque",
                 .kind = ActuatorKind::BodyTorque,
                 .body = "base",
                 .direction = Vec3::UnitZ()});
  return b.build();
}

// ---- Reference helpers ------------------------------------------------------------------------

/// Y(Φ) of (1.6b), written out here independently of the controller: ω_body = Y Φ̇.
Mat3 eulerRateMatrix(const Vec3& phi) {
  const double sa = std::sin(phi(0)), ca = std::cos(phi(0));
  const double sb = std::sin(phi(1)), cb = std::cos(phi(1));
  Mat3 Y;
  Y << 1, 0, -sb, 0, ca, sa * cb, 0, -sa, ca * cb;
  return Y;
}

/// A smooth path of a free body: position r(t) and attitude R(t) with their derivatives.
struct PathPoint {
  Vec3 r, r_dot, r_ddot;
  Mat3 R;
  Vec3 w, w_dot;  // body angular velocity and acceleration
};

/// Writes the reference sample of a free (R column-stacked) or free_quaternion joint at
/// offset 0: x = [r; R or q], ξ = [v; ω] (body twist), ξ̇ = [v̇; ω̇] with ṙ = R v,
/// r̈ = R (v̇ + ω × v).
void freeBodySample(const PathPoint& p, bool quaternion, ReferenceSample& out) {
  out.x.resize(quaternion ? 7 : 12);
  out.x.head<3>() = p.r;
  if (quaternion)
    out.x.segment<4>(3) = rotationToQuaternion(p.R);
  else
    Eigen::Map<Mat3>(out.x.data() + 3) = p.R;
  const Vec3 v = p.R.transpose() * p.r_dot;
  out.xi.resize(6);
  out.xi << v, p.w;
  out.xidot.resize(6);
  out.xidot << p.R.transpose() * p.r_ddot - p.w.cross(v), p.w_dot;
}

/// ω and ω̇ of R(t) by central differences (independent of any rate map): ω̂ = Rᵀ Ṙ.
void angularRates(const std::function<Mat3(double)>& R, double t, Vec3& w, Vec3& w_dot) {
  auto omega = [&](double s) {
    const double h = 1e-5;
    const Mat3 W = R(s).transpose() * (R(s + h) - R(s - h)) / (2 * h);
    return Vec3(0.5 * (W(2, 1) - W(1, 2)), 0.5 * (W(0, 2) - W(2, 0)), 0.5 * (W(1, 0) - W(0, 1)));
  };
  const double h = 1e-3;
  w = omega(t);
  w_dot = (omega(t - 2 * h) - 8 * omega(t - h) + 8 * omega(t + h) - omega(t + 2 * h)) / (12 * h);
}

// ---- Computed torque ----------------------------------------------------------------------------

TEST(ComputedTorque, NamesGainsAfterCoordinatesAndJoints) {
  const Model model = test::kremerAerialManipulator(2);
  ComputedTorqueController ct(model, ControllerSettings{"computed_torque", {}, {}});
  const std::vector<std::string> expected = {"x",     "y",   "z",      "roll",
                                             "pitch", "yaw", "joint1", "joint2"};
  EXPECT_EQ(ct.coordinateNames(), expected);
  EXPECT_EQ(ct.parameters().size(), 16);
  const ParameterSpec& kp = ct.parameters().spec(ct.parameters().find("kp_joint2"));
  EXPECT_EQ(kp.unit, "1/s^2");
  EXPECT_EQ(kp.default_value, 25.0);
  EXPECT_EQ(kp.max, 1e4);
  EXPECT_EQ(ct.parameters().spec(ct.parameters().find("kd_yaw")).default_value, 10.0);
  // the controller block of scenes/kremer_quadcopter_arm2.yaml (Kremer et al. B11 gains)
  ct.parameters().setAll(kKremerGainsArm2);
  EXPECT_TRUE(hasSignal(ct, "error.position"));
  EXPECT_TRUE(hasSignal(ct, "error.joints"));
  EXPECT_TRUE(hasSignal(ct, "control.force_residual"));
  EXPECT_TRUE(hasSignal(ct, "control.cos_pitch"));
  EXPECT_THROW(ComputedTorqueController(model, {"computed_torque", {}, {{"layout", "x"}}}),
               ControlError);
  EXPECT_THROW(ct.parameters().set("kp_joint3", 1.0), ControlError);
}

TEST(ComputedTorque, RefusesModelsWithoutInputs) {
  ModelBuilder b;
  b.addBody({"box", 1.0, Vec3::Zero(), Mat3::Identity()});
  b.addJoint({.name = "float", .type = JointType::Free, .parent = kWorld, .child = "box"});
  EXPECT_THROW(ComputedTorqueController(b.build(), {"computed_torque", {}, {}}), ControlError);
}

TEST(ComputedTorque, DoublePendulumErrorFollowsTheLinearErrorDynamics) {
  const Model model = actuatedDoublePendulum();
  ComputedTorqueController ct(model, {"computed_torque", {}, {}});
  const double kp[2] = {25.0, 16.0}, kd[2] = {10.0, 2.0};  // critically damped, underdamped
  ct.parameters().setAll(
      {{"kp_shoulder", kp[0]}, {"kd_shoulder", kd[0]}, {"kp_elbow", kp[1]}, {"kd_elbow", kd[1]}});

  // moving reference q_R(t) with analytic derivatives
  auto reference = [](double t, ReferenceSample& r) {
    r.x = Eigen::Vector2d(0.4 * std::sin(1.3 * t), -0.3 + 0.5 * std::cos(0.9 * t));
    r.xi = Eigen::Vector2d(0.52 * std::cos(1.3 * t), -0.45 * std::sin(0.9 * t));
    r.xidot = Eigen::Vector2d(-0.676 * std::sin(1.3 * t), -0.405 * std::cos(0.9 * t));
  };
  ReferenceSample r0;
  reference(0.0, r0);
  const Eigen::Vector2d dq(0.3, -0.2), dqdot(-0.5, 0.4);
  State state{r0.x + dq, r0.xi + dqdot};

  test::Rk4ClosedLoop loop(model, ct, reference);
  double t = 0.0;
  for (double t_check : {0.5, 1.0, 2.0, 3.0}) {
    ASSERT_TRUE(loop.run(state, t, t_check - t)) << loop.failure();
    ReferenceSample r;
    reference(t, r);
    for (int i = 0; i < 2; ++i)
      EXPECT_NEAR(r.x[i] - state.x[i], closedForm(kp[i], kd[i], -dq[i], -dqdot[i], t), 1e-6)
          << "joint " << i << " at t = " << t;
  }
  ASSERT_TRUE(loop.evaluate(t, state)) << loop.failure();
  EXPECT_LT(signal(ct, "control.force_residual"), 1e-9);  // fully actuated: exact
}

TEST(ComputedTorque, FreeBodyEulerErrorFollowsTheLinearErrorDynamics) {
  const Model model = fullyActuatedBody();
  ComputedTorqueController ct(model, {"computed_torque", {}, {}});
  const char* names[6] = {"x", "y", "z", "roll", "pitch", "yaw"};
  const double kp[6] = {25, 16, 4, 36, 9, 20}, kd[6] = {10, 2, 5, 12, 4, 3};
  for (int i = 0; i < 6; ++i) {
    ct.parameters().set(std::string("kp_") + names[i], kp[i]);
    ct.parameters().set(std::string("kd_") + names[i], kd[i]);
  }

  // reference: r_R(t), Φ_R(t) (|pitch| ≤ 0.4), attitude rates from Y(Φ) and Ẏ by differences
  auto position = [](double t) {
    return Vec3(0.5 * std::sin(t), 0.2 * t, 1.0 + 0.3 * std::cos(2 * t));
  };
  auto velocity = [](double t) { return Vec3(0.5 * std::cos(t), 0.2, -0.6 * std::sin(2 * t)); };
  auto acceleration = [](double t) {
    return Vec3(-0.5 * std::sin(t), 0.0, -1.2 * std::cos(2 * t));
  };
  auto angles = [](double t) {
    return Vec3(0.3 * std::sin(1.1 * t), 0.4 * std::sin(0.7 * t), 0.5 * t);
  };
  auto angle_rates = [](double t) {
    return Vec3(0.33 * std::cos(1.1 * t), 0.28 * std::cos(0.7 * t), 0.5);
  };
  auto angle_accelerations = [](double t) {
    return Vec3(-0.363 * std::sin(1.1 * t), -0.196 * std::sin(0.7 * t), 0.0);
  };
  auto reference = [&](double t, ReferenceSample& r) {
    const Vec3 phi = angles(t), phidot = angle_rates(t);
    const double h = 1e-5;
    const Mat3 Ydot = (eulerRateMatrix(angles(t + h)) - eulerRateMatrix(angles(t - h))) / (2 * h);
    PathPoint p{position(t),
                velocity(t),
                acceleration(t),
                rotationZYX(phi(0), phi(1), phi(2)),
                eulerRateMatrix(phi) * phidot,
                eulerRateMatrix(phi) * angle_accelerations(t) + Ydot * phidot};
    freeBodySample(p, true, r);
  };
  {  // Y of the test is the body angular velocity of R(Φ(t))
    Vec3 w, w_dot;
    angularRates(
        [&](double s) {
          const Vec3 a = angles(s);
          return rotationZYX(a(0), a(1), a(2));
        },
        0.7, w, w_dot);
    EXPECT_LT((w - eulerRateMatrix(angles(0.7)) * angle_rates(0.7)).norm(), 1e-8);
  }

  // initial error δq, δq̇ in the minimal coordinates
  const Vec3 dr(0.1, -0.2, 0.15), dphi(0.2, -0.15, 0.3);
  const Vec3 drdot(0.2, 0.0, -0.1), dphidot(0.1, 0.2, -0.3);
  const Vec3 phi0 = angles(0) + dphi;
  const Mat3 R0 = rotationZYX(phi0(0), phi0(1), phi0(2));
  State state;
  state.x.resize(7);
  state.x << position(0) + dr, rotationToQuaternion(R0);
  state.xi.resize(6);
  state.xi << R0.transpose() * (velocity(0) + drdot),
      eulerRateMatrix(phi0) * (angle_rates(0) + dphidot);
  double e0[6], v0[6];
  for (int i = 0; i < 3; ++i) {
    e0[i] = -dr(i), v0[i] = -drdot(i);
    e0[i + 3] = -dphi(i), v0[i + 3] = -dphidot(i);
  }

  test::Rk4ClosedLoop loop(model, ct, reference);
  double t = 0.0;
  for (double t_check : {0.5, 1.0, 2.0, 3.0}) {
    ASSERT_TRUE(loop.run(state, t, t_check - t)) << loop.failure();
    const Mat3 R = quaternionToRotation(state.x.segment<4>(3));
    const Vec3 e_r = position(t) - state.x.head<3>();
    const Vec3 phi = eulerZYXFromRotation(R), phi_ref = angles(t);
    for (int i = 0; i < 3; ++i) {
      EXPECT_NEAR(e_r(i), closedForm(kp[i], kd[i], e0[i], v0[i], t), 1e-6)
          << names[i] << " at t = " << t;
      EXPECT_NEAR(std::remainder(phi_ref(i) - phi(i), 2 * kPi),
                  closedForm(kp[i + 3], kd[i + 3], e0[i + 3], v0[i + 3], t), 1e-6)
          << names[i + 3] << " at t = " << t;
    }
  }
}

TEST(ComputedTorque, PlanarSphericalUniversalPrismaticFollowTheLinearErrorDynamics) {
  // planar root ("slide": x, y, theta) → spherical rotation matrix ("wrist": ZYX angles) →
  // universal ("gimbal") → prismatic ("slider"), one joint effort per velocity coordinate
  ModelBuilder b;
  b.addBody({"cart", 1.5, Vec3(0.05, 0.02, 0.0), Vec3(0.02, 0.03, 0.04).asDiagonal()});
  b.addBody({"ball", 0.8, Vec3(0.0, 0.03, -0.05), Vec3(0.004, 0.005, 0.006).asDiagonal()});
  b.addBody({"fork", 0.5, Vec3(0.02, 0.0, -0.1), Vec3(0.003, 0.002, 0.004).asDiagonal()});
  b.addBody({"rod", 0.3, Vec3(0.1, 0.0, 0.0), Vec3(0.001, 0.002, 0.002).asDiagonal()});
  b.addJoint({.name = "slide", .type = JointType::Planar, .parent = kWorld, .child = "cart"});
  b.addJoint({.name = "wrist",
              .type = JointType::Spherical,
              .parent = "cart",
              .child = "ball",
              .parent_placement = Pose::translation(Vec3(0.2, 0.0, 0.1))});
  JointSpec gimbal{.name = "gimbal",
                   .type = JointType::Universal,
                   .parent = "ball",
                   .child = "fork",
                   .parent_placement = Pose::translation(Vec3(0.0, 0.0, -0.3))};
  gimbal.axis = Vec3::UnitZ();
  gimbal.axis2 = Vec3::UnitY();
  b.addJoint(gimbal);
  JointSpec slider{
      .name = "slider", .type = JointType::Prismatic, .parent = "fork", .child = "rod"};
  slider.axis = Vec3::UnitX();
  b.addJoint(slider);
  const std::pair<const char*, int> efforts[] = {
      {"slide", 3}, {"wrist", 3}, {"gimbal", 2}, {"slider", 1}};
  for (const auto& [joint, count] : efforts)
    for (int c = 0; c < count; ++c)
      b.addActuator({.name = std::string(joint) + std::to_string(c),
                     .kind = ActuatorKind::JointEffort,
                     .joint = joint,
                     .component = c});
  const Model model = b.build();
  ComputedTorqueController ct(model, {"computed_torque", {}, {}});
  const std::vector<std::string> names = {"x",          "y",           "theta",
                                          "wrist_roll", "wrist_pitch", "wrist_yaw",
                                          "gimbal_1",   "gimbal_2",    "slider"};
  ASSERT_EQ(ct.coordinateNames(), names);
  std::vector<double> kp(9, 25.0), kd(9, 10.0);
  kp[2] = 16, kd[2] = 2, kp[4] = 9, kd[4] = 8, kp[7] = 4, kd[7] = 5;
  for (int i = 0; i < 9; ++i) {
    ct.parameters().set("kp_" + names[i], kp[i]);
    ct.parameters().set("kd_" + names[i], kd[i]);
  }
  const Joint& slide = model.joints[model.jointIndex("slide")];
  const Joint& wrist = model.joints[model.jointIndex("wrist")];

  // reference: planar p(t), θ(t); wrist Φ(t); gimbal and slider held
  auto planar = [](double t) { return Vec3(0.3 * std::sin(t), 0.2 * std::cos(0.5 * t), 0.4 * t); };
  auto planar_rate = [](double t) {
    return Vec3(0.3 * std::cos(t), -0.1 * std::sin(0.5 * t), 0.4);
  };
  auto planar_acc = [](double t) { return Vec3(-0.3 * std::sin(t), -0.05 * std::cos(0.5 * t), 0); };
  auto angles = [](double t) { return Vec3(0.2 * std::sin(t), 0.3 * std::cos(0.8 * t), 0.1 * t); };
  auto angle_rates = [](double t) {
    return Vec3(0.2 * std::cos(t), -0.24 * std::sin(0.8 * t), 0.1);
  };
  auto angle_accs = [](double t) {
    return Vec3(-0.2 * std::sin(t), -0.192 * std::cos(0.8 * t), 0);
  };
  const VecX held = (VecX(3) << 0.3, -0.2, 0.1).finished();  // gimbal_1, gimbal_2, slider
  // x, ξ of the planar joint and the wrist for (p, θ, Φ) and their rates
  auto write = [&](const Vec3& pl, const Vec3& pl_rate, const Vec3& phi, const Vec3& phi_rate,
                   VecX& x, VecX& xi) {
    const double c = std::cos(pl(2)), s = std::sin(pl(2));
    x.segment<3>(slide.x_offset) = pl;
    xi.segment<3>(slide.xi_offset) << c * pl_rate(0) + s * pl_rate(1),
        -s * pl_rate(0) + c * pl_rate(1), pl_rate(2);
    Eigen::Map<Mat3>(x.data() + wrist.x_offset) = rotationZYX(phi(0), phi(1), phi(2));
    xi.segment<3>(wrist.xi_offset) = eulerRateMatrix(phi) * phi_rate;
  };
  auto reference = [&](double t, ReferenceSample& r) {
    r.x = model.neutralState().x;
    r.xi = VecX::Zero(9);
    r.xidot = VecX::Zero(9);
    write(planar(t), planar_rate(t), angles(t), angle_rates(t), r.x, r.xi);
    r.x.tail<3>() = held;
    // planar: v̇ = R(θ)ᵀ p̈ − ω J v with J v = (−v_y, v_x); wrist: ω̇ = Y Φ̈ + Ẏ Φ̇
    const Vec3 v = r.xi.segment<3>(slide.xi_offset), a = planar_acc(t);
    const double c = std::cos(planar(t)(2)), s = std::sin(planar(t)(2));
    r.xidot.segment<3>(slide.xi_offset) << c * a(0) + s * a(1) + v(2) * v(1),
        -s * a(0) + c * a(1) - v(2) * v(0), a(2);
    const double h = 1e-5;
    const Mat3 Ydot = (eulerRateMatrix(angles(t + h)) - eulerRateMatrix(angles(t - h))) / (2 * h);
    r.xidot.segment<3>(wrist.xi_offset) =
        eulerRateMatrix(angles(t)) * angle_accs(t) + Ydot * angle_rates(t);
  };
  // the actual minimal coordinates, computed here from x
  auto minimal = [&](const VecX& x) {
    VecX q(9);
    q.head<3>() = x.segment<3>(slide.x_offset);
    q.segment<3>(3) = eulerZYXFromRotation(Eigen::Map<const Mat3>(x.data() + wrist.x_offset));
    q.tail<3>() = x.tail<3>();
    return q;
  };

  VecX dq(9), dqdot(9);
  dq << 0.1, -0.05, 0.2, 0.1, -0.15, 0.2, -0.1, 0.15, 0.05;
  dqdot << -0.2, 0.1, 0.3, 0.2, 0.1, -0.2, 0.3, -0.1, 0.2;
  State state{model.neutralState().x, VecX::Zero(9)};
  write(planar(0) + dq.head<3>(), planar_rate(0) + dqdot.head<3>(), angles(0) + dq.segment<3>(3),
        angle_rates(0) + dqdot.segment<3>(3), state.x, state.xi);
  state.x.tail<3>() = held + dq.tail<3>();
  state.xi.tail<3>() = dqdot.tail<3>();

  test::Rk4ClosedLoop loop(model, ct, reference);
  double t = 0.0;
  for (double t_check : {1.0, 2.5}) {
    ASSERT_TRUE(loop.run(state, t, t_check - t)) << loop.failure();
    ReferenceSample r;
    reference(t, r);
    const VecX e = minimal(r.x) - minimal(state.x);
    for (int i = 0; i < 9; ++i)
      EXPECT_NEAR(std::remainder(e[i], 2 * kPi), closedForm(kp[i], kd[i], -dq[i], -dqdot[i], t),
                  1e-6)
          << names[i] << " at t = " << t;
  }
}

TEST(ComputedTorque, ReportsGimbalLockInsteadOfGarbage) {
  const Model model = fullyActuatedBody();
  ComputedTorqueController ct(model, {"computed_torque", {}, {}});
  auto state_at = [](double pitch) {
    State s;
    s.x.resize(7);
    s.x << 0, 0, 1, rotationToQuaternion(rotationZYX(0.2, pitch, -0.1));
    s.xi.resize(6);
    s.xi << 0.1, 0, 0, 0.3, -0.2, 0.1;
    return s;
  };
  ReferenceSample level;
  freeBodySample(
      {Vec3(0, 0, 1), Vec3::Zero(), Vec3::Zero(), Mat3::Identity(), Vec3::Zero(), Vec3::Zero()},
      true, level);
  VecX u;
  EXPECT_TRUE(ct.compute(0.0, state_at(80 * kPi / 180), level, u)) << ct.message();
  EXPECT_TRUE(u.allFinite());
  EXPECT_GT(signal(ct, "control.cos_pitch"), 0.17);

  EXPECT_FALSE(ct.compute(0.0, state_at(kPi / 2), level, u));
  EXPECT_NE(ct.message().find("gimbal lock"), std::string::npos) << ct.message();
  EXPECT_NE(ct.message().find("the state"), std::string::npos) << ct.message();
  EXPECT_NE(ct.message().find("'float'"), std::string::npos) << ct.message();

  ReferenceSample flipped;
  freeBodySample({Vec3(0, 0, 1), Vec3::Zero(), Vec3::Zero(), rotationZYX(0, -kPi / 2, 0),
                  Vec3::Zero(), Vec3::Zero()},
                 true, flipped);
  EXPECT_FALSE(ct.compute(0.0, state_at(0.1), flipped, u));
  EXPECT_NE(ct.message().find("the reference"), std::string::npos) << ct.message();
}

TEST(ComputedTorque, KremerGainsHoldTheAerialManipulatorInHover) {
  // [K] B11: 4 coplanar thrusts (no yaw authority) and 2 joint torques for 8 velocity
  // coordinates; kp_x = kp_y = 0. Height, tilt and joints converge; x, y, yaw are not controlled.
  test::AerialManipulatorParameters p;
  p.base_joint = JointType::FreeQuaternion;
  const Model model = test::kremerAerialManipulator(2, p);
  ComputedTorqueController ct(model, {"computed_torque", {}, {}});
  ct.parameters().setAll(kKremerGainsArm2);
  ReferenceSample hover;
  hover.x = model.neutralState().x;
  hover.x.head<3>() = Vec3(0, 0, 2);
  hover.x.tail<2>() = Eigen::Vector2d(kPi / 4, -kPi / 4);
  hover.xi = VecX::Zero(model.nxi);
  hover.xidot = VecX::Zero(model.nxi);
  State state{hover.x, hover.xi};
  state.x[2] = 1.8;
  state.x.tail<2>() += Eigen::Vector2d(0.2, -0.15);

  test::Rk4ClosedLoop loop(model, ct, [&](double, ReferenceSample& r) { r = hover; });
  double t = 0.0;
  ASSERT_TRUE(loop.run(state, t, 10.0)) << loop.failure();
  ASSERT_TRUE(loop.evaluate(t, state)) << loop.failure();
  EXPECT_NEAR(state.x[2], 2.0, 1e-3);
  EXPECT_LT(signal(ct, "error.joints"), 1e-3);
  const Vec3 rpy = eulerZYXFromRotation(quaternionToRotation(state.x.segment<4>(3)));
  EXPECT_LT(std::abs(rpy(0)) + std::abs(rpy(1)), 1e-3);
  // at rest on the reference the computed generalized force is produced exactly (no yaw moment
  // or x, y force is asked for)
  EXPECT_LT(signal(ct, "control.force_residual"), 1e-3);
}

// ---- Joint PD -----------------------------------------------------------------------------------

TEST(JointPd, GravityCompensationHoldsAConstantReference) {
  const Model model = actuatedDoublePendulum();
  JointPdController pd(model, {"joint_pd", {}, {}});
  EXPECT_EQ(pd.parameters().spec(pd.parameters().find("kp")).unit, "N m/rad");
  pd.parameters().setAll({{"kp", 50.0}, {"kd", 10.0}});
  ReferenceSample hold{Eigen::Vector2d(0.6, -0.4), VecX::Zero(2), VecX::Zero(2)};
  State state = model.neutralState();
  test::Rk4ClosedLoop loop(model, pd, [&](double, ReferenceSample& r) { r = hold; });
  double t = 0.0;
  ASSERT_TRUE(loop.run(state, t, 12.0)) << loop.failure();
  EXPECT_LT((state.x - hold.x).norm(), 1e-6);
  EXPECT_LT(state.xi.norm(), 1e-6);
  ASSERT_TRUE(loop.evaluate(t, state)) << loop.failure();
  EXPECT_LT(signal(pd, "error.joints"), 1e-6);
  EXPECT_GT(signal(pd, "control.gravity_effort"), 1.0);  // it holds the arm against gravity

  // without compensation the arm sags: a steady-state error remains
  JointPdController plain(model, {"joint_pd", {}, {{"gravity_compensation", "off"}}});
  plain.parameters().setAll({{"kp", 50.0}, {"kd", 10.0}});
  EXPECT_EQ(plain.parameters().value(plain.parameters().find("gravity_compensation")), 0.0);
  State sag = model.neutralState();
  test::Rk4ClosedLoop loop2(model, plain, [&](double, ReferenceSample& r) { r = hold; });
  t = 0.0;
  ASSERT_TRUE(loop2.run(sag, t, 12.0)) << loop2.failure();
  EXPECT_GT((sag.x - hold.x).norm(), 1e-2);
  ASSERT_TRUE(loop2.evaluate(t, sag)) << loop2.failure();
  EXPECT_EQ(signal(plain, "control.gravity_effort"), 0.0);

  // the switch flipped during the run: the compensation takes over and the sag goes
  plain.parameters().set("gravity_compensation", 1.0);
  ASSERT_TRUE(loop2.run(sag, t, 24.0)) << loop2.failure();
  EXPECT_LT((sag.x - hold.x).norm(), 1e-6);
}

TEST(JointPd, RefusesJointsWithoutEffortActuatorsAndBadOptions) {
  const Model elbow_only = actuatedDoublePendulum(false, true);
  try {
    JointPdController pd(elbow_only, {"joint_pd", {}, {}});
    FAIL() << "expected ControlError";
  } catch (const ControlError& e) {
    EXPECT_NE(std::string(e.what()).find("'shoulder'"), std::string::npos) << e.what();
  }
  // controlling only the actuated joint is fine; the other input stays 0
  JointPdController pd(elbow_only, {"joint_pd", {}, {{"joints", "elbow"}}});
  VecX u;
  ReferenceSample r{Eigen::Vector2d(0.0, 0.5), VecX::Zero(2), VecX::Zero(2)};
  ASSERT_TRUE(pd.compute(0.0, elbow_only.neutralState(), r, u));
  ASSERT_EQ(u.size(), 1);
  EXPECT_NEAR(u[0], 100.0 * 0.5, 1e-12);  // default kp; no gravity torque at the neutral pose

  const Model model = actuatedDoublePendulum();
  EXPECT_THROW(JointPdController(model, {"joint_pd", {}, {{"gravity_compensation", "maybe"}}}),
               ControlError);
  EXPECT_THROW(JointPdController(model, {"joint_pd", {}, {{"joints", "wrist"}}}), ControlError);
  EXPECT_THROW(JointPdController(model, {"joint_pd", {}, {{"gain", "high"}}}), ControlError);
  EXPECT_THROW(JointPdController(quadcopter(), {"joint_pd", {}, {}}), ControlError);
}

// ---- Geometric SE(3)
// ------------------------------------------------------------------------------

PathPoint hoverPoint(const Vec3& r, double yaw) {
  return {r, Vec3::Zero(), Vec3::Zero(), rotationZYX(0, 0, yaw), Vec3::Zero(), Vec3::Zero()};
}

TEST(GeometricSe3, DeclaresScaledGainsAndRefusesModelsWithoutAFreeBase) {
  const Model model = quadcopter();
  GeometricSe3Controller geo(model, {"geometric_se3", {}, {}});
  const ParameterSet& p = geo.parameters();
  EXPECT_NEAR(p.value(p.find("kx")), 16.0 * 1.001, 1e-12);
  EXPECT_NEAR(p.value(p.find("kv")), 5.6 * 1.001, 1e-12);
  EXPECT_NEAR(p.value(p.find("kR")), 8.81 / 0.082 * 0.018, 1e-12);
  EXPECT_NEAR(p.value(p.find("kOmega")), 2.54 / 0.082 * 0.018, 1e-12);
  EXPECT_EQ(p.spec(p.find("kR")).scale, ParameterScale::Log);
  EXPECT_TRUE(hasSignal(geo, "control.thrust"));
  EXPECT_THROW(GeometricSe3Controller(actuatedDoublePendulum(), {"geometric_se3", {}, {}}),
               ControlError);
  EXPECT_THROW(GeometricSe3Controller(fullyActuatedBody(), {"geometric_se3", {}, {{"x", "y"}}}),
               ControlError);
  // thrusts along body x cannot lift along body z
  ModelBuilder b;
  b.addBody({"base", 1.0, Vec3::Zero(), Mat3::Identity() * 0.01});
  b.addJoint({.name = "flight", .type = JointType::Free, .parent = kWorld, .child = "base"});
  b.addActuator({.name = "push",
                 .kind = ActuatorKind::BodyForce,
                 .body = "base",
                 .direction = Vec3::UnitX()});
  EXPECT_THROW(GeometricSe3Controller(b.build(), {"geometric_se3", {}, {}}), ControlError);
}

/// Hover recovery from a 0.5 m position and 30° attitude error.
void expectHoverRecovery(const Model& model, bool quaternion, double yaw_ref, double t_end) {
  GeometricSe3Controller geo(model, {"geometric_se3", {}, {}});
  ReferenceSample hover, start;
  freeBodySample(hoverPoint(Vec3(0, 0, 1), yaw_ref), quaternion, hover);
  const Mat3 R0 =
      axisAngleRotation(Vec3(1, 2, 3).normalized(), kPi / 6) * hoverPoint(Vec3::Zero(), yaw_ref).R;
  freeBodySample({Vec3(0, 0, 1) + 0.5 * Vec3(1, -1, 1).normalized(), Vec3::Zero(), Vec3::Zero(), R0,
                  Vec3::Zero(), Vec3::Zero()},
                 quaternion, start);
  State state{start.x, start.xi};

  test::Rk4ClosedLoop loop(model, geo, [&](double, ReferenceSample& r) { r = hover; });
  double t = 0.0;
  ASSERT_TRUE(loop.evaluate(t, state)) << loop.failure();
  EXPECT_NEAR(signal(geo, "error.position"), 0.5, 1e-12);
  EXPECT_NEAR(signal(geo, "error.attitude"), kPi / 6, 1e-12);
  ASSERT_TRUE(loop.run(state, t, t_end)) << loop.failure();
  ASSERT_TRUE(loop.evaluate(t, state)) << loop.failure();
  EXPECT_LT(signal(geo, "error.position"), 1e-3);
  EXPECT_LT(signal(geo, "error.attitude"), 1e-3);
  EXPECT_LT(signal(geo, "error.velocity"), 1e-3);
  double weight = 0.0;
  for (const Body& b : model.bodies) weight += b.mass * 9.81;
  EXPECT_NEAR(signal(geo, "control.thrust"), weight, 1e-2);
}

TEST(GeometricSe3, QuadcopterRecoversToHover) {
  expectHoverRecovery(quadcopter(), false, 0.4, 5.0);
}

TEST(GeometricSe3, QuadcopterWithCentreOfMassOffTheFrameOriginRecoversToHover) {
  expectHoverRecovery(quadcopter(Vec3(0.03, -0.02, -0.08)), false, 0.0, 5.0);
}

TEST(GeometricSe3, KremerQuadcopterWithoutYawAuthorityRecoversToHover) {
  // free_quaternion base, four coplanar thrusts (no yaw moment): only a tilt error
  test::AerialManipulatorParameters p;
  p.base_joint = JointType::FreeQuaternion;
  const Model model = test::kremerAerialManipulator(0, p);
  GeometricSe3Controller geo(model, {"geometric_se3", {}, {}});
  ReferenceSample hover;
  freeBodySample(hoverPoint(Vec3(0, 0, 2), 0.0), true, hover);
  State state{hover.x, hover.xi};
  state.x.head<3>() += Vec3(0.3, -0.4, 0.0);
  state.x.segment<4>(3) = rotationToQuaternion(rotationZYX(0.35, -0.2, 0.0));
  test::Rk4ClosedLoop loop(model, geo, [&](double, ReferenceSample& r) { r = hover; });
  double t = 0.0;
  ASSERT_TRUE(loop.run(state, t, 8.0)) << loop.failure();
  ASSERT_TRUE(loop.evaluate(t, state)) << loop.failure();
  EXPECT_LT(signal(geo, "error.position"), 1e-3);
  // the tilt converges; the heading is not controllable and drifts during the recovery
  const Mat3 R = quaternionToRotation(state.x.segment<4>(3));
  EXPECT_LT(std::acos(std::min(1.0, R(2, 2))), 1e-3);
  EXPECT_LT(signal(geo, "error.velocity"), 1e-3);
}

TEST(GeometricSe3, AerialManipulatorHoversOnTheCompositeCentreOfMass) {
  // arm hanging straight down (an equilibrium of the passive arm): the composite of base and
  // link is the vehicle, its CoM 0.1 + 0.22 m·(0.78/6.78) below the base frame
  test::AerialManipulatorParameters p;
  const Model model = test::kremerAerialManipulator(1, p);
  GeometricSe3Controller geo(model, {"geometric_se3", {}, {}});
  const double mass = p.base_mass + p.link_mass;
  EXPECT_NEAR(geo.parameters().value(geo.parameters().find("kx")), 16.0 * mass, 1e-12);
  ReferenceSample hover{model.neutralState().x, VecX::Zero(model.nxi), VecX::Zero(model.nxi)};
  hover.x[2] = 2.0;
  State state{hover.x, hover.xi};
  state.x[0] += 0.05;  // a small offset: the arm swings a little
  test::Rk4ClosedLoop loop(model, geo, [&](double, ReferenceSample& r) { r = hover; });
  double t = 0.0;
  ASSERT_TRUE(loop.evaluate(t, state)) << loop.failure();
  EXPECT_EQ(loop.input()[4], 0.0);  // the joint torque: no base authority, minimum norm
  ASSERT_TRUE(loop.run(state, t, 10.0)) << loop.failure();
  ASSERT_TRUE(loop.evaluate(t, state)) << loop.failure();
  EXPECT_LT(signal(geo, "error.position"), 5e-3);
  EXPECT_NEAR(signal(geo, "control.thrust"), mass * 9.81, 0.5);
}

TEST(GeometricSe3, TracksACircleWithTheFlatOutputAttitude) {
  const Model model = quadcopter();
  GeometricSe3Controller geo(model, {"geometric_se3", {}, {}});
  const double radius = 1.0, rate = 1.2, yaw_rate = 0.3;
  const Vec3 a_G = model.gravity;
  auto position = [&](double t) {
    return Vec3(radius * std::cos(rate * t), radius * std::sin(rate * t), 1.0);
  };
  auto velocity = [&](double t) {
    return Vec3(-radius * rate * std::sin(rate * t), radius * rate * std::cos(rate * t), 0.0);
  };
  auto acceleration = [&](double t) { return Vec3(-rate * rate * (position(t) - Vec3(0, 0, 1))); };
  // R_d: thrust axis along r̈ − a_G, heading ψ = yaw_rate t (Lee et al.'s b₁d construction)
  auto attitude = [&](double t) {
    const Vec3 b3 = (acceleration(t) - a_G).normalized();
    const Vec3 b1d(std::cos(yaw_rate * t), std::sin(yaw_rate * t), 0.0);
    const Vec3 b2 = b3.cross(b1d).normalized();
    Mat3 R;
    R << b2.cross(b3), b2, b3;
    return R;
  };
  auto reference = [&](double t, ReferenceSample& r) {
    PathPoint p{position(t), velocity(t), acceleration(t), attitude(t), Vec3::Zero(), Vec3::Zero()};
    angularRates(attitude, t, p.w, p.w_dot);
    freeBodySample(p, false, r);
  };

  // start on the reference: it stays there (perfect tracking) …
  ReferenceSample r0;
  reference(0.0, r0);
  State state{r0.x, r0.xi};
  test::Rk4ClosedLoop loop(model, geo, reference);
  double t = 0.0;
  ASSERT_TRUE(loop.run(state, t, 2.0)) << loop.failure();
  ASSERT_TRUE(loop.evaluate(t, state)) << loop.failure();
  EXPECT_LT(signal(geo, "error.position"), 1e-6);
  EXPECT_LT(signal(geo, "error.attitude"), 1e-6);
  EXPECT_LT(signal(geo, "control.attitude_command"), 1e-6);
  EXPECT_NEAR(signal(geo, "control.thrust"), 1.001 * (acceleration(t) - a_G).norm(), 1e-5);

  // … and converges to it from an offset start
  State off{r0.x, r0.xi};
  off.x.head<3>() += Vec3(-0.3, 0.2, -0.25);
  t = 0.0;
  ASSERT_TRUE(loop.run(off, t, 6.0)) << loop.failure();
  ASSERT_TRUE(loop.evaluate(t, off)) << loop.failure();
  EXPECT_LT(signal(geo, "error.position"), 1e-3);
  EXPECT_LT(signal(geo, "error.attitude"), 1e-3);
  EXPECT_LT(signal(geo, "error.velocity"), 1e-3);
}

}  // namespace
}  // namespace rbs
