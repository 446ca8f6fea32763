// One full forward-dynamics evaluation, computeForwardDynamics(model, x, ξ, u, ws) — kinematics,
// the force terms, ẋ and ξ̇ (by the articulated-body recursion, or by M, c, f_G and the Cholesky
// solve; Model::articulated_body_dynamics) — at a fixed random state, for a 7-DoF arm, random
// revolute chains of 7–200 links and random trees of 7–200 bodies (general axes, offsets and
// inertias; tests/support/test_models.h), the Kremer et al. aerial manipulator
// with 0–3 arm links and (when its model exists) the tricopter with suspended load. With MuJoCo
// available, mj_forward on the same models is timed in the same binary (contacts disabled, no
// integration step), after a startup check that both describe the same system. Models on the
// articulated-body path are timed a second time on the composite-rigid-body path
// ("rbsim_composite"), the same model with the flag cleared.
//
// Protocol and results: docs/BENCHMARKS.md. Run from a Release build with
//   rbs_bench_dynamics --benchmark_repetitions=5 --benchmark_report_aggregates_only=true
#include <benchmark/benchmark.h>

#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include "core/dynamics/dynamics.h"
#include "tests/support/benchmark_models.h"
#include "tests/support/test_models.h"

#if __has_include("tests/support/example_models.h")
#include "tests/support/example_models.h"
#define RBS_HAVE_TRICOPTER 1
#endif

#ifdef RBS_HAVE_MUJOCO
#include "tests/benchmarks/mujoco_models.h"
#endif

namespace {

using namespace rbs;

struct Case {
  std::string name;
  Model model;
  State state;
  VecX u;
};

/// Random inputs of plausible size: thrusts near hover (the Kremer base needs ~17 N per rotor),
/// torques of a few N m.
VecX randomInputs(const Model& m, test::Rng& rng) {
  VecX u(m.numInputs());
  for (int i = 0; i < m.numInputs(); ++i)
    u(i) = m.actuators[i].kind == ActuatorKind::BodyForce ? test::uniform(rng, 5.0, 25.0)
                                                          : test::uniform(rng, -2.0, 2.0);
  return u;
}

std::vector<std::unique_ptr<Case>> makeCases() {
  std::vector<std::pair<std::string, Model>> models;
  models.emplace_back("arm7", test::sevenDofArm());
  // general chains and trees (random axes, offsets, rotated inertias), as robots come from CAD
  for (int n : {7, 10, 15, 30, 50, 100, 150, 200})
    models.emplace_back("chain" + std::to_string(n), test::randomChain(n, 42));
  for (int n : {7, 15, 30, 50, 100, 150, 200})
    models.emplace_back("tree" + std::to_string(n), test::randomTree(n, 42));
  for (int links = 0; links <= 3; ++links)
    models.emplace_back("kremer_quad+" + std::to_string(links) + "link",
                        test::kremerAerialManipulator(links));
  test::AerialManipulatorParameters quaternion_base;
  quaternion_base.base_joint = JointType::FreeQuaternion;  // Kremer et al.'s attitude coordinates
  models.emplace_back("kremer_quad+3link_quat", test::kremerAerialManipulator(3, quaternion_base));
#ifdef RBS_HAVE_TRICOPTER
  models.emplace_back("tricopter_load_rel", test::tricopterWithLoad(false));
  models.emplace_back("tricopter_load_abs", test::tricopterWithLoad(true));
#endif
  std::vector<std::unique_ptr<Case>> cases;
  test::Rng rng(1);
  for (auto& [name, model] : models) {
    auto c = std::make_unique<Case>(Case{name, std::move(model), {}, {}});
    c->state = test::randomState(c->model, rng, 1.0);
    c->u = randomInputs(c->model, rng);
    cases.push_back(std::move(c));
  }
  return cases;
}

void rbsimForward(benchmark::State& st, const Case* c) {
  Workspace ws(c->model);
  for (auto _ : st) {
    const DynamicsStatus status =
        computeForwardDynamics(c->model, c->state.x, c->state.xi, c->u, ws);
    benchmark::DoNotOptimize(status);
    benchmark::DoNotOptimize(ws.xidot.data());
    benchmark::ClobberMemory();
  }
  if (computeForwardDynamics(c->model, c->state.x, c->state.xi, c->u, ws) != DynamicsStatus::Ok)
    st.SkipWithError("forward dynamics failed");
  st.counters["dof"] = c->model.nxi;
  st.counters["bodies"] = c->model.numBodies();
}

#ifdef RBS_HAVE_MUJOCO
void mujocoForward(benchmark::State& st, const bench::MujocoTwin* twin, const Case* c) {
  twin->setState(c->state, c->u);
  for (auto _ : st) {
    mj_forward(twin->mj(), twin->data());
    benchmark::DoNotOptimize(twin->data()->qacc);
    benchmark::ClobberMemory();
  }
  st.counters["dof"] = c->model.nxi;
  st.counters["bodies"] = c->model.numBodies();
}

/// Startup sanity check: the MuJoCo twin has the same mass matrix and the same accelerations
/// (in MuJoCo's coordinates) at the benchmark state. Prints to stderr; returns false on mismatch.
bool checkTwin(const Case& c, const bench::MujocoTwin& twin) {
  Workspace ws(c.model);
  if (computeForwardDynamics(c.model, c.state.x, c.state.xi, c.u, ws) != DynamicsStatus::Ok)
    return false;
  computeMassMatrix(c.model, ws);  // not formed by the articulated-body path
  twin.setState(c.state, c.u);
  mj_forward(twin.mj(), twin.data());
  const MatX T = twin.velocityMap(c.state);
  const MatX M_mj = T.transpose() * twin.massMatrix() * T;
  const double m_err =
      (M_mj - ws.mass_matrix).cwiseAbs().maxCoeff() / ws.mass_matrix.cwiseAbs().maxCoeff();
  const VecX qacc_rbs = twin.accelerationToMujoco(c.state, ws.xidot);
  const Eigen::Map<const VecX> qacc_mj(twin.data()->qacc, twin.mj()->nv);
  const double a_err =
      (qacc_rbs - qacc_mj).cwiseAbs().maxCoeff() / std::max(1.0, qacc_mj.cwiseAbs().maxCoeff());
  // Same tolerances as tests/benchmarks/test_mujoco_models.cpp.
  const bool ok = m_err < 1e-9 && a_err < 1e-7;
  std::fprintf(stderr, "  %-22s MuJoCo twin: max rel. |ΔM| = %.1e, max rel. |Δqacc| = %.1e  %s\n",
               c.name.c_str(), m_err, a_err, ok ? "ok" : "MISMATCH");
  return ok;
}
#endif

}  // namespace

