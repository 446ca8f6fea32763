// Base motions of a reference (core/control/base_motion.h).
#include "core/control/base_motion.h"

#include <algorithm>

#include "core/math/time_grid.h"

namespace rbs {

using traj::Jet;

void BasePosition::jets(double t, Jet y[3]) const {
  const int from_path = path_ ? std::min(path_->dim(), 3) : 0;
  if (from_path == 3) {
    path_->jets(t, y);
  } else if (from_path > 0) {
    Jet all[3];
    path_->jets(t, all);  // dim() < 3 here
    std::copy(all, all + from_path, y);
  }
  for (int i = from_path; i < 3; ++i) y[i] = traj::constantJet(fixed_(i));
}

// ---- attitude laws ------------------------------------------------------------------------------

flat::AttitudeJet FixedAttitude::at(double) const {
  flat::AttitudeJet att;
  att.R = R_;
  return att;
}

flat::AttitudeJet HeadingAttitude::at(double t) const {
  const Jet psi = heading_->component(t, 0);
  flat::AttitudeJet att;
  att.R = axisAngleRotation(Vec3::UnitZ(), psi[0]);
  att.omega = Vec3(0.0, 0.0, psi[1]);
  att.omega_dot = Vec3(0.0, 0.0, psi[2]);
  return att;
}

flat::AttitudeJet CircleFollowingAttitude::at(double t) const {
  const Jet phi = arc_angle_->component(t, 0);
  flat::AttitudeJet att;
  att.R = axisAngleRotation(normal_, phi[0] - phi0_) * R0_;
  const Vec3 n_body = att.R.transpose() * normal_;
  att.omega = n_body * phi[1];
  att.omega_dot = n_body * phi[2];
  return att;
}

Jet CircleFollowingAngle::component(double t, int) const {
  const Jet phi = arc_angle_->component(t, 0);
  return Jet{theta0_ + phi[0] - phi0_, phi[1], phi[2], phi[3], phi[4]};
}

// ---- flat attitudes -----------------------------------------------------------------------------

flat::Vec3Jet ThrustAxis::fromJets(const Jet y[3]) const {
  return flat::thrustDirection(y, gravity_, drag_per_mass_);
}

flat::Vec3Jet ThrustAxis::at(double t) const {
  Jet y[3];
  position_.jets(t, y);
  return fromJets(y);
}

flat::AttitudeJet YawHeading::attitude(double t, const flat::Vec3Jet& z) const {
  return flat::attitudeFromYaw(z, yaw_->component(t, 0));
}

IntegratedHeading::IntegratedHeading(ThrustAxis axis, double yaw_rate, double initial_yaw, double epoch,
                                     std::optional<traj::ManoeuvreClock> clock)
    : axis_(std::move(axis)), yaw_rate_(yaw_rate), initial_yaw_(initial_yaw), epoch_(epoch), clock_(std::move(clock)) {
  constexpr double h = KnotTable<Knot>::kStep;
  table_.reset(
      [this] {
        const flat::Vec3Jet z = axis_.at(epoch_);
        return Knot{Vec3(flat::attitudeFromYaw(z, traj::constantJet(initial_yaw_)).R.col(0)), z};
      },
      [this](const Knot& knot, long from, long to) {
        const double t1 = epoch_ + to * h;
        const flat::Vec3Jet z = axis_.at(t1);
        const Vec3 next = integrate(knot.x, epoch_ + from * h, t1, knot.z, z);
        return Knot{Vec3((next - next.dot(z.v) * z.v).normalized()), z};  // back onto z⊥, unit length
      });
}

Vec3 IntegratedHeading::integrate(Vec3 x, double t0, double t1, const flat::Vec3Jet& z_start,
                                  const flat::Vec3Jet& z_end) const {
  // RK4 on ẋ = ω_z y − ω_y z (5.70); z, ż from the path. Steps of at most 2 ms (one between
  // neighbouring knots, so a sample costs one step): local error ~(|ω| h)⁵/120 ≲ 1e-12 at the
  // looping's rates. The path is evaluated once per distinct time (k2 and k3 share the midpoint;
  // a step's end is the next one's start; the ends come with the call): the flat jets are the
  // expensive part.
  constexpr double kMaxStep = 0.002;
  // stepCount: the knot times k·h carry rounding that grows with t (one step between knots must
  // stay one step at 24 h, where 47 % of the spans exceeded 2 ms by more than 1e-9 of it).
  const int substeps = std::max(1, static_cast<int>(stepCount(t0, t1, kMaxStep)));
  const double dt = (t1 - t0) / substeps;
  auto rate = [this](double t, const flat::Vec3Jet& z, const Vec3& xa) {
    return flat::headingRate(xa, z.v, z.d1, yawRate(t).first);
  };
  flat::Vec3Jet z_a = z_start;
  for (int s = 0; s < substeps; ++s) {
    const double ta = t0 + s * dt;
    const flat::Vec3Jet z_m = axis_.at(ta + 0.5 * dt);
    const flat::Vec3Jet z_b = s + 1 == substeps ? z_end : axis_.at(ta + dt);
    const Vec3 k1 = rate(ta, z_a, x);
    const Vec3 k2 = rate(ta + 0.5 * dt, z_m, x + 0.5 * dt * k1);
    const Vec3 k3 = rate(ta + 0.5 * dt, z_m, x + 0.5 * dt * k2);
    const Vec3 k4 = rate(ta + dt, z_b, x + dt * k3);
    x += dt / 6.0 * (k1 + 2.0 * k2 + 2.0 * k3 + k4);
    z_a = z_b;
  }
  return x;
}

flat::AttitudeJet IntegratedHeading::attitude(double t, const flat::Vec3Jet& z) const {
  long knot = 0;
  const Knot k = table_.at(t - epoch_, knot);
  const Vec3 x = integrate(k.x, epoch_ + knot * KnotTable<Knot>::kStep, t, k.z, z);
  const auto [omega_z, omega_z_dot] = yawRate(t);
  return flat::attitudeFromAxis(z, x, omega_z, omega_z_dot);
}

std::pair<double, double> IntegratedHeading::yawRate(double t) const {
  if (!clock_ || yaw_rate_ == 0.0) return {yaw_rate_, 0.0};
  const traj::Jet tau = clock_->at(t);
  return {yaw_rate_ * tau[1], yaw_rate_ * tau[2]};
}

// ---- base motions -------------------------------------------------------------------------------

BodyMotion PrescribedBodyMotion::at(double t) const {
  Jet y[3];
  position_.jets(t, y);
  const flat::AttitudeJet att = attitude_->at(t);
  Vec3 r(y[0][0], y[1][0], y[2][0]);
  Vec3 r_dot(y[0][1], y[1][1], y[2][1]);
  Vec3 r_ddot(y[0][2], y[1][2], y[2][2]);
  if (load_) load_->baseFromLoad(y, att, r, r_dot, r_ddot);  // y is the load's centre of mass
  BodyMotion m;
  m.G = Pose{att.R, r};
  const Vec3 v = att.R.transpose() * r_dot;
  m.V << v, att.omega;
  m.V_dot << att.R.transpose() * r_ddot - att.omega.cross(v), att.omega_dot;
  return m;
}

BodyMotion FlatBodyMotion::at(double t) const {
  Jet y[3];
  axis_.position().jets(t, y);
  const flat::AttitudeJet att = heading_->attitude(t, axis_.fromJets(y));
  const flat::FreeFlatSample s = flat::freeFlatSample(y, att, flat_point_);
  BodyMotion m;
  m.G = Pose{s.R, s.r};
  m.V = s.twist;
  m.V_dot = s.twist_dot;
  return m;
}

BodyMotion ConstantBodyTwist::at(double t) const {
  BodyMotion m;
  if (!clock_) {
    m.G = G0_ * expSE3(t * V_);
    m.V = V_;
    return m;
  }
  const Jet tau = clock_->at(t);
  m.G = G0_ * expSE3(tau[0] * V_);
  m.V = tau[1] * V_;
  m.V_dot = tau[2] * V_;
  return m;
}

PlanarMotion PrescribedPlanarMotion::at(double t) const {
  Jet y[3];
  position_.jets(t, y);
  PlanarMotion m;
  for (int i = 0; i < 2; ++i) {
    m.p(i) = y[i][0];
    m.p_dot(i) = y[i][1];
    m.p_ddot(i) = y[i][2];
  }
  const Jet a = angle_->component(t, 0);
  m.angle = a[0];
  m.angle_dot = a[1];
  m.angle_ddot = a[2];
  return m;
}

PlanarMotion FlatPlanarMotion::at(double t) const {
  Jet y[3];
  position_.jets(t, y);
  const flat::PlanarFlatSample s = flat::planarFlatSample(y, gravity_, epsilon_);
  PlanarMotion m;
  m.p = s.p;
  m.p_dot = s.p_dot;
  m.p_ddot = s.p_ddot;
  m.angle = s.angle;
  m.angle_dot = s.angle_dot;
  m.angle_ddot = s.angle_ddot;
  return m;
}

ConstantPlanarTwist::ConstantPlanarTwist(const flat::Vec2& p0, double angle0, const Vec6& V,
                                         std::optional<traj::ManoeuvreClock> clock)
    : p0_(p0),
      angle0_(angle0),
      R0_(axisAngleRotation(Vec3::UnitZ(), angle0).topLeftCorner<2, 2>()),
      V_(V),
      clock_(clock) {}

PlanarMotion ConstantPlanarTwist::at(double t) const {
  // In manoeuvre time τ: ṗ = τ̇ R v, p̈ = τ̇² ω R J v + τ̈ R v, θ̇ = ω τ̇, θ̈ = ω τ̈ (τ = t: the plain twist).
  const Jet tau = clock_ ? clock_->at(t) : Jet{t, 1, 0, 0, 0};
  const Pose E = expSE3(tau[0] * V_);
  const double w = V_(5);
  PlanarMotion m;
  m.angle = angle0_ + w * tau[0];
  m.p = p0_ + R0_ * E.r.head<2>();
  const Eigen::Matrix2d R = Eigen::Rotation2Dd(m.angle).toRotationMatrix();
  const flat::Vec2 v(V_(0), V_(1));
  if (!clock_) {
    m.p_dot = R * v;
    m.p_ddot = w * R * flat::Vec2(-v.y(), v.x());
    m.angle_dot = w;
    return m;
  }
  m.p_dot = tau[1] * (R * v);
  m.p_ddot = tau[1] * tau[1] * w * (R * flat::Vec2(-v.y(), v.x())) + tau[2] * (R * v);
  m.angle_dot = w * tau[1];
  m.angle_ddot = w * tau[2];
  return m;
}

}  // namespace rbs
