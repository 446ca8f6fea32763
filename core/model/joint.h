// The joint library (konz-modeling.md §10, joint table; thesis 3.4 and Examples 6/7).
//
// A joint is the tree edge parent λ → child b. It owns a slice x_e of the configuration
// coordinates x (possibly redundant: rotation matrices, quaternions, unit-circle pairs) and a
// slice ξ_e of the velocity coordinates ξ, and provides
//   G_e(x)      = ^λ_b G = T_p · motion(x_e) · T_c              (relative pose, 4×4 SE(3))
//   S_e         the edge Jacobian's block in its own ξ columns    (6×n_e, child coordinates)
//   J_e ξ       the relative body twist ^λ_b ξ                    ([v; ω], child coordinates)
//   σ_e         = J̇_e ξ, the bias of the edge Jacobian            (zero when S_e is constant)
//   ẋ_e         = A_e(x) ξ                                       (kinematics, (2.4))
//   φ_e(x)      the coordinate constraint residual (RᵀR − I, |q|² − 1, c² + s² − 1).
// T_p places the joint frame in the parent body frame, T_c the child body frame in the joint's
// moving frame.
#pragma once

#include <optional>
#include <span>
#include <string>
#include <string_view>

#include "core/math/se3.h"

namespace rbs {

enum class JointType {
  Fixed,               // ν = 0, n = 0
  Revolute,            // angle θ about `axis`; ξ = θ̇
  RevoluteUnitCircle,  // (c, s) ∈ S¹ about `axis`; ξ = ϖ (no wind-up, no angle wrap)
  Prismatic,           // displacement d along `axis`; ξ = ḋ
  Spherical,           // rotation matrix R (9, column-stacked); ξ = relative body ω
  SphericalQuaternion, // unit quaternion (w, x, y, z); ξ = relative body ω
  SphericalEulerZYX,   // roll, pitch, yaw with R = R_z R_y R_x (1.6a); ξ = angle rates.
                       // Singular at pitch = ±π/2 (gimbal lock) — kept on purpose for the demo.
  SphericalAbsolute,   // rotation matrix R; ξ = the child's *absolute* body ω (thesis Example 7)
  Free,                // r (3) + R (9); ξ = body twist [v; ω]
  FreeQuaternion,      // r (3) + q (4); ξ = body twist [v; ω]
  Planar,              // (p_x, p_y, θ) in the joint frame's xy plane; ξ = planar body twist (v_x, v_y, ω_z)
  Universal,           // θ₁ about `axis`, then θ₂ about `axis2` (in the intermediate frame); ξ = rates
};

/// Number of configuration coordinates ν_e of a joint type.
int configurationSize(JointType type);
/// Number of velocity coordinates n_e of a joint type.
int velocitySize(JointType type);
/// Scene-file spelling of a type ("revolute", "spherical_quaternion", …).
std::string_view jointTypeName(JointType type);
std::optional<JointType> jointTypeFromName(std::string_view name);
/// True for the types whose coordinates carry a constraint φ_e(x) = 0.
bool hasCoordinateConstraint(JointType type);
/// True when S_e does not depend on x_e (all but ZYX Euler angles and the universal joint, whose
/// rate matrices vary with the angles). Below a moving parent the absolute-ω spherical joint
/// also reads the parent's motion, which the caller has to consider.
bool hasConstantMotionSubspace(JointType type);
/// One coordinate of a joint type, for channels, the inspect panel and scripting: its short name
/// ("angle", "R21", "qw", "vx"), SI unit, and what it is in plain words.
struct CoordinateInfo {
  std::string_view name;
  std::string_view unit;
  std::string_view meaning;
};
/// The entries of x_e in order (configurationSize(type) of them): "angle" (revolute), "c", "s"
/// (unit circle), "position" (prismatic), "R11" … "R33" column-stacked (rotation matrices), "qw" …
/// "qz", "roll", "pitch", "yaw", "x", "y", "z", "angle1", "angle2". Names differ from those of
/// velocityCoordinates(type), so "JOINT.NAME" is unique.
std::span<const CoordinateInfo> configurationCoordinates(JointType type);
/// The entries of ξ_e in order (velocitySize(type) of them): "rate", "wx" … (relative or absolute
/// body ω), "vx" … (body twist), "roll_rate", "rate1", ….
std::span<const CoordinateInfo> velocityCoordinates(JointType type);
/// True for the ball joints: spherical, spherical_quaternion, spherical_euler_zyx,
/// spherical_absolute (three rotational freedoms about a fixed centre).
bool isSphericalType(JointType type);
/// True for the six-freedom joints free and free_quaternion (position and rotation).
bool isFreeType(JointType type);
/// True for revolute and revolute_unit_circle: one rotation about `axis`.
bool isRevoluteType(JointType type);
/// True for the one-degree-of-freedom joints whose position is one number, an angle or a
/// displacement (revolute, revolute_unit_circle, prismatic): limits, joint springs, armature,
/// scalar initial positions and joint-space references apply to them.
bool hasScalarPosition(JointType type);
/// True for the types that read `axis` (the scalar-position ones and universal).
bool usesAxis(JointType type);

/// Edge Jacobian block in the joint's own velocity columns (at most 6 columns, no heap).
using MotionSubspace = Eigen::Matrix<double, 6, Eigen::Dynamic, Eigen::ColMajor, 6, 6>;

struct Joint {
  std::string name;
  JointType type = JointType::Fixed;
  int parent = -1;  ///< parent body index, −1 = world
  int child = -1;   ///< child body index
  Pose parent_placement;  ///< T_p: joint frame in the parent body frame
  Pose child_placement;   ///< T_c: child body frame in the joint's moving frame
  Vec3 axis = Vec3::UnitZ();   ///< unit axis in the joint frame (revolute, prismatic, universal 1st)
  Vec3 axis2 = Vec3::UnitY();  ///< unit 2nd axis of a universal joint, in the intermediate frame
  int x_offset = 0;   ///< start of x_e in x
  int xi_offset = 0;  ///< start of ξ_e in ξ
  int nx = 0;         ///< ν_e
  int nxi = 0;        ///< n_e
  bool has_child_placement = false;  ///< T_c ≠ I (then S_e and σ_e are mapped by Ad_{T_c⁻¹})
  bool has_parent_placement = false;  ///< T_p ≠ I (else G_e skips that product)
  /// One-axis joints: inertia added on the joint's own coordinate, M_jj += armature — a geared
  /// motor's rotor seen through the gearbox, n² Θ_S (the servo of the tricopter's tilt axis).
  double armature = 0.0;  ///< [kg m²] or [kg]
  /// Revolute joints: the same rotor's coupling with the parent's rotation, Θ_AC = n Θ_S (thesis
  /// (5.9a), Table 5.1). The rotor sits in the parent body (its inertia is part of the parent's)
  /// and spins about the joint axis at ω_λ·a + n q̇, so the kinetic energy gains Θ_AC (a·ω_λ) q̇:
  /// M gets Θ_AC aᵀ J_ω,λ in the joint's row and column, c the rotor's gyroscopic reaction
  /// (see computeMassMatrix and computeInertialForces). The sign is the gear's sense.
  double rotor_coupling = 0.0;  ///< [kg m²]
  Vec3 axis_in_parent = Vec3::UnitZ();  ///< the joint axis in parent body coordinates (T_p.R axis)
  /// Revolute joints: Rodrigues with T_p folded in, so that the rotation of G_e,
  /// R_p Rot(a, θ) = R_p (I + sin θ â + (1 − cos θ) â²) = C + sin θ S + cos θ K, costs 18 products
  /// instead of the rotation and a 3×3 product: C = R_p (I + â²), S = R_p â, K = −R_p â².
  /// Formed by formRevoluteRotationTerms (the builder calls it); the defaults are the default
  /// axis z without T_p.
  Mat3 rotation_constant = Vec3(0.0, 0.0, 1.0).asDiagonal();
  Mat3 rotation_sin = wed(Vec3(0.0, 0.0, 1.0));
  Mat3 rotation_cos = Vec3(1.0, 1.0, 0.0).asDiagonal();
};

/// Sets joint.rotation_{constant,sin,cos} from its axis and T_p (used when has_parent_placement).
void formRevoluteRotationTerms(Joint& joint);

/// A revolute joint without T_c, the joint of imported robots: S_e = [0; a] in the child frame,
/// σ_e = 0. evaluateJoint and the articulated-body pass take their shortcuts for it.
inline bool isPlainRevolute(const Joint& joint) {
  return joint.type == JointType::Revolute && !joint.has_child_placement;
}

/// S_e = I at every x: a free joint (ξ = the body twist) without a child placement. Its relative
/// twist is ξ itself, and products with S_e can be skipped without changing a value.
bool hasIdentityMotionSubspace(const Joint& j);

/// Everything the forward pass needs from one joint at (x, ξ).
struct JointMotion {
  Pose transform;         ///< G_e = ^λ_b G
  MotionSubspace S;       ///< 6×n_e block of the edge Jacobian in the joint's own columns
  Vec6 relative_twist;    ///< ^λ_b ξ = J_e ξ (child coordinates)
  Vec6 bias;              ///< σ_e = J̇_e ξ
  /// SphericalAbsolute only: the edge Jacobian also has −R̄ᵀ(J_λ)_ω in the ancestor columns, so
  /// the child's Jacobian is J_b = P (Ad_{G_e⁻¹} J_λ) + S_e with P zeroing the ω rows.
  bool drops_parent_rotation = false;
};

/// Evaluates G_e, S_e, J_e ξ and σ_e. `x_e`, `xi_e` point at the joint's slices; `parent_twist`
/// and `parent_bias` are η_λ = J_λ ξ and κ_λ = J̇_λ ξ of the parent body (zero for the world);
/// only the absolute-ω spherical joint reads them.
void evaluateJoint(const Joint& joint, const double* x_e, const double* xi_e,
                   const Vec6& parent_twist, const Vec6& parent_bias, JointMotion& out);

/// G_e only (no velocities).
Pose jointTransform(const Joint& joint, const double* x_e);
/// The joint's motion pose alone, between T_p and T_c (G_e = T_p · motion · T_c): the rotation
/// and translation its coordinates name.
Pose jointMotionPose(const Joint& joint, const double* x_e);

/// ẋ_e = A_e(x) ξ, plus the drift-stabilization term of (A.10)–(A.12) with gain λ ≥ 0 [1/s]
/// (0: pure kinematics). `parent_twist` as in evaluateJoint.
void jointConfigurationRate(const Joint& joint, const double* x_e, const double* xi_e,
                            const Vec6& parent_twist, double stabilization_gain, double* xdot_e);

/// Size of the coordinate constraint residual: ‖RᵀR − I‖_F, |qᵀq − 1|, |c² + s² − 1|; 0 if none.
double jointCoordinateDrift(const Joint& joint, const double* x_e);

/// Projects x_e back onto its constraint manifold (SVD for R, normalization for q and (c, s)).
void projectJointCoordinates(const Joint& joint, double* x_e);

/// Coordinates of the joint for a given motion pose (the part between T_p and T_c). Components the
/// joint cannot produce are dropped (e.g. the off-axis rotation for a revolute joint).
void jointCoordinatesFromMotion(const Joint& joint, const Pose& motion, double* x_e);

/// The angle [rad] or displacement [m] of a joint with hasScalarPosition(type): x₀ for angle
/// coordinates, atan2(s, c) for unit-circle ones.
double jointScalarPosition(const Joint& joint, const double* x_e);
/// Sets x_e to the angle or displacement q (a joint with hasScalarPosition(type)).
void setJointScalarPosition(const Joint& joint, double q, double* x_e);

/// A spring of stiffness k about the rest position q₀ on a joint with hasScalarPosition(type):
/// V = ½ k (q − q₀)² on angle and displacement coordinates; on the unit circle, where an angle is
/// only defined modulo 2π, the periodic V = k (1 − cos(θ − θ₀)) with the same stiffness at q₀.
double jointSpringPotential(const Joint& joint, const double* x_e, double stiffness, double rest);
/// ∂V/∂q of jointSpringPotential: the generalized force of the spring (left-hand side of (3.124)).
double jointSpringForce(const Joint& joint, const double* x_e, double stiffness, double rest);

/// Neutral coordinates (identity motion).
void neutralJointCoordinates(const Joint& joint, double* x_e);

/// Whether a joint type's coordinates name some motions in more than one way that
/// jointCoordinatesFromMotion cannot tell apart: angles modulo 2π (revolute, universal, the
/// planar angle, roll and yaw of Euler angles) and a quaternion's sign.
bool hasAmbiguousCoordinates(JointType type);
/// Puts x_e on the representative of its motion nearest `near_e` (coordinates of the same joint):
/// angles are unwrapped to within π of near's, a quaternion's sign is chosen so that its dot
/// product with near's is ≥ 0. Leaves joints without ambiguous coordinates as they are. Used to
/// keep a reference continuous in time (core/control/base_motion.h).
void alignJointCoordinates(const Joint& joint, double* x_e, const double* near_e);

}  // namespace rbs
