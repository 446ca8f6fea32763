// Control of the generalized force (thesis 5.3, konz-multicopters §A.6): the layer between a
// rigid-body controller and what a multicopter really commands — motor currents (or speed
// commands) for the propellers and reference angles for the tilt servos.
//
// The rigid-body controller is designed on the force model (ModelBuilder::rotorsAsThrusters):
// rotors locked, one thrust input per propeller. Its desired thrusts F_D become propeller-speed
// setpoints through a discrete filter, and a speed-tracking law turns the setpoints into the
// motor input:
//   thrust_filter  per rotor, first order: F̂_D ← c_F F̂_D + (1 − c_F) F_D, ϖ̂_D = √(F̂_D/κ_F) (5.29);
//                  any vehicle (the tricopter's thrusts).
//   flat_filter    the quadcopter's force-vector filter (5.35)–(5.37) on [F_z, τ_x, τ_y, τ_z] with
//                  the propeller speeds as its state (they, not the force, are flat), including the
//                  reaction torque of accelerating rotors f_dyn (5.34); option rotor_inertia: false
//                  drops f_dyn — the "static" comparison of (5.42)/(5.43).
// Speed tracking (after (5.25), without the one-step computation delay of the flight code, since
// the simulated controller acts at the sampling instant): with ϖ measured at t_k,
//   k_M i = Θ_P ((ϖ̂_D[k+1] − ϖ̂_D[k]) / T_S + k_P (ϖ̂_D[k] − ϖ[k])) + τ_load(ϖ̂_D[k]),
// τ_load = κ_T ϖ² + τ_MB (5.3, 5.9e); a speed-servo motor gets ϖ̂_D[k+1] + T ϖ̂̇_D instead.
// Option drive: observer runs the drive as the flight code does (5.20)–(5.25), core/control/
// propeller_drive.h: the controller no longer reads the rotor rates but the BLDC driver's mean speed
// ϖ_M[k] = (ψ[k] − ψ[k−1])/T_S from the rotor angle with white noise of σ = angle_noise on ψ; per rotor
// an observer (5.23) estimates ϖ̂ and the friction p̂_P3 (starting from 0: unknown), and (5.25) computes
// the current for the next period, i_M[k+1], with the one-step computation delay of the flight code:
// the current applied over [t_k, t_k+1) is the one computed at t_k−1, and the filter's setpoints
// ϖ̂_D[k], ϖ̂_D[k+1] of instant k serve as ϖ̂_D[k+1], ϖ̂_D[k+2] of (5.25) (the thesis' timing: the
// rigid-body controller's output at k is its F_D[k+1]). Observer roots: a double root at
// exp(−observer_pole T_S) at the rotor's initial speed, the third forced by (5.24). Option
// computation_delay: false applies (5.25) shifted by one period instead, i_M[k] from ϖ̂[k], p̂_P3[k] at
// once (what the ideal drive does with the true rate).
// Inputs of the force model that are not thrusts (tilt servos, arm joints) pass through by name.
// Thrust vectors (controller.actuation.thrust: vector, ModelBuilder::rotorsAsThrustVectors): the
// rigid-body controller commands (F sin θ, F cos θ) of a servo-tilted propeller (thesis (4.150));
// F_D = |(F sin θ, F cos θ)| goes to the filter like any thrust and θ_D = atan2(F sin θ, F cos θ)
// to the tilt servo as its reference angle (the inversion (5.28) per arm).
//
// Option servo_reaction: true (own addition, thrust vectors; core/control/servo_reaction.h): the
// servos' reaction on the base — the geared rotors' Θ_AC and the arms turning about their axes —
// becomes part of the design: the rigid-body controller works on the force model with the reduced
// base inertia Θ' (made on actuationDesignModel) and on the base's angular-momentum attitude ψ
// (an external-force estimate turns with it), and its thrust vectors' tilts θ' reach the arms as
// (I − K)⁻¹ θ'. Each arm's tilt is then clamped to its servo's range on its own: the sectors bound
// θ', and a common tilt reaches the arms about twice as large on the bicopter.
// Parameter servo_bandwidth ω_S > 0 (own addition, every position servo the layer drives: the
// thrust vectors' tilts and the servo references a controller passes through): the servo's
// reference angle is computed from its measured angle and rate so that at the sampling instant its
// PD loop (5.2) gives the acceleration of a loop at ω_S: J θ̈ = J (ω_S² (θ_D − θ) − 2 ζ_S ω_S θ̇),
// J = tiltAxisInertia, i.e. θ_R = θ + (J (ω_S² (θ_D − θ) − 2 ζ_S ω_S θ̇) + k_DS θ̇)/k_PS (ζ_S =
// servo_damping), clamped to the servo's range. Over the hold the servo's own loop pulls towards
// that θ_R; with Table 5.1's servo at ω_S = 150 rad/s, J ω_S²/k_PS ≈ 14.5, so θ_R saturates for
// errors above ≈ 2°. 0 sends θ_D itself (the servo's own ω = √(k_PS/J), 39 rad/s for Table 5.1's).
//
// Option internal_motion: true (own addition, in the spirit of the f_dyn of (5.34)): the force
// model has no spinning rotors and no moving arms, so the velocity-dependent forces these exert on
// the rest of the vehicle — above all the rotors' gyroscopic torques ω × Θ_P ϖ a — reach the
// rigid-body controller as an external-force estimate (Controller::setExternalForceEstimate) on
// the force model's coordinates:
//   f̂ = b_F − (b_P + B_F u_P),
// b_F the force model's bias at its state, b_P the plant's (the rows the force model shares), and
// B_F u_P the propellers' own thrusts at their current speeds and tilts (b_P counts them, the
// controller commands them). Accelerations of the internal joints are not fed forward: the rotors'
// planned ϖ̇_D and the servos' θ̈ predicted from the sampled state both destabilized the bicopter
// (an algebraic loop through the commands they shift).
//
// Discrete by design: the layer must run under a zero-order hold (integrator.control_rate > 0).
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "core/control/controller.h"
#include "core/control/perturbation.h"
#include "core/control/plant.h"
#include "core/control/propeller_drive.h"
#include "core/control/servo_reaction.h"
#include "core/control/settings.h"
#include "core/dynamics/workspace.h"

