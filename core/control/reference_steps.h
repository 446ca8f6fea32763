// Steps of a generated reference (core/control/reference.cpp): a reference is x(0) with ξ = 0,
// overwritten joint by joint by its steps — the base (core/control/base_coordinates.h), an
// optional suspended load and the scalar joints' paths. Each step turns jets of the reference's
// paths into joint coordinates and their rates; none knows about generators or settings.
#pragma once

#include <memory>
#include <vector>

#include "core/control/flatness.h"
#include "core/control/reference.h"
#include "core/control/trajectory.h"
#include "core/model/joint.h"

namespace rbs {

/// One part of a composed reference: writes x_R, ξ_R, ξ̇_R of the joints it drives into `out`
/// (sized for the whole model) and leaves every other entry as it is.
class ReferenceStep {
 public:
  virtual ~ReferenceStep() = default;
  virtual void apply(double t, ReferenceSample& out) const = 0;
};

/// A reference composed of steps: x_R = x₀, ξ_R = ξ̇_R = 0, overwritten by the steps joint by joint
/// (each writes its own joints).
class ComposedReference final : public Reference {
 public:
  ComposedReference(VecX x0, int nxi) : x0_(std::move(x0)), nxi_(nxi) {}
  void add(std::unique_ptr<const ReferenceStep> step) { steps_.push_back(std::move(step)); }
  void sample(double t, ReferenceSample& out) const override {
    out.x = x0_;
    out.xi.setZero(nxi_);
    out.xidot.setZero(nxi_);
    for (const auto& step : steps_) step->apply(t, out);
  }

 private:
  VecX x0_;
  int nxi_;
  std::vector<std::unique_ptr<const ReferenceStep>> steps_;
};

/// The rotation Q = I + wed(v) + wed(v)²/(1 + c), v = a × d, c = a·d, that turns the unit vector a
/// into the unit vector d about a × d (the shortest way; singular at d = −a), with its body
/// angular velocity ω = vee(QᵀQ̇) and acceleration ω̇ = vee(Q̇ᵀQ̇ + QᵀQ̈) for a constant a.
flat::AttitudeJet shortestRotation(const Vec3& a, const flat::Vec3Jet& d);

/// A load hanging from the base on a spherical joint, moved along the position path y(t) of its
/// centre of mass. A point mass on a rope is accelerated by gravity and the rope force only, so
/// the rope direction (load → joint centre) is n = (ÿ − a_G)/‖ÿ − a_G‖: the flat output of the
/// suspended load. The base rides on it; the load joint turns the load onto −n.
class SuspendedLoadStep {
 public:
  /// `joint`: the spherical joint (parent: the base body); `length`: L, joint centre → load
  /// CoM [m]; `gravity`: a_G; `initial_R`: the load's world attitude at rest (hanging down).
  SuspendedLoadStep(const Joint& joint, double length, const Vec3& gravity, const Mat3& initial_R);

  /// n with two time derivatives, from the jets of y.
  flat::Vec3Jet ropeDirection(const traj::Jet y[3]) const;
  /// The base origin from the load: the joint centre is p = y + L n and r = p − R h (h: the joint
  /// centre in the base body frame); with Ṙ = R wed(ω): ṙ = ṗ − R(ω × h),
  /// r̈ = p̈ − R(ω̇ × h + ω × (ω × h)). Adds the offset to (r, ṙ, r̈), which hold y's jets.
  void baseFromLoad(const traj::Jet y[3], const flat::AttitudeJet& base, Vec3& r, Vec3& r_dot,
                    Vec3& r_ddot) const;
  /// x, ξ, ξ̇ of the load joint in `out`: the load's world attitude is R_L = Q R_L0 with Q the
  /// shortest rotation of the rest direction a_G/‖a_G‖ onto −n, expressed relative to the base
  /// attitude `base`.
  void sampleJoint(const traj::Jet y[3], const flat::AttitudeJet& base, ReferenceSample& out) const;

 private:
  Joint joint_;
  double length_;
  Vec3 hook_;      ///< joint centre in the base body frame
  Vec3 gravity_;   ///< a_G
  Vec3 down_;      ///< a_G/‖a_G‖: joint centre → CoM at rest
  Mat3 initial_R_;
};

/// The scalar joints (revolute, unit circle, prismatic) driven by a path: q(t) of the first
/// path->dim() of them in index order, or, with the spring flat output of the two-mass system
/// (4.124, corrected sign), z1 = z2 + z̈2/ϖ and z2 from a one-dimensional path, so that
/// M2 z̈2 + k (z2 − z1) = 0 along the reference.
struct ScalarJointPaths final : ReferenceStep {
  std::vector<Joint> joints;   ///< the scalar joints of the model, in index order
  std::unique_ptr<traj::Path> path;
  bool spring_flat = false;
  double varpi = 1.0;          ///< ϖ = k/M2 [1/s²]

  /// How many of `joints` the paths drive (0 without a path).
  int driven() const;
  /// Writes q, q̇, q̈ of the driven joints into `out`.
  void apply(double t, ReferenceSample& out) const override;
};

}  // namespace rbs
