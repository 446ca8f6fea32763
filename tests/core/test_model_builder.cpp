// Bad input to the builder throws ModelError naming the element and what is wrong (issue 2, item 6);
// good input gives the expected sizes, order and initial state.
#include <gtest/gtest.h>

#include "core/model/model_builder.h"
#include "tests/support/matrix_compare.h"

namespace rbs {
namespace {

BodySpec cube(const std::string& name, double m = 1.0) {
  const double I = m * 0.1 * 0.1 / 6.0;
  return BodySpec{name, m, Vec3::Zero(), Vec3(I, I, I).asDiagonal()};
}

ModelBuilder pendulumBuilder() {
  ModelBuilder b;
  b.addBody(cube("link"));
  b.addJoint({.name = "hinge", .type = JointType::Revolute, .parent = kWorld, .child = "link"});
  return b;
}

/// Expects build() to throw ModelError whose message contains every fragment.
void expectError(const ModelBuilder& b, std::initializer_list<std::string> fragments) {
  try {
    b.build();
    ADD_FAILURE() << "build() did not throw";
  } catch (const ModelError& e) {
    const std::string msg = e.what();
    for (const auto& f : fragments) EXPECT_NE(msg.find(f), std::string::npos) << "message: " << msg << "\nmissing: " << f;
  }
}

TEST(ModelBuilder, BuildsSizesOrderAndSupport) {
  ModelBuilder b;
  // Declared child before parent: the model still lists parents first.
  b.addBody(cube("tip")).addBody(cube("base"));
  b.addJoint({.name = "elbow", .type = JointType::Spherical, .parent = "base", .child = "tip"});
  b.addJoint({.name = "root", .type = JointType::Free, .parent = kWorld, .child = "base"});
  const Model m = b.build();
  EXPECT_EQ(m.nx, 12 + 9);
  EXPECT_EQ(m.nxi, 6 + 3);
  ASSERT_EQ(m.numBodies(), 2);
  EXPECT_EQ(m.bodies[0].name, "base");
  EXPECT_EQ(m.joints[1].parent, 0);
  EXPECT_EQ(m.support[1], (std::vector<int>{0, 1, 2, 3, 4, 5, 6, 7, 8}));
  EXPECT_EQ(m.bodyIndex("tip"), 1);
  EXPECT_EQ(m.jointIndex("nope"), -1);
  EXPECT_LT(m.coordinateDrift(m.initial_state.x), 1e-15);
}

TEST(ModelBuilder, InitialValuesBecomeCoordinates) {
  ModelBuilder b;
  b.addBody(cube("a")).addBody(cube("b"));
  JointSpec j1{.name = "j1", .type = JointType::RevoluteUnitCircle, .parent = kWorld, .child = "a"};
  j1.initial_position = 0.5;
  j1.initial_velocity = VecX::Constant(1, 2.0);
  JointSpec j2{.name = "j2", .type = JointType::SphericalQuaternion, .parent = "a", .child = "b"};
  const Mat3 R = axisAngleRotation(Vec3::UnitX(), 0.3);
  j2.initial_motion = Pose::rotation(R);
  b.addJoint(j1).addJoint(j2);
  const Model m = b.build();
  EXPECT_NEAR(m.initial_state.x(0), std::cos(0.5), 1e-15);
  EXPECT_NEAR(m.initial_state.x(1), std::sin(0.5), 1e-15);
  EXPECT_EQ(m.initial_state.xi(0), 2.0);
  EXPECT_MATRIX_NEAR(quaternionToRotation(m.initial_state.x.segment<4>(2)), R, 1e-15);
}

TEST(ModelBuilder, RejectsNegativeMass) {
  ModelBuilder b = pendulumBuilder();
  b.addBody(cube("heavy", -2.0));
  b.addJoint({.name = "j", .type = JointType::Fixed, .parent = "link", .child = "heavy"});
  expectError(b, {"body 'heavy'", "mass", "-2", "≥ 0"});
}

TEST(ModelBuilder, RejectsIndefiniteInertia) {
  ModelBuilder b = pendulumBuilder();
  b.addBody({"bad", 1.0, Vec3::Zero(), Vec3(1.0, 1.0, -0.1).asDiagonal()});
  b.addJoint({.name = "j", .type = JointType::Fixed, .parent = "link", .child = "bad"});
  expectError(b, {"body 'bad'", "positive semidefinite"});
}

TEST(ModelBuilder, AcceptsPointMassesAndRodsAndLeavesTheTriangleInequalityToTheLoaders) {
  // Semidefinite inertias are bodies (whether the joints carry inertia is the mass-matrix check's
  // question); a triangle-inequality violation builds, and is measured for the loaders' warning.
  ModelBuilder b = pendulumBuilder();
  b.addBody({"point", 1.0, Vec3::Zero(), Mat3::Zero()});
  b.addJoint({.name = "j1", .type = JointType::Fixed, .parent = "link", .child = "point"});
  b.addBody({"rod", 1.0, Vec3::Zero(), Vec3(0.0, 0.1, 0.1).asDiagonal()});
  b.addJoint({.name = "j2", .type = JointType::Fixed, .parent = "link", .child = "rod"});
  b.addBody({"cad", 1.0, Vec3::Zero(), Vec3(0.1, 0.1, 0.5).asDiagonal()});
  b.addJoint({.name = "j3", .type = JointType::Fixed, .parent = "link", .child = "cad"});
  EXPECT_NO_THROW(b.build());
  EXPECT_NEAR(triangleInequalityExcess(Vec3(0.1, 0.1, 0.5).asDiagonal()), 0.3, 1e-15);
  EXPECT_EQ(triangleInequalityExcess(Vec3(0.0, 0.1, 0.1).asDiagonal()), 0.0);  // a rod: equality
  EXPECT_EQ(triangleInequalityExcess(Vec3(0.1, 0.2, 0.3).asDiagonal()), 0.0);  // a flat plate
  // balanced: isotropic with the mean moment, which satisfies it; valid tensors are untouched
  const Mat3 R = axisAngleRotation(Vec3(1, 2, 3).normalized(), 0.7);
  const Mat3 rotated = R * Vec3(0.1, 0.1, 0.5).asDiagonal() * R.transpose();
  EXPECT_MATRIX_NEAR(balanceInertia(rotated), (0.7 / 3) * Mat3::Identity(), 1e-15);
  const Mat3 plate = Vec3(0.1, 0.2, 0.3).asDiagonal();
  EXPECT_EQ(balanceInertia(plate), plate);
}

TEST(ModelBuilder, RejectsAsymmetricAndNonFiniteInertia) {
  ModelBuilder b = pendulumBuilder();
  Mat3 I = Mat3::Identity();
  I(0, 1) = 0.1;
  b.addBody({"skew", 1.0, Vec3::Zero(), I});
  b.addJoint({.name = "j", .type = JointType::Fixed, .parent = "link", .child = "skew"});
  expectError(b, {"body 'skew'", "not symmetric"});

  ModelBuilder c = pendulumBuilder();
  c.addBody({"nan", 1.0, Vec3(std::nan(""), 0, 0), Mat3::Identity()});
  c.addJoint({.name = "j", .type = JointType::Fixed, .parent = "link", .child = "nan"});
  expectError(c, {"body 'nan'", "NaN"});
}

TEST(ModelBuilder, RejectsJointToMissingBody) {
  ModelBuilder b = pendulumBuilder();
  b.addJoint({.name = "dangling", .type = JointType::Revolute, .parent = "link", .child = "ghost"});
  expectError(b, {"joint 'dangling'", "child body 'ghost' does not exist"});
  ModelBuilder c = pendulumBuilder();
  c.addBody(cube("x"));
  c.addJoint({.name = "orphan", .type = JointType::Revolute, .parent = "ghost", .child = "x"});
  expectError(c, {"joint 'orphan'", "parent body 'ghost' does not exist"});
}

TEST(ModelBuilder, RejectsCyclesAndSecondParents) {
  ModelBuilder b;
  b.addBody(cube("a")).addBody(cube("b"));
  b.addJoint({.name = "ab", .type = JointType::Revolute, .parent = "a", .child = "b"});
  b.addJoint({.name = "ba", .type = JointType::Revolute, .parent = "b", .child = "a"});
  expectError(b, {"cycle", "loop closure"});

  ModelBuilder c = pendulumBuilder();
  c.addJoint({.name = "again", .type = JointType::Revolute, .parent = kWorld, .child = "link"});
  expectError(c, {"joint 'again'", "already has parent joint 'hinge'", "loop closure"});
}

TEST(ModelBuilder, RejectsUnconnectedBodiesAndDuplicateNames) {
  ModelBuilder b = pendulumBuilder();
  b.addBody(cube("floating"));
  expectError(b, {"body 'floating'", "no parent joint"});
  ModelBuilder c = pendulumBuilder();
  c.addBody(cube("link"));
  expectError(c, {"body 'link'", "more than one body"});
}

TEST(ModelBuilder, RejectsZeroAndNonUnitAxes) {
  ModelBuilder b;
  b.addBody(cube("link"));
  JointSpec j{.name = "hinge", .type = JointType::Revolute, .parent = kWorld, .child = "link"};
  j.axis = Vec3::Zero();
  b.addJoint(j);
  expectError(b, {"joint 'hinge'", "axis", "zero vector"});

  ModelBuilder c;
  c.addBody(cube("link"));
  j.axis = Vec3(0, 0, 2);
  c.addJoint(j);
  expectError(c, {"joint 'hinge'", "axis", "norm 2"});

  ModelBuilder d;
  d.addBody(cube("link"));
  JointSpec u{.name = "cardan", .type = JointType::Universal, .parent = kWorld, .child = "link"};
  u.axis = Vec3::UnitX();
  u.axis2 = -Vec3::UnitX();
  d.addJoint(u);
  expectError(d, {"joint 'cardan'", "parallel"});
}

TEST(ModelBuilder, RejectsNonOrthonormalRotations) {
  ModelBuilder b;
  b.addBody(cube("link"));
  JointSpec j{.name = "ball", .type = JointType::Spherical, .parent = kWorld, .child = "link"};
  Mat3 R = Mat3::Identity();
  R(0, 1) = 1e-3;  // beyond the 1e-6 tolerance
  j.initial_motion = Pose::rotation(R);
  b.addJoint(j);
  expectError(b, {"joint 'ball'", "initial pose", "not a rotation matrix"});

  ModelBuilder c;
  c.addBody(cube("link"));
  JointSpec k{.name = "mirror", .type = JointType::Revolute, .parent = kWorld, .child = "link"};
  k.parent_placement = Pose::rotation(Vec3(1, 1, -1).asDiagonal());  // det −1
  c.addJoint(k);
  expectError(c, {"joint 'mirror'", "parent placement", "det"});
}

TEST(ModelBuilder, RejectsBadForceElementsActuatorsAndClosures) {
  {
    ModelBuilder b = pendulumBuilder();
    b.addSpring({.name = "s", .a = {kWorld, {}}, .b = {"link", {}}, .stiffness = -1.0});
    expectError(b, {"spring 's'", "stiffness", "≥ 0"});
  }
  {
    ModelBuilder b = pendulumBuilder();
    b.addSpring({.name = "s", .a = {kWorld, {}}, .b = {"ghost", {}}, .stiffness = 1.0});
    expectError(b, {"spring 's'", "'ghost' does not exist"});
  }
  {
    ModelBuilder b = pendulumBuilder();
    b.addDamper({.name = "d", .a = {kWorld, {}}, .b = {"link", {}}, .damping = 1.0,
                 .rotational_damping = Vec3(1, -1, 1).asDiagonal()});
    expectError(b, {"damper 'd'", "positive semidefinite"});
  }
  {
    ModelBuilder b = pendulumBuilder();
    b.addActuator({.name = "motor", .kind = ActuatorKind::JointEffort, .joint = "hinge", .component = 1});
    expectError(b, {"actuator 'motor'", "component 1", "1 velocity coordinates"});
  }
  {
    ModelBuilder b = pendulumBuilder();
    b.addActuator({.name = "motor", .kind = ActuatorKind::JointEffort, .joint = "hinge", .lower = 1, .upper = -1});
    expectError(b, {"actuator 'motor'", "limits"});
  }
  {
    ModelBuilder b = pendulumBuilder();
    b.addJointSpringDamper({.joint = "hinge", .stiffness = std::numeric_limits<double>::infinity()});
    expectError(b, {"joint spring 'hinge'", "stiffness", "infinite"});
  }
  {
    ModelBuilder b = pendulumBuilder();
    b.addLoopClosure({.name = "loop", .a = {"link", {}}, .b = {"link", {}}});
    expectError(b, {"loop closure 'loop'", "itself"});
  }
}

TEST(ModelBuilder, RejectsAbsoluteSphericalWithChildOffsetAndScalarInitialOnMultiDof) {
  ModelBuilder b;
  b.addBody(cube("load"));
  JointSpec j{.name = "hook", .type = JointType::SphericalAbsolute, .parent = kWorld, .child = "load"};
  j.child_placement = Pose::translation(Vec3(0, 0, -0.1));
  b.addJoint(j);
  expectError(b, {"joint 'hook'", "identity child placement"});

  ModelBuilder c;
  c.addBody(cube("load"));
  JointSpec k{.name = "ball", .type = JointType::Spherical, .parent = kWorld, .child = "load"};
  k.initial_position = 0.3;
  c.addJoint(k);
  expectError(c, {"joint 'ball'", "one-degree-of-freedom"});
}

}  // namespace
}  // namespace rbs
