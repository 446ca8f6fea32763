// The aerial manipulator of Kremer, Sanchez-Lopez and Voos with 0–3 arm links, as shipped in
// scenes/kremer_quadcopter_arm{0,1,2,3}.yaml (unit-quaternion base, [K]'s coordinates): one
// right-hand side of the closed loop, timed three ways at the scene's initial state (hover):
//   FD                   computeForwardDynamics(model, x, ξ, u, ws) alone (what [K]'s Table 2
//                        "FD" column times: accelerations from state and inputs);
//   FD+computed_torque   reference sample + [K]'s computed torque (ZYX angles, u = B⁺f) + FD;
//   FD+prototype         reference sample + body-based prototype (template base + joints,
//                        matched multicopter, box QP) + FD.
// The controller settings are those of the scenes (computed torque: [K]'s gains as in arm0–2,
// with joint 3 = joint 2; prototype: kremer_quadcopter_arm3.yaml's for every k).
//
// Protocol and results: docs/BENCHMARKS.md, "Aerial manipulator (Kremer)". Run from a Release
// build with
//   rbs_bench_aerial_manipulator --benchmark_repetitions=5 --benchmark_report_aggregates_only=true
#include <benchmark/benchmark.h>

#include <cstdio>
#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include "core/control/registry.h"
#include "core/dynamics/dynamics.h"
#include "core/scene/scene.h"
#include "sim/closed_loop.h"

namespace {

using namespace rbs;

std::filesystem::path sceneFile(int links) {
  return std::filesystem::path(RBS_SOURCE_DIR) / "scenes" /
         ("kremer_quadcopter_arm" + std::to_string(links) + ".yaml");
}

/// [K]'s computed-torque gains (Sect. 6.1) in the scenes' spelling; joint 3 (not in [K]) as
/// joint 2, as the note in kremer_quadcopter_arm3.yaml describes.
std::string computedTorqueOverride(int links) {
  std::string p =
      "kp_x: 0, kp_y: 0, kp_z: 30, kp_roll: 40, kp_pitch: 40, kp_yaw: 30, kd_x: 0, kd_y: 0, "
      "kd_z: 10, kd_roll: 5, kd_pitch: 5, kd_yaw: 4";
  const char* joint_gains[3] = {", kp_joint1: 60, kd_joint1: 24", ", kp_joint2: 120, kd_joint2: 24",
                                ", kp_joint3: 120, kd_joint3: 24"};
  for (int j = 0; j < links; ++j) p += joint_gains[j];
  return "controller={name: computed_torque, parameters: {" + p + "}}";
}

/// The prototype of kremer_quadcopter_arm3.yaml (template base + joints; base only without arm).
std::string prototypeOverride(int links) {
  return std::string("controller={name: prototype_body, options: {template: ") +
         (links > 0 ? "base_joints" : "base") +
         ", matching: multicopter, gains: poles}, parameters: {mbar: 1.0, pole: 4.0, "
         "thetabar_z: 0.002, upsilonbar_z: 0.016, pibar_z: 0.032" +
         (links > 0 ? ", joint_thetabar: 0.01, joint_omega: 8.0" : "") + "}}";
}

struct Case {
  std::string name;
  Scene scene;
  std::shared_ptr<ClosedLoop> loop;  ///< null: forward dynamics alone
  VecX u;
};

/// Time of the reference sample: inside the scenes' 20 s run, the joints moving.
constexpr double kSampleTime = 0.5;  // s

std::unique_ptr<Case> makeCase(int links, const std::string& controller) {
  std::vector<std::string> overrides;
  if (controller == "computed_torque") overrides.push_back(computedTorqueOverride(links));
  if (controller == "prototype") overrides.push_back(prototypeOverride(links));
  auto c = std::make_unique<Case>();
  c->name =
      "AM/" + std::to_string(links) + "link/" + (controller.empty() ? "FD" : "FD+" + controller);
  c->scene = loadScene(sceneFile(links), overrides);
  const Model& m = c->scene.model;
  c->u = VecX::Zero(m.numInputs());
  // The inputs of the scene's own controller at the initial state (hover thrusts) for FD alone.
  auto loop = std::make_shared<ClosedLoop>(makeController(m, c->scene.controller),
                                           makeReference(m, c->scene.reference));
  loop->compute(kSampleTime, m.initial_state, c->u);
  if (!controller.empty()) c->loop = loop;
  return c;
}

void closedLoopRhs(benchmark::State& st, Case* c) {
  const Model& m = c->scene.model;
  const State& s = m.initial_state;
  Workspace ws(m);
  DynamicsStatus status = DynamicsStatus::Ok;
  for (auto _ : st) {
    if (c->loop) c->loop->compute(kSampleTime, s, c->u);
    status = computeForwardDynamics(m, s.x, s.xi, c->u, ws);
    benchmark::DoNotOptimize(status);
    benchmark::DoNotOptimize(ws.xidot.data());
    benchmark::ClobberMemory();
  }
  if (status != DynamicsStatus::Ok || !c->u.allFinite())
    st.SkipWithError(c->loop ? c->loop->failure().c_str() : "forward dynamics failed");
  st.counters["dof"] = m.nxi;
  st.counters["inputs"] = m.numInputs();
}

}  // namespace

int main(int argc, char** argv) {
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  static std::vector<std::unique_ptr<Case>> cases;
  try {
    for (const char* controller : {"", "computed_torque", "prototype"})
      for (int links = 0; links <= 3; ++links) cases.push_back(makeCase(links, controller));
  } catch (const std::exception& e) {
    std::fprintf(stderr, "rbs_bench_aerial_manipulator: %s\n", e.what());
    return 2;
  }
  for (const auto& c : cases)
    benchmark::RegisterBenchmark(c->name.c_str(), closedLoopRhs, c.get())
        ->Unit(benchmark::kMicrosecond);
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
