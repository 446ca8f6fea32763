#include "sim/stepping.h"

#include <boost/numeric/odeint.hpp>
#include <boost/numeric/odeint/external/eigen/eigen.hpp>
#include <cmath>
#include <sstream>
#include <stdexcept>
#include <type_traits>

#include "core/dynamics/time_scale.h"
#include "core/math/time_grid.h"
#include "sim/rkmk4.h"

namespace rbs {
namespace odeint = boost::numeric::odeint;

namespace {

using Algebra = odeint::vector_space_algebra;
template <template <class...> class Stepper>
using EigenStepper = Stepper<VecX, double, VecX, double, Algebra>;
using BulirschStoer = odeint::bulirsch_stoer<VecX, double, VecX, double, Algebra>;

/// More fixed steps than this between two output times means a mistyped dt (1e-300, …): an error,
/// not a silent single step or an endless run.
constexpr double kMaxStepsPerEvent = 1e12;
/// A coordinate or velocity beyond this magnitude (SI units: 1e15 m, m/s, rad/s) is no rigid body
/// motion but an integration that has blown up, one step before it becomes infinite (the
/// Euler-angle body at its singularity jumps from 0.05 J to 3e36 J of kinetic energy in one step).
/// Such a step is refused like a non-finite one, so it never becomes a sample (plot, CSV).
constexpr double kDivergedMagnitude = 1e15;

/// euler, rk4, rkmk4: equal steps ≤ dt between consecutive events.
template <class Stepper>
class FixedStepping final : public Stepping {
 public:
  FixedStepping(Stepper stepper, const Model& m, const IntegrationOptions& o, DynamicsRhs& r)
      : Stepping(m, o, r), stepper_(std::move(stepper)) {}

  bool advance(double te, VecX& z_out) override {
    const double span = te - t_;
    if (span <= tolerance(te)) {
      z_out = z_;
      t_ = std::max(t_, te);
      return true;
    }
    // Not ⌈span/dt − 1e-9⌉: late in a run the rounding of te and t_ exceeds 1e-9·dt (from
    // t ≈ 8192 s at dt = 1 ms), which gave 6 steps for 5 ms in up to 72 % of the intervals.
    const double steps = stepCount(t_, te, opt_.dt);
    if (!(steps <= kMaxStepsPerEvent)) {
      std::ostringstream c;
      c << "dt = " << opt_.dt << " s needs " << steps << " steps to the next output time; more than "
        << kMaxStepsPerEvent << " is taken for a mistyped dt";
      return fail(t_, c.str());
    }
    const long n = std::max<long>(1, static_cast<long>(steps));
    const double h = span / static_cast<double>(n);
    const double ts = t_;
    for (long i = 1; i <= n; ++i) {
      rhs_.clearStatus();
      stepper_.do_step(system(), z_, ts + static_cast<double>(i - 1) * h, h);
      const double t = i == n ? te : ts + static_cast<double>(i) * h;
      if (i == n) z_out = z_;
      if (!accept(t, z_)) return false;
      t_ = t;
    }
    return true;
  }

 private:
  Stepper stepper_;
};

/// rk_cash_karp54, rk_fehlberg78, bulirsch_stoer: controlled steps cut at the events.
template <class Controlled>
class ControlledStepping final : public Stepping {
 public:
  ControlledStepping(Controlled c, const Model& m, const IntegrationOptions& o, DynamicsRhs& r)
      : Stepping(m, o, r), controlled_(std::move(c)), h_(o.dt) {}

  bool advance(double te, VecX& z_out) override {
    while (te - t_ > tolerance(te)) {
      const bool cut = te - t_ < h_;
      double h = cut ? te - t_ : h_;
      bool failed_once = false;
      int tries = 0;
      double t = t_;
      for (;;) {
        rhs_.clearStatus();
        t = t_;
        if (controlled_.try_step(system(), z_, t, h) == odeint::success) break;
        failed_once = true;
        if (++tries > 500 || !(h >= opt_.min_step)) return underflow(t_, h);
      }
      // h is now the controller's suggestion for the next step.
      if (!cut || failed_once) h_ = h;
      const bool at_event = te - t <= tolerance(te);
      if (at_event) {
        t = te;
        z_out = z_;
      }
      if (!accept(t, z_)) return false;
      if constexpr (!std::is_same_v<Controlled, BulirschStoer>) {
        if constexpr (requires { controlled_.reset(); }) controlled_.reset();
      }
      t_ = t;
      if (at_event) return true;
    }
    z_out = z_;
    t_ = std::max(t_, te);
    return true;
  }

