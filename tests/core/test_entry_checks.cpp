// Entry checks of the core's public functions (core/math/assert.h): a state, input or workspace
// of the wrong size is refused at the call with the function, the argument and both sizes.
// Built only with RBS_ASSERTS (Debug and RelWithDebInfo, the test build; tests/CMakeLists.txt):
// a Release build has no checks to test.
#include <gtest/gtest.h>

#include <functional>
#include <string>

#include "core/dynamics/dynamics.h"
#include "core/dynamics/energy.h"
#include "core/control/parameters.h"
#include "core/math/assert.h"
#include "tests/support/test_models.h"

static_assert(RBS_ASSERTS, "tests/CMakeLists.txt builds this file only with RBS_ASSERTS");

namespace rbs {
namespace {

/// The message of the ContractViolation `call` throws ("" and a test failure if none).
std::string violation(const std::function<void()>& call) {
  try {
    call();
  } catch (const ContractViolation& e) {
    return e.what();
  }
  ADD_FAILURE() << "no ContractViolation";
  return "";
}

class EntryChecks : public ::testing::Test {
 protected:
  // Quaternion root (ν = 7, n = 6) below a chain: x and ξ differ in size, so a swapped pair is
  // caught too.
  const Model model = test::randomTreeWith(JointType::FreeQuaternion, true, 3);
  const State state = model.initial_state;
  const VecX u = VecX::Zero(model.numInputs());
};

TEST_F(EntryChecks, ForwardDynamicsNamesTheArgumentAndBothSizes) {
  Workspace ws(model);
  ASSERT_NE(model.nx, model.nxi);
  const VecX short_x = state.x.head(model.nx - 1);
  EXPECT_EQ(violation([&] { computeForwardDynamics(model, short_x, state.xi, u, ws); }),
            "computeForwardDynamics: x has " + std::to_string(model.nx - 1) + " entries, the model expects " +
                std::to_string(model.nx));
  EXPECT_EQ(violation([&] { computeForwardDynamics(model, state.xi, state.x, u, ws); }),
            "computeForwardDynamics: x has " + std::to_string(model.nxi) + " entries, the model expects " +
                std::to_string(model.nx));
  const VecX long_u = VecX::Zero(model.numInputs() + 2);
  EXPECT_EQ(violation([&] { computeForwardDynamics(model, state.x, state.xi, long_u, ws); }),
            "computeForwardDynamics: u has " + std::to_string(model.numInputs() + 2) +
                " entries, the model expects " + std::to_string(model.numInputs()));
  // The right sizes pass, and the workspace is untouched by the refused calls.
  EXPECT_EQ(computeForwardDynamics(model, state.x, state.xi, u, ws), DynamicsStatus::Ok);
}

TEST_F(EntryChecks, AWorkspaceOfAnotherModelIsRefused) {
  const Model other = test::randomChain(2, 5);
  Workspace foreign(other);
  const std::string message = violation([&] { computeForwardDynamics(model, state.x, state.xi, u, foreign); });
  EXPECT_NE(message.find("the workspace was built for another model"), std::string::npos) << message;
}

TEST_F(EntryChecks, EveryStateTakingFunctionChecks) {
  Workspace ws(model);
  const VecX bad = VecX::Zero(1);
  const std::pair<const char*, std::function<void()>> calls[] = {
      {"computeKinematics: xi", [&] { computeKinematics(model, state.x, bad, ws); }},
      {"computeConfigurationRate: x", [&] { computeConfigurationRate(model, bad, state.xi, ws); }},
      {"computeElasticForces: x", [&] { computeElasticForces(model, bad, ws); }},
      {"computeDampingForces: xi", [&] { computeDampingForces(model, bad, ws); }},
      {"computeInputForces: u", [&] { computeInputForces(model, state.x, state.xi, VecX::Zero(model.numInputs() + 1), ws); }},
      {"computeEnergies: x", [&] { computeEnergies(model, bad, state.xi, ws); }},
  };
  for (const auto& [prefix, call] : calls) {
    const std::string message = violation(call);
    EXPECT_EQ(message.rfind(prefix, 0), 0u) << prefix << " vs " << message;
  }
  computeKinematics(model, state.x, state.xi, ws);
  computeMassMatrix(model, ws);
  ASSERT_TRUE(factorizeMassMatrix(model, ws));
  MatX wrong_rows = MatX::Zero(model.nxi + 1, 2);
  EXPECT_EQ(violation([&] { solveWithMassMatrix(model, ws, wrong_rows); }).rfind("solveWithMassMatrix: ", 0), 0u);
  Frame beyond;
  beyond.body = model.numBodies();
  EXPECT_EQ(violation([&] { framePose(model, ws, beyond); }).rfind("framePose: ", 0), 0u);
  EXPECT_EQ(violation([&] { frameTwist(ws, beyond); }).rfind("frameTwist: ", 0), 0u);
}

TEST(EntryChecksOfParameters, AHandleOfNoOrAnotherSetIsRefused) {
  ParameterSet p;
  p.add({"omega", "rad/s", "bandwidth", 4.0, 0.1, 100.0, ParameterScale::Log});
  const Parameter zeta = p.add({"zeta", "1", "damping ratio", 1.0, 0.0, 5.0});
  EXPECT_THROW(static_cast<void>(p[Parameter{}]), ContractViolation);
  ParameterSet other;
  other.add({"a", "1", "", 0.5, 0.0, 1.0});
  EXPECT_THROW(static_cast<void>(other[zeta]), ContractViolation);  // a handle of another, larger set
  EXPECT_EQ(p[zeta], 1.0);
}

}  // namespace
}  // namespace rbs
