// The immutable description of a rigid body system: bodies, the joint tree, force elements,
// actuators and loop closures. Built (and validated) by ModelBuilder; evaluated by the free
// functions in core/dynamics with a per-model Workspace.
#pragma once

#include <optional>
#include <limits>
#include <string>
#include <string_view>
#include <vector>

#include "core/math/se3.h"
#include "core/model/joint.h"

namespace rbs {

/// A rigid body. Its frame is placed where the model puts it (a joint centre, a hub, …), not
/// necessarily at the centre of mass (thesis 3.4.1).
struct Body {
  std::string name;
  double mass = 0.0;                      ///< m [kg]
  Vec3 com = Vec3::Zero();                ///< s: centre of mass in the body frame [m]
  Mat3 inertia_com = Mat3::Zero();        ///< inertia tensor about the CoM, body axes [kg m²]
  Mat3 inertia_origin = Mat3::Zero();     ///< Θ about the body-frame origin (parallel axes)
  Mat6 spatial_inertia = Mat6::Zero();    ///< M_b = [m I, m wed(s)ᵀ; m wed(s), Θ] (3.51)

};

/// A frame rigidly attached to a body (body = −1: the world frame).
struct Frame {
  int body = -1;
  Pose offset;  ///< the frame in the body frame
};

/// A named frame on a body that is not a body of its own: a URDF link merged into the body it is
/// fixed to. Recorded as the channels frame.NAME.px … qz, like a body's.
struct NamedFrame {
  std::string name;
  Frame frame;
};

/// Linear spring between two frames a and b (thesis 3.3.4/3.4.4): potential
/// ½ ‖(G_ab − G_R)ᵀ‖²_{K'} with K' = Wed(K) and K = [k I, k wed(h)ᵀ; k wed(h), Π] (3.72), where
/// Π = Π_s + k wed(h) wed(h)ᵀ. Forces from (3.116).
struct Spring {
  std::string name;
  Frame a, b;
  Pose rest;                         ///< G_R: rest pose of frame b relative to frame a
  Mat6 stiffness = Mat6::Zero();     ///< K (6×6)
  Mat4 stiffness_moment = Mat4::Zero();  ///< K' = Wed(K) (4×4)
};

/// Linear viscous damper: a fluid attached to frame a, frame b moving through it (3.117):
/// Rayleigh function ½ ^aξ_bᵀ D ^aξ_b with D = [d I, d wed(l)ᵀ; d wed(l), Υ].
struct Damper {
  std::string name;
  Frame a, b;
  Mat6 damping = Mat6::Zero();
};

/// Spring, damper and friction acting directly on a one-degree-of-freedom joint's coordinate:
/// revolute, prismatic: V = ½ k (q − q₀)²; revolute_unit_circle (no angle exists globally):
/// V = k (1 − cos(θ − θ₀)). Dissipative force d q̇ + μ tanh(q̇ / v_s) for all three: viscous damping
/// and Coulomb friction μ sign(q̇), regularized below the velocity v_s (smooth, so that adaptive
/// steppers can integrate it; a small v_s makes the equations stiff, docs/BENCHMARKS.md).
struct JointSpringDamper {
  int joint = -1;
  double stiffness = 0.0;  ///< [N m/rad] or [N/m]
  double rest_position = 0.0;
  double damping = 0.0;    ///< [N m s/rad] or [N s/m]
  double friction = 0.0;   ///< μ [N m] or [N]
  double friction_velocity = 0.01;  ///< v_s [rad/s] or [m/s], > 0
};

/// A constant wrench on a body: force and torque at `point` (body frame), given in body or world
/// axes.
struct ExternalWrench {
  int body = -1;
  Vec3 point = Vec3::Zero();
  Vec3 force = Vec3::Zero();
  Vec3 torque = Vec3::Zero();
  bool world_axes = false;
};

/// A scripted push (scene section `pushes`): a force through a body-fixed point and a torque, both
/// in world axes, for t in [t_start, t_start + duration). A disturbance, not part of the system the
/// controllers are designed on: the simulator applies it in its window (sim/push_forces.h).
struct Push {
  int body = -1;
  Vec3 point = Vec3::Zero();   ///< body frame [m]
  Vec3 force = Vec3::Zero();   ///< world axes [N]
  Vec3 torque = Vec3::Zero();  ///< world axes [N m]
  double t_start = 0.0;        ///< [s]
  double duration = 0.0;       ///< [s], > 0
  double t_end() const { return t_start + duration; }
};

/// Caps on the GUI's mouse pull and twist (scene section `mouse`), for a vehicle whose recovery
/// envelope is smaller than the limits derived from its weight and control torques
/// (sim/push_forces.h, PushLimits): the smaller of the two applies.
struct MouseCaps {
  double pull = std::numeric_limits<double>::infinity();   ///< [N]
  double twist = std::numeric_limits<double>::infinity();  ///< [N m]
};

enum class ActuatorKind {
  JointEffort,  ///< force/torque gain · u on one velocity coordinate of a joint (motor: k_M i)
  BodyForce,    ///< force along a body-fixed direction at a body-fixed point
  BodyTorque,   ///< torque about a body-fixed axis
  /// Position servo on a one-axis joint in angle (or displacement) coordinates, input the
  /// reference angle θ_R: τ = gain (θ_R − θ) − damping θ̇ — the tilt servo's PD loop (5.2).
  JointServo,
  /// Speed servo on a rotor joint, input the commanded rate ϖ_R: τ = gain (ϖ_R − ϖ) + τ_load(ϖ),
  /// τ_load the drag and friction of the joint's propeller (if any). The rotor then follows ϖ_R
  /// as a first-order lag with time constant Θ_axis / gain: the "first-order lag" motor model.
  JointSpeedServo,
};

/// True for the kinds that act on a joint coordinate (effort and the servos); the others act on a
/// body (Actuator::body).
inline bool actsOnJoint(ActuatorKind kind) {
  return kind == ActuatorKind::JointEffort || kind == ActuatorKind::JointServo || kind == ActuatorKind::JointSpeedServo;
}

/// One input u_i and its column of B(x): f_E = B(x) u + f_E(x, ξ, 0) — affine in u; the servo
/// kinds put their state-dependent part (−gain θ − damping θ̇, −gain ϖ + τ_load) in f_E(x, ξ, 0).
struct Actuator {
  std::string name;
  ActuatorKind kind = ActuatorKind::JointEffort;
  int joint = -1;       ///< JointEffort, JointServo, JointSpeedServo
  int component = 0;    ///< JointEffort: which velocity coordinate of the joint (servos: 0)
  /// JointEffort: torque (force) per unit input, e.g. k_M [N m/A]; JointServo: k_P [N m/rad];
  /// JointSpeedServo: k_V [N m s/rad].
  double gain = 1.0;
  double damping = 0.0;  ///< JointServo: k_D [N m s/rad]
  int body = -1;        ///< BodyForce, BodyTorque
  Vec3 point = Vec3::Zero();          ///< BodyForce: application point (body frame)
  Vec3 direction = Vec3::UnitZ();     ///< BodyForce/BodyTorque: unit direction (body frame)
  double lower = -1e300;              ///< input limits (used by allocation and the simulator)
  double upper = 1e300;
  /// BodyForce only: a torque of torque_ratio · u about `direction` comes with the force — the
  /// drag torque of a propeller, κ_T/κ_F = b_F (thesis (4.143), (5.17)); its sign is the spin sense.
  double torque_ratio = 0.0;          ///< [m]
  /// BodyForce/BodyTorque: the body wrench per unit input at the body origin (body frame),
  /// [d; p × d + torque_ratio d] or [0; d] (set by the builder from the fields above).
  Vec6 unit_wrench = Vec6::Zero();
};

/// A propeller on the revolute joint that carries its rotor (thesis (5.3)): with ϖ the joint's
/// rate, thrust κ_F ϖ|ϖ| along `thrust_direction` at the rotor-body origin, aerodynamic drag torque
/// −κ_T ϖ|ϖ| about the spin axis on the rotor, and bearing friction −τ_MB tanh(ϖ / 1 rad/s) on the
/// joint (5.9e; opposing the spin, smoothed at rest). ϖ|ϖ| instead of ϖ² keeps the model odd in
/// ϖ (a reversed rotor pushes the other way). The motor is a separate actuator on the same joint.
struct Propeller {
  std::string name;
  int joint = -1;                          ///< revolute joint (angle or unit circle); rotor = its child
  Vec3 thrust_direction = Vec3::UnitZ();   ///< unit, rotor body frame, parallel to the spin axis
  Vec3 spin_axis = Vec3::UnitZ();          ///< the joint axis in the rotor body frame (derived)
  double thrust_coefficient = 0.0;         ///< κ_F [N s²]
  double drag_coefficient = 0.0;           ///< κ_T [N m s²]
  double friction = 0.0;                   ///< τ_MB [N m]
  double min_speed = 0.0;                  ///< ϖ_min [rad/s] for allocation and filters
  double max_speed = 1e300;                ///< ϖ_max [rad/s]

