// Reference generators (core/control/reference.h, docs/SCENE_FORMAT.md "Reference generators").
//
// The Builder reads a generator's settings and composes the reference from small units:
//  - the base (first joint of type free, free_quaternion, planar, spherical, spherical_quaternion,
//    spherical_euler_zyx or spherical_absolute whose parent body is the world or welded to it by
//    fixed joints): a position path × an attitude law, a flat motion or a constant twist
//    (core/control/base_motion.h), written in the base joint's coordinates and kept continuous in
//    time (core/control/base_coordinates.h);
//  - an optional suspended load hanging from the base (SuspendedLoadStep, option suspended_load);
//  - the scalar joints (revolute, revolute_unit_circle, prismatic) in index order: q, q̇, q̈
//    (ScalarJointPaths, core/control/reference_steps.h);
//  - all other joints: held at model.initial_state with ξ = 0.
#include "core/control/reference.h"

#include <algorithm>
#include <cmath>
#include <functional>
#include <optional>

#include "core/control/base_coordinates.h"
#include "core/control/baseline_support.h"
#include "core/control/flatness.h"
#include "core/control/reference_settings_reader.h"
#include "core/control/reference_steps.h"
#include "core/control/tool_path_reference.h"
#include "core/control/tracking.h"
#include "core/control/trajectory.h"

namespace rbs {
namespace {

using flat::Vec2;
using traj::Path;

const std::vector<std::string>& generatorNames() {
  static const std::vector<std::string> names{"constant",  "polynomial",     "sinusoid",   "circle",
                                              "waypoints", "constant_twist", "half_circle", "tool_path"};
  return names;
}

/// How the settings ask the base to turn (the builder's reading of them).
enum class AttitudeMode {
  Fixed,    ///< constant attitude
  Heading,  ///< R = R_z(ψ(t)) (planar: θ = ψ(t))
  Follow,   ///< turns with the circle's arc angle about its normal
  Flat,     ///< thrust direction from the path (flatness)
  Twist,    ///< constant body twist from a start pose
};

// ---- building a generator from the settings -----------------------------------------------------

class Builder {
 public:
  Builder(const Model& model, const ReferenceSettings& settings, const ReferenceRetiming* retiming)
      : model_(model), settings_(settings), in_(settings), retiming_(retiming) {}

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
  /// A point of a body on a path in world coordinates, by inverse kinematics
  /// (core/control/tool_path_reference.h); complete in itself.
  std::unique_ptr<Reference> toolPath();

  // Shared pieces.
  struct Circle {
    std::shared_ptr<const traj::CirclePath> path;
    double start_angle = 0.0;
    double end = 0.0;  ///< [s] end of the start ramp and the first loop (or of fewer loops)
  };
  /// The circle parameters: centre (dimension 2 in a planar base's plane, else 3, world), radius,
  /// period, start angle and time, ramp, loops, normal (3-D; sets follow_axis_). Without a centre
  /// the (3-D) circle passes through `start` at its start angle, if given.
  Circle readCircle(bool planar, const std::string& center_what, const Vec3* start = nullptr);
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

  // Composing the reference (after the settings are read).
  std::unique_ptr<Reference> assemble();
  BasePosition basePosition() const;
  std::shared_ptr<const AttitudeLaw> prescribedAttitude() const;
  std::shared_ptr<const Path> prescribedAngle() const;
  std::unique_ptr<const BaseCoordinates> baseCoordinates(std::shared_ptr<const AttitudeLaw> attitude) const;

  int degree(int fallback) {
    const double d = in_.scalar("degree", fallback, "5, 7 or 9: rest-to-rest polynomial degree");
    if (d != 5 && d != 7 && d != 9)
      in_.failParameter("degree", "expected 5, 7 or 9, got " + formatNumber(d));
    return static_cast<int>(d);
  }

  /// A path in manoeuvre time when the reference is retimed, else the path itself.
  std::shared_ptr<const Path> warped(std::shared_ptr<const Path> path) const;

  const Model& model_;
  const ReferenceSettings& settings_;
  ReferenceSettingsReader in_;
  const ReferenceRetiming* retiming_;
  std::optional<traj::ManoeuvreClock> clock_;  ///< with retiming_

