#include "sim/scene_loop.h"

#include <stdexcept>

#include "core/control/actuation.h"
#include "core/control/perturbation.h"
#include "core/control/registry.h"
#include "sim/closed_loop.h"
#include "sim/perturbed_loop.h"

namespace rbs {
namespace {

/// The ghost: what the closed loop tracks at t in the plant's coordinates (the scene's reference,
/// or a recovery's own while it recovers), sampled from the thread that runs the simulation.
class TrackedReference final : public Reference {
 public:
  explicit TrackedReference(std::shared_ptr<ClosedLoop> loop) : loop_(std::move(loop)) {}
  void sample(double t, ReferenceSample& out) const override {
    const ReferenceSample* s = loop_->referenceForSample(t);
    if (!s) throw ControlError("the reference cannot be evaluated at t = " + std::to_string(t) + " s");
    out = *s;
  }

 private:
  std::shared_ptr<ClosedLoop> loop_;
};

}  // namespace

const Model& designModel(const Scene& scene) { return scene.force_model ? *scene.force_model : scene.model; }

SceneLoop makeSceneLoop(const Scene& scene) { return makeSceneLoop(scene, scene.controller.name); }

LoopChannels findLoopChannels(const Model& model, const ChannelSet& channels) {
  LoopChannels found;
  for (const Actuator& a : model.actuators) found.inputs.push_back(channels.find("u." + a.name));
  found.drift = channels.find("constraint.drift");
  return found;
}

void LoopChannels::readInputs(std::span<const double> sample, VecX& u) const {
  for (std::size_t i = 0; i < inputs.size(); ++i)
    u[static_cast<Eigen::Index>(i)] = inputs[i] >= 0 ? sample[static_cast<std::size_t>(inputs[i])] : 0.0;
}

SceneLoop makeSceneLoop(const Scene& scene, const std::string& chosen) {
  SceneLoop loop;
  if (chosen.empty() || chosen == "none") return loop;
  const bool from_scene = chosen == scene.controller.name;
  const auto error = [&](int line, int column, const std::string& message) {
    return SceneError(scene.file.string(), line, line > 0 ? column : 0, message);
  };
  // perturbation.mass_scale, external_wrenches: unknown: the controller is made for (and keeps) a
  // copy of its design model that differs from the plant.
  const PerturbationSettings& perturbation = scene.perturbation;
  const Model& design_model = designModel(scene);
  std::shared_ptr<const Model> controller_model = controllerModel(design_model, perturbation);
  if (!controller_model) controller_model = scene.force_model;
  const ActuationSettings& actuation = scene.controller.actuation;
  std::unique_ptr<Controller> controller;
  bool in_actuation = false;
  try {
    ControllerSettings settings = scene.controller;
    if (!from_scene) {  // another controller with its defaults, behind the scene's actuation layer
      settings.name = chosen;
      settings.parameters.clear();
      settings.options.clear();
    }
    if (scene.force_model) {  // the model inside the actuation layer (option servo_reaction: Θ')
      in_actuation = actuation.line > 0;
      if (servoReactionRequested(actuation) && perturbation.mass_scale != 1.0)
        throw ControlError("option servo_reaction subtracts the true servos' and arms' inertia from the base's; it "
                           "cannot be combined with perturbation.mass_scale");
      controller_model = actuationDesignModel(scene.model, controller_model, actuation);
      in_actuation = false;
    }
    controller = makeController(controller_model ? *controller_model : scene.model, settings);
    if (scene.force_model) {
      // A vehicle with propellers commands motor currents: the force-control layer
      // (core/control/actuation.h) turns the controller's thrusts into them.
      in_actuation = actuation.line > 0;
      if (actuation.filter.empty())
        throw ControlError("the model has propellers: add controller.actuation (filter: thrust_filter or flat_filter)");
      if (scene.integrator.control_rate <= 0.0)
        throw ControlError(
            "the filters (5.29), (5.37) are discrete: set integrator.control_rate > 0 (the vehicles: 200)");
      // internal_motion reads the plant's own terms: with a model error on purpose it would hand
      // the controller the true mass and wrenches (and the estimator's bias counts them already).
      const auto internal = actuation.options.find("internal_motion");
      if (internal != actuation.options.end() && internal->second == "true" && perturbation.changesControllerModel())
        throw ControlError("option internal_motion reads the true plant; it cannot be combined with "
                           "perturbation.mass_scale or external_wrenches_known: false");
      controller = makeActuationController(scene.model, controller_model, std::move(controller), actuation);
    }
  } catch (const ControlError& e) {
    if (in_actuation) throw error(actuation.line, actuation.column, std::string("controller.actuation: ") + e.what());
    throw error(from_scene ? scene.controller.line : 0, scene.controller.column, std::string("controller: ") + e.what());
  }
  std::unique_ptr<Reference> reference, plant_reference;
  try {
    reference = makeReference(design_model, scene.reference);
    if (scene.force_model) plant_reference = makeReference(scene.model, scene.reference);  // reference.* channels
  } catch (const ControlError& e) {
    throw error(scene.reference.line, scene.reference.column, std::string("reference: ") + e.what());
  }
  std::shared_ptr<ClosedLoop> closed_loop;
  if (perturbation.perturbsMeasurement()) {
    try {
      closed_loop = std::make_shared<PerturbedLoop>(scene.model, std::move(controller), std::move(reference),
                                                    perturbation, std::move(controller_model));
    } catch (const std::invalid_argument& e) {
      throw error(perturbation.line, perturbation.column, e.what());
    }
  } else {
    closed_loop = std::make_shared<ClosedLoop>(std::move(controller), std::move(reference), std::move(controller_model));
  }
  if (plant_reference) closed_loop->setPlantReference(std::move(plant_reference), scene.model, design_model);
  if (closed_loop->controller().recovery()) {
    // Recovery retimes the scene's reference to rejoin it (core/control/recovery.h).
    try {
      // Own copies: the loop may outlive the scene.
      closed_loop->setReferenceFactory([model = std::make_shared<const Model>(design_model),
                                        settings = scene.reference](const ReferenceRetiming& retiming) {
        return makeReference(*model, settings, &retiming);
      });
    } catch (const ControlError& e) {
      throw error(scene.controller.line, scene.controller.column, std::string("controller: recovery: ") + e.what());
    }
  }
  loop.ghost_reference = std::make_unique<TrackedReference>(closed_loop);
  loop.controller = &closed_loop->controller();
  loop.controller_name = chosen;
  loop.source = std::move(closed_loop);
  return loop;
}

}  // namespace rbs
