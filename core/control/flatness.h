// Flatness-based attitudes of flying vehicles (thesis 4.8.2–4.8.4 and 5.5; konz-control §10.9,
// §10.10; konz-multicopters §A.8). Internal to core/control (used by reference.cpp).
//
// Free base (quadcopter (4.143)–(4.145)): the thrust acts along body z, so the zero-error matching
// force vanishes iff R_zR = (r̈_R − a_G)/‖r̈_R − a_G‖ (5.69/5.70). The heading is either a given
// yaw ψ(t) (ZYX heading: the body x axis is orthogonal to R_z(ψ) e_y, as in (5.69)) or integrated
// from a prescribed ω_zR (5.70). With ε ≠ 0 the path is the flat output y = r + ε R e_z (the
// PVTOL/bicopter parameterization, exact for motions in the vehicle's tilt plane).
//
// Planar base (PVTOL (4.129)–(4.133), corrected signs): the thrust acts along body y; with
// N = ‖ÿ − g‖: R e_y = (ÿ − g)/N, i.e. α = atan2(−(ÿ₁ − g₁), ÿ₂ − g₂) (= atan2(−ÿ₁, ÿ₂ + g) for
// g = (0, −g)), and r = y − ε R e_y (4.131, 4.132 with ÿ₂ + g). The printed (4.133)
// atan2(+ÿ₁, ·) is an erratum (konz-control §13).
#pragma once

#include <Eigen/Core>

#include "core/control/trajectory.h"
#include "core/math/se3.h"

namespace rbs::flat {

using Vec2 = Eigen::Vector2d;

/// A vector and its first two time derivatives.
template <class V>
struct VJet {
  V v, d1, d2;
};
using Vec3Jet = VJet<Vec3>;
using Vec2Jet = VJet<Vec2>;

Vec3Jet cross(const Vec3Jet& a, const Vec3Jet& b);
/// a/‖a‖ with derivatives: ṅ = (ȧ − n(n·ȧ))/ρ, n̈ = (ä − n(ṅ·ȧ + n·ä) − 2ṅ(n·ȧ))/ρ.
template <class V>
VJet<V> normalized(const VJet<V>& a);

/// Attitude of a body with its angular velocity and acceleration in body coordinates.
struct AttitudeJet {
  Mat3 R = Mat3::Identity();
  Vec3 omega = Vec3::Zero();
  Vec3 omega_dot = Vec3::Zero();
};

/// R = [x y z] with x = (R_z(ψ)e_y × z)/‖·‖, y = z × x (heading ψ in the ZYX sense, (5.69));
/// ω = (z·ẏ, x·ż, y·ẋ), ω̇ = (ż·ẏ + z·ÿ, ẋ·ż + x·z̈, ẏ·ẋ + y·ẍ). Singular when z ∥ R_z(ψ)e_y
/// (roll ±90°).
AttitudeJet attitudeFromYaw(const Vec3Jet& z, const traj::Jet& yaw);

/// R from the thrust direction z and an x axis (projected onto z⊥ and normalized), with the
/// prescribed heading rate ω_z (5.70): ω_x = −y·ż, ω_y = x·ż, ω̇_x = ω_z ω_y − y·z̈,
/// ω̇_y = −ω_z ω_x + x·z̈.
AttitudeJet attitudeFromAxis(const Vec3Jet& z, const Vec3& x_axis, double omega_z,
                             double omega_z_dot);

/// The right-hand side of the heading integration (5.70): ẋ = ω_z y − ω_y z with y = z × x,
/// ω_y = x·ż.
Vec3 headingRate(const Vec3& x, const Vec3& z, const Vec3& z_dot, double omega_z);

/// Free-base flat sample: the world pose (R, r) of the body and its body twist [v; ω] and
/// derivative, from the flat output y (world, derivatives 0…4) and the attitude (from z).
struct FreeFlatSample {
  Mat3 R;
  Vec3 r;
  Vec6 twist;      ///< [v; ω] in body coordinates
  Vec6 twist_dot;  ///< [v̇; ω̇]
};
/// Thrust direction z = (ÿ − a_G + c ẏ)/‖ÿ − a_G + c ẏ‖ with derivatives (needs y up to the 4th
/// derivative). c = d/m [1/s] is linear air drag per unit mass: with the drag force −d ṙ of (5.4)
/// the thrust must also cancel it, m(r̈ − a_G) + d ṙ = R F (the estimator model (5.44)); c = 0 is
/// (5.69), the drag-free flat output.
Vec3Jet thrustDirection(const traj::Jet y[3], const Vec3& a_G, double drag_per_mass = 0.0);
/// Completes the sample from the attitude when the flat output is the body point s (body frame;
/// s = ε e_z puts it on the thrust axis, (4.131); a multicopter's is its centre of mass):
/// r = y − R s, ṙ = ẏ − R(ω × s), r̈ = ÿ − R(ω̇ × s + ω × (ω × s)); v = Rᵀṙ, v̇ = Rᵀr̈ − ω × v.
FreeFlatSample freeFlatSample(const traj::Jet y[3], const AttitudeJet& att, const Vec3& flat_point);

/// Planar flat sample (PVTOL): plane position p, angle α (atan2, in (−π, π]) and derivatives.
struct PlanarFlatSample {
  Vec2 p, p_dot, p_ddot;
  double angle = 0.0, angle_dot = 0.0, angle_ddot = 0.0;
};
/// From the flat output y (plane coordinates, derivatives 0…4), the in-plane gravity g and ε.
PlanarFlatSample planarFlatSample(const traj::Jet y[2], const Vec2& g, double epsilon);

}  // namespace rbs::flat