  /// τ_load = κ_T ϖ|ϖ| + τ_MB tanh(ϖ): the torque the motor must supply to hold the rate ϖ.
  double loadTorque(double rate) const;
};

/// A convex set that a group of inputs must stay in beside their own limits: rows · u_S ≤ bounds
/// with u_S the listed inputs in order (thesis (4.63), W u ≤ l). The allocation's QP respects it
/// and the simulator projects any other input onto it (core/model/input_sets.h).
struct InputSet {
  std::string name;
  std::vector<int> inputs;  ///< indices into Model::actuators, distinct
  MatX rows;                ///< m × inputs.size()
  VecX bounds;              ///< m
};

/// A constraint closing a kinematic loop (thesis 3.5): the origins of frames a and b coincide
/// (Ball, 3 rows), or the frames coincide (Weld, 6 rows). Enforced at acceleration level,
/// Z ξ̇ = z, with Baumgarte stabilization ψ̈ + 2ζω ψ̇ + ω² ψ = 0 (A.13b).
struct LoopClosure {
  /// Ball: frame origins coincide (3 rows); Weld: the frames coincide (6 rows); JointCoupling: the
  /// positions of two one-degree-of-freedom joints with angle or displacement coordinates obey
  /// q_follower = multiplier q_leader + offset (1 row; a URDF <mimic>), frames unused.
  enum class Kind { Ball, Weld, JointCoupling };
  std::string name;
  Kind kind = Kind::Ball;
  Frame a, b;
  int follower = -1, leader = -1;  ///< JointCoupling: joint indices
  double multiplier = 1.0, offset = 0.0;
  double stabilization_frequency = 20.0;  ///< ω [rad/s]
  double stabilization_damping = 1.0;     ///< ζ
  int rows() const { return kind == Kind::Ball ? 3 : kind == Kind::Weld ? 6 : 1; }
};

/// What the 3D view draws for a body (no influence on the dynamics).
struct Visual {
  enum class Shape { Box, Cylinder, Sphere, Capsule, Mesh };
  int body = -1;
  Shape shape = Shape::Box;
  /// Box: edge lengths (x, y, z); cylinder, capsule: (radius, length, 0) with the axis along z of
  /// `origin` (capsule length between the cap centres); sphere: (radius, 0, 0). Mesh: scale.
  Vec3 size = Vec3::Ones();
  std::string mesh_file;  ///< Mesh: the file (loaders resolve it: core/io/resource_path.h); relative: to assets/
  Pose origin;            ///< the shape's frame in the body frame
  Vec4 color = Vec4(0.7, 0.7, 0.7, 1.0);  ///< RGBA in [0, 1]
};

/// Limits of a one-degree-of-freedom joint (for the UI, controllers and saturation; the dynamics
/// do not enforce position limits).
struct JointLimits {
  double lower = -1e300, upper = 1e300;  ///< position [rad] or [m]
  double effort = 1e300;                 ///< |force/torque| [N] or [N m]
  double velocity = 1e300;               ///< |rate| [rad/s] or [m/s]
};

/// Configuration and velocity coordinates z = [x; ξ].
struct State {
  VecX x;   ///< ν redundant configuration coordinates
  VecX xi;  ///< n velocity coordinates
};

struct Model {
  std::vector<Body> bodies;   ///< topological order: a parent precedes its children
  std::vector<Joint> joints;  ///< joints[b] is the edge parent → body b
  std::vector<Spring> springs;
  std::vector<Damper> dampers;
  std::vector<JointSpringDamper> joint_spring_dampers;
  std::vector<ExternalWrench> external_wrenches;
  std::vector<Push> pushes;  ///< applied by the simulator, not by computeForwardDynamics
  MouseCaps mouse_caps;      ///< on the mouse's pushes (sim/push_forces.h)
  std::vector<Actuator> actuators;
  std::vector<Propeller> propellers;
  std::vector<InputSet> input_sets;  ///< convex sets of inputs beyond their limits
  std::vector<LoopClosure> loop_closures;
  std::vector<NamedFrame> frames;  ///< named frames on bodies (merged URDF links)
  std::vector<Visual> visuals;
  std::vector<std::optional<JointLimits>> joint_limits;  ///< per joint (index = joint index)
  Vec3 gravity = Vec3(0.0, 0.0, -9.81);  ///< a_G [m/s²]

