// The simulation engine (sim/simulator.h).
//
// Time grid. Samples are taken at t0 + k·dt_out, zero-order-hold boundaries are t0 + k/rate, both
// computed by one multiplication/division from t0 (no accumulated sums). These events and the end
// of each advanceTo slice are the only times the engines must reach:
//  * fixed-step steppers (euler, rk4, rkmk4) cover the span between consecutive events with
//    ⌈span/dt⌉ equal steps (exactly dt when dt_out and the hold period are multiples of dt);
//  * rk_cash_karp54, rk_fehlberg78, bulirsch_stoer step exactly onto the events (the step is cut
//    at an event; the controller's own step suggestion is kept for the step after it);
//  * rk_dopri5 integrates freely and interpolates every event with its dense output (calc_state);
//    a hold boundary restarts it there (the input jumps), so the discontinuity is never stepped
//    over. Its samples, and therefore its recording, do not depend on how the run is sliced.
// For the other steppers a slice end that is not on the sample/hold grid adds a step boundary; the
// GUI slices at multiples of dt_out, where the recording does not depend on the slicing either.
#include "sim/simulator.h"

#include <boost/numeric/odeint.hpp>
#include <boost/numeric/odeint/external/eigen/eigen.hpp>
#include <chrono>
#include <cmath>
#include <limits>
#include <sstream>
#include <stdexcept>

#include "core/dynamics/energy.h"
#include "core/math/time_grid.h"
#include "sim/rkmk4.h"

namespace rbs {
namespace odeint = boost::numeric::odeint;

namespace {

using Algebra = odeint::vector_space_algebra;
template <template <class...> class Stepper>
using EigenStepper = Stepper<VecX, double, VecX, double, Algebra>;
using BulirschStoer = odeint::bulirsch_stoer<VecX, double, VecX, double, Algebra>;

std::string timeMessage(double t, const std::string& cause) {
  std::ostringstream msg;
  msg << "t = " << t << " s: " << cause;
  return msg.str();
}

/// Common part of the engines: right-hand side, committed state, divergence checks, projection.
/// Rounding adds ~1e-16 of coordinate drift per step; projecting only above 1e-14 (about a hundred
/// steps' worth) skips the SVD on almost every step and keeps Dopri5's first-same-as-last derivative
/// (measured: 16 % fewer right-hand-side evaluations on the T-handle at rtol 1e-8).
constexpr double kProjectionThreshold = 1e-14;
/// More fixed steps than this between two output times means a mistyped dt (1e-300, …): an error,
/// not a silent single step or an endless run.
constexpr double kMaxStepsPerEvent = 1e12;
/// A coordinate or velocity beyond this magnitude (SI units: 1e15 m, m/s, rad/s) is no rigid body
/// motion but an integration that has blown up, one step before it becomes infinite (the
/// Euler-angle body at its singularity jumps from 0.05 J to 3e36 J of kinetic energy in one step).
/// Such a step is refused like a non-finite one, so it never becomes a sample (plot, CSV).
constexpr double kDivergedMagnitude = 1e15;

class Engine {
 public:
  Engine(const Model& model, const IntegrationOptions& opt, DynamicsRhs& rhs, SimulationStats& stats)
      : model_(model), opt_(opt), rhs_(rhs), stats_(stats) {}
  virtual ~Engine() = default;

  /// Starts (again) at (t, z).
  virtual void restart(double t, const VecX& z) {
    t_ = t;
    z_ = z;
  }
  /// The input jumps at t (a hold boundary, t = the last event reached). z: the state at t.
  virtual void discontinuity(double /*t*/, const VecX& /*z*/) {}
  /// Advances until the state at te ≥ (last event) is known; z_out = that state, before any
  /// projection. False on divergence (message()).
  virtual bool advance(double te, VecX& z_out) = 0;

  const std::string& message() const { return message_; }
  double failTime() const { return t_; }
  const VecX& committed() const { return z_; }

  /// Called after every accepted internal step with the state the integration continues from.
  std::function<void(double t, const VecX& z)> on_step;

 protected:
  auto system() {
    return [this](const VecX& zz, VecX& dz, double t) { rhs_(zz, dz, t); };
  }

