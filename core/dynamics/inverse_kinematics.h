// Joint inverse kinematics, beside the forward kinematics (core/dynamics/kinematics.h): from the
// motion a joint must produce — the pose of its moving frame and the twist of its child body —
// to the joint's velocity coordinates and their rates. References (core/control/reference.cpp)
// use it to turn a desired body motion into x_R, ξ_R, ξ̇_R.
#pragma once

#include "core/model/joint.h"

namespace rbs {

/// The motion of a rotation-only joint whose parent frame has the attitude C_R, when its child
/// body has the attitude R_child with body angular velocity ω and acceleration ω̇ (given in the
/// frame R_child is): R_child = C_R R_M R_c ⇒ R_M = C_Rᵀ R_child R_cᵀ. The motion twist is
/// W = [0; R_c ω] and the child twist V = Ad_{T_c}⁻¹ W (the child's origin moves with the rotation
/// about the joint centre); likewise V̇.
void rotationJointMotion(const Joint& j, const Mat3& C_R, const Mat3& R_child, const Vec3& omega,
                         const Vec3& omega_dot, Pose& M, Vec6& V, Vec6& V_dot);

/// ξ_e = S_e⁺ V and ξ̇_e = S_e⁺ (V̇ − σ_e) at the coordinates x_e, for a child twist V and its rate
/// V̇ (least squares for a V the joint cannot produce). σ_e depends on ξ_e (Euler angles), so the
/// joint is evaluated twice. xi and xidot receive j.nxi values each.
void jointVelocitiesFromTwist(const Joint& j, const double* x, const Vec6& V, const Vec6& V_dot,
                              double* xi, double* xidot);

}  // namespace rbs
