// Pushes from outside the model: the scripted pushes of Model::pushes, each in its time window, and
// one spring the GUI attaches to a body while the user drags it with the mouse. They enter the
// equations of motion as applied wrenches (computeAppliedForces) added to f_E, so the input power
// ξᵀ f_E, and with it the energy balance W(t) − W(0) = ∫ ξᵀ f_E − ξᵀ f_D dt, includes their work.
//
// Which scripted pushes act is latched at the window boundaries, which the simulator makes events
// (like a zero-order hold's instants): the right-hand side never sees a push switch inside a step,
// and rk_dopri5's dense output is restarted there.
//
// The spring feels the same on a 10 g load and a 20 kg arm: its stiffness and damping are those of
// a critically damped oscillator of frequency kSpringFrequency for the composite mass (the body and
// everything it carries) and, for the torque, its largest composite principal moment of inertia,
// both taken at the model's initial state.
//
// Its pull and twist are bounded by what the vehicle or robot can answer (issue 46, the recovery
// envelope of docs/CONTROL.md): the force by the composite weight, the torque by the largest
// torque the actuators can put on the body about one of its axes (pushLimits). A vehicle's twist
// also ends: the envelope guarantees recovery from its largest control torque for 1 s, so a drag
// twists at full strength for kTwistFullFor and lets go by kTwistDuration after the grab (a pull
// may be held: at the bound for 10 s the quadcopters come back). Held harder (SpringPush::harder,
// the GUI's Shift), both bounds grow by kHarderFactor and the twist does not end, to show what
// lies outside.
#pragma once

#include <limits>
#include <optional>
#include <vector>

#include "core/dynamics/dynamics.h"

namespace rbs {

/// The mouse's spring on a body.
struct SpringPush {
  enum class Mode {
    Force,   ///< pulls the grabbed point towards `target`
    Torque,  ///< turns the body towards the attitude exp(wed(rotation)) · grab_attitude
  };
  Mode mode = Mode::Force;
  int body = -1;
  Vec3 point = Vec3::Zero();               ///< the grabbed point, body frame [m]
  Vec3 target = Vec3::Zero();              ///< Force: where the point is pulled to, world [m]
  /// ≥ 0: `target` is an offset (world axes) from this body's centre of mass and moves with it,
  /// the target attitude turns with it, and the damping acts on the velocities relative to it: a
  /// view that follows a vehicle pulls and turns it by what the user drags, without holding it back.
  int anchor_body = -1;
  /// Torque: the body's attitude when grabbed, relative to the anchor body's (world when there is
  /// none): the target attitude is exp(wed(rotation)) · R_anchor(t) · grab_attitude.
  Mat3 grab_attitude = Mat3::Identity();
  Vec3 rotation = Vec3::Zero();            ///< Torque: the turn asked for, world rotation vector [rad]
  /// Beyond the body's limits (pushLimits): up to PushForces::kHarderFactor times them.
  bool harder = false;
};

/// How hard the mouse may pull and twist a body by default.
struct PushLimits {
  double force = 0.0;   ///< [N] the composite weight m |a_G| (m · 9.81 m/s² without gravity)
  double torque = 0.0;  ///< [N m] the largest control torque, or the fallback (below)
  /// True when `torque` comes from actuators: the largest over the body's axes (at the initial
  /// state) of Σ max(0, aᵀc u_min, aᵀc u_max) over the bounded body forces and torques on the body
  /// and what it carries (c: their torque about the composite centre of mass per unit input) and of
  /// its propellers (thrust κ_F ϖ² between the speed limits), and kJointEffortShare · gain · max|u|
  /// of a bounded effort on the joint that moves the body. Otherwise the composite
  /// inertia times PushForces::kMaxAngularAcceleration.
  bool torque_from_actuators = false;
  /// True when `torque` is the share of the joint's effort (it exceeds the body-axis sum).
  bool torque_from_joint = false;
  /// How long after the grab a default twist acts [s]: PushForces::kTwistDuration for a body that
  /// carries thrust (a vehicle), +∞ otherwise (an arm holds a twist of half its joint's effort).
  double twist_duration = std::numeric_limits<double>::infinity();
  /// Both bounds above times this: min(1, (T − W)/(2 W)) for a body that carries thrust — the pull
  /// is at most half of the thrust it can spare, the other half keeps its attitude and holds on
  /// while it is pulled — with T the sum of the upper limits of the bounded body forces on it and
  /// what it carries plus κ_F ϖ_max² of its propellers, W its weight; 1 otherwise (and at least
  /// kMinSpareShare). A vehicle with little thrust to spare recovers from less: the tricopter
  /// carrying its load (T/W = 1.48) is lost after pulls of half its weight held for 1.5 s that
  /// the unloaded one (1.71) and the quadcopter (3.3) recover from (docs/RESULTS.md "The recovery
  /// envelope").
  double spare_share = 1.0;
  /// True when the scene's `mouse` caps (Model::mouse_caps) lowered `force` or `torque`.
  bool force_capped = false, torque_capped = false;
};

class PushForces {
 public:
  /// Natural frequency of the spring [Hz] (critically damped).
  static constexpr double kSpringFrequency = 1.0;
  /// Where the model gives no scale (PushLimits): without gravity the force is at most the
  /// composite mass times kMaxAcceleration [m/s²] (1 g); without bounded actuators on the body the
  /// torque is at most its rotational inertia times kMaxAngularAcceleration [rad/s²]. A grabbed
  /// vehicle in fast flight is held back by the damping at the bound.
  static constexpr double kMaxAcceleration = 9.81;
  static constexpr double kMaxAngularAcceleration = 50.0;
  /// SpringPush::harder: the limits times this.
  static constexpr double kHarderFactor = 4.0;
  /// The share of a joint's effort limit a twist of the body it moves may reach (PushLimits).
  static constexpr double kJointEffortShare = 0.5;
  /// PushLimits::spare_share is at least this (a vehicle that cannot hover can still be pushed).
  static constexpr double kMinSpareShare = 0.1;
  /// A vehicle's default twist [s after the grab]: full strength until kTwistFullFor, then its
  /// bound falls linearly to 0 at kTwistDuration — never beyond the 1 s at the largest control
  /// torque the recovery envelope guarantees (docs/CONTROL.md; the Table 5.1 quadcopter twisted
  /// about roll at 1.96 N m for 1.5 s falls some 200 m and is still flying back a minute later).
  static constexpr double kTwistFullFor = 0.8;
  static constexpr double kTwistDuration = 1.0;

