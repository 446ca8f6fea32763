#include "core/control/servo_reaction.h"

#include <Eigen/Eigenvalues>
#include <Eigen/LU>
#include <cmath>
#include <string>

#include "core/control/parameters.h"
#include "core/control/tracking.h"
#include "core/dynamics/kinematics.h"
#include "core/dynamics/workspace.h"
#include "core/model/model_builder.h"
#include "core/math/se3.h"

namespace rbs {
namespace {

/// World poses of every body with the revolute joints `zeroed` at zero (the rest at the initial state).
void kinematicsAtZeroTilt(const Model& model, const std::vector<int>& zeroed, Workspace& ws) {
  State s = model.initial_state;
  for (int j : zeroed) setJointScalarPosition(model.joints[j], 0.0, s.x.data() + model.joints[j].x_offset);
  computeKinematics(model, s.x, s.xi, ws);
}

/// Inertia of the bodies moving with `body` about the axis `a` through `point` (world). Requires
/// kinematics in `ws`.
double inertiaAboutAxis(const Model& model, const Workspace& ws, int body, const Vec3& a, const Vec3& point) {
  return a.dot(compositeInertia(model, ws, bodiesMovingWith(model, body), Pose{}, point) * a);
}

}  // namespace

double tiltAxisInertia(const Model& model, int joint) {
  const Joint& j = model.joints[joint];
  Workspace ws(model);
  kinematicsAtZeroTilt(model, {joint}, ws);
  const Pose frame = (j.parent >= 0 ? ws.pose[j.parent] : Pose{}) * j.parent_placement;
  return j.armature + inertiaAboutAxis(model, ws, joint, frame.R * j.axis, frame.r);
}

ServoReaction::ServoReaction(const Model& plant, const Model& force_model) {
  const int base = baseJointIndex(plant);  // joints[b] is the edge to body b: also the base body
  if (base < 0 || !isFreeType(plant.joints[base].type))
    throw ControlError("servo_reaction: the vehicle needs a free base joint");
  base_name_ = plant.bodies[base].name;
  const int design_base = force_model.bodyIndex(base_name_);
  if (design_base < 0 || !isFreeType(force_model.joints[design_base].type))
    throw ControlError("servo_reaction: the force model has no free base '" + base_name_ + "'");
  base_joint_ = force_model.joints[design_base];
  const Pose& placement = base_joint_.child_placement;
  if (!placement.R.isIdentity(1e-12) || !placement.r.isZero(1e-12))
    throw ControlError("servo_reaction: the free joint '" + base_joint_.name +
                       "' has a child placement; give the base body's frame as the joint's");

  std::vector<int> tilts;
  for (const Propeller& p : plant.propellers) {
    if (force_model.actuatorIndex(axialThrustInputName(p.name)) < 0) continue;
    const int tilt = plant.joints[p.joint].parent;  // the arm the rotor hangs from: its joint
    if (plant.joints[tilt].parent != base)
      throw ControlError("servo_reaction: tilt joint '" + plant.joints[tilt].name + "' of propeller '" + p.name +
                         "' does not hang from the base '" + base_name_ + "'");
    tilts.push_back(tilt);
  }
  if (tilts.empty()) throw ControlError("servo_reaction: no propeller is a thrust vector (thrust: vector)");

  // Θ of the whole vehicle about its centre of mass, arms at zero, in base axes.
  Workspace ws(plant);
  kinematicsAtZeroTilt(plant, tilts, ws);
  const std::vector<int> vehicle = bodiesMovingWith(plant, base);
  double mass = 0.0;
  Vec3 moment = Vec3::Zero();
  for (int b : vehicle) {
    mass += plant.bodies[b].mass;
    moment += plant.bodies[b].mass * (ws.pose[b] * plant.bodies[b].com);
  }
  const Mat3& R_base = ws.pose[base].R;
  inertia_ = compositeInertia(plant, ws, vehicle, ws.pose[base], moment / mass);
  const Mat3 inverse = inertia_.inverse();

  for (int tilt : tilts) {
    const Joint& j = plant.joints[tilt];
    Arm arm;
    arm.joint = tilt;
    arm.axis = j.axis_in_parent;
    const Pose frame = ws.pose[base] * j.parent_placement;
    arm.coupling = j.rotor_coupling + inertiaAboutAxis(plant, ws, tilt, R_base * arm.axis, frame.r);
    arm.turn_per_tilt = inverse * arm.axis * arm.coupling;
    arm.x = j.x_offset;
    arm.xi = j.xi_offset;
    reduction_ += arm.coupling * arm.axis * arm.axis.transpose();
    arms_.push_back(arm);
  }
  const Mat3 design_inertia = inertia_ - reduction_;
  if (Eigen::SelfAdjointEigenSolver<Mat3>(design_inertia).eigenvalues().minCoeff() <= 1e-9 * inertia_.norm())
    throw ControlError("servo_reaction: the tilting arms' inertia about their axes (with Θ_AC) is not smaller than "
                       "the vehicle's: Θ − Σ c a aᵀ is not positive definite");
  const int n = arms();
  MatX I_minus_K = MatX::Identity(n, n);
  for (int k = 0; k < n; ++k)
    for (int j = 0; j < n; ++j) I_minus_K(k, j) -= arms_[k].axis.dot(arms_[j].turn_per_tilt);
  tilt_map_ = I_minus_K.partialPivLu().inverse();  // regular: det(I − K) = det Θ'/det Θ > 0
}

Model ServoReaction::designModel(const Model& force_model) const {
  Model design = force_model;
  Body& base = design.bodies[design.bodyIndex(base_name_)];
  base.inertia_com -= reduction_;
  base.spatial_inertia = spatialInertia(base.mass, base.com, base.inertia_com);
  base.inertia_origin = base.spatial_inertia.bottomRightCorner<3, 3>();
  return design;
}

void ServoReaction::toDesignState(const State& plant_state, State& design, VecX* force) const {
  Vec3 angle = Vec3::Zero(), rate = Vec3::Zero();
  for (const Arm& arm : arms_) {
    angle += arm.turn_per_tilt * plant_state.x(arm.x);
    rate += arm.turn_per_tilt * plant_state.xi(arm.xi);
  }
  // The base body (its joint's moving frame: no child placement) turns from R to R E about its
  // origin; quaternion coordinates keep the sign they had.
  const Joint& j = base_joint_;
  double* x = design.x.data() + j.x_offset;
  const Eigen::Matrix<double, Eigen::Dynamic, 1, 0, 12, 1> before = Eigen::Map<const VecX>(x, j.nx);
  Pose motion = jointMotionPose(j, x);
  const Mat3 E = expSO3(angle);
  motion.R = motion.R * E;
  jointCoordinatesFromMotion(j, motion, x);
  alignJointCoordinates(j, x, before.data());
  // Body twist [v; ω] in the body's axes: the same motion seen from the turned axes, plus (2)'s rate.
  auto v = design.xi.segment<3>(j.xi_offset);
  auto w = design.xi.segment<3>(j.xi_offset + 3);
  v = E.transpose() * Vec3(v);
  w = E.transpose() * Vec3(w) + rate;
  if (force != nullptr) {
    auto f = force->segment<3>(j.xi_offset);
    auto tau = force->segment<3>(j.xi_offset + 3);
    f = E.transpose() * Vec3(f);
    tau = E.transpose() * Vec3(tau);
  }
}

void ServoReaction::toTilts(VecX& tilts) const { tilts = tilt_map_ * tilts; }

}  // namespace rbs
