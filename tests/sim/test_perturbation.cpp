// Perturbations of the closed loop (core/control/perturbation.h, sim/perturbed_loop.h): a scaled
// controller model, white measurement noise with the requested σ (deterministic per seed), and
// motion-capture sampling with latency (5.47); with nothing perturbed the recording is unchanged.
#include <gtest/gtest.h>

#include <cmath>
#include <numbers>
#include <vector>

#include "core/control/perturbation.h"
#include "core/control/registry.h"
#include "core/dynamics/dynamics.h"
#include "core/dynamics/kinematics.h"
#include "core/dynamics/workspace.h"
#include "core/model/model_builder.h"
#include "tests/support/example_models.h"
#include "tests/support/reference_fixtures.h"
#include "sim/closed_loop.h"
#include "sim/perturbed_loop.h"
#include "sim/simulator.h"
#include "tests/sim/sim_test_models.h"
#include "tests/support/test_models.h"

namespace rbs {
namespace {

Model planarBody() { return test::actuatedPlanarBody(); }

using test::SpinningReference;

/// Holds the model's initial state.
class HoldReference : public Reference {
 public:
  explicit HoldReference(const Model& m) : x_(m.initial_state.x), n_(m.nxi) {}
  void sample(double, ReferenceSample& out) const override {
    out.x = x_;
    out.xi = VecX::Zero(n_);
    out.xidot = VecX::Zero(n_);
  }

 private:
  VecX x_;
  int n_;
};

/// u = 0; records every (t, state) it is given.
class RecordingController : public Controller {
 public:
  struct Call {
    double t;
    State state;
  };
  explicit RecordingController(std::vector<Call>* calls) : calls_(calls) {}
  std::string_view name() const override { return "recording"; }
  bool compute(double t, const State& state, const ReferenceSample&, VecX& u) override {
    calls_->push_back({t, state});
    u.setZero();
    return true;
  }

