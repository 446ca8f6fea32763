// Small models for the simulation tests (tests/sim).
#pragma once

#include <cmath>

#include "core/model/model_builder.h"
#include "sim/simulator.h"
#include "tests/support/example_models.h"

namespace rbs::simtest {

/// Simulation options with `kind`, step dt, output step dt_out and (adaptive steppers) rtol = atol
/// = tol.
inline SimulationOptions options(StepperKind kind, double dt = 1e-3, double dt_out = 0.01, double tol = 1e-8) {
  SimulationOptions o;
  o.integration.stepper = kind;
  o.integration.dt = dt;
  o.integration.rtol = o.integration.atol = tol;
  o.dt_out = dt_out;
  return o;
}

/// The LSR quadcopter of the library scenes (1.001 kg, four thrusts of 0–8.19 N at 0.24 m with drag
/// torques, Table 5.1) starting at rest 1 m up, with an optional constant external wrench on it.
inline Model lsrQuadcopter(JointType type = JointType::Free, const Vec3& force = Vec3::Zero(),
                           const Vec3& torque = Vec3::Zero()) {
  ModelBuilder b;
  b.addBody({"base", 1.001, Vec3::Zero(), Vec3(0.0179, 0.018, 0.0307).asDiagonal()});
  JointSpec j{.name = "flight", .type = type, .child = "base"};
  j.initial_motion = Pose::translation(Vec3(0, 0, 1));
  b.addJoint(j);
  const double arm = 0.24, ratio = 0.017014;
  const Vec3 points[4] = {{arm, 0, 0}, {0, arm, 0}, {-arm, 0, 0}, {0, -arm, 0}};
  for (int i = 0; i < 4; ++i)
    b.addActuator({.name = "thrust" + std::to_string(i + 1),
                   .kind = ActuatorKind::BodyForce,
                   .body = "base",
                   .point = points[i],
                   .direction = Vec3::UnitZ(),
                   .lower = 0.0,
                   .upper = 8.19,
                   .torque_ratio = i % 2 == 0 ? -ratio : ratio});
  if (force.norm() > 0.0 || torque.norm() > 0.0)
    b.addExternalWrench({.body = "base", .force = force, .torque = torque});
  return b.build();
}

/// A free body tumbling without gravity (CoM off the frame origin, no symmetry), with r, R
/// coordinates (Free) or r, q (FreeQuaternion).
inline Model tumblingBody(JointType type = JointType::Free) {
  ModelBuilder b;
  b.setGravity(Vec3::Zero());
  b.addBody({"body", 2.0, Vec3(0.05, -0.02, 0.01), Vec3(0.3, 0.5, 0.7).asDiagonal()});
  JointSpec j{.name = "free", .type = type, .child = "body"};
  j.initial_velocity = (VecX(6) << 0.2, -0.1, 0.3, 1.0, 2.0, -1.5).finished();
  b.addJoint(j);
  return b.build();
}

/// The tricopter with suspended load of the thesis (tests/support/example_models.h), passive
/// (no inputs), with a generic initial motion: body twist, load swinging, arms tilting, rotors
/// spinning. Gravity acts; the total energy is conserved.
inline Model movingTricopter() {
  Model m = test::tricopterWithLoad(false);
  VecX& xi = m.initial_state.xi;  // [v, ω, ω_load, θ̇_1..3, ϖ_1..3]
  xi << 0.3, -0.2, 0.5, 0.8, -0.6, 1.1, 1.5, -0.7, 0.4, 0.5, -0.4, 0.3, 20.0, -25.0, 30.0;
  return m;
}

/// A revolute pendulum (1 kg at 0.5 m, axis y) with a joint-torque actuator "torque".
inline Model actuatedPendulum(double lower = -1e300, double upper = 1e300) {
  ModelBuilder b;
  b.addBody({"link", 1.0, Vec3(0.0, 0.0, -0.5), Vec3(0.02, 0.02, 0.001).asDiagonal()});
  JointSpec j{.name = "hinge", .type = JointType::Revolute, .child = "link"};
  j.axis = Vec3::UnitY();
  j.initial_position = 0.8;
  b.addJoint(j);
  b.addActuator({.name = "torque", .kind = ActuatorKind::JointEffort, .joint = "hinge", .lower = lower, .upper = upper});
  return b.build();
}

/// The thesis' motivation example with ZYX Euler angles (scenes/motivation_gimbal_lock.yaml):
/// a 0.3 × 0.1 × 0.2 m, 2 kg box spinning at 1.2 rad/s about its pitch axis, tilted by 1e-6 rad, so
/// pitch passes 90° (gimbal lock, singular M) at t ≈ 1.31 s, within `tilt` of the exact lock.
inline Model gimbalLockBody(double tilt = 1e-6) {
  ModelBuilder b;
  b.setGravity(Vec3::Zero());
  const double m = 2.0, x = 0.3, y = 0.1, z = 0.2;
  b.addBody({"box", m, Vec3::Zero(),
             Vec3(m * (y * y + z * z) / 12, m * (x * x + z * z) / 12, m * (x * x + y * y) / 12).asDiagonal()});
  JointSpec j{.name = "euler", .type = JointType::SphericalEulerZYX, .child = "box"};
  j.initial_motion = Pose::rotation(rotationZYX(tilt, 0.0, 0.0));
  j.initial_velocity = (VecX(3) << 0.0, 1.2 * std::cos(tilt), 1.2 * std::sin(tilt)).finished();
  b.addJoint(j);
  return b.build();
}

}  // namespace rbs::simtest
