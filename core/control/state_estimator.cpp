#include "core/control/state_estimator.h"

#include <Eigen/Cholesky>
#include <algorithm>
#include <cmath>
#include <stdexcept>

#include "core/control/tracking.h"
#include "core/dynamics/kinematics.h"
#include "core/math/se3.h"

namespace rbs {

namespace {

constexpr double kSameTime = 1e-9;  ///< [s] instants closer than this are one (grid rounding)

Vec4 unitQuaternion(const Mat3& R) { return rotationToQuaternion(R).normalized(); }

}  // namespace

std::string StateEstimator::modelError(const Model& model) {
  const int root = baseJointIndex(model);
  if (root >= 0 && isFreeType(model.joints[root].type))
    return {};
  return "the state estimator (thesis 5.4) needs a vehicle whose root joint is free or "
         "free_quaternion; the model's root joint is " +
         (root < 0 ? std::string("missing (no free, planar or spherical joint on the world)")
                   : "'" + model.joints[root].name + "' (" +
                         std::string(jointTypeName(model.joints[root].type)) + ")");
}

StateEstimator::StateEstimator(const Model& model, const Gains& gains)
    : model_(model), gains_(gains), steps_(kBufferSteps), ws_(model) {
  if (std::string e = modelError(model); !e.empty()) throw std::invalid_argument(e);
  root_ = baseJointIndex(model);
  const Joint& joint = model.joints[root_];
  x_offset_ = joint.x_offset;
  xi_offset_ = joint.xi_offset;
  quaternion_ = joint.type == JointType::FreeQuaternion;
  // r and ṙ live in the root joint's parent frame (welded to the world): gravity in its axes.
  computeKinematics(model, model.initial_state.x, model.initial_state.xi, ws_);
  const Pose parent =
      joint.parent >= 0 ? ws_.pose[joint.parent] * joint.parent_placement : joint.parent_placement;
  gravity_ = parent.R.transpose() * model.gravity;
  external_force_.setZero(model.nxi);
  applied_.setZero(model.numInputs());
  force_.setZero(model.nxi);
}

bool StateEstimator::fail(std::string message) {
  message_ = std::move(message);
  return false;
}

void StateEstimator::start(double t, const State& measured, const Vec3& gyro) {
  estimate_ = measured;
  steps_.clear();
  Step& s = steps_.push();
  const double* x = measured.x.data() + x_offset_;
  const Mat3 R = quaternion_ ? quaternionToRotation(Vec4(x[3], x[4], x[5], x[6]).normalized())
                             : Mat3(Eigen::Map<const Mat3>(x + 3));
  s.t = t;
  s.q = unitQuaternion(R);
  s.r = Vec3(x[0], x[1], x[2]);
  s.rdot = R * measured.xi.segment<3>(xi_offset_);
  s.gyro = gyro;
  s.accel.setZero();
  omega_ = measured.xi.segment<3>(xi_offset_ + 3);
  force_bias_.setZero();
  torque_bias_.setZero();
  accel_bias_.setZero();
  external_force_.setZero();
  last_frame_time_ = t;
  dropped_ = 0;
  message_.clear();
  writeRoot();
}

void StateEstimator::propagate(const Step& from, double dt, const Vec3& accel, Step& to) const {
  // (5.56): forward Euler with the stabilizing term λ = 2/T_S (first-order normalization).
  const Vec4& q = from.q;
  to.q = q + dt * 0.5 * quaternionMultiply(q, Vec4(0.0, from.gyro.x(), from.gyro.y(), from.gyro.z())) -
         (q.squaredNorm() - 1.0) * q;
  // (5.59): ZOH of the acceleration a_G + R̂ (a_M − â_B). The sample is the interval's mean in the
  // axes of its middle, so R̂ is taken there (the thesis holds R̂[k] of the interval's start).
  const Mat3 R_mid = quaternionToRotation((q + to.q).normalized());
  const Vec3 a = gravity_ + R_mid * (accel - accel_bias_);
  to.r = from.r + dt * from.rdot + 0.5 * dt * dt * a;
  to.rdot = from.rdot + dt * a;
}

bool StateEstimator::observe(double dt, const Vec3& gyro, const Vec3& accel, const VecX& applied) {
  // The plant terms of the estimator's model at the estimate of the last instant.
  evaluatePlant(model_, estimate_, ws_, plant_);
  for (int i = 0; i < model_.numInputs(); ++i)
    applied_[i] = std::clamp(applied[i], model_.actuators[i].lower, model_.actuators[i].upper);
  force_.noalias() = plant_.B * applied_;
  force_ -= plant_.b;  // f = B u − b: all known generalized forces but inertia
  const int o = xi_offset_;
  const Mat6 M_bb = plant_.M.block<6, 6>(o, o);
  const Vec6 f_b = force_.segment<6>(o);
  Vec6 bias;
  bias << force_bias_, torque_bias_;
  const Eigen::LLT<Mat6> llt(M_bb);
  if (llt.info() != Eigen::Success)
    return fail("state estimator: the base block of the mass matrix is not positive definite");
  const Vec6 xidot = llt.solve(f_b + bias);  // the model's base acceleration with the bias
  const Vec3 v = estimate_.xi.segment<3>(o);
  const Vec3 omega_meas_error = gyro - omega_;
  // (5.51a), (5.51b): prediction with τ + τ̂_B and the gyroscopic terms of b, gyro correction.
  const Vec3 omega_next = omega_ + dt * xidot.tail<3>() + gains_.l_omega * omega_meas_error;
  torque_bias_ += gains_.l_tau * omega_meas_error;
  // (5.66)–(5.67): the accelerometer gives v̇ = a_M − â_B + R̂ᵀ a_G − ω̂ × v̂ (the specific force at
  // the frame origin is v̇ + ω × v − Rᵀ a_G); the force rows of M ξ̇ + b − B u are then what the
  // known forces missed: m(a_M − â_B) + d Rᵀṙ − F for one body (5.66).
  const Mat3 R = quaternionToRotation(steps_.back().q.normalized());
  Vec6 xidot_measured;
  xidot_measured << accel - accel_bias_ + R.transpose() * gravity_ - omega_.cross(v),
      xidot.tail<3>();
  const Vec3 force_residual = (M_bb * xidot_measured - f_b).head<3>();
  force_bias_ = gains_.l_f * force_bias_ + (1.0 - gains_.l_f) * force_residual;
  omega_ = omega_next;
  if (!(omega_.allFinite() && force_bias_.allFinite() && torque_bias_.allFinite()))
    return fail("state estimator: non-finite angular velocity or bias estimate");
  external_force_.segment<3>(o) = force_bias_;
  external_force_.segment<3>(o + 3) = torque_bias_;
  return true;
}

bool StateEstimator::predict(double t, const Vec3& gyro, const Vec3& accel, const VecX& applied,
                             const State& encoders) {
  if (steps_.empty()) return fail("state estimator: predict before start");
  Step& last = steps_.back();
  const double dt = t - last.t;
  if (!(dt > kSameTime)) return true;  // the same instant again: nothing new
  last.accel = accel;
  if (!observe(dt, last.gyro, accel, applied)) return false;
  const Step from = last;  // push() may reuse the oldest slot
  Step& next = steps_.push();
  propagate(from, dt, accel, next);
  next.t = t;
  next.gyro = gyro;
  next.accel.setZero();
  // The other joints: the encoders.
  estimate_.x = encoders.x;
  estimate_.xi = encoders.xi;
  writeRoot();
  if (!(next.q.allFinite() && next.r.allFinite() && next.rdot.allFinite()))
    return fail("state estimator: non-finite pose or velocity estimate");
  return true;
}

bool StateEstimator::correct(double t_m, const Vec3& position, const Mat3& attitude) {
  const std::size_t n = steps_.size();
  if (n == 0 || t_m < steps_[0].t - kSameTime || t_m > steps_.back().t + kSameTime) {
    ++dropped_;
    return false;
  }
  std::size_t j = n - 1;  // the last instant at or before t_m
  while (j > 0 && steps_[j].t > t_m + kSameTime) --j;
  // The estimate at t_m: the buffered one, or predicted into the interval (the thesis'
  // interpolation of r̂(t_VIC)).
  Step at = steps_[j];
  if (t_m > at.t + kSameTime && j + 1 < n) {
    propagate(steps_[j], t_m - steps_[j].t, steps_[j].accel, at);
    at.t = t_m;
  }
  // (5.60) with (5.64): T'_S the actual interval between the measurement times.
  const Vec3 d = position - at.r;
  const double T = at.t - last_frame_time_;
  at.r += gains_.l_r * d;
  if (T > kSameTime) {
    at.rdot += gains_.l_v / T * d;
    accel_bias_ += 2.0 * gains_.l_a / (T * T) * (attitude.transpose() * d);
  }
  Vec4 q = unitQuaternion(attitude);  // the attitude is measured: reset there (5.4.4)
  if (q.dot(at.q) < 0.0) q = -q;      // keep the sign continuous
  at.q = q;
  last_frame_time_ = at.t;
  // Integrate forward to the last instant with the buffered samples (5.56), (5.59).
  if (at.t <= steps_[j].t + kSameTime) {
    steps_[j].q = at.q;
    steps_[j].r = at.r;
    steps_[j].rdot = at.rdot;
  } else {
    propagate(at, steps_[j + 1].t - at.t, steps_[j].accel, steps_[j + 1]);
    ++j;
  }
  for (std::size_t i = j; i + 1 < n; ++i)
    propagate(steps_[i], steps_[i + 1].t - steps_[i].t, steps_[i].accel, steps_[i + 1]);
  writeRoot();
  return true;
}

void StateEstimator::writeRoot() {
  const Step& s = steps_.back();
  const Vec4 q = s.q.normalized();
  const Mat3 R = quaternionToRotation(q);
  double* x = estimate_.x.data() + x_offset_;
  Eigen::Map<Vec3>{x} = s.r;
  if (quaternion_)
    Eigen::Map<Vec4>{x + 3} = q;
  else
    Eigen::Map<Mat3>{x + 3} = R;
  estimate_.xi.segment<3>(xi_offset_) = R.transpose() * s.rdot;
  estimate_.xi.segment<3>(xi_offset_ + 3) = omega_;
}

}  // namespace rbs
