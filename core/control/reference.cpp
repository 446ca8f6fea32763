// Reference generators (core/control/reference.h, docs/SCENE_FORMAT.md "Reference generators").
//
// Every generator produces target motions per joint and converts them to the model's
// coordinates:
//  - the base (first joint of type free, free_quaternion, planar, spherical, spherical_quaternion,
//    spherical_euler_zyx or spherical_absolute whose parent body is the world or welded to it by
//    fixed joints): a world pose G_b(t) of the base body with body twist V_b = [v; ω] and V̇_b
//    (free and spherical types), or the planar coordinates (p_x, p_y, θ) of the joint's moving
//    frame in the joint plane (planar type). With C = (world pose of the parent) · T_p, the joint
//    motion is M = C⁻¹ G_b T_c⁻¹ (the rotation only for spherical types); then
//    x_e = jointCoordinatesFromMotion(M), ξ_e = S_e⁺ V, ξ̇_e = S_e⁺ (V̇ − σ_e) with
//    V = Ad_{T_c}⁻¹ W the child twist of the motion twist W (for free types V = V_b);
//  - scalar joints (revolute, revolute_unit_circle, prismatic) in index order: q, q̇, q̈;
//  - all other joints: held at model.initial_state with ξ = 0.
// Angles and quaternion signs of the base are kept continuous in time (a knot table,
// core/control/knot_table.h), so x_R(t) is differentiable and ẋ_R = A(x_R) ξ_R holds.
#include "core/control/reference.h"

#include <algorithm>
#include <cmath>
#include <functional>
#include <numbers>
#include <optional>

#include "core/control/flatness.h"
#include "core/control/knot_table.h"
#include "core/control/reference_settings_reader.h"
#include "core/control/reference_steps.h"
#include "core/control/tracking.h"
#include "core/control/trajectory.h"
#include "core/dynamics/inverse_kinematics.h"
#include "core/math/time_grid.h"

namespace rbs {
namespace {

using flat::Vec2;
using traj::Jet;
using traj::Path;

constexpr double kTwoPi = 2.0 * std::numbers::pi;

const std::vector<std::string>& generatorNames() {
  static const std::vector<std::string> names{"constant",  "polynomial",     "sinusoid",   "circle",
                                              "waypoints", "constant_twist", "half_circle"};
  return names;
}

bool isFreeType(JointType t) {
  return t == JointType::Free || t == JointType::FreeQuaternion;
}

// ---- the generated reference ------------------------------------------------------------------

enum class AttitudeMode {
  Fixed,    ///< constant attitude
  Heading,  ///< R = R_z(ψ(t)) (planar: θ = ψ(t))
  Follow,   ///< turns with the circle's arc angle about its normal
  Flat,     ///< thrust direction from the path (flatness)
  Twist,    ///< constant body twist from a start pose
};

using SmallMat = Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, 0, 6, 6>;
using Anchor = std::array<double, 4>;

/// World pose of the base body with body twist and its derivative.
struct BodyMotion {
  Pose G;
  Vec6 V = Vec6::Zero();
  Vec6 V_dot = Vec6::Zero();
};

/// Planar joint coordinates and derivatives (plane coordinates of the joint's moving frame).
struct PlanarMotion {
  Vec2 p = Vec2::Zero(), p_dot = Vec2::Zero(), p_ddot = Vec2::Zero();
  double angle = 0.0, angle_dot = 0.0, angle_ddot = 0.0;
};

class GeneratedReference final : public Reference {
 public:
  void sample(double t, ReferenceSample& out) const override;

  // Model data (copied, so the reference does not depend on the model's lifetime).
  std::vector<Joint> joints;
  VecX x0;
  int nxi = 0;

  // Base.
  int base = -1;
  bool base_driven = false;
  Pose frame;                          ///< C: world pose of the base joint frame
  std::unique_ptr<Path> position;      ///< world (free) or plane (planar) position; null: fixed
  Vec3 fixed_position = Vec3::Zero();  ///< free: world; planar: (p_x, p_y, 0)
  std::unique_ptr<Path> heading;       ///< ψ(t) (Heading, Flat with yaw) or planar θ(t)
  Mat3 fixed_R = Mat3::Identity();     ///< Fixed/Follow (free, spherical)
  double fixed_angle = 0.0;            ///< Fixed/Follow (planar)
  AttitudeMode attitude = AttitudeMode::Fixed;
  const traj::CirclePath* circle = nullptr;  ///< Follow (owned by `position`)
  Vec3 follow_axis = Vec3::UnitZ();          ///< Follow, world
  double follow_phi0 = 0.0;
  bool integrated_heading = false;    ///< Flat: heading integrated by (5.70)
  double yaw_rate = 0.0;              ///< ω_zR of the integration
  double initial_yaw = 0.0;           ///< heading at t = 0 of the integration
  double epsilon = 0.0;               ///< Flat: y = r + ε (thrust axis)
  double drag_per_mass = 0.0;         ///< Flat, free base: d/m of the linear drag [1/s]
  Vec3 flat_point = Vec3::Zero();     ///< Flat, free base: the body point y follows (body frame)
  Vec3 gravity = Vec3::Zero();        ///< a_G (world)
  Vec2 plane_gravity = Vec2::Zero();  ///< a_G in the joint plane
  Pose twist_origin;          ///< Twist: pose at t = 0 (free, spherical: world; planar: plane)
  Vec6 twist = Vec6::Zero();  ///< Twist: constant body twist [v; ω]
  bool continuity = false;    ///< unwrap angles / align quaternion signs of the base

  // Steps after the base (core/control/reference_steps.h).
  std::optional<SuspendedLoadStep> load;  ///< option `suspended_load`: the path moves the load
  ScalarJointPaths joint_paths;

  void prepareTables();

 private:
  void sampleBase(double t, double* x_e, double* xi_e, double* xidot_e) const;
  void rawBase(double t, double* x_e, double* xi_e, double* xidot_e) const;
  BodyMotion bodyMotion(double t) const;
  PlanarMotion planarMotion(double t) const;
  void positionJets(double t, Jet y[3]) const;
  flat::AttitudeJet integratedAttitude(double t, const flat::Vec3Jet& z) const;
  /// `z_end`, when given, is the thrust-direction jet at t1 (the caller has it already).
  Vec3 integrateHeading(Vec3 x, double t0, double t1, const flat::Vec3Jet* z_end = nullptr) const;
  flat::Vec3Jet thrustAxis(double t) const;
  Anchor anchorOf(const double* x_e) const;
  void align(double* x_e, const Anchor& anchor) const;
  /// Fixed, heading and follow attitudes (not flat, not twist).
  flat::AttitudeJet prescribedAttitude(double t) const;

