#include "sim/estimator.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>

#include "core/math/se3.h"

namespace rbs {

namespace {

constexpr double kGridSlack = 1e-9;  ///< [s] rounding slack when comparing with the frame grid

/// Separate noise streams for the IMU, the motion capture and the encoders.
constexpr std::uint64_t kMocapStream = 0x9e3779b97f4a7c15ULL;
constexpr std::uint64_t kEncoderStream = 0xbf58476d1ce4e5b9ULL;

const PerturbationSettings& checked(const PerturbationSettings& s) {
  if (std::string e = perturbationError(s); !e.empty()) throw std::invalid_argument(e);
  return s;
}

StateEstimator makeEstimator(const Model& model, const PerturbationSettings& s) {
  if (std::string e = StateEstimator::modelError(model); !e.empty())
    throw std::invalid_argument("estimator: " + e);
  return StateEstimator(model, s.estimator);
}

}  // namespace

SimulatedEstimator::SimulatedEstimator(const Model& plant, const Model& estimator_model,
                                       const PerturbationSettings& settings)
    : plant_(plant),
      settings_(checked(settings)),
      estimator_(makeEstimator(estimator_model, settings)),
      imu_rng_(settings.seed),
      mocap_rng_(settings.seed ^ kMocapStream),
      encoder_rng_(settings.seed ^ kEncoderStream),
      truth_(StateEstimator::kBufferSteps) {
  const Joint& root = plant_.joints[estimator_.rootJoint()];
  x_offset_ = root.x_offset;
  xi_offset_ = root.xi_offset;
  quaternion_ = root.type == JointType::FreeQuaternion;
  const Vec3& rpy = settings.imu.misalignment_rpy;
  misalignment_ = rotationZYX(rpy.x(), rpy.y(), rpy.z());
}

void SimulatedEstimator::restart() {
  started_ = false;
  message_.clear();
  truth_.clear();
  imu_rng_.reseed(settings_.seed);
  mocap_rng_.reseed(settings_.seed ^ kMocapStream);
  encoder_rng_.reseed(settings_.seed ^ kEncoderStream);
}

SimulatedEstimator::Truth SimulatedEstimator::truthOf(double t, const State& state) const {
  Truth out;
  const double* x = state.x.data() + x_offset_;
  out.t = t;
  out.r = Vec3(x[0], x[1], x[2]);
  out.R = quaternion_ ? quaternionToRotation(Vec4(x[3], x[4], x[5], x[6]).normalized())
                      : Mat3(Eigen::Map<const Mat3>(x + 3));
  out.rdot = out.R * state.xi.segment<3>(xi_offset_);
  return out;
}

void SimulatedEstimator::poseAt(double t_m, Vec3& r, Mat3& R) const {
  std::size_t i = 0;
  while (i + 2 < truth_.size() && truth_[i + 1].t <= t_m) ++i;
  const Truth& a = truth_[i];
  const Truth& b = truth_.size() > 1 ? truth_[i + 1] : a;
  const double h = b.t - a.t;
  const double s = h > 0.0 ? std::clamp((t_m - a.t) / h, 0.0, 1.0) : 0.0;
  // Cubic Hermite with the end velocities: exact for r up to cubic motion.
  const double s2 = s * s, s3 = s2 * s;
  r = (2 * s3 - 3 * s2 + 1) * a.r + (s3 - 2 * s2 + s) * h * a.rdot + (-2 * s3 + 3 * s2) * b.r +
      (s3 - s2) * h * b.rdot;
  R = a.R * expSO3(s * logSO3(Mat3(a.R.transpose() * b.R)));
}

bool SimulatedEstimator::frame(double t_m) {
  if (t_m < t0_ - kGridSlack) return true;  // shows a time before the start
  Vec3 r;
  Mat3 R;
  poseAt(t_m, r, R);
  addPoseNoise(settings_.noise.position, settings_.noise.attitude, mocap_rng_, r, R);
  if (estimator_.correct(std::max(t_m, t0_), r, R)) return true;
  // Only when the latency exceeds the buffer; the scene loader rejects such settings.
  message_ = "estimator: a motion-capture frame is older than the " +
             std::to_string(StateEstimator::kBufferSteps) +
             " buffered control instants (latency too long for the control rate)";
  return false;
}

bool SimulatedEstimator::update(double t, const State& state, const VecX& applied) {
  const Truth now = truthOf(t, state);
  if (started_ && !(t - truth_.back().t > kGridSlack)) return true;  // the same instant again
  // (5.45) and the encoders.
  const Vec3 gyro =
      misalignment_ * state.xi.segment<3>(xi_offset_ + 3) + drawVec3(settings_.imu.gyro_noise, imu_rng_);
  measured_ = state;
  addMeasurementNoise(plant_, settings_.noise, encoder_rng_, measured_);
  const PerturbationSettings::MotionCapture& mc = settings_.motion_capture;
  if (!started_) {
    started_ = true;
    t0_ = t;
    truth_.clear();
    truth_.push() = now;
    next_frame_ = mc.rate > 0.0 ? static_cast<long>(std::floor(t * mc.rate + kGridSlack)) + 1 : 0;
    estimator_.start(t, measured_, gyro);
    return true;
  }
  const Truth prev = truth_.back();
  const double dt = t - prev.t;
  truth_.push() = now;
  // (5.46) with r̈ the mean over the hold interval, in the axes of the interval's middle.
  const Mat3 R_mid = prev.R * expSO3(0.5 * logSO3(Mat3(prev.R.transpose() * now.R)));
  const Vec3 specific = R_mid.transpose() * ((now.rdot - prev.rdot) / dt - estimator_.gravity());
  const Vec3 accel = misalignment_ * specific + settings_.imu.accel_bias +
                     drawVec3(settings_.imu.accel_noise, imu_rng_);
  if (!estimator_.predict(t, gyro, accel, applied, measured_)) return false;
  // (5.47): the frames that arrived since the last instant.
  bool ok = true;
  if (mc.rate > 0.0) {
    for (; static_cast<double>(next_frame_) / mc.rate <= t + kGridSlack; ++next_frame_)
      ok = frame(static_cast<double>(next_frame_) / mc.rate - mc.latency) && ok;
  } else {
    ok = frame(t - mc.latency);
  }
  return ok;
}

std::vector<ChannelInfo> SimulatedEstimator::channels() {
  std::vector<ChannelInfo> out = {
      {"estimate.position_error", "m", "|r_hat - r|: estimated vs true position of the root joint"},
      {"estimate.attitude_error", "rad", "angle of R^T R_hat: estimated vs true attitude"},
      {"estimate.velocity_error", "m/s", "|v_hat - v| (world): estimated vs true velocity"},
      {"estimate.rate_error", "rad/s", "|omega_hat - omega|: estimated vs true angular velocity"},
  };
  for (const char* axis : {"x", "y", "z"})
    out.push_back({std::string("estimate.force_bias.") + axis, "N",
                   "estimated force bias F_B (5.67), body axes"});
  for (const char* axis : {"x", "y", "z"})
    out.push_back({std::string("estimate.torque_bias.") + axis, "N m",
                   "estimated torque bias tau_B (5.51b), body axes"});
  for (const char* axis : {"x", "y", "z"})
    out.push_back({std::string("estimate.accel_bias.") + axis, "m/s^2",
                   "estimated accelerometer bias a_B (5.60), sensor axes"});
  return out;
}

void SimulatedEstimator::sample(const State& truth, double* out) const {
  if (!started_ || truth.x.size() != plant_.nx) {
    std::fill(out, out + kChannelCount, std::numeric_limits<double>::quiet_NaN());
    return;
  }
  const Truth t = truthOf(0.0, truth), e = truthOf(0.0, estimate());
  out[0] = (e.r - t.r).norm();
  out[1] = rotationAngle(t.R.transpose() * e.R);
  out[2] = (e.rdot - t.rdot).norm();
  out[3] = (estimate().xi.segment<3>(xi_offset_ + 3) - truth.xi.segment<3>(xi_offset_ + 3)).norm();
  for (int i = 0; i < 3; ++i) {
    out[4 + i] = estimator_.forceBias()[i];
    out[7 + i] = estimator_.torqueBias()[i];
    out[10 + i] = estimator_.accelBias()[i];
  }
}

}  // namespace rbs
