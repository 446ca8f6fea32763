#include "core/dynamics/energy.h"

#include <cmath>

#include "core/dynamics/kinematics.h"
#include "core/math/assert.h"

namespace rbs {

Energies computeEnergies(const Model& model, const VecX& x, const VecX& xi, const Workspace& ws) {
  RBS_ASSERT_SIZE(x, model.nx);
  RBS_ASSERT_SIZE(xi, model.nxi);
  RBS_ASSERT(ws.xidot.size() == model.nxi && ws.pose.size() == model.bodies.size(),
             "the workspace was built for another model");
  Energies e;
  for (int b = 0; b < model.numBodies(); ++b) {
    const Body& body = model.bodies[b];
    e.kinetic += 0.5 * ws.twist[b].dot(body.spatial_inertia * ws.twist[b]);
    e.gravitational -= body.mass * (ws.pose[b] * body.com).dot(model.gravity);
  }
  for (const Joint& j : model.joints) {  // geared rotors (Joint::armature, Joint::rotor_coupling)
    if (j.armature != 0.0) e.kinetic += 0.5 * j.armature * xi(j.xi_offset) * xi(j.xi_offset);
    if (j.rotor_coupling != 0.0)
      e.kinetic += j.rotor_coupling * j.axis_in_parent.dot(ws.twist[j.parent].tail<3>()) * xi(j.xi_offset);
  }
  for (const Spring& s : model.springs) {
    // ½ tr((G_ab − G_R) K' (G_ab − G_R)ᵀ) (3.114)
    const Pose G_ab = framePose(model, ws, s.a).inverse() * framePose(model, ws, s.b);
    const Mat4 diff = G_ab.matrix() - s.rest.matrix();
    e.elastic += 0.5 * (diff * s.stiffness_moment * diff.transpose()).trace();
  }
  for (const JointSpringDamper& js : model.joint_spring_dampers) {
    const Joint& j = model.joints[js.joint];
    e.elastic += jointSpringPotential(j, x.data() + j.x_offset, js.stiffness, js.rest_position);
  }
  e.input_power = xi.dot(ws.input_forces);
  e.dissipation = xi.dot(ws.damping_forces);
  return e;
}

}  // namespace rbs
