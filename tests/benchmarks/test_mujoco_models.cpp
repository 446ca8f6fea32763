// The MuJoCo models timed by rbs_bench_dynamics are the same systems as the rbsim models: mass
// matrix and forward dynamics (with inputs) agree at random states, after mapping MuJoCo's
// coordinates (free joint: world-frame linear velocity) to rbsim's body twist
// (tests/benchmarks/mujoco_models.h). Without this, the timing comparison would be meaningless.
#include <gtest/gtest.h>

#include "core/dynamics/dynamics.h"
#include "tests/benchmarks/mujoco_models.h"
#include "tests/support/benchmark_models.h"
#include "tests/support/matrix_compare.h"
#include "tests/support/test_models.h"

// The tricopter of thesis Examples 6/7 lives in its own support file (written with the example
// tests); the check covers it whenever it is part of the tree.
#if __has_include("tests/support/example_models.h")
#include "tests/support/example_models.h"
#define RBS_HAVE_TRICOPTER 1
#endif

namespace rbs {
namespace {

// Same parameters (principal axes exported exactly, see mujoco_models.cpp), CRB in a different
// operation order: ~1e-15 relative observed (1e-12 on the 100-link chain). 1e-9 relative catches
// any parameter mistake (a 1 % inertia error moves M by ≳1e-4 relative).
constexpr double kMassRelTol = 1e-9;
// Accelerations pass through two different factorizations (Cholesky here, MuJoCo's sparse LDLᵀ);
// the 100-link chain has cond(M) up to ~1e6: ~1e-12 relative observed. 1e-7 relative still
// rejects every modelling difference (a 1 mm CoM shift or a missing ω × v term fails by ≳1e-3).
constexpr double kAccelRelTol = 1e-7;

struct Case {
  const char* name;
  Model (*make)();
};
void PrintTo(const Case& c, std::ostream* os) {
  *os << c.name;
}

class MujocoTwinTest : public testing::TestWithParam<Case> {};

TEST_P(MujocoTwinTest, MassMatrixAndForwardDynamicsAgree) {
  const Model m = GetParam().make();
  bench::MujocoTwin twin(m);
  Workspace ws(m);
  test::Rng rng(5);
  for (int k = 0; k < 5; ++k) {
    const State s = test::randomState(m, rng, 1.5);
    VecX u(m.numInputs());
    for (int i = 0; i < u.size(); ++i) u(i) = test::uniform(rng, -10.0, 10.0);
    ASSERT_EQ(computeForwardDynamics(m, s.x, s.xi, u, ws), DynamicsStatus::Ok);
    computeMassMatrix(m, ws);  // not formed by the articulated-body path
    twin.setState(s, u);
    mj_forward(twin.mj(), twin.data());

    const MatX T = twin.velocityMap(s);
    const MatX M_mj = T.transpose() * twin.massMatrix() * T;  // ½ξᵀMξ = ½ qvelᵀ M_mj qvel
    EXPECT_MATRIX_NEAR(ws.mass_matrix, M_mj, kMassRelTol * M_mj.cwiseAbs().maxCoeff())
        << "state " << k;

    const Eigen::Map<const VecX> qacc(twin.data()->qacc, twin.mj()->nv);
    EXPECT_MATRIX_NEAR(twin.accelerationToMujoco(s, ws.xidot), qacc,
                       kAccelRelTol * std::max(1.0, qacc.cwiseAbs().maxCoeff()))
        << "state " << k;
  }
}

INSTANTIATE_TEST_SUITE_P(
    BenchmarkModels, MujocoTwinTest,
    testing::Values(Case{"arm7", [] { return test::sevenDofArm(); }},
                    Case{"chain10", [] { return test::randomChain(10, 42); }},
                    Case{"chain100", [] { return test::randomChain(100, 42); }},
                    Case{"tree30", [] { return test::randomTree(30, 42); }},
                    Case{"tree100", [] { return test::randomTree(100, 42); }},
                    Case{"kremer0", [] { return test::kremerAerialManipulator(0); }},
                    Case{"kremer1", [] { return test::kremerAerialManipulator(1); }},
                    Case{"kremer3", [] { return test::kremerAerialManipulator(3); }},
                    Case{"kremer3_quaternion",
                         [] {
                           test::AerialManipulatorParameters p;
                           p.base_joint = JointType::FreeQuaternion;
                           return test::kremerAerialManipulator(3, p);
                         }}),
    [](const testing::TestParamInfo<Case>& p) { return std::string(p.param.name); });

#ifdef RBS_HAVE_TRICOPTER
// Free base, relative or absolute-ω spherical load joint, unit-circle rotors.
INSTANTIATE_TEST_SUITE_P(
    Tricopter, MujocoTwinTest,
    testing::Values(Case{"tricopter_rel", [] { return test::tricopterWithLoad(false); }},
                    Case{"tricopter_abs", [] { return test::tricopterWithLoad(true); }}),
    [](const testing::TestParamInfo<Case>& p) { return std::string(p.param.name); });
#endif

}  // namespace
}  // namespace rbs
