#include "core/control/actuation.h"

#include <algorithm>
#include <charconv>
#include <cmath>

#include <Eigen/LU>

#include "core/control/baseline_support.h"
#include "core/control/registry.h"
#include "core/dynamics/kinematics.h"
#include "core/model/model_builder.h"

namespace rbs {
namespace {

/// Below this rate the flat filter's map ϖ̇ = diag(2ϖ)⁻¹ … (5.36) is singular; a rotor commanded
/// to stop is held at it.
constexpr double kMinFilterSpeed = 1.0;  // [rad/s]

double axisInertia(const Model& model, const Joint& joint, const Propeller& p) {
  return p.spin_axis.dot(model.bodies[joint.child].inertia_origin * p.spin_axis) + joint.armature;
}

}  // namespace

JointSubsetMap::JointSubsetMap(const Model& from, const Model& to) : to_nx_(to.nx), to_nxi_(to.nxi) {
  for (const Joint& j : to.joints) {
    if (j.nx == 0 && j.nxi == 0) continue;
    const int k = from.jointIndex(j.name);
    if (k < 0 || from.joints[k].type != j.type)
      throw ControlError("joint '" + j.name + "' of the force model has no counterpart of the same type in the plant");
    const Joint& f = from.joints[k];
    segments_.push_back({f.x_offset, j.x_offset, j.nx, f.xi_offset, j.xi_offset, j.nxi});
  }
}

void JointSubsetMap::apply(const State& from, State& to) const {
  to.x.resize(to_nx_);
  to.xi.resize(to_nxi_);
  for (const Segment& s : segments_) {
    to.x.segment(s.to_x, s.nx) = from.x.segment(s.from_x, s.nx);
    to.xi.segment(s.to_xi, s.nxi) = from.xi.segment(s.from_xi, s.nxi);
  }
}

FlatForceFilter::FlatForceFilter(const Mat4& static_map, const Mat4& dynamic_map, const Vec4& min_speed,
                                 const Vec4& max_speed)
    : static_map_(static_map), dynamic_map_(dynamic_map), max_speed_(max_speed) {
  Eigen::FullPivLU<Mat4> lu(static_map_);
  if (!lu.isInvertible()) throw ControlError("flat_filter: the rotors cannot produce F_z, τ_x, τ_y, τ_z independently");
  static_map_inverse_ = lu.inverse();
  min_speed_ = min_speed.cwiseMax(kMinFilterSpeed);
}

void FlatForceFilter::setGains(double thrust_cutoff, double tilt_cutoff, double heading_cutoff, double p4,
                               bool rotor_inertia) {
  rotor_inertia_ = rotor_inertia;
  const double wf = thrust_cutoff, wt = tilt_cutoff, wh = heading_cutoff;
  k0_ << wf * wf, wt * wt, wt * wt, wh * wh;
  k1_ << std::sqrt(2.0) * wf, std::sqrt(2.0) * wt, std::sqrt(2.0) * wt, std::sqrt(2.0) * wh;
  if (rotor_inertia && p4 > 0.0) {
    // τ_z = s + p₄ ṡ at hover (s: static part): s̈ + (k₁ + k₀p₄) ṡ + k₀ s = k₀ τ_zD; k₁ = 1/p₄ cancels
    // the zero at −1/p₄ and leaves the pole −k₀p₄ = −ω_H.
    k1_(3) = 1.0 / p4;
    k0_(3) = wh / p4;
  }
}

void FlatForceFilter::reset(const Vec4& speed) {
  speed_ = speed.cwiseMax(min_speed_).cwiseMin(max_speed_);
  speed_rate_.setZero();
  force_ = static_map_ * speed_.array().square().matrix();
  h_ = k1_.cwiseProduct(force_);  // at rest ḟ_stat = 0, so ĥ = K_1 f_stat
  have_previous_f_ = false;
}

bool FlatForceFilter::step(const Vec4& f_desired, double dt) {
  // Phase lead (own addition, not in the thesis): at low frequency each channel lags f_D by
  // K_1/K_0; adding lead·(K_1/K_0) ḟ_D (backward difference) cancels that share.
  Vec4 f_input = f_desired;
  if (have_previous_f_ && lead_ > 0.0)
    f_input += lead_ * (k1_.array() / k0_.array() * (f_desired - previous_f_).array() / dt).matrix();
  previous_f_ = f_desired;
  have_previous_f_ = true;
  // (5.36) by forward Euler (5.37).
  const Vec4 w = speed_;
  const Vec4 f_static = static_map_ * w.array().square().matrix();
  Vec4 w_dot = (static_map_inverse_ * (h_ - k1_.cwiseProduct(f_static))).array() / (2.0 * w.array());
  // What the rotors produce while following ϖ̂ includes their reaction f_dyn; the static filter
  // (5.42) feeds back f_stat only.
  force_ = f_static + dynamic_map_ * w_dot;
  h_ += dt * k0_.cwiseProduct(f_input - (rotor_inertia_ ? force_ : f_static));
  const Vec4 next = w + dt * w_dot;
  speed_ = next.cwiseMax(min_speed_).cwiseMin(max_speed_);
  if (speed_ != next) {
    // Anti-windup, in rotor space where the limits are: the rate of ϖ̂² that ĥ now implies,
    // q̇ = B⁻¹(ĥ − K_1 f_stat) (from ĥ = ḟ_stat + K_1 f_stat), may not push a rotor at a limit
    // further into it; the rest of ĥ, the input integrated over this step, stays. (Resetting all of
    // ĥ to the motion the limits allowed threw that away: a rotor touching its limit by round-off
    // then held the filter in its corner while f_D asked for the opposite one, and a quadcopter
    // pushed into saturation tumbled with its rotors pinned; docs/CONTROL.md "Recovery".)
    const Vec4 f_next = static_map_ * speed_.array().square().matrix();
    Vec4 q_dot = static_map_inverse_ * (h_ - k1_.cwiseProduct(f_next));
    for (int i = 0; i < 4; ++i) {
      const bool at_min = speed_(i) <= min_speed_(i), at_max = speed_(i) >= max_speed_(i);
      if ((at_min && q_dot(i) < 0.0) || (at_max && q_dot(i) > 0.0)) q_dot(i) = 0.0;
    }
    h_ = static_map_ * q_dot + k1_.cwiseProduct(f_next);
    w_dot = (speed_ - w) / dt;
  }
  speed_rate_ = w_dot;
  return h_.allFinite() && speed_.allFinite();
}

void JointSubsetMap::applyVelocityVector(const VecX& from, VecX& to) const {
  to.setZero(to_nxi_);
  for (const Segment& s : segments_) to.segment(s.to_xi, s.nxi) = from.segment(s.from_xi, s.nxi);
}

ActuationController::ActuationController(const Model& plant, std::shared_ptr<const Model> force_model_ptr,
                                         std::unique_ptr<Controller> inner, Filter filter, bool rotor_inertia,
                                         Drive drive, bool computation_delay, std::uint64_t seed,
                                         bool internal_motion, bool servo_reaction)
    : plant_(plant),
      force_model_(std::move(force_model_ptr)),
      inner_(std::move(inner)),
      filter_(filter),
      rotor_inertia_(rotor_inertia),
      drive_(drive),
      computation_delay_(computation_delay),
      noise_(seed),
      seed_(seed),
      state_map_(plant, *force_model_),
      internal_motion_(internal_motion) {
  const Model& force_model = *force_model_;
  if (plant.propellers.empty())
    throw ControlError("controller.actuation applies to models with propellers; this one has none");
  std::vector<bool> driven(plant.numInputs(), false);
  for (int p = 0; p < static_cast<int>(plant.propellers.size()); ++p) {
    const Propeller& prop = plant.propellers[p];
    const Joint& joint = plant.joints[prop.joint];
    Rotor r{p, joint.xi_offset, -1, false, force_model.actuatorIndex(prop.name), axisInertia(plant, joint, prop),
            joint.x_offset};
    for (int i = 0; i < plant.numInputs(); ++i) {
      const Actuator& a = plant.actuators[i];
      if (a.joint != prop.joint) continue;
      if (a.kind != ActuatorKind::JointEffort && a.kind != ActuatorKind::JointSpeedServo) continue;
      if (r.motor_input >= 0)
        throw ControlError("propeller '" + prop.name + "' has two motors ('" + plant.actuators[r.motor_input].name +
                           "', '" + a.name + "')");
      r.motor_input = i;
      r.speed_servo = a.kind == ActuatorKind::JointSpeedServo;
    }
    if (r.motor_input < 0)
      throw ControlError("propeller '" + prop.name + "' has no motor: add an actuator on joint '" + joint.name + "'");
    if (r.thrust_input < 0 && force_model.actuatorIndex(axialThrustInputName(prop.name)) >= 0) {
      // A thrust vector: the servo of the arm the rotor hangs from (joint index = child body).
      r.thrust_input = force_model.actuatorIndex(axialThrustInputName(prop.name));
      r.tangential_input = force_model.actuatorIndex(tangentialThrustInputName(prop.name));
      for (int i = 0; i < plant.numInputs(); ++i)
        if (plant.actuators[i].kind == ActuatorKind::JointServo && plant.actuators[i].joint == joint.parent)
          r.servo_input = i;
      if (r.tangential_input < 0 || r.servo_input < 0 || filter_ == Filter::Flat)
        throw ControlError("propeller '" + prop.name + "' as a thrust vector needs " +
                           (filter_ == Filter::Flat ? std::string("filter: thrust_filter (flat_filter takes scalar thrusts)")
                                                    : "both components in the force model and a servo on its arm"));
      driven[r.servo_input] = true;
      const Joint& tilt = plant.joints[joint.parent];
      if (tilt.nx != 1)
        throw ControlError("the tilt joint '" + tilt.name + "' of propeller '" + prop.name + "' needs angle coordinates");
      r.tilt = {tilt.x_offset, tilt.xi_offset, tiltAxisInertia(plant, joint.parent)};
    }
    if (r.thrust_input < 0)
      throw ControlError("the force model has no thrust input for propeller '" + prop.name + "'");
    if (drive_ == Drive::Observer) {
      if (r.speed_servo)
        throw ControlError("drive: observer needs current motors (5.1); propeller '" + prop.name +
                           "' has a speed servo (motor type: lag)");
      const double gain = plant.actuators[r.motor_input].gain;
      r.drive = {prop.drag_coefficient / r.inertia, gain / r.inertia, prop.friction / r.inertia};
    }
    driven[r.motor_input] = true;
    rotors_.push_back(r);
  }
  for (int i = 0; i < force_model.numInputs(); ++i) {
    const std::string& name = force_model.actuators[i].name;
    if (std::any_of(rotors_.begin(), rotors_.end(),
                    [&](const Rotor& r) { return r.thrust_input == i || r.tangential_input == i; }))
      continue;
    const int k = plant.actuatorIndex(name);
    if (k < 0) throw ControlError("force-model input '" + name + "' has no plant input of that name");
    PassThrough pt{i, k, {}};
    const Actuator& a = plant.actuators[k];
    if (a.kind == ActuatorKind::JointServo && plant.joints[a.joint].nx == 1 && plant.joints[a.joint].nxi == 1)
      pt.servo = {plant.joints[a.joint].x_offset, plant.joints[a.joint].xi_offset, tiltAxisInertia(plant, a.joint)};
    pass_through_.push_back(pt);
    driven[k] = true;
  }
  for (int i = 0; i < plant.numInputs(); ++i)
    if (!driven[i])
      throw ControlError("plant input '" + plant.actuators[i].name + "' is neither a propeller motor nor an input of the force model");

  const int vectors = static_cast<int>(
      std::count_if(rotors_.begin(), rotors_.end(), [](const Rotor& r) { return r.servo_input >= 0; }));
  if (servo_reaction) {  // its arms are the thrust vectors', in the order of plant.propellers as rotors_
    if (vectors == 0) throw ControlError("option servo_reaction applies to thrust: vector");
    servo_reaction_.emplace(plant, force_model);
  }
  vector_tilts_.setZero(vectors);

  // The inner controller's parameters first (the GUI shows one list), then the layer's own.
  const ParameterSet& inner_parameters = inner_->parameters();
  for (int i = 0; i < inner_parameters.size(); ++i) {
    inner_mirror_.push_back(parameters_.add(inner_parameters.spec(i)));
    parameters_.set(i, inner_parameters.value(i));
  }
  if (filter_ == Filter::Thrust) {
    p_thrust_time_constant_ = parameters_.add({"thrust_time_constant", "s",
                                               "time constant of the thrust filter (5.29), c_F = exp(−T_S/T)", 0.02,
                                               0.001, 1.0, ParameterScale::Log});
  } else {
    p_thrust_cutoff_ = parameters_.add({"thrust_cutoff", "rad/s", "Butterworth cut-off of the F_z channel (5.40a)",
                                        50.0, 1.0, 300.0, ParameterScale::Log});
    p_tilt_cutoff_ = parameters_.add({"tilt_cutoff", "rad/s", "Butterworth cut-off of the τ_x, τ_y channels (5.40b)",
                                      50.0, 1.0, 300.0, ParameterScale::Log});
    p_heading_cutoff_ = parameters_.add({"heading_cutoff", "rad/s",
                                         "cut-off of the τ_z channel (pole-zero cancelled with rotor_inertia)", 30.0,
                                         1.0, 300.0, ParameterScale::Log});
  }
  if (filter_ == Filter::Flat)
    p_lead_ = parameters_.add({"lead", "1", "phase lead: share of the filter lag K_1/K_0 compensated by ḟ_D (0: (5.36) as printed)",
                               0.0, 0.0, 1.0, ParameterScale::Linear});
  if (vectors > 0 || std::any_of(pass_through_.begin(), pass_through_.end(),
                                 [](const PassThrough& pt) { return pt.servo.x >= 0; })) {
    p_servo_bandwidth_ = parameters_.add({"servo_bandwidth", "rad/s",
                                          "tilt servo loop made this fast by its reference θ_R from θ, θ̇ (0: θ_R = θ_D)",
                                          0.0, 0.0, 1000.0, ParameterScale::Linear});
    p_servo_damping_ = parameters_.add({"servo_damping", "1", "damping ratio of that servo loop", 1.0, 0.0, 5.0,
                                        ParameterScale::Linear});
  }
  p_speed_gain_ = parameters_.add({"speed_gain", "1/s", "propeller speed tracking gain k_P (5.25)", 100.0, 0.0,
                                   1000.0, ParameterScale::Linear});
  if (drive_ == Drive::Observer) {
    p_observer_pole_ = parameters_.add({"observer_pole", "rad/s",
                                        "propeller observer (5.23): double root at exp(−pole T_S) of (5.24)", 20.0,
                                        5.0, 170.0, ParameterScale::Log});
    p_angle_noise_ = parameters_.add({"angle_noise", "rad",
                                      "σ of the white noise on the BLDC driver's rotor angle ψ (5.20)", 0.0, 0.0,
                                      0.2, ParameterScale::Linear});
  }

  if (filter_ == Filter::Flat) {
    // (5.34) in the frame of the body that carries the rotors: rows F_z, τ_x, τ_y, τ_z about its
    // origin; column k per ϖ_k² (static) and per ϖ̇_k (reaction of the rotor's acceleration).
    if (rotors_.size() != 4) throw ControlError("flat_filter needs exactly four propellers (a quadcopter)");
    const int body = plant.joints[plant.propellers[0].joint].parent;
    Eigen::Matrix4d static_map, dynamic_map;
    Workspace ws(plant);
    computeKinematics(plant, plant.initial_state.x, plant.initial_state.xi, ws);
    for (int k = 0; k < 4; ++k) {
      const Propeller& p = plant.propellers[rotors_[k].propeller];
      const Joint& joint = plant.joints[p.joint];
      if (joint.parent != body)
        throw ControlError("flat_filter needs all four rotors on the same body; '" + p.name + "' is not");
      const Pose rel = (body >= 0 ? ws.pose[body].inverse() : Pose()) * ws.pose[joint.child];
      const Vec3 d = rel.R * p.thrust_direction, a = rel.R * p.spin_axis;
      if (std::abs(d.z()) < 1.0 - 1e-9)
        throw ControlError("flat_filter needs thrust along the body z axis; propeller '" + p.name + "' is tilted");
      const Vec3 torque = p.thrust_coefficient * rel.r.cross(d) - p.drag_coefficient * a;
      static_map.col(k) << p.thrust_coefficient * d.z(), torque;
      dynamic_map.col(k) << 0.0, -rotors_[k].inertia * a;
    }
    Eigen::Vector4d min_speed, max_speed;
    for (int k = 0; k < 4; ++k) {
      min_speed(k) = plant.propellers[rotors_[k].propeller].min_speed;
      max_speed(k) = plant.propellers[rotors_[k].propeller].max_speed;
    }
    flat_ = std::make_unique<FlatForceFilter>(static_map, dynamic_map, min_speed, max_speed);
  }

  if (internal_motion_) {
    plant_ws_.emplace(plant_);
    force_ws_.emplace(force_model);
    actual_thrusts_.setZero(force_model.numInputs());
    internal_force_.setZero(force_model.nxi);
  }

  inner_signals_ = addSignals(inner_->signals());
  std::vector<SignalInfo> rotor_signals;
  for (const Rotor& r : rotors_) {
    const std::string& name = plant.propellers[r.propeller].name;
    rotor_signals.push_back({"actuation.speed_setpoint." + name, "rad/s", "propeller speed setpoint ϖ̂_D of the filter"});
    rotor_signals.push_back({"actuation.thrust_command." + name, "N", "thrust the rigid-body controller asks for"});
  }
  rotor_signals_ = addSignals(rotor_signals);
  std::vector<SignalInfo> tilt_signals;
  for (const Rotor& r : rotors_)
    if (r.servo_input >= 0)
      tilt_signals.push_back({"actuation.tilt_command." + plant.propellers[r.propeller].name, "rad",
                              "tilt θ_D of the arm for the thrust vector (with servo_reaction (I − K)⁻¹ θ'); "
                              "the servo's reference unless servo_bandwidth > 0"});
  tilt_signals_ = addSignals(tilt_signals);
  speed_error_signal_ = addSignal("actuation.speed_error", "rad/s", "largest |ϖ̂_D − ϖ| over the propellers");
  if (drive_ == Drive::Observer) {
    std::vector<SignalInfo> drive_signals;
    for (const Rotor& r : rotors_) {
      const std::string& name = plant.propellers[r.propeller].name;
      drive_signals.push_back({"actuation.speed_measured." + name, "rad/s", "BLDC mean speed ϖ_M (5.20), noisy"});
      drive_signals.push_back({"actuation.speed_estimate." + name, "rad/s", "observer's speed ϖ̂ (5.23)"});
      drive_signals.push_back({"actuation.friction_estimate." + name, "rad/s²", "observer's friction p̂_P3 (5.23c)"});
    }
    drive_signals_ = addSignals(drive_signals);
  }
  applyParameters();
}

void ActuationController::applyParameters() {
  if (parameters_.version() == applied_version_) return;
  applied_version_ = parameters_.version();
  ParameterSet& inner = inner_->parameters();
  for (std::size_t i = 0; i < inner_mirror_.size(); ++i) {
    const double value = parameters_[inner_mirror_[i]];
    if (inner.value(static_cast<int>(i)) != value) inner.set(static_cast<int>(i), value);
  }
  if (filter_ != Filter::Flat) return;
  // p₄ = Θ_P/(2κ_T ϖ̄) at the hover speed ϖ̄ = √(m g / Σκ_F) (§A.6).
  double mass = 0.0, kf = 0.0, kt = 0.0, inertia = 0.0;
  for (const Body& b : plant_.bodies) mass += b.mass;
  for (const Rotor& r : rotors_) {
    kf += plant_.propellers[r.propeller].thrust_coefficient;
    kt += plant_.propellers[r.propeller].drag_coefficient / rotors_.size();
    inertia += r.inertia / rotors_.size();
  }
  const double hover_speed = std::sqrt(mass * plant_.gravity.norm() / kf);
  const double p4 = kt > 0.0 && hover_speed > 0.0 ? inertia / (2.0 * kt * hover_speed) : 0.0;
  flat_->setGains(parameters_[p_thrust_cutoff_], parameters_[p_tilt_cutoff_], parameters_[p_heading_cutoff_], p4,
                  rotor_inertia_);
  flat_->setLead(parameters_[p_lead_]);
}

void ActuationController::reset() {
  started_ = false;
  inner_->reset();
}

bool ActuationController::failWith(const std::string& why) { return fail(std::string(name()) + ": " + why); }

void ActuationController::initialize(const State& state) {
  const int n = static_cast<int>(rotors_.size());
  speed_now_.resize(n);
  speed_rate_.setZero(n);
  thrust_filtered_.resize(n);
  for (int k = 0; k < n; ++k) {
    const Propeller& p = plant_.propellers[rotors_[k].propeller];
    speed_now_(k) = std::clamp(state.xi(rotors_[k].rate_index), p.min_speed, p.max_speed);
    thrust_filtered_(k) = p.thrust_coefficient * speed_now_(k) * speed_now_(k);
  }
  if (flat_) {
    flat_->reset(speed_now_.head<4>());
    speed_now_.head<4>() = flat_->speed();
  }
  speed_next_ = speed_now_;
  if (drive_ != Drive::Observer) return;
  // The drive starts at a known speed (the initial state's) with the friction unknown; the first
  // period gets the current that holds the setpoint by the model, since no prediction exists yet.
  observer_period_ = 0.0;
  noise_.reseed(seed_);  // every start (a reset, or time going back) draws the same noise
  for (int k = 0; k < n; ++k) {
    Rotor& r = rotors_[k];
    r.design_speed = speed_now_(k);
    r.observer = PropellerObserver(r.drive, 0.0, {});  // period and gains with the first step
    r.observer.reset(state.xi(r.rate_index), 0.0);
    r.last_angle = measuredAngle(r, state);
    r.measured_speed = state.xi(r.rate_index);
    const Actuator& motor = plant_.actuators[r.motor_input];
    r.current_now = std::clamp(
        propellerTrackingCurrent(r.drive, 1.0, speed_now_(k), speed_now_(k), speed_now_(k), 0.0, 0.0), motor.lower,
        motor.upper);
    r.current_next = r.current_now;
  }
}

double ActuationController::measuredAngle(const Rotor& r, const State& state) {
  const Joint& joint = plant_.joints[plant_.propellers[r.propeller].joint];
  const double sigma = parameters_[p_angle_noise_];
  return jointScalarPosition(joint, state.x.data() + r.angle_offset) + (sigma > 0.0 ? sigma * noise_.normal() : 0.0);
}

bool ActuationController::stepObserverDrive(const State& state, double dt) {
  // T_S from hold instants t0 + k/rate varies in the last bits: place the gains again only when it
  // really changed (or a parameter did).
  if (std::abs(observer_period_ - dt) > 1e-9 * dt || observer_version_ != parameters_.version()) {
    try {
      for (Rotor& r : rotors_) {
        const PropellerObserverGains gains =
            propellerObserverGains(r.drive, dt, r.design_speed, parameters_[p_observer_pole_]);
        r.observer.setGains(dt, gains);
      }
    } catch (const ControlError& e) {
      return failWith(e.what());
    }
    if (observer_period_ == 0.0) {
      // Catch up on instant 0: its prediction ϖ̂[1] had to wait for T_S (no measurement then).
      for (Rotor& r : rotors_) r.observer.update(r.observer.expectedMeanSpeed(), r.current_now);
    }
    observer_period_ = dt;
    observer_version_ = parameters_.version();
  }
  const double k_p = parameters_[p_speed_gain_];
  for (int k = 0; k < static_cast<int>(rotors_.size()); ++k) {
    Rotor& r = rotors_[k];
    const Actuator& motor = plant_.actuators[r.motor_input];
    // (5.20) from the angle: the rotor turns more than π per period at speed, so the difference is
    // unwrapped around the advance the observer expects, T_S (ϖ̂[k] + ϖ̂[k−1])/2 (valid while the
    // estimate is within π/T_S of the truth: 628 rad/s at 200 Hz).
    const double angle = measuredAngle(r, state);
    const double expected = dt * r.observer.expectedMeanSpeed();
    r.measured_speed = (expected + baseline::wrapAngle(angle - r.last_angle - expected)) / dt;
    r.last_angle = angle;
    const auto law = [&] {  // (5.25) towards ϖ̂_D[k] → ϖ̂_D[k+1] from the observer's latest prediction
      return std::clamp(propellerTrackingCurrent(r.drive, dt, speed_now_(k), speed_next_(k), r.observer.speed(),
                                                 r.observer.friction(), k_p),
                        motor.lower, motor.upper);
    };
    if (computation_delay_) {
      r.current_now = r.current_next;                      // i_M[k], computed one period ago
      r.observer.update(r.measured_speed, r.current_now);  // ϖ̂[k+1], p̂_P3[k+1]
      r.current_next = law();                              // i_M[k+1]: setpoints shifted by one period
    } else {
      r.current_now = law();  // from ϖ̂[k], p̂_P3[k] (predicted at k−1), applied at once
      r.observer.update(r.measured_speed, r.current_now);
    }
  }
  return true;
}

double ActuationController::thrustCommand(int k) const {
  const Rotor& r = rotors_[k];
  const double axial = force_inputs_(r.thrust_input);
  return r.tangential_input < 0 ? axial : std::hypot(force_inputs_(r.tangential_input), axial);
}

void ActuationController::estimateInternalForces(const State& state) {
  evaluatePlant(plant_, state, *plant_ws_, plant_terms_);
  evaluatePlant(*force_model_, force_state_, *force_ws_, force_terms_);
  // b_P on the rows the force model shares, mapped onto it.
  state_map_.applyVelocityVector(plant_terms_.b, internal_force_);
  // The propellers' thrusts now, as the force model's inputs: b_P holds them with a minus sign.
  actual_thrusts_.setZero();
  for (const Rotor& r : rotors_) {
    const Propeller& p = plant_.propellers[r.propeller];
    const double rate = state.xi(r.rate_index);
    const double thrust = p.thrust_coefficient * rate * std::abs(rate);  // (5.3): reversed, it pulls
    if (r.tangential_input < 0) {
      actual_thrusts_(r.thrust_input) = thrust;
    } else {
      const double tilt = state.x(r.tilt.x);
      actual_thrusts_(r.thrust_input) = thrust * std::cos(tilt);
      actual_thrusts_(r.tangential_input) = thrust * std::sin(tilt);
    }
  }
  internal_force_ = force_terms_.b - internal_force_;
  internal_force_.noalias() -= force_terms_.B * actual_thrusts_;
}

void ActuationController::stepThrustFilter(double dt) {
  const double c = std::exp(-dt / parameters_[p_thrust_time_constant_]);  // (5.29)
  for (int k = 0; k < static_cast<int>(rotors_.size()); ++k) {
    const Propeller& p = plant_.propellers[rotors_[k].propeller];
    const double lo = p.thrust_coefficient * p.min_speed * p.min_speed;
    const double hi = p.max_speed < 1e150 ? p.thrust_coefficient * p.max_speed * p.max_speed : 1e300;
    const double command = std::clamp(thrustCommand(k), lo, hi);
    thrust_filtered_(k) = c * thrust_filtered_(k) + (1.0 - c) * command;
    speed_next_(k) = std::sqrt(thrust_filtered_(k) / p.thrust_coefficient);
    speed_rate_(k) = (speed_next_(k) - speed_now_(k)) / dt;
  }
}

bool ActuationController::stepFlatFilter(double dt) {
  Eigen::Vector4d q_desired;  // ϖ_D² = F_D/κ_F: f_D = B ϖ_D² is what the rigid-body controller asked for
  for (int k = 0; k < 4; ++k)
    q_desired(k) = force_inputs_(rotors_[k].thrust_input) / plant_.propellers[rotors_[k].propeller].thrust_coefficient;
  if (!flat_->step(flat_->staticMap() * q_desired, dt)) return false;
  speed_next_.head<4>() = flat_->speed();
  speed_rate_.head<4>() = flat_->speedRate();
  return true;
}

bool ActuationController::supervise(double t, const State& state) {
  if (!inner_->recovery()) return false;
  state_map_.apply(state, force_state_);
  if (servo_reaction_) servo_reaction_->toDesignState(state, force_state_, nullptr);
  return inner_->supervise(t, force_state_);
}

bool ActuationController::compute(double t, const State& state, const ReferenceSample& reference, VecX& u) {
  applyParameters();
  if (started_ && t == last_t_ && last_u_.size() == plant_.numInputs()) {  // the same instant again
    u = last_u_;
    return true;
  }
  if (started_ && t < last_t_) started_ = false;  // time went back: the run restarted
  state_map_.apply(state, force_state_);
  const bool estimated = externalForceEstimate().size() == plant_.nxi;
  if (estimated) state_map_.applyVelocityVector(externalForceEstimate(), mapped_force_);  // the estimator's bias
  if (internal_motion_) {
    estimateInternalForces(state);
    if (estimated)
      mapped_force_ += internal_force_;
    else
      mapped_force_ = internal_force_;
  }
  if (servo_reaction_) servo_reaction_->toDesignState(state, force_state_, estimated || internal_motion_ ? &mapped_force_ : nullptr);
  if (estimated || internal_motion_) inner_->setExternalForceEstimate(mapped_force_);
  if (!inner_->compute(t, force_state_, reference, force_inputs_)) return fail(inner_->message());
  double dt = 0.0;
  if (!started_) {
    initialize(state);
  } else {
    dt = t - last_t_;
    speed_now_ = speed_next_;
    if (filter_ == Filter::Thrust)
      stepThrustFilter(dt);
    else if (!stepFlatFilter(dt))
      return failWith("the force filter (5.36) produced non-finite propeller speeds at t = " + std::to_string(t) + " s");
  }
  u.resize(plant_.numInputs());
  if (drive_ == Drive::Observer && dt > 0.0 && !stepObserverDrive(state, dt)) return false;
  const double k_p = parameters_[p_speed_gain_];
  for (int k = 0; k < static_cast<int>(rotors_.size()); ++k) {
    const Rotor& r = rotors_[k];
    if (drive_ == Drive::Observer) {
      u(r.motor_input) = r.current_now;
      continue;
    }
    const Propeller& p = plant_.propellers[r.propeller];
    const Actuator& motor = plant_.actuators[r.motor_input];
    const double measured = state.xi(r.rate_index);
    double command;
    if (r.speed_servo) {
      // The servo lags by T = Θ/gain: lead the mid-interval setpoint by T ϖ̂̇_D.
      const double lag = r.inertia / motor.gain;
      command = 0.5 * (speed_now_(k) + speed_next_(k)) + lag * speed_rate_(k);
    } else {
      // After (5.25): Θ_P (ϖ̂̇_D + k_P e) + τ_load(ϖ) = k_M i.
      const double torque = r.inertia * (speed_rate_(k) + k_p * (speed_now_(k) - measured)) + p.loadTorque(measured);
      command = torque / motor.gain;
    }
    u(r.motor_input) = std::clamp(command, motor.lower, motor.upper);
  }
  for (const PassThrough& pt : pass_through_)
    u(pt.plant_input) = pt.servo.x >= 0 ? servoReference(pt.plant_input, pt.servo, force_inputs_(pt.force_input), state)
                                        : force_inputs_(pt.force_input);
  int vector = 0;
  for (const Rotor& r : rotors_)
    if (r.servo_input >= 0)
      vector_tilts_(vector++) = std::atan2(force_inputs_(r.tangential_input), force_inputs_(r.thrust_input));  // (5.28)
  if (servo_reaction_) servo_reaction_->toTilts(vector_tilts_);  // the design's θ' → the arms' θ
  vector = 0;
  for (const Rotor& r : rotors_) {
    if (r.servo_input < 0) continue;
    const Actuator& servo = plant_.actuators[r.servo_input];
    const double tilt = std::clamp(vector_tilts_(vector), servo.lower, servo.upper);
    u(r.servo_input) = servoReference(r.servo_input, r.tilt, tilt, state);
    signal(tilt_signals_, vector++) = tilt;
  }
  if (!u.allFinite()) return failWith("non-finite motor command at t = " + std::to_string(t) + " s");
  last_t_ = t;
  last_u_ = u;
  started_ = true;
  double worst = 0.0;
  for (int k = 0; k < static_cast<int>(rotors_.size()); ++k)
    worst = std::max(worst, std::abs(speed_now_(k) - state.xi(rotors_[k].rate_index)));
  signal(speed_error_signal_) = worst;
  return true;
}

double ActuationController::servoReference(int input, const ServoJoint& joint, double target, const State& state) const {
  const Actuator& servo = plant_.actuators[input];
  const double w = parameters_[p_servo_bandwidth_], z = parameters_[p_servo_damping_];
  if (!(w > 0.0 && servo.gain > 0.0)) return target;
  // (5.2)'s acceleration at this instant as asked for
  const double angle = state.x(joint.x), rate = state.xi(joint.xi);
  const double reference =
      angle + (joint.inertia * (w * w * (target - angle) - 2.0 * z * w * rate) + servo.damping * rate) / servo.gain;
  return std::clamp(reference, servo.lower, servo.upper);
}

void ActuationController::updateSignals() {
  inner_->updateSignals();
  Eigen::Map<VecX>(signalBlock(inner_signals_), inner_signals_.count) = inner_->signalValues();
  for (int k = 0; k < static_cast<int>(rotors_.size()); ++k) {
    signal(rotor_signals_, 2 * k) = speed_now_.size() ? speed_now_(k) : 0.0;
    signal(rotor_signals_, 2 * k + 1) = force_inputs_.size() ? thrustCommand(k) : 0.0;
    if (drive_ == Drive::Observer) {
      const Rotor& r = rotors_[k];
      signal(drive_signals_, 3 * k) = r.measured_speed;
      signal(drive_signals_, 3 * k + 1) = r.observer.speedNow();
      signal(drive_signals_, 3 * k + 2) = r.observer.frictionNow();  // p̂_P3[k], beside ϖ̂[k]
    }
  }
}

bool servoReactionRequested(const ActuationSettings& settings) {
  const auto it = settings.options.find("servo_reaction");
  return it != settings.options.end() && it->second == "true";
}

std::shared_ptr<const Model> actuationDesignModel(const Model& plant, std::shared_ptr<const Model> force_model,
                                                  const ActuationSettings& settings) {
  if (!servoReactionRequested(settings)) return force_model;
  return std::make_shared<const Model>(ServoReaction(plant, *force_model).designModel(*force_model));
}

std::unique_ptr<Controller> makeActuationController(const Model& plant, std::shared_ptr<const Model> force_model,
                                                    std::unique_ptr<Controller> inner,
                                                    const ActuationSettings& settings) {
  const auto option = [&](const std::string& key, const std::string& fallback) {
    const auto it = settings.options.find(key);
    return it == settings.options.end() ? fallback : it->second;
  };
  const std::vector<std::string> known = settings.filter == "flat_filter"
                                             ? std::vector<std::string>{"rotor_inertia", "drive", "computation_delay", "seed",
                                                                        "internal_motion"}
                                             : std::vector<std::string>{"drive", "computation_delay", "seed", "internal_motion",
                                                                        "servo_reaction"};
  for (const auto& [key, value] : settings.options)
    if (std::find(known.begin(), known.end(), key) == known.end()) {
      std::string list;
      for (const std::string& k : known) list += (list.empty() ? "" : ", ") + k;
      throw ControlError("unknown option '" + key + "' (known: " + list + ")");
    }
  ActuationController::Filter filter;
  if (settings.filter == "thrust_filter")
    filter = ActuationController::Filter::Thrust;
  else if (settings.filter == "flat_filter")
    filter = ActuationController::Filter::Flat;
  else
    throw ControlError("unknown filter '" + settings.filter + "' (known: thrust_filter, flat_filter)");
  const std::string rotor_inertia = option("rotor_inertia", "true");
  if (rotor_inertia != "true" && rotor_inertia != "false")
    throw ControlError("option rotor_inertia = '" + rotor_inertia + "' is not one of: true, false");
  const std::string drive = option("drive", "ideal");
  if (drive != "ideal" && drive != "observer")
    throw ControlError("option drive = '" + drive + "' is not one of: ideal, observer");
  const std::string delay = option("computation_delay", "true");
  if (delay != "true" && delay != "false")
    throw ControlError("option computation_delay = '" + delay + "' is not one of: true, false");
  if (drive != "observer" && (settings.options.count("computation_delay") || settings.options.count("seed")))
    throw ControlError(std::string("option '") + (settings.options.count("seed") ? "seed" : "computation_delay") +
                       "' applies to drive: observer only");
  const std::string internal_motion = option("internal_motion", "false");
  if (internal_motion != "true" && internal_motion != "false")
    throw ControlError("option internal_motion = '" + internal_motion + "' is not one of: true, false");
  const std::string servo_reaction = option("servo_reaction", "false");
  if (servo_reaction != "true" && servo_reaction != "false")
    throw ControlError("option servo_reaction = '" + servo_reaction + "' is not one of: true, false");
  const std::string seed_text = option("seed", "1");
  std::uint64_t seed = 0;
  const auto [end, error] = std::from_chars(seed_text.data(), seed_text.data() + seed_text.size(), seed);
  if (error != std::errc() || end != seed_text.data() + seed_text.size())
    throw ControlError("option seed = '" + seed_text + "' is not a non-negative integer");
  auto controller = std::make_unique<ActuationController>(
      plant, std::move(force_model), std::move(inner), filter, rotor_inertia == "true",
      drive == "observer" ? ActuationController::Drive::Observer : ActuationController::Drive::Ideal, delay == "true",
      seed, internal_motion == "true", servo_reaction == "true");
  controller->parameters().setAll(settings.parameters);
  return controller;
}

}  // namespace rbs