  explicit PushForces(const Model& model);

  /// Starts over at t0: the scripted pushes acting at t0 (t_start ≤ t0 < t_end, times within
  /// `tolerance` counting as equal) are latched, and the window boundaries after it are next.
  void restart(double t0, double tolerance);
  /// The next window boundary (a t_start or t_end) not yet passed; +∞ if none.
  double nextBoundary() const;
  /// The simulation reached t: every boundary up to t + tolerance is passed, and the pushes acting
  /// from t on are latched. Boundaries are consumed in order, so none is skipped however the
  /// tolerance changes between calls.
  void passBoundaries(double t, double tolerance);

  /// The mouse's spring from simulation time t on; a spring on another body or in another mode
  /// than the one before (or none before) is a new grab at t (PushLimits::twist_duration).
  void setSpring(const std::optional<SpringPush>& spring, double t);
  const std::optional<SpringPush>& spring() const { return spring_; }

  /// Whether anything pushes now (a latched scripted push or the spring).
  bool active() const { return !latched_.empty() || spring_.has_value(); }

  /// Adds the generalized forces of what pushes at time t to ws.input_forces and remembers the
  /// total force and torque (world) and their power ξᵀ f. Requires computeDynamicsTerms on (x, ξ).
  void apply(const Model& model, double t, const VecX& xi, Workspace& ws);

  /// Of the last apply(); stale when active() is false (read them only while it is true).
  const Vec3& force() const { return force_; }
  const Vec3& torque() const { return torque_; }
  double power() const { return power_; }
  /// The wrenches acting at `state` (scripted pushes, then the spring; ws gets its kinematics),
  /// null when nothing pushes: for drawing them (render::FrameSnapshot).
  const std::vector<AppliedWrench>* wrenchesAt(const Model& model, double t, const State& state, Workspace& ws);

  /// The composite mass [kg] and rotational inertia (the largest principal moment about the
  /// composite centre of mass) [kg m²] of body b and what it carries, at the initial state: the
  /// spring's scale (the torque uses the whole inertia tensor, turned with the body).
  double compositeMass(int b) const { return composite_mass_[b]; }
  double compositeInertia(int b) const { return composite_inertia_[b]; }
  /// The spring's bounds on body b (without SpringPush::harder).
  const PushLimits& limits(int b) const { return limits_[b]; }

  /// Forgets the spring and the totals; latches nothing.
  void clear();

 private:
  void clearTotals();
  /// Latches the scripted pushes with t_start ≤ t < t_end (times within `tolerance` equal).
  void latch(double t, double tolerance);
  /// Fills wrenches_ with what acts at the kinematics in ws.
  void collect(const Model& model, double t, const Workspace& ws);
  /// The spring's wrench on its body at time t and the state in ws.
  AppliedWrench springWrench(const Model& model, double t, const Workspace& ws) const;
  /// The share of the twist's bound at time t (1, then falling to 0: PushLimits::twist_duration).
  double twistShare(double t) const;

  std::vector<Push> pushes_;
  std::vector<int> latched_;                 ///< indices into pushes_
  std::vector<double> boundaries_;           ///< every t_start and t_end, ascending
  std::size_t next_boundary_ = 0;            ///< the first of boundaries_ not passed
  std::vector<AppliedWrench> wrenches_;      ///< scratch: capacity pushes_.size() + 1
  std::vector<double> composite_mass_, composite_inertia_;
  std::vector<Mat3> composite_inertia_body_;  ///< about the composite centre of mass, body axes
  std::vector<PushLimits> limits_;
  std::optional<SpringPush> spring_;
  double grabbed_at_ = 0.0;                  ///< simulation time of the spring's grab
  VecX generalized_;                         ///< scratch: J_bᵀ W summed
  Vec3 force_ = Vec3::Zero(), torque_ = Vec3::Zero();
  double power_ = 0.0;
};

/// computeForwardDynamics at time t with the pushes added to f_E (pushes may be null or inactive:
/// then the plain forward dynamics, bit for bit).
DynamicsStatus computeForwardDynamicsWithPushes(const Model& model, double t, const State& state, const VecX& u,
                                                Workspace& ws, double stabilization_gain, PushForces* pushes);

}  // namespace rbs
