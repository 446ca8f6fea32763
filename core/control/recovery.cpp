// The recovery supervisor (core/control/recovery.h; docs/CONTROL.md "Recovery").
#include "core/control/recovery.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numbers>

#include "core/control/base_coordinates.h"
#include "core/control/base_motion.h"
#include "core/control/reference_steps.h"
#include "core/control/registry.h"
#include "core/control/settings.h"
#include "core/control/tracking.h"
#include "core/dynamics/kinematics.h"

namespace rbs {
namespace {

// Stabilized (Stabilizing → Returning): upright within kStableTilt, tilt rates below
// kStableTiltRate, the spin about the thrust axis below kStableSpin (the tracking template's
// inertia differs from the plant's, and it would fight the gyroscopic exchange of a faster spin),
// climbing or sinking slower than kStableClimb.
constexpr double kStableTilt = 0.2;       // [rad]
constexpr double kStableTiltRate = 1.0;   // [rad/s]
constexpr double kStableSpin = 1.0;       // [rad/s]
constexpr double kStableClimb = 1.0;      // [m/s]
// Returning and Rejoining fall back to Stabilizing beyond this multiple of the entry thresholds.
constexpr double kReentryFactor = 2.0;
// Settled at the hold point (Returning → Rejoining): the manoeuvre is rejoined from rest there.
constexpr double kSettledPosition = 0.1;  // [m]
constexpr double kSettledTilt = 0.1;      // [rad]
constexpr double kSettledSpeed = 0.2;     // [m/s]
constexpr double kSettledRate = 0.5;      // [rad/s]
// The return path: braking from the vehicle's velocity at about kReturnBraking over at least
// kMinBrake, then a cruise to the hold point whose run-up accelerates at about the same.
constexpr double kMinBrake = 0.5;         // [s]
constexpr double kMinRamp = 0.5;          // [s] the cruise's run-up
constexpr double kReturnBraking = 5.0;    // [m/s²]
// The rejoin point (rejoinTime): searched back in steps of kRejoinStep; a run-up is checked at
// kRunUpSamples instants over the ramp and kRunUpAfter beyond.
constexpr double kRejoinStep = 0.25;      // [s]
constexpr int kRunUpSamples = 60;
constexpr double kRunUpAfter = 1.5;       // [s]
constexpr double kRunUpRateMargin = 1.25;
constexpr double kRunUpThrust = 0.6;      // [g]
// Stabilizing: the horizontal velocity is braked with this time constant.
constexpr double kStabilizeBrakingTime = 1.0;  // [s]
constexpr double kYawBraking = 2.0;       // [rad/s²]
constexpr double kYawSpeed = 1.0;         // [rad/s]
/// A degree-9 rest-to-rest move of length D over T peaks at 315/128 D/T.
constexpr double kPeakSpeedFactor = 315.0 / 128.0;


double angleBetween(const Vec3& a, const Vec3& b) { return std::atan2(a.cross(b).norm(), a.dot(b)); }

/// The heading (ZYX yaw) of a rotation, unwrapped to the nearest of `near`.
double unwrapNear(double angle, double near) {
  return near + std::remainder(angle - near, 2.0 * std::numbers::pi);
}

/// A planned move of a few coordinates from (value, rate) to rest at `goal` starting at t: first to
/// rest at about `braking` (the degree-9 move from (q, q̇) to rest at q + q̇ T_b / 2 has the rate
/// q̇ (1 − s(τ)) and decelerates at most at 315/128 |q̇| / T_b), then from rest to the goal
/// along the straight line, cruising at `speed` (traj::CruisePath) with run-ups at about `braking`. An angle's goal (`angle`, one coordinate) is taken nearest to where braking ends.
struct Move {
  std::shared_ptr<const traj::Path> path;
  std::vector<double> goal;
  double duration = 0.0;
};

Move brakeThenMove(const std::vector<double>& value, const std::vector<double>& rate, std::vector<double> goal, bool angle,
                   double t, double braking, double speed) {
  double rate_norm = 0.0;
  for (double r : rate) rate_norm += r * r;
  const double T_b = std::max(kMinBrake, kPeakSpeedFactor * std::sqrt(rate_norm) / braking);
  std::vector<traj::Jet> start, stop;
  std::vector<double> stopped(value.size());
  for (std::size_t i = 0; i < value.size(); ++i) {
    stopped[i] = value[i] + 0.5 * T_b * rate[i];
    if (angle) goal[i] = unwrapNear(goal[i], stopped[i]);
    start.push_back(traj::Jet{value[i], rate[i], 0, 0, 0});
    stop.push_back(traj::constantJet(stopped[i]));
  }
  const double ramp = std::max(kMinRamp, kPeakSpeedFactor * speed / braking);
  auto cruise = std::make_shared<traj::CruisePath>(stopped, goal, t + T_b, speed, ramp);
  Move move;
  move.duration = T_b + cruise->duration();
  move.path = std::make_shared<traj::PathSequence>(
      std::vector<double>{t, t + T_b},
      std::vector<std::shared_ptr<const traj::Path>>{std::make_shared<traj::HermitePath>(start, stop, t, T_b),
                                                      std::move(cruise)});
  move.goal = std::move(goal);
  return move;
}

}  // namespace

std::string_view toString(RecoveryPhase phase) {
  switch (phase) {
    case RecoveryPhase::Tracking: return "tracking";
    case RecoveryPhase::Stabilizing: return "stabilizing";
    case RecoveryPhase::Returning: return "returning";
    case RecoveryPhase::Rejoining: return "rejoining";
  }
  return "unknown";
}

Recovery::Recovery(const Model& model, ParameterSet& parameters, RejoinHeading heading)
    : model_(model), heading_(heading), parameters_(parameters), ws_(model), ws_ref_(model) {
  base_joint_ = baseJointIndex(model);
  if (base_joint_ < 0 || !isFreeType(model.joints[base_joint_].type) || model.joints[base_joint_].parent >= 0)
    throw ControlError("recovery needs a vehicle on a free or free_quaternion root joint");
  base_body_ = model.joints[base_joint_].child;
  position_threshold_ = parameters.add({"recovery_position", "m",
                                        "recovery: leave the manoeuvre when the base is this far from its reference",
                                        1.0, 0.01, 100.0, ParameterScale::Log});
  tilt_threshold_ = parameters.add({"recovery_tilt", "rad",
                                    "recovery: leave the manoeuvre when the thrust axis is this far off its reference",
                                    0.6, 0.05, std::numbers::pi, ParameterScale::Linear});
  rate_threshold_ = parameters.add({"recovery_rate", "rad/s",
                                    "recovery: leave the manoeuvre when the angular velocity error exceeds this",
                                    6.0, 0.1, 1000.0, ParameterScale::Log});
  return_speed_ = parameters.add({"return_speed", "m/s", "recovery: the largest speed of the way back to the manoeuvre",
                                  5.0, 0.05, 20.0, ParameterScale::Log});
  rejoin_ramp_ = parameters.add({"rejoin_ramp", "s", "recovery: the manoeuvre's run-up from rest when it is rejoined",
                                 2.0, 0.1, 60.0, ParameterScale::Log});
}

RejoinHeading Recovery::headingOption(const ControllerSettings& settings) {
  // Validated with recovery off too (so a scene that switches it off keeps a correct file), used
  // only with it on.
  return controllerOption(settings, "rejoin_heading", "vehicle", {"vehicle", "manoeuvre"}) == "manoeuvre"
             ? RejoinHeading::Manoeuvre
             : RejoinHeading::Vehicle;
}

void Recovery::attach(const Reference& manoeuvre, ReferenceFactory factory) {
  // A manoeuvre that cannot be retimed (ControlError from the factory) is refused now, at load,
  // not at the first push.
  ReferenceRetiming probe;
  probe.ramp = std::numeric_limits<double>::infinity();
  factory(probe)->sample(0.0, sample_);
  manoeuvre_ = &manoeuvre;
  factory_ = std::move(factory);
  reset();
}

void Recovery::reset() {
  phase_ = RecoveryPhase::Tracking;
  retimed_.reset();
  clock_.reset();
  phase_reference_.reset();
}

const Reference& Recovery::reference() const {
  if (phase_reference_) return *phase_reference_;
  if (retimed_) return *retimed_;
  return *manoeuvre_;
}

double Recovery::manoeuvreTime(double t) const {
  if (phase_ == RecoveryPhase::Stabilizing || phase_ == RecoveryPhase::Returning) return tau_hold_;
  return clock_ ? clock_->at(t)[0] : t;
}

double Recovery::delay(double t) const { return t - manoeuvreTime(t); }

Recovery::Errors Recovery::errors(double t, const State& state) {
  computeKinematics(model_, state.x, state.xi, ws_);
  reference().sample(t, sample_);
  computeKinematics(model_, sample_.x, sample_.xi, ws_ref_);
  const Pose& G = ws_.pose[base_body_];
  const Pose& G_R = ws_ref_.pose[base_body_];
  const Vec6& V = ws_.twist[base_body_];
  const Vec6& V_R = ws_ref_.twist[base_body_];
  Errors e;
  e.position = (G.r - G_R.r).norm();
  e.tilt = angleBetween(G.R.col(2), G_R.R.col(2));
  const Mat3 R_E = G_R.R.transpose() * G.R;
  e.rate = (V.tail<3>() - R_E.transpose() * V_R.tail<3>()).norm();
  e.speed = (G.R * V.head<3>() - G_R.R * V_R.head<3>()).norm();
  return e;
}

void Recovery::holdPose(double t, double tau, double yaw, ReferenceSample& out) {
  ReferenceRetiming hold;
  hold.t_start = t;
  hold.tau_start = tau;
  hold.ramp = std::numeric_limits<double>::infinity();  // the clock never starts: at rest at τ
  hold.yaw = yaw;
  factory_(hold)->sample(t, out);
}

double Recovery::holdYaw(double tau, double vehicle_yaw) {
  if (heading_ == RejoinHeading::Vehicle) return vehicle_yaw;
  manoeuvre_->sample(tau, sample_);
  computeKinematics(model_, sample_.x, sample_.xi, ws_ref_);
  return eulerZYXFromRotation(ws_ref_.pose[base_body_].R)(2);
}

bool Recovery::supervise(double t, const State& state) {
  if (!manoeuvre_) return false;
  // The parameters (sliders) take effect at supervision instants: read them all here.
  const ParameterSet& p = parameters_;
  settings_ = Settings{p[position_threshold_], p[tilt_threshold_], p[rate_threshold_], p[return_speed_], p[rejoin_ramp_]};
  const Errors e = errors(t, state);
  const bool beyond = e.position > settings_.position || e.tilt > settings_.tilt || e.rate > settings_.rate;
  // Back to stabilizing from the way back only beyond kReentryFactor times the thresholds: the
  // switch of template and reference itself makes transients (with actuator dynamics, e.g. the
  // propeller model's speed filter) that must not throw the vehicle from one phase to the other.
  const bool far_beyond = e.position > kReentryFactor * settings_.position || e.tilt > kReentryFactor * settings_.tilt ||
                          e.rate > kReentryFactor * settings_.rate;
  switch (phase_) {
    case RecoveryPhase::Tracking:
      if (!beyond) return false;
      stabilize(t, true);
      return true;
    case RecoveryPhase::Rejoining:
      if (far_beyond) {
        stabilize(t, true);
        return true;
      }
      if (t < phase_end_) return false;
      phase_ = RecoveryPhase::Tracking;  // the clock runs at the manoeuvre's pace
      return true;
    case RecoveryPhase::Stabilizing: {
      const Vec3 w = ws_.twist[base_body_].tail<3>();
      const Vec3 v = ws_.pose[base_body_].R * ws_.twist[base_body_].head<3>();
      if (e.tilt < kStableTilt && w.head<2>().norm() < kStableTiltRate && std::abs(w.z()) < kStableSpin &&
          std::abs(v.z()) < kStableClimb) {
        startReturn(t, state);
      } else {
        stabilize(t, false);  // the reference rides along: a new anchor
      }
      return true;
    }
    case RecoveryPhase::Returning:
      if (far_beyond) {
        stabilize(t, true);
        return true;
      }
      if (t < phase_end_ || e.position > kSettledPosition || e.tilt > kSettledTilt || e.speed > kSettledSpeed ||
          e.rate > kSettledRate)
        return false;
      startRejoin(t);
      return true;
  }
  return false;
}

void Recovery::stabilize(double t, bool entering) {
  // ws_ holds the state's kinematics (errors() ran at this instant).
  const Pose& G = ws_.pose[base_body_];
  const Vec3 v = G.R * ws_.twist[base_body_].head<3>();
  const double yaw = eulerZYXFromRotation(G.R)(2);
  if (entering) {
    tau_hold_ = manoeuvreTime(t);
    altitude_hold_ = G.r.z();
    holdPose(t, tau_hold_, holdYaw(tau_hold_, yaw), hold_);  // the other joints hold the manoeuvre's pose there
  }
  phase_ = RecoveryPhase::Stabilizing;
  spin_ = std::abs(ws_.twist[base_body_](5));
  // The reference rides along horizontally (nothing pulls sideways) and brakes the horizontal
  // velocity v_h at a = −v_h / kStabilizeBrakingTime, at most kReturnBraking: its flat attitude
  // tilts the thrust against the velocity. It holds the altitude. Anchored anew at every
  // supervision instant, so the acceleration is constant in between: the polynomial through the
  // constant-acceleration jets at both ends of [t, t + 1] is that parabola.
  Vec3 a(-v.x(), -v.y(), 0.0);
  a /= kStabilizeBrakingTime;
  if (a.norm() > kReturnBraking) a *= kReturnBraking / a.norm();
  const Vec3 r0(G.r.x(), G.r.y(), altitude_hold_), v0(v.x(), v.y(), 0.0);
  const Vec3 r1 = r0 + v0 + 0.5 * a, v1 = v0 + a;
  std::vector<traj::Jet> start, end;
  for (int i = 0; i < 3; ++i) {
    start.push_back(traj::Jet{r0(i), v0(i), a(i), 0, 0});
    end.push_back(traj::Jet{r1(i), v1(i), a(i), 0, 0});
  }
  setFlatReference(std::make_shared<traj::HermitePath>(start, end, t, 1.0),
                   std::make_shared<traj::ConstantPath>(std::vector<double>{yaw}));
}

ComposedReference& Recovery::setFlatReference(std::shared_ptr<const traj::Path> position, std::shared_ptr<const traj::Path> yaw) {
  ThrustAxis axis(BasePosition(std::move(position), Vec3::Zero()), model_.gravity, 0.0);
  auto motion = std::make_shared<FlatBodyMotion>(axis, std::make_shared<YawHeading>(std::move(yaw)), Vec3::Zero());
  const Joint& joint = model_.joints[base_joint_];
  auto reference = std::make_unique<ComposedReference>(hold_.x, model_.nxi);
  reference->add(std::make_unique<BaseJointStep>(
      joint, std::make_unique<SpatialBaseCoordinates>(joint, joint.parent_placement, std::move(motion))));
  ComposedReference& composed = *reference;
  phase_reference_ = std::move(reference);
  return composed;
}

Recovery::RunUp Recovery::runUp(const Reference& reference, double t0, double t1) {
  RunUp r;
  r.min_thrust = std::numeric_limits<double>::infinity();
  for (int i = 0; i <= kRunUpSamples; ++i) {
    reference.sample(t0 + (t1 - t0) * i / kRunUpSamples, sample_);
    computeKinematics(model_, sample_.x, sample_.xi, ws_ref_);
    const Pose& G = ws_ref_.pose[base_body_];
    const Vec6& V = ws_ref_.twist[base_body_];
    // The base joint is free: its ξ is the base body's twist (v, ω) in body axes, so the world
    // acceleration of the body origin is R (v̇ + ω × v).
    const Joint& joint = model_.joints[base_joint_];
    const Vec3 v_dot = sample_.xidot.segment<3>(joint.xi_offset);
    const Vec3 a = G.R * (v_dot + V.tail<3>().cross(V.head<3>()));
    r.max_rate = std::max(r.max_rate, V.tail<3>().norm());
    r.min_thrust = std::min(r.min_thrust, (a - model_.gravity).norm());
  }
  return r;
}

double Recovery::rejoinTime(double tau, double yaw) {
  // The manoeuvre rejoined from rest at τ must not ask more than the manoeuvre itself asks there:
  // a looping restarted from rest half-way up would pass its top too slowly, where the flat
  // attitude turns over at vanishing thrust (|r̈ − a_G| → 0). Candidates τ, τ − kRejoinStep, …, 0;
  // the first whose run-up (the ramp and kRunUpAfter beyond) keeps |ω_R| within the manoeuvre's
  // own over the same stretch (× kRunUpRateMargin, + 1 rad/s) and |r̈_R − a_G| above
  // min(kRunUpThrust g, 0.9 × the manoeuvre's own) is taken; 0 (the start) otherwise.
  const double ramp = settings_.rejoin_ramp;
  const double g = model_.gravity.norm();
  for (double candidate = tau; candidate > 0.0; candidate -= kRejoinStep) {
    const RunUp own = runUp(*manoeuvre_, candidate, candidate + ramp / 2.0 + kRunUpAfter);
    ReferenceRetiming retiming;
    retiming.t_start = 0.0;
    retiming.tau_start = candidate;
    retiming.ramp = ramp;
    retiming.yaw = holdYaw(candidate, yaw);
    const RunUp rejoin = runUp(*factory_(retiming), 0.0, ramp + kRunUpAfter);
    if (rejoin.max_rate <= kRunUpRateMargin * own.max_rate + 1.0 &&
        rejoin.min_thrust >= std::min(kRunUpThrust * g, 0.9 * own.min_thrust))
      return candidate;
  }
  return 0.0;
}

void Recovery::startReturn(double t, const State& state) {
  const Pose G = ws_.pose[base_body_];
  const Vec3 v = G.R * ws_.twist[base_body_].head<3>();
  const Vec3 w_world = G.R * ws_.twist[base_body_].tail<3>();
  const double yaw = eulerZYXFromRotation(G.R)(2);
  // The manoeuvre at rest at τ_h; an integrated heading starts there from the hold heading.
  tau_hold_ = rejoinTime(tau_hold_, yaw);
  holdPose(t, tau_hold_, holdYaw(tau_hold_, yaw), hold_);
  computeKinematics(model_, hold_.x, hold_.xi, ws_ref_);
  const Pose& H = ws_ref_.pose[base_body_];
  const Move position = brakeThenMove({G.r.x(), G.r.y(), G.r.z()}, {v.x(), v.y(), v.z()}, {H.r.x(), H.r.y(), H.r.z()},
                                      false, t, kReturnBraking, settings_.return_speed);
  const Move heading = brakeThenMove({yaw}, {w_world.z()}, {eulerZYXFromRotation(H.R)(2)}, true, t, kYawBraking, kYawSpeed);
  hold_yaw_ = heading.goal[0];
  const double T = std::max(position.duration, heading.duration);
  ComposedReference& reference = setFlatReference(position.path, heading.path);
  // The other scalar joints move from where they are to the hold pose along the same time.
  auto joints = std::make_unique<ScalarJointPaths>();
  std::vector<traj::Jet> q_start, q_end;
  for (const Joint& j : model_.joints) {
    if (!hasScalarPosition(j.type)) continue;
    joints->joints.push_back(j);
    q_start.push_back(traj::Jet{jointScalarPosition(j, state.x.data() + j.x_offset), state.xi(j.xi_offset), 0, 0, 0});
    q_end.push_back(traj::constantJet(jointScalarPosition(j, hold_.x.data() + j.x_offset)));
  }
  if (!q_start.empty()) {
    joints->path = std::make_unique<traj::HermitePath>(q_start, q_end, t, T);
    reference.add(std::move(joints));
  }
  phase_end_ = t + T;
  phase_ = RecoveryPhase::Returning;
}

void Recovery::startRejoin(double t) {
  ReferenceRetiming retiming;
  retiming.t_start = t;
  retiming.tau_start = tau_hold_;
  retiming.ramp = settings_.rejoin_ramp;
  retiming.yaw = hold_yaw_;
  const Joint& joint = model_.joints[base_joint_];
  retiming.base_coordinates = hold_.x.segment(joint.x_offset, joint.nx);
  retimed_ = factory_(retiming);
  clock_.emplace(t, tau_hold_, retiming.ramp);
  phase_reference_.reset();
  phase_end_ = t + retiming.ramp;
  phase_ = RecoveryPhase::Rejoining;
}

}  // namespace rbs
