// The Table 5.1 vehicles with their actuators (thesis 5.2.1, 5.3): propeller speeds as states,
// motor currents and servo references as inputs, the force-control layer between the rigid-body
// controller and them. Hover and free-fall sanity, and the manoeuvres of Table 5.2 next to the
// flight results.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <numbers>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "core/control/plant.h"
#include "core/control/registry.h"
#include "core/control/tracking.h"
#include "core/dynamics/dynamics.h"
#include "core/math/se3.h"
#include "core/scene/scene.h"
#include "sim/scene_loop.h"
#include "sim/settings.h"
#include "sim/simulator.h"
#include "tests/support/example_models.h"
#include "tests/support/scene_run.h"

namespace rbs {
namespace {

using test::runLibraryScene;
using test::SceneRun;

constexpr double kDeg = 180.0 / std::numbers::pi;

TEST(SceneActuation, HoverSpeedsAndCurrentsFollowFromTable51) {
  // ϖ̄ = √(m g / (ρ κ_F)): 412.9 rad/s (quadcopter), 533.0 rad/s (tricopter); the current that
  // holds it, i = (κ_T ϖ̄² + τ_MB)/k_M ≈ 4.45 A (§A.6). In closed-loop hover the controller finds
  // the same numbers (the rotors share the load unevenly because of the CoM offset).
  const SceneRun q = runLibraryScene("quadcopter_table51.yaml", {"reference.parameters.start_time=100", "integrator.t_end=3"});
  ASSERT_TRUE(q.ok) << q.message;
  double speed = 0.0, current = 0.0;
  for (int k = 1; k <= 4; ++k) {
    speed += q.at(3.0, "actuation.speed_setpoint.rotor" + std::to_string(k)) / 4;
    current += q.at(3.0, "u.rotor" + std::to_string(k) + "_motor") / 4;
  }
  const double hover = std::sqrt(1.001 * 9.81 / (4 * 1.44e-5));
  EXPECT_NEAR(hover, 412.9, 0.05);
  EXPECT_NEAR(speed, hover, 0.01 * hover);  // measured 0.4 % below: the rotors' own mass is 4 % of m
  EXPECT_NEAR(current, (2.45e-7 * hover * hover + 0.005) / 0.0105, 0.03 * 4.45);
  EXPECT_LT(q.at(3.0, "error.position"), 1e-5);
  EXPECT_NEAR(std::sqrt(1.251 * 9.81 / (3 * 1.44e-5)), 533.0, 0.1);
}

TEST(SceneActuation, FreeFallWithStoppedRotorsMatchesTheDraggedClosedForm) {
  // No controller, rotors at rest, zero current: only gravity and the linear drag d = 0.32 kg/s
  // act: v(t) = −(m g/d)(1 − e^{−d t/m}), z(t) = z₀ − (m g/d) t + (m² g/d²)(1 − e^{−d t/m}).
  std::vector<std::string> at_rest;
  for (int k = 1; k <= 4; ++k) at_rest.push_back("joint.spin" + std::to_string(k) + ".velocity=0");
  at_rest.push_back("integrator.t_end=1.0");
  const SceneRun r = runLibraryScene("quadcopter_table51.yaml", at_rest, "none");
  ASSERT_TRUE(r.ok) << r.message;
  const double m = 1.001, g = 9.81, d = 0.32, t = 1.0;
  const double z = 1.0 - (m * g / d) * t + (m * m * g / (d * d)) * (1 - std::exp(-d * t / m));
  // The drag acts 12 mm above the body frame and the CoM is 2 mm off the axis: the vehicle turns
  // a little (≈ 0.1 rad in 1 s), which moves the body frame by less than a millimetre.
  EXPECT_NEAR(r.at(t, "body.central.pz"), z, 1e-3);
  EXPECT_LT(r.max("u.rotor1_motor"), 1e-15);
}

struct Manoeuvre {
  const char* name;
  const char* scene;
  std::vector<std::string> overrides;
  double t0, t1;                   ///< the manoeuvre's window for the rms
  double flight_position_cm;       ///< Table 5.2
  double flight_attitude_deg;
  double bound_position_cm;        ///< just above what this build measures
  double bound_attitude_deg;
};

const char* kFlip =
    "reference={generator: circle, parameters: {center: [0, 0, 1.5], radius: 0.5, period: 1.0, normal: [0, 1, 0], "
    "loops: 1, ramp: 0.8, start_time: 1.0, flat_point: [-0.0018, 0.0006, 0.0], drag: 0.3197}, "
    "options: {attitude: flat, heading: integrated}}";
const char* kTransitions =
    "reference={generator: waypoints, parameters: {times: [1.0, 4.0, 7.0, 10.0, 13.0], x: [0.0, 1.0, 1.0, 0.0, 0.0], "
    "y: [0.0, 0.0, 1.0, 1.0, 0.0], z: [1.0, 1.0, 1.0, 1.0, 1.0], yaw: [0.0, 0.0, 0.0, 1.5707963267948966, 0.0], "
    "transition: [2.0], flat_point: [-0.0018, 0.0006, 0.0], drag: 0.3197}, options: {attitude: flat}}";

/// Runs a manoeuvre, prints its rms errors beside the flight's under `label` and checks them against
/// the case's bounds. Returns {position [cm], attitude [deg]}; NaN when the run failed.
std::pair<double, double> runManoeuvre(const Manoeuvre& c, const char* label) {
  SCOPED_TRACE(c.name);
  const SceneRun r = runLibraryScene(c.scene, c.overrides);
  if (!r.ok) {
    ADD_FAILURE() << r.message;
    return {std::nan(""), std::nan("")};
  }
  const double position = 100 * r.rms("error.position", c.t0, c.t1);
  const double attitude = kDeg * r.rms("error.attitude", c.t0, c.t1);
  std::printf("[ %s ] %-26s rms %.3f cm / %.3f deg (flight %.1f cm / %.1f deg)\n", label, c.name, position, attitude,
              c.flight_position_cm, c.flight_attitude_deg);
  EXPECT_LT(position, c.bound_position_cm);
  EXPECT_LT(attitude, c.bound_attitude_deg);
  return {position, attitude};
}

TEST(SceneActuation, Table52ManoeuvresWithActuatorsStayBelowTheFlightErrors) {
  const std::vector<Manoeuvre> cases = {
      {"quadcopter looping", "quadcopter_table51.yaml", {}, 1.0, 8.5, 2.7, 2.5, 1.45, 1.6},
      {"quadcopter flip", "quadcopter_table51.yaml", {kFlip, "integrator.t_end=4.5"}, 1.0, 3.6, 2.6, 2.1, 1.45, 1.7},
      {"quadcopter transitions", "quadcopter_table51.yaml", {kTransitions, "integrator.t_end=16"}, 1.0, 15.0, 1.7, 1.3,
       0.035, 0.04},
      {"tricopter transitions", "tricopter_table51.yaml", {}, 1.0, 15.0, 1.3, 1.1, 0.45, 0.7},
  };
  for (const Manoeuvre& c : cases) {
    SCOPED_TRACE(c.name);
    const auto [position, attitude] = runManoeuvre(c, "table 5.2");
    // Perfect model, 200 Hz, actuators: below the flights — half or less in position; in attitude
    // the flip, which drives the motor currents to their limits, reaches 0.72 of the flight.
    EXPECT_LT(position, 0.5 * c.flight_position_cm);
    EXPECT_LT(attitude, 0.75 * c.flight_attitude_deg);
  }
}

TEST(SceneActuation, Table52ManoeuvresWithTheObserverDrive) {
  // The same manoeuvres with the drives as the flight code runs them (5.20)–(5.25): noisy mean-speed
  // measurement (σ_ψ = 0.02 rad), observer, tracking law with the one-step computation delay.
  // Measured: looping 7.23 cm / 8.07°, flip 1.52 cm / 2.02°, transitions 0.032 cm / 0.048°,
  // tricopter 0.390 cm / 0.563°. The looping is the one that suffers: without the delay (same
  // observer and noise) it is back at 1.31 cm / 1.43°, so the 5 ms delay, not the observer, costs it.
  // (With the scene's recovery off, 6.83 cm / 7.86°: the bounded potentials, a pull of at most
  // ½ m g, answer the delayed loop's larger errors more softly; docs/RESULTS.md.)
  const std::string drive = "controller.actuation.options.drive=observer";
  const std::string noise = "controller.actuation.parameters.angle_noise=0.02";
  const std::vector<Manoeuvre> cases = {
      {"quadcopter looping", "quadcopter_table51.yaml", {drive, noise}, 1.0, 8.5, 2.7, 2.5, 7.4, 8.3},
      {"quadcopter flip", "quadcopter_table51.yaml", {kFlip, "integrator.t_end=4.5", drive, noise}, 1.0, 3.6, 2.6, 2.1,
       1.65, 2.2},
      {"quadcopter transitions", "quadcopter_table51.yaml", {kTransitions, "integrator.t_end=16", drive, noise}, 1.0,
       15.0, 1.7, 1.3, 0.036, 0.053},
      {"tricopter transitions", "tricopter_table51.yaml", {drive, noise}, 1.0, 15.0, 1.3, 1.1, 0.45, 0.7},
      {"looping without the delay", "quadcopter_table51.yaml",
       {drive, noise, "controller.actuation.options.computation_delay=false"}, 1.0, 8.5, 2.7, 2.5, 1.45, 1.6},
  };
  for (const Manoeuvre& c : cases) runManoeuvre(c, "table 5.2, observer drive");
}

TEST(SceneActuation, PropellerDriveEstimatesSpeedAndFrictionFromTheNoisyMeanSpeed) {
  // scenes/prop_drive.yaml (Fig. 5.14): one drive following 277 … 577 rad/s while it lifts a sled.
  const SceneRun r = runLibraryScene("prop_drive.yaml");
  ASSERT_TRUE(r.ok) << r.message;
  const auto& t = r.rec.time;
  const int w = r.column("joint.spin.rate"), w_m = r.column("actuation.speed_measured.rotor"),
            w_hat = r.column("actuation.speed_estimate.rotor"), w_d = r.column("actuation.speed_setpoint.rotor"),
            p3 = r.column("actuation.friction_estimate.rotor");
  double measured_ss = 0, estimate_ss = 0, tracking_ss = 0, friction_sum = 0;
  int n = 0;
  for (std::size_t k = 0; k + 1 < t.size(); ++k) {
    if (t[k] < 1.0) continue;
    const auto v = r.rec.values[k];
    // ϖ_M is the mean over the last period: compare with the mean of the true rate (5.22).
    const double mean = 0.5 * (v[w] + r.rec.values[k - 1][w]);
    measured_ss += (v[w_m] - mean) * (v[w_m] - mean);
    estimate_ss += (v[w_hat] - v[w]) * (v[w_hat] - v[w]);
    // With the computation delay the setpoint of instant k is the speed due at k + 1 (samples are T_S apart).
    tracking_ss += (r.rec.values[k + 1][w] - v[w_d]) * (r.rec.values[k + 1][w] - v[w_d]);
    friction_sum += v[p3];
    ++n;
  }
  const double measured = std::sqrt(measured_ss / n), estimate = std::sqrt(estimate_ss / n),
               tracking = std::sqrt(tracking_ss / n), friction = friction_sum / n;
  std::printf("[ prop_drive ] rms: measurement %.2f, estimate %.3f, tracking %.3f rad/s; mean p_P3 %.2f rad/s²\n",
              measured, estimate, tracking, friction);
  EXPECT_NEAR(measured, std::sqrt(2.0) * 0.02 / 0.005, 0.3);  // the scene's σ_ψ = 0.02 rad
  EXPECT_LT(estimate, measured / 6);                           // measured 0.62 rad/s
  EXPECT_LT(tracking, 0.6);                                    // measured 0.43 rad/s
  EXPECT_NEAR(friction, 0.005 / 3.6e-5, 2.0);                  // τ_MB/Θ_P = 138.9 rad/s²; measured 139.07
  EXPECT_LT(r.at(0.0, "actuation.friction_estimate.rotor"), 1e-12);  // it starts unknown
  EXPECT_LT(r.max("u.rotor_motor"), 25.0);                     // never at the current limit
  EXPECT_LT(r.max("error.joints"), 0.006);                     // the sled follows its 0.3 m bobbing
  // The noise is reproducible for a seed and changes with it.
  const SceneRun again = runLibraryScene("prop_drive.yaml", {"integrator.t_end=0.5"});
  const SceneRun other = runLibraryScene("prop_drive.yaml", {"integrator.t_end=0.5", "controller.actuation.options.seed=2"});
  ASSERT_TRUE(again.ok && other.ok);
  EXPECT_EQ(again.at(0.5, "actuation.speed_measured.rotor"), r.at(0.5, "actuation.speed_measured.rotor"));
  EXPECT_NE(other.at(0.5, "actuation.speed_measured.rotor"), r.at(0.5, "actuation.speed_measured.rotor"));
}

TEST(SceneActuation, ObserverDriveMisuseIsReportedClearly) {
  auto failure = [](const std::vector<std::string>& overrides) -> std::string {
    try {
      const SceneRun r = runLibraryScene("prop_drive.yaml", overrides);
      return r.ok ? "no error" : r.message;
    } catch (const std::exception& e) {
      return e.what();
    }
  };
  EXPECT_NE(failure({"controller.actuation.options.drive=observe"}).find("is not one of: ideal, observer"),
            std::string::npos);
  EXPECT_NE(failure({"controller.actuation.options.seed=-3"}).find("not a non-negative integer"), std::string::npos);
  EXPECT_NE(failure({"controller.actuation.options.drive=ideal"}).find("applies to drive: observer only"),
            std::string::npos);
  EXPECT_NE(failure({"controller.actuation.options.delay=false"}).find("unknown option 'delay'"), std::string::npos);
  const std::string lag = failure({"propeller.rotor.motor={type: lag, time_constant: 0.02}"});
  EXPECT_NE(lag.find("needs current motors"), std::string::npos) << lag;
  // 170 rad/s is fine at 200 Hz; at 100 Hz the observer's third root leaves the unit circle.
  const std::string fast =
      failure({"integrator.control_rate=100", "integrator.dt_out=0.01", "controller.actuation.parameters.observer_pole=170"});
  EXPECT_NE(fast.find("observer_pole 170 rad/s is too fast for T_S = 0.01 s"), std::string::npos) << fast;
}

TEST(SceneActuation, InternalMotionTakesTheRotorsGyroscopyOffTheTricopterTransitions) {
  // Option internal_motion hands the force model's missing velocity terms (the spinning rotors'
  // gyroscopic torques as the body turns, the arms' motion) to tiltrotor_inversion as an external
  // force. Measured on the transitions: rms attitude 0.559° → 0.356°, largest 1.47° → 0.86°;
  // position rms unchanged (0.389 / 0.390 cm).
  const SceneRun plain = runLibraryScene("tricopter_table51.yaml");
  const SceneRun compensated =
      runLibraryScene("tricopter_table51.yaml", {"controller.actuation.options.internal_motion=true"});
  ASSERT_TRUE(plain.ok && compensated.ok) << plain.message << compensated.message;
  const double before = kDeg * plain.rms("error.attitude", 1.0, 15.0);
  const double after = kDeg * compensated.rms("error.attitude", 1.0, 15.0);
  std::printf("[ internal_motion ] tricopter attitude rms %.3f° → %.3f°, peak %.2f° → %.2f°\n", before, after,
              kDeg * plain.max("error.attitude"), kDeg * compensated.max("error.attitude"));
  EXPECT_LT(after, 0.7 * before);
  EXPECT_LT(compensated.max("error.attitude"), 0.7 * plain.max("error.attitude"));
  EXPECT_LT(compensated.rms("error.position", 1.0, 15.0), 1.05 * plain.rms("error.position", 1.0, 15.0));
}

TEST(SceneActuation, TricopterFliesItsTransitionsWithThrustVectorsAndThePrototypeController) {
  // The same vehicle and actuators (servos 39 rad/s with Θ_AC, current motors, 200 Hz), but the
  // force model of `thrust: vector`: arms welded, each propeller (F sin θ, F cos θ) in its sector
  // (0.3 … 7 N, ±45°), and the body-based prototype with the scene's base template instead of
  // tiltrotor_inversion. Measured: rms 0.372 cm / 0.561° (tiltrotor_inversion: 0.389 cm / 0.559°).
  const char* controller =
      "controller={name: prototype_body, options: {gains: natural}, parameters: {mbar: 1.251, thetabar_x: 0.0192,"
      " thetabar_y: 0.0192, thetabar_z: 0.0308, omega: 6.0, omega_rot: 10.0}, actuation: {filter: thrust_filter,"
      " thrust: vector, parameters: {thrust_time_constant: 0.01, speed_gain: 100}}}";
  const SceneRun run = runLibraryScene("tricopter_table51.yaml", {controller});
  ASSERT_TRUE(run.ok) << run.message;
  const double position = 100 * run.rms("error.position", 1.0, 15.0), attitude = kDeg * run.rms("error.attitude", 1.0, 15.0);
  std::printf("[ thrust vectors ] tricopter transitions rms %.3f cm, %.3f°\n", position, attitude);
  EXPECT_LT(position, 0.45);
  EXPECT_LT(attitude, 0.65);
  EXPECT_LT(run.max("error.position"), 0.012);
}

TEST(SceneActuation, ThrustVectorMisuseIsReportedClearly) {
  // controller.actuation.thrust: vector (ModelBuilder::rotorsAsThrustVectors) needs servo-tilted
  // propellers; its sector options are checked where they are written.
  auto failure = [](const char* scene, const std::vector<std::string>& overrides) -> std::string {
    try {
      const SceneRun r = runLibraryScene(scene, overrides);
      return r.ok ? "no error" : r.message;
    } catch (const std::exception& e) {
      return e.what();
    }
  };
  const std::string typo = failure("tricopter_table51.yaml", {"controller.actuation.thrust=vectors"});
  EXPECT_NE(typo.find("vectors"), std::string::npos) << typo;
  EXPECT_NE(typo.find("scalar"), std::string::npos) << typo;
  const std::string flag = failure("tricopter_table51.yaml", {"controller.actuation.options.internal_motion=yes"});
  EXPECT_NE(flag.find("internal_motion = 'yes' is not one of: true, false"), std::string::npos) << flag;
  const std::string perturbed = failure(
      "tricopter_table51.yaml", {"controller.actuation.options.internal_motion=true", "perturbation.mass_scale=1.1"});
  EXPECT_NE(perturbed.find("option internal_motion reads the true plant"), std::string::npos) << perturbed;
  const std::string chords_alone = failure("tricopter_table51.yaml", {"controller.actuation.sector_chords=4"});
  EXPECT_NE(chords_alone.find("applies to thrust: vector only"), std::string::npos) << chords_alone;
  const std::string no_chords =
      failure("tricopter_table51.yaml", {"controller.actuation.thrust=vector", "controller.actuation.sector_chords=0"});
  EXPECT_NE(no_chords.find("expected 1 … 64"), std::string::npos) << no_chords;
  const std::string untilted = failure("prop_drive.yaml", {"controller.actuation.thrust=vector"});
  EXPECT_NE(untilted.find("no propeller hangs from an arm tilted by a servo"), std::string::npos) << untilted;
  // The tricopter's own controller inverts (5.28) itself and needs the tilt joints.
  const std::string inverted = failure("tricopter_table51.yaml", {"controller.actuation.thrust=vector"});
  EXPECT_NE(inverted.find("tiltrotor_inversion: no thrust"), std::string::npos) << inverted;
}

TEST(SceneActuation, ServoRotorCouplingOnTheTricopterTransitions) {
  // Θ_AC = 0.002 kg m² of Table 5.1 (the joints' rotor_coupling 0.00195 plus the arms' own 4.9e-5)
  // against the same vehicle without it, on the transitions. The controller's plant terms include
  // the gyroscopic part; the tilt accelerations' reaction Θ_AC θ̈ (up to 0.05 N m) it takes as zero.
  // Measured: rms 0.402 cm / 0.631° without, 0.389 cm / 0.559° with; largest attitude error 1.67°
  // and 1.47°; with the gear's sense reversed (−0.00195) 0.414 cm / 0.847° and 2.16°.
  const std::vector<std::string> without = {"joint.tilt1.rotor_coupling=0", "joint.tilt2.rotor_coupling=0",
                                            "joint.tilt3.rotor_coupling=0"};
  const std::vector<std::string> reversed = {"joint.tilt1.rotor_coupling=-0.00195", "joint.tilt2.rotor_coupling=-0.00195",
                                             "joint.tilt3.rotor_coupling=-0.00195"};
  const SceneRun with = runLibraryScene("tricopter_table51.yaml");
  const SceneRun plain = runLibraryScene("tricopter_table51.yaml", without);
  const SceneRun back = runLibraryScene("tricopter_table51.yaml", reversed);
  ASSERT_TRUE(with.ok && plain.ok && back.ok) << with.message << plain.message << back.message;
  const auto attitude = [](const SceneRun& r) { return kDeg * r.rms("error.attitude", 1.0, 15.0); };
  std::printf("[ Θ_AC ] attitude rms: without %.3f°, with %.3f°, reversed gear %.3f°; peaks %.2f°, %.2f°, %.2f°\n",
              attitude(plain), attitude(with), attitude(back), kDeg * plain.max("error.attitude"),
              kDeg * with.max("error.attitude"), kDeg * back.max("error.attitude"));
  EXPECT_NEAR(attitude(plain), 0.631, 0.01);
  EXPECT_NEAR(attitude(with), 0.559, 0.01);
  EXPECT_NEAR(attitude(back), 0.847, 0.02);
  // The coupling is in the model: the vehicle's M has Θ_AC in the tilt rows (arm + rotor = 0.002).
  const Scene scene = loadScene(test::libraryScene("tricopter_table51.yaml"));
  EXPECT_DOUBLE_EQ(scene.model.joints[scene.model.jointIndex("tilt1")].rotor_coupling, 0.00195);
  // A coupling no rotor in the central body could have is refused at its key.
  try {
    loadScene(test::libraryScene("tricopter_table51.yaml"), {"joint.tilt1.rotor_coupling=5"});
    ADD_FAILURE() << "rotor_coupling 5 accepted";
  } catch (const SceneError& e) {
    EXPECT_NE(std::string(e.what()).find("--set joint.tilt1.rotor_coupling=5"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("more than the parent body 'central' holds"), std::string::npos) << e.what();
  }
}

// World position and orientation of a body from the recorded pose channels.
Vec3 bodyPosition(const SceneRun& r, std::size_t k, const std::string& body) {
  const auto& v = r.rec.values[k];
  return {v[r.column("body." + body + ".px")], v[r.column("body." + body + ".py")], v[r.column("body." + body + ".pz")]};
}
Mat3 bodyRotation(const SceneRun& r, std::size_t k, const std::string& body) {
  const auto& v = r.rec.values[k];
  return quaternionToRotation(Vec4(v[r.column("body." + body + ".qw")], v[r.column("body." + body + ".qx")],
                                   v[r.column("body." + body + ".qy")], v[r.column("body." + body + ".qz")]));
}

/// Largest angle [rad] between the load's rope (its body z axis) and the vertical over t ∈ [t0, t1].
double largestSwing(const SceneRun& r, double t0, double t1) {
  double swing = 0.0;
  for (std::size_t k = 0; k < r.rec.time.size(); ++k)
    if (r.rec.time[k] >= t0 - 1e-9 && r.rec.time[k] <= t1 + 1e-9)
      swing = std::max(swing, std::acos(std::clamp(bodyRotation(r, k, "load")(2, 2), -1.0, 1.0)));
  return swing;
}

// The load hangs from a point that the closed loop moves, so its swing is fixed by that point's
// path alone: Euler's equations of a rigid body about an accelerated pivot,
//   Θ_p ω̇ + ω × Θ_p ω = m c × Rᵀ(a_G − a_pivot),  Ṙ = R wed(ω),
// integrated here from the recorded pivot path (acceleration by central differences of the 5 ms
// samples) must give the load orientation of the 30-coordinate model. Returns the largest
// difference [rad].
double pendulumMismatch(const SceneRun& r) {
  const std::size_t samples = r.rec.time.size();
  const double m = 0.2, h = r.rec.time[1] - r.rec.time[0];  // box 8 × 6 × 4 cm, 0.2 kg
  const Vec3 c(0, 0, -0.5), gravity(0, 0, -9.81), hook(0, 0, -0.05);
  const Mat3 inertia = (m / 12 * Vec3(0.06 * 0.06 + 0.04 * 0.04, 0.08 * 0.08 + 0.04 * 0.04, 0.08 * 0.08 + 0.06 * 0.06))
                           .asDiagonal().toDenseMatrix() +
                       m * (c.squaredNorm() * Mat3::Identity() - c * c.transpose());
  const Mat3 inertia_inv = inertia.inverse();
  std::vector<Vec3> pivot(samples);
  for (std::size_t k = 0; k < samples; ++k)
    pivot[k] = bodyPosition(r, k, "central") + bodyRotation(r, k, "central") * hook;
  const auto pivotAcceleration = [&](std::size_t k) -> Vec3 {
    if (k == 0 || k + 1 >= samples) return Vec3::Zero();
    return (pivot[k + 1] - 2 * pivot[k] + pivot[k - 1]) / (h * h);
  };
  const auto rate = [&](const Mat3& R, const Vec3& w, const Vec3& a) -> Vec3 {
    return inertia_inv * (m * c.cross(R.transpose() * (gravity - a)) - w.cross(inertia * w));
  };
  Mat3 R = bodyRotation(r, 0, "load");
  Vec3 w = Vec3::Zero();  // the scene starts with the load at rest
  double difference = 0.0;
  for (std::size_t k = 0; k + 1 < samples; ++k) {
    // RK4 with the pivot acceleration linear over the sample interval; R by the exponential map.
    const Vec3 a0 = pivotAcceleration(k), a1 = pivotAcceleration(k + 1), am = 0.5 * (a0 + a1);
    const Vec3 k1 = rate(R, w, a0);
    const Vec3 w2 = w + 0.5 * h * k1;
    const Vec3 k2 = rate(R * expSO3(0.5 * h * w), w2, am);
    const Vec3 w3 = w + 0.5 * h * k2;
    const Vec3 k3 = rate(R * expSO3(0.5 * h * w2), w3, am);
    const Vec3 w4 = w + h * k3;
    const Vec3 k4 = rate(R * expSO3(h * w3), w4, a1);
    R = R * expSO3(h / 6 * (w + 2 * w2 + 2 * w3 + w4));
    w += h / 6 * (k1 + 2 * k2 + 2 * k3 + k4);
    difference = std::max(difference, logSO3(R.transpose() * bodyRotation(r, k + 1, "load")).norm());
  }
  return difference;
}

// The scene's reference moves the load's centre of mass (option suspended_load): the base runs
// ahead along the rope direction, so the load swings only while it accelerates and hangs still
// after each move. With the same set-points for the base instead, the load keeps swinging.
TEST(SceneActuation, TricopterCarriesItsLoadWithoutResidualSwing) {
  const SceneRun r = runLibraryScene("tricopter_load_transport.yaml");
  ASSERT_TRUE(r.ok) << r.message;
  ASSERT_GT(r.rec.time.size(), 3000u);
  // Hover before the first move: the plant terms carry the load's weight (ignoring it would
  // sag by 0.2 g / (m̄ ω_n²) = 3.8 cm).
  for (double t : {2.0, 3.0, 4.0}) EXPECT_LT(r.at(t, "error.position"), 1e-4) << t;
  const double position_cm = 100 * r.rms("error.position", 1.0, 15.0);
  const double attitude_deg = kDeg * r.rms("error.attitude", 1.0, 15.0);
  const double mismatch = pendulumMismatch(r);
  std::printf("[ load ] rms %.3f cm / %.3f deg; swing max %.2f deg, after the moves %.2f deg; pendulum %.3f deg\n",
              position_cm, attitude_deg, kDeg * largestSwing(r, 0, 16), kDeg * largestSwing(r, 15, 16),
              kDeg * mismatch);
  EXPECT_LT(position_cm, 0.5);
  EXPECT_LT(attitude_deg, 1.0);
  EXPECT_LT(mismatch, 0.3 / kDeg);                      // measured 0.03°
  EXPECT_LT(largestSwing(r, 0, 16), 16.0 / kDeg);        // 14.2°: the planned swing while accelerating
  for (double t_rest : {6.0, 9.0, 12.0, 15.0})           // 3.0 s after each move started
    EXPECT_LT(largestSwing(r, t_rest, t_rest + 1.0), 2.0 / kDeg) << t_rest;
  // The planned swing is followed (error.swing: actual against reference rope direction).
  EXPECT_LT(r.max("error.swing.suspension"), 2.0 / kDeg);  // measured 1.26°

  const SceneRun unshaped = runLibraryScene("tricopter_load_transport.yaml", {"reference.options.suspended_load=none",
                                                                          "reference.parameters.z=[1, 1, 1, 1, 1]"});
  ASSERT_TRUE(unshaped.ok) << unshaped.message;
  const double unshaped_mismatch = pendulumMismatch(unshaped);
  std::printf("[ load ] base path: swing max %.2f deg, after the moves %.2f deg; pendulum %.3f deg\n",
              kDeg * largestSwing(unshaped, 0, 16), kDeg * largestSwing(unshaped, 15, 16), kDeg * unshaped_mismatch);
  EXPECT_LT(unshaped_mismatch, 0.3 / kDeg);               // measured 0.11° (61° swings)
  EXPECT_GT(largestSwing(unshaped, 0, 16), 45.0 / kDeg);
  EXPECT_GT(largestSwing(unshaped, 15, 16), 10.0 / kDeg);
  // This reference holds the load straight below the base, so error.swing is the swing itself.
  for (std::size_t k = 0; k < unshaped.rec.time.size(); k += 50)
    EXPECT_NEAR(unshaped.rec.values[k][unshaped.column("error.swing.suspension")],
                std::acos(std::clamp(bodyRotation(unshaped, k, "load")(2, 2), -1.0, 1.0)), 1e-6)
        << unshaped.rec.time[k];
}

// The thesis' controller (the scene's recovery off: its supervisor would take over from these
// starts, by design) from offsets at hover.
TEST(SceneActuation, HoverRecoveryFromAnOffsetAndATilt) {
  const SceneRun r = runLibraryScene("quadcopter_table51.yaml",
                         {"reference.parameters.start_time=100", "integrator.t_end=6", "controller.options.recovery=off",
                          "joint.flight.initial.pose={xyz: [0.5, 0, 1.0], rpy: [0.5, 0, 0]}"});
  ASSERT_TRUE(r.ok) << r.message;
  EXPECT_LT(r.at(6.0, "error.position"), 1e-6);
  EXPECT_LT(r.at(6.0, "error.attitude"), 1e-6);
}

TEST(SceneActuation, HoverRecoveryFromUpsideSidewaysNeedsSofterPoles) {
  // From 90° roll the looping's quadruple pole −8 asks for bang-bang thrusts the current-limited
  // rotors cannot follow, and the vehicle is lost; with −5 (the §A.9 example) it recovers
  // (measured: max 0.63 m, 2.6e-7 m at 8 s). The looping in turn needs −8 (with −5 it is lost).
  // That is the thesis' controller (recovery off); with the scene's recovery −8 comes back too
  // (stabilized, flown back: measured max 0.81 m, lowest altitude 0.19 m, 1e-12 m at 12 s).
  const std::vector<std::string> upside = {"reference.parameters.start_time=100", "integrator.t_end=8",
                                           "controller.options.recovery=off",
                                           "joint.flight.initial.pose={xyz: [0, 0, 1.0], rpy: [1.5707963, 0, 0]}"};
  std::vector<std::string> soft = upside;
  soft.push_back("controller.parameters.pole=5");
  const SceneRun r = runLibraryScene("quadcopter_table51.yaml", soft);
  ASSERT_TRUE(r.ok) << r.message;
  EXPECT_LT(r.max("error.position"), 0.8);
  EXPECT_LT(r.at(8.0, "error.position"), 1e-5);
  const SceneRun stiff = runLibraryScene("quadcopter_table51.yaml", upside);
  EXPECT_TRUE(!stiff.ok || stiff.at(8.0, "error.position") > 1.0);
  const SceneRun recovered = runLibraryScene(
      "quadcopter_table51.yaml", {"reference.parameters.start_time=100", "integrator.t_end=12",
                                  "joint.flight.initial.pose={xyz: [0, 0, 1.0], rpy: [1.5707963, 0, 0]}"});
  ASSERT_TRUE(recovered.ok) << recovered.message;
  EXPECT_GE(recovered.max("control.recovery"), 1.0);
  EXPECT_EQ(recovered.end("control.recovery"), 0.0);
  EXPECT_LT(recovered.max("error.position"), 1.0);
  EXPECT_LT(recovered.end("error.position"), 1e-6);
}

TEST(SceneActuation, AnotherControllerKeepsTheActuationLayer) {
  // Choosing a different controller (CLI --controller, the GUI's selector) keeps the propellers'
  // force-control layer: geometric SE(3) on the force model hovers the propeller quadcopter.
  const SceneRun r =
      runLibraryScene("quadcopter_table51.yaml", {"reference.parameters.start_time=100", "integrator.t_end=3"}, "geometric_se3");
  ASSERT_TRUE(r.ok) << r.message;
  EXPECT_LT(r.at(3.0, "error.position"), 1e-3);
  EXPECT_GT(r.at(3.0, "actuation.speed_setpoint.rotor1"), 300.0);
}

TEST(SceneActuation, LoopingWithTheEstimatorOnNoisyDelayedMotionCapture) {
  // The flight's sensing: 10 Hz / 34 ms motion capture with 1 mm / 0.5° noise, IMU noise, the
  // chapter 5.4 estimator (on the plant's joints: rotor rates from the encoders) and its force
  // bias handed to the controller on the force model. Measured 3.53 cm / 4.35° rms over the
  // loops (3.19 cm / 4.07° with the recovery off): the order of the flight's 2.7 cm / 2.5°.
  const SceneRun r = runLibraryScene(
      "quadcopter_table51.yaml",
      {"perturbation={noise: {position: 0.001, attitude: 0.0087}, motion_capture: {rate: 10, latency: 0.034}, "
       "estimator: {enabled: true}, imu: {gyro_noise: 0.01, accel_noise: 0.05}}"});
  ASSERT_TRUE(r.ok) << r.message;
  EXPECT_LT(r.rms("error.position", 1.0, 8.5), 0.036);
  EXPECT_LT(kDeg * r.rms("error.attitude", 1.0, 8.5), 4.6);
}

TEST(SceneActuation, PrintedFilterWithoutLeadLagsTheLooping) {
  // The filter of (5.36) as printed (lead 0) delays the collective thrust by K_1/K_0 ≈ 14 ms; on
  // the looping that costs several centimetres (measured 9.5 cm rms with the recovery off; with
  // it the supervisor leaves the looping): the reason for the lead.
  const SceneRun r =
      runLibraryScene("quadcopter_table51.yaml", {"controller.actuation.parameters.lead=0", "controller.options.recovery=off"});
  ASSERT_TRUE(r.ok) << r.message;
  EXPECT_GT(r.rms("error.position", 1.0, 8.5), 0.05);
}

TEST(SceneActuation, MisconfiguredLayersAreReportedAtTheirSection) {
  auto message = [](const std::vector<std::string>& overrides) -> std::string {
    const Scene s = loadScene(test::libraryScene("quadcopter_table51.yaml"), overrides);
    try {
      makeSceneLoop(s);
    } catch (const SceneError& e) {
      return e.what();
    }
    return "no error";
  };
  const std::string no_rate = message({"integrator.control_rate=0"});
  EXPECT_NE(no_rate.find("quadcopter_table51.yaml:"), std::string::npos) << no_rate;
  EXPECT_NE(no_rate.find("set integrator.control_rate > 0"), std::string::npos) << no_rate;
  const std::string unknown = message({"controller.actuation.parameters.cutof=3"});
  const ActuationSettings& section = loadScene(test::libraryScene("quadcopter_table51.yaml")).controller.actuation;
  EXPECT_NE(unknown.find(":" + std::to_string(section.line) + ":" + std::to_string(section.column) +
                         ": controller.actuation: unknown controller parameter 'cutof'"),
            std::string::npos)
      << unknown;
  // The tricopter's tilted rotors are not four parallel ones: no flat filter.
  const Scene tri = loadScene(test::libraryScene("tricopter_table51.yaml"), {"controller.actuation.filter=flat_filter"});
  try {
    makeSceneLoop(tri);
    ADD_FAILURE() << "flat_filter accepted for the tricopter";
  } catch (const SceneError& e) {
    EXPECT_NE(std::string(e.what()).find("exactly four propellers"), std::string::npos) << e.what();
    EXPECT_GT(e.line(), 0);
  }
  // A propeller whose thrust is not along its spin axis is a build error at the key, here the
  // --set that wrote it (the message also names the joint, which once misled a text match).
  try {
    loadScene(test::libraryScene("quadcopter_table51.yaml"), {"propeller.rotor1.thrust_direction=[1,0,0]"});
    ADD_FAILURE() << "tilted thrust accepted";
  } catch (const SceneError& e) {
    EXPECT_NE(std::string(e.what()).find("parallel to the spin axis"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("--set propeller.rotor1.thrust_direction=[1,0,0]"), std::string::npos)
        << e.what();
  }
}


/// tiltrotor_inversion forms f_D = M_bb a_des + b_b by one inverse-dynamics pass instead of M and
/// b. Checked against the plant terms (evaluatePlant): with the reference at the state (no template
/// error) a_des is the reference's base acceleration, and the thrusts at the commanded tilts must
/// produce f_D on the base: (B(x_θ) u)_base = f_D, where x_θ has the tilt joints at θ_D (the tilted
/// thrust is cos θ d + sin θ a × d at the same point, which (5.16c) takes at zero tilt: exact when
/// the rotors sit on their tilt axes).
void expectThrustsRealizeTheBaseRowsOfThePlantTerms(const Model& model, const std::string& what) {
  auto controller = makeController(model, ControllerSettings{"tiltrotor_inversion", {}, {}});
  const int o = model.joints[baseJointIndex(model)].xi_offset;
  Workspace ws(model);
  PlantTerms plant;
  std::mt19937 rng(7);
  std::uniform_real_distribution<double> small(-0.3, 0.3);
  for (int trial = 0; trial < 5; ++trial) {
    State s = model.initial_state;
    for (int i = 0; i < model.nxi; ++i) s.xi(i) += small(rng);
    for (const Joint& j : model.joints)  // arms off zero tilt, propellers at some angle
      if (j.type == JointType::Revolute && trial > 0) s.x(j.x_offset) = small(rng);
    ReferenceSample r;
    r.x = s.x;
    r.xi = s.xi;
    r.xidot = VecX::Zero(model.nxi);
    for (int i = 0; i < 6; ++i) r.xidot(o + i) = small(rng);
    VecX u;
    ASSERT_TRUE(controller->compute(0.0, s, r, u)) << what << ": " << controller->message();
    evaluatePlant(model, s, ws, plant);
    const Vec6 f_D = plant.M.middleRows<6>(o) * r.xidot + plant.b.segment<6>(o);
    State tilted = s;
    VecX thrusts = VecX::Zero(model.numInputs());
    const auto& names = controller->signals();
    for (std::size_t i = 0; i < names.size(); ++i) {
      const std::string prefix = "control.tilt_command.";
      if (names[i].name.rfind(prefix, 0) != 0) continue;
      const Joint& tilt = model.joints[model.jointIndex(names[i].name.substr(prefix.size()))];
      tilted.x(tilt.x_offset) = controller->signalValues()(static_cast<int>(i));
    }
    for (int i = 0; i < model.numInputs(); ++i) {
      const Actuator& a = model.actuators[i];
      if (a.kind == ActuatorKind::JointEffort) {  // the joint's diagonal of M scales its loop
        const Joint& joint = model.joints[a.joint];
        const int c = joint.xi_offset;
        const double expected =
            joint.name.rfind("spin", 0) == 0  // a motor (motor_gain 20) holds the initial speed
                ? plant.M(c, c) * 20.0 * (model.initial_state.xi(c) - s.xi(c))
                : plant.M(c, c) * (1600.0 * (tilted.x(joint.x_offset) - s.x(joint.x_offset)) - 80.0 * s.xi(c));
        EXPECT_NEAR(u(i), expected, 1e-12 * std::abs(expected)) << what << ": " << a.name;  // (5.2), ω 40, ζ 1
        continue;
      }
      if (a.kind != ActuatorKind::BodyForce) continue;
      ASSERT_GT(u(i), a.lower) << what << ": clamped thrust " << a.name;
      ASSERT_LT(u(i), a.upper) << what << ": clamped thrust " << a.name;
      thrusts(i) = u(i);
    }
    computeKinematics(model, tilted.x, tilted.xi, ws);
    computeBodyJacobians(model, ws);
    computeInputMatrix(model, ws);
    const Vec6 realized = ws.input_matrix.middleRows<6>(o) * thrusts;
    EXPECT_LT((realized - f_D).norm(), 1e-12 * f_D.norm())
        << what << ", trial " << trial << "\n" << realized.transpose() << "\n" << f_D.transpose();
  }
}

TEST(SceneActuation, TiltrotorThrustsRealizeTheBaseRowsOfThePlantTerms) {
  // The library tricopter's force model (servo tilts, rotors welded, a load on a spherical joint),
  // rotors moved onto the tilt axes.
  const Scene scene = loadScene(test::libraryScene("tricopter_load_transport.yaml"),
                                {"joint.spin1.origin.xyz=[0,0,0]", "joint.spin2.origin.xyz=[0,0,0]",
                                 "joint.spin3.origin.xyz=[0,0,0]"});
  ASSERT_TRUE(scene.force_model);
  expectThrustsRealizeTheBaseRowsOfThePlantTerms(*scene.force_model, "tricopter force model");
  expectThrustsRealizeTheBaseRowsOfThePlantTerms(test::torqueTiltedTricopter(), "torque tilts, motors, external wrench");
}

}  // namespace
}  // namespace rbs
