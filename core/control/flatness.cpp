#include "core/control/flatness.h"

#include <cmath>

namespace rbs::flat {

Vec3Jet cross(const Vec3Jet& a, const Vec3Jet& b) {
  return Vec3Jet{a.v.cross(b.v), a.d1.cross(b.v) + a.v.cross(b.d1),
                 a.d2.cross(b.v) + 2.0 * a.d1.cross(b.d1) + a.v.cross(b.d2)};
}

template <class V>
VJet<V> normalized(const VJet<V>& a) {
  const double rho = a.v.norm();
  VJet<V> n;
  n.v = a.v / rho;
  const double rho_dot = n.v.dot(a.d1);
  n.d1 = (a.d1 - rho_dot * n.v) / rho;
  const double rho_ddot = n.d1.dot(a.d1) + n.v.dot(a.d2);
  n.d2 = (a.d2 - rho_ddot * n.v - 2.0 * rho_dot * n.d1) / rho;
  return n;
}
template VJet<Vec3> normalized(const VJet<Vec3>&);
template VJet<Vec2> normalized(const VJet<Vec2>&);

namespace {

AttitudeJet fromAxes(const Vec3Jet& x, const Vec3Jet& y, const Vec3Jet& z) {
  // RᵀṘ = wed(ω): ω_x = z·ẏ, ω_y = x·ż, ω_z = y·ẋ; differentiated for ω̇.
  AttitudeJet out;
  out.R.col(0) = x.v;
  out.R.col(1) = y.v;
  out.R.col(2) = z.v;
  out.omega = Vec3(z.v.dot(y.d1), x.v.dot(z.d1), y.v.dot(x.d1));
  out.omega_dot = Vec3(z.d1.dot(y.d1) + z.v.dot(y.d2), x.d1.dot(z.d1) + x.v.dot(z.d2),
                       y.d1.dot(x.d1) + y.v.dot(x.d2));
  return out;
}

}  // namespace

AttitudeJet attitudeFromYaw(const Vec3Jet& z, const traj::Jet& yaw) {
  traj::Jet c, s;
  traj::cosSinJets(yaw, c, s);
  const Vec3Jet yc{Vec3(-s[0], c[0], 0.0), Vec3(-s[1], c[1], 0.0), Vec3(-s[2], c[2], 0.0)};
  const Vec3Jet x = normalized(cross(yc, z));
  const Vec3Jet y = cross(z, x);
  return fromAxes(x, y, z);
}

AttitudeJet attitudeFromAxis(const Vec3Jet& z, const Vec3& x_axis, double omega_z,
                             double omega_z_dot) {
  AttitudeJet out;
  const Vec3 x = (x_axis - x_axis.dot(z.v) * z.v).normalized();
  const Vec3 y = z.v.cross(x);
  out.R.col(0) = x;
  out.R.col(1) = y;
  out.R.col(2) = z.v;
  // (5.70): ω_y = R_xᵀ Ṙ_z, ω_x = −R_yᵀ Ṙ_z, ω_z prescribed.
  const double wx = -y.dot(z.d1), wy = x.dot(z.d1);
  out.omega = Vec3(wx, wy, omega_z);
  out.omega_dot = Vec3(omega_z * wy - y.dot(z.d2), -omega_z * wx + x.dot(z.d2), omega_z_dot);
  return out;
}

Vec3 headingRate(const Vec3& x, const Vec3& z, const Vec3& z_dot, double omega_z) {
  // Ṙ_x = ω_z R_y − ω_y R_z (5.70).
  return omega_z * z.cross(x) - x.dot(z_dot) * z;
}

Vec3Jet thrustDirection(const traj::Jet y[3], const Vec3& a_G, double drag_per_mass) {
  Vec3Jet a;
  for (int i = 0; i < 3; ++i) {
    a.v(i) = y[i][2] - a_G(i) + drag_per_mass * y[i][1];
    a.d1(i) = y[i][3] + drag_per_mass * y[i][2];
    a.d2(i) = y[i][4] + drag_per_mass * y[i][3];
  }
  return normalized(a);
}

FreeFlatSample freeFlatSample(const traj::Jet y[3], const AttitudeJet& att, const Vec3& flat_point) {
  FreeFlatSample out;
  Vec3 r_dot, r_ddot;
  for (int i = 0; i < 3; ++i) {
    out.r(i) = y[i][0];
    r_dot(i) = y[i][1];
    r_ddot(i) = y[i][2];
  }
  // y = r + R s, so r = y − R s and its derivatives (Ṙ = R wed(ω)).
  const Vec3 w_s = att.omega.cross(flat_point);
  out.r -= att.R * flat_point;
  r_dot -= att.R * w_s;
  r_ddot -= att.R * (att.omega_dot.cross(flat_point) + att.omega.cross(w_s));
  out.R = att.R;
  const Vec3 v = att.R.transpose() * r_dot;
  out.twist << v, att.omega;
  // v = Rᵀṙ ⇒ v̇ = Rᵀr̈ − ω × v.
  out.twist_dot << att.R.transpose() * r_ddot - att.omega.cross(v), att.omega_dot;
  return out;
}

PlanarFlatSample planarFlatSample(const traj::Jet y[2], const Vec2& g, double epsilon) {
  Vec2Jet a;
  for (int i = 0; i < 2; ++i) {
    a.v(i) = y[i][2] - g(i);
    a.d1(i) = y[i][3];
    a.d2(i) = y[i][4];
  }
  // Body y axis (−sin α, cos α) = n = (ÿ − g)/N.
  const Vec2Jet n = normalized(a);
  PlanarFlatSample out;
  out.angle = std::atan2(-n.v.x(), n.v.y());
  out.angle_dot = n.v.x() * n.d1.y() - n.v.y() * n.d1.x();
  out.angle_ddot = n.v.x() * n.d2.y() - n.v.y() * n.d2.x();
  for (int i = 0; i < 2; ++i) {
    out.p(i) = y[i][0];
    out.p_dot(i) = y[i][1];
    out.p_ddot(i) = y[i][2];
  }
  // y = r + ε R e_y (4.131)–(4.132): r = y − ε n.
  out.p -= epsilon * n.v;
  out.p_dot -= epsilon * n.d1;
  out.p_ddot -= epsilon * n.d2;
  return out;
}

}  // namespace rbs::flat
