#include "core/control/tracking.h"

#include <cmath>
#include <numbers>

namespace rbs {

int baseJointIndex(const Model& model) {
  // The base may hang from the world through fixed joints (a mount): its parent is welded.
  auto welded = [&model](int body) {
    for (int b = body; b >= 0; b = model.joints[b].parent)
      if (model.joints[b].type != JointType::Fixed) return false;
    return true;
  };
  for (int j = 0; j < static_cast<int>(model.joints.size()); ++j) {
    const Joint& joint = model.joints[j];
    if (!welded(joint.parent)) continue;
    switch (joint.type) {
      case JointType::Free:
      case JointType::FreeQuaternion:
      case JointType::Planar:
      case JointType::Spherical:
      case JointType::SphericalQuaternion:
      case JointType::SphericalEulerZYX:
      case JointType::SphericalAbsolute:
        return j;
      default:
        break;
    }
  }
  return -1;
}

TrackingErrors::TrackingErrors(const Model& model, const std::string& tracked_body) : model_(model) {
  if (!tracked_body.empty()) {
    body_ = model.bodyIndex(tracked_body);
    if (body_ < 0) throw ControlError("controller option tracked_body: no body named '" + tracked_body + "'");
  } else if (const int base = baseJointIndex(model); base >= 0) {
    body_ = model.joints[base].child;
  } else {
    body_ = model.numBodies() - 1;
  }
  for (int j = 0; j < static_cast<int>(model.joints.size()); ++j)
    if (hasScalarPosition(model.joints[j].type)) scalar_joints_.push_back(j);
  const std::string& name = model.bodies[body_].name;
  signals_ = {
      {"error.position", "m", "position error |r - r_R| of body " + name},
      {"error.attitude", "rad", "attitude error angle of R_R^T R of body " + name},
      {"error.heading", "rad", "heading error of body " + name + " (5.73c)"},
      {"error.velocity", "m/s", "velocity error |v - v_R| of body " + name + " (world)"},
  };
  if (!scalar_joints_.empty())
    signals_.push_back({"error.joints", "rad", "norm of the scalar-joint errors, angles wrapped to (-pi, pi]"});
  const int base = baseJointIndex(model);
  for (int j = 0; j < static_cast<int>(model.joints.size()); ++j) {
    const Joint& joint = model.joints[j];
    if (!isSphericalType(joint.type) || j == base) continue;
    // The child frame is the joint's moving frame times T_c, so the joint centre is T_c⁻¹ 0 there.
    const Vec3 arm = model.bodies[joint.child].com +
                     joint.child_placement.R.transpose() * joint.child_placement.r;
    if (arm.norm() < 1e-9) continue;
    swings_.push_back({joint.child, arm});
    signals_.push_back({"error.swing." + joint.name, "rad",
                        "angle between the actual and the reference direction joint centre -> centre of mass of body " +
                            model.bodies[joint.child].name});
  }
}

void TrackingErrors::evaluate(const Workspace& ws, const Workspace& ws_ref, const VecX& x,
                              const VecX& x_ref, double* out) const {
  const Pose& G = ws.pose[body_];
  const Pose& G_ref = ws_ref.pose[body_];
  out[0] = (G.r - G_ref.r).norm();
  const Mat3 R_E = G_ref.R.transpose() * G.R;
  out[1] = rotationAngle(R_E);
  out[2] = std::abs(std::atan2(R_E(1, 0) - R_E(0, 1), R_E(0, 0) + R_E(1, 1)));
  const Vec3 v = G.R * ws.twist[body_].head<3>();
  const Vec3 v_ref = G_ref.R * ws_ref.twist[body_].head<3>();
  out[3] = (v - v_ref).norm();
  if (!scalar_joints_.empty()) {
    double sum = 0.0;
    for (int j : scalar_joints_) {
      const Joint& joint = model_.joints[j];
      const int o = joint.x_offset;
      double e = jointScalarPosition(joint, x.data() + o) - jointScalarPosition(joint, x_ref.data() + o);
      if (joint.type != JointType::Prismatic) e = std::remainder(e, 2.0 * std::numbers::pi);
      sum += e * e;
    }
    out[4] = std::sqrt(sum);
  }
  double* swing = out + (scalar_joints_.empty() ? 4 : 5);
  for (const Swing& w : swings_) {
    const Vec3 a = ws.pose[w.body].R * w.arm, b = ws_ref.pose[w.body].R * w.arm;
    *swing++ = std::atan2(a.cross(b).norm(), a.dot(b));
  }
}

std::vector<int> bodiesMovingWith(const Model& model, int body) {
  std::vector<char> moves(model.numBodies(), 0);
  std::vector<int> bodies;
  for (int b = 0; b < model.numBodies(); ++b) {
    const int parent = model.joints[b].parent;
    if (b == body || (parent >= 0 && moves[parent])) {
      moves[b] = 1;
      bodies.push_back(b);
    }
  }
  return bodies;
}

Mat3 compositeInertia(const Model& model, const Workspace& ws, const std::vector<int>& bodies, const Pose& frame,
                      const Vec3& point) {
  Mat3 J = Mat3::Zero();
  for (int b : bodies) {
    const Body& body = model.bodies[b];
    const Pose& G = ws.pose[b];
    const Mat3 R = frame.R.transpose() * G.R;
    const Vec3 d = frame.R.transpose() * (G * body.com - point);
    J += R * body.inertia_com * R.transpose() + body.mass * (d.squaredNorm() * Mat3::Identity() - d * d.transpose());
  }
  return J;
}

}  // namespace rbs
