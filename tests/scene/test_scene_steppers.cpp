// The scene loader (core, which cannot include sim) names the steppers itself: every stepper the
// engine offers must be accepted in a scene file and map back to the same stepper.
#include <gtest/gtest.h>

#include "sim/integrator.h"
#include "sim/settings.h"
#include "tests/scene/scene_test_util.h"

namespace rbs {
namespace {

class SceneSteppers : public test::SceneDir {};

TEST_F(SceneSteppers, EveryEngineStepperLoadsFromASceneFile) {
  for (StepperKind kind : kAllSteppers) {
    const std::string name(stepperName(kind));
    const Scene scene = load(
        "name: s\n"
        "bodies: [{name: b, mass: 1, inertia: [1, 1, 1, 0, 0, 0]}]\n"
        "joints: [{name: j, type: revolute, parent: world, child: b}]\n"
        "integrator: {stepper: " + name + "}\n");
    EXPECT_EQ(scene.integrator.stepper, name);
    EXPECT_EQ(simulationOptions(scene.integrator).integration.stepper, kind) << name;
  }
}

}  // namespace
}  // namespace rbs