  /// After an accepted step to time t: divergence checks, drift statistics, projection by policy.
  bool accept(double t, VecX& z) {
    ++stats_.steps;
    if (rhs_.status() != DynamicsStatus::Ok) return fail(t, std::string(toString(rhs_.status())));
    if (!z.allFinite()) return fail(t, "non-finite state");
    if (Eigen::Index i = 0; !(z.cwiseAbs().maxCoeff(&i) <= kDivergedMagnitude)) {
      std::ostringstream c;
      c << "the integration diverged: " << (i < model_.nx ? "coordinate x[" : "velocity xi[")
        << (i < model_.nx ? i : i - model_.nx) << "] = " << z[i] << " exceeds " << kDivergedMagnitude
        << " in magnitude";
      return fail(t, c.str());
    }
    const double drift = model_.coordinateDrift(x_ = z.head(model_.nx));
    if (drift > stats_.max_drift) stats_.max_drift = drift;
    if (!(drift <= opt_.max_drift)) {
      std::ostringstream c;
      c << "coordinate drift " << drift << " exceeds the bound " << opt_.max_drift;
      return fail(t, c.str());
    }
    if (opt_.drift == DriftPolicy::Project && drift > kProjectionThreshold) {
      model_.projectCoordinates(x_);
      z.head(model_.nx) = x_;
    }
    if (on_step) on_step(t, z);
    return true;
  }

  bool fail(double t, const std::string& cause) {
    t_ = t;
    message_ = timeMessage(t, cause);
    return false;
  }

  bool underflow(double t, double h) {
    std::ostringstream c;
    c << "step size underflow (h = " << h << " s)";
    return fail(t, c.str());
  }

  static double tolerance(double t) { return 1e-12 * std::max(1.0, std::abs(t)); }

  const Model& model_;
  const IntegrationOptions& opt_;
  DynamicsRhs& rhs_;
  SimulationStats& stats_;
  double t_ = 0.0;
  VecX z_;
  VecX x_;
  std::string message_;
};

/// euler, rk4, rkmk4: equal steps ≤ dt between consecutive events.
template <class Stepper>
class FixedEngine final : public Engine {
 public:
  FixedEngine(Stepper stepper, const Model& m, const IntegrationOptions& o, DynamicsRhs& r, SimulationStats& s)
      : Engine(m, o, r, s), stepper_(std::move(stepper)) {}

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
class ControlledEngine final : public Engine {
 public:
  ControlledEngine(Controlled c, const Model& m, const IntegrationOptions& o, DynamicsRhs& r, SimulationStats& s)
      : Engine(m, o, r, s), controlled_(std::move(c)), h_(o.dt) {}

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
class DenseEngine final : public Engine {
 public:
  DenseEngine(const Model& m, const IntegrationOptions& o, DynamicsRhs& r, SimulationStats& s)
      : Engine(m, o, r, s),
        dense_(odeint::make_dense_output(o.atol, o.rtol, EigenStepper<odeint::runge_kutta_dopri5>())),
        h_(o.dt) {}

  void restart(double t, const VecX& z) override {
    Engine::restart(t, z);
    dense_.initialize(z_, t_, h_);
  }

  void discontinuity(double t, const VecX& z) override {
    // Drop the part of the last step beyond t: it used the old input.
    h_ = dense_.current_time_step();
    z_ = z;
    if (opt_.drift == DriftPolicy::Project) {
      x_ = z_.head(model_.nx);
      model_.projectCoordinates(x_);
      z_.head(model_.nx) = x_;
    }
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

/// N for a force, N m for a torque (joint efforts: by the joint's velocity coordinate); a servo's
/// reference angle (rad, m) or rate (rad/s); a propeller motor's current (A).
std::string inputUnit(const Actuator& a, const Model& model) {
  if (a.joint >= static_cast<int>(model.joints.size())) return "N m";
  const bool prismatic = a.joint >= 0 && model.joints[a.joint].type == JointType::Prismatic;
  switch (a.kind) {
    case ActuatorKind::BodyForce: return "N";
    case ActuatorKind::BodyTorque: return "N m";
    case ActuatorKind::JointServo: return prismatic ? "m" : "rad";
    case ActuatorKind::JointSpeedServo: return "rad/s";
    case ActuatorKind::JointEffort: break;
  }
  if (a.joint < 0) return "N m";
  if (model.propellerOnJoint(a.joint) >= 0 && a.gain != 1.0) return "A";  // torque k_M i (5.1)
  switch (model.joints[a.joint].type) {
    case JointType::Prismatic: return "N";
    case JointType::Free:
    case JointType::FreeQuaternion: return a.component < 3 ? "N" : "N m";
    case JointType::Planar: return a.component < 2 ? "N" : "N m";
    default: return "N m";
  }
}

}  // namespace

/// A plain input function as an input source (no channels, never fails).
class FunctionSource : public InputSource {
 public:
  explicit FunctionSource(InputFunction f) : f_(std::move(f)) {}
  void compute(double t, const State& state, VecX& u) override { f_(t, state, u); }

