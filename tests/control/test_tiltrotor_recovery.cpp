// tiltrotor_inversion with recovery (docs/CONTROL.md "Recovery", "Tilting rotors"): when the
// arms cannot give the template's base wrench while the supervisor has left the manoeuvre, the
// torques about x and y come first. Checked on
// the torque-driven test tricopter by the torque its commands actually make: the commanded thrust
// of each arm along its propeller axis tilted to the commanded angle, through the model's own
// kinematics — independent of the controller's wrench map.
#include <gtest/gtest.h>

#include <string>

#include "core/control/recovery.h"
#include "core/control/registry.h"
#include "core/dynamics/kinematics.h"
#include "tests/support/example_models.h"
#include "tests/support/reference_fixtures.h"

namespace rbs {
namespace {

struct Commands {
  Vec3 torque;  ///< about the base origin, base axes [N m]
  double largest_thrust = 0.0, smallest_thrust = 0.0, largest_tilt = 0.0;
  VecX u;
};

enum class Phase { Tracking, Stabilizing };

/// Runs the controller once at `state` against the initial pose at rest and sums the base torque
/// of its thrusts at its tilt commands. With recovery "on" and Phase::Stabilizing, the supervisor
/// has first seen the vehicle 2 m off (beyond recovery_position) and left the manoeuvre.
Commands commandsAt(const Model& m, const std::string& recovery, const State& state, Phase phase = Phase::Tracking) {
  auto controller = makeController(m, {"tiltrotor_inversion", {}, {{"recovery", recovery}}});
  const test::HeldPose held(m.initial_state.x, m.nxi);
  if (phase == Phase::Stabilizing) {
    Recovery* supervisor = controller->recovery();
    EXPECT_NE(supervisor, nullptr);
    if (!supervisor) return {};
    supervisor->attach(held, [&m](const ReferenceRetiming&) { return std::make_unique<test::HeldPose>(m.initial_state.x, m.nxi); });
    State away = m.initial_state;
    away.x[0] += 2.0;
    EXPECT_TRUE(supervisor->supervise(0.0, away));
    EXPECT_EQ(supervisor->phase(), RecoveryPhase::Stabilizing);
  }
  ReferenceSample reference;
  held.sample(0.0, reference);
  Commands c;
  EXPECT_TRUE(controller->compute(0.0, state, reference, c.u)) << controller->message();
  State tilted = state;
  for (int k = 0; k < 3; ++k) {
    const std::string tilt = "tilt" + std::to_string(k);
    const auto& names = controller->signals();
    double theta = 0.0;
    for (std::size_t i = 0; i < names.size(); ++i)
      if (names[i].name == "control.tilt_command." + tilt) theta = controller->signalValues()[i];
    tilted.x[m.joints[m.jointIndex(tilt)].x_offset] = theta;
    c.largest_tilt = std::max(c.largest_tilt, std::abs(theta));
  }
  Workspace ws(m);
  computeKinematics(m, tilted.x, tilted.xi, ws);
  const Pose& base = ws.pose[m.bodyIndex("base")];
  c.torque.setZero();
  c.smallest_thrust = 1e300;
  for (int i = 0; i < m.numInputs(); ++i) {
    const Actuator& a = m.actuators[i];
    if (a.kind != ActuatorKind::BodyForce) continue;
    const Pose& G = ws.pose[a.body];
    const Vec3 force = c.u[i] * (G.R * a.direction);
    c.torque += base.R.transpose() * ((G * a.point - base.r).cross(force) + a.torque_ratio * force);
    c.largest_thrust = std::max(c.largest_thrust, c.u[i]);
    c.smallest_thrust = std::min(c.smallest_thrust, c.u[i]);
  }
  return c;
}

// Unsaturated, the option changes nothing: at the reference pose with a rate error the inputs are
// bit for bit those of the controller without recovery (the bounded spring is not stretched, and
// the priorities are solved only when (5.28) leaves an arm's limits), in either phase.
TEST(TiltrotorRecovery, WithinTheLimitsTheInputsAreThoseWithoutRecovery) {
  const Model m = test::torqueTiltedTricopter();
  State s = m.initial_state;
  s.xi.head<6>() << 0.1, -0.2, 0.05, 0.3, -0.1, 0.2;
  const Commands off = commandsAt(m, "off", s);
  for (const Phase phase : {Phase::Tracking, Phase::Stabilizing}) {
    const Commands on = commandsAt(m, "on", s, phase);
    EXPECT_LT(on.largest_thrust, 20.0);
    EXPECT_GT(on.smallest_thrust, 0.0);
    EXPECT_EQ(on.u, off.u);
  }
}

// A fall at 15 m/s asks the arms for far more lift than their 20 N each; a roll and pitch rate
// error asks for torques they can give. With recovery, once the supervisor has left the
// manoeuvre, the roll and pitch torques are those of the same rate error without the fall (where
// nothing saturates) within 5 % (the tilts' share through the thrust lines' offset), every input
// within its limits; clamping each arm on its own — recovery off, or on while still tracking the
// manoeuvre — gives up most of them.
TEST(TiltrotorRecovery, SaturatedArmsKeepTheTorquesAboutXAndYFirst) {
  const Model m = test::torqueTiltedTricopter();
  State turning = m.initial_state;
  turning.xi.segment<3>(3) << 2.0, -1.5, 0.0;
  const Commands wanted = commandsAt(m, "off", turning);
  ASSERT_LT(wanted.largest_thrust, 20.0);  // the torques alone are within reach
  ASSERT_GT(wanted.smallest_thrust, 0.0);
  ASSERT_GT(wanted.torque.head<2>().norm(), 0.5);

  State falling = turning;
  falling.xi.head<3>() << 0.0, 0.0, -15.0;
  const Commands on = commandsAt(m, "on", falling, Phase::Stabilizing), off = commandsAt(m, "off", falling);
  EXPECT_EQ(commandsAt(m, "on", falling, Phase::Tracking).u, off.u);
  EXPECT_LT((on.torque.head<2>() - wanted.torque.head<2>()).norm(), 0.05 * wanted.torque.head<2>().norm())
      << "with recovery " << on.torque.transpose() << ", wanted " << wanted.torque.transpose();
  EXPECT_GT((off.torque.head<2>() - wanted.torque.head<2>()).norm(), 0.3 * wanted.torque.head<2>().norm())
      << "without recovery " << off.torque.transpose() << " (the test should see the clamping lose them)";
  EXPECT_LE(on.largest_thrust, 20.0 + 1e-9);
  EXPECT_GE(on.smallest_thrust, -1e-9);
  EXPECT_LE(on.largest_tilt, 0.7853981633974483 + 1e-12);
}

}  // namespace
}  // namespace rbs
