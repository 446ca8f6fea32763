// ModelBuilder: the C++ way to describe a rigid body system. Everything refers to bodies and
// joints by name; build() validates the description (physical validity, tree structure, names)
// and throws ModelError naming the offending element and what is wrong.
#pragma once

#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "core/model/model.h"

namespace rbs {

/// The kinds of element a model description is made of (one per ModelBuilder::add… list), and
/// Model for what belongs to the whole description (gravity, an empty model).
enum class ModelElement {
  Model, Body, Joint, Spring, Damper, JointSpring, ExternalWrench, Actuator, Propeller, LoopClosure, Visual,
  InputSet,
};
inline constexpr int kModelElementCount = static_cast<int>(ModelElement::InputSet) + 1;

/// The part of an element a build error is about; None: the element as a whole (its place in the
/// tree, for example). Named after the spec fields they correspond to.
enum class ModelField {
  None, Name, Gravity,
  Mass, CentreOfMass, Inertia,                                         // BodySpec
  Parent, Child, ParentPlacement, ChildPlacement, Axis, SecondAxis,   // JointSpec
  Armature, RotorCoupling, InitialPosition, InitialPose, InitialVelocity, Limits,
  FirstFrame, SecondFrame, Frames, RestPose, Stiffness, Centre,       // springs, dampers, loops
  RotationalStiffness, Damping, RotationalDamping, RestPosition,
  StabilizationFrequency, StabilizationDamping,
  Joint, Body, Point, Force, Torque,                                   // wrenches, actuators
  Component, Gain, TimeConstant, Direction, TorqueRatio,
  ThrustDirection, ThrustCoefficient, DragCoefficient, Friction, SpeedLimits,  // PropellerSpec
  Origin, Size, Colour, Mesh,                                          // VisualSpec
  Inputs, Rows,                                                        // InputSetSpec
};
inline constexpr int kModelFieldCount = static_cast<int>(ModelField::Rows) + 1;

/// "joint spring", "loop closure", …: the element kinds as messages name them.
const char* modelElementName(ModelElement kind);
/// "centre of mass", "second axis", …: for messages and test output.
const char* modelFieldName(ModelField field);

/// Invalid model description. Structured so that a front end can point at the offending input
/// without reading the text: which kind of element, its declaration index among the elements of
/// that kind (the order of the ModelBuilder::add… calls), its name (a body's name for visuals and
/// external wrenches, a joint's for joint springs; may be empty) and the field. The message says
/// the same in words: "joint 'elbow': axis has norm 0.5; expected a unit vector".
class ModelError : public std::runtime_error {
 public:
  ModelError(ModelElement kind, int index, std::string name, ModelField field, const std::string& message);

  ModelElement kind() const { return kind_; }
  int index() const { return index_; }
  const std::string& name() const { return name_; }
  ModelField field() const { return field_; }