 private:
  InputFunction f_;
};

struct Simulator::Impl {
  const Model& model;
  SimulationOptions options;
  std::shared_ptr<InputSource> input;
  ChannelSet channels;
  Recording recording;
  SimulationStats stats;

  // Channel indices.
  int ch_energy = 0;       ///< first of kinetic, potential, total, power.input, power.dissipation, drift
  int ch_inputs = -1;      ///< first u.*
  int ch_closure = -1;
  int ch_source = -1;      ///< first channel of the input source
  VecX u_sample;           ///< scratch for the source's evaluation at a sample under a hold

  bool zoh = false;
  double hold_period = 0.0;
  VecX u_held;     ///< zero-order hold value
  VecX u_scratch;
  DynamicsRhs rhs;
  std::unique_ptr<Engine> engine;
  Workspace sample_ws;
  std::vector<Vec4> last_quaternion;  ///< per body, for a continuous quaternion sign

  double t0 = 0.0;
  double t_now = 0.0;
  State state_now;
  long next_sample = 1;
  long next_hold = 1;
  bool failed = false;
  bool started = false;
  std::string message;
  std::vector<double> values;
  VecX x_scratch;

  Impl(const Model& m, SimulationOptions o, std::shared_ptr<InputSource> in)
      : model(m),
        options(o),
        input(std::move(in)),
        zoh(o.control_rate > 0.0),
        hold_period(o.control_rate > 0.0 ? 1.0 / o.control_rate : 0.0),
        u_held(VecX::Zero(m.numInputs())),
        u_scratch(VecX::Zero(m.numInputs())),
        rhs(m, makeRhsInput(), o.integration.drift == DriftPolicy::Stabilize ? o.integration.stabilization_gain : 0.0),
        sample_ws(m) {
    const IntegrationOptions& io = options.integration;
    if (!(std::isfinite(o.dt_out) && o.dt_out > 0.0))
      throw std::invalid_argument("Simulator: dt_out must be a finite number > 0");
    if (!(std::isfinite(o.control_rate) && o.control_rate >= 0.0))
      throw std::invalid_argument("Simulator: control_rate must be a finite number >= 0");
    if (!(std::isfinite(io.dt) && io.dt > 0.0))
      throw std::invalid_argument("Simulator: dt must be a finite number > 0");
    if (isAdaptive(io.stepper) && !(io.rtol > 0.0 && io.atol > 0.0))
      throw std::invalid_argument("Simulator: rtol and atol must be > 0");
    makeEngine();
    makeChannels();
  }

  InputFunction makeRhsInput() {
    return [this](double t, const State& s, VecX& u) {
      if (zoh)
        u = u_held;
      else
        evaluateInput(t, s, u);
    };
  }

  /// u = clamp(input(t, state)) to the actuator limits; zero without an input function.
  void evaluateInput(double t, const State& s, VecX& u) const {
    u.setZero();
    if (!input) return;
    input->compute(t, s, u);
    for (int i = 0; i < model.numInputs(); ++i) {
      const Actuator& a = model.actuators[i];
      if (u[i] < a.lower) u[i] = a.lower;
      if (u[i] > a.upper) u[i] = a.upper;
    }
  }

  void makeEngine() {
    const IntegrationOptions& io = options.integration;
    switch (io.stepper) {
      case StepperKind::Euler:
        engine = std::make_unique<FixedEngine<EigenStepper<odeint::euler>>>(EigenStepper<odeint::euler>(), model, io, rhs, stats);
        break;
      case StepperKind::Rk4:
        engine = std::make_unique<FixedEngine<EigenStepper<odeint::runge_kutta4>>>(
            EigenStepper<odeint::runge_kutta4>(), model, io, rhs, stats);
        break;
      case StepperKind::Rkmk4:
        engine = std::make_unique<FixedEngine<Rkmk4Stepper>>(Rkmk4Stepper(model), model, io, rhs, stats);
        break;
      case StepperKind::RkCashKarp54: {
        auto c = odeint::make_controlled(io.atol, io.rtol, EigenStepper<odeint::runge_kutta_cash_karp54>());
        engine = std::make_unique<ControlledEngine<decltype(c)>>(std::move(c), model, io, rhs, stats);
        break;
      }
      case StepperKind::RkFehlberg78: {
        auto c = odeint::make_controlled(io.atol, io.rtol, EigenStepper<odeint::runge_kutta_fehlberg78>());
        engine = std::make_unique<ControlledEngine<decltype(c)>>(std::move(c), model, io, rhs, stats);
        break;
      }
      case StepperKind::BulirschStoer:
        engine = std::make_unique<ControlledEngine<BulirschStoer>>(BulirschStoer(io.atol, io.rtol), model, io, rhs, stats);
        break;
      case StepperKind::RkDopri5:
        engine = std::make_unique<DenseEngine>(model, io, rhs, stats);
        break;
    }
  }