namespace rbs {

/// Copies the coordinates of every joint that two models share by name (the plant and its force
/// model: same joints, the rotor joints fixed in the latter).
class JointSubsetMap {
 public:
  JointSubsetMap() = default;
  /// Every joint of `to` with coordinates must exist in `from` with the same type; throws
  /// ControlError otherwise.
  JointSubsetMap(const Model& from, const Model& to);
  void apply(const State& from, State& to) const;
  /// The same for a vector over the velocity coordinates (a generalized force).
  void applyVelocityVector(const VecX& from, VecX& to) const;

 private:
  struct Segment {
    int from_x, to_x, nx, from_xi, to_xi, nxi;
  };
  std::vector<Segment> segments_;
  int to_nx_ = 0, to_nxi_ = 0;
};

/// The quadcopter's force-vector filter (5.35)–(5.37): state ϖ̂ (4 propeller speeds) and ĥ,
///   ϖ̂̇ = diag(2ϖ̂)⁻¹ B⁻¹ (ĥ − K_1 f_stat(ϖ̂)),   ĥ̇ = K_0 (f_D − f(ϖ̂, ϖ̂̇)),
/// f = f_stat + f_dyn = B ϖ̂² + D ϖ̂̇ on [F_z, τ_x, τ_y, τ_z], forward Euler, ϖ̂ clamped to its limits
/// (anti-windup: ĥ then implies no rate of ϖ̂² further into a limit a rotor sits at).
class FlatForceFilter {
 public:
  using Vec4 = Eigen::Vector4d;
  using Mat4 = Eigen::Matrix4d;
  /// `static_map` B (per ϖ², invertible), `dynamic_map` D (per ϖ̇: the reaction of accelerating
  /// rotors), speed limits per rotor (min ≥ 1 rad/s is enforced: the map is singular at ϖ = 0).
  FlatForceFilter(const Mat4& static_map, const Mat4& dynamic_map, const Vec4& min_speed, const Vec4& max_speed);

  /// K_0, K_1 (5.38): Butterworth pairs (ω², √2 ω) for F_z (ω_F) and τ_x, τ_y (ω_T). τ_z: with
  /// `rotor_inertia`, k_head1 = 1/p₄ and k_head0 = ω_H/p₄ — the hover pole-zero cancellation of
  /// (5.40c)/(5.41) that leaves τ_z/τ_zD = ω_H/(s + ω_H), p₄ = Θ_P/(2κ_T ϖ̄); without (the static
  /// filter of (5.42)), f_dyn is ignored and τ_z gets a Butterworth pair as well.
  void setGains(double thrust_cutoff, double tilt_cutoff, double heading_cutoff, double p4, bool rotor_inertia);
  /// Phase lead ∈ [0, 1]: the input becomes f_D + lead (K_1/K_0) ḟ_D (own addition; 0 = as printed).
  void setLead(double lead) { lead_ = lead; }

  /// Starts at rest at the speeds ϖ₀ (ĥ = K_1 f_stat(ϖ₀)).
  void reset(const Vec4& speed);
  /// One step of length dt > 0 towards f_D. Returns false if the state became non-finite.
  bool step(const Vec4& f_desired, double dt);

