// The fastest rate of a model's joint terms (core/dynamics/time_scale.h).
#include "core/dynamics/time_scale.h"

#include <Eigen/Eigenvalues>
#include <cmath>

#include "core/dynamics/dynamics.h"

namespace rbs {
namespace {

/// The largest eigenvalue of A v = λ M v (A symmetric positive semidefinite, M positive definite)
/// and the coordinate with the largest share of its eigenvector (in the M metric, |v_k|² M_kk).
std::pair<double, int> largestGeneralizedEigenvalue(const MatX& A, const MatX& M) {
  if (A.isZero(0.0)) return {0.0, -1};
  Eigen::GeneralizedSelfAdjointEigenSolver<MatX> solver(A, M);
  if (solver.info() != Eigen::Success) return {0.0, -1};
  const Eigen::Index last = solver.eigenvalues().size() - 1;  // ascending
  const VecX share = solver.eigenvectors().col(last).cwiseAbs2().cwiseProduct(M.diagonal());
  Eigen::Index k = 0;
  share.maxCoeff(&k);
  return {std::max(0.0, solver.eigenvalues()(last)), static_cast<int>(k)};
}

}  // namespace

FastestRate fastestJointRate(const Model& model, const VecX& x) {
  const int n = model.nxi;
  FastestRate out;
  if (n == 0) return out;
  MatX D = MatX::Zero(n, n), K = MatX::Zero(n, n);
  for (const JointSpringDamper& js : model.joint_spring_dampers) {
    const int c = model.joints[js.joint].xi_offset;
    D(c, c) += js.damping + (js.friction > 0.0 ? js.friction / js.friction_velocity : 0.0);
    K(c, c) += js.stiffness;
  }
  for (const Actuator& a : model.actuators) {
    if (a.kind != ActuatorKind::JointServo && a.kind != ActuatorKind::JointSpeedServo) continue;
    const int c = model.joints[a.joint].xi_offset;
    if (a.kind == ActuatorKind::JointServo) {
      K(c, c) += a.gain;
      D(c, c) += a.damping;
    } else {
      D(c, c) += a.gain;
    }
  }
  Workspace ws(model);
  computeKinematics(model, x, VecX::Zero(n), ws);
  computeMassMatrix(model, ws);
  const auto [damping_rate, damping_coordinate] = largestGeneralizedEigenvalue(D, ws.mass_matrix);
  const auto [stiffness_rate2, stiffness_coordinate] = largestGeneralizedEigenvalue(K, ws.mass_matrix);
  out.rate = damping_rate + std::sqrt(stiffness_rate2);
  const int coordinate = damping_rate >= std::sqrt(stiffness_rate2) ? damping_coordinate : stiffness_coordinate;
  for (int j = 0; j < static_cast<int>(model.joints.size()); ++j) {
    const Joint& joint = model.joints[j];
    if (coordinate >= joint.xi_offset && coordinate < joint.xi_offset + joint.nxi) out.joint = j;
  }
  return out;
}

}  // namespace rbs
