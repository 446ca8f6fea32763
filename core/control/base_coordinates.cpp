// Base motions in the base joint's coordinates (core/control/base_coordinates.h).
#include "core/control/base_coordinates.h"

#include <optional>

#include <algorithm>
#include <stdexcept>

#include "core/dynamics/inverse_kinematics.h"

namespace rbs {

SpatialBaseCoordinates::SpatialBaseCoordinates(const Joint& joint, const Pose& frame,
                                               std::shared_ptr<const BodyMotionLaw> motion)
    : joint_(joint), frame_(frame), motion_(std::move(motion)) {
  if (joint.parent < 0 && hasConstantMotionSubspace(joint.type)) {
    double x[12];
    const double zero[6] = {0, 0, 0, 0, 0, 0};
    neutralJointCoordinates(joint, x);
    JointMotion jm;
    evaluateJoint(joint, x, zero, Vec6::Zero(), Vec6::Zero(), jm);
    const SmallMat StS = jm.S.transpose() * jm.S;
    velocity_map_ = StS.ldlt().solve(SmallMat(jm.S.transpose()));
    identity_velocity_map_ = hasIdentityMotionSubspace(joint);  // S_e = I, so S_e⁺ = I
  }
  frame_is_identity_ = frame.isIdentity();
}

void SpatialBaseCoordinates::sample(double t, double* x, double* xi, double* xidot) const {
  const BodyMotion b = motion_->at(t);
  Pose M;
  Vec6 V, V_dot;
  if (isFreeType(joint_.type)) {
    // G_b = C M T_c ⇒ M = C⁻¹ G_b T_c⁻¹; the child twist of the motion is V_b itself. (A product
    // with an identity C or T_c changes no value, only −0 into +0: skipped.)
    M = frame_is_identity_ ? b.G : frame_.inverse() * b.G;
    if (joint_.has_child_placement) M = M * joint_.child_placement.inverse();
    V = b.V;
    V_dot = b.V_dot;
  } else {
    rotationJointMotion(joint_, frame_.R, b.G.R, b.V.tail<3>(), b.V_dot.tail<3>(), M, V, V_dot);
  }
  jointCoordinatesFromMotion(joint_, M, x);
  if (identity_velocity_map_) {  // free joint, body twist: ξ = V, ξ̇ = V̇
    std::copy(V.data(), V.data() + 6, xi);
    std::copy(V_dot.data(), V_dot.data() + 6, xidot);
    return;
  }
  if (velocity_map_.size() > 0) {
    Eigen::Map<VecX>(xi, joint_.nxi).noalias() = velocity_map_ * V;
    Eigen::Map<VecX>(xidot, joint_.nxi).noalias() = velocity_map_ * V_dot;
    return;
  }
  jointVelocitiesFromTwist(joint_, x, V, V_dot, xi, xidot);
}

void PlanarBaseCoordinates::sample(double t, double* x, double* xi, double* xidot) const {
  const PlanarMotion m = motion_->at(t);
  const Eigen::Matrix2d R = Eigen::Rotation2Dd(m.angle).toRotationMatrix();
  const flat::Vec2 v = R.transpose() * m.p_dot;
  const flat::Vec2 v_dot = R.transpose() * m.p_ddot - m.angle_dot * flat::Vec2(-v.y(), v.x());
  x[0] = m.p.x();
  x[1] = m.p.y();
  x[2] = m.angle;
  xi[0] = v.x();
  xi[1] = v.y();
  xi[2] = m.angle_dot;
  xidot[0] = v_dot.x();
  xidot[1] = v_dot.y();
  xidot[2] = m.angle_ddot;
}

ContinuousCoordinates::ContinuousCoordinates(const Joint& joint, std::unique_ptr<const BaseCoordinates> raw,
                                             double epoch, const double* start)
    : joint_(joint), raw_(std::move(raw)), epoch_(epoch) {
  if (joint.nx > kMaxCoordinates)
    throw std::invalid_argument("ContinuousCoordinates: joint '" + joint.name + "' has more than " +
                                std::to_string(kMaxCoordinates) + " coordinates");
  auto anchorAt = [this](double t, const Anchor* previous) {
    double x[12], xi[6], xidot[6];
    raw_->sample(t, x, xi, xidot);
    if (previous) alignJointCoordinates(joint_, x, previous->data());
    Anchor a{};
    for (int i = 0; i < joint_.nx; ++i) a[static_cast<std::size_t>(i)] = x[i];
    return a;
  };
  std::optional<Anchor> first;
  if (start) {
    first.emplace();
    std::copy(start, start + joint_.nx, first->begin());
  }
  anchors_.reset([anchorAt, epoch, first] { return anchorAt(epoch, first ? &*first : nullptr); },
                 [anchorAt, epoch](const Anchor& previous, long, long to) {
                   return anchorAt(epoch + to * KnotTable<Anchor>::kStep, &previous);
                 });
}

void ContinuousCoordinates::sample(double t, double* x, double* xi, double* xidot) const {
  raw_->sample(t, x, xi, xidot);
  long knot = 0;
  alignJointCoordinates(joint_, x, anchors_.at(t - epoch_, knot).data());
}

void BaseJointStep::apply(double t, ReferenceSample& out) const {
  double x[12], xi[6], xidot[6];
  coordinates_->sample(t, x, xi, xidot);
  for (int i = 0; i < joint_.nx; ++i) out.x(joint_.x_offset + i) = x[i];
  for (int i = 0; i < joint_.nxi; ++i) {
    out.xi(joint_.xi_offset + i) = xi[i];
    out.xidot(joint_.xi_offset + i) = xidot[i];
  }
}

void SuspendedLoadJointStep::apply(double t, ReferenceSample& out) const {
  traj::Jet y[3];
  position_.jets(t, y);
  load_->sampleJoint(y, base_attitude_->at(t), out);
}

}  // namespace rbs