  const Vec4& speed() const { return speed_; }          ///< ϖ̂ after the last step
  const Vec4& speedRate() const { return speed_rate_; }  ///< ϖ̂̇ used over the last step
  /// f(ϖ̂, ϖ̂̇) the rotors produce when they follow the filter (at the start of the last step).
  const Vec4& force() const { return force_; }
  const Mat4& staticMap() const { return static_map_; }

 private:
  Mat4 static_map_, static_map_inverse_, dynamic_map_;
  Vec4 min_speed_, max_speed_;
  Vec4 k0_ = Vec4::Ones(), k1_ = Vec4::Ones();
  bool rotor_inertia_ = true;
  double lead_ = 0.0;
  Vec4 speed_ = Vec4::Zero(), speed_rate_ = Vec4::Zero(), h_ = Vec4::Zero(), force_ = Vec4::Zero();
  Vec4 previous_f_ = Vec4::Zero();
  bool have_previous_f_ = false;
};

class ActuationController : public Controller {
 public:
  enum class Filter { Thrust, Flat };

  /// How the motor currents are computed from the filter's speed setpoints.
  enum class Drive {
    Ideal,    ///< (5.25) on the true rate with the model's load, no computation delay
    Observer  ///< (5.20)–(5.25): mean-speed measurement, observer, one-step delay (flight code)
  };

  /// `inner` was made for `force_model` (kept alive here); the plant is copied. Throws ControlError
  /// when the plant has no propellers, a propeller has no motor actuator, a force-model input has
  /// no plant input of its name, (flat filter) the vehicle is not four parallel rotors, or (observer
  /// drive) a motor is not a current motor. Observer drive: `computation_delay` applies each current
  /// one period after it was computed (the flight code), `seed` seeds the measurement noise.
  ActuationController(const Model& plant, std::shared_ptr<const Model> force_model,
                      std::unique_ptr<Controller> inner, Filter filter, bool rotor_inertia,
                      Drive drive = Drive::Ideal, bool computation_delay = true, std::uint64_t seed = 1,
                      bool internal_motion = false, bool servo_reaction = false);

  std::string_view name() const override { return inner_->name(); }
  bool compute(double t, const State& state, const ReferenceSample& reference, VecX& u) override;
  void updateSignals() override;
  void reset() override;
  bool hasInternalState() const override { return true; }
  Recovery* recovery() override { return inner_->recovery(); }
  /// The inner controller supervises the state mapped onto its force model.
  bool supervise(double t, const State& state) override;

  Controller& inner() { return *inner_; }

 private:
  /// The joint a position servo (5.2) turns, for parameter servo_bandwidth.
  struct ServoJoint {
    int x = -1, xi = -1;   ///< offsets of its angle and rate in the plant state
    double inertia = 0.0;  ///< what the servo turns about its axis (tiltAxisInertia) [kg m²]
  };
  struct Rotor {
    int propeller;        ///< index into plant.propellers
    int rate_index;       ///< ϖ = ξ(rate_index)
    int motor_input;      ///< plant input driving the rotor
    bool speed_servo;     ///< the motor is a JointSpeedServo (else torque = gain · u)
    int thrust_input;     ///< force-model input of its thrust
    double inertia;       ///< Θ_P about the spin axis (+ armature) [kg m²]
    int angle_offset;     ///< x offset of the rotor joint's coordinates (angle ψ)
    // Observer drive only:
    PropellerDriveModel drive;   ///< p_P1, p_P2, p_P3 of (5.13) from the model
    PropellerObserver observer;  ///< (5.23)
    double design_speed = 0.0;   ///< ϖ̄ the observer's roots are placed at [rad/s]
    double last_angle = 0.0;     ///< measured ψ[k−1]
    double measured_speed = 0.0; ///< ϖ_M[k] (5.20)
    double current_now = 0.0;    ///< i_M[k], applied over [t_k, t_k+1)
    double current_next = 0.0;   ///< i_M[k+1] (5.25)
    // Thrust vector (force model from ModelBuilder::rotorsAsThrustVectors): thrust_input is then
    // F cos θ, tangential_input F sin θ, and the tilt servo gets θ_D.
    int tangential_input = -1;   ///< force-model input F sin θ, −1 for a scalar thrust
    int servo_input = -1;        ///< plant input of the tilt servo, −1 for a scalar thrust
    ServoJoint tilt;             ///< the tilt joint (its angle, rate, inertia); tilt.x < 0 for a scalar thrust
  };
  struct PassThrough {
    int force_input, plant_input;
    ServoJoint servo;  ///< a servo's reference (servo_bandwidth applies): its joint; else joint.x < 0
  };

