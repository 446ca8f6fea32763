// The thrust-vector force model (ModelBuilder::rotorsAsThrustVectors): a servo-tilted propeller
// becomes the auxiliary input (F sin θ, F cos θ) of thesis (4.150) in its convexified (thrust,
// tilt) sector, and the actuation layer turns that input back into a servo angle and a thrust
// (core/control/actuation.h). Checked against the plant itself: the tilted, spinning propellers'
// wrench on the base equals B u of the force model at every tilt.
#include <gtest/gtest.h>

#include <cmath>
#include <functional>

#include "core/control/actuation.h"
#include "core/control/plant.h"
#include "core/control/servo_reaction.h"
#include "core/dynamics/dynamics.h"
#include "core/dynamics/kinematics.h"
#include "core/model/input_sets.h"
#include "core/math/se3.h"
#include "core/model/model_builder.h"

namespace rbs {
namespace {

constexpr double kThrust = 2.88e-5;  // κ_F [N s²]
constexpr double kDrag = 4.9e-7;     // κ_T [N m s²]
constexpr double kMinSpeed = 263.5, kMaxSpeed = 697.2;  // [rad/s]
constexpr double kTiltLimit = 0.5235987755982988;       // 30°

/// What the tests change in the vehicle below.
struct Variant {
  Vec3 rotor1_offset = Vec3(0.0, 0.0, 0.01);  ///< hub of rotor 1 on its arm (10 mm out along the thrust)
  Mat3 rotor1_rotation = Mat3::Identity();    ///< rotor 1's mount on its arm
  double servo1_lower = -kTiltLimit;
  double servo1_upper = kTiltLimit;
  double tilt1_limit = 1.3;                   ///< mechanical range ± of tilt joint 1
  double prop2_max_speed = kMaxSpeed;
  /// Body frames not aligned with their joint frames: the arm's in its tilt joint's moving frame
  /// (child placement), the rotor's in its spin joint's (turned about the spin axis, and its thrust
  /// direction given in that frame accordingly).
  Pose arm_in_tilt;
  Mat3 rotor_in_spin = Mat3::Identity();
  double rotor_coupling = 0.0;  ///< Θ_AC of tilt servo 1's geared rotor, 0.6 times it for servo 2 [kg m²]
  JointType base_type = JointType::Free;
  Pose base_child_placement;
};

/// A bicopter-like vehicle: base on a free joint, two arms on revolute tilt joints about general
/// axes, a rotor on each arm spinning along a direction perpendicular to its tilt axis with the hub
/// out along the thrust (the thrust line crosses the tilt axis), a servo per arm and a current
/// motor per rotor. Opposite spins.
ModelBuilder tiltedBicopter(const Variant& v = {}) {
  ModelBuilder b;
  b.addBody({"base", 0.76, Vec3(0.002, -0.001, -0.015), Vec3(0.011, 0.007, 0.015).asDiagonal()});
  b.addJoint({.name = "flight", .type = v.base_type, .parent = kWorld, .child = "base",
              .child_placement = v.base_child_placement});
  for (int k = 0; k < 2; ++k) {
    const std::string i = std::to_string(k + 1);
    const double side = k == 0 ? 1.0 : -1.0;
    // Arm and rotor balanced on the tilt axis: the arm's CoM 0.01 · 0.01/0.06 m below it.
    b.addBody({"arm" + i, 0.06, v.arm_in_tilt.inverse() * Vec3(0.0, 0.0, -0.01 * 0.01 / 0.06),
               Vec3(3e-5, 1.5e-5, 3e-5).asDiagonal()});
    b.addBody({"rotor" + i, 0.01, Vec3::Zero(), Vec3(3.6e-5, 3.6e-5, 7.2e-5).asDiagonal()});
    // Tilt joint frame: z the thrust at θ = 0, y the tilt axis; mounted rotated in general.
    const Mat3 mount = (Eigen::AngleAxisd(-side * 0.17, Vec3::UnitX()) * Eigen::AngleAxisd(0.05 * side, Vec3::UnitZ()) *
                        Eigen::AngleAxisd(0.03, Vec3::UnitY()))
                           .toRotationMatrix();
    const double limit = k == 0 ? v.tilt1_limit : 1.3;
    b.addJoint({.name = "tilt" + i, .type = JointType::Revolute, .parent = "base", .child = "arm" + i,
                .parent_placement = {mount, Vec3(0.01, side * 0.25, 0.08)}, .child_placement = v.arm_in_tilt,
                .axis = Vec3::UnitY(), .limits = JointLimits{-limit, limit}, .armature = 0.9,
                .rotor_coupling = (k == 0 ? 1.0 : 0.6) * v.rotor_coupling});
    // The hub in the arm's frame: where it is in the tilt joint's frame, mapped through the arm's.
    const Pose hub_in_tilt = k == 0 ? Pose{v.rotor1_rotation, v.rotor1_offset} : Pose{Mat3::Identity(), Vec3(0, 0, 0.01)};
    b.addJoint({.name = "spin" + i, .type = JointType::RevoluteUnitCircle, .parent = "arm" + i, .child = "rotor" + i,
                .parent_placement = v.arm_in_tilt.inverse() * hub_in_tilt,
                .child_placement = Pose{v.rotor_in_spin, Vec3::Zero()}, .axis = side * Vec3::UnitZ()});
    b.addActuator({.name = "servo" + i, .kind = ActuatorKind::JointServo, .joint = "tilt" + i, .gain = 1400,
                   .damping = 66, .lower = k == 0 ? v.servo1_lower : -kTiltLimit,
                   .upper = k == 0 ? v.servo1_upper : kTiltLimit});
    b.addPropeller({.name = "prop" + i, .joint = "spin" + i, .thrust_direction = v.rotor_in_spin.transpose() * Vec3::UnitZ(),
                    .thrust_coefficient = kThrust, .drag_coefficient = kDrag, .friction = 0.01, .min_speed = kMinSpeed,
                    .max_speed = k == 0 ? kMaxSpeed : v.prop2_max_speed});
    b.addActuator({.name = "motor" + i, .joint = "spin" + i, .gain = 0.021, .lower = -10, .upper = 25});
  }
  return b;
}

/// The plant's generalized force on the six base rows from the propellers alone (no motor
/// current, base at rest) and the force model's B u for the same thrusts and tilts.
struct BaseWrenches {
  Vec6 plant, force_model;
};

BaseWrenches baseWrenches(const Model& plant, const Model& force, const Vec3& position, double theta1,
                          double theta2, double w1, double w2) {
  State s = plant.initial_state;
  s.x.head<3>() = position;
  const int t1 = plant.jointIndex("tilt1"), t2 = plant.jointIndex("tilt2");
  s.x(plant.joints[t1].x_offset) = theta1;
  s.x(plant.joints[t2].x_offset) = theta2;
  s.xi.setZero();
  s.xi(plant.joints[plant.jointIndex("spin1")].xi_offset) = w1;
  s.xi(plant.joints[plant.jointIndex("spin2")].xi_offset) = w2;
  Workspace ws(plant);
  computeKinematics(plant, s.x, s.xi, ws);
  computeInputForces(plant, s.x, s.xi, VecX::Zero(plant.numInputs()), ws);
  BaseWrenches out;
  out.plant = ws.input_forces.head<6>();
  // The servos' PD torques act between base and arm: on the base rows they cancel. Only the
  // propellers remain.

  Workspace wf(force);
  const VecX xf = s.x.head(force.nx);
  computeKinematics(force, xf, VecX::Zero(force.nxi), wf);
  computeBodyJacobians(force, wf);
  computeInputMatrix(force, wf);
  VecX u = VecX::Zero(force.numInputs());
  const double f1 = kThrust * w1 * w1, f2 = kThrust * w2 * w2;
  u(force.actuatorIndex(tangentialThrustInputName("prop1"))) = f1 * std::sin(theta1);
  u(force.actuatorIndex(axialThrustInputName("prop1"))) = f1 * std::cos(theta1);
  u(force.actuatorIndex(tangentialThrustInputName("prop2"))) = f2 * std::sin(theta2);
  u(force.actuatorIndex(axialThrustInputName("prop2"))) = f2 * std::cos(theta2);
  out.force_model = (wf.input_matrix * u).head<6>();
  return out;
}

TEST(ThrustVectors, ForceModelGivesTheTiltedPropellersBaseWrenchAtEveryTilt) {
  const ModelBuilder b = tiltedBicopter();
  const Model plant = b.build();
  const Model force = b.rotorsAsThrustVectors(4).build();
  ASSERT_EQ(force.nxi, 6);  // arms welded, rotors locked: one rigid body
  ASSERT_EQ(force.numInputs(), 4);
  for (const double theta1 : {-0.5, -0.1, 0.0, 0.3, 0.52})
    for (const double theta2 : {-0.4, 0.2}) {
      const BaseWrenches w = baseWrenches(plant, force, Vec3(0.3, -0.2, 1.0), theta1, theta2, 450.0, 610.0);
      EXPECT_LT((w.plant - w.force_model).norm(), 1e-13 * w.plant.norm())
          << "θ = " << theta1 << ", " << theta2 << "\nplant " << w.plant.transpose() << "\nforce "
          << w.force_model.transpose();
    }
}

TEST(ThrustVectors, BodyFramesOffTheirJointFramesChangeNothing) {
  // The same vehicle with the arm's and the rotor's body frames turned against their joint frames
  // (child placements): the force model must compose the placements in the right order.
  const Variant turned{.arm_in_tilt = {Mat3(Eigen::AngleAxisd(0.4, Vec3(1, 2, 3).normalized())), Vec3(0.01, -0.02, 0.005)},
                       .rotor_in_spin = Mat3(Eigen::AngleAxisd(0.9, Vec3::UnitZ()) * Eigen::AngleAxisd(0.3, Vec3::UnitX()))};
  const ModelBuilder b = tiltedBicopter(turned);
  const Model plant = b.build();
  const Model force = b.rotorsAsThrustVectors(4).build();
  for (const double theta1 : {-0.45, 0.2}) {
    const BaseWrenches w = baseWrenches(plant, force, Vec3(0.1, 0.2, 1.0), theta1, 0.35, 500.0, 380.0);
    EXPECT_LT((w.plant - w.force_model).norm(), 1e-13 * w.plant.norm()) << "θ1 = " << theta1;
  }
}

TEST(ThrustVectors, AThrustLineMissingTheTiltAxisLeavesOutOnlyTheOffsetMoment) {
  // Hub 2 cm beside the axis (along the tangential direction at θ = 0): the force model applies the
  // thrust on the axis, so the plant's base wrench differs by the moment F δ about the tilt axis.
  const ModelBuilder shifted = tiltedBicopter({.rotor1_offset = Vec3(0.02, 0.0, 0.01)});
  const Model plant = shifted.build();
  const Model force = shifted.rotorsAsThrustVectors(4).build();
  const double w1 = 500.0, w2 = 500.0, theta = 0.3;
  const BaseWrenches w = baseWrenches(plant, force, Vec3::Zero(), theta, 0.0, w1, w2);
  const double f1 = kThrust * w1 * w1;
  EXPECT_LT((w.plant.head<3>() - w.force_model.head<3>()).norm(), 1e-13 * f1);  // forces agree
  EXPECT_NEAR((w.plant.tail<3>() - w.force_model.tail<3>()).norm(), f1 * 0.02, 1e-12);
}

TEST(ThrustVectors, EachVectorIsKeptInTheConvexifiedSectorOfItsThrustAndServoRange) {
  const Model force = tiltedBicopter().rotorsAsThrustVectors(6).build();
  ASSERT_EQ(force.input_sets.size(), 2u);
  MatX rows;
  VecX bounds;
  annularSectorPolygon(kThrust * kMinSpeed * kMinSpeed, kThrust * kMaxSpeed * kMaxSpeed, -kTiltLimit, kTiltLimit, 6,
                       rows, bounds);
  for (int k = 0; k < 2; ++k) {
    const InputSet& set = force.input_sets[k];
    const std::string prop = "prop" + std::to_string(k + 1);
    EXPECT_EQ(set.name, prop);
    ASSERT_EQ(set.inputs.size(), 2u);
    EXPECT_EQ(force.actuators[set.inputs[0]].name, tangentialThrustInputName(prop));
    EXPECT_EQ(force.actuators[set.inputs[1]].name, axialThrustInputName(prop));
    EXPECT_LT((set.rows - rows).norm(), 1e-15);
    EXPECT_LT((set.bounds - bounds).norm(), 1e-15);
    // The limits are the box around the sector.
    const Actuator& tangential = force.actuators[set.inputs[0]];
    const Actuator& axial = force.actuators[set.inputs[1]];
    const double f_min = kThrust * kMinSpeed * kMinSpeed, f_max = kThrust * kMaxSpeed * kMaxSpeed;
    EXPECT_NEAR(tangential.upper, f_max * std::sin(kTiltLimit), 1e-12);
    EXPECT_NEAR(tangential.lower, -f_max * std::sin(kTiltLimit), 1e-12);
    EXPECT_NEAR(axial.lower, f_min * std::cos(kTiltLimit), 1e-12);
    EXPECT_NEAR(axial.upper, f_max, 1e-12);
  }
  // The servos are gone with the tilt joints; a propeller on the base itself stays a scalar thrust.
  EXPECT_LT(force.actuatorIndex("servo1"), 0);
  ModelBuilder with_tail = tiltedBicopter();
  with_tail.addBody({"tail_rotor", 0.01, Vec3::Zero(), Vec3(1e-5, 1e-5, 2e-5).asDiagonal()});
  with_tail.addJoint({.name = "tail_spin", .type = JointType::Revolute, .parent = "base", .child = "tail_rotor",
                      .parent_placement = {Mat3::Identity(), Vec3(-0.3, 0, 0)}});
  with_tail.addPropeller({.name = "tail", .joint = "tail_spin", .thrust_coefficient = kThrust, .max_speed = 700});
  const Model mixed = with_tail.rotorsAsThrustVectors(4).build();
  EXPECT_GE(mixed.actuatorIndex("tail"), 0);
  EXPECT_EQ(mixed.input_sets.size(), 2u);
}

TEST(ThrustVectors, RefusesWhatTheAuxiliaryInputCannotRepresent) {
  auto expectError = [](const ModelBuilder& b, int chords, const std::string& fragment) {
    try {
      (void)b.rotorsAsThrustVectors(chords);
      ADD_FAILURE() << "expected an error containing '" << fragment << "'";
    } catch (const ModelError& e) {
      EXPECT_NE(std::string(e.what()).find(fragment), std::string::npos) << e.what();
    }
  };
  expectError(tiltedBicopter(), 0, "sector_chords = 0");
  // Thrust 10° off the perpendicular to the tilt axis.
  expectError(tiltedBicopter({.rotor1_rotation = Mat3(Eigen::AngleAxisd(0.17, Vec3::UnitX()))}), 4,
              "must be perpendicular");
  expectError(tiltedBicopter({.prop2_max_speed = 1e300}), 4, "finite maximum speed");
  // Servo and joint both allow more than 90°.
  expectError(tiltedBicopter({.servo1_lower = -2.0, .tilt1_limit = 2.0}), 4, "within ±90°");
  // A servo without limits takes the joint's: beyond ±90° refused, within it the sector's range.
  expectError(tiltedBicopter({.servo1_lower = -1e300, .servo1_upper = 1e300, .tilt1_limit = 2.0}), 4, "within ±90°");
  const Model joint_limited =
      tiltedBicopter({.servo1_lower = -1e300, .servo1_upper = 1e300, .tilt1_limit = 0.5}).rotorsAsThrustVectors(4).build();
  MatX rows;
  VecX bounds;
  annularSectorPolygon(kThrust * kMinSpeed * kMinSpeed, kThrust * kMaxSpeed * kMaxSpeed, -0.5, 0.5, 4, rows, bounds);
  EXPECT_LT((joint_limited.input_sets[0].bounds - bounds).norm(), 1e-15);
  ModelBuilder coaxial = tiltedBicopter();  // a second rotor on arm 1
  coaxial.addBody({"rotor1b", 0.01, Vec3::Zero(), Vec3(3.6e-5, 3.6e-5, 7.2e-5).asDiagonal()});
  coaxial.addJoint({.name = "spin1b", .type = JointType::Revolute, .parent = "arm1", .child = "rotor1b",
                    .parent_placement = {Mat3::Identity(), Vec3(0, 0, -0.01)}});
  coaxial.addPropeller({.name = "prop1b", .joint = "spin1b", .thrust_coefficient = kThrust, .max_speed = 700});
  expectError(coaxial, 4, "carries a second propeller");
}

/// An inner controller that asks for one fixed force-model input and keeps the state it was given.
class FixedInput : public Controller {
 public:
  explicit FixedInput(VecX u) : u_(std::move(u)) {}
  std::string_view name() const override { return "fixed"; }
  bool compute(double, const State& state, const ReferenceSample&, VecX& u) override {
    seen = state;
    u = u_;
    return true;
  }
  State seen;