  void makeChannels() {
    for (const Body& b : model.bodies) {
      const std::string p = "body." + b.name + ".";
      channels.add(p + "px", "m", "position x of body " + b.name + " (world)");
      channels.add(p + "py", "m", "position y of body " + b.name + " (world)");
      channels.add(p + "pz", "m", "position z of body " + b.name + " (world)");
      channels.add(p + "qw", "1", "attitude quaternion w of body " + b.name + " (world)");
      channels.add(p + "qx", "1", "attitude quaternion x of body " + b.name + " (world)");
      channels.add(p + "qy", "1", "attitude quaternion y of body " + b.name + " (world)");
      channels.add(p + "qz", "1", "attitude quaternion z of body " + b.name + " (world)");
    }
    ch_energy = channels.add("energy.kinetic", "J", "kinetic energy T");
    channels.add("energy.potential", "J", "potential energy V_G + V_K (gravity and springs)");
    channels.add("energy.total", "J", "total energy W = T + V_G + V_K");
    channels.add("power.input", "W", "input power of actuators and external wrenches, xi^T f_E");
    channels.add("power.dissipation", "W", "power dissipated by dampers, xi^T f_D");
    channels.add("constraint.drift", "1", "largest coordinate drift (|R^T R - I|, |q^T q - 1|, |c^2 + s^2 - 1|) before projection");
    for (const Actuator& a : model.actuators) {
      const int i = channels.add("u." + a.name, inputUnit(a, model), "input " + a.name + " (the value used, after saturation)");
      if (ch_inputs < 0) ch_inputs = i;
    }
    if (!model.loop_closures.empty())
      ch_closure = channels.add("constraint.closure", "m", "norm of the loop-closure error psi");
    u_sample.setZero(model.numInputs());
    if (input) {
      for (const ChannelInfo& c : input->channels()) {
        const int i = channels.add(c.name, c.unit, c.description);
        if (ch_source < 0) ch_source = i;
      }
    }
    recording.channels = channels;
    values.resize(channels.size());
    last_quaternion.assign(model.numBodies(), Vec4::Zero());
  }

  void reset(const State& s, double t_start) {
    // Validate sizes first (a wrong-sized state is a programming error): nothing changes then.
    if (s.x.size() != model.nx || s.xi.size() != model.nxi)
      throw std::invalid_argument("Simulator::reset: state has the wrong size");
    t0 = t_start;
    t_now = t_start;
    if (input) input->reset(t_start);
    state_now = s;
    next_sample = 1;
    next_hold = 1;
    failed = false;
    message.clear();
    stats = SimulationStats{};
    recording.time.clear();
    recording.values.clear();
    recording.dropped = 0;
    last_quaternion.assign(model.numBodies(), Vec4::Zero());
    started = true;
    rhs.clearStatus();
    VecX z(model.nx + model.nxi);
    z << s.x, s.xi;
    if (zoh) {
      if (z.allFinite()) evaluateInput(t0, s, u_held); else u_held.setZero();
    }
    engine->restart(t0, z);
    const DynamicsStatus status = record(t0, z);
    if (!z.allFinite()) {
      fail(timeMessage(t0, "non-finite state"));
    } else if (status != DynamicsStatus::Ok) {
      fail(withSourceFailure(timeMessage(t0, std::string(toString(status)))));
    } else if (const double d = model.coordinateDrift(s.x); !(d <= options.integration.max_drift)) {
      std::ostringstream c;
      c << "coordinate drift " << d << " exceeds the bound " << options.integration.max_drift;
      fail(timeMessage(t0, c.str()));
    }
  }

  void fail(std::string m) {
    failed = true;
    message = std::move(m);
  }