 private:
  ModelElement kind_;
  int index_;
  std::string name_;
  ModelField field_;
};

inline constexpr const char* kWorld = "world";

struct BodySpec {
  std::string name;
  double mass = 0.0;             ///< [kg], > 0
  Vec3 com = Vec3::Zero();       ///< centre of mass in the body frame [m]
  Mat3 inertia = Mat3::Zero();   ///< inertia tensor about the CoM in body axes [kg m²],
                                 ///< symmetric positive semidefinite
};

struct JointSpec {
  std::string name;
  JointType type = JointType::Fixed;
  std::string parent = kWorld;   ///< parent body name or "world"
  std::string child;
  Pose parent_placement;         ///< joint frame in the parent body frame
  Pose child_placement;          ///< child body frame in the joint's moving frame
  Vec3 axis = Vec3::UnitZ();     ///< unit axis (revolute, prismatic, universal first axis)
  Vec3 axis2 = Vec3::UnitY();    ///< unit second axis (universal), not parallel to `axis`
  /// Initial motion pose (rotation for spherical joints; pose for free and planar joints).
  std::optional<Pose> initial_motion;
  /// Initial angle [rad] or displacement [m] of a one-degree-of-freedom joint.
  std::optional<double> initial_position;
  /// Initial velocity coordinates ξ_e (size n_e), empty for zero.
  VecX initial_velocity;
  std::optional<JointLimits> limits;  ///< one-degree-of-freedom joints only
  double armature = 0.0;  ///< one-axis joints: inertia on the joint coordinate (Joint::armature)
  double rotor_coupling = 0.0;  ///< revolute joints: Θ_AC of the geared rotor (Joint::rotor_coupling)
};

struct VisualSpec {
  std::string body;
  Visual::Shape shape = Visual::Shape::Box;
  Vec3 size = Vec3::Ones();  ///< see Visual::size
  std::string mesh_file;
  Pose origin;
  Vec4 color = Vec4(0.7, 0.7, 0.7, 1.0);
};

/// What a loader draws where a mesh cannot be shown (not found, not a mesh file): a 5 cm magenta box
/// at the visual's origin, as the renderer draws for a mesh it fails to read. The loader's warning
/// says so.
inline VisualSpec missingMeshBox(VisualSpec mesh) {
  mesh.shape = Visual::Shape::Box;
  mesh.size = Vec3::Constant(0.05);
  mesh.mesh_file.clear();
  mesh.color = Vec4(1.0, 0.0, 1.0, 1.0);
  return mesh;
}

struct FrameSpec {
  std::string body = kWorld;
  Pose offset;
};

struct SpringSpec {
  std::string name;
  FrameSpec a, b;
  Pose rest;                              ///< rest pose of frame b relative to frame a
  double stiffness = 0.0;                 ///< k [N/m], ≥ 0
  Vec3 center = Vec3::Zero();             ///< h: centre of stiffness in frame b [m]
  Mat3 rotational_stiffness = Mat3::Zero();  ///< Π_s about h [N m/rad], symmetric PSD
};

struct DamperSpec {
  std::string name;
  FrameSpec a, b;                         ///< fluid frame a, moving frame b
  double damping = 0.0;                   ///< d [N s/m], ≥ 0
  Vec3 center = Vec3::Zero();             ///< l: centre of damping in frame b [m]
  Mat3 rotational_damping = Mat3::Zero(); ///< Υ_s about l [N m s/rad], symmetric PSD
};

/// See JointSpringDamper.
struct JointSpringDamperSpec {
  std::string joint;
  double stiffness = 0.0;
  double rest_position = 0.0;
  double damping = 0.0;
  double friction = 0.0;             ///< Coulomb friction μ, ≥ 0
  double friction_velocity = 0.01;   ///< its regularization velocity v_s, > 0
};

struct ExternalWrenchSpec {
  std::string body;
  Vec3 point = Vec3::Zero();
  Vec3 force = Vec3::Zero();
  Vec3 torque = Vec3::Zero();
  bool world_axes = false;
};

struct ActuatorSpec {
  std::string name;
  ActuatorKind kind = ActuatorKind::JointEffort;
  std::string joint;       ///< JointEffort, JointServo, JointSpeedServo
  int component = 0;       ///< JointEffort: velocity coordinate of the joint
  double gain = 1.0;       ///< JointEffort, JointServo: see Actuator::gain (> 0)
  double damping = 0.0;    ///< JointServo: k_D (≥ 0)
  /// JointSpeedServo: the lag's time constant T [s]; the builder sets Actuator::gain = Θ_axis / T
  /// with Θ_axis the rotor's inertia about the joint axis (plus the joint's armature).
  double time_constant = 0.0;
  std::string body;        ///< BodyForce / BodyTorque
  Vec3 point = Vec3::Zero();
  Vec3 direction = Vec3::UnitZ();
  double lower = -1e300;
  double upper = 1e300;
  double torque_ratio = 0.0;  ///< BodyForce: reaction torque per force about `direction` [m]
};

struct PropellerSpec {
  std::string name;
  std::string joint;                      ///< revolute joint carrying the rotor
  Vec3 thrust_direction = Vec3::UnitZ();  ///< rotor body frame; parallel to the joint axis
  double thrust_coefficient = 0.0;        ///< κ_F [N s²] > 0
  double drag_coefficient = 0.0;          ///< κ_T [N m s²] ≥ 0
  double friction = 0.0;                  ///< τ_MB [N m] ≥ 0
  double min_speed = 0.0;                 ///< [rad/s] ≥ 0
  double max_speed = 1e300;               ///< [rad/s] > min_speed
};

/// A convex set of inputs beyond their limits (Model::InputSet): rows · u_S ≤ bounds over the
/// named inputs. build() refuses unknown or repeated inputs, rows of the wrong width, zero or
/// non-finite rows, and a set that is empty together with its inputs' limits.
struct InputSetSpec {
  std::string name;
  std::vector<std::string> inputs;  ///< actuator names
  MatX rows;                        ///< m × inputs.size(), m ≥ 1
  VecX bounds;                      ///< m
};

/// Names of the two inputs a servo-tilted propeller becomes in ModelBuilder::rotorsAsThrustVectors:
/// F cos θ along the thrust direction at zero tilt, F sin θ across it.
std::string axialThrustInputName(const std::string& propeller);
std::string tangentialThrustInputName(const std::string& propeller);

struct LoopClosureSpec {
  std::string name;
  LoopClosure::Kind kind = LoopClosure::Kind::Ball;
  FrameSpec a, b;                ///< Ball, Weld
  std::string follower, leader;  ///< JointCoupling: revolute (angle) or prismatic joints
  double multiplier = 1.0, offset = 0.0;
  double stabilization_frequency = 20.0;
  double stabilization_damping = 1.0;
};

class ModelBuilder {
 public:
  ModelBuilder& setGravity(const Vec3& a_G);
  ModelBuilder& addBody(BodySpec spec);
  ModelBuilder& addJoint(JointSpec spec);
  ModelBuilder& addSpring(SpringSpec spec);
  ModelBuilder& addDamper(DamperSpec spec);
  ModelBuilder& addJointSpringDamper(JointSpringDamperSpec spec);
  ModelBuilder& addExternalWrench(ExternalWrenchSpec spec);
  ModelBuilder& addActuator(ActuatorSpec spec);
  ModelBuilder& addPropeller(PropellerSpec spec);
  ModelBuilder& addLoopClosure(LoopClosureSpec spec);
  ModelBuilder& addInputSet(InputSetSpec spec);
  ModelBuilder& addVisual(VisualSpec spec);
  /// A named frame on a body (Model::frames); its name must differ from every body's and frame's.
  ModelBuilder& addFrame(std::string name, FrameSpec frame);
  /// Whether a body of this name has been added (for importers that extend a builder).
  bool hasBody(const std::string& name) const;
  /// The declaration index (ModelError::index) of the joint named `name`, -1 if there is none: for
  /// front ends locating errors found after build() (checkMassMatrix).
  int jointDeclarationIndex(const std::string& name) const;
  /// How many elements of this kind have been added: the index (ModelError::index) the next one
  /// gets. 1 for ModelElement::Model.
  int count(ModelElement kind) const;

