#include "sim/integrator.h"

#include <boost/numeric/odeint.hpp>
#include <boost/numeric/odeint/external/eigen/eigen.hpp>
#include <cmath>
#include <sstream>

#include "sim/rkmk4.h"

namespace rbs {
namespace odeint = boost::numeric::odeint;

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

DynamicsRhs::DynamicsRhs(const Model& model, InputFunction input, double stabilization_gain)
    : model_(model),
      input_(std::move(input)),
      gain_(stabilization_gain),
      ws_(model),
      state_{VecX::Zero(model.nx), VecX::Zero(model.nxi)},
      u_(VecX::Zero(model.numInputs())) {}

void DynamicsRhs::operator()(const VecX& z, VecX& dzdt, double t) {
  ++evaluations_;
  state_.x = z.head(model_.nx);
  state_.xi = z.tail(model_.nxi);
  if (input_) input_(t, state_, u_);
  const DynamicsStatus s = computeForwardDynamics(model_, state_.x, state_.xi, u_, ws_, gain_);
  dzdt.resize(z.size());
  if (s != DynamicsStatus::Ok) {
    // Keep the stepper going with NaNs; the driver checks status() after the step and stops.
    if (status_ == DynamicsStatus::Ok) status_ = s;
    dzdt.setConstant(std::numeric_limits<double>::quiet_NaN());
    return;
  }
  dzdt.head(model_.nx) = ws_.xdot;
  dzdt.tail(model_.nxi) = ws_.xidot;
}

namespace {

using Algebra = odeint::vector_space_algebra;
template <template <class...> class Stepper>
using EigenStepper = Stepper<VecX, double, VecX, double, Algebra>;
using BulirschStoer = odeint::bulirsch_stoer<VecX, double, VecX, double, Algebra>;

struct Driver {
  const Model& model;
  const IntegrationOptions& opt;
  DynamicsRhs rhs;
  IntegrationResult result;
  VecX z;

  Driver(const Model& m, const IntegrationOptions& o, const InputFunction& input, const State& s)
      : model(m),
        opt(o),
        rhs(m, input, o.drift == DriftPolicy::Stabilize ? o.stabilization_gain : 0.0),
        z(m.nx + m.nxi) {
    z << s.x, s.xi;
  }

  auto system() {
    return [this](const VecX& zz, VecX& dz, double t) { rhs(zz, dz, t); };
  }

  /// After an accepted step: check for divergence, measure and (by policy) remove drift.
  bool accept(double t) {
    ++result.steps;
    result.t = t;
    std::ostringstream msg;
    if (rhs.status() != DynamicsStatus::Ok || !z.allFinite()) {
      msg << "t = " << t << " s: " << toString(rhs.status() != DynamicsStatus::Ok ? rhs.status() : DynamicsStatus::NonFinite);
      return fail(msg.str());
    }
    VecX x = z.head(model.nx);
    const double drift = model.coordinateDrift(x);
    result.max_drift = std::max(result.max_drift, drift);
    if (drift > opt.max_drift) {
      msg << "t = " << t << " s: coordinate drift " << drift << " exceeds the bound " << opt.max_drift;
      return fail(msg.str());
    }
    if (opt.drift == DriftPolicy::Project) {
      model.projectCoordinates(x);
      z.head(model.nx) = x;
    }
    return true;
  }

  bool fail(const std::string& message) {
    result.ok = false;
    result.message = message;
    return false;
  }