  /// A stop caused by the input source (NaN inputs) names the source's reason.
  std::string withSourceFailure(const std::string& m) const {
    const std::string cause = input ? input->failure() : std::string();
    return cause.empty() ? m : m + " (" + cause + ")";
  }

  /// Records one sample at time t from z (= [x; ξ]); returns the dynamics status there.
  DynamicsStatus record(double t, const VecX& z, double drift_before_projection = -1.0) {
    state_now.x = z.head(model.nx);
    state_now.xi = z.tail(model.nxi);
    VecX& u = u_scratch;
    if (zoh)
      u = u_held;
    else if (z.allFinite())
      evaluateInput(t, state_now, u);
    else
      u.setZero();
    DynamicsStatus status = DynamicsStatus::NonFinite;
    if (!z.allFinite()) {
      std::fill(values.begin(), values.end(), std::numeric_limits<double>::quiet_NaN());
    } else {
      status = computeForwardDynamics(model, state_now.x, state_now.xi, u, sample_ws, 0.0);
      int c = 0;
      for (int b = 0; b < model.numBodies(); ++b) {
        const Pose& G = sample_ws.pose[b];
        Vec4 q = rotationToQuaternion(G.R);
        // Keep the sign continuous from sample to sample (q and −q are the same attitude);
        // the first sample has qw ≥ 0.
        const Vec4& prev = last_quaternion[b];
        if (prev.isZero() ? q(0) < 0.0 : q.dot(prev) < 0.0) q = -q;
        last_quaternion[b] = q;
        values[c++] = G.r.x();
        values[c++] = G.r.y();
        values[c++] = G.r.z();
        for (int i = 0; i < 4; ++i) values[c++] = q(i);
      }
      const Energies e = computeEnergies(model, state_now.x, state_now.xi, sample_ws);
      values[ch_energy + 0] = e.kinetic;
      values[ch_energy + 1] = e.potential();
      values[ch_energy + 2] = e.total();
      values[ch_energy + 3] = e.input_power;
      values[ch_energy + 4] = e.dissipation;
      values[ch_energy + 5] =
          drift_before_projection >= 0.0 ? drift_before_projection : model.coordinateDrift(state_now.x);
      for (int i = 0; i < model.numInputs(); ++i) values[ch_inputs + i] = u[i];
      if (ch_closure >= 0) {
        if (status != DynamicsStatus::Ok) {  // the closure terms come after the factorization
          computeBodyJacobians(model, sample_ws);
          computeLoopClosures(model, sample_ws);
        }
        values[ch_closure] = sample_ws.constraint_error.norm();
      }
      if (ch_source >= 0) {
        // Under a hold the source last ran at the hold time: evaluate it at this sample.
        if (zoh) input->evaluateForSample(t, state_now, u_sample);
        input->sample(values.data() + ch_source);
      }
    }
    recording.time.push_back(t);
    recording.values.push_back(values);
    if (const std::size_t cap = options.max_recorded_samples; cap > 0 && recording.time.size() > cap) {
      // Drop a quarter at once, so that erasing at the front costs O(1) per sample on average.
      const auto drop = static_cast<std::ptrdiff_t>(recording.time.size() - cap + cap / 4);
      recording.time.erase(recording.time.begin(), recording.time.begin() + drop);
      recording.values.erase(recording.values.begin(), recording.values.begin() + drop);
      recording.dropped += static_cast<std::size_t>(drop);
    }
    return status;
  }

