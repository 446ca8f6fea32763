// The chapter 5.4 state estimator in a simulated closed loop: the sensors of the true plant feed
// core/control/state_estimator.h, whose estimate the controller then sees (sim/perturbed_loop.h,
// scene `perturbation.estimator`). Called at the control instants of a zero-order hold, with the
// true state of each:
//   - IMU (5.45)–(5.46) at every instant: gyro ω_M = R_B ω + ω_N; accelerometer
//     a_M = R_B R_midᵀ(r̈ − a_G) + a_B + a_N with r̈ the mean acceleration of the root joint frame
//     over the hold interval, (ṙ(t) − ṙ(t − T_S)) / T_S, i.e. the velocity difference of the true
//     plant (exactly what the held inputs produced; an averaging IMU), and R_mid the attitude in the
//     interval's middle (geodesic);
//   - motion capture (5.47): frame k' arrives at k'/rate (every instant for rate 0) and shows the
//     pose of k'/rate − latency: the true pose there, interpolated between the kept instants (cubic
//     Hermite with the velocities for r, geodesic for R), plus noise.position / noise.attitude;
//     frames showing a time before the start are skipped;
//   - encoders: the other joints as addMeasurementNoise gives them (the root's part is unused).
// The estimator starts at the first instant from the measured state (noise as for the encoders).
// Noise streams: IMU, motion capture and encoders each have their own generator (seeds derived
// from `seed`), so turning one on leaves the others' draws unchanged.
#pragma once

#include <string>
#include <vector>

#include "core/control/perturbation.h"
#include "core/control/state_estimator.h"
#include "sim/channels.h"

namespace rbs {

class SimulatedEstimator {
 public:
  /// `plant` gives the true root pose (copied); `estimator_model` (kept by reference: the
  /// controller's model) is the estimator's. Throws std::invalid_argument for invalid settings
  /// (perturbationError) and ("estimator: …") when the root joint is not free.
  SimulatedEstimator(const Model& plant, const Model& estimator_model,
                     const PerturbationSettings& settings);

  /// Forget everything (a simulator reset): the next update() starts the estimator again.
  void restart();
  /// Control instant t with the true `state`; `applied` the inputs held since the last instant.
  /// Returns false on numerical trouble (message()).
  bool update(double t, const State& state, const VecX& applied);

  const State& estimate() const { return estimator_.estimate(); }
  const StateEstimator& estimator() const { return estimator_; }
  const std::string& message() const {
    return message_.empty() ? estimator_.message() : message_;
  }

  /// The estimator's channels: estimation errors against the true state and the bias estimates.
  static std::vector<ChannelInfo> channels();
  static constexpr int kChannelCount = 13;
  /// Their values for the estimate of the last update() against `truth` (NaN before the first).
  void sample(const State& truth, double* out) const;

 private:
  /// The true root joint frame at an instant (parent frame).
  struct Truth {
    double t = 0.0;
    Vec3 r = Vec3::Zero(), rdot = Vec3::Zero();
    Mat3 R = Mat3::Identity();
  };
  Truth truthOf(double t, const State& state) const;
  /// The true pose at t_m, interpolated between the kept instants.
  void poseAt(double t_m, Vec3& r, Mat3& R) const;
  bool frame(double t_m);

  Model plant_;
  PerturbationSettings settings_;
  StateEstimator estimator_;
  int x_offset_ = 0, xi_offset_ = 0;
  bool quaternion_ = false;
  Mat3 misalignment_ = Mat3::Identity();  ///< R_B
  NoiseGenerator imu_rng_, mocap_rng_, encoder_rng_;
  RingBuffer<Truth> truth_;
  State measured_;
  bool started_ = false;
  double t0_ = 0.0;
  long next_frame_ = 0;  ///< index k' of the next motion-capture frame (rate > 0)
  std::string message_;
};

}  // namespace rbs