  /// Validates and builds. Throws ModelError.
  Model build() const;

  /// The same system as a rigid-body force model, the one the thesis' controllers are designed on
  /// (5.16)/(5.17): every propeller's joint becomes fixed (rotor at its neutral angle), the
  /// actuators on those joints are dropped, and each propeller becomes a body-force input named
  /// after it — thrust F along its thrust direction with the drag torque ratio −(d·a) κ_T/κ_F of
  /// (4.143), limits κ_F ϖ_min² … κ_F ϖ_max². Everything else is kept, except input sets that
  /// name a dropped actuator. Without propellers: a copy.
  ModelBuilder rotorsAsThrusters() const;

  /// rotorsAsThrusters, except that a propeller whose rotor body hangs from a servo-tilted body (a
  /// revolute joint carrying a `servo` actuator, the bicopter's and tricopter's arms) becomes a
  /// thrust vector: the tilt joint is fixed at θ = 0 as well and its servo dropped, and the
  /// thrust F (cos θ d + sin θ (a × d)) enters linearly as the auxiliary input (F sin θ, F cos θ)
  /// of thesis (4.150): two body forces, axialThrustInputName along d and
  /// tangentialThrustInputName along a × d (d the thrust direction, a the tilt axis), both where
  /// the thrust line meets the tilt axis and with the drag torque ratio, plus an input set named
  /// after the propeller that keeps them in the convex polygon (`sector_chords` outer chords,
  /// core/model/input_sets.h) inside the annular sector κ_F ϖ_min² ≤ F ≤ κ_F ϖ_max², θ within the
  /// servo's limits (the joint's if the servo has none). Their limits are the box around it.
  /// Throws ModelError (the propeller) when the thrust is not perpendicular to the tilt axis (the
  /// tilted thrust would not be linear in those two inputs), the speed range or the tilt range is
  /// unbounded, the sector has no polygon, or two propellers share one tilt joint.
  ModelBuilder rotorsAsThrustVectors(int sector_chords) const;

