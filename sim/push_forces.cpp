#include "sim/push_forces.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numbers>

#include <Eigen/Eigenvalues>

#include "core/math/assert.h"

namespace rbs {
namespace {

/// An actuator bound at or beyond this is "no bound" (the model's default is ±1e300).
constexpr double kUnbounded = 1e299;

/// v scaled down to length at most `limit`.
Vec3 capped(const Vec3& v, double limit) {
  const double n = v.norm();
  return n > limit ? Vec3(v * (limit / n)) : v;
}

}  // namespace

PushForces::PushForces(const Model& model)
    : pushes_(model.pushes),
      composite_mass_(model.bodies.size(), 0.0),
      composite_inertia_(model.bodies.size(), 0.0),
      composite_inertia_body_(model.bodies.size(), Mat3::Zero()),
      limits_(model.bodies.size()),
      generalized_(VecX::Zero(model.nxi)) {
  latched_.reserve(pushes_.size());
  for (const Push& p : pushes_) {
    boundaries_.push_back(p.t_start);
    boundaries_.push_back(p.t_end());
  }
  std::sort(boundaries_.begin(), boundaries_.end());
  wrenches_.reserve(pushes_.size() + 1);
  // Composite mass and inertia of every body's subtree at the initial state: first the centre of
  // mass, then Σ R I_c Rᵀ + m (|d|² 1 − d dᵀ) about it (parallel axes).
  Workspace ws(model);
  computeKinematics(model, model.initial_state.x, VecX::Zero(model.nxi), ws);
  const int n = model.numBodies();
  auto carries = [&](int b, int d) {  // d is b or a descendant of b
    for (int k = d; k >= 0; k = model.joints[k].parent)
      if (k == b) return true;
    return false;
  };
  for (int b = 0; b < n; ++b) {
    double m = 0.0;
    Vec3 mc = Vec3::Zero();
    for (int d = b; d < n; ++d) {  // topological order: descendants come after b
      if (!carries(b, d)) continue;
      const Body& body = model.bodies[d];
      m += body.mass;
      mc += body.mass * (ws.pose[d].R * body.com + ws.pose[d].r);
    }
    const Vec3 c = m > 0.0 ? Vec3(mc / m) : Vec3(ws.pose[b].r);
    Mat3 I = Mat3::Zero();
    for (int d = b; d < n; ++d) {
      if (!carries(b, d)) continue;
      const Body& body = model.bodies[d];
      const Mat3& R = ws.pose[d].R;
      const Vec3 r = R * body.com + ws.pose[d].r - c;
      I += R * body.inertia_com * R.transpose() + body.mass * (r.squaredNorm() * Mat3::Identity() - r * r.transpose());
    }
    composite_mass_[b] = m;
    composite_inertia_[b] = Eigen::SelfAdjointEigenSolver<Mat3>(I, Eigen::EigenvaluesOnly).eigenvalues()(2);
    composite_inertia_body_[b] = ws.pose[b].R.transpose() * I * ws.pose[b].R;
    PushLimits& limit = limits_[b];
    const double g = model.gravity.norm();
    limit.force = m * (g > 0.0 ? g : kMaxAcceleration);
    // The torque per unit input of each bounded actuator on the body or what it carries, about
    // the composite centre of mass c (world axes); per body axis the most the inputs can add up to.
    // On the way, the thrust the body carries: bounded body forces and propellers at top speed.
    Vec3 most = Vec3::Zero();
    double joint_effort = 0.0, thrust = 0.0;
    auto addInput = [&](const Vec3& torque_per_unit, double lower, double upper) {
      for (int k = 0; k < 3; ++k) {
        const double per_unit = ws.pose[b].R.col(k).dot(torque_per_unit);
        most(k) += std::max({0.0, per_unit * lower, per_unit * upper});
      }
    };
    for (const Actuator& a : model.actuators) {
      if (a.kind == ActuatorKind::BodyForce && std::abs(a.upper) < kUnbounded && carries(b, a.body))
        thrust += std::max(0.0, a.upper);
      if (!(std::abs(a.lower) < kUnbounded && std::abs(a.upper) < kUnbounded)) continue;
      if (a.kind == ActuatorKind::JointEffort && a.joint >= 0 && model.joints[a.joint].child == b) {
        joint_effort = std::max(joint_effort, std::abs(a.gain) * std::max(std::abs(a.lower), std::abs(a.upper)));
        continue;
      }
      if ((a.kind != ActuatorKind::BodyForce && a.kind != ActuatorKind::BodyTorque) || !carries(b, a.body)) continue;
      const Pose& G = ws.pose[a.body];
      const Vec3 f = G.R * a.unit_wrench.head<3>();
      addInput(G.R * a.unit_wrench.tail<3>() + (G.r - c).cross(f), a.lower, a.upper);  // unit_wrench is about the body origin
    }
    // Propellers likewise: the thrust κ_F ϖ² along the spin axis at the rotor's origin, ϖ between
    // its speed limits.
    for (const Propeller& p : model.propellers) {
      const int rotor = model.joints[p.joint].child;
      if (!(p.max_speed < kUnbounded) || !carries(b, rotor)) continue;
      const Pose& G = ws.pose[rotor];
      const double upper = p.thrust_coefficient * p.max_speed * p.max_speed;
      addInput((G.r - c).cross(G.R * p.thrust_direction), p.thrust_coefficient * p.min_speed * p.min_speed, upper);
      thrust += upper;
    }
    // A joint's effort counts half: it must hold against the twist while the push lasts, and at its
    // full effort there is no margin left to bring the body back (robot_arm_6r's 0.6 kg flange,
    // tau6 ≤ 10 N m, twisted about the world z axis for 1 s: 5 N m and 7 N m recover after
    // spinning it to 550 and 960 rad/s, 10 N m diverges at 8 000 rad/s).
    limit.torque = std::max(most.maxCoeff(), kJointEffortShare * joint_effort);
    limit.torque_from_joint = kJointEffortShare * joint_effort > most.maxCoeff();
    limit.torque_from_actuators = limit.torque > 0.0;
    if (!limit.torque_from_actuators) limit.torque = kMaxAngularAcceleration * composite_inertia_[b];
    if (thrust > 0.0 && g > 0.0) {
      const double weight = m * g;
      limit.spare_share = std::clamp((thrust - weight) / (2.0 * weight), kMinSpareShare, 1.0);
      limit.force *= limit.spare_share;
      limit.torque *= limit.spare_share;
      limit.twist_duration = kTwistDuration;
    }
    limit.force_capped = model.mouse_caps.pull < limit.force;
    limit.torque_capped = model.mouse_caps.twist < limit.torque;
    limit.force = std::min(limit.force, model.mouse_caps.pull);
    limit.torque = std::min(limit.torque, model.mouse_caps.twist);
  }
}

void PushForces::latch(double t, double tolerance) {
  latched_.clear();
  for (std::size_t k = 0; k < pushes_.size(); ++k)
    if (pushes_[k].t_start <= t + tolerance && t + tolerance < pushes_[k].t_end()) latched_.push_back(static_cast<int>(k));
}

void PushForces::restart(double t0, double tolerance) {
  next_boundary_ = 0;
  passBoundaries(t0, tolerance);
}

double PushForces::nextBoundary() const {
  return next_boundary_ < boundaries_.size() ? boundaries_[next_boundary_] : std::numeric_limits<double>::infinity();
}

void PushForces::passBoundaries(double t, double tolerance) {
  while (next_boundary_ < boundaries_.size() && boundaries_[next_boundary_] <= t + tolerance) ++next_boundary_;
  latch(t, tolerance);
}

void PushForces::setSpring(const std::optional<SpringPush>& spring, double t) {
  const int n = static_cast<int>(composite_mass_.size());
  RBS_ASSERT(!spring || (spring->body >= 0 && spring->body < n && spring->anchor_body >= -1 && spring->anchor_body < n),
             "spring on (or anchored to) a body the model does not have");
  if (spring && (!spring_ || spring_->body != spring->body || spring_->mode != spring->mode)) grabbed_at_ = t;
  spring_ = spring;
}

double PushForces::twistShare(double t) const {
  const double duration = limits_[spring_->body].twist_duration;
  if (spring_->harder || !std::isfinite(duration)) return 1.0;
  const double since = t - grabbed_at_, full = duration * (kTwistFullFor / kTwistDuration);
  return std::clamp((duration - since) / (duration - full), 0.0, 1.0);
}

void PushForces::clearTotals() {
  force_.setZero();
  torque_.setZero();
  power_ = 0.0;
}

void PushForces::clear() {
  spring_.reset();
  latched_.clear();
  next_boundary_ = 0;
  clearTotals();
}

AppliedWrench PushForces::springWrench(const Model& model, double t, const Workspace& ws) const {
  const SpringPush& s = *spring_;
  AppliedWrench w{s.body, s.point, Vec3::Zero(), Vec3::Zero()};
  const double omega = 2.0 * std::numbers::pi * kSpringFrequency;  // critically damped: 2ζω = 2ω
  const Pose& G = ws.pose[s.body];
  const Vec6& eta = ws.twist[s.body];  // [v; ω] in body coordinates
  // the anchor: its centre of mass, that point's velocity, its attitude and angular velocity
  Vec3 anchor = Vec3::Zero(), anchor_velocity = Vec3::Zero(), anchor_rate = Vec3::Zero();
  Mat3 anchor_attitude = Mat3::Identity();
  if (s.anchor_body >= 0) {
    const Pose& A = ws.pose[s.anchor_body];
    const Vec6& eta_a = ws.twist[s.anchor_body];
    const Vec3& com = model.bodies[s.anchor_body].com;
    anchor = A.R * com + A.r;
    anchor_velocity = A.R * (eta_a.head<3>() + eta_a.tail<3>().cross(com));
    anchor_attitude = A.R;
    anchor_rate = A.R * eta_a.tail<3>();
  }
  if (s.mode == SpringPush::Mode::Force) {
    const double m = composite_mass_[s.body];
    const Vec3 p = G.R * s.point + G.r;
    const Vec3 v = G.R * (eta.head<3>() + eta.tail<3>().cross(s.point));
    w.force = capped(m * (omega * omega * (anchor + s.target - p) - 2.0 * omega * (v - anchor_velocity)),
                     limits_[s.body].force * (s.harder ? kHarderFactor : 1.0));
  } else {
    // the attitude error as a world rotation vector: R_target Rᵀ = exp(wed(e)); the inertia
    // tensor turned with the body, so that every axis is critically damped
    const Vec3 e = logSO3(expSO3(s.rotation) * anchor_attitude * s.grab_attitude * G.R.transpose());
    const Vec3 rate = G.R * eta.tail<3>() - anchor_rate;
    const Mat3 I = G.R * composite_inertia_body_[s.body] * G.R.transpose();
    w.torque = capped(I * (omega * omega * e - 2.0 * omega * rate),
                      limits_[s.body].torque * (s.harder ? kHarderFactor : 1.0) * twistShare(t));
  }
  return w;
}

void PushForces::collect(const Model& model, double t, const Workspace& ws) {
  wrenches_.clear();
  for (int k : latched_) {
    const Push& p = pushes_[k];
    wrenches_.push_back({p.body, p.point, p.force, p.torque});
  }
  if (spring_) wrenches_.push_back(springWrench(model, t, ws));
}

void PushForces::apply(const Model& model, double t, const VecX& xi, Workspace& ws) {
  collect(model, t, ws);
  force_.setZero();
  torque_.setZero();
  for (const AppliedWrench& w : wrenches_) {
    force_ += w.force;
    torque_ += w.torque;
  }
  computeAppliedForces(model, wrenches_.data(), static_cast<int>(wrenches_.size()), ws, generalized_);
  ws.input_forces += generalized_;
  power_ = xi.dot(generalized_);
}

const std::vector<AppliedWrench>* PushForces::wrenchesAt(const Model& model, double t, const State& state,
                                                        Workspace& ws) {
  if (!active()) return nullptr;
  computeKinematics(model, state.x, state.xi, ws);
  collect(model, t, ws);
  return &wrenches_;
}

DynamicsStatus computeForwardDynamicsWithPushes(const Model& model, double t, const State& state, const VecX& u,
                                                Workspace& ws, double stabilization_gain, PushForces* pushes) {
  if (!pushes || !pushes->active()) return computeForwardDynamics(model, state.x, state.xi, u, ws, stabilization_gain);
  const DynamicsStatus s = computeDynamicsTerms(model, state.x, state.xi, u, ws, stabilization_gain);
  if (s != DynamicsStatus::Ok) return s;
  pushes->apply(model, t, state.xi, ws);
  return solveAccelerations(model, state.x, state.xi, ws);
}

}  // namespace rbs