  KnotTable<Vec3> heading_table_;   ///< body x axis of the integrated heading
  KnotTable<Anchor> anchor_table_;  ///< continuous base angles / quaternion
  /// S_e⁺ = (S_eᵀS_e)⁻¹S_eᵀ of a root base joint whose S_e is constant (free, spherical): then
  /// ξ_e = S_e⁺ V and ξ̇_e = S_e⁺ V̇ (σ_e = 0) without a factorization per sample. Empty otherwise.
  SmallMat base_velocity_map_;
};

void GeneratedReference::prepareTables() {
  if (base >= 0) {
    const Joint& j = joints[base];
    if (j.parent < 0 && j.type != JointType::Planar && hasConstantMotionSubspace(j.type)) {
      JointMotion jm;
      const double zero[6] = {0, 0, 0, 0, 0, 0};
      evaluateJoint(j, x0.data() + j.x_offset, zero, Vec6::Zero(), Vec6::Zero(), jm);
      const SmallMat StS = jm.S.transpose() * jm.S;
      base_velocity_map_ = StS.ldlt().solve(SmallMat(jm.S.transpose()));
    }
  }
  if (integrated_heading) {
    heading_table_.reset(
        [this] {
          const flat::Vec3Jet z = thrustAxis(0.0);
          return Vec3(flat::attitudeFromYaw(z, traj::constantJet(initial_yaw)).R.col(0));
        },
        [this](const Vec3& x, long from, long to) {
          const double t1 = to * KnotTable<Vec3>::kStep;
          const flat::Vec3Jet z = thrustAxis(t1);
          const Vec3 next = integrateHeading(x, from * KnotTable<Vec3>::kStep, t1, &z);
          return Vec3((next - next.dot(z.v) * z.v).normalized());
        });
  }
  if (continuity) {
    anchor_table_.reset(
        [this] {
          double x[12], xi[6], xidot[6];
          rawBase(0.0, x, xi, xidot);
          return anchorOf(x);
        },
        [this](const Anchor& a, long, long to) {
          double x[12], xi[6], xidot[6];
          rawBase(to * KnotTable<Anchor>::kStep, x, xi, xidot);
          align(x, a);
          return anchorOf(x);
        });
  }
}

void GeneratedReference::positionJets(double t, Jet y[3]) const {
  for (int i = 0; i < 3; ++i)
    y[i] = position && i < position->dim() ? position->component(t, i)
                                           : traj::constantJet(fixed_position(i));
}

flat::Vec3Jet GeneratedReference::thrustAxis(double t) const {
  Jet y[3];
  positionJets(t, y);
  return flat::thrustDirection(y, gravity, drag_per_mass);
}

Vec3 GeneratedReference::integrateHeading(Vec3 x, double t0, double t1, const flat::Vec3Jet* z_end) const {
  // RK4 on Ṙ_x = ω_z R_y − ω_y R_z (5.70); R_z, Ṙ_z from the path. Steps of at most 2 ms (one
  // between neighbouring knots, so a sample costs one step): local error ~(|ω| h)⁵/120 ≲ 1e-12 at
  // the looping's rates. A sample still depends on t only, not on what was sampled before.
  // The path is evaluated once per distinct time (k2 and k3 share the midpoint; a step's end is
  // the next one's start): the flat jets are the expensive part.
  constexpr double kMaxStep = 0.002;
  // stepCount: the knot times k·h carry rounding that grows with t (one step between knots must
  // stay one step at 24 h, where 47 % of the spans exceeded 2 ms by more than 1e-9 of it).
  const int substeps = std::max(1, static_cast<int>(stepCount(t0, t1, kMaxStep)));
  const double dt = (t1 - t0) / substeps;
  auto rate = [this](const flat::Vec3Jet& z, const Vec3& xa) { return flat::headingRate(xa, z.v, z.d1, yaw_rate); };
  flat::Vec3Jet z_a = thrustAxis(t0);
  for (int s = 0; s < substeps; ++s) {
    const double ta = t0 + s * dt;
    const flat::Vec3Jet z_m = thrustAxis(ta + 0.5 * dt);
    const flat::Vec3Jet z_b = s + 1 == substeps && z_end ? *z_end : thrustAxis(ta + dt);
    const Vec3 k1 = rate(z_a, x);
    const Vec3 k2 = rate(z_m, x + 0.5 * dt * k1);
    const Vec3 k3 = rate(z_m, x + 0.5 * dt * k2);
    const Vec3 k4 = rate(z_b, x + dt * k3);
    x += dt / 6.0 * (k1 + 2.0 * k2 + 2.0 * k3 + k4);
    z_a = z_b;
  }
  return x;
}

flat::AttitudeJet GeneratedReference::integratedAttitude(double t, const flat::Vec3Jet& z) const {
  long knot = 0;
  const Vec3 x_knot = heading_table_.at(t, knot);
  const Vec3 x = integrateHeading(x_knot, knot * KnotTable<Vec3>::kStep, t, &z);
  return flat::attitudeFromAxis(z, x, yaw_rate, 0.0);
}

flat::AttitudeJet GeneratedReference::prescribedAttitude(double t) const {
  flat::AttitudeJet att;
  switch (attitude) {
    case AttitudeMode::Heading: {
      const Jet psi = heading->component(t, 0);
      att.R = axisAngleRotation(Vec3::UnitZ(), psi[0]);
      att.omega = Vec3(0.0, 0.0, psi[1]);
      att.omega_dot = Vec3(0.0, 0.0, psi[2]);
      break;
    }
    case AttitudeMode::Follow: {
      // R(t) = Rot(n, φ − φ₀) R_fixed: ω = Rᵀ n φ̇ (body), and Rᵀ n is constant, so ω̇ = Rᵀ n φ̈.
      const Jet phi = circle->arc().angle(t);
      att.R = axisAngleRotation(follow_axis, phi[0] - follow_phi0) * fixed_R;
      const Vec3 n_body = att.R.transpose() * follow_axis;
      att.omega = n_body * phi[1];
      att.omega_dot = n_body * phi[2];
      break;
    }
    default:
      att.R = fixed_R;
      break;
  }
  return att;
}

BodyMotion GeneratedReference::bodyMotion(double t) const {
  BodyMotion m;
  if (attitude == AttitudeMode::Twist) {
    // G(t) = G₀ exp(t wed V): the body twist is V at all times.
    m.G = twist_origin * expSE3(t * twist);
    m.V = twist;
    return m;
  }
  Jet y[3];
  positionJets(t, y);
  if (attitude == AttitudeMode::Flat) {
    const auto z = flat::thrustDirection(y, gravity, drag_per_mass);
    const flat::AttitudeJet att = integrated_heading
                                      ? integratedAttitude(t, z)
                                      : flat::attitudeFromYaw(z, heading->component(t, 0));
    const auto s = flat::freeFlatSample(y, att, flat_point + epsilon * Vec3::UnitZ());
    m.G = Pose{s.R, s.r};
    m.V = s.twist;
    m.V_dot = s.twist_dot;
    return m;
  }
  const flat::AttitudeJet att = prescribedAttitude(t);
  Vec3 r(y[0][0], y[1][0], y[2][0]);
  Vec3 r_dot(y[0][1], y[1][1], y[2][1]);
  Vec3 r_ddot(y[0][2], y[1][2], y[2][2]);
  if (load) load->baseFromLoad(y, att, r, r_dot, r_ddot);  // y is the load's centre of mass
  m.G = Pose{att.R, r};
  const Vec3 v = att.R.transpose() * r_dot;
  m.V << v, att.omega;
  // v = Rᵀṙ ⇒ v̇ = Rᵀr̈ − ω × v.
  m.V_dot << att.R.transpose() * r_ddot - att.omega.cross(v), att.omega_dot;
  return m;
}

PlanarMotion GeneratedReference::planarMotion(double t) const {
  PlanarMotion m;
  if (attitude == AttitudeMode::Twist) {
    // Planar G(t) = G₀ exp(t V) with V = (v_x, v_y, ω): θ = θ₀ + ω t, ṗ = R(θ) v,
    // p̈ = ω R(θ) J v (J: rotation by +90°).
    const Pose E = expSE3(t * twist);
    const double w = twist(5);
    m.angle = fixed_angle + w * t;
    m.p = fixed_position.head<2>() + twist_origin.R.topLeftCorner<2, 2>() * E.r.head<2>();
    const Eigen::Matrix2d R = Eigen::Rotation2Dd(m.angle).toRotationMatrix();
    const Vec2 v(twist(0), twist(1));
    m.p_dot = R * v;
    m.p_ddot = w * R * Vec2(-v.y(), v.x());
    m.angle_dot = w;
    return m;
  }
  Jet y[3];
  positionJets(t, y);
  if (attitude == AttitudeMode::Flat) {
    const auto s = flat::planarFlatSample(y, plane_gravity, epsilon);
    m.p = s.p;
    m.p_dot = s.p_dot;
    m.p_ddot = s.p_ddot;
    m.angle = s.angle;
    m.angle_dot = s.angle_dot;
    m.angle_ddot = s.angle_ddot;
    return m;
  }
  for (int i = 0; i < 2; ++i) {
    m.p(i) = y[i][0];
    m.p_dot(i) = y[i][1];
    m.p_ddot(i) = y[i][2];
  }
  if (attitude == AttitudeMode::Heading) {
    const Jet a = heading->component(t, 0);
    m.angle = a[0];
    m.angle_dot = a[1];
    m.angle_ddot = a[2];
  } else if (attitude == AttitudeMode::Follow) {
    const Jet phi = circle->arc().angle(t);
    m.angle = fixed_angle + phi[0] - follow_phi0;
    m.angle_dot = phi[1];
    m.angle_ddot = phi[2];
  } else {
    m.angle = fixed_angle;
  }
  return m;
}

void GeneratedReference::rawBase(double t, double* x, double* xi, double* xidot) const {
  const Joint& j = joints[base];
  if (j.type == JointType::Planar) {
    // ξ = (v, ω) with v = R(θ)ᵀ ṗ; ξ̇ = (R(θ)ᵀ p̈ − ω J v, θ̈) (σ_e = 0 for the planar joint).
    const PlanarMotion m = planarMotion(t);
    const Eigen::Matrix2d R = Eigen::Rotation2Dd(m.angle).toRotationMatrix();
    const Vec2 v = R.transpose() * m.p_dot;
    const Vec2 v_dot = R.transpose() * m.p_ddot - m.angle_dot * Vec2(-v.y(), v.x());
    x[0] = m.p.x();
    x[1] = m.p.y();
    x[2] = m.angle;
    xi[0] = v.x();
    xi[1] = v.y();
    xi[2] = m.angle_dot;
    xidot[0] = v_dot.x();
    xidot[1] = v_dot.y();
    xidot[2] = m.angle_ddot;
    return;
  }
  const BodyMotion b = bodyMotion(t);
  Pose M;
  Vec6 V, V_dot;
  if (isFreeType(j.type)) {
    // G_b = C M T_c ⇒ M = C⁻¹ G_b T_c⁻¹; the child twist of the motion is V_b itself.
    M = frame.inverse() * b.G * j.child_placement.inverse();
    V = b.V;
    V_dot = b.V_dot;
  } else {
    rotationJointMotion(j, frame.R, b.G.R, b.V.tail<3>(), b.V_dot.tail<3>(), M, V, V_dot);
  }
  jointCoordinatesFromMotion(j, M, x);
  if (base_velocity_map_.size() > 0) {
    Eigen::Map<VecX>(xi, j.nxi).noalias() = base_velocity_map_ * V;
    Eigen::Map<VecX>(xidot, j.nxi).noalias() = base_velocity_map_ * V_dot;
    return;
  }
  jointVelocitiesFromTwist(j, x, V, V_dot, xi, xidot);
}

Anchor GeneratedReference::anchorOf(const double* x) const {
  Anchor a{0, 0, 0, 0};
  switch (joints[base].type) {
    case JointType::FreeQuaternion:
      for (int i = 0; i < 4; ++i) a[i] = x[3 + i];
      break;
    case JointType::SphericalQuaternion:
    case JointType::SphericalEulerZYX:
      for (int i = 0; i < 4 && i < joints[base].nx; ++i) a[i] = x[i];
      break;
    case JointType::Planar:
      a[0] = x[2];
      break;
    default:
      break;
  }
  return a;
}

void GeneratedReference::align(double* x, const Anchor& a) const {
  auto unwrap = [](double& angle, double near) {
    angle += kTwoPi * std::round((near - angle) / kTwoPi);
  };
  auto flipSign = [&a](double* q) {
    double d = 0.0;
    for (int i = 0; i < 4; ++i) d += q[i] * a[i];
    if (d < 0.0)
      for (int i = 0; i < 4; ++i) q[i] = -q[i];
  };
  switch (joints[base].type) {
    case JointType::FreeQuaternion:
      flipSign(x + 3);
      break;
    case JointType::SphericalQuaternion:
      flipSign(x);
      break;
    case JointType::SphericalEulerZYX:
      unwrap(x[0], a[0]);
      unwrap(x[2], a[2]);
      break;
    case JointType::Planar:
      unwrap(x[2], a[0]);
      break;
    default:
      break;
  }
}

void GeneratedReference::sampleBase(double t, double* x, double* xi, double* xidot) const {
  rawBase(t, x, xi, xidot);
  if (!continuity) return;
  long knot = 0;
  align(x, anchor_table_.at(t, knot));
}

void GeneratedReference::sample(double t, ReferenceSample& out) const {
  out.x = x0;
  out.xi.setZero(nxi);
  out.xidot.setZero(nxi);
  if (base_driven) {
    const Joint& j = joints[base];
    double x[12], xi[6], xidot[6];
    sampleBase(t, x, xi, xidot);
    for (int i = 0; i < j.nx; ++i) out.x(j.x_offset + i) = x[i];
    for (int i = 0; i < j.nxi; ++i) {
      out.xi(j.xi_offset + i) = xi[i];
      out.xidot(j.xi_offset + i) = xidot[i];
    }
  }
  if (load) {
    Jet y[3];
    positionJets(t, y);
    load->sampleJoint(y, prescribedAttitude(t), out);
  }
  joint_paths.sample(t, out);
}

// ---- building a generator from the settings -----------------------------------------------------

class Builder {
 public:
  Builder(const Model& model, const ReferenceSettings& settings)
      : model_(model), settings_(settings), in_(settings) {}

