// A base motion (core/control/base_motion.h) in the base joint's own coordinates, and the
// reference steps that write the base joint and a load hanging from it.
//
// Spatial base (free and spherical types): with C = (world pose of the parent) · T_p the joint
// motion is M = C⁻¹ G_b T_c⁻¹ (the rotation only for spherical types); then
// x_e = jointCoordinatesFromMotion(M), ξ_e = S_e⁺ V, ξ̇_e = S_e⁺ (V̇ − σ_e) with V the child twist
// of the motion (for free types V = V_b, the body twist itself). Planar base: x_e = (p, θ),
// ξ_e = (R(θ)ᵀṗ, θ̇). Where the coordinates name a motion in more than one way (angles mod 2π,
// a quaternion's sign), ContinuousCoordinates picks the representative nearest the one a moment
// before, so x_R(t) is differentiable and ẋ_R = A(x_R) ξ_R holds.
#pragma once

#include <array>
#include <memory>

#include "core/control/base_motion.h"
#include "core/control/knot_table.h"
#include "core/control/reference_steps.h"
#include "core/model/joint.h"

namespace rbs {

/// x_e, ξ_e, ξ̇_e of the base joint at time t (buffers of at least 12, 6 and 6 entries).
class BaseCoordinates {
 public:
  virtual ~BaseCoordinates() = default;
  virtual void sample(double t, double* x_e, double* xi_e, double* xidot_e) const = 0;
};

/// A free or spherical base joint following a body motion.
class SpatialBaseCoordinates final : public BaseCoordinates {
 public:
  /// `frame`: C, the world pose of the joint frame (the parent's pose at the initial state · T_p).
  SpatialBaseCoordinates(const Joint& joint, const Pose& frame, std::shared_ptr<const BodyMotionLaw> motion);
  void sample(double t, double* x_e, double* xi_e, double* xidot_e) const override;

 private:
  using SmallMat = Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, 0, 6, 6>;
  Joint joint_;
  Pose frame_;
  std::shared_ptr<const BodyMotionLaw> motion_;
  /// S_e⁺ = (S_eᵀS_e)⁻¹S_eᵀ of a root joint whose S_e is constant (free, spherical): then
  /// ξ_e = S_e⁺ V and ξ̇_e = S_e⁺ V̇ (σ_e = 0) without a factorization per sample. Empty otherwise.
  SmallMat velocity_map_;
  bool identity_velocity_map_ = false;  ///< S_e⁺ = I exactly (free joints: ξ = V)
  bool frame_is_identity_ = false;      ///< C = I (a root joint without parent placement)
};

/// A planar base joint following a planar motion: ξ = (v, ω) with v = R(θ)ᵀṗ;
/// ξ̇ = (R(θ)ᵀp̈ − ω J v, θ̈) (σ_e = 0 for the planar joint).
class PlanarBaseCoordinates final : public BaseCoordinates {
 public:
  explicit PlanarBaseCoordinates(std::shared_ptr<const PlanarMotionLaw> motion) : motion_(std::move(motion)) {}
  void sample(double t, double* x_e, double* xi_e, double* xidot_e) const override;

 private:
  std::shared_ptr<const PlanarMotionLaw> motion_;
};

/// Makes another BaseCoordinates continuous in time: each sample is aligned
/// (alignJointCoordinates) with the coordinates at the knot below it, and each knot with the one
/// before (a KnotTable from t = 0, so the value depends on t alone). Needs steps of 2 ms to stay
/// within π of angle and less than 90° of quaternion change between knots.
class ContinuousCoordinates final : public BaseCoordinates {
 public:
  /// The joint's coordinates may have at most kMaxCoordinates entries (every joint type with
  /// ambiguous coordinates has).
  static constexpr int kMaxCoordinates = 7;
  /// `epoch`: the time of the first knot (a retimed reference starts there; 0 otherwise);
  /// `start`: coordinates (joint.nx) the first knot is aligned with, so that a retimed reference
  /// continues the branch of the one before it; null: the raw sample at the epoch.
  ContinuousCoordinates(const Joint& joint, std::unique_ptr<const BaseCoordinates> raw, double epoch = 0.0,
                        const double* start = nullptr);
  ContinuousCoordinates(const ContinuousCoordinates&) = delete;  // the table refers to this object
  ContinuousCoordinates& operator=(const ContinuousCoordinates&) = delete;
  void sample(double t, double* x_e, double* xi_e, double* xidot_e) const override;

 private:
  using Anchor = std::array<double, kMaxCoordinates>;
  Joint joint_;
  std::unique_ptr<const BaseCoordinates> raw_;
  double epoch_ = 0.0;
  KnotTable<Anchor> anchors_;
};

/// The step that writes the base joint.
class BaseJointStep final : public ReferenceStep {
 public:
  BaseJointStep(const Joint& joint, std::unique_ptr<const BaseCoordinates> coordinates)
      : joint_(joint), coordinates_(std::move(coordinates)) {}
  void apply(double t, ReferenceSample& out) const override;

 private:
  Joint joint_;
  std::unique_ptr<const BaseCoordinates> coordinates_;
};

/// The step that writes a suspended load's joint: the load hangs along the rope direction of the
/// position path (the load's centre of mass) relative to the base's prescribed attitude.
class SuspendedLoadJointStep final : public ReferenceStep {
 public:
  SuspendedLoadJointStep(std::shared_ptr<const SuspendedLoadStep> load, BasePosition position,
                         std::shared_ptr<const AttitudeLaw> base_attitude)
      : load_(std::move(load)), position_(std::move(position)), base_attitude_(std::move(base_attitude)) {}
  void apply(double t, ReferenceSample& out) const override;

 private:
  std::shared_ptr<const SuspendedLoadStep> load_;
  BasePosition position_;
  std::shared_ptr<const AttitudeLaw> base_attitude_;
};

}  // namespace rbs
