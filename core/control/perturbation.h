// Perturbations of the closed loop, to compare simulated tracking errors with flight results
// (konz-multicopters §A.7, §A.10): a controller model that differs from the plant (mass and
// inertia scaled), white sensor noise on what the controller sees, and motion-capture sampling
// with latency (5.47). All off by default; the noise is deterministic for a seed. Scene section
// `perturbation` (docs/SCENE_FORMAT.md); applied by sim/perturbed_loop.h.
#pragma once

#include <cstdint>
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
  std::uint64_t seed = 1;
  int line = 0;  ///< where the section starts in the scene file (1-based; 0: not from a file)
  int column = 0;

  /// Noise or motion capture is on: needs a zero-order hold (control_rate > 0).
  bool perturbsMeasurement() const { return noise.any() || motion_capture.any(); }
  /// Anything differs from the unperturbed loop.
  bool any() const { return mass_scale != 1.0 || perturbsMeasurement(); }
};

/// Empty when the settings are valid, else what is wrong ("noise.rate: expected a number ≥ 0, …"):
/// mass_scale finite and > 0, standard deviations, rate and latency finite and ≥ 0.
std::string perturbationError(const PerturbationSettings& settings);

/// The model with every body's mass m, inertias (about the CoM and the origin) and spatial inertia
/// M_b (3.51) times `mass_scale` (> 0); everything else (joints, actuators, springs, …) kept. The
/// mass matrix M (3.97) and the gravity forces then scale by exactly that factor.
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

}  // namespace rbs
