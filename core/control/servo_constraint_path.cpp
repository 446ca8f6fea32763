#include "core/control/servo_constraint_path.h"

#include <algorithm>
#include <cmath>

namespace rbs {
namespace {

// Coefficients of τ^k, k = 0..9, of the rest-to-rest polynomials (digest §9).
constexpr double kS5[10] = {0, 0, 0, 10, -15, 6, 0, 0, 0, 0};
constexpr double kS7[10] = {0, 0, 0, 0, 35, -84, 70, -20, 0, 0};
constexpr double kS9[10] = {0, 0, 0, 0, 0, 126, -420, 540, -315, 70};

}  // namespace

ProfileSample restToRestProfile(int degree, double t_start, double duration, double t) {
  ProfileSample out;
  const double tau = (t - t_start) / duration;
  if (tau <= 0.0) return out;
  if (tau >= 1.0) {
    out.s = 1.0;
    return out;
  }
  const double* a = degree == 9 ? kS9 : degree == 7 ? kS7 : kS5;
  // Horner for s, s' and s'' in τ.
  double s = 0.0, ds = 0.0, dds = 0.0;
  for (int k = 9; k >= 0; --k) {
    dds = dds * tau + 2.0 * ds;
    ds = ds * tau + s;
    s = s * tau + a[k];
  }
  out.s = s;
  out.ds = ds / duration;
  out.dds = dds / (duration * duration);
  return out;
}

PathSample samplePath(const ServoPath& path, double t) {
  const ProfileSample p = restToRestProfile(path.degree, path.t_start, path.duration, t);
  PathSample out;
  const double dphi = path.angle_end - path.angle_start;
  const double phi = path.angle_start + dphi * p.s;
  const double phid = dphi * p.ds;
  const double phidd = dphi * p.dds;
  const Eigen::Vector2d radial(std::cos(phi), std::sin(phi));
  const Eigen::Vector2d tangent(-std::sin(phi), std::cos(phi));
  out.r = Eigen::Vector2d(path.center_x, path.center_y) + path.radius * radial;
  out.dr = path.radius * phid * tangent;
  out.ddr = path.radius * (phidd * tangent - phid * phid * radial);
  const double dc = path.cart_end - path.cart_start;
  out.c = path.cart_start + dc * p.s;
  out.dc = dc * p.ds;
  out.ddc = dc * p.dds;
  return out;
}

}  // namespace rbs
