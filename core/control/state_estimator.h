// The state estimator of the LSR multicopters (thesis Sec. 5.4, konz-multicopters §A.7) for a
// vehicle whose root joint is free: what the flight controller runs between its sensors and the
// rigid-body controller, so it lives beside the controllers and knows nothing of the true state
// (sim/estimator.h simulates the sensors and feeds it). Per control instant (period T_S):
//   - angular velocity and torque bias: Luenberger observer on the gyro (5.51);
//   - attitude: the latest motion-capture attitude, integrated forward to now with the buffered
//     gyro samples (5.56, quaternion with the stabilizing term);
//   - position, velocity, accelerometer bias: ZOH prediction from the accelerometer (5.59), the
//     delayed motion-capture position corrects the estimate at its measurement time (5.60) with
//     gains scaled by the actual interval between frames (5.64), then re-integrated to now;
//   - force bias: low-pass of what the accelerometer says the applied force missed (5.67).
// Other joints (arm, tilt servos, propellers) are measured directly (encoders) and passed through.
//
// Generalization of the thesis' single-body model (5.44): the estimator evaluates the plant terms
// M, b, B of its model (the controller's) at the estimate; the base rows give
// M_bb ξ̇_b + b_b = (B u)_b + [F_B; τ_B], with ξ_b = [v; ω] the root joint's body twist. For one
// body with its centre of mass at the joint frame's origin this is (5.44) exactly (F_B, τ_B in
// body axes, drag and gyroscopic terms from b); otherwise it also accounts for an offset centre of
// mass. The accelerations of the other joints are neglected in the base rows (they are not
// estimated). The IMU sits at the root joint frame's origin, its axes along the frame's; the
// misalignment R_B is taken as calibrated away (5.48)–(5.49): a residual R_B is an error the
// estimator does not know about. The latency is known exactly (no clock-offset filter (5.53)).
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "core/control/perturbation.h"
#include "core/control/plant.h"
#include "core/dynamics/workspace.h"

namespace rbs {

/// A buffer of the latest `capacity` items (oldest dropped), allocated once.
template <class T>
class RingBuffer {
 public:
  explicit RingBuffer(std::size_t capacity) : items_(capacity) {}
  std::size_t size() const { return size_; }
  std::size_t capacity() const { return items_.size(); }
  bool empty() const { return size_ == 0; }
  void clear() { size_ = first_ = 0; }
  /// A new newest item (the oldest is overwritten when full); its old contents are unspecified.
  T& push() {
    if (size_ < items_.size()) {
      ++size_;
    } else {
      first_ = (first_ + 1) % items_.size();
    }
    return back();
  }
  /// i = 0: the oldest.
  T& operator[](std::size_t i) { return items_[(first_ + i) % items_.size()]; }
  const T& operator[](std::size_t i) const { return items_[(first_ + i) % items_.size()]; }
  T& back() { return (*this)[size_ - 1]; }
  const T& back() const { return (*this)[size_ - 1]; }

 private:
  std::vector<T> items_;
  std::size_t size_ = 0, first_ = 0;
};

class StateEstimator {
 public:
  using Gains = PerturbationSettings::Estimator;
  /// Instants (and so motion-capture latency) the buffer covers, as on the vehicles.
  static constexpr std::size_t kBufferSteps = 64;

  /// Empty when `model` suits the estimator, else why not: the root joint (tracking.h
  /// baseJointIndex) must be free or free_quaternion.
  static std::string modelError(const Model& model);

  /// `model` (kept by reference) is the estimator's model of the vehicle: the controller's.
  /// Throws std::invalid_argument when modelError(model) is not empty.
  StateEstimator(const Model& model, const Gains& gains);

  /// Starts at time t from a measured state (root pose and twist, other joints) and the gyro
  /// sample ω_M [rad/s] (sensor axes) taken then; biases zero. Replaces the start-up (5.58).
  void start(double t, const State& measured, const Vec3& gyro);