int main(int argc, char** argv) {
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;

  static const auto cases = makeCases();
#ifndef RBS_HAVE_TRICOPTER
  std::fprintf(stderr,
               "note: tests/support/example_models.h not present; tricopter benchmark skipped\n");
#endif
#ifdef RBS_HAVE_MUJOCO
  std::fprintf(stderr, "MuJoCo %s; checking the MuJoCo models against rbsim:\n",
               mj_versionString());
  static std::vector<std::unique_ptr<bench::MujocoTwin>> twins;
  bool all_ok = true;
  for (const auto& c : cases) {
    try {
      twins.push_back(std::make_unique<bench::MujocoTwin>(c->model));
      all_ok = checkTwin(*c, *twins.back()) && all_ok;
    } catch (const std::exception& e) {
      std::fprintf(stderr, "  %-22s no MuJoCo twin: %s\n", c->name.c_str(), e.what());
      twins.push_back(nullptr);
    }
  }
  if (!all_ok) {
    std::fprintf(stderr,
                 "MuJoCo models differ from the rbsim models: timings would not be comparable\n");
    return 2;
  }
#endif
  static std::vector<std::unique_ptr<Case>> composite_cases;
  for (std::size_t i = 0; i < cases.size(); ++i) {
    const Case* c = cases[i].get();
    benchmark::RegisterBenchmark(("FD/" + c->name + "/rbsim").c_str(), rbsimForward, c)
        ->Unit(benchmark::kMicrosecond);
    if (c->model.articulated_body_dynamics) {
      composite_cases.push_back(std::make_unique<Case>(*c));
      composite_cases.back()->model.articulated_body_dynamics = false;
      benchmark::RegisterBenchmark(("FD/" + c->name + "/rbsim_composite").c_str(), rbsimForward,
                                   composite_cases.back().get())
          ->Unit(benchmark::kMicrosecond);
    }
#ifdef RBS_HAVE_MUJOCO
    if (twins[i])
      benchmark::RegisterBenchmark(("FD/" + c->name + "/mujoco").c_str(), mujocoForward,
                                   twins[i].get(), c)
          ->Unit(benchmark::kMicrosecond);
#endif
  }
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
