#include "core/dynamics/inverse_kinematics.h"

#include <Eigen/Cholesky>

namespace rbs {
namespace {
using SmallMat = Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, 0, 6, 6>;
using SmallVec = Eigen::Matrix<double, Eigen::Dynamic, 1, 0, 6, 1>;
}  // namespace

void rotationJointMotion(const Joint& j, const Mat3& C_R, const Mat3& R_child, const Vec3& omega,
                         const Vec3& omega_dot, Pose& M, Vec6& V, Vec6& V_dot) {
  const Mat3& Rc = j.child_placement.R;
  M = Pose::rotation(C_R.transpose() * R_child * Rc.transpose());
  Vec6 W, W_dot;
  W << Vec3::Zero(), Rc * omega;
  W_dot << Vec3::Zero(), Rc * omega_dot;
  V = adjointInvTimes(j.child_placement, W);
  V_dot = adjointInvTimes(j.child_placement, W_dot);
}

void jointVelocitiesFromTwist(const Joint& j, const double* x, const Vec6& V, const Vec6& V_dot,
                              double* xi, double* xidot) {
  JointMotion jm;
  const double zero[6] = {0, 0, 0, 0, 0, 0};
  evaluateJoint(j, x, zero, Vec6::Zero(), Vec6::Zero(), jm);
  const SmallMat StS = jm.S.transpose() * jm.S;
  const Eigen::LDLT<SmallMat> ldlt(StS);
  const SmallVec xi_e = ldlt.solve(jm.S.transpose() * V);
  for (int c = 0; c < j.nxi; ++c) xi[c] = xi_e(c);
  evaluateJoint(j, x, xi, Vec6::Zero(), Vec6::Zero(), jm);
  const SmallVec xidot_e = ldlt.solve(jm.S.transpose() * (V_dot - jm.bias));
  for (int c = 0; c < j.nxi; ++c) xidot[c] = xidot_e(c);
}

}  // namespace rbs
