// The target motion of a reference's base (core/control/reference.cpp), in world terms and before
// any joint coordinates: a position path × an attitude law, a flat motion of a thrust-vectoring
// vehicle, or a constant twist. core/control/base_coordinates.h turns a motion into the base
// joint's x, ξ, ξ̇. Every unit here is immutable after construction except IntegratedHeading's
// knot table, whose values depend on t alone; all are safe to sample from several threads.
#pragma once

#include <memory>
#include <optional>
#include <utility>

#include "core/control/flatness.h"
#include "core/control/knot_table.h"
#include "core/control/reference_steps.h"
#include "core/control/trajectory.h"

namespace rbs {

/// The base position y(t): world coordinates for a free base, plane coordinates for a planar one.
/// Components the path does not have (all of them without a path) hold their fixed values.
class BasePosition {
 public:
  BasePosition(std::shared_ptr<const traj::Path> path, const Vec3& fixed)
      : path_(std::move(path)), fixed_(fixed) {}
  /// y(t) per component with four time derivatives.
  void jets(double t, traj::Jet y[3]) const;

 private:
  std::shared_ptr<const traj::Path> path_;
  Vec3 fixed_;
};

// ---- attitude laws of a prescribed attitude (free and spherical base) -------------------------

/// R(t) of the base body with its body angular velocity ω and ω̇, prescribed as a function of time.
class AttitudeLaw {
 public:
  virtual ~AttitudeLaw() = default;
  virtual flat::AttitudeJet at(double t) const = 0;
};

/// R(t) = R₀, ω = 0.
class FixedAttitude final : public AttitudeLaw {
 public:
  explicit FixedAttitude(const Mat3& R) : R_(R) {}
  flat::AttitudeJet at(double t) const override;

 private:
  Mat3 R_;
};

/// R(t) = R_z(ψ(t)) from the first component of a path: ω = (0, 0, ψ̇), ω̇ = (0, 0, ψ̈).
class HeadingAttitude final : public AttitudeLaw {
 public:
  explicit HeadingAttitude(std::shared_ptr<const traj::Path> heading) : heading_(std::move(heading)) {}
  flat::AttitudeJet at(double t) const override;

 private:
  std::shared_ptr<const traj::Path> heading_;
};

/// Turns with a circle's arc angle φ(t) (traj::ArcAnglePath, possibly warped) about the circle's
/// normal n: R(t) = Rot(n, φ − φ₀) R₀, so that the body faces the same way relative to the path all
/// around. ω = Rᵀn φ̇ (body), and Rᵀn is constant, so ω̇ = Rᵀn φ̈.
class CircleFollowingAttitude final : public AttitudeLaw {
 public:
  CircleFollowingAttitude(std::shared_ptr<const traj::Path> arc_angle, const Vec3& normal,
                          double start_angle, const Mat3& R0)
      : arc_angle_(std::move(arc_angle)), normal_(normal), phi0_(start_angle), R0_(R0) {}
  /// A circle is not its arc angle: wrap it in traj::ArcAnglePath.
  CircleFollowingAttitude(std::shared_ptr<const traj::CirclePath>, const Vec3&, double, const Mat3&) = delete;
  flat::AttitudeJet at(double t) const override;

 private:
  std::shared_ptr<const traj::Path> arc_angle_;
  Vec3 normal_;
  double phi0_;
  Mat3 R0_;
};

/// The planar counterpart of CircleFollowingAttitude, as a one-component path of the planar
/// angle: θ(t) = θ₀ + φ(t) − φ₀.
class CircleFollowingAngle final : public traj::Path {
 public:
  CircleFollowingAngle(std::shared_ptr<const traj::Path> arc_angle, double angle0, double start_angle)
      : arc_angle_(std::move(arc_angle)), theta0_(angle0), phi0_(start_angle) {}
  /// A circle is not its arc angle: wrap it in traj::ArcAnglePath.
  CircleFollowingAngle(std::shared_ptr<const traj::CirclePath>, double, double) = delete;
  int dim() const override { return 1; }
  traj::Jet component(double t, int i) const override;

