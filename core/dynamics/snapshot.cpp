#include "core/dynamics/snapshot.h"

#include <cmath>

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

void fillActuatorForces(const Model& model, const VecX& xi, const VecX& u, Snapshot& snapshot) {
  snapshot.forces.clear();
  for (int i = 0; i < model.numInputs(); ++i) {
    const Actuator& a = model.actuators[i];
    if (a.kind != ActuatorKind::BodyForce) continue;
    const Pose& G = snapshot.body_poses[a.body];
    snapshot.forces.push_back({i, G * a.point, G.R * (a.direction * u[i])});
  }
  if (xi.size() != model.nxi) return;
  for (int p = 0; p < static_cast<int>(model.propellers.size()); ++p) {
    const Propeller& prop = model.propellers[p];
    const Joint& j = model.joints[prop.joint];
    const double rate = xi(j.xi_offset);
    const Pose& G = snapshot.body_poses[j.child];
    snapshot.forces.push_back(
        {propellerForceIndex(model, p), G.r, G.R * (prop.thrust_coefficient * rate * std::abs(rate) * prop.thrust_direction)});
  }
}

}  // namespace rbs
