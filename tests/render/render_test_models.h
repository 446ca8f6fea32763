// Small models for the render tests: one free box, and a box with a thrust actuator.
#pragma once

#include "core/model/model_builder.h"

namespace rbs::test {

/// One 1 kg body on a free joint at `initial`, with a red 0.4 m cube at its origin and one
/// body-force actuator "thrust" along body z at (0.2, 0, 0).
inline Model redCube(const Pose& initial = Pose::identity()) {
  ModelBuilder b;
  b.addBody({"cube", 1.0, Vec3::Zero(), Mat3::Identity() * 0.03});
  JointSpec j;
  j.name = "flight";
  j.type = JointType::Free;
  j.child = "cube";
  j.initial_motion = initial;
  b.addJoint(j);
  VisualSpec v;
  v.body = "cube";
  v.shape = Visual::Shape::Box;
  v.size = Vec3::Constant(0.4);
  v.color = Vec4(0.9, 0.05, 0.05, 1.0);
  b.addVisual(v);
  ActuatorSpec a;
  a.name = "thrust";
  a.kind = ActuatorKind::BodyForce;
  a.body = "cube";
  a.point = Vec3(0.2, 0.0, 0.0);
  a.direction = Vec3::UnitZ();
  b.addActuator(a);
  return b.build();
}

}  // namespace rbs::test