  void initialize(const State& state);
  /// F_D of rotor k: the inner controller's thrust, or the length of its thrust vector.
  double thrustCommand(int k) const;
  void stepThrustFilter(double dt);
  /// The observer drive at instant k (after the filter step over dt > 0): measure, observe, and the
  /// current for the next period. False (message set) when the gains cannot be placed.
  bool stepObserverDrive(const State& state, double dt);
  double measuredAngle(const Rotor& r, const State& state);
  bool stepFlatFilter(double dt);
  /// f̂ of option internal_motion into internal_force_ (force-model coordinates).
  void estimateInternalForces(const State& state);
  void applyParameters();
  bool failWith(const std::string& why);
  /// The reference of the position servo `input` on `joint` for the angle `target`: `target`
  /// itself, or with servo_bandwidth ω_S > 0 the one that gives (5.2) the acceleration of a loop
  /// at ω_S now, clamped to the servo's range.
  double servoReference(int input, const ServoJoint& joint, double target, const State& state) const;

  Model plant_;
  std::shared_ptr<const Model> force_model_;  ///< declared before inner_: outlives it
  std::unique_ptr<Controller> inner_;
  Filter filter_;
  bool rotor_inertia_;
  Drive drive_;
  bool computation_delay_;
  NoiseGenerator noise_;
  std::uint64_t seed_;
  double observer_period_ = 0.0;          ///< T_S the observer gains were placed for (0: not yet)
  std::uint64_t observer_version_ = ~std::uint64_t{0};  ///< parameters_.version() of those gains
  JointSubsetMap state_map_;
  std::vector<Rotor> rotors_;
  std::vector<PassThrough> pass_through_;
  SignalSlot inner_signals_;     ///< the inner controller's, first
  SignalSlot rotor_signals_;     ///< per rotor: speed setpoint, thrust command
  SignalSlot speed_error_signal_;
  SignalSlot drive_signals_;     ///< observer drive, per rotor: ϖ_M, ϖ̂, p̂_P3
  SignalSlot tilt_signals_;      ///< per thrust vector: θ_D
  std::uint64_t applied_version_ = ~std::uint64_t{0};
  std::vector<Parameter> inner_mirror_;  ///< the first entries mirror the inner controller's, in order

  // Parameter indices (own).
  Parameter p_thrust_time_constant_, p_thrust_cutoff_, p_tilt_cutoff_, p_heading_cutoff_;
  Parameter p_speed_gain_, p_lead_, p_observer_pole_, p_angle_noise_;
  Parameter p_servo_bandwidth_, p_servo_damping_;  ///< with position servos only

  // Option servo_reaction (thrust vectors): the ψ state and the tilt map of core/control/servo_reaction.h.
  std::optional<ServoReaction> servo_reaction_;
  VecX vector_tilts_;  ///< per thrust vector: the tilt of (5.28) the rigid-body controller asked for, then the arm's

  // Filter state.
  State force_state_;
  VecX mapped_force_;          ///< estimated external force in force-model coordinates
  VecX force_inputs_;          ///< F_D of the inner controller
  VecX speed_now_, speed_next_;  ///< ϖ̂_D[k], ϖ̂_D[k+1]
  VecX speed_rate_;            ///< ϖ̂̇_D over the step
  VecX thrust_filtered_;       ///< F̂_D (thrust filter)
  std::unique_ptr<FlatForceFilter> flat_;  ///< flat filter only

  // Option internal_motion.
  bool internal_motion_ = false;
  std::optional<Workspace> plant_ws_, force_ws_;  ///< only with the option
  PlantTerms plant_terms_, force_terms_;
  VecX actual_thrusts_, internal_force_;  ///< B_F's inputs from the plant's rotors; f̂
  double last_t_ = 0.0;
  bool started_ = false;
  VecX last_u_;
};

/// Whether `settings` ask for option servo_reaction (makeActuationController checks the value).
bool servoReactionRequested(const ActuationSettings& settings);

/// The model the rigid-body controller inside the layer is to be made on: `force_model`, or with
/// option servo_reaction its ServoReaction::designModel (base inertia Θ'). Throws ControlError
/// when the servo reaction cannot be designed for.
std::shared_ptr<const Model> actuationDesignModel(const Model& plant, std::shared_ptr<const Model> force_model,
                                                  const ActuationSettings& settings);

/// Wraps `inner` (made for the force model) per `settings.actuation`. Throws ControlError for an
/// unknown filter, unknown parameters or a vehicle the filter cannot handle.
std::unique_ptr<Controller> makeActuationController(const Model& plant, std::shared_ptr<const Model> force_model,
                                                    std::unique_ptr<Controller> inner,
                                                    const ActuationSettings& settings);

}  // namespace rbs