 private:
  /// Both force models: `sector_chords` = 0 keeps every thrust a scalar.
  ModelBuilder forceModel(int sector_chords) const;
  Vec3 gravity_ = Vec3(0.0, 0.0, -9.81);
  std::vector<BodySpec> bodies_;
  std::vector<JointSpec> joints_;
  std::vector<SpringSpec> springs_;
  std::vector<DamperSpec> dampers_;
  std::vector<JointSpringDamperSpec> joint_spring_dampers_;
  std::vector<ExternalWrenchSpec> external_wrenches_;
  std::vector<ActuatorSpec> actuators_;
  std::vector<PropellerSpec> propellers_;
  std::vector<LoopClosureSpec> loop_closures_;
  std::vector<InputSetSpec> input_sets_;
  std::vector<VisualSpec> visuals_;
  std::vector<std::pair<std::string, FrameSpec>> frames_;
};

/// What is physically wrong with an inertia tensor about the centre of mass (symmetric input): not
/// positive semidefinite (a point mass, 0, and a thin rod, one principal moment 0, are valid
/// bodies; whether every joint direction has inertia is a property of the assembled mass matrix,
/// core/dynamics/mass_matrix_check.h). Empty when it is valid. Used by the builder and by importers
/// that locate the error in a file.
std::string inertiaProblem(const Mat3& inertia_com, double mass);
/// inertiaProblem's tolerance: a principal moment down to −kInertiaRounding times the body's scale —
/// its largest moment, or mass × kRoundingLength² if that is larger — is rounding, not a mass
/// distribution that cannot exist. Files give inertias with six to nine significant digits; a rod-
/// or plate-like tensor written so (or rotated from the inertial frame) can come out a little
/// negative in its smallest moment, and a point mass may come with noise for all of them (iCub's
/// l_ankle_2: 0.2675 kg, moments −1.36e-20, 0, 1.36e-20 kg m²), while a real error is of the order
/// of the moments themselves.
inline constexpr double kInertiaRounding = 1e-6;
/// [m] the length at which a body's mass sets the scale of its moments for the rounding tolerance.
inline constexpr double kRoundingLength = 1e-3;
/// The tensor with its negative principal moments (rounding: inertiaProblem accepted it) set to 0;
/// unchanged when they are within 1e-12 of the largest, the eigen solver's own rounding.
Mat3 withoutRoundingNoise(const Mat3& inertia_com);
/// The tensor with its principal moments below `least` raised to it along their principal axes;
/// unchanged when none is below least − tolerance.
Mat3 withLeastPrincipalMoment(const Mat3& inertia_com, double least, double tolerance = 0.0);
/// MuJoCo's boundmass and boundinertia on one body: its mass raised to `bound_mass` (a massless
/// body's centre of mass put at its origin) and its principal moments below `bound_inertia` raised
/// to it. True when anything was raised. For robot files with massless or point-mass links.
bool applyLowerBounds(BodySpec& body, double bound_mass, double bound_inertia);
/// The warning that says which bodies the bounds raised ("bound_mass 0.001 kg and bound_inertia
/// 1e-05 kg m² raised the mass or the least principal moment of 2 bodies: 'a', 'b'").
std::string lowerBoundsWarning(double bound_mass, double bound_inertia, const std::vector<std::string>& raised);

/// By how much the principal moments violate the triangle inequality I₁ + I₂ ≥ I₃ that every real
/// mass distribution satisfies: max(0, I₃ − I₁ − I₂) [kg m²]. CAD exports violate it slightly;
/// loaders warn (with the amount) rather than refuse.
double triangleInequalityExcess(const Mat3& inertia_com);

/// MuJoCo's `balanceinertia`: an inertia violating the triangle inequality becomes isotropic with
/// the mean of its principal moments (trace / 3, which satisfies it); a valid one is returned as it is.
Mat3 balanceInertia(const Mat3& inertia_com);

/// What the loaders do with an inertia that violates the triangle inequality: keep it, or with
/// `balance` replace it by balanceInertia. Returns the inertia to use and sets `warning` to what
/// happened ("principal moments a, b, c kg m² violate … by e kg m²; …"), empty when the inertia is
/// valid. `remedy` names the switch in the user's terms ("--balance-inertia").
Mat3 applyTriangleInequalityPolicy(const Mat3& inertia_com, bool balance, const std::string& remedy,
                                   std::string& warning);

/// Spatial inertia (3.51) about the body-frame origin from mass, CoM and CoM inertia.
Mat6 spatialInertia(double mass, const Vec3& com, const Mat3& inertia_com);
/// K (or D) of the form [k I, k wed(h)ᵀ; k wed(h), Π_s + k wed(h) wed(h)ᵀ] (3.68, 3.72).
Mat6 rigidBodyStiffness(double k, const Vec3& center, const Mat3& rotational_about_center);

}  // namespace rbs