 private:
  std::shared_ptr<const traj::Path> arc_angle_;
  double theta0_, phi0_;
};

// ---- the flat attitude of a thrust-vectoring vehicle (free base) -------------------------------

/// The thrust direction z(t) = (ÿ − a_G + (d/m) ẏ)/‖·‖ of a position path (flatness.h).
class ThrustAxis {
 public:
  ThrustAxis(BasePosition position, const Vec3& gravity, double drag_per_mass)
      : position_(std::move(position)), gravity_(gravity), drag_per_mass_(drag_per_mass) {}
  const BasePosition& position() const { return position_; }
  /// z from the position's jets (the caller has them already).
  flat::Vec3Jet fromJets(const traj::Jet y[3]) const;
  flat::Vec3Jet at(double t) const;

 private:
  BasePosition position_;
  Vec3 gravity_;
  double drag_per_mass_;
};

/// The rotation about the thrust axis that completes a flat attitude.
class FlatHeading {
 public:
  virtual ~FlatHeading() = default;
  /// The attitude at t whose body z axis is the thrust direction z (given with two derivatives).
  virtual flat::AttitudeJet attitude(double t, const flat::Vec3Jet& z) const = 0;
};

/// A given heading ψ(t) in the ZYX sense (5.69), from the first component of a path.
class YawHeading final : public FlatHeading {
 public:
  explicit YawHeading(std::shared_ptr<const traj::Path> yaw) : yaw_(std::move(yaw)) {}
  flat::AttitudeJet attitude(double t, const flat::Vec3Jet& z) const override;

 private:
  std::shared_ptr<const traj::Path> yaw_;
};

/// A heading integrated from a prescribed ω_zR along the thrust axis (5.70): the body x axis
/// follows ẋ = ω_z y − ω_y z from the ZYX heading `initial_yaw` at t = `epoch` (0; a retimed
/// reference starts its own integral where it starts). The integral is kept at knots 2 ms apart
/// from the epoch (KnotTable), so a sample costs one RK4 step and depends on t alone.
class IntegratedHeading final : public FlatHeading {
 public:
  /// `clock`: a retimed manoeuvre's (docs/CONTROL.md "Recovery"): the heading turns at
  /// yaw_rate · τ̇(t), so that it waits and runs up with the manoeuvre.
  IntegratedHeading(ThrustAxis axis, double yaw_rate, double initial_yaw, double epoch = 0.0,
                    std::optional<traj::ManoeuvreClock> clock = std::nullopt);
  IntegratedHeading(const IntegratedHeading&) = delete;  // the table's steps refer to this object
  IntegratedHeading& operator=(const IntegratedHeading&) = delete;
  flat::AttitudeJet attitude(double t, const flat::Vec3Jet& z) const override;
  /// Knots held by the table (bounded; for the soak tests).
  std::size_t storedKnots() const { return table_.storedKnots(); }

 private:
  /// A knot: the x axis and the thrust axis z (with derivatives) at the knot's time, so that a
  /// sample between knots need not evaluate the path at the knot again.
  struct Knot {
    Vec3 x;
    flat::Vec3Jet z;
  };
  /// RK4 of the x axis from t0 to t1, with z at t0 and at t1 given.
  Vec3 integrate(Vec3 x, double t0, double t1, const flat::Vec3Jet& z_start, const flat::Vec3Jet& z_end) const;

  /// ω_zR and its rate at t: yaw_rate (· τ̇, τ̈ with a clock).
  std::pair<double, double> yawRate(double t) const;

  ThrustAxis axis_;
  double yaw_rate_;
  double initial_yaw_;
  double epoch_;
  std::optional<traj::ManoeuvreClock> clock_;
  KnotTable<Knot> table_;
};

// ---- base motions ------------------------------------------------------------------------------

/// World pose G = (R, r) of the base body with its body twist V = [v; ω] and V̇.
struct BodyMotion {
  Pose G;
  Vec6 V = Vec6::Zero();
  Vec6 V_dot = Vec6::Zero();
};

/// The motion of a free or spherical base.
class BodyMotionLaw {
 public:
  virtual ~BodyMotionLaw() = default;
  virtual BodyMotion at(double t) const = 0;
};

/// r(t) from a position × R(t) from an attitude law: v = Rᵀṙ, v̇ = Rᵀr̈ − ω × v. With a suspended
/// load the position is the load's centre of mass and the base rides on the rope
/// (SuspendedLoadStep::baseFromLoad).
class PrescribedBodyMotion final : public BodyMotionLaw {
 public:
  PrescribedBodyMotion(BasePosition position, std::shared_ptr<const AttitudeLaw> attitude,
                       std::shared_ptr<const SuspendedLoadStep> load = nullptr)
      : position_(std::move(position)), attitude_(std::move(attitude)), load_(std::move(load)) {}
  BodyMotion at(double t) const override;