 private:
  Controlled controlled_;
  double h_;
};

/// rk_dopri5 with dense output: free steps, events interpolated.
class DenseStepping final : public Stepping {
 public:
  DenseStepping(const Model& m, const IntegrationOptions& o, DynamicsRhs& r)
      : Stepping(m, o, r),
        dense_(odeint::make_dense_output(o.atol, o.rtol, EigenStepper<odeint::runge_kutta_dopri5>())),
        h_(o.dt) {}

  void restart(double t, const VecX& z) override {
    Stepping::restart(t, z);
    dense_.initialize(z_, t_, h_);
  }

  void discontinuity(double t, const VecX& z) override {
    // Drop the part of the last step beyond t: it used the old input.
    h_ = dense_.current_time_step();
    z_ = z;
    t_ = t;
    dense_.initialize(z_, t_, h_);
  }

  bool advance(double te, VecX& z_out) override {
    while (dense_.current_time() < te - tolerance(te)) {
      rhs_.clearStatus();
      try {
        dense_.do_step(system());
      } catch (const std::exception&) {  // odeint: too many failed trial steps
        return underflow(dense_.current_time(), dense_.current_time_step());
      }
      const double t = dense_.current_time();
      const double taken = t - dense_.previous_time();
      if (!(taken >= opt_.min_step)) return underflow(dense_.previous_time(), taken);
      z_ = dense_.current_state();
      if (!z_.allFinite() || rhs_.status() != DynamicsStatus::Ok) {
        VecX bad = z_;
        return accept(t, bad);
      }
      if (t >= te - tolerance(te)) {
        // The event lies in this step: interpolate before the (possible) projection.
        if (std::abs(t - te) <= tolerance(te))
          z_out = z_;
        else
          dense_.calc_state(te, z_out);
      }
      const VecX before = z_;
      if (!accept(t, z_)) return false;
      t_ = t;
      if (z_ != before) dense_.initialize(z_, t_, dense_.current_time_step());
      if (t >= te - tolerance(te)) return true;
    }
    // The event lies in a step already taken.
    if (std::abs(dense_.current_time() - te) <= tolerance(te))
      z_out = dense_.current_state();
    else
      dense_.calc_state(te, z_out);
    return true;
  }

