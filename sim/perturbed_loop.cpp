#include "sim/perturbed_loop.h"

#include <cmath>
#include <limits>
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
    : ClosedLoop(std::move(controller), std::move(reference), controller_model),
      layout_(model),
      settings_(settings),
      rng_(settings.seed) {
  if (std::string e = perturbationError(settings_); !e.empty())
    throw std::invalid_argument("perturbation: " + e);
  if (settings_.estimator.enabled) {
    // The estimator's model is the controller's (the vehicle's firmware knows no better) — unless
    // the controller works on a reduced model (the force model of a propeller vehicle, rotors
    // locked): the estimator needs the plant's joints (rotor rates from the encoders), so it gets
    // the plant with the same perturbations.
    const bool same_layout = controller_model && controller_model->nx == model.nx && controller_model->nxi == model.nxi;
    estimator_model_ = same_layout ? controller_model : controllerModel(model, settings);
    if (!estimator_model_) estimator_model_ = std::make_shared<const Model>(model);
    try {
      estimator_ = std::make_unique<SimulatedEstimator>(layout_, *estimator_model_, settings_);
    } catch (const std::invalid_argument& e) {
      throw std::invalid_argument(std::string("perturbation: ") + e.what());
    }
    applied_.setZero(model.numInputs());
  }
}

void PerturbedLoop::restart() {
  history_.clear();
  if (estimator_) {
    estimator_->restart();
    applied_.setZero();
    estimator_failure_.clear();
  }
  rng_.reseed(settings_.seed);
  have_last_ = false;
}

void PerturbedLoop::evaluateForSample(double t, const State& state, VecX& u) {
  if (estimator_) sample_truth_ = state;
  ClosedLoop::evaluateForSample(t, state, u);
}

std::vector<ChannelInfo> PerturbedLoop::channels() const {
  std::vector<ChannelInfo> out = ClosedLoop::channels();
  if (estimator_)
    for (ChannelInfo& c : SimulatedEstimator::channels()) out.push_back(std::move(c));
  return out;
}

void PerturbedLoop::sample(double* out) {
  ClosedLoop::sample(out);
  if (estimator_)
    estimator_->sample(sample_truth_, out + static_cast<std::ptrdiff_t>(controller().signals().size()));
}

std::string PerturbedLoop::failure() const {
  return estimator_failure_.empty() ? ClosedLoop::failure() : estimator_failure_;
}

void PerturbedLoop::reset(double t0) {
  ClosedLoop::reset(t0);
  restart();
}

void PerturbedLoop::compute(double t, const State& state, VecX& u) {
  if (have_last_ && t < last_t_ - kSameTime) restart();  // the simulator was reset
  if (estimator_) {
    computeWithEstimator(t, state, u);
    return;
  }
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

bool PerturbedLoop::supervise(double t, const State& state) {
  return ClosedLoop::supervise(t, have_last_ ? measured_ : state);
}

void PerturbedLoop::computeWithEstimator(double t, const State& state, VecX& u) {
  if (!estimator_failure_.empty()) {  // the estimate is gone: the run stops with the message
    u.setConstant(std::numeric_limits<double>::quiet_NaN());
    return;
  }
  if (!have_last_ || t > last_t_ + kSameTime) {
    last_t_ = t;
    have_last_ = true;
    if (!estimator_->update(t, state, applied_)) {
      estimator_failure_ = estimator_->message().empty() ? "estimator: failed" : estimator_->message();
      u.setConstant(std::numeric_limits<double>::quiet_NaN());
      return;
    }
    measured_ = estimator_->estimate();
    measured_time_ = t;
    if (settings_.estimator.bias_compensation)
      controller().setExternalForceEstimate(estimator_->estimator().externalForce());
  }
  ClosedLoop::compute(t, measured_, u);
  applied_ = u;
}

}  // namespace rbs