  bool advanceTo(double t_end, const std::function<void(double, const std::vector<double>&)>& on_sample) {
    if (!started) throw std::logic_error("Simulator::advanceTo before reset");
    if (failed) return false;
    if (std::isnan(t_end)) throw std::invalid_argument("Simulator::advanceTo: t_end is NaN");
    const auto wall_start = std::chrono::steady_clock::now();
    const double dt_out = options.dt_out;
    // Events closer than this are one event: k·dt_out and j/rate may differ by an ulp, and an ulp
    // grows with t (beyond t ≈ 9 h it exceeds 1e-9 of a 5 ms period). Split, a sample an ulp before
    // its hold instant recorded the previous held input, one an ulp after it ran the controller
    // a second time.
    const double merge_base = 1e-9 * (zoh ? std::min(dt_out, hold_period) : dt_out);
    VecX z_event;
    for (;;) {
      // The next events lie within dt_out of t_now.
      const double merge = std::max(merge_base, gridRounding(std::abs(t_now) + dt_out));
      if (failed || !(t_end > t_now + merge)) break;
      const double ts = t0 + static_cast<double>(next_sample) * dt_out;
      const double th = zoh ? t0 + static_cast<double>(next_hold) / options.control_rate
                            : std::numeric_limits<double>::infinity();
      double te = std::min(ts, th);
      bool is_sample = false, is_hold = false;
      if (t_end < te - merge) {
        te = t_end;
      } else {
        is_sample = ts <= te + merge;
        is_hold = th <= te + merge;
      }
      if (!engine->advance(te, z_event)) {
        fail(withSourceFailure(engine->message()));
        t_now = engine->failTime();
        const VecX& zc = engine->committed();
        state_now.x = zc.head(model.nx);
        state_now.xi = zc.tail(model.nxi);
        break;
      }
      t_now = te;
      // The drift channel reports the drift before projection; everything else (and state())
      // uses the state the integration continues from.
      const double drift = model.coordinateDrift(x_scratch = z_event.head(model.nx));
      if (options.integration.drift == DriftPolicy::Project && drift > kProjectionThreshold) {
        model.projectCoordinates(x_scratch);
        z_event.head(model.nx) = x_scratch;
      }
      if (is_hold) {
        state_now.x = z_event.head(model.nx);
        state_now.xi = z_event.tail(model.nxi);
        evaluateInput(te, state_now, u_held);
        engine->discontinuity(te, z_event);
        ++next_hold;
      }
      if (is_sample) {
        record(ts, z_event, drift);
        ++next_sample;
        if (on_sample) on_sample(ts, recording.values.back());
      } else {
        state_now.x = z_event.head(model.nx);
        state_now.xi = z_event.tail(model.nxi);
      }
    }
    stats.rhs_evaluations = rhs.evaluations();
    stats.wall_time += std::chrono::duration<double>(std::chrono::steady_clock::now() - wall_start).count();
    return !failed;
  }
};

Simulator::Simulator(const Model& model, SimulationOptions options, InputFunction input)
    : impl_(std::make_shared<Impl>(model, std::move(options),
                                   input ? std::make_shared<FunctionSource>(std::move(input)) : nullptr)) {}

Simulator::Simulator(const Model& model, SimulationOptions options, std::shared_ptr<InputSource> source)
    : impl_(std::make_shared<Impl>(model, std::move(options), std::move(source))) {}

void Simulator::reset(const State& state, double t0) {
  impl_->reset(state, t0);
  if (on_sample && !impl_->recording.time.empty())
    on_sample(impl_->recording.time.back(), impl_->recording.values.back());
}

bool Simulator::advanceTo(double t_end) {
  if (on_step) {
    impl_->engine->on_step = [this](double t, const VecX& z) {
      on_step(t, State{z.head(impl_->model.nx), z.tail(impl_->model.nxi)});
    };
  } else {
    impl_->engine->on_step = nullptr;
  }
  return impl_->advanceTo(t_end, on_sample);
}

double Simulator::time() const { return impl_->t_now; }
const State& Simulator::state() const { return impl_->state_now; }
bool Simulator::failed() const { return impl_->failed; }
const std::string& Simulator::message() const { return impl_->message; }
const SimulationStats& Simulator::stats() const { return impl_->stats; }
const ChannelSet& Simulator::channels() const { return impl_->channels; }
const Recording& Simulator::recording() const { return impl_->recording; }

IntegrationResult integrate(const Model& model, State& state, double t0, double t1,
                            const IntegrationOptions& options, const InputFunction& input,
                            double dt_out, const std::function<void(double, const State&)>& observer) {
  const bool per_step = !(dt_out > 0.0);
  SimulationOptions sim_options;
  sim_options.integration = options;
  // Per-step observation needs no sample grid: one sample interval over the whole run.
  sim_options.dt_out = per_step ? std::max(t1 - t0, std::numeric_limits<double>::min()) : dt_out;
  Simulator sim(model, sim_options, input);
  if (observer) {
    // During on_sample, state() is the state at the sample time.
    if (per_step) {
      sim.on_step = observer;
    } else {
      sim.on_sample = [&](double t, const std::vector<double>&) { observer(t, sim.state()); };
    }
  }
  sim.reset(state, t0);
  if (observer && per_step) observer(t0, state);
  sim.advanceTo(t1);
  state = sim.state();
  const SimulationStats& st = sim.stats();
  return IntegrationResult{!sim.failed(), sim.time(), sim.message(), st.steps, st.rhs_evaluations, st.max_drift};
}

}  // namespace rbs
