// Every ModelError says which element (kind, declaration index, name) and which field it is
// about, so that front ends locate it without reading the message (issue 17). One broken
// description per field the builder can name; the walk fails when a field or element kind is
// added without a case here.
#include <gtest/gtest.h>

#include <functional>
#include <limits>
#include <set>

#include "core/model/model_builder.h"

namespace rbs {
namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

BodySpec cube(const std::string& name, double m = 1.0) {
  const double I = m * 0.1 * 0.1 / 6.0;
  return BodySpec{name, m, Vec3::Zero(), Vec3(I, I, I).asDiagonal()};
}

/// Two links on revolute joints about z: world —ja→ a —jb→ b. Every case adds one broken element
/// (or two, when the second one is the broken one).
ModelBuilder twoLinks() {
  ModelBuilder b;
  b.addBody(cube("a")).addBody(cube("b"));
  b.addJoint({.name = "ja", .type = JointType::Revolute, .parent = kWorld, .child = "a"});
  b.addJoint({.name = "jb", .type = JointType::Revolute, .parent = "a", .child = "b"});
  return b;
}

JointSpec jointToC(JointType type = JointType::Revolute) {
  return {.name = "jc", .type = type, .parent = "b", .child = "c"};
}

/// twoLinks() with a third body "c" on `joint`.
ModelBuilder withJoint(const JointSpec& joint) {
  ModelBuilder b = twoLinks();
  b.addBody(cube("c"));
  b.addJoint(joint);
  return b;
}

struct Case {
  ModelElement kind;
  int index;
  std::string name;
  ModelField field;
  std::function<ModelBuilder()> make;
};

FrameSpec frameOn(const std::string& body) { return {.body = body, .offset = Pose::identity()}; }

SpringSpec spring() { return {.name = "s", .a = frameOn(kWorld), .b = frameOn("b"), .stiffness = 1.0}; }
DamperSpec damper() { return {.name = "d", .a = frameOn(kWorld), .b = frameOn("b"), .damping = 1.0}; }
LoopClosureSpec closure() { return {.name = "l", .a = frameOn(kWorld), .b = frameOn("b")}; }
ActuatorSpec effort(const std::string& name = "u") {
  return {.name = name, .kind = ActuatorKind::JointEffort, .joint = "jb"};
}
ActuatorSpec bodyForce() { return {.name = "f", .kind = ActuatorKind::BodyForce, .body = "b"}; }
/// An input set over the effort input "u" (limits unbounded): u ≤ 1.
InputSetSpec inputSet() { return {.name = "set", .inputs = {"u"}, .rows = MatX::Ones(1, 1), .bounds = VecX::Ones(1)}; }
/// twoLinks() with the effort input "u" and `set`.
ModelBuilder withInputSet(const InputSetSpec& set) {
  ModelBuilder b = twoLinks();
  b.addActuator(effort()).addInputSet(set);
  return b;
}
PropellerSpec propeller() { return {.name = "p", .joint = "jb", .thrust_coefficient = 1e-5}; }

template <class Spec>
std::function<ModelBuilder()> adding(Spec spec, void (*tweak)(Spec&), ModelBuilder& (ModelBuilder::*add)(Spec)) {
  return [=]() mutable {
    tweak(spec);
    ModelBuilder b = twoLinks();
    (b.*add)(spec);
    return b;
  };
}

std::vector<Case> cases() {
  using E = ModelElement;
  using F = ModelField;
  auto joint = [](void (*tweak)(JointSpec&), JointType type = JointType::Revolute) {
    return [=] {
      JointSpec j = jointToC(type);
      tweak(j);
      return withJoint(j);
    };
  };
  return {
      {E::Model, 0, "", F::Gravity, [] { return twoLinks().setGravity(Vec3(0, 0, kNaN)); }},
      {E::Model, 0, "", F::None, [] { return ModelBuilder(); }},
      {E::Body, 2, "world", F::Name, [] { return twoLinks().addBody(cube(kWorld)); }},
      {E::Body, 2, "c", F::Mass, [] { return twoLinks().addBody(cube("c", -1.0)).addJoint(jointToC()); }},
      {E::Body, 2, "c", F::CentreOfMass,
       [] {
         BodySpec c = cube("c");
         c.com.x() = kNaN;
         return twoLinks().addBody(c).addJoint(jointToC());
       }},
      {E::Body, 2, "c", F::Inertia,
       [] { return twoLinks().addBody({"c", 1.0, Vec3::Zero(), Vec3(1, 1, -0.1).asDiagonal()}).addJoint(jointToC()); }},
      {E::Body, 2, "c", F::None, [] { return twoLinks().addBody(cube("c")); }},
      {E::Joint, 2, "jc", F::Parent, joint([](JointSpec& j) { j.parent = "nope"; })},
      {E::Joint, 2, "jc", F::Child, [] {
         ModelBuilder b = twoLinks();
         b.addJoint({.name = "jc", .type = JointType::Fixed, .parent = "a", .child = "b"});
         return b;
       }},
      {E::Joint, 2, "jc", F::None,
       [] {  // c and d hang from each other: a cycle not connected to the world
         ModelBuilder b = twoLinks();
         b.addBody(cube("c")).addBody(cube("d"));
         b.addJoint({.name = "jc", .type = JointType::Fixed, .parent = "d", .child = "c"});
         b.addJoint({.name = "jd", .type = JointType::Fixed, .parent = "c", .child = "d"});
         return b;
       }},
      {E::Joint, 2, "jc", F::ParentPlacement,
       joint([](JointSpec& j) { j.parent_placement.R = 2.0 * Mat3::Identity(); })},
      {E::Joint, 2, "jc", F::ChildPlacement, joint([](JointSpec& j) { j.child_placement.r.x() = kNaN; })},
      {E::Joint, 2, "jc", F::Axis, joint([](JointSpec& j) { j.axis = Vec3(0, 0, 2); })},
      {E::Joint, 2, "jc", F::SecondAxis, joint([](JointSpec& j) { j.axis2 = j.axis; }, JointType::Universal)},
      {E::Joint, 2, "jc", F::Armature, joint([](JointSpec& j) { j.armature = 0.1; }, JointType::Fixed)},
      {E::Joint, 2, "jc", F::RotorCoupling, joint([](JointSpec& j) { j.rotor_coupling = 0.1; }, JointType::Prismatic)},
      {E::Joint, 2, "jc", F::InitialPosition, joint([](JointSpec& j) { j.initial_position = 0.3; }, JointType::Spherical)},
      {E::Joint, 2, "jc", F::InitialPose,
       joint([](JointSpec& j) { j.initial_motion = Pose::rotation(2.0 * Mat3::Identity()); }, JointType::Spherical)},
      {E::Joint, 2, "jc", F::InitialVelocity, joint([](JointSpec& j) { j.initial_velocity = VecX::Zero(2); })},
      {E::Joint, 2, "jc", F::Limits, joint([](JointSpec& j) { j.limits = JointLimits{.lower = 1.0, .upper = 0.0}; })},
      {E::Spring, 0, "s", F::FirstFrame, adding<SpringSpec>(spring(), [](SpringSpec& s) { s.a.body = "nope"; }, &ModelBuilder::addSpring)},
      {E::Spring, 0, "s", F::SecondFrame,
       adding<SpringSpec>(spring(), [](SpringSpec& s) { s.b.offset.r.x() = kNaN; }, &ModelBuilder::addSpring)},
      {E::Spring, 0, "s", F::Frames, adding<SpringSpec>(spring(), [](SpringSpec& s) { s.a.body = "b"; }, &ModelBuilder::addSpring)},
      {E::Spring, 0, "s", F::RestPose,
       adding<SpringSpec>(spring(), [](SpringSpec& s) { s.rest.R = 2.0 * Mat3::Identity(); }, &ModelBuilder::addSpring)},
      {E::Spring, 0, "s", F::Stiffness, adding<SpringSpec>(spring(), [](SpringSpec& s) { s.stiffness = -1.0; }, &ModelBuilder::addSpring)},
      {E::Spring, 0, "s", F::Centre, adding<SpringSpec>(spring(), [](SpringSpec& s) { s.center.x() = kNaN; }, &ModelBuilder::addSpring)},
      {E::Spring, 0, "s", F::RotationalStiffness,
       adding<SpringSpec>(spring(), [](SpringSpec& s) { s.rotational_stiffness(0, 1) = 1.0; }, &ModelBuilder::addSpring)},
      {E::Damper, 0, "d", F::Damping, adding<DamperSpec>(damper(), [](DamperSpec& d) { d.damping = -1.0; }, &ModelBuilder::addDamper)},
      {E::Damper, 0, "d", F::RotationalDamping,
       adding<DamperSpec>(damper(), [](DamperSpec& d) { d.rotational_damping(2, 2) = -1.0; }, &ModelBuilder::addDamper)},
      {E::JointSpring, 0, "nope", F::Joint,
       adding<JointSpringDamperSpec>({.joint = "ja"}, [](JointSpringDamperSpec& s) { s.joint = "nope"; },
                                     &ModelBuilder::addJointSpringDamper)},
      {E::JointSpring, 0, "ja", F::RestPosition,
       adding<JointSpringDamperSpec>({.joint = "ja"}, [](JointSpringDamperSpec& s) { s.rest_position = kNaN; },
                                     &ModelBuilder::addJointSpringDamper)},
      {E::LoopClosure, 0, "l", F::StabilizationFrequency,
       adding<LoopClosureSpec>(closure(), [](LoopClosureSpec& l) { l.stabilization_frequency = -1.0; },
                               &ModelBuilder::addLoopClosure)},
      {E::LoopClosure, 0, "l", F::StabilizationDamping,
       adding<LoopClosureSpec>(closure(), [](LoopClosureSpec& l) { l.stabilization_damping = kNaN; },
                               &ModelBuilder::addLoopClosure)},
      {E::ExternalWrench, 0, "nope", F::Body,
       adding<ExternalWrenchSpec>({.body = "b"}, [](ExternalWrenchSpec& w) { w.body = "nope"; }, &ModelBuilder::addExternalWrench)},
      {E::ExternalWrench, 0, "b", F::Point,
       adding<ExternalWrenchSpec>({.body = "b"}, [](ExternalWrenchSpec& w) { w.point.x() = kNaN; }, &ModelBuilder::addExternalWrench)},
      {E::ExternalWrench, 0, "b", F::Force,
       adding<ExternalWrenchSpec>({.body = "b"}, [](ExternalWrenchSpec& w) { w.force.y() = kNaN; }, &ModelBuilder::addExternalWrench)},
      {E::ExternalWrench, 0, "b", F::Torque,
       adding<ExternalWrenchSpec>({.body = "b"}, [](ExternalWrenchSpec& w) { w.torque.z() = kNaN; }, &ModelBuilder::addExternalWrench)},
      {E::Actuator, 1, "u", F::Name, [] { return twoLinks().addActuator(effort()).addActuator(effort()); }},
      {E::Actuator, 0, "u", F::Limits,
       adding<ActuatorSpec>(effort(), [](ActuatorSpec& a) { a.lower = kNaN; }, &ModelBuilder::addActuator)},
      {E::Actuator, 0, "u", F::Joint, adding<ActuatorSpec>(effort(), [](ActuatorSpec& a) { a.joint = "nope"; }, &ModelBuilder::addActuator)},
      {E::Actuator, 0, "u", F::Component, adding<ActuatorSpec>(effort(), [](ActuatorSpec& a) { a.component = 1; }, &ModelBuilder::addActuator)},
      {E::Actuator, 0, "u", F::Gain, adding<ActuatorSpec>(effort(), [](ActuatorSpec& a) { a.gain = 0.0; }, &ModelBuilder::addActuator)},
      {E::Actuator, 0, "u", F::Damping,
       adding<ActuatorSpec>(effort(), [](ActuatorSpec& a) { a.kind = ActuatorKind::JointServo; a.damping = -1.0; },
                            &ModelBuilder::addActuator)},
      {E::Actuator, 0, "u", F::TimeConstant,
       adding<ActuatorSpec>(effort(), [](ActuatorSpec& a) { a.kind = ActuatorKind::JointSpeedServo; },
                            &ModelBuilder::addActuator)},
      {E::Actuator, 0, "f", F::Body, adding<ActuatorSpec>(bodyForce(), [](ActuatorSpec& a) { a.body = "nope"; }, &ModelBuilder::addActuator)},
      {E::Actuator, 0, "f", F::Direction,
       adding<ActuatorSpec>(bodyForce(), [](ActuatorSpec& a) { a.direction = Vec3::Zero(); }, &ModelBuilder::addActuator)},
      {E::Actuator, 0, "f", F::Point, adding<ActuatorSpec>(bodyForce(), [](ActuatorSpec& a) { a.point.x() = kNaN; }, &ModelBuilder::addActuator)},
      {E::Actuator, 0, "f", F::TorqueRatio,
       adding<ActuatorSpec>(bodyForce(), [](ActuatorSpec& a) { a.kind = ActuatorKind::BodyTorque; a.torque_ratio = 0.1; },
                            &ModelBuilder::addActuator)},
      {E::Propeller, 0, "p", F::Name,
       [] {  // the force model would have two inputs named "p"
         ActuatorSpec f = bodyForce();
         f.name = "p";
         return twoLinks().addActuator(f).addPropeller(propeller());
       }},
      {E::Joint, 0, "jb", F::Limits,
       [] {  // declared before its parent's joint: the index is the declaration's, not the tree's
         ModelBuilder b;
         b.addBody(cube("a")).addBody(cube("b"));
         b.addJoint({.name = "jb", .type = JointType::Revolute, .parent = "a", .child = "b",
                     .limits = JointLimits{.lower = 1.0, .upper = 0.0}});
         b.addJoint({.name = "ja", .type = JointType::Revolute, .parent = kWorld, .child = "a"});
         return b;
       }},
      {E::Propeller, 0, "p", F::ThrustDirection,
       adding<PropellerSpec>(propeller(), [](PropellerSpec& p) { p.thrust_direction = Vec3::UnitX(); }, &ModelBuilder::addPropeller)},
      {E::Propeller, 0, "p", F::ThrustCoefficient,
       adding<PropellerSpec>(propeller(), [](PropellerSpec& p) { p.thrust_coefficient = 0.0; }, &ModelBuilder::addPropeller)},
      {E::Propeller, 0, "p", F::DragCoefficient,
       adding<PropellerSpec>(propeller(), [](PropellerSpec& p) { p.drag_coefficient = -1.0; }, &ModelBuilder::addPropeller)},
      {E::Propeller, 0, "p", F::Friction,
       adding<PropellerSpec>(propeller(), [](PropellerSpec& p) { p.friction = kNaN; }, &ModelBuilder::addPropeller)},
      {E::Propeller, 0, "p", F::SpeedLimits,
       adding<PropellerSpec>(propeller(), [](PropellerSpec& p) { p.max_speed = 0.0; }, &ModelBuilder::addPropeller)},
      {E::Visual, 0, "b", F::Origin,
       adding<VisualSpec>({.body = "b"}, [](VisualSpec& v) { v.origin.R = 2.0 * Mat3::Identity(); }, &ModelBuilder::addVisual)},
      {E::Visual, 0, "b", F::Size, adding<VisualSpec>({.body = "b"}, [](VisualSpec& v) { v.size.x() = -1.0; }, &ModelBuilder::addVisual)},
      {E::Visual, 0, "b", F::Colour, adding<VisualSpec>({.body = "b"}, [](VisualSpec& v) { v.color.x() = 2.0; }, &ModelBuilder::addVisual)},
      {E::Visual, 0, "b", F::Mesh,
       adding<VisualSpec>({.body = "b"}, [](VisualSpec& v) { v.shape = Visual::Shape::Mesh; }, &ModelBuilder::addVisual)},
      {E::InputSet, 0, "set", F::Inputs,
       [] { InputSetSpec s = inputSet(); s.inputs = {"ghost"}; return withInputSet(s); }},
      {E::InputSet, 0, "set", F::Rows,
       [] { InputSetSpec s = inputSet(); s.bounds(0) = kNaN; return withInputSet(s); }},
  };
}

TEST(ModelErrors, EachNamesItsElementAndField) {
  for (const Case& c : cases()) {
    const std::string label = std::string(modelElementName(c.kind)) + " / " + modelFieldName(c.field);
    try {
      c.make().build();
      ADD_FAILURE() << label << ": build() did not throw";
    } catch (const ModelError& e) {
      EXPECT_EQ(e.kind(), c.kind) << label << ": " << e.what();
      EXPECT_EQ(e.field(), c.field) << label << ": " << e.what() << " (got " << modelFieldName(e.field()) << ")";
      EXPECT_EQ(e.index(), c.index) << label << ": " << e.what();
      EXPECT_EQ(e.name(), c.name) << label << ": " << e.what();
      // The message says the same in words.
      if (c.kind != ModelElement::Model) {
        const std::string start = std::string(modelElementName(c.kind)) + " '" + c.name + "': ";
        EXPECT_EQ(std::string(e.what()).rfind(start, 0), 0u) << label << ": " << e.what();
      }
    }
  }
}

TEST(ModelErrors, EveryFieldAndElementKindHasACase) {
  std::set<ModelField> fields;
  std::set<ModelElement> kinds;
  for (const Case& c : cases()) {
    fields.insert(c.field);
    kinds.insert(c.kind);
  }
  for (int f = 0; f < kModelFieldCount; ++f)
    EXPECT_TRUE(fields.count(static_cast<ModelField>(f))) << "no case for field " << modelFieldName(static_cast<ModelField>(f));
  for (int k = 0; k < kModelElementCount; ++k)
    EXPECT_TRUE(kinds.count(static_cast<ModelElement>(k)))
        << "no case for element kind " << modelElementName(static_cast<ModelElement>(k));
}

TEST(ModelErrors, UnnamedElementsAreNamedByKindAndIndex) {
  ModelBuilder b = twoLinks();
  b.addActuator(effort()).addActuator(effort(""));
  try {
    b.build();
    FAIL() << "build() did not throw";
  } catch (const ModelError& e) {
    EXPECT_EQ(e.kind(), ModelElement::Actuator);
    EXPECT_EQ(e.index(), 1);
    EXPECT_EQ(e.field(), ModelField::Name);
    EXPECT_STREQ(e.what(), "actuator with empty name");
  }
}

}  // namespace
}  // namespace rbs