  // What the settings say, read by the generators and the shared pieces above.
  std::shared_ptr<const Path> position_;  ///< base position path; null: fixed_position_
  std::shared_ptr<const traj::CirclePath> circle_;  ///< the circle generator's path (= position_)
  std::shared_ptr<const Path> heading_;   ///< ψ(t) (planar: θ(t)) for Heading and a flat yaw
  AttitudeMode attitude_ = AttitudeMode::Fixed;
  Vec3 fixed_position_ = Vec3::Zero();  ///< free: world; planar: (p_x, p_y, 0)
  Mat3 fixed_R_ = Mat3::Identity();     ///< fixed attitude (free, spherical); Follow's R₀
  double fixed_angle_ = 0.0;            ///< fixed angle (planar); Follow's θ₀
  Vec3 follow_axis_ = Vec3::UnitZ();    ///< Follow: the circle's normal (world)
  double follow_phi0_ = 0.0;            ///< Follow: the circle's start angle
  double initial_yaw_ = 0.0;            ///< heading at t = 0 (default: the initial state's)
  double epsilon_ = 0.0;                ///< Flat: y = r + ε (thrust axis)
  double drag_per_mass_ = 0.0;          ///< Flat, free base: d/m [1/s]
  Vec3 flat_point_ = Vec3::Zero();      ///< Flat, free base: body point of the path
  bool integrated_heading_ = false;     ///< Flat: heading integrated by (5.70)
  double yaw_rate_ = 0.0;               ///< ω_zR of the integration
  Vec6 twist_ = Vec6::Zero();           ///< Twist: constant body twist [v; ω]
  std::shared_ptr<const SuspendedLoadStep> load_;
  std::unique_ptr<ScalarJointPaths> joint_paths_;
  bool base_driven_ = false;

