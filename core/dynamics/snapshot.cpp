#include "core/dynamics/snapshot.h"

#include "core/dynamics/kinematics.h"

namespace rbs {

namespace {

void posesAt(const Model& model, const VecX& x, Workspace& ws, std::vector<Pose>& out) {
  // the velocities only feed the twists, which are not read here
  const VecX xi = VecX::Zero(model.nxi);
  computeKinematics(model, x, xi, ws);
  out.assign(ws.pose.begin(), ws.pose.end());
}

}  // namespace

void fillBodyPoses(const Model& model, const VecX& x, double t, Workspace& ws, Snapshot& snapshot) {
  snapshot.time = t;
  posesAt(model, x, ws, snapshot.body_poses);
}

void fillReferencePoses(const Model& model, const VecX& x_ref, Workspace& ws, Snapshot& snapshot) {
  posesAt(model, x_ref, ws, snapshot.reference_poses);
}

void fillActuatorForces(const Model& model, const VecX& u, Snapshot& snapshot) {
  snapshot.forces.clear();
  for (int i = 0; i < model.numInputs(); ++i) {
    const Actuator& a = model.actuators[i];
    if (a.kind != ActuatorKind::BodyForce) continue;
    const Pose& G = snapshot.body_poses[a.body];
    snapshot.forces.push_back({i, G * a.point, G.R * (a.direction * u[i])});
  }
}

}  // namespace rbs
