// Structural identities of the equations of motion (konz-modeling §9.6, §16.3 item 4), each checked
// against a computation that does not share the code path under test:
//  - M (composite inertias) = Σ J_bᵀ M_b J_b (explicit Jacobians), symmetric positive definite;
//  - ξᵀ c = ½ ξᵀ Ṁ ξ with Ṁ by finite differences along the exact flow;
//  - c = Christoffel form (∂_k M_ij − ½ ∂_i M_jk) ξʲ ξᵏ for minimal coordinates (A = I);
//  - f_D = D ξ with D = Σ J_abᵀ D_s J_ab, D symmetric PSD; B u = f_E;
//  - the input power equals Σ (force · velocity of its application point) + torque · ω.
#include <gtest/gtest.h>


#include "core/dynamics/dynamics.h"
#include "tests/support/flow.h"
#include "tests/support/linear_algebra.h"
#include "tests/support/matrix_compare.h"
#include "tests/support/test_models.h"

namespace rbs {
namespace {

// Identities between two exact algorithms: rounding only, O(1–100) magnitudes → 1e-10.
constexpr double kExactTol = 1e-10;
// Finite differences along the flow (4th order, h = 5e-4): ~1e-11 truncation at these scales.
constexpr double kFdTol = 1e-7;
constexpr double kH = 5e-4;

const JointType kAllTypes[] = {JointType::Revolute,       JointType::RevoluteUnitCircle,
                               JointType::Prismatic,      JointType::Spherical,
                               JointType::SphericalQuaternion, JointType::SphericalEulerZYX,
                               JointType::SphericalAbsolute,   JointType::Free,
                               JointType::FreeQuaternion, JointType::Planar,
                               JointType::Universal,      JointType::Fixed};

TEST(DynamicsStructure, CompositeInertiaMassMatrixEqualsSumOverBodies) {
  for (JointType type : kAllTypes) {
    for (bool at_root : {false, true}) {
      const Model m = test::randomTreeWith(type, at_root, 21);
      Workspace ws(m);
      test::Rng rng(22);
      for (int k = 0; k < 3; ++k) {
        const State s = test::randomState(m, rng);
        computeKinematics(m, s.x, s.xi, ws);
        computeBodyJacobians(m, ws);
        computeMassMatrix(m, ws);
        MatX M = MatX::Zero(m.nxi, m.nxi);
        for (int b = 0; b < m.numBodies(); ++b)
          M += ws.jacobian(b).transpose() * m.bodies[b].spatial_inertia * ws.jacobian(b);
        EXPECT_MATRIX_NEAR(ws.mass_matrix, M, kExactTol) << jointTypeName(type);
        EXPECT_MATRIX_NEAR(ws.mass_matrix, MatX(ws.mass_matrix.transpose()), 0.0);
        // Positive definite away from Euler-angle gimbal lock (random states keep |β| ≤ 1.2).
        EXPECT_EQ(Eigen::LLT<MatX>(ws.mass_matrix).info(), Eigen::Success) << jointTypeName(type);
        // T = ½ ξᵀ M ξ = Σ ½ η_bᵀ M_b η_b
        double T = 0;
        for (int b = 0; b < m.numBodies(); ++b) T += 0.5 * ws.twist[b].dot(m.bodies[b].spatial_inertia * ws.twist[b]);
        EXPECT_NEAR(0.5 * s.xi.dot(ws.mass_matrix * s.xi), T, kExactTol * std::max(1.0, T));
      }
    }
  }
}

TEST(DynamicsStructure, InertialForcesHaveZeroNetPowerWithMassMatrixRate) {
  // ξᵀ c = ½ ξᵀ Ṁ ξ (energy consistency of (3.111)).
  for (JointType type : kAllTypes) {
    const Model m = test::randomTreeWith(type, false, 31);
    Workspace ws(m);
    test::Rng rng(32);
    for (int k = 0; k < 2; ++k) {
      const State s = test::randomState(m, rng, 1.5);
      computeKinematics(m, s.x, s.xi, ws);
      computeInertialForces(m, ws);
      const MatX Mdot = test::centralDifference(
          [&](double t) {
            Workspace w(m);
            computeKinematics(m, test::flowConfiguration(m, s.x, s.xi, t), s.xi, w);
            computeMassMatrix(m, w);
            return MatX(w.mass_matrix);
          },
          kH);
      const double lhs = s.xi.dot(ws.inertial_forces);
      EXPECT_NEAR(lhs, 0.5 * s.xi.dot(Mdot * s.xi), kFdTol * std::max(1.0, std::abs(lhs))) << jointTypeName(type);
    }
  }
}

TEST(DynamicsStructure, InertialForcesEqualChristoffelFormInMinimalCoordinates) {
  // A tree whose coordinates are all minimal and integrable (ẋ = ξ): revolute, prismatic,
  // Euler angles, universal. Then c_i = (∂_k M_ij − ½ ∂_i M_jk) ξʲ ξᵏ (3.31 with γ = 0).
  test::Rng rng(41);
  ModelBuilder b;
  const char* names[] = {"b0", "b1", "b2", "b3", "b4"};
  for (const char* n : names) b.addBody(test::randomBody(rng, n));
  auto joint = [&](const char* name, JointType t, const char* parent, const char* child) {
    b.addJoint(test::randomJoint(rng, name, t, parent, child));
  };
  joint("j0", JointType::SphericalEulerZYX, kWorld, "b0");
  joint("j1", JointType::Universal, "b0", "b1");
  joint("j2", JointType::Prismatic, "b1", "b2");
  joint("j3", JointType::Revolute, "b0", "b3");
  joint("j4", JointType::Universal, "b3", "b4");
  const Model m = b.build();
  ASSERT_EQ(m.nx, m.nxi);
  Workspace ws(m);
  for (int k = 0; k < 3; ++k) {
    const State s = test::randomState(m, rng);
    computeKinematics(m, s.x, s.xi, ws);
    computeInertialForces(m, ws);
    std::vector<MatX> dM(m.nxi);  // dM[k] = ∂M/∂q_k
    for (int i = 0; i < m.nxi; ++i) {
      dM[i] = test::centralDifference(
          [&](double t) {
            Workspace w(m);
            computeKinematics(m, s.x + t * VecX::Unit(m.nx, i), s.xi, w);
            computeMassMatrix(m, w);
            return MatX(w.mass_matrix);
          },
          kH);
    }
    VecX c = VecX::Zero(m.nxi);
    for (int i = 0; i < m.nxi; ++i)
      for (int j = 0; j < m.nxi; ++j)
        for (int l = 0; l < m.nxi; ++l)
          c(i) += (dM[l](i, j) - 0.5 * dM[i](j, l)) * s.xi(j) * s.xi(l);
    EXPECT_MATRIX_NEAR(ws.inertial_forces, c, kFdTol * std::max(1.0, c.cwiseAbs().maxCoeff()));
  }
}

/// A tree with dampers and actuators between random frames.
Model modelWithForceElements(std::uint64_t seed) {
  test::Rng rng(seed);
  ModelBuilder b;
  for (const char* n : {"base", "arm", "load", "wheel"}) b.addBody(test::randomBody(rng, n));
  b.addJoint({.name = "float", .type = JointType::FreeQuaternion, .parent = kWorld, .child = "base"});
  JointSpec arm{.name = "shoulder", .type = JointType::Universal, .parent = "base", .child = "arm"};
  arm.parent_placement = test::randomPose(rng);
  arm.axis = Vec3::UnitX();
  arm.axis2 = Vec3::UnitY();
  b.addJoint(arm);
  JointSpec load{.name = "hook", .type = JointType::SphericalAbsolute, .parent = "arm", .child = "load"};
  load.parent_placement = test::randomPose(rng);
  b.addJoint(load);
  JointSpec wheel{.name = "spin", .type = JointType::RevoluteUnitCircle, .parent = "base", .child = "wheel"};
  wheel.parent_placement = test::randomPose(rng);
  wheel.axis = test::randomVector(rng, 1).normalized();
  b.addJoint(wheel);
  b.addDamper({.name = "air", .a = {kWorld, test::randomPose(rng)}, .b = {"base", test::randomPose(rng)},
               .damping = 0.7, .center = test::randomVector(rng, 0.2), .rotational_damping = Vec3(0.1, 0.2, 0.3).asDiagonal()});
  b.addDamper({.name = "drag", .a = {"arm", test::randomPose(rng)}, .b = {"load", test::randomPose(rng)},
               .damping = 0.3, .center = test::randomVector(rng, 0.2), .rotational_damping = Vec3(0.05, 0.02, 0.04).asDiagonal()});
  b.addJointSpringDamper({.joint = "spin", .stiffness = 0.0, .damping = 0.02});
  b.addActuator({.name = "thrust", .kind = ActuatorKind::BodyForce, .body = "base",
                 .point = test::randomVector(rng, 0.3), .direction = test::randomVector(rng, 1).normalized()});
  b.addActuator({.name = "yaw", .kind = ActuatorKind::BodyTorque, .body = "load",
                 .direction = test::randomVector(rng, 1).normalized()});
  b.addActuator({.name = "motor", .kind = ActuatorKind::JointEffort, .joint = "shoulder", .component = 1});
  b.addActuator({.name = "spin_motor", .kind = ActuatorKind::JointEffort, .joint = "spin"});
  return b.build();
}

TEST(DynamicsStructure, DampingForcesEqualDampingMatrixTimesVelocity) {
  const Model m = modelWithForceElements(51);
  Workspace ws(m);
  test::Rng rng(52);
  for (int k = 0; k < 5; ++k) {
    const State s = test::randomState(m, rng);
    computeKinematics(m, s.x, s.xi, ws);
    computeBodyJacobians(m, ws);
    computeDampingForces(m, s.xi, ws);
    computeDampingMatrix(m, ws);
    EXPECT_MATRIX_NEAR(ws.damping_forces, ws.damping_matrix * s.xi, kExactTol);
    EXPECT_MATRIX_NEAR(ws.damping_matrix, MatX(ws.damping_matrix.transpose()), kExactTol);
    EXPECT_GE(test::symmetricEigenvalues(ws.damping_matrix).minCoeff(), -kExactTol);
  }
}

TEST(DynamicsStructure, InputForcesEqualInputMatrixTimesInputsAndDeliverPointPower) {
  const Model m = modelWithForceElements(61);
  Workspace ws(m);
  test::Rng rng(62);
  for (int k = 0; k < 5; ++k) {
    const State s = test::randomState(m, rng);
    const VecX u = VecX::Random(m.numInputs());
    computeKinematics(m, s.x, s.xi, ws);
    computeBodyJacobians(m, ws);
    computeInputForces(m, s.x, s.xi, u, ws);
    computeInputMatrix(m, ws);
    EXPECT_MATRIX_NEAR(ws.input_forces, ws.input_matrix * u, kExactTol);
    // Power by physics: force · (velocity of the application point) + torque · ω + effort · rate.
    double power = 0.0;
    for (int i = 0; i < m.numInputs(); ++i) {
      const Actuator& a = m.actuators[i];
      if (a.kind == ActuatorKind::JointEffort) {
        power += u(i) * s.xi(m.joints[a.joint].xi_offset + a.component);
        continue;
      }
      const Vec3 v = ws.twist[a.body].head<3>(), w = ws.twist[a.body].tail<3>();
      power += a.kind == ActuatorKind::BodyForce ? u(i) * a.direction.dot(v + w.cross(a.point))
                                                 : u(i) * a.direction.dot(w);
    }
    EXPECT_NEAR(s.xi.dot(ws.input_forces), power, kExactTol);
  }
}

TEST(DynamicsStructure, ForwardDynamicsSolvesTheEquationOfMotion) {
  const Model m = modelWithForceElements(71);
  Workspace ws(m);
  test::Rng rng(72);
  const State s = test::randomState(m, rng);
  const VecX u = VecX::Random(m.numInputs());
  ASSERT_EQ(computeForwardDynamics(m, s.x, s.xi, u, ws), DynamicsStatus::Ok);
  test::computeEquationTerms(m, ws);
  const VecX residual = ws.mass_matrix * ws.xidot + ws.inertial_forces + ws.damping_forces +
                        ws.elastic_forces + ws.gravity_forces - ws.input_forces;
  EXPECT_MATRIX_NEAR(residual, VecX::Zero(m.nxi), kExactTol);
}

TEST(DynamicsStructure, NonFiniteStateIsReportedNotPropagated) {
  const Model m = modelWithForceElements(81);
  Workspace ws(m);
  State s = m.initial_state;
  s.xi(2) = std::numeric_limits<double>::quiet_NaN();
  EXPECT_EQ(computeForwardDynamics(m, s.x, s.xi, VecX::Zero(m.numInputs()), ws), DynamicsStatus::NonFinite);
}

// Bodies hung from the world with constant S_e have a constant M (free flyers with body twists):
// one Workspace computes and factorizes it once. Reusing it at other states must give exactly
// what a fresh Workspace computes there; a varying S_e (Euler angles, universal) or a body below
// another body must not be cached.
TEST(DynamicsStructure, ConstantMassMatrixIsReusedOnlyWhenItIsConstant) {
  for (JointType type : kAllTypes) {
    if (type == JointType::Fixed) continue;
    test::Rng rng(31);
    ModelBuilder b;
    b.addBody(test::randomBody(rng, "one"));
    b.addBody(test::randomBody(rng, "two"));
    JointSpec j;
    j.type = type;
    j.name = "j1";
    j.child = "one";
    j.parent_placement = test::randomPose(rng);
    if (type != JointType::SphericalAbsolute) j.child_placement = test::randomPose(rng);
    j.axis = test::randomVector(rng, 1.0).normalized();
    j.axis2 = j.axis.cross(test::randomVector(rng, 1.0)).normalized();
    b.addJoint(j);
    j.name = "j2";
    j.child = "two";
    b.addJoint(j);
    const Model m = b.build();
    const bool constant = type != JointType::SphericalEulerZYX && type != JointType::Universal;
    EXPECT_EQ(m.constant_mass_matrix, constant) << jointTypeName(type);

    Workspace reused(m);
    for (int k = 0; k < 3; ++k) {
      const State s = test::randomState(m, rng);
      const VecX u = VecX::Zero(m.numInputs());
      ASSERT_EQ(computeForwardDynamics(m, s.x, s.xi, u, reused), DynamicsStatus::Ok);
      Workspace fresh(m);
      ASSERT_EQ(computeForwardDynamics(m, s.x, s.xi, u, fresh), DynamicsStatus::Ok);
      computeMassMatrix(m, reused);  // the articulated-body path (Euler, universal) does not form M
      computeMassMatrix(m, fresh);
      EXPECT_MATRIX_NEAR(reused.mass_matrix, fresh.mass_matrix, 0.0) << jointTypeName(type);
      EXPECT_MATRIX_NEAR(reused.xidot, fresh.xidot, 0.0) << jointTypeName(type);
    }
  }
  // A body below another: M depends on the relative pose even with constant S_e.
  EXPECT_FALSE(test::randomTreeWith(JointType::Revolute, true, 5).constant_mass_matrix);
  EXPECT_FALSE(test::randomTreeWith(JointType::Free, false, 5).constant_mass_matrix);
}

}  // namespace
}  // namespace rbs