 private:
  BasePosition position_;
  std::shared_ptr<const AttitudeLaw> attitude_;
  std::shared_ptr<const SuspendedLoadStep> load_;
};

/// The flat motion of a vehicle whose thrust acts along body z: R from the thrust axis and a
/// heading, r = y − R s for the body point s the path is for (flatness.h, freeFlatSample).
class FlatBodyMotion final : public BodyMotionLaw {
 public:
  FlatBodyMotion(ThrustAxis axis, std::shared_ptr<const FlatHeading> heading, const Vec3& flat_point)
      : axis_(std::move(axis)), heading_(std::move(heading)), flat_point_(flat_point) {}
  BodyMotion at(double t) const override;

 private:
  ThrustAxis axis_;
  std::shared_ptr<const FlatHeading> heading_;
  Vec3 flat_point_;
};

/// G(t) = G₀ exp(t wed V): the body twist is V at all times. With a clock (a retimed reference),
/// G = G₀ exp(τ(t) wed V), twist τ̇ V, its rate τ̈ V.
class ConstantBodyTwist final : public BodyMotionLaw {
 public:
  ConstantBodyTwist(const Pose& G0, const Vec6& V, std::optional<traj::ManoeuvreClock> clock = std::nullopt)
      : G0_(G0), V_(V), clock_(clock) {}
  BodyMotion at(double t) const override;

 private:
  Pose G0_;
  Vec6 V_;
  std::optional<traj::ManoeuvreClock> clock_;
};

/// Plane coordinates of a planar base's moving frame: position p, angle θ and their derivatives.
struct PlanarMotion {
  flat::Vec2 p = flat::Vec2::Zero(), p_dot = flat::Vec2::Zero(), p_ddot = flat::Vec2::Zero();
  double angle = 0.0, angle_dot = 0.0, angle_ddot = 0.0;
};

/// The motion of a planar base.
class PlanarMotionLaw {
 public:
  virtual ~PlanarMotionLaw() = default;
  virtual PlanarMotion at(double t) const = 0;
};

/// p(t) from a position × θ(t) from the first component of an angle path.
class PrescribedPlanarMotion final : public PlanarMotionLaw {
 public:
  PrescribedPlanarMotion(BasePosition position, std::shared_ptr<const traj::Path> angle)
      : position_(std::move(position)), angle_(std::move(angle)) {}
  PlanarMotion at(double t) const override;

 private:
  BasePosition position_;
  std::shared_ptr<const traj::Path> angle_;
};

/// The PVTOL's flat motion (4.129)–(4.133): the angle and the offset ε along the thrust axis
/// follow from the path y and the in-plane gravity (flatness.h, planarFlatSample).
class FlatPlanarMotion final : public PlanarMotionLaw {
 public:
  FlatPlanarMotion(BasePosition position, const flat::Vec2& plane_gravity, double epsilon)
      : position_(std::move(position)), gravity_(plane_gravity), epsilon_(epsilon) {}
  PlanarMotion at(double t) const override;

 private:
  BasePosition position_;
  flat::Vec2 gravity_;
  double epsilon_;
};

/// The planar G(t) = G₀ exp(t V) with V = (v_x, v_y, ω): θ = θ₀ + ω t, ṗ = R(θ) v,
/// p̈ = ω R(θ) J v (J: rotation by +90°).
class ConstantPlanarTwist final : public PlanarMotionLaw {
 public:
  /// `V` = [v_x, v_y, 0, 0, 0, ω] (a spatial twist in the plane); with a clock, in manoeuvre time
  /// as ConstantBodyTwist.
  ConstantPlanarTwist(const flat::Vec2& p0, double angle0, const Vec6& V,
                      std::optional<traj::ManoeuvreClock> clock = std::nullopt);
  PlanarMotion at(double t) const override;

 private:
  flat::Vec2 p0_;
  double angle0_;
  Eigen::Matrix2d R0_;
  Vec6 V_;
  std::optional<traj::ManoeuvreClock> clock_;
};

}  // namespace rbs
