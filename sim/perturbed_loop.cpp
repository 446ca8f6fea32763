#include "sim/perturbed_loop.h"

#include <cmath>
#include <stdexcept>

namespace rbs {

namespace {
constexpr double kSameTime = 1e-12;  ///< [s] calls closer than this are at the same instant
constexpr double kGridSlack = 1e-9;  ///< [s] rounding slack when comparing with the frame grid
}  // namespace

PerturbedLoop::PerturbedLoop(const Model& model, std::unique_ptr<Controller> controller,
                             std::unique_ptr<Reference> reference,
                             const PerturbationSettings& settings,
                             std::shared_ptr<const Model> controller_model)
    : ClosedLoop(std::move(controller), std::move(reference), std::move(controller_model)),
      layout_(model),
      settings_(settings),
      rng_(settings.seed) {
  if (std::string e = perturbationError(settings_); !e.empty())
    throw std::invalid_argument("perturbation: " + e);
}

void PerturbedLoop::restart() {
  history_.clear();
  rng_.reseed(settings_.seed);
  have_last_ = false;
}

void PerturbedLoop::evaluateForSample(double t, const State& state, VecX& u) {
  ClosedLoop::evaluateForSample(t, state, u);
}

void PerturbedLoop::reset(double t0) {
  ClosedLoop::reset(t0);
  restart();
}

void PerturbedLoop::compute(double t, const State& state, VecX& u) {
  if (have_last_ && t < last_t_ - kSameTime) restart();  // the simulator was reset
  if (!have_last_ || t > last_t_ + kSameTime) {
    history_.push_back({t, state});
    last_t_ = t;
    have_last_ = true;
    // (5.47): the latest frame k' = ⌊t/T_S'⌋ shows the state of k'T_S' − T_D.
    const PerturbationSettings::MotionCapture& mc = settings_.motion_capture;
    double measured = t;
    if (mc.rate > 0.0) measured = std::floor(t * mc.rate + kGridSlack) / mc.rate;
    measured -= mc.latency;
    std::size_t k = 0;
    while (k + 1 < history_.size() && history_[k + 1].t <= measured + kGridSlack) ++k;
    // The measured time never decreases: older states are not needed again.
    history_.erase(history_.begin(), history_.begin() + static_cast<std::ptrdiff_t>(k));
    measured_ = history_.front().state;
    measured_time_ = history_.front().t;
    addMeasurementNoise(layout_, settings_.noise, rng_, measured_);
  }
  ClosedLoop::compute(t, measured_, u);
}

}  // namespace rbs
