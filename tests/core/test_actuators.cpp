// Actuator models of thesis 5.2.1 against closed-form solutions: propeller aerodynamics (5.3) with
// a current-driven motor (5.1), the speed-servo (first-order lag) motor, the tilt servo's PD loop
// (5.2) on a joint with a geared rotor (armature), and the rigid-body force model
// (ModelBuilder::rotorsAsThrusters) the controllers are designed on.
#include <gtest/gtest.h>

#include <cmath>

#include "core/dynamics/dynamics.h"
#include "core/dynamics/energy.h"
#include "core/model/model_builder.h"
#include "sim/simulator.h"

namespace rbs {
namespace {

// Table 5.1 propeller and motor.
constexpr double kThrust = 1.44e-5;      // κ_F [N s²]
constexpr double kDrag = 2.45e-7;        // κ_T [N m s²]
constexpr double kTorqueConst = 0.0105;  // k_M [N m/A]
constexpr double kRotorInertia = 3.6e-5; // Θ_P [kg m²]
// RK4 at 0.1 ms on dynamics with time constants ≥ 20 ms: the global error is ~(dt/τ)⁴ ≈ 1e-9
// relative; closed forms are met to 1e-7 relative.
constexpr double kClosedFormTol = 1e-7;

BodySpec rotorBody(const std::string& name) {
  return {name, 0.01, Vec3::Zero(), Vec3(kRotorInertia / 2, kRotorInertia / 2, kRotorInertia).asDiagonal()};
}

/// A rotor spinning about the world z axis on a revolute joint, propeller + motor of `kind`.
ModelBuilder spinningRotor(ActuatorKind kind, double time_constant = 0.0) {
  ModelBuilder b;
  b.addBody(rotorBody("rotor"));
  JointSpec j{.name = "spin", .type = JointType::RevoluteUnitCircle, .parent = kWorld, .child = "rotor"};
  b.addJoint(j);
  b.addPropeller({.name = "prop", .joint = "spin", .thrust_coefficient = kThrust, .drag_coefficient = kDrag});
  ActuatorSpec motor{.name = "motor", .kind = kind, .joint = "spin"};
  if (kind == ActuatorKind::JointEffort) motor.gain = kTorqueConst;
  motor.time_constant = time_constant;
  b.addActuator(motor);
  return b;
}

IntegrationOptions rk4(double dt) {
  IntegrationOptions o;
  o.stepper = StepperKind::Rk4;
  o.dt = dt;
  return o;
}

TEST(Actuators, CurrentDrivenRotorSpinsUpAsTheClosedForm) {
  // Θ ϖ̇ = k_M i − κ_T ϖ² ⇒ ϖ(t) = ϖ∞ tanh(κ_T ϖ∞ t / Θ + atanh(ϖ₀/ϖ∞)), ϖ∞ = √(k_M i / κ_T).
  const Model m = spinningRotor(ActuatorKind::JointEffort).build();
  const double current = 4.0;  // [A]
  const double w_inf = std::sqrt(kTorqueConst * current / kDrag), w0 = 100.0;
  State s = m.initial_state;
  s.xi(0) = w0;
  const VecX u = VecX::Constant(1, current);
  double worst = 0.0;
  const IntegrationResult r = integrate(m, s, 0.0, 0.5, rk4(1e-4), [&](double, const State&, VecX& out) { out = u; },
                                        0.01, [&](double t, const State& st) {
                                          const double exact =
                                              w_inf * std::tanh(kDrag * w_inf * t / kRotorInertia + std::atanh(w0 / w_inf));
                                          worst = std::max(worst, std::abs(st.xi(0) - exact) / w_inf);
                                        });
  ASSERT_TRUE(r.ok) << r.message;
  EXPECT_LT(worst, kClosedFormTol);
}

TEST(Actuators, SpeedServoMotorIsAFirstOrderLag) {
  // τ = (Θ/T)(ϖ_R − ϖ) + τ_load(ϖ) ⇒ ϖ(t) = ϖ_R + (ϖ₀ − ϖ_R) e^{−t/T}.
  const double T = 0.02, w_ref = 600.0, w0 = 400.0;
  const Model m = spinningRotor(ActuatorKind::JointSpeedServo, T).build();
  EXPECT_NEAR(m.actuators[0].gain, kRotorInertia / T, 1e-15);
  State s = m.initial_state;
  s.xi(0) = w0;
  double worst = 0.0;
  const IntegrationResult r = integrate(
      m, s, 0.0, 0.2, rk4(1e-4), [&](double, const State&, VecX& out) { out = VecX::Constant(1, w_ref); }, 0.005,
      [&](double t, const State& st) {
        worst = std::max(worst, std::abs(st.xi(0) - (w_ref + (w0 - w_ref) * std::exp(-t / T))) / w_ref);
      });
  ASSERT_TRUE(r.ok) << r.message;
  EXPECT_LT(worst, kClosedFormTol);
}

TEST(Actuators, TiltServoWithGearedRotorIsTheSecondOrderLoopOf52) {
  // (Θ_arm + A) θ̈ = k_P (θ_R − θ) − k_D θ̇ with the Table 5.1 numbers k_P = 1400, k_D = 66, A = 0.9:
  // ω_n = √(k_P/Θ), ζ = k_D/(2 Θ ω_n) ≈ 0.93 — underdamped step response.
  ModelBuilder b;
  const double arm_inertia = 3.0e-5, armature = 0.9, kp = 1400.0, kd = 66.0, theta_ref = 0.5;
  b.addBody({"arm", 0.06, Vec3::Zero(), Vec3(arm_inertia, 2.5e-5, 1.5e-5).asDiagonal()});
  b.addJoint({.name = "tilt", .type = JointType::Revolute, .parent = kWorld, .child = "arm", .axis = Vec3::UnitX(),
              .armature = armature});
  b.addActuator({.name = "servo", .kind = ActuatorKind::JointServo, .joint = "tilt", .gain = kp, .damping = kd});
  b.setGravity(Vec3::Zero());
  const Model m = b.build();
  const double inertia = arm_inertia + armature;
  const double wn = std::sqrt(kp / inertia), zeta = kd / (2 * inertia * wn), wd = wn * std::sqrt(1 - zeta * zeta);
  EXPECT_NEAR(wn, 39.4, 0.1);
  EXPECT_NEAR(zeta, 0.93, 0.01);
  State s = m.initial_state;
  double worst = 0.0;
  const IntegrationResult r = integrate(
      m, s, 0.0, 0.5, rk4(1e-4), [&](double, const State&, VecX& out) { out = VecX::Constant(1, theta_ref); }, 0.005,
      [&](double t, const State& st) {
        const double exact =
            theta_ref * (1 - std::exp(-zeta * wn * t) * (std::cos(wd * t) + zeta * wn / wd * std::sin(wd * t)));
        worst = std::max(worst, std::abs(st.x(0) - exact) / theta_ref);
      });
  ASSERT_TRUE(r.ok) << r.message;
  EXPECT_LT(worst, kClosedFormTol);
}

TEST(Actuators, ArmatureIsKineticEnergyOnTheJointCoordinate) {
  // A passive pendulum with a geared rotor: M_jj and T include ½ A q̇², and W stays constant. The
  // armature sits on the joint's velocity coordinate, so angle and unit-circle coordinates give
  // the same motion.
  double final_angle[2];
  int k = 0;
  for (JointType type : {JointType::Revolute, JointType::RevoluteUnitCircle}) {
    ModelBuilder b;
    b.addBody({"link", 1.0, Vec3(0.3, 0, 0), Vec3(0.01, 0.01, 0.01).asDiagonal()});
    b.addJoint({.name = "hinge", .type = type, .parent = kWorld, .child = "link", .axis = Vec3::UnitY(),
                .initial_position = 0.4, .armature = 0.2});
    const Model m = b.build();
    Workspace ws(m);
    State s = m.initial_state;
    s.xi(0) = 1.5;
    computeKinematics(m, s.x, s.xi, ws);
    computeMassMatrix(m, ws);
    EXPECT_NEAR(ws.mass_matrix(0, 0), 0.01 + 1.0 * 0.09 + 0.2, 1e-14);  // Θ_y + m l² + A
    const Energies e0 = computeEnergies(m, s.x, s.xi, ws);
    EXPECT_NEAR(e0.kinetic, 0.5 * (0.01 + 0.09 + 0.2) * 1.5 * 1.5, 1e-14);
    integrate(m, s, 0.0, 3.0, rk4(1e-3), {});
    computeKinematics(m, s.x, s.xi, ws);
    EXPECT_NEAR(computeEnergies(m, s.x, s.xi, ws).total(), e0.total(), 1e-9);  // RK4 at 1 ms, 3 s
    final_angle[k++] = jointScalarPosition(m.joints[0], s.x.data());
  }
  EXPECT_NEAR(final_angle[0], final_angle[1], 1e-9);
}

TEST(Actuators, ForceModelGivesTheSameBaseWrenchAsSpinningPropellers) {
  // A free vehicle with two counter-rotating rotors on tilted mounts. With the base at rest the
  // plant's generalized force on the base rows (thrust κ_F ϖ² and drag torque −κ_T ϖ² a through the
  // rotor bodies) equals the force model's B F with F = κ_F ϖ² (thrust plus torque_ratio (4.143)).
  ModelBuilder b;
  b.addBody({"base", 1.0, Vec3(0.01, -0.02, 0.0), Vec3(0.02, 0.03, 0.04).asDiagonal()});
  b.addBody(rotorBody("r1"));
  b.addBody(rotorBody("r2"));
  b.addJoint({.name = "flight", .type = JointType::Free, .parent = kWorld, .child = "base"});
  const Pose mount1{Mat3(Eigen::AngleAxisd(0.3, Vec3::UnitX())), Vec3(0.24, 0.0, 0.01)};
  const Pose mount2{Mat3(Eigen::AngleAxisd(-0.2, Vec3::UnitY())), Vec3(-0.24, 0.05, 0.01)};
  b.addJoint({.name = "spin1", .type = JointType::RevoluteUnitCircle, .parent = "base", .child = "r1",
              .parent_placement = mount1, .axis = Vec3::UnitZ()});
  b.addJoint({.name = "spin2", .type = JointType::Revolute, .parent = "base", .child = "r2",
              .parent_placement = mount2, .axis = -Vec3::UnitZ()});
  b.addPropeller({.name = "p1", .joint = "spin1", .thrust_coefficient = kThrust, .drag_coefficient = kDrag,
                  .friction = 0.005, .min_speed = 100, .max_speed = 754});
  b.addPropeller({.name = "p2", .joint = "spin2", .thrust_coefficient = 1.1 * kThrust, .drag_coefficient = kDrag,
                  .max_speed = 754});
  b.addActuator({.name = "m1", .joint = "spin1", .gain = kTorqueConst});
  b.addActuator({.name = "m2", .kind = ActuatorKind::JointSpeedServo, .joint = "spin2", .time_constant = 0.05});
  const Model plant = b.build();
  const Model force = b.rotorsAsThrusters().build();
  ASSERT_EQ(force.nxi, 6);
  ASSERT_EQ(force.numInputs(), 2);
  EXPECT_EQ(force.actuators[0].name, "p1");
  EXPECT_NEAR(force.actuators[0].lower, kThrust * 100 * 100, 1e-15);
  EXPECT_NEAR(force.actuators[1].upper, 1.1 * kThrust * 754 * 754, 1e-12);

  State s = plant.initial_state;
  s.x.head<3>() << 0.3, -0.2, 1.0;
  const double w1 = 450.0, w2 = 380.0;
  s.xi(6) = w1;
  s.xi(7) = w2;
  Workspace ws(plant);
  computeKinematics(plant, s.x, s.xi, ws);
  computeInputForces(plant, s.x, s.xi, VecX::Zero(2), ws);
  const Vec6 plant_base = ws.input_forces.head<6>();

  Workspace wf(force);
  const VecX xf = s.x.head(force.nx);
  const VecX xif = VecX::Zero(force.nxi);
  computeKinematics(force, xf, xif, wf);
  computeBodyJacobians(force, wf);
  computeInputMatrix(force, wf);
  const Vec6 force_base = wf.input_matrix * Eigen::Vector2d(kThrust * w1 * w1, 1.1 * kThrust * w2 * w2);
  EXPECT_LT((plant_base - force_base).norm(), 1e-14 * force_base.norm() + 1e-15) << plant_base.transpose() << "\n"
                                                                                 << force_base.transpose();
}

TEST(Actuators, InputForcesStayAffineInTheInputs) {
  // f_E(u) = B u + f_E(0) for every actuator kind, so that controllers see M ξ̇ + b = B u.
  const Model m = spinningRotor(ActuatorKind::JointSpeedServo, 0.03).build();
  State s = m.initial_state;
  s.xi(0) = 321.0;
  Workspace ws(m);
  computeKinematics(m, s.x, s.xi, ws);
  computeBodyJacobians(m, ws);
  computeInputMatrix(m, ws);
  computeInputForces(m, s.x, s.xi, VecX::Zero(1), ws);
  const VecX f0 = ws.input_forces;
  const VecX u = VecX::Constant(1, 500.0);
  computeInputForces(m, s.x, s.xi, u, ws);
  EXPECT_NEAR(ws.input_forces(0), f0(0) + ws.input_matrix(0, 0) * u(0), 1e-15 * std::abs(ws.input_forces(0)) + 1e-15);
}

TEST(Actuators, BuilderRejectsInvalidPropellersAndServos) {
  auto expectError = [](ModelBuilder b, const std::string& fragment) {
    try {
      b.build();
      ADD_FAILURE() << "expected an error containing '" << fragment << "'";
    } catch (const ModelError& e) {
      EXPECT_NE(std::string(e.what()).find(fragment), std::string::npos) << e.what();
    }
  };
  ModelBuilder tilted = spinningRotor(ActuatorKind::JointEffort);
  tilted.addPropeller({.name = "p2", .joint = "spin", .thrust_direction = Vec3::UnitX(), .thrust_coefficient = kThrust});
  expectError(tilted, "already carries a propeller");
  ModelBuilder sideways;
  sideways.addBody(rotorBody("rotor"));
  sideways.addJoint({.name = "spin", .type = JointType::Revolute, .parent = kWorld, .child = "rotor"});
  sideways.addPropeller({.name = "p", .joint = "spin", .thrust_direction = Vec3::UnitX(), .thrust_coefficient = kThrust});
  expectError(sideways, "parallel to the spin axis");
  ModelBuilder servo_on_circle;
  servo_on_circle.addBody(rotorBody("rotor"));
  servo_on_circle.addJoint({.name = "spin", .type = JointType::RevoluteUnitCircle, .parent = kWorld, .child = "rotor"});
  servo_on_circle.addActuator({.name = "s", .kind = ActuatorKind::JointServo, .joint = "spin", .gain = 10});
  expectError(servo_on_circle, "a servo needs a revolute joint with angle coordinates");
  ModelBuilder slow_lag = spinningRotor(ActuatorKind::JointSpeedServo, 0.0);
  expectError(slow_lag, "time constant must be finite and > 0");
}

}  // namespace
}  // namespace rbs
