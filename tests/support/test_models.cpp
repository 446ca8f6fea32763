#include "tests/support/test_models.h"

#include "core/dynamics/dynamics.h"

namespace rbs::test {

JointSpec randomJoint(Rng& rng, const std::string& name, JointType type, const std::string& parent,
                      const std::string& child) {
  JointSpec j{.name = name, .type = type, .parent = parent, .child = child};
  j.parent_placement = randomPose(rng);
  j.child_placement = randomPose(rng);
  j.axis = randomVector(rng, 1.0).normalized();
  j.axis2 = j.axis.cross(randomVector(rng, 1.0)).normalized();
  return j;
}

void computeEquationTerms(const Model& model, Workspace& ws) {
  computeMassMatrix(model, ws);
  computeInertialForces(model, ws);
  computeGravityForces(model, ws);
}

double uniform(Rng& rng, double lo, double hi) {
  return std::uniform_real_distribution<double>(lo, hi)(rng);
}

Vec3 randomVector(Rng& rng, double scale) {
  return Vec3(uniform(rng, -scale, scale), uniform(rng, -scale, scale), uniform(rng, -scale, scale));
}

Mat3 randomRotation(Rng& rng) {
  Vec4 q(uniform(rng, -1, 1), uniform(rng, -1, 1), uniform(rng, -1, 1), uniform(rng, -1, 1));
  return quaternionToRotation(q);
}

Pose randomPose(Rng& rng, double translation_scale) {
  return Pose{randomRotation(rng), randomVector(rng, translation_scale)};
}

BodySpec randomBody(Rng& rng, const std::string& name) {
  double m = 0.0;
  Vec3 first = Vec3::Zero();
  Mat3 second = Mat3::Zero();  // Σ m h hᵀ about the body origin
  for (int p = 0; p < 5; ++p) {
    const double mp = uniform(rng, 0.2, 1.0);
    const Vec3 h = randomVector(rng, 0.3);
    m += mp;
    first += mp * h;
    second += mp * h * h.transpose();
  }
  const Vec3 com = first / m;
  const Mat3 second_com = second - m * com * com.transpose();
  const Mat3 inertia_com = second_com.trace() * Mat3::Identity() - second_com;
  return BodySpec{name, m, com, inertia_com};
}

State randomState(const Model& model, Rng& rng, double velocity_scale) {
  State s = model.neutralState();
  for (const Joint& j : model.joints) {
    double* x = s.x.data() + j.x_offset;
    if (j.type == JointType::SphericalEulerZYX) {
      x[0] = uniform(rng, -3, 3);
      x[1] = uniform(rng, -1.2, 1.2);
      x[2] = uniform(rng, -3, 3);
    } else if (j.type == JointType::Revolute || j.type == JointType::Prismatic) {
      x[0] = uniform(rng, -2, 2);
    } else if (j.type == JointType::Universal) {
      x[0] = uniform(rng, -2, 2);
      x[1] = uniform(rng, -2, 2);
    } else if (j.type == JointType::Planar) {
      x[0] = uniform(rng, -1, 1);
      x[1] = uniform(rng, -1, 1);
      x[2] = uniform(rng, -3, 3);
    } else {
      jointCoordinatesFromMotion(j, Pose{randomRotation(rng), randomVector(rng, 1.0)}, x);
    }
    for (int c = 0; c < j.nxi; ++c) s.xi(j.xi_offset + c) = uniform(rng, -velocity_scale, velocity_scale);
  }
  return s;
}

Model randomTreeWith(JointType type, bool at_root, std::uint64_t seed) {
  Rng rng(seed);
  ModelBuilder b;
  const bool tc_allowed = type != JointType::SphericalAbsolute;
  auto addJoint = [&](const std::string& name, JointType t, const std::string& parent,
                      const std::string& child) {
    JointSpec j;
    j.name = name;
    j.type = t;
    j.parent = parent;
    j.child = child;
    j.parent_placement = randomPose(rng);
    if (t != JointType::SphericalAbsolute && (t != type || tc_allowed)) j.child_placement = randomPose(rng);
    j.axis = randomVector(rng, 1.0).normalized();
    j.axis2 = j.axis.cross(randomVector(rng, 1.0)).normalized();
    b.addJoint(j);
  };
  for (const char* name : {"root", "a", "a_tip", "c", "c_tip"}) b.addBody(randomBody(rng, name));
  std::string root_parent = rbs::kWorld;
  if (at_root) {
    addJoint("j_root", JointType::Fixed, rbs::kWorld, "root");
    addJoint("j_a", type, rbs::kWorld, "a");
    addJoint("j_c", type, rbs::kWorld, "c");
  } else {
    addJoint("j_root", JointType::Free, rbs::kWorld, "root");
    addJoint("j_a", type, "root", "a");
    addJoint("j_c", type, "root", "c");
  }
  addJoint("j_a_tip", JointType::Revolute, "a", "a_tip");
  addJoint("j_c_tip", JointType::Spherical, "c", "c_tip");
  return b.build();
}

namespace {
/// Bodies link0 … link{n−1}, each on a revolute joint with a random axis and placement below the
/// body that `parentOf(i)` names (−1: the world).
template <class ParentOf>
Model randomRevoluteTree(int n, Rng& rng, ParentOf parentOf) {
  ModelBuilder b;
  for (int i = 0; i < n; ++i) {
    const std::string name = "link" + std::to_string(i);
    b.addBody(randomBody(rng, name));
    JointSpec j;
    j.name = "joint" + std::to_string(i);
    j.type = JointType::Revolute;
    const int parent = parentOf(i);
    j.parent = parent < 0 ? std::string(rbs::kWorld) : "link" + std::to_string(parent);
    j.child = name;
    j.parent_placement = randomPose(rng, 0.3);
    j.axis = randomVector(rng, 1.0).normalized();
    b.addJoint(j);
  }
  return b.build();
}
}  // namespace

Model randomChain(int n, std::uint64_t seed) {
  Rng rng(seed);
  return randomRevoluteTree(n, rng, [](int i) { return i - 1; });
}

Model randomTree(int n, std::uint64_t seed) {
  Rng rng(seed);
  Rng shape(seed ^ 0x5DEECE66Dull);  // its own stream: the bodies do not depend on the shape
  return randomRevoluteTree(n, rng, [&](int i) {
    return i == 0 ? -1 : static_cast<int>(std::uniform_int_distribution<int>(0, i - 1)(shape));
  });
}

Model doublePendulum(double m1, double m2, double l1, double l2, JointType revolute) {
  // Rod of length l along −z of its frame, CoM at −l/2, inertia m l²/12 about the CoM (thin rod,
  // a tiny axial moment keeps Θ positive definite).
  auto rod = [](const std::string& name, double m, double l) {
    const double I = m * l * l / 12.0;
    return BodySpec{name, m, Vec3(0, 0, -l / 2), Vec3(I, I, 1e-6 * I).asDiagonal()};
  };
  ModelBuilder b;
  b.addBody(rod("link1", m1, l1)).addBody(rod("link2", m2, l2));
  JointSpec j1{.name = "shoulder", .type = revolute, .parent = rbs::kWorld, .child = "link1"};
  j1.axis = Vec3::UnitY();
  JointSpec j2{.name = "elbow", .type = revolute, .parent = "link1", .child = "link2"};
  j2.axis = Vec3::UnitY();
  j2.parent_placement = Pose::translation(Vec3(0, 0, -l1));
  b.addJoint(j1).addJoint(j2);
  return b.build();
}

RandomQp randomQpObjective(Rng& rng, int p) {
  RandomQp P;
  const MatX R = MatX::NullaryExpr(p, p, [&] { return uniform(rng, -1, 1); });
  P.H = R * R.transpose() + 0.1 * MatX::Identity(p, p);
  P.u0 = VecX::NullaryExpr(p, [&] { return uniform(rng, -3, 3); });
  return P;
}

}  // namespace rbs::test