  State state() const { return State{z.head(model.nx), z.tail(model.nxi)}; }
};

template <class Stepper>
void runFixed(Driver& d, Stepper stepper, double t0, double t1, double dt_out,
              const std::function<void(double, const State&)>& observer) {
  const double dt = d.opt.dt;
  const long n_steps = std::max<long>(1, std::lround(std::ceil((t1 - t0) / dt - 1e-9)));
  const long every = dt_out > 0.0 ? std::max<long>(1, std::lround(dt_out / dt)) : 1;
  for (long k = 1; k <= n_steps; ++k) {
    const double t = t0 + (k - 1) * dt;
    const double h = std::min(dt, t1 - t);
    d.rhs.clearStatus();
    stepper.do_step(d.system(), d.z, t, h);
    if (!d.accept(t + h)) return;
    if (observer && (k % every == 0 || k == n_steps)) observer(t + h, d.state());
  }
}

template <class Controlled>
void runAdaptive(Driver& d, Controlled controlled, double t0, double t1, double dt_out,
                 const std::function<void(double, const State&)>& observer) {
  double t = t0, h = d.opt.dt;
  double next_sample = dt_out > 0.0 ? t0 + dt_out : t1;
  long sample_index = 1;
  while (t < t1 - 1e-14 * std::max(1.0, std::abs(t1))) {
    // Step exactly onto the sample times so that samples do not depend on the internal steps.
    const double target = dt_out > 0.0 ? std::min(next_sample, t1) : t1;
    h = std::min(h, target - t);
    odeint::controlled_step_result r;
    int tries = 0;
    do {
      d.rhs.clearStatus();
      r = controlled.try_step(d.system(), d.z, t, h);
      if (++tries > 500 || h < d.opt.min_step) {
        std::ostringstream msg;
        msg << "t = " << t << " s: step size underflow (h = " << h << " s)";
        d.fail(msg.str());
        return;
      }
    } while (r == odeint::fail);
    // FSAL steppers keep the last derivative; the state may be projected below, so drop it.
    // (bulirsch_stoer's reset() would also forget its order and step-size history: not FSAL, skip.)
    if constexpr (!std::is_same_v<Controlled, BulirschStoer>) {
      if constexpr (requires { controlled.reset(); }) controlled.reset();
    }
    if (!d.accept(t)) return;
    const bool at_sample = dt_out > 0.0 && std::abs(t - target) <= 1e-12 * std::max(1.0, std::abs(t));
    if (observer && (dt_out <= 0.0 || at_sample)) observer(t, d.state());
    if (at_sample) next_sample = t0 + (++sample_index) * dt_out;
  }
}

}  // namespace

IntegrationResult integrate(const Model& model, State& state, double t0, double t1,
                            const IntegrationOptions& options, const InputFunction& input,
                            double dt_out, const std::function<void(double, const State&)>& observer) {
  Driver d(model, options, input, state);
  d.result.t = t0;
  if (observer) observer(t0, state);
  switch (options.stepper) {
    case StepperKind::Euler:
      runFixed(d, EigenStepper<odeint::euler>(), t0, t1, dt_out, observer);
      break;
    case StepperKind::Rk4:
      runFixed(d, EigenStepper<odeint::runge_kutta4>(), t0, t1, dt_out, observer);
      break;
    case StepperKind::Rkmk4:
      runFixed(d, Rkmk4Stepper(model), t0, t1, dt_out, observer);
      break;
    case StepperKind::RkCashKarp54:
      runAdaptive(d, odeint::make_controlled(options.atol, options.rtol, EigenStepper<odeint::runge_kutta_cash_karp54>()),
                  t0, t1, dt_out, observer);
      break;
    case StepperKind::RkDopri5:
      runAdaptive(d, odeint::make_controlled(options.atol, options.rtol, EigenStepper<odeint::runge_kutta_dopri5>()),
                  t0, t1, dt_out, observer);
      break;
    case StepperKind::RkFehlberg78:
      runAdaptive(d, odeint::make_controlled(options.atol, options.rtol, EigenStepper<odeint::runge_kutta_fehlberg78>()),
                  t0, t1, dt_out, observer);
      break;
    case StepperKind::BulirschStoer:
      runAdaptive(d, BulirschStoer(options.atol, options.rtol),
                  t0, t1, dt_out, observer);
      break;
  }
  state = d.state();
  d.result.rhs_evaluations = d.rhs.evaluations();
  return d.result;
}

}  // namespace rbs
