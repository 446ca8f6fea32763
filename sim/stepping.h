// Stepping: how the simulator gets from one event (output sample, hold instant, end of a slice) to
// the next with one odeint stepper, and what happens after every accepted step: the divergence
// checks and the drift policy (sim/integrator.h). The simulator (sim/simulator.cpp) only decides
// which event comes next; it never touches a stepper.
//
//  * fixed-step steppers (euler, rk4, rkmk4) cover the span between consecutive events with
//    ⌈span/dt⌉ equal steps (exactly dt when dt_out and the hold period are multiples of dt);
//  * rk_cash_karp54, rk_fehlberg78, bulirsch_stoer step exactly onto the events (the step is cut
//    at an event; the controller's own step suggestion is kept for the step after it);
//  * rk_dopri5 integrates freely and interpolates every event with its dense output (calc_state);
//    a hold boundary restarts it there (the input jumps), so the discontinuity is never stepped
//    over. Its samples, and therefore its recording, do not depend on how the run is sliced.
#pragma once

#include <functional>
#include <memory>
#include <string>

#include "sim/integrator.h"

namespace rbs {

/// "t = 0.25 s: cause", the form of every stop message.
std::string atTime(double t, const std::string& cause);

/// The drift policy of IntegrationOptions in one place: measuring the coordinate drift of
/// z = [x; ξ] (RᵀR − I, |q| − 1, c² + s² − 1), refusing drift beyond the bound, and projecting the
/// coordinates back onto their manifold under DriftPolicy::Project.
class DriftControl {
 public:
  /// Rounding adds ~1e-16 of drift per step; projecting only above 1e-14 (about a hundred steps'
  /// worth) skips the SVD on almost every step and keeps Dopri5's first-same-as-last derivative
  /// (measured: 16 % fewer right-hand-side evaluations on the T-handle at rtol 1e-8).
  static constexpr double kProjectionThreshold = 1e-14;

  DriftControl(const Model& model, const IntegrationOptions& options);

  /// model.coordinateDrift of z's coordinates.
  double measure(const VecX& z);
  /// drift ≤ options.max_drift (false for NaN).
  bool withinBound(double drift) const { return drift <= options_.max_drift; }
  /// Why a drift beyond the bound stops the run.
  std::string boundMessage(double drift) const;
  /// Under DriftPolicy::Project and a drift (measured on z) above kProjectionThreshold, projects
  /// z's coordinates onto their manifold; otherwise leaves z alone.
  void apply(double drift, VecX& z);

 private:
  const Model& model_;
  const IntegrationOptions& options_;
  VecX x_;  // scratch: the coordinates of the last measured z
};

/// Advances z = [x; ξ] from event to event with one stepper. Every accepted step is checked (the
/// right-hand side's status, finiteness, magnitude, drift bound) and then projected by policy.
class Stepping {
 public:
  Stepping(const Model& model, const IntegrationOptions& options, DynamicsRhs& rhs);
  virtual ~Stepping() = default;

  /// Starts (again) at (t, z); the step and drift counters start from zero.
  virtual void restart(double t, const VecX& z);
  /// The input jumps at t (a hold boundary, t = the last event reached); z: the state at t, with
  /// the drift policy already applied.
  virtual void discontinuity(double /*t*/, const VecX& /*z*/) {}
  /// Advances until the state at te ≥ (last event) is known; z_out = that state, before any
  /// projection. False on divergence (message()).
  virtual bool advance(double te, VecX& z_out) = 0;

  const std::string& message() const { return message_; }
  double failTime() const { return t_; }
  /// The state the integration continues from (where it stopped, after a failure).
  const VecX& committed() const { return z_; }
  long steps() const { return steps_; }
  /// The largest drift seen after a step, before projection.
  double maxDrift() const { return max_drift_; }

  /// Called after every accepted internal step with the state the integration continues from.
  std::function<void(double t, const VecX& z)> on_step;

 protected:
  auto system() {
    return [this](const VecX& zz, VecX& dz, double t) { rhs_(zz, dz, t); };
  }
  /// After an accepted step to time t: divergence checks, drift statistics, projection by policy.
  bool accept(double t, VecX& z);
  bool fail(double t, const std::string& cause);
  /// For a divergence under a fixed step: which step or stepper the model's fastest joint mode
  /// needs (empty when the step resolves it or the stepper is adaptive).
  std::string stiffnessHint() const;
  bool underflow(double t, double h);
  /// Two times closer than this are the same event.
  static double tolerance(double t);

  const Model& model_;
  const IntegrationOptions& opt_;
  DynamicsRhs& rhs_;
  DriftControl drift_;
  double t_ = 0.0;
  VecX z_;

 private:
  long steps_ = 0;
  double max_drift_ = 0.0;
  std::string message_;
};

/// The Stepping of options.stepper. `rhs` and `options` must outlive it.
std::unique_ptr<Stepping> makeStepping(const Model& model, const IntegrationOptions& options, DynamicsRhs& rhs);

}  // namespace rbs
