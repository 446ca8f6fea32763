// The desired task of servo_constraint_pd (Seifried 2014, Sect. 4.2.7 and 5.3; digest
// seifried-underactuated §4.7, §9): the end-effector point on a circular arc (the book's
// half-circle: centre (0, −1.5) m, radius 1 m, open downward) while the cart moves from −1 m to
// +1 m, both timed by one rest-to-rest polynomial s(τ), τ = (t − t₀)/T, of degree 5 (or 7, 9):
//   s₅ = 10τ³ − 15τ⁴ + 6τ⁵,  s₇ = 35τ⁴ − 84τ⁵ + 70τ⁶ − 20τ⁷,
//   s₉ = 126τ⁵ − 420τ⁶ + 540τ⁷ − 315τ⁸ + 70τ⁹                                      (digest §9)
// The arc angle is φ = φ₀ + (φ₁ − φ₀) s, so on a circle the arc length is proportional to s too.
// Derivatives are exact (chain rule), never numerical.
#pragma once

#include <Eigen/Core>

namespace rbs {

/// Value and first two time derivatives of the rest-to-rest profile s(t) ∈ [0, 1]: 0 before t₀,
/// 1 after t₀ + T, derivatives 1..(degree−1)/2 zero at both ends.
struct ProfileSample {
  double s = 0.0, ds = 0.0, dds = 0.0;
};

/// degree ∈ {5, 7, 9} (anything else: 5 is not assumed — callers validate). duration > 0.
ProfileSample restToRestProfile(int degree, double t_start, double duration, double t);

struct ServoPath {
  double center_x = 0.0;                        ///< [m] arc centre, first plane axis
  double center_y = -1.5;                       ///< [m] arc centre, second plane axis
  double radius = 1.0;                          ///< [m]
  double angle_start = 3.141592653589793;       ///< φ₀ [rad] (π: start at centre − (r, 0))
  double angle_end = 0.0;                       ///< φ₁ [rad]
  double cart_start = -1.0;                     ///< [m] (or rad) the first direct output
  double cart_end = 1.0;
  double t_start = 0.2;                         ///< t₀ [s]
  double duration = 1.5;                        ///< T [s]
  int degree = 5;

  double tEnd() const { return t_start + duration; }
};

/// The desired end-effector point r (in the plane's two axes) and cart coordinate c, with their
/// first and second time derivatives.
struct PathSample {
  Eigen::Vector2d r = Eigen::Vector2d::Zero(), dr = Eigen::Vector2d::Zero(),
                  ddr = Eigen::Vector2d::Zero();
  double c = 0.0, dc = 0.0, ddc = 0.0;
};

PathSample samplePath(const ServoPath& path, double t);

}  // namespace rbs
