// The worker thread against a batch run: same samples (none dropped, none duplicated), same
// numbers (deterministic slicing at multiples of dt_out), parameters applied between steps.
#include <chrono>
#include <memory>
#include <thread>

#include <gtest/gtest.h>

#include "sim/scene_loop.h"
#include "sim/settings.h"
#include "sim/simulator.h"
#include "ui/simulation_worker.h"
#include "ui_test_support.h"

namespace rbs::ui {
namespace {

/// Waits until the worker has stopped at or after t (or failed); false after a minute.
bool waitUntil(SimulationWorker& worker, double t, SampleBatch& all) {
  const auto start = std::chrono::steady_clock::now();
  SampleBatch batch;
  for (;;) {
    worker.drainSamples(batch);
    all.time.insert(all.time.end(), batch.time.begin(), batch.time.end());
    all.values.append(batch.values);
    const WorkerSnapshot s = worker.snapshot();
    if (s.failed || (!s.running && s.time >= t - 1e-9)) {
      worker.drainSamples(batch);
      all.time.insert(all.time.end(), batch.time.begin(), batch.time.end());
      all.values.append(batch.values);
      return !s.failed;
    }
    if (std::chrono::steady_clock::now() - start > std::chrono::minutes(1)) return false;
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
  }
}

TEST(SimulationWorker, GivesEverySampleOfABatchRunWithTheSameNumbers) {
  auto scene = std::make_shared<const Scene>(loadScene(test::sceneFile("quadcopter_looping")));
  SimulationWorker worker(scene, "", "");
  worker.runUntil(1.5);
  SampleBatch all;
  ASSERT_TRUE(waitUntil(worker, 1.5, all)) << worker.snapshot().message;

  Simulator batch(scene->model, simulationOptions(scene->integrator), makeSceneLoop(*scene).source);
  batch.reset(scene->model.initial_state, 0.0);
  ASSERT_TRUE(batch.advanceTo(1.5));
  const Recording& rec = batch.recording();
  ASSERT_EQ(all.time.size(), rec.time.size());
  for (std::size_t k = 0; k < rec.time.size(); ++k) {
    ASSERT_EQ(all.time[k], rec.time[k]);
    ASSERT_TRUE(std::ranges::equal(all.values[k], rec.values[k])) << "sample " << k;  // bitwise: same steps, same slices
  }
  EXPECT_EQ(worker.snapshot().dropped_samples, 0);
}

TEST(SimulationWorker, AppliesAParameterAndReportsTheValueUsed) {
  auto scene = std::make_shared<const Scene>(loadScene(test::sceneFile("quadcopter_looping")));
  SimulationWorker worker(scene, "", "");
  const int pole = worker.parameterSpecs().find("pole");
  ASSERT_GE(pole, 0);
  worker.setParameter(pole, 5.0);
  worker.stepOnce();
  SampleBatch all;
  const double dt = worker.outputStep();
  ASSERT_TRUE(waitUntil(worker, dt, all));
  EXPECT_EQ(worker.snapshot().parameters[pole], 5.0);
  // out of range: refused with the parameter's message, the old value kept
  worker.setParameter(pole, -1.0);
  worker.stepOnce();
  ASSERT_TRUE(waitUntil(worker, 2 * dt, all));
  EXPECT_EQ(worker.snapshot().parameters[pole], 5.0);
  EXPECT_NE(worker.snapshot().parameter_error.find("pole"), std::string::npos) << worker.snapshot().parameter_error;
}

}  // namespace
}  // namespace rbs::ui
