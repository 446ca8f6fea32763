// Body twists, body Jacobians and κ_b = J̇_b ξ against finite differences along the exact flow of
// ẋ = A(x) ξ, for every joint type, with and without T_c, at the root and below a free body
// (konz-modeling §10.1 and §16.3 item 3).
#include <gtest/gtest.h>

#include "core/dynamics/kinematics.h"
#include "tests/support/flow.h"
#include "tests/support/matrix_compare.h"
#include "tests/support/test_models.h"

namespace rbs {
namespace {

// Fourth-order central differences with h = 5e-4 s: truncation ~h⁴|f⁽⁵⁾| ≈ 1e-12 for the O(1–10)
// derivatives here, rounding ~1e-16/h ≈ 1e-12. 1e-8 catches every wrong term (they are O(0.1–1),
// konz-modeling §10.1 "sensitivity") with a wide margin.
constexpr double kFdTol = 1e-8;
constexpr double kH = 5e-4;

struct Case {
  JointType type;
  bool at_root;
};

std::string caseName(const testing::TestParamInfo<Case>& info) {
  return std::string(jointTypeName(info.param.type)) + (info.param.at_root ? "_at_root" : "_below_free");
}

class JointJacobians : public testing::TestWithParam<Case> {};

/// World poses of every body along the flow of ξ from x.
std::vector<Mat4> posesAlongFlow(const Model& m, const VecX& x, const VecX& xi, double t) {
  Workspace ws(m);
  computeKinematics(m, test::flowConfiguration(m, x, xi, t), xi, ws);
  std::vector<Mat4> out;
  for (const Pose& p : ws.pose) out.push_back(p.matrix());
  return out;
}

TEST_P(JointJacobians, TwistsJacobiansAndBiasMatchFiniteDifferences) {
  const Model m = test::randomTreeWith(GetParam().type, GetParam().at_root, 11);
  test::Rng rng(7);
  Workspace ws(m);
  for (int trial = 0; trial < 3; ++trial) {
    const State s = test::randomState(m, rng, 1.5);
    computeKinematics(m, s.x, s.xi, ws);
    computeBodyJacobians(m, ws);

    // η_b = vee(G_b⁻¹ Ġ_b)
    for (int b = 0; b < m.numBodies(); ++b) {
      const Mat4 dG = test::centralDifference([&](double t) { return posesAlongFlow(m, s.x, s.xi, t)[b]; }, kH);
      const Vec6 twist_fd = vee(Mat4(ws.pose[b].inverse().matrix() * dG));
      EXPECT_MATRIX_NEAR(ws.twist[b], twist_fd, kFdTol) << "body " << m.bodies[b].name;
      EXPECT_MATRIX_NEAR(ws.jacobian(b) * s.xi, ws.twist[b], 1e-12) << "body " << m.bodies[b].name;
    }

    // κ_b = d/dt (J_b(x(t)) ξ)
    for (int b = 0; b < m.numBodies(); ++b) {
      const Vec6 kappa_fd = test::centralDifference(
          [&](double t) {
            Workspace w(m);
            computeKinematics(m, test::flowConfiguration(m, s.x, s.xi, t), s.xi, w);
            return Vec6(w.twist[b]);
          },
          kH);
      EXPECT_MATRIX_NEAR(ws.bias[b], kappa_fd, kFdTol) << "body " << m.bodies[b].name;
    }

    // Every Jacobian column: the twist of the flow along ξ = e_i (first trial only: costly).
    if (trial == 0) {
      for (int i = 0; i < m.nxi; ++i) {
        const VecX e = VecX::Unit(m.nxi, i);
        for (int b = 0; b < m.numBodies(); ++b) {
          const Mat4 dG = test::centralDifference([&](double t) { return posesAlongFlow(m, s.x, e, t)[b]; }, kH);
          EXPECT_MATRIX_NEAR(ws.jacobian(b).col(i), vee(Mat4(ws.pose[b].inverse().matrix() * dG)), kFdTol)
              << "body " << m.bodies[b].name << ", column " << i;
        }
      }
    }
  }
}

TEST_P(JointJacobians, JacobianIsZeroOutsideTheAncestorColumns) {
  const Model m = test::randomTreeWith(GetParam().type, GetParam().at_root, 12);
  test::Rng rng(8);
  Workspace ws(m);
  const State s = test::randomState(m, rng);
  computeKinematics(m, s.x, s.xi, ws);
  computeBodyJacobians(m, ws);
  for (int b = 0; b < m.numBodies(); ++b) {
    std::vector<bool> in_support(m.nxi, false);
    for (int c : m.support[b]) in_support[c] = true;
    for (int c = 0; c < m.nxi; ++c) {
      if (in_support[c]) continue;
      EXPECT_EQ(ws.jacobian(b).col(c).norm(), 0.0) << "body " << b << " col " << c;
    }
  }
}

TEST_P(JointJacobians, KinematicsPreserveTheCoordinateConstraints) {
  // ẋ = A ξ is tangent to the constraint manifold: φ stays ~0 along the flow (2.3).
  const Model m = test::randomTreeWith(GetParam().type, GetParam().at_root, 13);
  test::Rng rng(9);
  const State s = test::randomState(m, rng, 2.0);
  const VecX x1 = test::flowConfiguration(m, s.x, s.xi, 0.5);
  EXPECT_LT(m.coordinateDrift(x1), 1e-12);
}

INSTANTIATE_TEST_SUITE_P(
    AllJointTypes, JointJacobians,
    testing::Values(Case{JointType::Revolute, false}, Case{JointType::Revolute, true},
                    Case{JointType::RevoluteUnitCircle, false}, Case{JointType::RevoluteUnitCircle, true},
                    Case{JointType::Prismatic, false}, Case{JointType::Prismatic, true},
                    Case{JointType::Spherical, false}, Case{JointType::Spherical, true},
                    Case{JointType::SphericalQuaternion, false}, Case{JointType::SphericalQuaternion, true},
                    Case{JointType::SphericalEulerZYX, false}, Case{JointType::SphericalEulerZYX, true},
                    Case{JointType::SphericalAbsolute, false}, Case{JointType::SphericalAbsolute, true},
                    Case{JointType::Free, false}, Case{JointType::Free, true},
                    Case{JointType::FreeQuaternion, false}, Case{JointType::FreeQuaternion, true},
                    Case{JointType::Planar, false}, Case{JointType::Planar, true},
                    Case{JointType::Universal, false}, Case{JointType::Universal, true},
                    Case{JointType::Fixed, false}),
    caseName);

}  // namespace
}  // namespace rbs