  int nx = 0;   ///< ν
  int nxi = 0;  ///< n
  int constraint_rows = 0;  ///< Σ rows of the loop closures

  /// For every body, the velocity columns its Jacobian may use: the columns of its own joint and of
  /// all ancestors' joints, ascending. J_b is zero outside them.
  std::vector<std::vector<int>> support;
  /// For every velocity coordinate, the previous coordinate on its path to the root (the previous
  /// coordinate of the same joint, else the last one of the nearest ancestor joint that has any),
  /// −1 at the root. M_ij ≠ 0 only between such ancestors: the sparsity the factorization uses.
  std::vector<int> dof_parent;
  /// Start of the contiguous run of coordinate i's ancestor chain: dof_parent[t] = t − 1 for all
  /// t in (dof_run_start[i], i]. Lets the factorization work on vector segments.
  std::vector<int> dof_run_start;
  /// True for a long single chain of coordinates (dof_parent[i] = i − 1, n ≥ 24): M has no tree
  /// sparsity and the dense blocked Cholesky is the faster factorization.
  bool dofs_form_chain = false;
  /// True when M(x) does not depend on x: every body hangs from the world by a joint whose motion
  /// subspace S_e is constant (free and spherical joints with body-fixed ω, one-axis and planar
  /// joints), so M = diag(S_eᵀ M_b S_e) + armature. A Workspace then computes and factorizes M
  /// once (a free-flying vehicle with body-twist coordinates, thesis (3.57)).
  bool constant_mass_matrix = false;
  /// One body on a free joint at the world with body-twist coordinates and no child placement
  /// (S_e = I), forced only by body forces/torques and constant wrenches: a multicopter as in
  /// thesis §4.8.3. Each generalized force is then the body wrench itself (S_e = I): the
  /// backward pass that maps body wrenches to generalized forces is skipped, and the forward
  /// dynamics forms all force terms in one pass.
  bool single_rigid_body = false;
  /// True when computeForwardDynamics finds ξ̇ by the articulated-body recursion (O(n), M is
  /// neither formed nor factorized): models without loop closures whose M depends on x and whose
  /// joint rotations are orthonormal at every x (angles, unit-circle pairs, quaternions, whose
  /// rotation is that of q/|q|). Loop closures need M⁻¹Zᵀ, a constant M is factorized once, and rotation-matrix
  /// coordinates drift off SO(3), where only the composite path evaluates the thesis' equations
  /// as written; those keep the composite-rigid-body path (M, then its factorization).
  bool articulated_body_dynamics = false;
  /// For every body, the body whose origin the articulated-body recursion works about: its tree's
  /// root, or further down while the root's joints are prismatic or fixed with one child each
  /// (carriers that move a vehicle far from the world origin), so lever arms stay small.
  std::vector<int> recursion_origin_body;

  State initial_state;  ///< from the builder's initial joint values (neutral where none given)

  int numBodies() const { return static_cast<int>(bodies.size()); }
  int numInputs() const { return static_cast<int>(actuators.size()); }
  /// Index of the named body/joint/actuator, −1 if there is none.
  int bodyIndex(std::string_view name) const;
  int jointIndex(std::string_view name) const;
  int actuatorIndex(std::string_view name) const;
  /// Index of the propeller on joint `joint`, −1 if there is none.
  int propellerOnJoint(int joint) const;

  /// A state with every joint at its neutral coordinates and zero velocity.
  State neutralState() const;
  /// Largest coordinate drift over all joints (see jointCoordinateDrift).
  double coordinateDrift(const VecX& x) const;
  /// Projects every joint's coordinates onto its constraint manifold.
  void projectCoordinates(VecX& x) const;
};

/// Sets the follower of every joint coupling (LoopClosure::Kind::JointCoupling) to
/// multiplier · leader + offset, in position and velocity, so that a state starts on the
/// constraint (repeated passes resolve chains declared in any order).
void satisfyJointCouplings(const Model& model, State& state);

}  // namespace rbs