 private:
  std::vector<Call>* calls_;
};

SimulationOptions options(double control_rate, double dt_out = 0.01) {
  SimulationOptions o;
  o.integration.stepper = StepperKind::Rk4;
  o.integration.dt = 1e-3;
  o.dt_out = dt_out;
  o.control_rate = control_rate;
  return o;
}

Recording runPlanar(std::shared_ptr<InputSource> source, double control_rate) {
  static const Model model = planarBody();
  Simulator sim(model, options(control_rate), std::move(source));
  State s0 = model.initial_state;
  s0.x[1] = 0.5;
  sim.reset(s0);
  EXPECT_TRUE(sim.advanceTo(3.0)) << sim.message();
  return sim.recording();
}

std::unique_ptr<Controller> particleController(const Model& m) {
  return makeController(m, {"prototype_particle", {{"mbar", 1}, {"dbar", 4}, {"kbar", 4}}, {}});
}

TEST(Perturbation, NothingPerturbedGivesTheSameRecordingBitForBit) {
  const Model model = planarBody();
  for (double rate : {0.0, 100.0}) {
    const Recording plain =
        runPlanar(std::make_shared<ClosedLoop>(particleController(model),
                                               std::make_unique<SpinningReference>()),
                  rate);
    // mass_scale 1: a scaled copy owned by the loop.
    auto scaled = std::make_shared<const Model>(scaledModel(model, 1.0));
    const Recording owned =
        runPlanar(std::make_shared<ClosedLoop>(particleController(*scaled),
                                               std::make_unique<SpinningReference>(), scaled),
                  rate);
    EXPECT_EQ(plain.time, owned.time);
    EXPECT_EQ(plain.values, owned.values);
    if (rate > 0.0) {  // a PerturbedLoop with all perturbations zero (needs the hold)
      const Recording perturbed =
          runPlanar(std::make_shared<PerturbedLoop>(model, particleController(model),
                                                    std::make_unique<SpinningReference>(),
                                                    PerturbationSettings{}),
                    rate);
      EXPECT_EQ(plain.time, perturbed.time);
      EXPECT_EQ(plain.values, perturbed.values);
    }
  }
}

TEST(Perturbation, ScaledModelScalesTheMassMatrixExactly) {
  for (JointType root : {JointType::Free, JointType::FreeQuaternion, JointType::Planar}) {
    Model m = test::randomTreeWith(root, true, 7);
    for (Joint& j : m.joints)  // geared rotors on the revolute joints below the root
      if (j.type == JointType::Revolute && j.parent >= 0) j.armature = 0.05, j.rotor_coupling = 0.002;
    const double k = 1.1;
    const Model s = scaledModel(m, k);
    ASSERT_EQ(s.nx, m.nx);
    ASSERT_EQ(s.numInputs(), m.numInputs());
    test::Rng rng(3);
    for (int trial = 0; trial < 5; ++trial) {
      const State st = test::randomState(m, rng);
      Workspace wm(m), ws(s);
      computeKinematics(m, st.x, st.xi, wm);
      computeBodyJacobians(m, wm);
      computeMassMatrix(m, wm);
      computeKinematics(s, st.x, st.xi, ws);
      computeBodyJacobians(s, ws);
      computeMassMatrix(s, ws);
      const MatX expected = k * wm.mass_matrix;
      EXPECT_LE((ws.mass_matrix - expected).norm(), 1e-13 * expected.norm()) << jointTypeName(root);
    }
    for (int b = 0; b < m.numBodies(); ++b) {
      EXPECT_EQ(s.bodies[b].mass, k * m.bodies[b].mass);
      EXPECT_EQ(s.bodies[b].com, m.bodies[b].com);
    }
  }
}

TEST(Perturbation, TheControllerSeesTheStateOfTheLatestMotionCaptureFrameMinusTheLatency) {
  const Model model = simtest::tumblingBody();
  const double control_rate = 200.0;
  // The true states at the hold instants (u = 0: the same motion with and without perturbation).
  std::vector<RecordingController::Call> truth, seen;
  {
    Simulator sim(model, options(control_rate),
                  std::make_shared<ClosedLoop>(std::make_unique<RecordingController>(&truth),
                                               std::make_unique<HoldReference>(model)));
    sim.reset(model.initial_state);
    ASSERT_TRUE(sim.advanceTo(1.0));
  }
  auto trueAt = [&](double t) -> const State& {
    for (const auto& c : truth)
      if (std::abs(c.t - t) < 1e-9) return c.state;
    ADD_FAILURE() << "no true state at " << t;
    return truth.front().state;
  };
  for (double mocap_rate : {0.0, 10.0}) {
    seen.clear();
    PerturbationSettings p;
    p.motion_capture.rate = mocap_rate;
    p.motion_capture.latency = 0.034;
    auto loop = std::make_shared<PerturbedLoop>(model, std::make_unique<RecordingController>(&seen),
                                                std::make_unique<HoldReference>(model), p);
    Simulator sim(model, options(control_rate), loop);
    sim.reset(model.initial_state);
    ASSERT_TRUE(sim.advanceTo(1.0));
    ASSERT_GT(seen.size(), 150u);
    for (const auto& c : seen) {
      const double frame =
          mocap_rate > 0.0 ? std::floor(c.t * mocap_rate + 1e-9) / mocap_rate : c.t;
      // The latest hold instant at or before frame − latency (quantized to the control period).
      const double measured =
          std::max(0.0, std::floor((frame - 0.034) * control_rate + 1e-9) / control_rate);
      EXPECT_EQ(c.state.x, trueAt(measured).x) << "t = " << c.t << ", rate " << mocap_rate;
      EXPECT_EQ(c.state.xi, trueAt(measured).xi) << "t = " << c.t;
    }
    // At 1 s: frame 1.0 (or t = 1.0), measured 0.966 → the state of 0.965 s.
    EXPECT_NEAR(loop->measuredTime(), 0.965, 1e-9);
  }
}

TEST(Perturbation, NoiseHasTheRequestedStandardDeviationAndIsDeterministic) {
  const Model model = simtest::tumblingBody();
  PerturbationSettings::Noise noise;
  noise.position = 0.001;
  noise.attitude = 0.5 * std::numbers::pi / 180.0;
  noise.velocity = 0.02;
  noise.rate = 0.05;
  const State s0 = model.initial_state;
  const Mat3 R0 = Eigen::Map<const Mat3>(s0.x.data() + 3);
  NoiseGenerator rng(42);
  const int n = 20000;
  Eigen::Matrix<double, 12, 1> sum = Eigen::Matrix<double, 12, 1>::Zero(), sq = sum;
  for (int i = 0; i < n; ++i) {
    State s = s0;
    addMeasurementNoise(model, noise, rng, s);
    Eigen::Matrix<double, 12, 1> d;
    d.segment<3>(0) = s.x.head<3>() - s0.x.head<3>();
    d.segment<3>(3) = logSO3(R0.transpose() * Eigen::Map<const Mat3>(s.x.data() + 3));
    d.segment<6>(6) = s.xi - s0.xi;
    sum += d;
    sq += d.cwiseProduct(d);
  }
  const double sigma[4] = {noise.position, noise.attitude, noise.velocity, noise.rate};
  for (int i = 0; i < 12; ++i) {
    const double mean = sum[i] / n, sd = std::sqrt(sq[i] / n - mean * mean);
    const double expected = sigma[i / 3];
    EXPECT_NEAR(sd, expected, 0.03 * expected) << "component " << i;  // 1/√(2n) ≈ 0.5 %
    EXPECT_NEAR(mean, 0.0, 4.0 * expected / std::sqrt(n)) << "component " << i;
  }
  // The same seed gives the same draws, another seed others.
  State a = s0, b = s0, c = s0;
  NoiseGenerator ga(5), gb(5), gc(6);
  addMeasurementNoise(model, noise, ga, a);
  addMeasurementNoise(model, noise, gb, b);
  addMeasurementNoise(model, noise, gc, c);
  EXPECT_EQ(a.x, b.x);
  EXPECT_EQ(a.xi, b.xi);
  EXPECT_NE(a.x, c.x);
  // Zero σ draws nothing and changes nothing.
  State z = s0;
  addMeasurementNoise(model, {}, ga, z);
  EXPECT_EQ(z.x, s0.x);
  EXPECT_EQ(z.xi, s0.xi);
}

TEST(Perturbation, NoisyLoopIsDeterministicAndRepeatsAfterAReset) {
  const Model model = planarBody();
  PerturbationSettings p;
  p.noise.position = 0.01;
  p.noise.attitude = 0.02;
  p.noise.velocity = 0.05;
  p.noise.rate = 0.05;
  p.motion_capture = {10.0, 0.034};
  p.seed = 9;
  auto make = [&](std::uint64_t seed) {
    PerturbationSettings q = p;
    q.seed = seed;
    return std::make_shared<PerturbedLoop>(model, particleController(model),
                                           std::make_unique<SpinningReference>(), q);
  };
  const Recording a = runPlanar(make(9), 100.0);
  const Recording b = runPlanar(make(9), 100.0);
  const Recording c = runPlanar(make(10), 100.0);
  EXPECT_EQ(a.values, b.values);
  EXPECT_NE(a.values, c.values);
  // One loop, two runs (the simulator is reset in between): the same recording.
  auto loop = make(9);
  Simulator sim(model, options(100.0), loop);
  State s0 = model.initial_state;
  s0.x[1] = 0.5;
  sim.reset(s0);
  ASSERT_TRUE(sim.advanceTo(3.0));
  sim.reset(s0);
  ASSERT_TRUE(sim.advanceTo(3.0));
  EXPECT_EQ(sim.recording().values, a.values);
}

TEST(Perturbation, InvalidSettingsAreRejected) {
  PerturbationSettings p;
  EXPECT_EQ(perturbationError(p), "");
  p.mass_scale = 0.0;
  EXPECT_NE(perturbationError(p).find("mass_scale"), std::string::npos);
  p.mass_scale = 1.0;
  p.motion_capture.latency = -0.01;
  EXPECT_NE(perturbationError(p).find("motion_capture.latency"), std::string::npos);
  const Model model = planarBody();
  EXPECT_THROW(
      PerturbedLoop(model, particleController(model), std::make_unique<SpinningReference>(), p),
      std::invalid_argument);
}

}  // namespace
}  // namespace rbs
