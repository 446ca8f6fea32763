#include "core/dynamics/energy.h"

#include <cmath>

#include "core/dynamics/kinematics.h"

namespace rbs {

Energies computeEnergies(const Model& model, const VecX& x, const VecX& xi, const Workspace& ws) {
  Energies e;
  for (int b = 0; b < model.numBodies(); ++b) {
    const Body& body = model.bodies[b];
    e.kinetic += 0.5 * ws.twist[b].dot(body.spatial_inertia * ws.twist[b]);
    e.gravitational -= body.mass * (ws.pose[b] * body.com).dot(model.gravity);
  }
  for (const Joint& j : model.joints)  // geared rotor inertia on the joint axis (Joint::armature)
    if (j.armature != 0.0) e.kinetic += 0.5 * j.armature * xi(j.xi_offset) * xi(j.xi_offset);
  for (const Spring& s : model.springs) {
    // ½ tr((G_ab − G_R) K' (G_ab − G_R)ᵀ) (3.114)
    const Pose G_ab = framePose(model, ws, s.a).inverse() * framePose(model, ws, s.b);
    const Mat4 diff = G_ab.matrix() - s.rest.matrix();
    e.elastic += 0.5 * (diff * s.stiffness_moment * diff.transpose()).trace();
  }
  for (const JointSpringDamper& js : model.joint_spring_dampers) {
    const Joint& j = model.joints[js.joint];
    const double* q = x.data() + j.x_offset;
    if (j.type == JointType::RevoluteUnitCircle) {
      const double rho = std::hypot(q[0], q[1]);
      const double cos_diff = (q[0] * std::cos(js.rest_position) + q[1] * std::sin(js.rest_position)) / rho;
      e.elastic += js.stiffness * (1.0 - cos_diff);
    } else {
      e.elastic += 0.5 * js.stiffness * (q[0] - js.rest_position) * (q[0] - js.rest_position);
    }
  }
  e.input_power = xi.dot(ws.input_forces);
  e.dissipation = xi.dot(ws.damping_forces);
  return e;
}

}  // namespace rbs
