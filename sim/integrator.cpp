#include "sim/integrator.h"

#include <cmath>
#include <sstream>


namespace rbs {

std::string_view stepperName(StepperKind kind) {
  switch (kind) {
    case StepperKind::Euler: return "euler";
    case StepperKind::Rk4: return "rk4";
    case StepperKind::RkCashKarp54: return "rk_cash_karp54";
    case StepperKind::RkDopri5: return "rk_dopri5";
    case StepperKind::RkFehlberg78: return "rk_fehlberg78";
    case StepperKind::BulirschStoer: return "bulirsch_stoer";
    case StepperKind::Rkmk4: return "rkmk4";
  }
  return "unknown";
}

std::optional<StepperKind> stepperFromName(std::string_view name) {
  for (StepperKind k : kAllSteppers)
    if (stepperName(k) == name) return k;
  return std::nullopt;
}

std::string stepperNameList() {
  std::string list;
  for (StepperKind k : kAllSteppers) {
    if (!list.empty()) list += ", ";
    list += stepperName(k);
  }
  return list;
}

bool isAdaptive(StepperKind kind) {
  return kind == StepperKind::RkCashKarp54 || kind == StepperKind::RkDopri5 ||
         kind == StepperKind::RkFehlberg78 || kind == StepperKind::BulirschStoer;
}

bool hasDenseOutput(StepperKind kind) { return kind == StepperKind::RkDopri5; }

int stepperOrder(StepperKind kind) {
  switch (kind) {
    case StepperKind::Euler: return 1;
    case StepperKind::Rk4: return 4;
    case StepperKind::Rkmk4: return 4;
    case StepperKind::RkCashKarp54: return 5;
    case StepperKind::RkDopri5: return 5;
    case StepperKind::RkFehlberg78: return 8;
    case StepperKind::BulirschStoer: return 0;
  }
  return 0;
}

std::string_view driftPolicyName(DriftPolicy policy) {
  switch (policy) {
    case DriftPolicy::Project: return "project";
    case DriftPolicy::Stabilize: return "stabilize";
    case DriftPolicy::None: return "none";
  }
  return "unknown";
}

std::optional<DriftPolicy> driftPolicyFromName(std::string_view name) {
  for (DriftPolicy p : {DriftPolicy::Project, DriftPolicy::Stabilize, DriftPolicy::None})
    if (driftPolicyName(p) == name) return p;
  return std::nullopt;
}

void splitState(const Model& model, const VecX& z, State& out) {
  out.x = z.head(model.nx);
  out.xi = z.tail(model.nxi);
}

VecX joinState(const State& state) {
  VecX z(state.x.size() + state.xi.size());
  z << state.x, state.xi;
  return z;
}

DynamicsRhs::DynamicsRhs(const Model& model, InputFunction input, double stabilization_gain,
                         SharedRateFunction shared_rate)
    : model_(model),
      input_(std::move(input)),
      shared_rate_(std::move(shared_rate)),
      gain_(stabilization_gain),
      ws_(model),
      state_{VecX::Zero(model.nx), VecX::Zero(model.nxi)},
      u_(VecX::Zero(model.numInputs())) {}

void DynamicsRhs::operator()(const VecX& z, VecX& dzdt, double t) {
  ++evaluations_;
  splitState(model_, z, state_);
  if (input_) input_(t, state_, u_);
  dzdt.resize(z.size());
  if (shared_rate_ && !(pushes_ && pushes_->active()) && shared_rate_(state_, u_, gain_, ws_.xdot, ws_.xidot) &&
      ws_.xdot.allFinite() && ws_.xidot.allFinite()) {
    dzdt.head(model_.nx) = ws_.xdot;
    dzdt.tail(model_.nxi) = ws_.xidot;
    return;
  }
  // Trouble in the shared rates (non-finite) is left to the dynamics, which report its kind.
  const DynamicsStatus s = computeForwardDynamicsWithPushes(model_, t, state_, u_, ws_, gain_, pushes_);
  if (s != DynamicsStatus::Ok) {
    // Keep the stepper going with NaNs; the driver checks status() after the step and stops.
    if (status_ == DynamicsStatus::Ok) status_ = s;
    dzdt.setConstant(std::numeric_limits<double>::quiet_NaN());
    return;
  }
  dzdt.head(model_.nx) = ws_.xdot;
  dzdt.tail(model_.nxi) = ws_.xidot;
}

}  // namespace rbs