 private:
  VecX u_;
};

double signalValue(const Controller& c, const std::string& name) {
  for (std::size_t i = 0; i < c.signals().size(); ++i)
    if (c.signals()[i].name == name) return c.signalValues()(static_cast<Eigen::Index>(i));
  ADD_FAILURE() << "no signal " << name;
  return 0.0;
}

TEST(ThrustVectors, ActuationTurnsEachVectorIntoAServoAngleAndAThrust) {
  const ModelBuilder b = tiltedBicopter();
  const Model plant = b.build();
  auto force = std::make_shared<const Model>(b.rotorsAsThrustVectors(4).build());
  VecX asked = VecX::Zero(force->numInputs());
  asked(force->actuatorIndex(tangentialThrustInputName("prop1"))) = 1.0;   // θ = atan2(1, 4), F = √17
  asked(force->actuatorIndex(axialThrustInputName("prop1"))) = 4.0;
  asked(force->actuatorIndex(tangentialThrustInputName("prop2"))) = -9.0;  // beyond −30°: the servo's limit
  asked(force->actuatorIndex(axialThrustInputName("prop2"))) = 3.0;
  ActuationController actuation(plant, force, std::make_unique<FixedInput>(asked),
                                ActuationController::Filter::Thrust, true);
  ReferenceSample reference;
  VecX u;
  ASSERT_TRUE(actuation.compute(0.0, plant.initial_state, reference, u)) << actuation.message();
  EXPECT_NEAR(u(plant.actuatorIndex("servo1")), std::atan2(1.0, 4.0), 1e-15);
  EXPECT_NEAR(u(plant.actuatorIndex("servo2")), -kTiltLimit, 1e-15);
  actuation.updateSignals();
  EXPECT_NEAR(signalValue(actuation, "actuation.thrust_command.prop1"), std::sqrt(17.0), 1e-14);
  EXPECT_NEAR(signalValue(actuation, "actuation.thrust_command.prop2"), std::hypot(9.0, 3.0), 1e-14);
  EXPECT_NEAR(signalValue(actuation, "actuation.tilt_command.prop1"), std::atan2(1.0, 4.0), 1e-15);
  // The thrust filter (5.29) moves towards |F| = √17 N: the setpoint of the second period is
  // κ_F ϖ̂_D² = c F̂(0) + (1 − c) √17, with F̂(0) = κ_F ϖ_min² (the rotors start at rest, below it).
  const double period = 0.005, c = std::exp(-period / 0.02);  // default time constant 0.02 s
  ASSERT_TRUE(actuation.compute(period, plant.initial_state, reference, u)) << actuation.message();
  ASSERT_TRUE(actuation.compute(2 * period, plant.initial_state, reference, u)) << actuation.message();
  actuation.updateSignals();
  const double f0 = kThrust * kMinSpeed * kMinSpeed;
  const double speed = signalValue(actuation, "actuation.speed_setpoint.prop1");
  EXPECT_NEAR(kThrust * speed * speed, c * f0 + (1 - c) * std::sqrt(17.0), 1e-12);
}

/// Option internal_motion on the vehicle at `state` (set up by `pose`): the external-force
/// estimate the actuation layer hands its inner controller at the first instant.
VecX internalForceEstimate(const std::function<void(const Model&, State&)>& pose) {
  const ModelBuilder b = tiltedBicopter();
  const Model plant = b.build();
  auto force = std::make_shared<const Model>(b.rotorsAsThrustVectors(4).build());
  auto inner = std::make_unique<FixedInput>(VecX::Zero(force->numInputs()));
  const FixedInput& probe = *inner;
  ActuationController actuation(plant, force, std::move(inner), ActuationController::Filter::Thrust, true,
                                ActuationController::Drive::Ideal, true, 1, true);
  State s = plant.initial_state;
  pose(plant, s);
  ReferenceSample reference;
  VecX u;
  EXPECT_TRUE(actuation.compute(0.0, s, reference, u)) << actuation.message();
  EXPECT_EQ(probe.externalForceEstimate().size(), force->nxi);
  return probe.externalForceEstimate();
}

void setJointPosition(const Model& m, State& s, const char* joint, double value) {
  s.x(m.joints[m.jointIndex(joint)].x_offset) = value;
}
void setJointRate(const Model& m, State& s, const char* joint, double value) {
  s.xi(m.joints[m.jointIndex(joint)].xi_offset) = value;
}

TEST(ThrustVectors, InternalMotionHandsTheRotorsGyroscopicTorqueToTheController) {
  // Option internal_motion: with the arms at θ = 0 (the force model's own shape) and not moving,
  // the only force the force model lacks is the spinning rotors' gyroscopic torque: on the base's
  // torque rows f̂ = −ω × Σ Θ_P,k ϖ_k a_k, and nothing on its force rows (the thrusts, which the
  // plant's b also holds, are the controller's own inputs and are taken out).
  const Vec3 omega(0.7, -1.9, 0.4);
  State s;
  const auto pose = [&](const Model& m, State& state) {
    state.xi.segment<3>(3) = omega;
    setJointRate(m, state, "spin1", 420.0);
    setJointRate(m, state, "spin2", 610.0);
    s = state;
  };
  const VecX estimate = internalForceEstimate(pose);
  // Spin axes in the base frame at θ = 0.
  const Model plant = tiltedBicopter().build();
  Workspace ws(plant);
  computeKinematics(plant, s.x, s.xi, ws);
  Vec3 momentum = Vec3::Zero();
  for (const Propeller& p : plant.propellers) {
    const Joint& j = plant.joints[p.joint];
    const Mat3 R = ws.pose[0].R.transpose() * ws.pose[j.child].R;  // rotor → base
    const double inertia = p.spin_axis.dot(plant.bodies[j.child].inertia_com * p.spin_axis);
    momentum += inertia * s.xi(j.xi_offset) * (R * p.spin_axis);
  }
  const Vec3 expected = -omega.cross(momentum);
  EXPECT_LT(estimate.head<3>().norm(), 1e-12);
  EXPECT_LT((estimate.segment<3>(3) - expected).norm(), 1e-12 * expected.norm())
      << estimate.segment<3>(3).transpose() << "\n" << expected.transpose();
}

TEST(ThrustVectors, InternalMotionIsZeroForTiltedArmsAtRest) {
  // Tilted arms whose arm and rotor balance on the tilt axis, spinning rotors, base at rest: the
  // plant differs from the welded force model only by the tilted thrusts, which the controller
  // commands itself — f̂ must vanish (a wrong sign of F sin θ would leave 2 F sin θ).
  const VecX estimate = internalForceEstimate([](const Model& m, State& s) {
    setJointPosition(m, s, "tilt1", 0.4);
    setJointPosition(m, s, "tilt2", -0.3);
    setJointRate(m, s, "spin1", 480.0);
    setJointRate(m, s, "spin2", 530.0);
  });
  EXPECT_LT(estimate.norm(), 1e-12) << estimate.transpose();
}

// ---- option servo_reaction and parameter servo_bandwidth (core/control/servo_reaction.h) ----------

/// The vehicle above with Θ_AC on both servos (unequal, so that K is not symmetric), its
/// thrust-vector force model and the servo reaction between the two.
struct ReactionSetup {
  ModelBuilder builder = tiltedBicopter({.rotor_coupling = 0.00195});
  Model plant = builder.build();
  std::shared_ptr<const Model> force = std::make_shared<const Model>(builder.rotorsAsThrustVectors(4).build());
  ServoReaction reaction{plant, *force};