  /// The next control instant t (> the last): `gyro` ω_M(t) [rad/s] (5.45); `accel` [m/s²] the mean
  /// specific force over the interval from the last instant to t (5.46, an averaging IMU), in the
  /// axes of the interval's middle; `applied` the inputs held over that interval (clamped to the
  /// actuator limits here, as the simulator applies them); `encoders` a state whose joints other
  /// than the root are the measured ones. Predicts the estimate to t: (5.51), (5.56), (5.59),
  /// (5.67). Returns false on numerical trouble (message()).
  bool predict(double t, const Vec3& gyro, const Vec3& accel, const VecX& applied,
               const State& encoders);

  /// A motion-capture frame (5.47): the pose of the root joint frame (position [m], attitude) at
  /// time t_m, between the oldest buffered instant and the last one. Corrects at t_m (5.60) with
  /// the gains (5.64) for the interval since the previous frame's t_m, resets the attitude there
  /// and integrates both forward to the last instant (5.56), (5.59). Returns false (the frame is
  /// dropped, nothing changes) when t_m is outside the buffer.
  bool correct(double t_m, const Vec3& position, const Mat3& attitude);

  /// The estimated state at the last instant, in the model's coordinates.
  const State& estimate() const { return estimate_; }
  /// f̂ (size n): [F̂_B; τ̂_B] on the root's rows, zero elsewhere (Controller::setExternalForceEstimate).
  const VecX& externalForce() const { return external_force_; }
  const Vec3& forceBias() const { return force_bias_; }    ///< F̂_B [N], body axes (5.67)
  const Vec3& torqueBias() const { return torque_bias_; }  ///< τ̂_B [N m], body axes (5.51b)
  const Vec3& accelBias() const { return accel_bias_; }    ///< â_B [m/s²], sensor axes (5.60)
  const Vec3& velocity() const { return steps_.back().rdot; }  ///< ṙ̂ [m/s], parent frame
  /// a_G [m/s²] in the root joint's parent frame (the frame of r and ṙ).
  const Vec3& gravity() const { return gravity_; }
  int rootJoint() const { return root_; }
  std::size_t droppedFrames() const { return dropped_; }
  const std::string& message() const { return message_; }

 private:
  /// What the buffer keeps per control instant t.
  struct Step {
    double t = 0.0;
    Vec4 q = Vec4(1, 0, 0, 0);  ///< q̂(t) (w, x, y, z)
    Vec3 r = Vec3::Zero();      ///< r̂(t)
    Vec3 rdot = Vec3::Zero();   ///< ṙ̂(t)
    Vec3 gyro = Vec3::Zero();   ///< ω_M(t)
    Vec3 accel = Vec3::Zero();  ///< mean specific force over [t, next t] (once known)
  };
  /// from → to over dt with the gyro sample of `from` and the interval's accelerometer sample:
  /// (5.56) and (5.59). Writes q, r, rdot of `to`.
  void propagate(const Step& from, double dt, const Vec3& accel, Step& to) const;
  /// (5.51) and (5.67) over [last instant, last + dt] from the estimate at the last instant.
  bool observe(double dt, const Vec3& gyro, const Vec3& accel, const VecX& applied);
  bool fail(std::string message);  ///< sets message(), returns false
  /// estimate_'s root coordinates and twist from the newest step and ω̂.
  void writeRoot();

  const Model& model_;
  Gains gains_;
  int root_ = -1;
  int x_offset_ = 0, xi_offset_ = 0;
  bool quaternion_ = false;
  Vec3 gravity_ = Vec3::Zero();

  RingBuffer<Step> steps_;
  State estimate_;
  Vec3 omega_ = Vec3::Zero();  ///< ω̂ at the last instant (5.51a)
  Vec3 force_bias_ = Vec3::Zero(), torque_bias_ = Vec3::Zero(), accel_bias_ = Vec3::Zero();
  VecX external_force_;
  double last_frame_time_ = 0.0;  ///< t_m of the previous frame (the start before the first)
  std::size_t dropped_ = 0;
  std::string message_;

  Workspace ws_;
  PlantTerms plant_;
  VecX applied_, force_;
};

}  // namespace rbs