  std::unique_ptr<Reference> build();

 private:
  void analyzeModel();
  [[noreturn]] void failNoBase(const std::string& what) const;

  // Generators.
  void constant();
  void polynomial();
  void sinusoid();
  void circle();
  void waypoints();
  void constantTwist();
  void halfCircle();

  // Shared pieces.
  void requireBase(const std::string& what);
  /// Reads `name` as a base parameter: fails without a base or (for a position) on a spherical
  /// base.
  std::optional<std::vector<double>> baseList(const std::string& name, std::vector<int> sizes,
                                              const std::string& what, bool is_position);
  std::optional<std::vector<double>> positionList(const std::string& name);
  std::string headingName() const { return planar_ ? "angle" : "yaw"; }
  void readFixedAttitude();
  void readFixedPosition();
  /// attitude / heading options and the attitude parameters; `heading_path` is the generator's
  /// ψ(t) (planar: θ(t)) channel if it has one.
  void finishAttitude(std::unique_ptr<Path> heading_path, bool allow_follow);
  void readConstantJoints();
  void checkJointCount(const std::string& name, int k);
  void readFlatOutput();
  void checkHeldJoints();
  void readSuspendedLoad();
  void checkSuspendedLoad();
  /// World pose of a body at the model's initial state.
  Pose initialWorldPose(int body) const;

