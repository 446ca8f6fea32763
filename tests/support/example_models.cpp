#include "tests/support/example_models.h"

#include <cmath>
#include <numbers>
#include <string>

namespace rbs::test {

namespace {

/// Inertia about the CoM from the inertia Θ about the body-frame origin (parallel axes, the
/// inverse of Θ = Θ_c + m wed(s) wed(s)ᵀ in (3.51)).
Mat3 inertiaAboutCom(const Mat3& inertia_origin, double mass, const Vec3& com) {
  return inertia_origin - mass * wed(com) * wed(com).transpose();
}

/// Principal inertia of a homogeneous box with edges a, b, c along x, y, z.
Vec3 boxInertia(double mass, const Vec3& edges) {
  const Vec3 e2 = edges.cwiseAbs2();
  return mass / 12.0 * Vec3(e2.y() + e2.z(), e2.x() + e2.z(), e2.x() + e2.y());
}

}  // namespace

Model tricopterWithLoad(bool absolute_load_velocity, const TricopterParameters& p) {
  ModelBuilder b;
  b.setGravity(Vec3(0.0, 0.0, -9.81));  // a_G, Table 5.1

  b.addBody({"central", p.body_mass, p.body_com,
             inertiaAboutCom(p.body_inertia_origin, p.body_mass, p.body_com)});
  b.addBody({"load", p.load_mass, Vec3(0.0, 0.0, -p.load_distance),
             boxInertia(p.load_mass, p.load_box).asDiagonal()});
  for (int k = 1; k <= 3; ++k) {
    b.addBody({"arm" + std::to_string(k), p.arm_mass, p.arm_com, p.arm_inertia.asDiagonal()});
    b.addBody({"propeller" + std::to_string(k), p.propeller_mass, Vec3::Zero(),
               p.propeller_inertia.asDiagonal()});
  }

  // Joints in the order of the velocity coordinates of Example 7 (the builder numbers the
  // coordinates in breadth-first order over the joints as declared): free, spherical, the three
  // tilt joints, then the three propellers.
  // ^0_1 G: free flight (3.97a).
  b.addJoint({.name = "flight", .type = JointType::Free, .parent = kWorld, .child = "central"});
  // ^1_2 G = [^1_2 R, [0, 0, h_L]; 0, 1]: the load frame sits at the joint centre (3.97b).
  b.addJoint({.name = "suspension",
              .type = absolute_load_velocity ? JointType::SphericalAbsolute : JointType::Spherical,
              .parent = "central",
              .child = "load",
              .parent_placement = Pose::translation(Vec3(0.0, 0.0, p.load_joint_height))});
  // ^1_{2k+1} G = [R_z(φ_k) R_x(θ_k), l_A [cos φ_k, sin φ_k, 0]ᵀ; 0, 1] (3.97c).
  for (int k = 1; k <= 3; ++k) {
    const double phi = p.arm_angle[k - 1];
    b.addJoint({.name = "tilt" + std::to_string(k),
                .type = JointType::Revolute,
                .parent = "central",
                .child = "arm" + std::to_string(k),
                .parent_placement = Pose{axisAngleRotation(Vec3::UnitZ(), phi),
                                         p.arm_length * Vec3(std::cos(phi), std::sin(phi), 0.0)},
                .axis = Vec3::UnitX()});
  }
  // ^{2k+1}_{2k+2} G = [Rot_z(c_k, s_k), [0, 0, h_P]ᵀ; 0, 1], (c_k, s_k) ∈ S¹ (3.97d).
  for (int k = 1; k <= 3; ++k) {
    b.addJoint({.name = "spin" + std::to_string(k),
                .type = JointType::RevoluteUnitCircle,
                .parent = "arm" + std::to_string(k),
                .child = "propeller" + std::to_string(k),
                .parent_placement = Pose::translation(Vec3(0.0, 0.0, p.propeller_height)),
                .axis = Vec3::UnitZ()});
  }
  return b.build();
}

Model seifriedCartTwoLinkArm(const SeifriedCartParameters& p) {
  const double l = p.link_length;
  const double M = p.linkMass();
  const double I3 = p.linkInertia();
  ModelBuilder b;
  b.setGravity(Vec3(0.0, -p.gravity, 0.0));  // g along −e_2 (Seifried Fig. 2.10)

  // The cart only translates, so its inertia tensor never enters; any valid one will do (a
  // 20 × 10 × 10 cm box).
  b.addBody({"cart", p.cart_mass, Vec3::Zero(),
             boxInertia(p.cart_mass, Vec3(0.2, 0.1, 0.1)).asDiagonal()});
  // Link frames at the proximal hinge, the bar along −e_2 of its frame (zero angle = hanging
  // down), CoM at the middle: r_1 = [x + l/2 sin α, −l/2 cos α] of the book. Θ about the CoM:
  // I_3 about e_3 (the book's value) and about e_1; M w²/6 about the bar axis e_2.
  const Mat3 link_inertia = Vec3(I3, M * p.link_width * p.link_width / 6.0, I3).asDiagonal();
  b.addBody({"link1", M, Vec3(0.0, -l / 2, 0.0), link_inertia});
  b.addBody({"link2", M, Vec3(0.0, -l / 2, 0.0), link_inertia});

  b.addJoint({.name = "x",
              .type = JointType::Prismatic,
              .parent = kWorld,
              .child = "cart",
              .axis = Vec3::UnitX()});
  // The cart does not rotate, so the relative angle α of the first hinge is also absolute.
  b.addJoint({.name = "alpha",
              .type = JointType::Revolute,
              .parent = "cart",
              .child = "link1",
              .axis = Vec3::UnitZ()});
  b.addJoint({.name = "beta",
              .type = JointType::Revolute,
              .parent = "link1",
              .child = "link2",
              .parent_placement = Pose::translation(Vec3(0.0, -l, 0.0)),
              .axis = Vec3::UnitZ()});
  return b.build();
}

Model actuatedPlanarBody(double force_limit) {
  ModelBuilder b;
  b.setGravity(Vec3::Zero());
  b.addBody({"body", 2.0, Vec3(0.1, -0.05, 0.0), Mat3(Vec3(0.1, 0.2, 0.3).asDiagonal())});
  b.addJoint({.name = "plane", .type = JointType::Planar, .child = "body"});
  for (int i = 0; i < 2; ++i)
    b.addActuator({.name = i == 0 ? "force_x" : "force_y", .kind = ActuatorKind::BodyForce, .body = "body",
                   .direction = Vec3::Unit(i), .lower = -force_limit, .upper = force_limit});
  b.addActuator({.name = "torque_z", .kind = ActuatorKind::BodyTorque, .body = "body", .direction = Vec3::UnitZ()});
  return b.build();
}

Model torqueTiltedTricopter() {
  ModelBuilder b;
  b.setGravity(Vec3(0, 0, -9.81));
  b.addBody({.name = "base", .mass = 1.2, .inertia = Vec3(0.02, 0.021, 0.035).asDiagonal()});
  b.addJoint({.name = "flight", .type = JointType::Free, .child = "base"});
  for (int k = 0; k < 3; ++k) {
    const std::string n = std::to_string(k), arm = "arm" + n, propeller = "propeller" + n;
    const double angle = 2.0 * std::numbers::pi * k / 3.0;
    b.addBody({.name = arm, .mass = 0.06, .inertia = Vec3(3e-5, 2.5e-5, 1.5e-5).asDiagonal()});
    b.addBody({.name = propeller, .mass = 0.01, .inertia = Vec3(1.8e-5, 1.8e-5, 3.6e-5).asDiagonal()});
    b.addJoint({.name = "tilt" + n, .type = JointType::Revolute, .parent = "base", .child = arm,
                .parent_placement = Pose{expSO3(Vec3(0, 0, angle)), Vec3(0.24 * std::cos(angle), 0.24 * std::sin(angle), 0.01)},
                .axis = Vec3::UnitX()});
    b.addJoint({.name = "spin" + n, .type = JointType::Revolute, .parent = arm, .child = propeller,
                .initial_velocity = VecX::Constant(1, 500.0)});
    b.addActuator({.name = "tilt_torque" + n, .kind = ActuatorKind::JointEffort, .joint = "tilt" + n});
    b.addActuator({.name = "motor" + n, .kind = ActuatorKind::JointEffort, .joint = "spin" + n});
    b.addActuator({.name = "thrust" + n, .kind = ActuatorKind::BodyForce, .body = propeller, .lower = 0.0,
                   .upper = 20.0, .torque_ratio = k == 1 ? -0.017 : 0.017});
  }
  b.addExternalWrench({.body = "base", .point = Vec3(0.05, 0, 0), .force = Vec3(0.3, -0.2, -1.0), .world_axes = true});
  b.addDamper({.name = "drag", .a = FrameSpec{}, .b = FrameSpec{"base", Pose{}}, .damping = 0.34,
               .rotational_damping = Vec3(0.0085, 0.0085, 0.014).asDiagonal()});
  return b.build();
}

}  // namespace rbs::test
