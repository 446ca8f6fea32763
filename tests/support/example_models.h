// Worked examples from the sources, built with ModelBuilder, for tests that compare rbsim against
// printed equations: the tricopter with suspended load of the Konz dissertation (Examples 6/7,
// konz-modeling §9.2/§9.5) and Seifried's cart with a two-link arm (Seifried 2014, §2.3,
// seifried-underactuated §2.7).
#pragma once

#include <array>
#include <numbers>

#include "core/model/model_builder.h"

namespace rbs::test {

// ---- Tricopter with suspended load (thesis Examples 6 and 7) ---------------------------------

/// Parameters of the tricopter with load. Chapter 3 leaves h_L, h_P, the load and the arm and
/// propeller inertias symbolic; the values marked "chosen" are plausible choices of ours, the
/// others are Table 5.1 of the thesis (konz-multicopters §A.4, konz-modeling §14).
struct TricopterParameters {
  // Central body: Table 5.1, tricopter column. The table describes the whole vehicle (arms and
  // propellers included) with Θ about the body-frame origin (5.9a); we give it to the central body
  // alone, so arms and propellers add 0.21 kg (17 %) to the real vehicle — irrelevant here.
  double body_mass = 1.251;                   // m [kg]
  Vec3 body_com = Vec3(1.7e-3, 0.6e-3, 0.0);  // s [m]
  // Θ about the body-frame origin [kg m²]: Θ_xx, Θ_yy, Θ_zz = 19.2, 19.2, 30.8 and (read as
  // tensor entries) Θ_xy, Θ_xz, Θ_yz = −0.8, −1.2, −2.1, all ·10⁻³.
  Mat3 body_inertia_origin = (Mat3() << 19.2e-3, -0.8e-3, -1.2e-3,  //
                              -0.8e-3, 19.2e-3, -2.1e-3,            //
                              -1.2e-3, -2.1e-3, 30.8e-3)
                                 .finished();
  double arm_length = 0.24;  // l_A [m], Table 5.1
  // Arm directions φ_k (Example 6): π/3, π, −π/3.
  std::array<double, 3> arm_angle = {std::numbers::pi / 3, std::numbers::pi, -std::numbers::pi / 3};
  // Chosen: the tilting motor mount (arm body, frame on the tilt axis at the arm tip).
  double arm_mass = 0.06;                           // [kg]
  Vec3 arm_com = Vec3(0.0, 0.0, 0.01);              // 1 cm above the tilt axis: s ≠ 0 on purpose
  Vec3 arm_inertia = Vec3(3.0e-5, 2.5e-5, 1.5e-5);  // principal, about the CoM [kg m²]
  // Chosen: propeller hub height above the arm frame and the propeller mass; Θ_P about the spin
  // axis from Table 5.1, a two-blade propeller (blade along x) otherwise: Θ_xx + Θ_yy = Θ_zz.
  double propeller_height = 0.03;                         // h_P [m]
  double propeller_mass = 0.01;                           // [kg]
  Vec3 propeller_inertia = Vec3(1.0e-6, 3.5e-5, 3.6e-5);  // [kg m²], Θ_P = 3.6e-5 about z
  // Chosen: suspension point h_L below the body frame; load = rigid pendulum, a 0.2 kg box of
  // 8 × 6 × 4 cm whose centre hangs 0.5 m below the joint centre.
  double load_joint_height = -0.05;        // h_L [m]
  double load_mass = 0.2;                  // [kg]
  double load_distance = 0.5;              // CoM at [0, 0, −0.5] in the load frame [m]
  Vec3 load_box = Vec3(0.08, 0.06, 0.04);  // box edges [m]
};

/// The tricopter with suspended load (N = 8, ν = 30, n = 15):
///   central body   free joint (r, R; body twist)               world → central
///   load           spherical joint at [0, 0, h_L] (R; relative body ω, Example 6) or
///                  spherical_absolute (R; the load's absolute body ω ^0_2ω, Example 7)
///   arm k          revolute tilt θ_k about the arm's radial x-axis, placed at R_z(φ_k),
///                  l_A [cos φ_k, sin φ_k, 0]
///   propeller k    revolute_unit_circle (c_k, s_k) about z, placed at [0, 0, h_P] in the arm
/// Bodies are numbered central = 0, load = 1, arms 2–4, propellers 5–7 (the thesis numbers them
/// 1, 2, 2k+1, 2k+2), so x and ξ are laid out exactly as (3.98) and Example 7:
/// x = [r, R, R_12, θ_1..3, c_1, s_1, c_2, s_2, c_3, s_3], ξ = [v, ω, ω_load, θ̇_1..3, ϖ_1..3].
/// Gravity a_G = [0, 0, −9.81] m/s²; no force elements, no actuators.
Model tricopterWithLoad(bool absolute_load_velocity, const TricopterParameters& p = {});

// ---- Seifried's cart with a two-link arm (Seifried 2014, §2.3, Fig. 2.10) --------------------

/// Parameters of the cart with a two-link arm. The book prints l, the section and M_c (flexible
/// variant: aluminium links 1 m × 10 mm × 10 mm, M_c = 0.3 kg); the link mass and inertia follow
/// from ρ = 2700 kg/m³ (our assumption, aluminium): M = ρ l w² = 0.27 kg,
/// I_3 = M (l² + w²) / 12 (homogeneous bar about its centroidal axis normal to the plane).
struct SeifriedCartParameters {
  double cart_mass = 0.3;      // M_c [kg]
  double link_length = 1.0;    // l [m]
  double link_width = 0.01;    // square section edge w [m]
  double link_density = 2700;  // ρ [kg/m³], assumed
  double gravity = 9.81;       // g [m/s²] along −e_2
  double linkMass() const { return link_density * link_length * link_width * link_width; }
  double linkInertia() const {  // I_3 [kg m²]
    return linkMass() * (link_length * link_length + link_width * link_width) / 12.0;
  }
};

/// The rigid manipulator of Seifried Fig. 2.10: a cart on a prismatic joint along e_1 (q_1 = x),
/// link 1 on a revolute joint about e_3 at the cart origin (q_2 = α, absolute angle from the
/// downward vertical −e_2), link 2 on a revolute joint about e_3 at the tip of link 1 (q_3 = β,
/// relative). Links are homogeneous bars of length l; gravity g along −e_2. ξ = [ẋ, α̇, β̇].
Model seifriedCartTwoLinkArm(const SeifriedCartParameters& p = {});

/// The planar body of thesis 4.7.4/4.7.5 (no gravity) with body-frame inputs force_x, force_y
/// (limited to ±force_limit [N]) and torque_z, and a centre of mass off the frame origin (so a
/// closed loop that does not depend on the plant is tested as such): m = 2 kg, s = (0.1, −0.05),
/// Θ_c = diag(0.1, 0.2, 0.3) kg m².
Model actuatedPlanarBody(double force_limit = 1e300);

/// A tilt-rotor vehicle for tiltrotor_inversion (not a thesis model): a free base, three arms at
/// 120° on revolute tilt joints (axis x) with torque inputs, a propeller spinning at 500 rad/s on
/// each arm with a motor (joint effort) and a thrust along its axis on the tilt axis, a constant
/// external wrench on the base (in f_E(u = 0)) and an air-drag damper.
Model torqueTiltedTricopter();

}  // namespace rbs::test
