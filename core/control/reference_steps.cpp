#include "core/control/reference_steps.h"

#include "core/dynamics/inverse_kinematics.h"

namespace rbs {

using traj::Jet;

flat::AttitudeJet shortestRotation(const Vec3& a, const flat::Vec3Jet& d) {
  const Mat3 V = wed(a.cross(d.v)), V1 = wed(a.cross(d.d1)), V2 = wed(a.cross(d.d2));
  const double k = 1.0 / (1.0 + a.dot(d.v)), c1 = a.dot(d.d1), c2 = a.dot(d.d2);
  const Mat3 VV = V * V, VV1 = V1 * V + V * V1;
  flat::AttitudeJet q;
  q.R = Mat3::Identity() + V + k * VV;
  const Mat3 Q1 = V1 + k * VV1 - k * k * c1 * VV;
  const Mat3 Q2 = V2 + k * (V2 * V + 2 * V1 * V1 + V * V2) - 2 * k * k * c1 * VV1 +
                  (2 * k * k * k * c1 * c1 - k * k * c2) * VV;
  // Both matrices are skew; vee2/2 reads their skew parts.
  q.omega = 0.5 * vee2(Mat3(q.R.transpose() * Q1));
  q.omega_dot = 0.5 * vee2(Mat3(Q1.transpose() * Q1 + q.R.transpose() * Q2));
  return q;
}

SuspendedLoadStep::SuspendedLoadStep(const Joint& joint, double length, const Vec3& gravity, const Mat3& initial_R)
    : joint_(joint),
      length_(length),
      hook_(joint.parent_placement.r),
      gravity_(gravity),
      down_(gravity / gravity.norm()),
      initial_R_(initial_R) {}

flat::Vec3Jet SuspendedLoadStep::ropeDirection(const Jet y[3]) const {
  flat::Vec3Jet a;
  a.v = Vec3(y[0][2], y[1][2], y[2][2]) - gravity_;
  a.d1 = Vec3(y[0][3], y[1][3], y[2][3]);
  a.d2 = Vec3(y[0][4], y[1][4], y[2][4]);
  return flat::normalized(a);
}

void SuspendedLoadStep::baseFromLoad(const Jet y[3], const flat::AttitudeJet& base, Vec3& r, Vec3& r_dot,
                                     Vec3& r_ddot) const {
  const flat::Vec3Jet n = ropeDirection(y);
  const Vec3 wh = base.omega.cross(hook_);
  r += length_ * n.v - base.R * hook_;
  r_dot += length_ * n.d1 - base.R * wh;
  r_ddot += length_ * n.d2 - base.R * (base.omega_dot.cross(hook_) + base.omega.cross(wh));
}

void SuspendedLoadStep::sampleJoint(const Jet y[3], const flat::AttitudeJet& base, ReferenceSample& out) const {
  // Q adds no turn about the rope for swings in a vertical plane, and a turn of (1 − cos θ) per
  // unit of azimuth at a swing angle θ otherwise (second order in θ). Relative to the base
  // (attitude R_b, body rates ω_b): R = R_bᵀ R_L, ω = ω_L − Rᵀω_b with ω_L = R_L0ᵀ ω_Q, and from
  // Ṙ = R wed(ω), ω̇ = ω̇_L + ω × Rᵀω_b − Rᵀω̇_b.
  const flat::Vec3Jet n = ropeDirection(y);
  const flat::AttitudeJet q = shortestRotation(down_, flat::Vec3Jet{-n.v, -n.d1, -n.d2});
  const Mat3 R = base.R.transpose() * q.R * initial_R_;
  const Vec3 base_rate = R.transpose() * base.omega;
  const Vec3 omega = initial_R_.transpose() * q.omega - base_rate;
  const Vec3 omega_dot = initial_R_.transpose() * q.omega_dot + omega.cross(base_rate) - R.transpose() * base.omega_dot;
  Pose M;
  Vec6 V, V_dot;
  rotationJointMotion(joint_, joint_.parent_placement.R, R, omega, omega_dot, M, V, V_dot);
  double* x = out.x.data() + joint_.x_offset;
  jointCoordinatesFromMotion(joint_, M, x);
  jointVelocitiesFromTwist(joint_, x, V, V_dot, out.xi.data() + joint_.xi_offset, out.xidot.data() + joint_.xi_offset);
}

int ScalarJointPaths::driven() const {
  if (!path) return 0;
  return spring_flat ? 2 : path->dim();
}

namespace {
void setScalar(const Joint& j, const Jet& q, ReferenceSample& out) {
  setJointScalarPosition(j, q[0], out.x.data() + j.x_offset);
  out.xi(j.xi_offset) = q[1];
  out.xidot(j.xi_offset) = q[2];
}
}  // namespace

void ScalarJointPaths::apply(double t, ReferenceSample& out) const {
  if (!path) return;
  if (spring_flat) {
    const Jet z2 = path->component(t, 0);
    const Jet z1{z2[0] + z2[2] / varpi, z2[1] + z2[3] / varpi, z2[2] + z2[4] / varpi, 0.0, 0.0};
    setScalar(joints[0], z1, out);
    setScalar(joints[1], z2, out);
    return;
  }
  for (int k = 0; k < path->dim(); ++k) setScalar(joints[static_cast<std::size_t>(k)], path->component(t, k), out);
}

}  // namespace rbs