  /// The ψ state of the base (force-model coordinates: the base's come first in both models).
  State designState(const State& s) const {
    State design{s.x.head(force->nx), s.xi.head(force->nxi)};
    reaction.toDesignState(s, design);
    return design;
  }
  /// g_k = Θ⁻¹ a_k c_k, read off the ψ rate for a unit rate of tilt k and a base at rest (checked
  /// against the plant's angular momentum below).
  Vec3 turnPerTilt(int k) const {
    State s = plant.initial_state;
    s.xi.setZero();
    s.xi(plant.joints[reaction.tiltJoint(k)].xi_offset) = 1.0;
    return designState(s).xi.segment<3>(3);
  }
};

TEST(ServoReaction, InertiaTimesTheRateOfThePsiAttitudeIsTheBasesAngularMomentum) {
  // (2) of servo_reaction.h: Θ ω_ψ is the angular momentum about the centre of mass of the base,
  // the arms turning on their axes and the geared rotors (Θ_AC), here from the plant's own M ξ
  // (arms at zero, where the identity is exact for this vehicle: each arm with its rotor balances
  // on its axis and has principal axes along it).
  const ReactionSetup r;
  ASSERT_EQ(r.force->nxi, 6);
  State s = r.plant.initial_state;
  s.xi.head<6>() << 0.3, -0.2, 0.5, 1.1, -0.7, 0.4;
  setJointRate(r.plant, s, "tilt1", 3.0);
  setJointRate(r.plant, s, "tilt2", -5.0);
  Workspace ws(r.plant);
  PlantTerms terms;
  evaluatePlant(r.plant, s, ws, terms);
  const VecX momentum = terms.M * s.xi;  // base rows: linear P, angular about the base origin H_o (base axes)
  double mass = 0.0;
  Vec3 moment = Vec3::Zero();
  for (int b = 0; b < r.plant.numBodies(); ++b) {
    mass += r.plant.bodies[b].mass;
    moment += r.plant.bodies[b].mass * (ws.pose[b] * r.plant.bodies[b].com);
  }
  const int base = r.plant.bodyIndex("base");
  const Vec3 com = ws.pose[base].inverse() * (moment / mass);
  const Vec3 about_com = momentum.segment<3>(3) - com.cross(Vec3(momentum.head<3>()));
  const Vec3 psi_momentum = r.reaction.baseInertia() * r.designState(s).xi.segment<3>(3);
  EXPECT_LT((about_com - psi_momentum).norm(), 1e-12 * about_com.norm()) << about_com.transpose() << " | "
                                                                         << psi_momentum.transpose();
  // The couplings are of the size the servos' Θ_AC makes them: c a = Θ g = (Θ_AC + the arm about its axis) a.
  for (int k = 0; k < 2; ++k)
    EXPECT_NEAR((r.reaction.baseInertia() * r.turnPerTilt(k)).norm(),
                (k == 0 ? 1.0 : 0.6) * 0.00195 + 1.5e-5 + 0.06 * std::pow(0.01 / 6, 2) + 3.6e-5 + 0.01 * 0.01 * 0.01, 1e-15);
}

TEST(ServoReaction, ThePsiAttitudeTurnsTheBaseByTheTurnPerTiltTimesTheTilts) {
  const ReactionSetup r;
  State s = r.plant.initial_state;
  Eigen::Map<Mat3>(s.x.data() + 3) = expSO3(Vec3(0.4, -0.9, 1.3));  // base pose (rotation-matrix coordinates)
  s.x.head<3>() << 1.0, -2.0, 3.0;
  s.xi.head<6>() << 0.3, -0.2, 0.5, 1.1, -0.7, 0.4;
  setJointPosition(r.plant, s, "tilt1", 0.35);
  setJointPosition(r.plant, s, "tilt2", -0.2);
  setJointRate(r.plant, s, "tilt1", 3.0);
  setJointRate(r.plant, s, "tilt2", -5.0);
  const Vec3 angle = 0.35 * r.turnPerTilt(0) - 0.2 * r.turnPerTilt(1);
  const State design = r.designState(s);
  const Mat3 R = Eigen::Map<const Mat3>(s.x.data() + 3), R_psi = Eigen::Map<const Mat3>(design.x.data() + 3);
  EXPECT_LT((logSO3(R.transpose() * R_psi) - angle).norm(), 1e-15);
  EXPECT_EQ(design.x.head<3>(), s.x.head<3>());  // turned about the base's origin
  const Mat3 E = expSO3(angle);
  EXPECT_LT((design.xi.head<3>() - E.transpose() * s.xi.head<3>()).norm(), 1e-15);  // the same world velocity
  EXPECT_LT((design.xi.segment<3>(3) - (E.transpose() * s.xi.segment<3>(3) + 3.0 * r.turnPerTilt(0) - 5.0 * r.turnPerTilt(1))).norm(),
            1e-15);
}

TEST(ServoReaction, DesignInertiaLacksTheCouplingsAndTheTiltMapUndoesTheBasesTurn) {
  const ReactionSetup r;
  // Θ' = Θ − Σ c_k a_k a_kᵀ on the base (about any point: a pure rotational inertia), nothing else.
  Mat3 reduction = Mat3::Zero();
  for (int k = 0; k < 2; ++k)
    reduction += r.reaction.baseInertia() * r.turnPerTilt(k) * r.plant.joints[r.reaction.tiltJoint(k)].axis_in_parent.transpose();
  EXPECT_LT((reduction - r.reaction.reduction()).norm(), 1e-15);
  EXPECT_LT((reduction - reduction.transpose()).norm(), 1e-15);
  const Model design = r.reaction.designModel(*r.force);
  Workspace wf(*r.force), wd(design);
  PlantTerms force_terms, design_terms;
  evaluatePlant(*r.force, r.force->initial_state, wf, force_terms);
  evaluatePlant(design, design.initial_state, wd, design_terms);
  MatX expected = force_terms.M;
  expected.block<3, 3>(3, 3) -= reduction;
  EXPECT_LT((design_terms.M - expected).norm(), 1e-15);
  // θ' = (I − K) θ with K_kj = a_k · g_j: the tilt each thrust has seen from the ψ attitude.
  Eigen::Matrix2d K;
  for (int k = 0; k < 2; ++k)
    for (int j = 0; j < 2; ++j) K(k, j) = r.plant.joints[r.reaction.tiltJoint(k)].axis_in_parent.dot(r.turnPerTilt(j));
  EXPECT_GT(K(0, 0), 0.2);  // a common tilt turns this base by about half of it
  const VecX effective = Eigen::Vector2d(0.25, -0.1);
  VecX tilts = effective;
  r.reaction.toTilts(tilts);
  EXPECT_LT(((Eigen::Matrix2d::Identity() - K) * tilts - effective).norm(), 1e-15);
}

TEST(ServoReaction, EachThrustSeenFromThePsiAttitudeHasTheDesignsTilt) {
  // What θ' means: arm k's thrust in the plant, seen from R_ψ, lies where the force model's thrust
  // vector at tilt θ'_k points — so toTilts must turn these θ' back into the arms' tilts. To first
  // order in the tilts (1e-3 rad here: the remainder is ~1e-6, the servos' turn of the base ~5e-4).
  const ReactionSetup r;
  State s = r.plant.initial_state;
  Eigen::Map<Mat3>(s.x.data() + 3) = expSO3(Vec3(0.4, -0.9, 1.3));
  const double tilt1 = 1e-3, tilt2 = 2e-3;
  setJointPosition(r.plant, s, "tilt1", tilt1);
  setJointPosition(r.plant, s, "tilt2", tilt2);
  const State design = r.designState(s);
  const Mat3 R_psi = Eigen::Map<const Mat3>(design.x.data() + 3);
  Workspace ws(r.plant), wf(*r.force);
  computeKinematics(r.plant, s.x, s.xi, ws);
  computeKinematics(*r.force, r.force->initial_state.x, r.force->initial_state.xi, wf);  // base at rest, identity
  VecX seen(2);
  for (int k = 0; k < 2; ++k) {
    const Propeller& prop = r.plant.propellers[k];
    const Vec3 thrust = R_psi.transpose() * ws.pose[r.plant.joints[prop.joint].child].R * prop.thrust_direction;
    const Actuator& axial = r.force->actuators[r.force->actuatorIndex(axialThrustInputName(prop.name))];
    const Actuator& tangential = r.force->actuators[r.force->actuatorIndex(tangentialThrustInputName(prop.name))];
    seen(k) = std::atan2(thrust.dot(wf.pose[tangential.body].R * tangential.direction),
                         thrust.dot(wf.pose[axial.body].R * axial.direction));
  }
  EXPECT_GT(std::abs(seen(0) - tilt1), 1e-4);  // the base's turn is in it
  VecX tilts = seen;
  r.reaction.toTilts(tilts);
  EXPECT_NEAR(tilts(0), tilt1, 2e-5);
  EXPECT_NEAR(tilts(1), tilt2, 2e-5);
}

TEST(ServoReaction, AnExternalForceEstimateTurnsWithTheBase) {
  const ReactionSetup r;
  State s = r.plant.initial_state;
  setJointPosition(r.plant, s, "tilt1", 0.3);
  setJointPosition(r.plant, s, "tilt2", -0.1);
  State design{s.x.head(r.force->nx), s.xi.head(r.force->nxi)};
  VecX force(6);
  force << 1.0, -2.0, 3.0, 0.4, 0.5, -0.6;
  const VecX before = force;
  r.reaction.toDesignState(s, design, &force);
  const Mat3 E = expSO3(0.3 * r.turnPerTilt(0) - 0.1 * r.turnPerTilt(1));
  EXPECT_LT((force.head<3>() - E.transpose() * before.head<3>()).norm(), 1e-15);
  EXPECT_LT((force.tail<3>() - E.transpose() * before.tail<3>()).norm(), 1e-15);
}

TEST(ServoReaction, QuaternionCoordinatesKeepTheirSign) {
  // q and −q are the same attitude: the ψ attitude must not jump between them from one sample to
  // the next (a reference-free controller would see a 2π error).
  const ModelBuilder b = tiltedBicopter({.rotor_coupling = 0.00195, .base_type = JointType::FreeQuaternion});
  const Model plant = b.build();
  const Model force = b.rotorsAsThrustVectors(4).build();
  const ServoReaction reaction(plant, force);
  State s = plant.initial_state;
  const double angle = 3.1;  // near π: a small turn may cross it
  s.x.segment<4>(3) << -std::cos(angle / 2), -std::sin(angle / 2), 0.0, 0.0;  // w < 0
  setJointPosition(plant, s, "tilt1", 0.3);
  setJointPosition(plant, s, "tilt2", 0.3);
  State design{s.x.head(force.nx), s.xi.head(force.nxi)};
  reaction.toDesignState(s, design);
  EXPECT_GT(design.x.segment<4>(3).dot(s.x.segment<4>(3)), 0.9);
  EXPECT_GT((design.x.segment<4>(3) - s.x.segment<4>(3)).norm(), 1e-3);  // it did turn
}

TEST(ServoReaction, TiltAxisInertiaIsTheArmatureAndTheArmAboutItsAxis) {
  // Arm (3·10⁻⁵, 1.5·10⁻⁵, 3·10⁻⁵) with its CoM 1/600 m off the axis, rotor 3.6·10⁻⁵ across its
  // spin axis 0.01 m out, armature 0.9.
  const Model plant = tiltedBicopter().build();
  EXPECT_NEAR(tiltAxisInertia(plant, plant.jointIndex("tilt1")),
              0.9 + 1.5e-5 + 0.06 * std::pow(0.01 / 6, 2) + 3.6e-5 + 0.01 * 0.01 * 0.01, 1e-15);
}

TEST(ServoReaction, RefusesWhatItCannotDesignFor) {
  const auto expectError = [](const std::function<void()>& make, const std::string& part) {
    try {
      make();
      ADD_FAILURE() << "expected a ControlError containing '" << part << "'";
    } catch (const ControlError& e) {
      EXPECT_NE(std::string(e.what()).find(part), std::string::npos) << e.what();
    }
  };
  // A base joint with a child placement: its ξ is not the base body's twist.
  const ModelBuilder placed = tiltedBicopter({.rotor_coupling = 0.00195, .base_child_placement = Pose::translation(Vec3(0, 0, 0.1))});
  expectError([&] { ServoReaction(placed.build(), placed.rotorsAsThrustVectors(4).build()); }, "child placement");
  // Servo rotors heavier than the vehicle about the tilt axes: Θ' would not be positive definite.
  const ModelBuilder heavy = tiltedBicopter({.rotor_coupling = 0.01});
  expectError([&] { ServoReaction(heavy.build(), heavy.rotorsAsThrustVectors(4).build()); }, "not positive definite");
  // Scalar thrusts: nothing to design for.
  const ModelBuilder b = tiltedBicopter();
  expectError([&] { ServoReaction(b.build(), b.rotorsAsThrusters().build()); }, "no propeller is a thrust vector");
  const Model plant = b.build();
  auto scalar = std::make_shared<const Model>(b.rotorsAsThrusters().build());
  ActuationSettings settings;
  settings.filter = "thrust_filter";
  settings.options["servo_reaction"] = "true";
  expectError([&] { makeActuationController(plant, scalar, std::make_unique<FixedInput>(VecX::Zero(2)), settings); },
              "applies to thrust: vector");
  settings.options["servo_reaction"] = "yes";
  expectError([&] { makeActuationController(plant, scalar, std::make_unique<FixedInput>(VecX::Zero(2)), settings); },
              "not one of: true, false");
}

TEST(ServoReaction, ActuationHandsThePsiStateInAndSendsTheMappedTilts) {
  const ReactionSetup r;
  const Model design = r.reaction.designModel(*r.force);
  VecX asked = VecX::Zero(r.force->numInputs());
  asked(r.force->actuatorIndex(tangentialThrustInputName("prop1"))) = 1.0;
  asked(r.force->actuatorIndex(axialThrustInputName("prop1"))) = 4.0;
  asked(r.force->actuatorIndex(tangentialThrustInputName("prop2"))) = -0.5;
  asked(r.force->actuatorIndex(axialThrustInputName("prop2"))) = 6.0;
  auto inner = std::make_unique<FixedInput>(asked);
  const FixedInput& probe = *inner;
  ActuationSettings settings;
  settings.filter = "thrust_filter";
  settings.options["servo_reaction"] = "true";
  auto actuation = makeActuationController(r.plant, std::make_shared<const Model>(design), std::move(inner), settings);
  State s = r.plant.initial_state;
  s.xi.head<6>() << 0.3, -0.2, 0.5, 1.1, -0.7, 0.4;
  setJointPosition(r.plant, s, "tilt1", 0.1);
  setJointPosition(r.plant, s, "tilt2", 0.05);
  setJointRate(r.plant, s, "tilt1", 3.0);
  setJointRate(r.plant, s, "tilt2", -5.0);
  ReferenceSample reference;
  VecX u;
  ASSERT_TRUE(actuation->compute(0.0, s, reference, u)) << actuation->message();
  const State expected = r.designState(s);
  EXPECT_LT((probe.seen.x - expected.x).norm(), 1e-15);
  EXPECT_LT((probe.seen.xi - expected.xi).norm(), 1e-15);
  VecX tilts = Eigen::Vector2d(std::atan2(1.0, 4.0), std::atan2(-0.5, 6.0));
  r.reaction.toTilts(tilts);
  EXPECT_NEAR(u(r.plant.actuatorIndex("servo1")), tilts(0), 1e-15);
  EXPECT_NEAR(u(r.plant.actuatorIndex("servo2")), tilts(1), 1e-15);
  EXPECT_NE(tilts(0), std::atan2(1.0, 4.0));
}

/// The reference the layer sends servo1 when the inner controller asks for `asked`, with
/// servo_bandwidth ω and servo_damping ζ, at state s; with `tilt_command` also that signal.
double servo1Reference(const Model& plant, const std::shared_ptr<const Model>& force, const VecX& asked, const State& s,
                       double omega, double zeta, double* tilt_command = nullptr) {
  ActuationController actuation(plant, force, std::make_unique<FixedInput>(asked), ActuationController::Filter::Thrust,
                                true);
  actuation.parameters().set("servo_bandwidth", omega);
  actuation.parameters().set("servo_damping", zeta);
  ReferenceSample sample;
  VecX u;
  EXPECT_TRUE(actuation.compute(0.0, s, sample, u)) << actuation.message();
  if (tilt_command != nullptr) {
    actuation.updateSignals();
    *tilt_command = signalValue(actuation, "actuation.tilt_command.prop1");
  }
  return u(plant.actuatorIndex("servo1"));
}

TEST(ServoReaction, ServoBandwidthPlacesTheServoLoopThroughItsReference) {
  // (5.2): J θ̈ = k_PS (θ_R − θ) − k_DS θ̇. The reference θ_R = θ + (J (ω² (θ_D − θ) − 2ζω θ̇) +
  // k_DS θ̇)/k_PS makes it J θ̈ = J (ω² (θ_D − θ) − 2ζω θ̇); for the servo's own ω = √(k_PS/J),
  // ζ = k_DS/(2√(k_PS J)) that is θ_R = θ_D.
  const ModelBuilder b = tiltedBicopter();
  const Model plant = b.build();
  auto force = std::make_shared<const Model>(b.rotorsAsThrustVectors(4).build());
  VecX asked = VecX::Zero(force->numInputs());
  asked(force->actuatorIndex(tangentialThrustInputName("prop1"))) = 1.0;
  asked(force->actuatorIndex(axialThrustInputName("prop1"))) = 4.0;
  asked(force->actuatorIndex(axialThrustInputName("prop2"))) = 4.0;
  const double J = tiltAxisInertia(plant, plant.jointIndex("tilt1"));
  State s = plant.initial_state;
  setJointPosition(plant, s, "tilt1", 0.1);
  setJointRate(plant, s, "tilt1", 2.0);
  const double theta_D = std::atan2(1.0, 4.0);
  double command = 0.0;
  EXPECT_EQ(servo1Reference(plant, force, asked, s, 0.0, 1.0, &command), theta_D);  // off: the servo's own loop
  EXPECT_NEAR(command, theta_D, 1e-15);
  EXPECT_NEAR(servo1Reference(plant, force, asked, s, std::sqrt(1400.0 / J), 66.0 / (2.0 * std::sqrt(1400.0 * J))), theta_D,
              1e-14);
  EXPECT_NEAR(servo1Reference(plant, force, asked, s, 60.0, 0.8, &command),
              0.1 + (J * (3600.0 * (theta_D - 0.1) - 2.0 * 0.8 * 60.0 * 2.0) + 66.0 * 2.0) / 1400.0, 1e-14);
  EXPECT_NEAR(command, theta_D, 1e-15);  // the signal is θ_D, not θ_R
  EXPECT_EQ(servo1Reference(plant, force, asked, s, 150.0, 1.0), kTiltLimit);  // far beyond: the servo's range
}

TEST(ServoReaction, ServoBandwidthAlsoPlacesServoReferencesAControllerPassesThrough) {
  // Scalar thrusts (the tricopter's tiltrotor_inversion): the controller commands the servos
  // itself, the layer passes the references on — through the same law.
  const ModelBuilder b = tiltedBicopter();
  const Model plant = b.build();
  auto force = std::make_shared<const Model>(b.rotorsAsThrusters().build());
  VecX asked = VecX::Zero(force->numInputs());
  asked(force->actuatorIndex("servo1")) = 0.2;
  const double J = tiltAxisInertia(plant, plant.jointIndex("tilt1"));
  State s = plant.initial_state;
  setJointPosition(plant, s, "tilt1", 0.1);
  setJointRate(plant, s, "tilt1", 2.0);
  EXPECT_EQ(servo1Reference(plant, force, asked, s, 0.0, 1.0), 0.2);
  EXPECT_NEAR(servo1Reference(plant, force, asked, s, std::sqrt(1400.0 / J), 66.0 / (2.0 * std::sqrt(1400.0 * J))), 0.2,
              1e-14);
  EXPECT_NEAR(servo1Reference(plant, force, asked, s, 60.0, 0.8),
              0.1 + (J * (3600.0 * (0.2 - 0.1) - 2.0 * 0.8 * 60.0 * 2.0) + 66.0 * 2.0) / 1400.0, 1e-14);
}

TEST(ThrustVectors, ActuationRefusesTheFlatFilterForVectors) {
  const ModelBuilder b = tiltedBicopter();
  const Model plant = b.build();
  auto force = std::make_shared<const Model>(b.rotorsAsThrustVectors(4).build());
  try {
    ActuationController actuation(plant, force, std::make_unique<FixedInput>(VecX::Zero(4)),
                                  ActuationController::Filter::Flat, true);
    ADD_FAILURE() << "expected a ControlError";
  } catch (const ControlError& e) {
    EXPECT_NE(std::string(e.what()).find("thrust_filter"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace rbs
