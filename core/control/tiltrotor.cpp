#include "core/control/tiltrotor.h"

#include <Eigen/LU>
#include <algorithm>
#include <cmath>

#include "core/control/plant.h"
#include "core/control/registry.h"
#include "core/dynamics/dynamics.h"
#include "core/dynamics/kinematics.h"
#include "core/model/input_sets.h"

namespace rbs {
namespace {

/// Index of the actuator driving `joint` (an effort, or a position servo), −1 if there is none.
int jointActuator(const Model& model, int joint) {
  for (int i = 0; i < model.numInputs(); ++i) {
    const Actuator& a = model.actuators[i];
    if ((a.kind == ActuatorKind::JointEffort || a.kind == ActuatorKind::JointServo) && a.joint == joint) return i;
  }
  return -1;
}

}  // namespace

TiltrotorInversion::TiltrotorInversion(const Model& model, const ControllerSettings& settings)
    : model_(model),
      template_(model, {}, VelocityError::Body),
      tracking_(model, settings.options.count("tracked_body") ? settings.options.at("tracked_body") : ""),
      ws_(model),
      ws_ref_(model) {
  checkControllerOptions(settings, {"tracked_body", "recovery", "rejoin_heading"});
  base_joint_ = baseJointIndex(model);
  if (base_joint_ < 0 || !isFreeType(model.joints[base_joint_].type))
    throw ControlError("tiltrotor_inversion: the model needs a free base joint");
  const int base = model.joints[base_joint_].child;

  // The rotors: thrusts on bodies below a revolute joint hanging from the base.
  for (int i = 0; i < model.numInputs(); ++i) {
    const Actuator& a = model.actuators[i];
    if (a.kind != ActuatorKind::BodyForce || a.body == base) continue;
    int tilt = a.body;
    while (tilt >= 0 && model.joints[tilt].parent != base) tilt = model.joints[tilt].parent;
    if (tilt < 0 || model.joints[tilt].type != JointType::Revolute) continue;
    Rotor r;
    r.thrust = i;
    r.tilt_joint = tilt;
    r.servo = jointActuator(model, tilt);
    if (a.body != tilt && model.joints[a.body].nxi == 1) {
      r.spin_joint = a.body;
      r.motor = jointActuator(model, a.body);
      r.spin_rate = model.initial_state.xi[model.joints[a.body].xi_offset];
    }
    rotors_.push_back(r);
  }
  if (rotors_.empty())
    throw ControlError("tiltrotor_inversion: no thrust (body_force) on a body tilted by a revolute joint below the base");
  for (const Rotor& r : rotors_)
    joint_inertia_needed_ = joint_inertia_needed_ || r.motor >= 0 ||
                            (r.servo >= 0 && model.actuators[r.servo].kind != ActuatorKind::JointServo);
  // f_D reads the base rows; a joint actuator's force at u = 0 (a servo's PD part) lies in its own
  // joint's, and no joint actuator drives the free base joint.
  forces_at_zero_input_ = hasForcesAtZeroInput(model, false);
  acceleration_.setZero(model.nxi);
  forces_.setZero(model.nxi);

  // (5.16c): base wrench per unit vertical and horizontal thrust, at zero tilt. The tilted
  // direction is exactly cos θ d + sin θ (a × d) for an axis a ⟂ d, so (5.28) inverts it.
  State zero = model.initial_state;
  for (const Rotor& r : rotors_) zero.x[model.joints[r.tilt_joint].x_offset] = 0.0;
  computeKinematics(model, zero.x, zero.xi, ws_);
  const Pose& G_base = ws_.pose[base];
  wrench_map_.setZero(6, 2 * static_cast<int>(rotors_.size()));
  for (std::size_t k = 0; k < rotors_.size(); ++k) {
    const Actuator& a = model.actuators[rotors_[k].thrust];
    const Joint& tilt = model.joints[rotors_[k].tilt_joint];
    const Pose G = G_base.inverse() * ws_.pose[a.body];  // thrust body in base coordinates
    const Vec3 d = G.R * a.direction, q = G * a.point;
    const Vec3 axis = tilt.parent_placement.R * tilt.axis;
    const Vec3 h = axis.cross(d);
    // As computeInputMatrix's body_force column, with the propeller drag torque (torque_ratio).
    wrench_map_.col(2 * k) << d, q.cross(d) + a.torque_ratio * d;
    wrench_map_.col(2 * k + 1) << h, q.cross(h) + a.torque_ratio * h;
  }
  if (Eigen::FullPivLU<MatX>(wrench_map_).rank() < 6)
    throw ControlError("tiltrotor_inversion: the tilted thrusts cannot produce every base force and torque");
  // B⁻¹ for three arms, the least-norm right inverse Bᵀ(BBᵀ)⁻¹ for more.
  wrench_inverse_ = wrench_map_.cols() == 6
                        ? MatX(wrench_map_.fullPivLu().inverse())
                        : MatX(wrench_map_.transpose() *
                               (wrench_map_ * wrench_map_.transpose()).ldlt().solve(MatX::Identity(6, 6)));
  vertical_horizontal_.setZero(wrench_map_.cols());

  double mass = 0.0;
  for (const Body& b : model.bodies) mass += b.mass;
  const Mat3& inertia = model.bodies[base].inertia_com;
  mbar_ = parameters_.add({"mbar", "kg", "desired mass of the base template", mass, 1e-6, 1e6, ParameterScale::Log});
  for (int i = 0; i < 3; ++i)
    thetabar_[i] = parameters_.add({std::string("thetabar_") + "xyz"[i], "kg m^2",
                                    "desired moment of inertia of the base template", inertia(i, i), 1e-9, 1e6,
                                    ParameterScale::Log});
  omega_ = parameters_.add({"omega", "rad/s", "natural frequency of the translation", 4.0, 1e-3, 1e3, ParameterScale::Log});
  zeta_ = parameters_.add({"zeta", "1", "damping ratio of the translation", 1.0, 0.0, 10.0});
  omega_rot_ =
      parameters_.add({"omega_rot", "rad/s", "natural frequency of the rotation", 4.0, 1e-3, 1e3, ParameterScale::Log});
  zeta_rot_ = parameters_.add({"zeta_rot", "1", "damping ratio of the rotation", 1.0, 0.0, 10.0});
  tilt_max_ = parameters_.add({"tilt_max", "rad", "tilt command limit (thesis: 45 deg)", 0.7853981633974483, 0.0, 1.5});
  servo_omega_ = parameters_.add(
      {"servo_omega", "rad/s", "servo PD loop (5.2): natural frequency", 40.0, 1e-2, 1e3, ParameterScale::Log});
  servo_zeta_ = parameters_.add({"servo_zeta", "1", "servo PD loop (5.2): damping ratio", 1.0, 0.0, 10.0});
  motor_gain_ = parameters_.add(
      {"motor_gain", "1/s", "propeller speed loop: bandwidth of holding the initial speed", 20.0, 0.0, 1e3});
  template_.pairs() = {TemplatePair{"base", Frame{}, Frame{base, Pose{}}}};
  const bool recovery = controllerOption(settings, "recovery", "off", {"on", "off"}) == "on";
  const RejoinHeading heading = Recovery::headingOption(settings);
  if (recovery) {
    force_limit_ = parameters_.add({"force_limit", "N",
                                    "largest pull of the template's spring at its centre (recovery: the bounded template)",
                                    0.5 * mass * model.gravity.norm(), 1e-6, 1e6, ParameterScale::Log});
    recovery_ = std::make_unique<Recovery>(model, parameters_, heading);
  }

  tracking_signals_ = addSignals(tracking_.signals());
  std::vector<SignalInfo> tilt_commands;
  for (const Rotor& r : rotors_)
    tilt_commands.push_back({"control.tilt_command." + model.joints[r.tilt_joint].name, "rad",
                             "commanded tilt of joint " + model.joints[r.tilt_joint].name + " (5.28)"});
  tilt_command_signals_ = addSignals(tilt_commands);
  if (recovery_)
    recovery_signals_ = addSignals({{"control.recovery", "1", "recovery phase: 0 tracking, 1 stabilizing, 2 returning, 3 rejoining"},
                                    {"control.delay", "s", "how late the manoeuvre runs against its own timetable (recovery)"}});
}

void TiltrotorInversion::updateTemplate() {
  if (parameters_.version() == parameters_version_) return;
  parameters_version_ = parameters_.version();
  const ParameterSet& p = parameters_;
  setNaturalGains(template_.pairs()[0], p[mbar_], Vec3(p[thetabar_[0]], p[thetabar_[1]], p[thetabar_[2]]), p[omega_],
                  p[zeta_], p[omega_rot_], p[zeta_rot_]);
  if (recovery_) template_.pairs()[0].force_limit = p[force_limit_];
}

Vec6 TiltrotorInversion::desiredBaseForce(const State& state, const Vec6& a_des) {
  const int o = model_.joints[base_joint_].xi_offset;
  acceleration_.segment<6>(o) = a_des;  // the other entries stay 0
  computeForcesForAcceleration(model_, state, acceleration_, forces_at_zero_input_, ws_, zero_inputs_, forces_);
  compensateExternalForce(forces_);
  return forces_.segment<6>(o);
}

bool TiltrotorInversion::compute(double t, const State& state, const ReferenceSample& reference, VecX& u) {
  updateTemplate();
  template_.evaluateKinematicsOnly(state, reference, ws_, ws_ref_, evaluation_);
  if (joint_inertia_needed_) computeMassMatrix(model_, ws_);
  const int o = model_.joints[base_joint_].xi_offset;
  // a_des = −M̄⁻¹ b̄ on the base (the pair only involves the base columns). M̄ is constant while the
  // base joint's S_e is (a free joint's body twist) and the gains are: factorized when it changes.
  if (!mbar_factor_.factorize(evaluation_.Mbar.block<6, 6>(o, o)))
    return fail("tiltrotor_inversion: the desired inertia is not positive definite");
  const Vec6 a_des = -mbar_factor_.llt().solve(Vec6(evaluation_.bbar.segment<6>(o)));
  const Vec6 f_D = desiredBaseForce(state, a_des);
  VecX& vh = vertical_horizontal_;
  vh.noalias() = wrench_inverse_ * f_D;
  const ParameterSet& p = parameters_;
  const double tilt_max = p[tilt_max_], ws = p[servo_omega_], zs = p[servo_zeta_];
  // Priorities only while the supervisor has left the manoeuvre: within it the arms also saturate
  // for moments (the loaded tricopter at the jerk steps of a degree-7 move with a 300 g load), and
  // there the clamping of (5.28) rides it out where the prioritized arms, at the corners of their
  // polygons, set off the chatter between the thrust limits (docs/CONTROL.md "Tilting rotors").
  if (recovery_ && recovery_->phase() != RecoveryPhase::Tracking && beyondLimits(vh, tilt_max))
    prioritize(f_D, tilt_max, vh);
  const double motor_gain = p[motor_gain_];
  u.setZero(model_.numInputs());
  for (std::size_t k = 0; k < rotors_.size(); ++k) {
    const Rotor& r = rotors_[k];
    // (5.28): thrust magnitude and tilt of arm k.
    const double V = vh[2 * k], H = vh[2 * k + 1];
    const double theta_D = std::clamp(std::atan2(H, V), -tilt_max, tilt_max);
    const Actuator& thrust = model_.actuators[r.thrust];
    u[r.thrust] = std::clamp(std::hypot(V, H), thrust.lower, thrust.upper);
    const Joint& tilt = model_.joints[r.tilt_joint];
    const double theta = state.x[tilt.x_offset], theta_dot = state.xi[tilt.xi_offset];
    if (r.servo >= 0 && model_.actuators[r.servo].kind == ActuatorKind::JointServo)
      u[r.servo] = theta_D;  // the servo's own PD loop (5.2) is part of the plant
    else if (r.servo >= 0)   // a torque input: close (5.2) here, k_P = Θ ω², k_D = 2 ζ ω Θ
      u[r.servo] = ws_.mass_matrix(tilt.xi_offset, tilt.xi_offset) * (ws * ws * (theta_D - theta) - 2 * zs * ws * theta_dot);
    if (r.motor >= 0) {
      const int s = model_.joints[r.spin_joint].xi_offset;
      u[r.motor] = ws_.mass_matrix(s, s) * motor_gain * (r.spin_rate - state.xi[s]);
    }
    signal(tilt_command_signals_, static_cast<int>(k)) = theta_D;
  }
  if (!u.allFinite()) return fail("tiltrotor_inversion: non-finite input");
  last_t_ = t;
  x_ = state.x;
  x_ref_ = reference.x;
  xi_ref_ = reference.xi;
  return true;
}

bool TiltrotorInversion::beyondLimits(const VecX& vh, double tilt_max) const {
  for (std::size_t k = 0; k < rotors_.size(); ++k) {
    const Actuator& thrust = model_.actuators[rotors_[k].thrust];
    const double V = vh[2 * k], H = vh[2 * k + 1], F = std::hypot(V, H);
    if (F > thrust.upper || F < thrust.lower || std::abs(std::atan2(H, V)) > tilt_max) return true;
  }
  return false;
}

bool TiltrotorInversion::prioritize(const Vec6& f_D, double tilt_max, VecX& vh) {
  const int arms = static_cast<int>(rotors_.size()), p = 2 * arms;
  if (arm_rows_tilt_ != tilt_max) {
    // Per arm the (H, V) = (F sin θ, F cos θ) of F in [lower, upper], |θ| ≤ tilt_max: an annular
    // sector, replaced by the convex polygon inside it (core/model/input_sets.h).
    constexpr int kChords = 8;
    MatX A;
    VecX c;
    std::vector<MatX> arm_rows;
    std::vector<VecX> arm_bounds;
    int rows = 0;
    arm_rows_tilt_ = tilt_max;
    priority_qp_.reset();
    try {
      for (const Rotor& r : rotors_) {
        const Actuator& thrust = model_.actuators[r.thrust];
        annularSectorPolygon(std::max(thrust.lower, 0.0), thrust.upper, -tilt_max, tilt_max, kChords, A, c);
        arm_rows.push_back(A);
        arm_bounds.push_back(c);
        rows += static_cast<int>(A.rows());
      }
    } catch (const std::invalid_argument&) {
      return false;  // no polygon (tilt_max of 0 or beyond 90°, a thrust range with no room): plain clamping
    }
    arm_rows_.setZero(rows, p);
    arm_bounds_.resize(rows);
    for (int k = 0, row = 0; k < arms; ++k) {
      const MatX& Ak = arm_rows[k];
      arm_rows_.block(row, 2 * k, Ak.rows(), 1) = Ak.col(1);      // u_c = V
      arm_rows_.block(row, 2 * k + 1, Ak.rows(), 1) = Ak.col(0);  // u_s = H
      arm_bounds_.segment(row, Ak.rows()) = arm_bounds[k];
      row += static_cast<int>(Ak.rows());
    }
    priority_qp_.emplace(p, rows, 2);
  }
  if (!priority_qp_) return false;
  // The wrench rows as accelerations of the template's inertia: the torques about x and y, then the
  // force along z, as far as the thrusts along the arms (the V parts) make them; then the whole
  // wrench in the metric Wᵀ D W (plus a trace-relative ridge where more than three arms leave W
  // with a null space), where the tilts (the H parts) do their share. The tilts reach the torques
  // about x and y only through the small offset of the thrust lines from the tilt axes (h_A): a
  // strict level over them swung the servos from stop to stop for a few per cent of torque, and
  // the servo lag and the propellers' speed limits turned that into a limit cycle that lost the
  // loaded tricopter after a 0.8 N m twist of 0.3 s (docs/CONTROL.md "Recovery").
  const ParameterSet& par = parameters_;
  const Vec6 scale(1.0 / par[mbar_], 1.0 / par[mbar_], 1.0 / par[mbar_], 1.0 / par[thetabar_[0]],
                   1.0 / par[thetabar_[1]], 1.0 / par[thetabar_[2]]);
  weighted_map_.noalias() = scale.asDiagonal() * wrench_map_;
  LexicographicQp::Level& tilt = priority_levels_[0];
  LexicographicQp::Level& lift = priority_levels_[1];
  tilt.C = weighted_map_.middleRows<2>(3);
  tilt.d = scale.segment<2>(3).cwiseProduct(f_D.segment<2>(3));
  lift.C = weighted_map_.row(2);
  for (int k = 0; k < arms; ++k) {
    tilt.C.col(2 * k + 1).setZero();
    lift.C.col(2 * k + 1).setZero();
  }
  lift.d.setConstant(1, scale(2) * f_D(2));
  priority_metric_.noalias() = wrench_map_.transpose() * weighted_map_;
  priority_metric_.diagonal().array() += 1e-12 * priority_metric_.trace() / p;
  const InequalityQpResult& result = priority_qp_->solve(priority_metric_, vh, priority_levels_, arm_rows_, arm_bounds_);
  if (result.status != InequalityQpStatus::Optimal) return false;
  vh = result.u;
  return true;
}

void TiltrotorInversion::updateSignals() {
  if (x_.size() == 0) return;  // no successful compute() yet
  template_.completeReferenceKinematics(x_ref_, xi_ref_, ws_ref_);
  tracking_.evaluate(ws_, ws_ref_, x_, x_ref_, signalBlock(tracking_signals_));
  if (recovery_) {
    signal(recovery_signals_, 0) = static_cast<double>(recovery_->phase());
    signal(recovery_signals_, 1) = recovery_->delay(last_t_);
  }
}

std::unique_ptr<Controller> makeTiltrotorInversion(const Model& model, const ControllerSettings& settings) {
  return std::make_unique<TiltrotorInversion>(model, settings);
}

}  // namespace rbs