  int degree(int fallback) {
    const double d = in_.scalar("degree", fallback, "5, 7 or 9: rest-to-rest polynomial degree");
    if (d != 5 && d != 7 && d != 9)
      in_.failParameter("degree", "expected 5, 7 or 9, got " + formatNumber(d));
    return static_cast<int>(d);
  }

  const Model& model_;
  const ReferenceSettings& settings_;
  ReferenceSettingsReader in_;
  std::unique_ptr<GeneratedReference> ref_;

  // Model analysis.
  int base_ = -1;
  bool planar_ = false;
  bool rotation_only_ = false;  // spherical family
  int pos_dim_ = 0;
  Pose parent_pose_;
  Pose initial_body_;  // world pose of the base body at the initial state
  std::vector<int> scalar_;
  bool base_touched_ = false;
};

Pose Builder::initialWorldPose(int body) const {
  std::vector<int> chain;
  for (int b = body; b >= 0; b = model_.joints[b].parent) chain.push_back(b);
  Pose G;
  for (auto it = chain.rbegin(); it != chain.rend(); ++it) {
    const Joint& j = model_.joints[*it];
    G = G * jointTransform(j, model_.initial_state.x.data() + j.x_offset);
  }
  return G;
}

void Builder::analyzeModel() {
  ref_->joints = model_.joints;
  ref_->x0 = model_.initial_state.x;
  ref_->nxi = model_.nxi;
  ref_->gravity = model_.gravity;
  for (int i = 0; i < static_cast<int>(model_.joints.size()); ++i) {
    const Joint& j = model_.joints[i];
    if (hasScalarPosition(j.type)) scalar_.push_back(i);
  }
  base_ = baseJointIndex(model_);
  for (int i : scalar_) ref_->joint_paths.joints.push_back(model_.joints[i]);
  if (base_ < 0) return;
  const Joint& j = model_.joints[base_];
  planar_ = j.type == JointType::Planar;
  rotation_only_ = !planar_ && !isFreeType(j.type);
  pos_dim_ = planar_ ? 2 : rotation_only_ ? 0 : 3;
  parent_pose_ = j.parent >= 0 ? initialWorldPose(j.parent) : Pose::identity();
  ref_->base = base_;
  ref_->frame = parent_pose_ * j.parent_placement;
  initial_body_ = parent_pose_ * jointTransform(j, model_.initial_state.x.data() + j.x_offset);
  if (planar_) {
    const double* x = model_.initial_state.x.data() + j.x_offset;
    ref_->fixed_position = Vec3(x[0], x[1], 0.0);
    ref_->fixed_angle = x[2];
    ref_->plane_gravity = (ref_->frame.R.transpose() * model_.gravity).head<2>();
  } else {
    ref_->fixed_position = initial_body_.r;
    ref_->fixed_R = initial_body_.R;
  }
  ref_->initial_yaw = eulerZYXFromRotation(initial_body_.R)(2);
}

void Builder::failNoBase(const std::string& what) const {
  in_.fail(what +
           " needs a base joint (free, free_quaternion, planar or spherical, attached to "
           "the world directly or through fixed joints); the model has none");
}

void Builder::requireBase(const std::string& what) {
  if (base_ < 0) failNoBase(what);
  base_touched_ = true;
}

std::optional<std::vector<double>> Builder::baseList(const std::string& name,
                                                     std::vector<int> sizes,
                                                     const std::string& what, bool is_position) {
  if (!in_.has(name)) return std::nullopt;
  if (base_ < 0) failNoBase("parameter '" + name + "'");
  if (is_position && rotation_only_)
    in_.failParameter(name, "the base joint '" + model_.joints[base_].name + "' is " +
                                std::string(jointTypeName(model_.joints[base_].type)) +
                                " (rotation only); it has no position");
  base_touched_ = true;
  return in_.list(name, sizes, what);
}

std::optional<std::vector<double>> Builder::positionList(const std::string& name) {
  return baseList(name, {pos_dim_ > 0 ? pos_dim_ : 3},
                  planar_ ? "[p_x, p_y] in the plane of the planar base joint [m]"
                          : "world position of the base body [m]",
                  true);
}

void Builder::readFixedPosition() {
  if (auto p = positionList("position"))
    for (int i = 0; i < pos_dim_; ++i) ref_->fixed_position(i) = (*p)[i];
}

void Builder::readFixedAttitude() {
  if (planar_) {
    in_.explain("rpy", "the base joint '" + model_.joints[base_].name + "' is planar; use 'angle'");
    in_.explain("yaw", "the base joint '" + model_.joints[base_].name + "' is planar; use 'angle'");
    if (auto a = baseList("angle", {1}, "angle of the planar base [rad]", false))
      ref_->fixed_angle = (*a)[0];
    return;
  }
  if (base_ >= 0)
    in_.explain("angle", "'angle' is for a planar base; the base joint '" +
                             model_.joints[base_].name + "' takes 'rpy' or 'yaw'");
  auto rpy = baseList("rpy", {3}, "[roll, pitch, yaw] of the base body, R_z R_y R_x [rad]", false);
  auto yaw = baseList("yaw", {1}, "heading of the base body, R = R_z(yaw) [rad]", false);
  if (rpy && yaw) in_.failParameter("yaw", "give either 'rpy' or 'yaw', not both");
  if (rpy) ref_->fixed_R = rotationZYX((*rpy)[0], (*rpy)[1], (*rpy)[2]);
  if (yaw) ref_->fixed_R = axisAngleRotation(Vec3::UnitZ(), (*yaw)[0]);
}

void Builder::finishAttitude(std::unique_ptr<Path> heading_path, bool allow_follow) {
  std::vector<std::string> modes{"fixed", "flat"};
  if (allow_follow) modes.insert(modes.begin() + 1, "follow");
  const std::string mode = in_.option("attitude", modes, "fixed");
  const bool has_heading = heading_path != nullptr;
  if (mode == "flat") {
    requireBase("option 'attitude: flat'");
    if (rotation_only_)
      in_.fail("option 'attitude: flat' needs a free or planar base; the base joint '" +
               model_.joints[base_].name + "' is " +
               std::string(jointTypeName(model_.joints[base_].type)));
    ref_->attitude = AttitudeMode::Flat;
    ref_->epsilon =
        in_.scalar("epsilon", 0.0, "flat output y = r + ε (thrust axis), ε [m] (PVTOL (4.131))");
    if (planar_) {
      if (has_heading)
        in_.fail(
            "with 'attitude: flat' the angle of the planar base follows from the path; "
            "drop the angle channel");
      in_.explain("angle", "with 'attitude: flat' the angle follows from the path (4.133)");
      in_.explain("rpy", "with 'attitude: flat' the angle follows from the path (4.133)");
      in_.explain("yaw", "with 'attitude: flat' the angle follows from the path (4.133)");
      in_.explain("heading",
                  "only a free base has a heading; a planar flat attitude is determined");
      in_.explain("drag", "'drag' applies to a free base");
      in_.explain("flat_point", "'flat_point' applies to a free base; a planar base has 'epsilon'");
      return;
    }
    in_.explain("rpy", "with 'attitude: flat' roll and pitch follow from the path; give 'yaw'");
    in_.explain("angle", "'angle' is for a planar base; give 'yaw'");
    ref_->drag_per_mass = in_.scalar(
        "drag", 0.0, "linear air drag per unit mass d/m [1/s]: thrust ∥ r̈ − a_G + (d/m) ṙ (5.44)");
    if (auto s = in_.list("flat_point", {3}, "body point (body frame) the path is for, e.g. the centre of mass [m]"))
      ref_->flat_point = Vec3((*s)[0], (*s)[1], (*s)[2]);
    const std::string heading = in_.option("heading", {"yaw", "integrated"}, "yaw");
    if (heading == "integrated") {
      if (has_heading)
        in_.fail("'heading: integrated' takes the heading from 'yaw_rate'; drop the yaw channel");
      ref_->integrated_heading = true;
      ref_->yaw_rate =
          in_.scalar("yaw_rate", 0.0, "ω_zR of the heading integration (5.70) [rad/s]");
      ref_->initial_yaw = in_.scalar("yaw", ref_->initial_yaw, "heading at t = 0 [rad]");
      return;
    }
    in_.explain("yaw_rate", "'yaw_rate' needs option 'heading: integrated'");
    if (has_heading) {
      in_.explain("yaw", "the heading comes from the generator's yaw channel");
      ref_->heading = std::move(heading_path);
    } else {
      const double yaw = in_.scalar("yaw", ref_->initial_yaw, "heading ψ of (5.69) [rad]");
      ref_->heading = std::make_unique<traj::ConstantPath>(std::vector<double>{yaw});
    }
    return;
  }
  for (const char* name : {"epsilon", "yaw_rate", "drag", "flat_point"})
    in_.explain(name, "'" + std::string(name) + "' needs option 'attitude: flat'");
  in_.explain("heading", "option 'heading' needs option 'attitude: flat'");
  if (mode == "follow") {
    ref_->attitude = AttitudeMode::Follow;
    readFixedAttitude();
    return;
  }
  if (has_heading) {
    ref_->attitude = AttitudeMode::Heading;
    ref_->heading = std::move(heading_path);
    const std::string reason =
        "the heading comes from the generator's " + headingName() + " channel";
    for (const char* name : {"rpy", "yaw", "angle"}) in_.explain(name, reason);
    return;
  }
  ref_->attitude = AttitudeMode::Fixed;
  if (base_ >= 0)
    readFixedAttitude();
  else
    for (const char* name : {"rpy", "yaw", "angle"})
      if (in_.has(name)) failNoBase("parameter '" + std::string(name) + "'");
}

void Builder::checkJointCount(const std::string& name, int k) {
  const int available = static_cast<int>(scalar_.size());
  if (k > available)
    in_.failParameter(name, "has " + std::to_string(k) + " entries but the model has only " +
                                std::to_string(available) +
                                " scalar joints (revolute, revolute_unit_circle, prismatic)");
}

void Builder::readConstantJoints() {
  if (auto q = in_.list("joints", {}, "values of the first scalar joints [rad or m]")) {
    checkJointCount("joints", static_cast<int>(q->size()));
    ref_->joint_paths.path = std::make_unique<traj::ConstantPath>(*q);
  }
}

void Builder::readFlatOutput() {
  const std::string mode = in_.option("flat_output", {"none", "spring"}, "none");
  if (mode != "spring") {
    in_.explain("varpi", "'varpi' needs option 'flat_output: spring'");
    return;
  }
  const std::string what = "option 'flat_output: spring' drives the first two scalar joints";
  if (scalar_.size() < 2)
    in_.fail(what + " (z1, z2); the model has " + std::to_string(scalar_.size()));
  if (!ref_->joint_paths.path || ref_->joint_paths.path->dim() != 1)
    in_.fail(what + " from one joint entry, the flat output z2R (4.124)");
  ref_->joint_paths.spring_flat = true;
  ref_->joint_paths.varpi = in_.positive("varpi", std::nullopt, "ϖ = k/M2 of (4.123a) [1/s²]");
}

void Builder::readSuspendedLoad() {
  // Candidates: spherical joints with relative angular velocity whose parent is a free base body.
  std::vector<std::string> names{"none"};
  if (base_ >= 0 && !planar_ && !rotation_only_)
    for (const Joint& j : model_.joints)
      if (j.parent == model_.joints[base_].child && isSphericalType(j.type) &&
          j.type != JointType::SphericalAbsolute)
        names.push_back(j.name);
  if (names.size() == 1 && settings_.options.count("suspended_load"))
    in_.fail(
        "option 'suspended_load' needs a spherical joint (spherical, spherical_quaternion or "
        "spherical_euler_zyx) whose parent is the body of a free base joint; the model has none");
  const std::string name = in_.option("suspended_load", names, "none");
  if (name == "none") return;
  const int load_joint = model_.jointIndex(name);
  const Joint& j = model_.joints[load_joint];
  const int load = j.child;
  const Pose base_pose = initialWorldPose(model_.joints[base_].child);
  const Pose load_pose = initialWorldPose(load);
  // Joint centre: the origin of the joint's moving frame, T_p in the base body frame.
  const Vec3 centre = base_pose * j.parent_placement.r;
  const Vec3 com = load_pose * model_.bodies[load].com;
  const double length = (com - centre).norm();
  if (!(length > 1e-9))
    in_.fail("option 'suspended_load': the centre of mass of body '" + model_.bodies[load].name +
             "' lies at the centre of joint '" + name + "'; it cannot hang from it");
  const double g = model_.gravity.norm();
  if (!(g > 0.0)) in_.fail("option 'suspended_load' needs gravity: the load hangs along a_G");
  const Vec3 down = model_.gravity / g, start = (com - centre) / length;
  if (start.dot(down) < -1.0 + 1e-9)
    in_.fail("option 'suspended_load': body '" + model_.bodies[load].name +
             "' starts straight above joint '" + name + "'; it must hang below it");
  // At rest the load hangs straight down, turned about the vertical as it starts.
  ref_->load.emplace(j, length, model_.gravity,
                     shortestRotation(start, flat::Vec3Jet{down, Vec3::Zero(), Vec3::Zero()}).R * load_pose.R);
  // From here on the position parameters are the load's centre of mass.
  ref_->fixed_position = com;
}

void Builder::checkSuspendedLoad() {
  if (!ref_->load) return;
  if (ref_->attitude == AttitudeMode::Flat || ref_->attitude == AttitudeMode::Twist)
    in_.fail(std::string("option 'suspended_load' needs a prescribed attitude of the base (fixed, ") +
             "heading or follow), not 'attitude: flat' or a constant twist");
  ref_->base_driven = true;
}

void Builder::checkHeldJoints() {
  // A held spherical_absolute joint (ξ = absolute ω = 0) under a moving parent would not be
  // consistent with its held coordinates.
  std::vector<bool> driven(model_.joints.size(), false);
  if (ref_->base_driven) driven[base_] = true;
  for (int i = 0; i < ref_->joint_paths.driven(); ++i) driven[scalar_[i]] = true;
  for (std::size_t i = 0; i < model_.joints.size(); ++i) {
    const Joint& j = model_.joints[i];
    if (j.type != JointType::SphericalAbsolute || driven[i]) continue;
    for (int b = j.parent; b >= 0; b = model_.joints[b].parent)
      if (driven[b])
        in_.fail("joint '" + j.name + "' (spherical_absolute) cannot be held while its ancestor '" +
                 model_.joints[b].name + "' moves: its velocity is the absolute ω");
  }
}

// ---- generators ---------------------------------------------------------------------------------

void Builder::constant() {
  readConstantJoints();
  if (base_ >= 0)
    readFixedPosition();
  else if (in_.has("position"))
    failNoBase("parameter 'position'");
  finishAttitude(nullptr, false);
}

void Builder::polynomial() {
  const double t0 = in_.scalar("start_time", 0.0, "start of the transition [s]");
  const double T = in_.positive("duration", std::nullopt, "duration of the transition [s]");
  const int deg = degree(5);
  auto pair = [&](const std::string& a, const std::string& b,
                  const std::function<std::optional<std::vector<double>>(const std::string&)>& read)
      -> std::unique_ptr<Path> {
    auto start = read(a), goal = read(b);
    if (!start && !goal) return nullptr;
    if (!start) in_.fail("parameter '" + b + "' needs '" + a + "'");
    if (!goal) in_.fail("parameter '" + a + "' needs '" + b + "'");
    if (start->size() != goal->size())
      in_.failParameter(b, "expected " + std::to_string(start->size()) + " numbers like '" + a +
                               "', got " + std::to_string(goal->size()));
    return std::make_unique<traj::PolynomialPath>(*start, *goal, t0, T, deg);
  };
  auto joints = pair("start", "goal", [this](const std::string& n) {
    auto v = in_.list(n, {}, "values of the first scalar joints [rad or m]");
    if (v) checkJointCount(n, static_cast<int>(v->size()));
    return v;
  });
  auto position = pair("position_start", "position_goal",
                       [this](const std::string& n) { return positionList(n); });
  const std::string h = headingName();
  auto heading = pair(h + "_start", h + "_goal", [this, &h](const std::string& n) {
    return baseList(n, {1}, h + " of the base [rad]", false);
  });
  if (!joints && !position && !heading)
    in_.fail(
        "needs at least one pair of: start/goal (scalar joints), position_start/position_goal "
        "(base position), yaw_start/yaw_goal (angle_start/angle_goal for a planar base)");
  if (joints) {
    in_.explain("joints", "the joints follow start/goal");
    ref_->joint_paths.path = std::move(joints);
  } else {
    readConstantJoints();
  }
  if (base_ >= 0) {
    if (position) {
      in_.explain("position", "the position follows position_start/position_goal");
      ref_->position = std::move(position);
    } else {
      readFixedPosition();
    }
  }
  finishAttitude(std::move(heading), false);
}

void Builder::sinusoid() {
  const double period = in_.positive("period", std::nullopt, "period of all sinusoids [s]");
  auto phases = [this](const std::string& name, std::size_t n) {
    std::vector<double> phase(n, 0.0);
    if (auto p = in_.list(name, {1, static_cast<int>(n)}, "phase [rad], one or one per entry"))
      for (std::size_t i = 0; i < n; ++i) phase[i] = (*p)[p->size() == 1 ? 0 : i];
    return phase;
  };
  auto amplitude = in_.list("amplitude", {}, "amplitudes of the first scalar joints [rad or m]");
  if (amplitude) {
    const std::size_t k = amplitude->size();
    checkJointCount("amplitude", static_cast<int>(k));
    std::vector<double> offset(k, 0.0);
    if (auto o = in_.list("offset", {static_cast<int>(k)}, "one offset per amplitude [rad or m]"))
      offset = *o;
    ref_->joint_paths.path = std::make_unique<traj::SinusoidPath>(
        offset, *amplitude, std::vector<double>(k, period), phases("phase", k));
    in_.explain("joints", "the joints follow the sinusoid (amplitude/offset)");
  } else {
    in_.explain("offset", "'offset' needs 'amplitude'");
    in_.explain("phase", "'phase' needs 'amplitude'");
    readConstantJoints();
  }
  auto position_amplitude = positionList("position_amplitude");
  if (position_amplitude) {
    readFixedPosition();  // the offset
    const std::size_t d = static_cast<std::size_t>(pos_dim_);
    std::vector<double> offset(ref_->fixed_position.data(), ref_->fixed_position.data() + d);
    ref_->position = std::make_unique<traj::SinusoidPath>(
        offset, *position_amplitude, std::vector<double>(d, period), phases("position_phase", d));
  } else {
    in_.explain("position_phase", "'position_phase' needs 'position_amplitude'");
    if (base_ >= 0)
      readFixedPosition();
    else if (in_.has("position"))
      failNoBase("parameter 'position'");
  }
  if (!amplitude && !position_amplitude)
    in_.fail("needs 'amplitude' (scalar joints) and/or 'position_amplitude' (base position)");
  finishAttitude(nullptr, false);
}

void Builder::circle() {
  requireBase("the circle");
  if (rotation_only_)
    in_.fail("the circle moves the base position; the base joint '" + model_.joints[base_].name +
             "' is " + std::string(jointTypeName(model_.joints[base_].type)) + " (rotation only)");
  std::vector<double> c = in_.requireList(
      "center", {pos_dim_},
      planar_ ? "centre [p_x, p_y] in the plane of the planar base [m]" : "world centre [m]");
  const double radius = in_.positive("radius", std::nullopt, "radius [m]");
  const double period = in_.positive("period", std::nullopt, "time per loop at full speed [s]");
  const double start_angle = in_.scalar("start_angle", 0.0, "arc angle at the start [rad]");
  const double t0 = in_.scalar("start_time", 0.0, "start of the motion [s]");
  const double ramp = in_.scalar("ramp", 0.0, "duration of the smooth start (and stop) [s], ≥ 0");
  if (ramp < 0.0) in_.failParameter("ramp", "expected a number ≥ 0 [s], got " + formatNumber(ramp));
  const double loops = in_.positive("loops", 0.0, "number of loops (then rest-to-rest)");
  if (loops > 0.0 && ramp > loops * period)
    in_.failParameter("ramp", "expected at most loops·period = " + formatNumber(loops * period) +
                                  " s, got " + formatNumber(ramp));
  // Start direction a (φ = 0): "down" (the in-plane part of a_G) unless gravity is normal to the
  // plane, then the plane's x direction; b = n × a (planar: a turned by +90°).
  std::vector<double> a, b;
  if (planar_) {
    in_.explain("normal", "the circle of a planar base lies in the joint plane; drop 'normal'");
    const Vec2 g = ref_->plane_gravity;
    const Vec2 a2 = g.norm() > 1e-9 ? Vec2(g.normalized()) : Vec2(1.0, 0.0);
    a = {a2.x(), a2.y()};
    b = {-a2.y(), a2.x()};
  } else {
    Vec3 n = Vec3::UnitZ();
    if (auto nl = in_.list("normal", {3}, "unit normal of the circle's plane (world)")) {
      n = Vec3((*nl)[0], (*nl)[1], (*nl)[2]);
      if (n.norm() < 1e-9) in_.failParameter("normal", "expected a non-zero vector");
      n.normalize();
    }
    Vec3 a3 = model_.gravity - model_.gravity.dot(n) * n;
    if (a3.norm() <= 1e-9 * std::max(1.0, model_.gravity.norm())) {
      a3 = Vec3::UnitX() - n.x() * n;
      if (a3.norm() < 1e-6) a3 = Vec3::UnitY() - n.y() * n;
    }
    a3.normalize();
    const Vec3 b3 = n.cross(a3);
    a = {a3.x(), a3.y(), a3.z()};
    b = {b3.x(), b3.y(), b3.z()};
    ref_->follow_axis = n;
  }
  auto path = std::make_unique<traj::CirclePath>(
      c, a, b, radius, traj::ArcProfile(start_angle, period, t0, ramp, loops));
  ref_->circle = path.get();
  ref_->follow_phi0 = start_angle;
  ref_->position = std::move(path);
  in_.explain("position", "the circle sets the position; use 'center'");
  readConstantJoints();
  finishAttitude(nullptr, true);
}

void Builder::waypoints() {
  requireBase("waypoints");
  const std::vector<double> times = in_.requireList("times", {}, "set-point times [s], increasing");
  const double T = in_.positive("transition", std::nullopt, "duration of each transition [s]");
  const int deg = degree(9);
  for (std::size_t i = 1; i < times.size(); ++i)
    if (times[i] - times[i - 1] < T)
      in_.failParameter("times",
                        "consecutive times must be at least 'transition' = " + formatNumber(T) +
                            " s apart (rest-to-rest); " + formatNumber(times[i - 1]) + " and " +
                            formatNumber(times[i]) + " are not");
  const int n = static_cast<int>(times.size());
  const std::string what = "one value per time (" + std::to_string(n) + ")";
  const std::vector<std::string> axes = {"x", "y", "z"};
  std::vector<std::vector<double>> values;
  bool any_axis = false;
  for (int i = 0; i < 3; ++i) {
    const bool applies = i < pos_dim_;
    if (!applies) {
      in_.explain(axes[i], rotation_only_ ? "the base joint is rotation only; it has no position"
                                          : "a planar base has the axes x, y (and angle)");
      continue;
    }
    auto v = in_.list(axes[i], {n}, what + " [m]");
    any_axis = any_axis || v.has_value();
    values.push_back(v ? *v : std::vector<double>(n, ref_->fixed_position(i)));
  }
  if (any_axis) {
    std::vector<double> initial(ref_->fixed_position.data(),
                                ref_->fixed_position.data() + pos_dim_);
    ref_->position = std::make_unique<traj::WaypointPath>(times, values, initial, T, deg);
    in_.explain("position", "the waypoints set the position");
  } else {
    readFixedPosition();
  }
  std::unique_ptr<Path> heading;
  const std::string h = headingName();
  if (auto v = in_.list(h, {n}, what + " [rad]")) {
    const double initial = planar_ ? ref_->fixed_angle : ref_->initial_yaw;
    heading = std::make_unique<traj::WaypointPath>(times, std::vector<std::vector<double>>{*v},
                                                   std::vector<double>{initial}, T, deg);
  }
  if (!any_axis && !heading)
    in_.fail("needs at least one of the per-time lists " + std::string(planar_ ? "x, y, angle"
                                                                       : rotation_only_
                                                                           ? "yaw"
                                                                           : "x, y, z, yaw"));
  readConstantJoints();
  finishAttitude(std::move(heading), false);
}

void Builder::constantTwist() {
  requireBase("constant_twist");
  const int n = rotation_only_ ? 3 : planar_ ? 3 : 6;
  const std::string what = rotation_only_ ? "body angular velocity [ω_x, ω_y, ω_z] [rad/s]"
                           : planar_      ? "planar body twist [v_x, v_y, ω_z] [m/s, rad/s]"
                                     : "body twist [v_x, v_y, v_z, ω_x, ω_y, ω_z] [m/s, rad/s]";
  const std::vector<double> tw = in_.requireList("twist", {n}, what);
  if (rotation_only_) {
    ref_->twist << 0, 0, 0, tw[0], tw[1], tw[2];
  } else if (planar_) {
    ref_->twist << tw[0], tw[1], 0, 0, 0, tw[2];
  } else {
    for (int i = 0; i < 6; ++i) ref_->twist(i) = tw[i];
  }
  readFixedPosition();
  readFixedAttitude();
  ref_->attitude = AttitudeMode::Twist;
  if (planar_) {
    ref_->twist_origin = Pose::rotation(axisAngleRotation(Vec3::UnitZ(), ref_->fixed_angle));
  } else {
    ref_->twist_origin = Pose{ref_->fixed_R, ref_->fixed_position};
  }
  readConstantJoints();
}

void Builder::halfCircle() {
  // Seifried's cart + arm (seifried-underactuated §4.7): the end effector's half circle involves
  // the passive joints, whose reference only the inversion (servo constraints) of the controller
  // can produce. This generator drives the cart (first scalar joint) with the rest-to-rest
  // polynomial and holds the other joints; the tool path parameters are checked here and read by
  // the servo-constraint controller.
  if (scalar_.empty())
    in_.fail("needs a scalar joint (the cart) as the model's first scalar joint");
  const double cart_start = in_.requireScalar("cart_start", "cart position at the start [m]");
  const double cart_end = in_.requireScalar("cart_end", "cart position at the end [m]");
  const double t0 = in_.scalar("start_time", 0.0, "start of the motion t_0 [s]");
  const double T = in_.positive("duration", std::nullopt, "duration t_f − t_0 [s]");
  const int deg = degree(5);
  in_.list("center", {3}, "centre of the tool's half circle [m]");
  in_.positive("radius", 1.0, "radius of the tool's half circle [m]");
  in_.scalar("angle_start", "arc angle of the tool at the start [rad]");
  in_.scalar("angle_end", "arc angle of the tool at the end [rad]");
  in_.list("end_effector_point", {3}, "tool point in the last body's frame [m]");
  ref_->joint_paths.path = std::make_unique<traj::PolynomialPath>(
      std::vector<double>{cart_start}, std::vector<double>{cart_end}, t0, T, deg);
}

std::unique_ptr<Reference> Builder::build() {
  ref_ = std::make_unique<GeneratedReference>();
  analyzeModel();
  const std::string& g = settings_.generator;
  if (!g.empty()) readSuspendedLoad();
  if (g.empty()) {
    if (!settings_.parameters.empty() || !settings_.options.empty())
      throw ControlError(
          "reference: parameters or options given without a generator; known "
          "generators: " +
          joinNames(generatorNames()));
    return std::move(ref_);
  }
  if (g == "constant")
    constant();
  else if (g == "polynomial")
    polynomial();
  else if (g == "sinusoid")
    sinusoid();
  else if (g == "circle")
    circle();
  else if (g == "waypoints")
    waypoints();
  else if (g == "constant_twist")
    constantTwist();
  else if (g == "half_circle")
    halfCircle();
  else
    throw ControlError("unknown reference generator '" + g +
                       "'; known: " + joinNames(generatorNames()));
  readFlatOutput();
  in_.finish();

  ref_->base_driven = base_ >= 0 && (base_touched_ || ref_->attitude != AttitudeMode::Fixed);
  checkSuspendedLoad();
  if (ref_->base_driven && ref_->attitude == AttitudeMode::Flat && planar_ &&
      ref_->plane_gravity.norm() < 1e-9)
    in_.fail("option 'attitude: flat' on the planar base '" + model_.joints[base_].name +
             "' needs gravity in its plane (the thrust direction is (ÿ − g)/‖ÿ − g‖)");
  if (ref_->base_driven) {
    const JointType t = model_.joints[base_].type;
    const bool needs_continuity =
        ref_->attitude != AttitudeMode::Fixed &&
        (t == JointType::FreeQuaternion || t == JointType::SphericalQuaternion ||
         t == JointType::SphericalEulerZYX ||
         (t == JointType::Planar && ref_->attitude == AttitudeMode::Flat));
    ref_->continuity = needs_continuity;
  }
  checkHeldJoints();
  ref_->prepareTables();
  return std::move(ref_);
}

}  // namespace

std::unique_ptr<Reference> makeReference(const Model& model, const ReferenceSettings& settings) {
  return Builder(model, settings).build();
}

std::vector<std::string> referenceGeneratorNames() {
  return generatorNames();
}

}  // namespace rbs