 private:
  using Dense = decltype(odeint::make_dense_output(1.0, 1.0, EigenStepper<odeint::runge_kutta_dopri5>()));
  Dense dense_;
  double h_;
};

}  // namespace

std::string atTime(double t, const std::string& cause) {
  std::ostringstream msg;
  msg << "t = " << t << " s: " << cause;
  return msg.str();
}

DriftControl::DriftControl(const Model& model, const IntegrationOptions& options)
    : model_(model), options_(options), x_(VecX::Zero(model.nx)) {}

double DriftControl::measure(const VecX& z) { return model_.coordinateDrift(x_ = z.head(model_.nx)); }

std::string DriftControl::boundMessage(double drift) const {
  std::ostringstream c;
  c << "coordinate drift " << drift << " exceeds the bound " << options_.max_drift;
  return c.str();
}

void DriftControl::apply(double drift, VecX& z) {
  if (options_.drift != DriftPolicy::Project || !(drift > kProjectionThreshold)) return;
  x_ = z.head(model_.nx);
  model_.projectCoordinates(x_);
  z.head(model_.nx) = x_;
}

Stepping::Stepping(const Model& model, const IntegrationOptions& options, DynamicsRhs& rhs)
    : model_(model), opt_(options), rhs_(rhs), drift_(model, options) {}

void Stepping::restart(double t, const VecX& z) {
  t_ = t;
  z_ = z;
  steps_ = 0;
  max_drift_ = 0.0;
}

std::string Stepping::stiffnessHint() const {
  // A fixed step beyond the fastest joint mode (core/dynamics/time_scale.h): say which step or
  // stepper would run. rk4's and rkmk4's stability reach about 2.8 / dt, Euler's 2 / dt; 2.5 and
  // 1.8 leave a margin.
  if (isAdaptive(opt_.stepper)) return {};
  const double reach = opt_.stepper == StepperKind::Euler ? 1.8 : 2.5;
  const FastestRate fastest = fastestJointRate(model_, model_.initial_state.x);
  if (fastest.rate * opt_.dt <= reach) return {};
  std::ostringstream h;
  h.precision(3);
  h << "; the model's fastest joint mode runs at " << fastest.rate << " 1/s"
    << (fastest.joint >= 0 ? " (joint '" + model_.joints[fastest.joint].name + "')" : "") << ", beyond "
    << stepperName(opt_.stepper) << " at dt = " << opt_.dt << " s: use the error-controlled rk_dopri5, or dt below "
    << reach / fastest.rate << " s";
  return h.str();
}

bool Stepping::accept(double t, VecX& z) {
  ++steps_;
  if (rhs_.status() != DynamicsStatus::Ok) return fail(t, std::string(toString(rhs_.status())));
  if (!z.allFinite()) return fail(t, "non-finite state");
  if (Eigen::Index i = 0; !(z.cwiseAbs().maxCoeff(&i) <= kDivergedMagnitude)) {
    std::ostringstream c;
    c << "the integration diverged: " << (i < model_.nx ? "coordinate x[" : "velocity xi[")
      << (i < model_.nx ? i : i - model_.nx) << "] = " << z[i] << " exceeds " << kDivergedMagnitude
      << " in magnitude" << stiffnessHint();
    return fail(t, c.str());
  }
  const double drift = drift_.measure(z);
  if (drift > max_drift_) max_drift_ = drift;
  if (!drift_.withinBound(drift)) return fail(t, drift_.boundMessage(drift));
  drift_.apply(drift, z);
  if (on_step) on_step(t, z);
  return true;
}

bool Stepping::fail(double t, const std::string& cause) {
  t_ = t;
  message_ = atTime(t, cause);
  return false;
}

bool Stepping::underflow(double t, double h) {
  std::ostringstream c;
  c << "step size underflow (h = " << h << " s)";
  return fail(t, c.str());
}

double Stepping::tolerance(double t) { return 1e-12 * std::max(1.0, std::abs(t)); }

std::unique_ptr<Stepping> makeStepping(const Model& model, const IntegrationOptions& io, DynamicsRhs& rhs) {
  switch (io.stepper) {
    case StepperKind::Euler:
      return std::make_unique<FixedStepping<EigenStepper<odeint::euler>>>(EigenStepper<odeint::euler>(), model, io,
                                                                          rhs);
    case StepperKind::Rk4:
      return std::make_unique<FixedStepping<EigenStepper<odeint::runge_kutta4>>>(
          EigenStepper<odeint::runge_kutta4>(), model, io, rhs);
    case StepperKind::Rkmk4:
      return std::make_unique<FixedStepping<Rkmk4Stepper>>(Rkmk4Stepper(model), model, io, rhs);
    case StepperKind::RkCashKarp54: {
      auto c = odeint::make_controlled(io.atol, io.rtol, EigenStepper<odeint::runge_kutta_cash_karp54>());
      return std::make_unique<ControlledStepping<decltype(c)>>(std::move(c), model, io, rhs);
    }
    case StepperKind::RkFehlberg78: {
      auto c = odeint::make_controlled(io.atol, io.rtol, EigenStepper<odeint::runge_kutta_fehlberg78>());
      return std::make_unique<ControlledStepping<decltype(c)>>(std::move(c), model, io, rhs);
    }
    case StepperKind::BulirschStoer:
      return std::make_unique<ControlledStepping<BulirschStoer>>(BulirschStoer(io.atol, io.rtol), model, io, rhs);
    case StepperKind::RkDopri5:
      return std::make_unique<DenseStepping>(model, io, rhs);
  }
  throw std::invalid_argument("makeStepping: unknown stepper");
}

}  // namespace rbs