  // Model analysis.
  int base_ = -1;
  Pose frame_;                   ///< C: world pose of the base joint frame
  Vec2 plane_gravity_ = Vec2::Zero();  ///< a_G in the plane of a planar base
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
  joint_paths_ = std::make_unique<ScalarJointPaths>();
  for (int i = 0; i < static_cast<int>(model_.joints.size()); ++i) {
    const Joint& j = model_.joints[i];
    if (hasScalarPosition(j.type)) scalar_.push_back(i);
  }
  base_ = baseJointIndex(model_);
  for (int i : scalar_) joint_paths_->joints.push_back(model_.joints[i]);
  if (base_ < 0) return;
  const Joint& j = model_.joints[base_];
  planar_ = j.type == JointType::Planar;
  rotation_only_ = !planar_ && !isFreeType(j.type);
  pos_dim_ = planar_ ? 2 : rotation_only_ ? 0 : 3;
  parent_pose_ = j.parent >= 0 ? initialWorldPose(j.parent) : Pose::identity();
  frame_ = parent_pose_ * j.parent_placement;
  initial_body_ = parent_pose_ * jointTransform(j, model_.initial_state.x.data() + j.x_offset);
  if (planar_) {
    const double* x = model_.initial_state.x.data() + j.x_offset;
    fixed_position_ = Vec3(x[0], x[1], 0.0);
    fixed_angle_ = x[2];
    plane_gravity_ = (frame_.R.transpose() * model_.gravity).head<2>();
  } else {
    fixed_position_ = initial_body_.r;
    fixed_R_ = initial_body_.R;
  }
  initial_yaw_ = eulerZYXFromRotation(initial_body_.R)(2);
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
    for (int i = 0; i < pos_dim_; ++i) fixed_position_(i) = (*p)[i];
}

void Builder::readFixedAttitude() {
  if (planar_) {
    in_.explain("rpy", "the base joint '" + model_.joints[base_].name + "' is planar; use 'angle'");
    in_.explain("yaw", "the base joint '" + model_.joints[base_].name + "' is planar; use 'angle'");
    if (auto a = baseList("angle", {1}, "angle of the planar base [rad]", false))
      fixed_angle_ = (*a)[0];
    return;
  }
  if (base_ >= 0)
    in_.explain("angle", "'angle' is for a planar base; the base joint '" +
                             model_.joints[base_].name + "' takes 'rpy' or 'yaw'");
  auto rpy = baseList("rpy", {3}, "[roll, pitch, yaw] of the base body, R_z R_y R_x [rad]", false);
  auto yaw = baseList("yaw", {1}, "heading of the base body, R = R_z(yaw) [rad]", false);
  if (rpy && yaw) in_.failParameter("yaw", "give either 'rpy' or 'yaw', not both");
  if (rpy) fixed_R_ = rotationZYX((*rpy)[0], (*rpy)[1], (*rpy)[2]);
  if (yaw) fixed_R_ = axisAngleRotation(Vec3::UnitZ(), (*yaw)[0]);
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
    attitude_ = AttitudeMode::Flat;
    epsilon_ =
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
    drag_per_mass_ = in_.scalar(
        "drag", 0.0, "linear air drag per unit mass d/m [1/s]: thrust ∥ r̈ − a_G + (d/m) ṙ (5.44)");
    if (auto s = in_.list("flat_point", {3}, "body point (body frame) the path is for, e.g. the centre of mass [m]"))
      flat_point_ = Vec3((*s)[0], (*s)[1], (*s)[2]);
    const std::string heading = in_.option("heading", {"yaw", "integrated"}, "yaw");
    if (heading == "integrated") {
      if (has_heading)
        in_.fail("'heading: integrated' takes the heading from 'yaw_rate'; drop the yaw channel");
      integrated_heading_ = true;
      yaw_rate_ =
          in_.scalar("yaw_rate", 0.0, "ω_zR of the heading integration (5.70) [rad/s]");
      initial_yaw_ = in_.scalar("yaw", initial_yaw_, "heading at t = 0 [rad]");
      return;
    }
    in_.explain("yaw_rate", "'yaw_rate' needs option 'heading: integrated'");
    if (has_heading) {
      in_.explain("yaw", "the heading comes from the generator's yaw channel");
      heading_ = std::move(heading_path);
    } else {
      const double yaw = in_.scalar("yaw", initial_yaw_, "heading ψ of (5.69) [rad]");
      heading_ = std::make_shared<traj::ConstantPath>(std::vector<double>{yaw});
    }
    return;
  }
  for (const char* name : {"epsilon", "yaw_rate", "drag", "flat_point"})
    in_.explain(name, "'" + std::string(name) + "' needs option 'attitude: flat'");
  in_.explain("heading", "option 'heading' needs option 'attitude: flat'");
  if (mode == "follow") {
    attitude_ = AttitudeMode::Follow;
    readFixedAttitude();
    return;
  }
  if (has_heading) {
    attitude_ = AttitudeMode::Heading;
    heading_ = std::move(heading_path);
    const std::string reason =
        "the heading comes from the generator's " + headingName() + " channel";
    for (const char* name : {"rpy", "yaw", "angle"}) in_.explain(name, reason);
    return;
  }
  attitude_ = AttitudeMode::Fixed;
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
    joint_paths_->path = std::make_unique<traj::ConstantPath>(*q);
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
  if (!joint_paths_->path || joint_paths_->path->dim() != 1)
    in_.fail(what + " from one joint entry, the flat output z2R (4.124)");
  joint_paths_->spring_flat = true;
  joint_paths_->varpi = in_.positive("varpi", std::nullopt, "ϖ = k/M2 of (4.123a) [1/s²]");
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
  load_ = std::make_shared<SuspendedLoadStep>(j, length, model_.gravity,
                     shortestRotation(start, flat::Vec3Jet{down, Vec3::Zero(), Vec3::Zero()}).R * load_pose.R);
  // From here on the position parameters are the load's centre of mass.
  fixed_position_ = com;
}

void Builder::checkSuspendedLoad() {
  if (!load_) return;
  if (attitude_ == AttitudeMode::Flat || attitude_ == AttitudeMode::Twist)
    in_.fail(std::string("option 'suspended_load' needs a prescribed attitude of the base (fixed, ") +
             "heading or follow), not 'attitude: flat' or a constant twist");
  base_driven_ = true;
}

void Builder::checkHeldJoints() {
  // A held spherical_absolute joint (ξ = absolute ω = 0) under a moving parent would not be
  // consistent with its held coordinates.
  std::vector<bool> driven(model_.joints.size(), false);
  if (base_driven_) driven[base_] = true;
  for (int i = 0; i < joint_paths_->driven(); ++i) driven[scalar_[i]] = true;
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
    joint_paths_->path = std::move(joints);
  } else {
    readConstantJoints();
  }
  if (base_ >= 0) {
    if (position) {
      in_.explain("position", "the position follows position_start/position_goal");
      position_ = std::move(position);
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
    joint_paths_->path = std::make_unique<traj::SinusoidPath>(
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
    std::vector<double> offset(fixed_position_.data(), fixed_position_.data() + d);
    position_ = std::make_unique<traj::SinusoidPath>(
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

Builder::Circle Builder::readCircle(bool planar, const std::string& center_what, const Vec3* start) {
  std::optional<std::vector<double>> c = in_.list("center", {planar ? 2 : 3}, center_what);
  if (!c && !start) in_.fail("missing parameter 'center' (" + center_what + ")");
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
  if (planar) {
    in_.explain("normal", "the circle of a planar base lies in the joint plane; drop 'normal'");
    const Vec2 g = plane_gravity_;
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
    follow_axis_ = n;
  }
  if (!c) {  // through the start point at the start angle
    const Vec3 centre = *start - radius * (std::cos(start_angle) * Vec3(a[0], a[1], a[2]) +
                                           std::sin(start_angle) * Vec3(b[0], b[1], b[2]));
    c = std::vector<double>{centre.x(), centre.y(), centre.z()};
  }
  Circle circle;
  circle.path = std::make_shared<traj::CirclePath>(*c, a, b, radius,
                                                   traj::ArcProfile(start_angle, period, t0, ramp, loops));
  circle.start_angle = start_angle;
  // The start ramp and one loop (or fewer) pass every point of the circle; what follows repeats
  // them (the ramp down too, only slower).
  circle.end = t0 + ramp + (loops > 0.0 ? std::min(loops, 1.0) : 1.0) * period;
  return circle;
}

void Builder::circle() {
  requireBase("the circle");
  if (rotation_only_)
    in_.fail("the circle moves the base position; the base joint '" + model_.joints[base_].name +
             "' is " + std::string(jointTypeName(model_.joints[base_].type)) + " (rotation only)");
  const Circle c = readCircle(planar_, planar_ ? "centre [p_x, p_y] in the plane of the planar base [m]"
                                               : "world centre [m]");
  circle_ = c.path;
  follow_phi0_ = c.start_angle;
  position_ = c.path;
  in_.explain("position", "the circle sets the position; use 'center'");
  readConstantJoints();
  finishAttitude(nullptr, true);
}

std::unique_ptr<Reference> Builder::toolPath() {
  // The body (or a merged URDF link, a named frame on one) whose point follows the path.
  ToolPathTask task;
  const std::string name = in_.text("body");
  if (name.empty()) in_.fail("missing option 'body' (the body or frame whose point follows the path)");
  Pose offset;  // the named frame in its body
  task.body = model_.bodyIndex(name);
  if (task.body < 0) {
    std::vector<std::string> names;
    for (const Body& b : model_.bodies) names.push_back(b.name);
    for (const NamedFrame& f : model_.frames) {
      names.push_back(f.name);
      if (f.name == name) {
        task.body = f.frame.body;
        offset = f.frame.offset;
      }
    }
    if (task.body < 0) in_.fail("option 'body': no body or frame named '" + name + "'; known: " + joinNames(names));
  }
  if (auto p = in_.list("point", {3}, "the point in the frame of 'body' [m]"))
    task.point = Vec3((*p)[0], (*p)[1], (*p)[2]);
  task.point = offset.r + offset.R * task.point;
  const Pose initial = initialWorldPose(task.body);
  const Vec3 start = initial.r + initial.R * task.point;

  if (in_.option("orientation", {"fixed", "free"}, "fixed") == "fixed") {
    task.orientation = initial.R;
    if (auto rpy = in_.list("rpy", {3}, "[roll, pitch, yaw] held by the frame of 'body', R_z R_y R_x [rad]"))
      task.orientation = rotationZYX((*rpy)[0], (*rpy)[1], (*rpy)[2]) * offset.R.transpose();
  } else {
    in_.explain("rpy", "with 'orientation: free' the attitude is not prescribed");
  }
  for (const std::string& joint : baseline::splitList(in_.text("hold"))) {
    const int j = model_.jointIndex(joint);
    if (j < 0) in_.fail("option 'hold': no joint named '" + joint + "'");
    task.held.push_back(j);
  }

  if (in_.option("path", {"polynomial", "circle"}, "polynomial") == "circle") {
    const Circle c = readCircle(false, "world centre of the point's circle [m]; default: through the point's start", &start);
    task.path = c.path;
    task.check_until = c.end;
  } else {
    const std::vector<double> goal = in_.requireList("goal", {3}, "world position of the point at the end [m]");
    const double t0 = in_.scalar("start_time", 0.0, "start of the motion t_0 [s]");
    const double T = in_.positive("duration", std::nullopt, "duration t_f − t_0 [s]");
    task.path = std::make_shared<traj::PolynomialPath>(std::vector<double>{start.x(), start.y(), start.z()}, goal,
                                                       t0, T, degree(5));
    task.check_until = t0 + T;
  }
  in_.finish();
  return makeToolPathReference(model_, std::move(task));
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
    values.push_back(v ? *v : std::vector<double>(n, fixed_position_(i)));
  }
  if (any_axis) {
    std::vector<double> initial(fixed_position_.data(),
                                fixed_position_.data() + pos_dim_);
    position_ = std::make_unique<traj::WaypointPath>(times, values, initial, T, deg);
    in_.explain("position", "the waypoints set the position");
  } else {
    readFixedPosition();
  }
  std::unique_ptr<Path> heading;
  const std::string h = headingName();
  if (auto v = in_.list(h, {n}, what + " [rad]")) {
    const double initial = planar_ ? fixed_angle_ : initial_yaw_;
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
    twist_ << 0, 0, 0, tw[0], tw[1], tw[2];
  } else if (planar_) {
    twist_ << tw[0], tw[1], 0, 0, 0, tw[2];
  } else {
    for (int i = 0; i < 6; ++i) twist_(i) = tw[i];
  }
  readFixedPosition();
  readFixedAttitude();
  attitude_ = AttitudeMode::Twist;
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
  joint_paths_->path = std::make_unique<traj::PolynomialPath>(
      std::vector<double>{cart_start}, std::vector<double>{cart_end}, t0, T, deg);
}

std::unique_ptr<Reference> Builder::build() {
  analyzeModel();
  const std::string& g = settings_.generator;
  if (retiming_) clock_.emplace(retiming_->t_start, retiming_->tau_start, retiming_->ramp);
  if (g == "tool_path") {
    if (retiming_)
      throw ControlError("reference: the tool_path generator cannot be retimed (its inverse kinematics runs along "
                         "time from t = 0); use a joint or base generator with recovery");
    return toolPath();
  }
  if (!g.empty()) readSuspendedLoad();
  if (g.empty()) {
    if (!settings_.parameters.empty() || !settings_.options.empty())
      throw ControlError(
          "reference: parameters or options given without a generator; known "
          "generators: " +
          joinNames(generatorNames()));
    return assemble();
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

  base_driven_ = base_ >= 0 && (base_touched_ || attitude_ != AttitudeMode::Fixed);
  checkSuspendedLoad();
  if (base_driven_ && attitude_ == AttitudeMode::Flat && planar_ &&
      plane_gravity_.norm() < 1e-9)
    in_.fail("option 'attitude: flat' on the planar base '" + model_.joints[base_].name +
             "' needs gravity in its plane (the thrust direction is (ÿ − g)/‖ÿ − g‖)");
  checkHeldJoints();
  return assemble();
}

// ---- composing the reference from what the settings say ----------------------------------------

std::shared_ptr<const Path> Builder::warped(std::shared_ptr<const Path> path) const {
  if (!clock_ || !path) return path;
  return std::make_shared<traj::WarpedPath>(std::move(path), *clock_);
}

std::unique_ptr<Reference> Builder::assemble() {
  if (clock_) {  // every path in manoeuvre time (the circle's angle through arcAngle())
    position_ = warped(position_);
    heading_ = warped(heading_);
    if (joint_paths_->path) {
      std::shared_ptr<const Path> joints = std::move(joint_paths_->path);
      joint_paths_->path = std::make_unique<traj::WarpedPath>(std::move(joints), *clock_);
    }
  }
  auto ref = std::make_unique<ComposedReference>(model_.initial_state.x, model_.nxi);
  const bool prescribed = attitude_ != AttitudeMode::Flat && attitude_ != AttitudeMode::Twist;
  const auto attitude = prescribed && base_ >= 0 && !planar_ ? prescribedAttitude() : nullptr;
  if (base_driven_) ref->add(std::make_unique<BaseJointStep>(model_.joints[base_], baseCoordinates(attitude)));
  if (load_) ref->add(std::make_unique<SuspendedLoadJointStep>(load_, basePosition(), attitude));
  if (joint_paths_->path) ref->add(std::move(joint_paths_));
  return ref;
}

BasePosition Builder::basePosition() const {
  return BasePosition(position_, fixed_position_);
}

std::shared_ptr<const AttitudeLaw> Builder::prescribedAttitude() const {
  switch (attitude_) {
    case AttitudeMode::Heading:
      return std::make_shared<HeadingAttitude>(heading_);
    case AttitudeMode::Follow:
      return std::make_shared<CircleFollowingAttitude>(warped(std::make_shared<traj::ArcAnglePath>(circle_)),
                                                       follow_axis_, follow_phi0_, fixed_R_);
    default:
      return std::make_shared<FixedAttitude>(fixed_R_);
  }
}

std::shared_ptr<const traj::Path> Builder::prescribedAngle() const {
  switch (attitude_) {
    case AttitudeMode::Heading:
      return heading_;
    case AttitudeMode::Follow:
      return std::make_shared<CircleFollowingAngle>(warped(std::make_shared<traj::ArcAnglePath>(circle_)),
                                                    fixed_angle_, follow_phi0_);
    default:
      return std::make_shared<traj::ConstantPath>(std::vector<double>{fixed_angle_});
  }
}

std::unique_ptr<const BaseCoordinates> Builder::baseCoordinates(
    std::shared_ptr<const AttitudeLaw> attitude) const {
  const Joint& j = model_.joints[base_];
  std::unique_ptr<const BaseCoordinates> coordinates;
  if (planar_) {
    std::shared_ptr<const PlanarMotionLaw> motion;
    if (attitude_ == AttitudeMode::Twist)
      motion = std::make_shared<ConstantPlanarTwist>(fixed_position_.head<2>(), fixed_angle_, twist_, clock_);
    else if (attitude_ == AttitudeMode::Flat)
      motion = std::make_shared<FlatPlanarMotion>(basePosition(), plane_gravity_, epsilon_);
    else
      motion = std::make_shared<PrescribedPlanarMotion>(basePosition(), prescribedAngle());
    coordinates = std::make_unique<PlanarBaseCoordinates>(std::move(motion));
  } else {
    std::shared_ptr<const BodyMotionLaw> motion;
    if (attitude_ == AttitudeMode::Twist) {
      motion = std::make_shared<ConstantBodyTwist>(Pose{fixed_R_, fixed_position_}, twist_, clock_);
    } else if (attitude_ == AttitudeMode::Flat) {
      ThrustAxis axis(basePosition(), model_.gravity, drag_per_mass_);
      std::shared_ptr<const FlatHeading> heading;
      if (integrated_heading_ && retiming_)
        heading = std::make_shared<IntegratedHeading>(axis, yaw_rate_, retiming_->yaw, retiming_->t_start, clock_);
      else if (integrated_heading_)
        heading = std::make_shared<IntegratedHeading>(axis, yaw_rate_, initial_yaw_);
      else
        heading = std::make_shared<YawHeading>(heading_);
      motion = std::make_shared<FlatBodyMotion>(axis, std::move(heading), flat_point_ + epsilon_ * Vec3::UnitZ());
    } else {
      motion = std::make_shared<PrescribedBodyMotion>(basePosition(), std::move(attitude), load_);
    }
    coordinates = std::make_unique<SpatialBaseCoordinates>(j, frame_, std::move(motion));
  }
  // Coordinates that name a motion in more than one way are kept continuous in time, unless the
  // attitude is constant; a prescribed planar angle comes continuous from its path already (only
  // the flat one is an atan2).
  const bool continuity = hasAmbiguousCoordinates(j.type) && attitude_ != AttitudeMode::Fixed &&
                          (!planar_ || attitude_ == AttitudeMode::Flat);
  if (continuity && retiming_)
    coordinates = std::make_unique<ContinuousCoordinates>(
        j, std::move(coordinates), retiming_->t_start,
        retiming_->base_coordinates.size() == j.nx ? retiming_->base_coordinates.data() : nullptr);
  else if (continuity)
    coordinates = std::make_unique<ContinuousCoordinates>(j, std::move(coordinates));
  return coordinates;
}

}  // namespace

std::unique_ptr<Reference> makeReference(const Model& model, const ReferenceSettings& settings,
                                         const ReferenceRetiming* retiming) {
  return Builder(model, settings, retiming).build();
}

std::vector<std::string> referenceGeneratorNames() {
  return generatorNames();
}

}  // namespace rbs
