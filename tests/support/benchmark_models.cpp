#include "tests/support/benchmark_models.h"

#include <cmath>
#include <numbers>
#include <stdexcept>

namespace rbs::test {
namespace {

/// Symmetric 3×3 tensor from its six independent entries.
Mat3 tensor(double xx, double yy, double zz, double xy, double xz, double yz) {
  Mat3 I;
  I << xx, xy, xz, xy, yy, yz, xz, yz, zz;
  return I;
}

}  // namespace

std::vector<ArmLink> sevenDofArmLinks() {
  constexpr double h = std::numbers::pi / 2;
  // Alternating ±90° twists between consecutive z axes (the usual spherical-shoulder /
  // spherical-wrist layout), with shoulder height 0.345 m, upper arm 0.41 m, forearm 0.39 m and
  // ±0.085 m elbow offsets. CoMs sit off the joint axes, towards the next joint; the products of
  // inertia reach ~40 % of the smallest moment, as for cast housings with motors on one side.
  return {
      {"link1", Vec3(0, 0, 0.345), Vec3(0, 0, 0), 3.9, Vec3(0.002, -0.032, -0.065),
       tensor(0.0230, 0.0215, 0.0072, -0.0002, 0.0004, 0.0031)},
      {"link2", Vec3(0, 0, 0), Vec3(-h, 0, 0), 3.8, Vec3(-0.003, -0.070, 0.031),
       tensor(0.0205, 0.0068, 0.0198, -0.0008, 0.0002, -0.0024)},
      {"link3", Vec3(0, -0.41, 0), Vec3(h, 0, 0), 2.9, Vec3(0.041, 0.025, -0.068),
       tensor(0.0142, 0.0150, 0.0061, -0.0011, -0.0029, -0.0019)},
      {"link4", Vec3(0.085, 0, 0), Vec3(h, 0, 0), 3.1, Vec3(-0.045, 0.040, 0.028),
       tensor(0.0126, 0.0109, 0.0148, 0.0035, -0.0021, 0.0018)},
      {"link5", Vec3(-0.085, 0.39, 0), Vec3(-h, 0, 0), 2.7, Vec3(0.001, 0.038, -0.118),
       tensor(0.0304, 0.0271, 0.0062, -0.0004, 0.0007, 0.0049)},
      {"link6", Vec3(0, 0, 0), Vec3(h, 0, 0), 1.5, Vec3(0.052, -0.011, 0.006),
       tensor(0.0021, 0.0037, 0.0044, -0.0003, 0.0006, 0.0001)},
      {"link7", Vec3(0.09, 0, 0), Vec3(h, 0, 0), 1.1, Vec3(0.005, 0.003, 0.091),
       tensor(0.0048, 0.0046, 0.0019, 0.0002, -0.0003, 0.0004)},
  };
}

Model sevenDofArm() {
  ModelBuilder b;
  std::string parent = rbs::kWorld;
  int index = 1;
  for (const ArmLink& l : sevenDofArmLinks()) {
    const std::string n = std::to_string(index++);
    b.addBody(BodySpec{l.name, l.mass, l.com, l.inertia});
    JointSpec j;
    j.name = "joint" + n;
    j.type = JointType::Revolute;
    j.parent = parent;
    j.child = l.name;
    j.parent_placement =
        Pose{rotationZYX(l.joint_rpy.x(), l.joint_rpy.y(), l.joint_rpy.z()), l.joint_xyz};
    j.axis = Vec3::UnitZ();
    b.addJoint(j);
    ActuatorSpec a;
    a.name = "tau" + n;
    a.kind = ActuatorKind::JointEffort;
    a.joint = j.name;
    b.addActuator(a);
    parent = l.name;
  }
  return b.build();
}

Model kremerAerialManipulator(int links, const AerialManipulatorParameters& p) {
  if (links < 0 || links > 3)
    throw std::invalid_argument("kremerAerialManipulator: links must be 0..3");
  if (p.base_joint != JointType::Free && p.base_joint != JointType::FreeQuaternion &&
      p.base_joint != JointType::SphericalEulerZYX)
    throw std::invalid_argument(
        "kremerAerialManipulator: base_joint must be free, free_quaternion or "
        "spherical_euler_zyx");
  ModelBuilder b;
  std::string base_parent = rbs::kWorld;
  if (p.base_joint == JointType::SphericalEulerZYX) {
    // r = (x, y, z) by three prismatic joints along the world axes (the carriers do not rotate).
    const Mat3 carrier_inertia = 1e-3 * kEulerCarrierMass * Mat3::Identity();
    const char* axes[3] = {"x", "y", "z"};
    for (int k = 0; k < 3; ++k) {
      const std::string carrier = std::string("carrier_") + axes[k];
      b.addBody(BodySpec{carrier, kEulerCarrierMass, Vec3::Zero(), carrier_inertia});
      b.addJoint(JointSpec{.name = std::string("base_") + axes[k],
                           .type = JointType::Prismatic,
                           .parent = base_parent,
                           .child = carrier,
                           .axis = Vec3::Unit(k)});
      base_parent = carrier;
    }
  }
  b.addBody(BodySpec{"base", p.base_mass, Vec3::Zero(), p.base_inertia.asDiagonal()});
  b.addJoint(
      JointSpec{.name = "base_free", .type = p.base_joint, .parent = base_parent, .child = "base"});

  // X configuration: rotors on the diagonals of the body xy plane, thrust along body +z.
  const double c = p.rotor_arm / std::sqrt(2.0);
  const Vec3 rotors[4] = {Vec3(c, -c, 0), Vec3(c, c, 0), Vec3(-c, c, 0), Vec3(-c, -c, 0)};
  for (int r = 0; r < 4; ++r) {
    ActuatorSpec a;
    a.name = "thrust" + std::to_string(r + 1);
    a.kind = ActuatorKind::BodyForce;
    a.body = "base";
    a.point = rotors[r];
    a.direction = Vec3::UnitZ();
    a.lower = 0.0;
    a.upper = 43.84;  // k_t · 4500² rpm², digest B13
    a.torque_ratio = r % 2 == 0 ? -p.rotor_torque_ratio : p.rotor_torque_ratio;
    b.addActuator(a);
  }

  std::string parent = "base";
  for (int i = 1; i <= links; ++i) {
    const std::string n = std::to_string(i);
    b.addBody(
        BodySpec{"link" + n, p.link_mass, Vec3(p.link_com, 0, 0), p.link_inertia.asDiagonal()});
    JointSpec j;
    j.name = "joint" + n;
    j.type = JointType::Revolute;
    j.parent = parent;
    j.child = "link" + n;
    j.axis = Vec3::UnitY();
    // The first joint turns the link's x axis straight down (R_y(π/2) x = −z); the others sit at
    // the previous link's end.
    j.parent_placement = i == 1 ? Pose{axisAngleRotation(Vec3::UnitY(), std::numbers::pi / 2),
                                       Vec3(0, 0, -p.shoulder_drop)}
                                : Pose::translation(Vec3(p.link_length, 0, 0));
    b.addJoint(j);
    ActuatorSpec a;
    a.name = "tau" + n;
    a.kind = ActuatorKind::JointEffort;
    a.joint = j.name;
    a.lower = -12.0;  // "P (joint)" of the Fig. 11 table [N m]
    a.upper = 12.0;
    b.addActuator(a);
    parent = "link" + n;
  }
  return b.build();
}

}  // namespace rbs::test
