// Perturbations of the closed loop, to compare simulated tracking errors with flight results
// (konz-multicopters §A.7, §A.10): a controller model that differs from the plant (mass and
// inertia scaled), white sensor noise on what the controller sees, and motion-capture sampling
// with latency (5.47), and the chapter 5.4 state estimator with its IMU (5.45)–(5.46) between the
// sensors and the controller. All off by default; the noise is deterministic for a seed. Scene
// section `perturbation` (docs/SCENE_FORMAT.md); applied by sim/perturbed_loop.h.
#pragma once

#include <cstdint>
#include <memory>
#include <random>
#include <string>

#include "core/model/model.h"

namespace rbs {

struct PerturbationSettings {
  /// The controller's model: every body's mass and inertia times this factor (the plant keeps its
  /// own). 1: the controller knows the plant exactly.
  double mass_scale = 1.0;
  /// Standard deviations of white Gaussian noise on the state the controller sees, drawn once per
  /// control instant (all 0: no noise).
  struct Noise {
    double position = 0.0;    ///< σ [m] on r of free and planar joints
    double attitude = 0.0;    ///< σ [rad]: R ← R exp(wed(σ n)) of free and spherical joints
    double velocity = 0.0;    ///< σ [m/s] on v of the body twist [v; ω] of free and planar joints
    double rate = 0.0;        ///< σ [rad/s] on ω of free and spherical joints
    double joint = 0.0;       ///< σ [rad or m] on the coordinates of one-/two-axis joints
    double joint_rate = 0.0;  ///< σ [rad/s or m/s] on their velocities
    bool any() const {
      return position > 0.0 || attitude > 0.0 || velocity > 0.0 || rate > 0.0 || joint > 0.0 ||
             joint_rate > 0.0;
    }
  } noise;
  /// Motion capture (5.47): frame k' arrives at t = k'/rate and shows the state of k'/rate −
  /// latency; rate 0: continuous (every control instant), then only the latency.
  struct MotionCapture {
    double rate = 0.0;     ///< [Hz] T_S' = 1/rate (Vicon: 10 Hz)
    double latency = 0.0;  ///< [s] T_D (Vicon: mean 0.034 s)
    bool any() const { return rate > 0.0 || latency > 0.0; }
  } motion_capture;
  /// The state estimator of thesis 5.4 (core/control/state_estimator.h): the controller sees its
  /// estimate instead of the raw measurement. Gains default to the thesis values (§A.11).
  struct Estimator {
    bool enabled = false;
    /// The controller subtracts the estimated force/torque bias from its plant model (thesis 5.4.2:
    /// the bias observer takes the place of integral action).
    bool bias_compensation = true;
    double l_omega = 0.2;   ///< L_ω (5.51a), dimensionless, in [0, 1]
    double l_tau = 0.01;    ///< L_τ [N m s/rad] (5.51b), ≥ 0
    double l_r = 1.0;       ///< l_r (5.64)
    double l_v = 0.575;     ///< l_v (5.64)
    double l_a = -0.025;    ///< l_a (5.64); (l_r, l_v, l_a) must give stable error dynamics (5.65)
    double l_f = 0.98;      ///< l_F (5.67), in [0, 1)
  } estimator;
  /// The IMU the estimator reads (5.45)–(5.46), sampled at every control instant.
  struct Imu {
    double gyro_noise = 0.0;               ///< σ [rad/s] of ω_N
    double accel_noise = 0.0;              ///< σ [m/s²] of a_N
    Vec3 accel_bias = Vec3::Zero();        ///< a_B [m/s²], sensor axes
    Vec3 misalignment_rpy = Vec3::Zero();  ///< R_B = R_z(yaw) R_y(pitch) R_x(roll) [rad]
  } imu;
  /// false: the controller's (and the estimator's) model leaves out the scene's external wrenches;
  /// they act on the plant as the unknown force/torque bias F_B, τ_B of (5.44).
  bool external_wrenches_known = true;
  std::uint64_t seed = 1;
  int line = 0;  ///< where the section starts in the scene file (1-based; 0: not from a file)
  int column = 0;

  /// Noise, motion capture or the estimator is on: needs a zero-order hold (control_rate > 0).
  bool perturbsMeasurement() const {
    return noise.any() || motion_capture.any() || estimator.enabled;
  }
  /// The controller's model differs from the plant.
  bool changesControllerModel() const { return mass_scale != 1.0 || !external_wrenches_known; }
  /// Anything differs from the unperturbed loop.
  bool any() const { return changesControllerModel() || perturbsMeasurement(); }
};

/// Empty when the settings are valid, else what is wrong ("noise.rate: expected a number ≥ 0, …"):
/// mass_scale finite and > 0, standard deviations, rate and latency finite and ≥ 0; the estimator's
/// gains as documented in PerturbationSettings::Estimator, the IMU's numbers finite.
std::string perturbationError(const PerturbationSettings& settings);

/// The model the controller is made for: the plant with masses scaled (scaledModel) and, when
/// `external_wrenches_known` is false, without external wrenches. Null when that is the plant
/// itself (the controller then uses the plant's model).
std::shared_ptr<const Model> controllerModel(const Model& plant,
                                             const PerturbationSettings& settings);

/// The model with every body's mass m, inertias (about the CoM and the origin) and spatial inertia
/// M_b (3.51), and the geared rotors' Joint::armature and Joint::rotor_coupling, times `mass_scale`
/// (> 0); everything else (joints, actuators, springs, …) kept. The mass matrix M (3.97) and the
/// gravity forces then scale by exactly that factor.
Model scaledModel(const Model& model, double mass_scale);

/// Deterministic standard-normal draws: a 64-bit Mersenne twister (fully specified by the C++
/// standard) and the Box–Muller transform written out, so the sequence for a seed is the same with
/// every standard library.
class NoiseGenerator {
 public:
  explicit NoiseGenerator(std::uint64_t seed = 1) : engine_(seed) {}
  void reseed(std::uint64_t seed) {
    engine_.seed(seed);
    has_spare_ = false;
  }
  double normal();

 private:
  std::mt19937_64 engine_;
  double spare_ = 0.0;
  bool has_spare_ = false;
};

/// Adds the noise of `noise` to `state` joint by joint (the controller's view of it):
/// free joints: r += σ_r n, R ← R exp(wed(σ_R n)) (quaternion: q ← q ⊗ q(σ_R n)), v += σ_v n,
/// ω += σ_ω n (body twist); spherical joints: attitude and rate; planar: position (x, y),
/// attitude (θ), velocity (v_x, v_y), rate (ω_z); revolute, prismatic, universal, Euler angles
/// and unit-circle joints: `joint` on the angle/displacement, `joint_rate` on the velocities
/// (Euler angles: attitude and rate instead). Fixed joints: nothing. Draws in joint order, x
/// before ξ; a zero σ draws nothing.
void addMeasurementNoise(const Model& model, const PerturbationSettings::Noise& noise,
                         NoiseGenerator& rng, State& state);

/// A measured pose as addMeasurementNoise treats a free joint's: r += σ_r n, R ← R exp(wed(σ_R n))
/// (the motion-capture frames of the estimator). A zero σ draws nothing.
void addPoseNoise(double sigma_position, double sigma_attitude, NoiseGenerator& rng, Vec3& r,
                  Mat3& R);

/// σ n: three standard-normal draws (x, y, z in this order) times σ.
Vec3 drawVec3(double sigma, NoiseGenerator& rng);

}  // namespace rbs
