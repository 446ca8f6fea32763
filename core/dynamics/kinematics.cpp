#include "core/dynamics/kinematics.h"

#include "core/math/assert.h"

namespace rbs {

// flatten: the transforms below stay calls otherwise (as in solveArticulatedBody).
[[gnu::flatten]] void computeKinematics(const Model& model, const VecX& x, const VecX& xi, Workspace& ws) {
  RBS_ASSERT_SIZE(x, model.nx);
  RBS_ASSERT_SIZE(xi, model.nxi);
  RBS_ASSERT(ws.xidot.size() == model.nxi && ws.pose.size() == model.bodies.size(),
             "the workspace was built for another model");
  const Vec6 zero = Vec6::Zero();
  for (const Joint& j : model.joints) {
    const int b = j.child;
    const int p = j.parent;
    const Vec6& parent_twist = p >= 0 ? ws.twist[p] : zero;
    const Vec6& parent_bias = p >= 0 ? ws.bias[p] : zero;
    JointMotion& jm = ws.joint[b];
    evaluateJoint(j, x.data() + j.x_offset, xi.data() + j.xi_offset, parent_twist, parent_bias, jm);
    if (p < 0) {  // the world does not move: η_b = J_e ξ, κ_b = σ_e
      ws.pose[b] = jm.transform;
      ws.twist[b] = jm.relative_twist;
      ws.bias[b] = jm.bias;
      continue;
    }
    ws.pose[b] = ws.pose[p] * jm.transform;
    // η_b = X_b η_λ + J_e ξ with X_b = Ad_{G_e⁻¹} (3.102a).
    const Vec6 transported = adjointInvTimes(jm.transform, parent_twist);
    ws.twist[b] = transported + jm.relative_twist;
    // κ_b = X_b κ_λ + ad_{X_b η_λ}(J_e ξ) + σ_e: (3.122) multiplied by ξ (konz-modeling §10).
    ws.bias[b] = adjointInvTimes(jm.transform, parent_bias) +
                 adTimes(transported, jm.relative_twist) + jm.bias;
  }
}

void computeBodyJacobians(const Model& model, Workspace& ws) {
  for (const Joint& j : model.joints) {
    const int b = j.child;
    const JointMotion& jm = ws.joint[b];
    auto Jb = ws.jacobian(b);
    if (j.parent >= 0) {
      const auto Jp = ws.jacobian(j.parent);
      for (int c : model.support[j.parent]) {
        Vec6 col = adjointInvTimes(jm.transform, Jp.col(c));
        if (jm.drops_parent_rotation) col.tail<3>().setZero();
        Jb.col(c) = col;
      }
    }
    for (int c = 0; c < j.nxi; ++c) Jb.col(j.xi_offset + c) = jm.S.col(c);
  }
}

void computeConfigurationRate(const Model& model, const VecX& x, const VecX& xi, Workspace& ws,
                              double stabilization_gain) {
  RBS_ASSERT_SIZE(x, model.nx);
  RBS_ASSERT_SIZE(xi, model.nxi);
  RBS_ASSERT(ws.xidot.size() == model.nxi && ws.pose.size() == model.bodies.size(),
             "the workspace was built for another model");
  const Vec6 zero = Vec6::Zero();
  for (const Joint& j : model.joints) {
    const Vec6& parent_twist = j.parent >= 0 ? ws.twist[j.parent] : zero;
    jointConfigurationRate(j, x.data() + j.x_offset, xi.data() + j.xi_offset, parent_twist,
                           stabilization_gain, ws.xdot.data() + j.x_offset);
  }
}

Pose framePose(const Model&, const Workspace& ws, const Frame& frame) {
  RBS_ASSERT(frame.body < static_cast<int>(ws.pose.size()), "the frame's body is not in the workspace's model");
  return frame.body >= 0 ? ws.pose[frame.body] * frame.offset : frame.offset;
}

Vec6 frameTwist(const Workspace& ws, const Frame& frame) {
  RBS_ASSERT(frame.body < static_cast<int>(ws.twist.size()), "the frame's body is not in the workspace's model");
  if (frame.body < 0) return Vec6::Zero();
  return adjointInvTimes(frame.offset, ws.twist[frame.body]);
}

}  // namespace rbs
