// Models shared by the benchmarks (tests/benchmarks) and the cross-checks against independent
// libraries (tests/kdl): a 7-DoF manipulator and the Kremer et al. aerial manipulator.
//
// Both are described by plain parameter tables first, so that a test can build the *same* system
// in another library from the table instead of from the rbsim Model it is checking.
#pragma once

#include <string>
#include <vector>

#include "core/model/model_builder.h"

namespace rbs::test {

/// One link of a serial arm, described URDF-style: the joint frame is placed in the parent link
/// frame by `joint_xyz` and `joint_rpy` (R = R_z(yaw) R_y(pitch) R_x(roll), as URDF and
/// rotationZYX), the joint turns about the z axis of that frame, and the link frame *is* the
/// joint's moving frame (no T_c).
struct ArmLink {
  std::string name;
  Vec3 joint_xyz = Vec3::Zero();  ///< [m], in the parent link frame
  Vec3 joint_rpy = Vec3::Zero();  ///< (roll, pitch, yaw) [rad]
  double mass = 0.0;              ///< [kg]
  Vec3 com = Vec3::Zero();        ///< centre of mass in the link frame [m]
  Mat3 inertia = Mat3::Zero();    ///< about the CoM, link axes [kg m²] (full, with products)
};

/// A 7-DoF anthropomorphic arm (shoulder 2 DoF + upper-arm roll, elbow, 3-DoF wrist) of 19 kg
/// and ~0.9 m reach from the shoulder, with link masses, CoM offsets and full inertia tensors
/// typical of collaborative arms of this size. The numbers are made up for this project (not a vendor's
/// data set); they are physically valid and asymmetric enough to excite every term.
std::vector<ArmLink> sevenDofArmLinks();

/// The arm of sevenDofArmLinks() with revolute joints "joint1".."joint7" between bodies
/// "link1".."link7" (link1 on the world), gravity −9.81 z, and one JointEffort actuator per joint
/// ("tau1".."tau7").
Model sevenDofArm();

/// Parameters of the aerial manipulator of Kremer, Sanchez-Lopez and Voos (reference digest
/// carmizaru-kremer.md, B13). Values the paper does not give are marked as assumptions.
struct AerialManipulatorParameters {
  double base_mass = 6.0;                      ///< [kg] (Fig. 9/11 tables)
  Vec3 base_inertia = Vec3(0.48, 0.48, 0.95);  ///< principal, about the CoM [kg m²]
  /// Rotor distance from the base centre: half the 1.51 m "wheel base", read as the rotor
  /// circle's diameter (assumption, digest B13).
  double rotor_arm = 0.755;
  /// Rotor drag torque per thrust about the rotor axis, k_p/k_t of the Fig. 9/11 tables
  /// (5.865e-8 N m min² / 2.165e-6 N min²) [m]; rotors 1 and 3 turn clockwise seen from above
  /// (assumption), so their torque about +z is negative.
  double rotor_torque_ratio = 0.02709;
  double link_mass = 0.78;                               ///< [kg] per arm link (Fig. 11 table)
  Vec3 link_inertia = Vec3(0.595e-3, 3.824e-3, 3.7e-3);  ///< principal, about the CoM [kg m²]
  double link_com = 0.22;                                ///< CoM along the link's x axis [m]
  /// Joint-to-joint distance along the link (assumption: twice the CoM offset, CoM mid-link).
  double link_length = 0.44;
  /// The first joint sits this far below the base centre (assumption: not given).
  double shoulder_drop = 0.10;
  /// Base joint: Free (r, R), FreeQuaternion (r, q; Kremer et al.'s attitude coordinates) or
  /// SphericalEulerZYX: the Euler-angle model Kremer et al. compare against (position r and ZYX
  /// angles, velocities ṙ in world axes and the angle rates). rbsim has no Euler-angle free
  /// joint, so r is three prismatic joints along the world x, y, z axes carrying the bodies
  /// "carrier_x", "carrier_y", "carrier_z" of kEulerCarrierMass each (the builder needs m > 0);
  /// the spherical Euler joint "base_free" turns the base on carrier_z.
  JointType base_joint = JointType::Free;
};

/// Mass of each translation carrier of the Euler-angle base [kg]: 3e-9 kg against the vehicle's
/// 6–8.3 kg changes its translational inertia by < 5e-10 (relative) and nothing else (the
/// carriers do not rotate; gravity on carrier_x and carrier_y is taken up by the world).
inline constexpr double kEulerCarrierMass = 1e-9;

/// Kremer et al.'s aerial manipulator with `links` ∈ {0, 1, 2, 3} arm links: a free-floating
/// quadcopter base ("base", p.base_joint, body twist) in X configuration, rotors at
/// (±a/√2, ±a/√2, 0) with a = rotor_arm; a planar serial arm hanging below it, every joint
/// revolute about its local y axis (the arm swings in the base's xz plane), link i's x axis
/// pointing along the link and straight down at zero angles. Inputs: four BodyForce thrusts
/// "thrust1".."thrust4" along the base z axis at the rotor centres, then JointEffort torques
/// "tau1".."tau<links>".
Model kremerAerialManipulator(int links,
                              const AerialManipulatorParameters& p = AerialManipulatorParameters{});

}  // namespace rbs::test
