#include "sim/scene_run.h"

#include <algorithm>
#include <stdexcept>

#include "sim/settings.h"

namespace rbs {

IntegratorSettings runSettings(const IntegratorSettings& scene, const RunOverrides& o) {
  IntegratorSettings s = scene;
  if (o.stepper) s.stepper = *o.stepper;
  if (o.t_end) s.t_end = *o.t_end;
  if (o.dt_out) s.dt_out = *o.dt_out;
  if (o.dt) s.dt = *o.dt;
  if (o.rtol) s.rtol = *o.rtol;
  if (o.atol) s.atol = *o.atol;
  const std::optional<StepperKind> stepper = stepperFromName(s.stepper);
  if (!stepper) throw std::invalid_argument("unknown integrator '" + s.stepper + "'; available: " + stepperNameList());
  if ((o.rtol || o.atol) && !isAdaptive(*stepper))
    throw std::invalid_argument("rtol/atol apply to adaptive steppers; '" + s.stepper + "' has a fixed step (set dt)");
  if (!(s.t_end > 0.0)) throw std::invalid_argument("t_end must be > 0, got " + std::to_string(s.t_end));
  simulationOptions(s);  // checks dt, dt_out, tolerances and the drift policy
  return s;
}

SceneRun::SceneRun(const Scene& scene, const RunOverrides& overrides)
    : model_(scene.model),
      settings_(runSettings(scene.integrator, overrides)),
      loop_(makeSceneLoop(scene, overrides.controller.value_or(scene.controller.name))) {
  SimulationOptions options = simulationOptions(settings_);
  options.max_recorded_samples = overrides.keep_samples;
  sim_ = std::make_unique<Simulator>(scene.model, options, loop_.source);  // no source: u = 0
}

void SceneRun::start() {
  sim_->reset(model_.initial_state, 0.0);
  started_ = true;
  interrupted_ = false;
}

bool SceneRun::runToEnd(const std::function<bool()>& stop) {
  Simulator& sim = *sim_;
  if (!started_) start();
  // The Simulator treats times within 1e-9·dt_out as equal (k·dt_out may miss t_end by an ulp);
  // the loop stops by the same rule, and whenever a slice makes no progress.
  const double t_end = settings_.t_end, dt_out = settings_.dt_out;
  const double t_stop = t_end - 1e-9 * dt_out;
  bool ok = true;
  for (long slice = 1; ok && sim.time() < t_stop; ++slice) {
    if (stop && stop()) {
      interrupted_ = true;
      break;
    }
    const double before = sim.time();
    const double slice_end = static_cast<double>(slice * kSamplesPerSlice) * dt_out;
    ok = sim.advanceTo(std::min(t_end, slice_end));
    if (ok && sim.time() <= before && slice_end >= t_end) break;
  }
  return ok;
}

}  // namespace rbs
