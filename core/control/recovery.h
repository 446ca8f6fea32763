// Recovery from what a user does to a flying vehicle (issue 46; docs/CONTROL.md "Recovery"): a
// supervisor that, when the vehicle leaves the region its actuators can correct, stops tracking
// the manoeuvre's timetable, stabilizes the vehicle, brings it back to where the manoeuvre was
// left, and rejoins the manoeuvre from rest:
//
//   Tracking ──(error beyond the entry thresholds)──▶ Stabilizing ──(upright, tilt rates and spin
//   small)──▶ Returning ──(at the hold point, at rest)──▶ Rejoining ──(the clock at full pace)──▶
//   Tracking;  Returning and Rejoining fall back to Stabilizing beyond twice the entry thresholds.
//
//  * Stabilizing: the reference rides with the vehicle horizontally (its position and horizontal
//    velocity at the last instant, so nothing pulls sideways) while braking that velocity, holds
//    the altitude of the moment the manoeuvre was left, at the flat attitude of that braking. The
//    controller then uses its stabilizing template (PrototypeController): thrust direction first,
//    altitude next, heading last.
//  * Returning: a planned path from the vehicle's position and velocity, braked to rest (a
//    degree-9 traj::HermitePath), then cruising (traj::CruisePath) to the hold point: the
//    manoeuvre's position at the manoeuvre time τ_h where it was left (moved back to where a
//    rejoin from rest is feasible), ending at rest; the attitude is the path's flat attitude
//    (thrust ∥ r̈ − a_G).
//  * Rejoining: the manoeuvre itself, retimed (ReferenceRetiming): its clock stands at τ_h and runs
//    up to the manoeuvre's own pace, so the manoeuvre continues from where it was left, later.
//
// The decisions are taken at supervision instants kPeriod apart (the simulator makes them events),
// so the right-hand side between two instants is a fixed function of time and state. Applies to
// a model whose base is a free (or free_quaternion) root joint; the controller that owns it decides
// how it flies the phases (PrototypeController: the stabilizing template and tilt priorities of a
// multicopter whose thrust is along the base's z axis; TiltrotorInversion: its own template,
// bounded, with prioritized tilted thrusts).
#pragma once

#include <functional>
#include <memory>
#include <optional>
#include <string_view>

#include "core/control/parameters.h"
#include "core/control/reference.h"
#include "core/control/settings.h"
#include "core/control/trajectory.h"
#include "core/dynamics/workspace.h"

namespace rbs {

enum class RecoveryPhase { Tracking = 0, Stabilizing = 1, Returning = 2, Rejoining = 3 };
std::string_view toString(RecoveryPhase phase);

/// Which heading the way back ends with and an integrated flat heading (5.70) restarts from when
/// the manoeuvre is rejoined (controller option `rejoin_heading`):
///  * Vehicle: the vehicle's heading when it is stabilized — no turn on the way back; for vehicles
///    alike about their thrust axis (multicopters), whose manoeuvre does not depend on the heading.
///  * Manoeuvre: the manoeuvre's own heading at the hold point — for vehicles whose template and
///    manoeuvre are laid out in the body axes (the bicopter's circle lies in its y–z plane, its
///    template is the PVTOL's in that plane: rejoined at another heading the circle leaves it).
enum class RejoinHeading { Vehicle, Manoeuvre };

/// The scene's reference in manoeuvre time (makeReference with a ReferenceRetiming).
using ReferenceFactory = std::function<std::unique_ptr<Reference>(const ReferenceRetiming&)>;

class ComposedReference;

class Recovery {
 public:
  /// [s] between two supervision instants.
  static constexpr double kPeriod = 0.01;

  /// `model`: the controller's model, with a free or free_quaternion root joint (else
  /// ControlError); declares the recovery parameters in `parameters` (the controller's).
  Recovery(const Model& model, ParameterSet& parameters, RejoinHeading heading = RejoinHeading::Vehicle);

  /// The controller option `rejoin_heading` (`vehicle`, the default, or `manoeuvre`); ControlError
  /// for other values.
  static RejoinHeading headingOption(const ControllerSettings& settings);

  /// The manoeuvre (the scene's reference, which must outlive this) and how to retime it. Before
  /// the first supervise(); again after reset() is fine. Throws (ControlError) what the factory
  /// throws for a manoeuvre that cannot be retimed.
  void attach(const Reference& manoeuvre, ReferenceFactory factory);
  bool attached() const { return manoeuvre_ != nullptr; }
  /// Tracking the manoeuvre on its own timetable again (the run restarts).
  void reset();

  /// At a supervision instant t with the state of the controller's model: updates the phase and
  /// the reference; true when the reference or the phase changed from t on (the caller treats t as
  /// a discontinuity of the right-hand side).
  bool supervise(double t, const State& state);

  RecoveryPhase phase() const { return phase_; }
  /// The reference in effect: the manoeuvre (retimed after a recovery) or the phase's own.
  const Reference& reference() const;
  /// |ω_z| of the base body at the last supervision instant [rad/s] (the stabilizing template's
  /// tilt damping grows with it; zero outside Stabilizing).
  double spin() const { return phase_ == RecoveryPhase::Stabilizing ? spin_ : 0.0; }
  /// t − τ(t): how late the manoeuvre runs against its own timetable [s].
  double delay(double t) const;

 private:
  struct Errors {
    double position = 0.0;  ///< |r − r_R| of the base body [m]
    double tilt = 0.0;      ///< angle between the body z axes of base and reference [rad]
    double rate = 0.0;      ///< |ω − R_Eᵀ ω_R| (body) [rad/s]
    double speed = 0.0;     ///< |v_world − v_R,world| [m/s]
  };
  Errors errors(double t, const State& state);
  /// The manoeuvre time of the reference in effect at t.
  double manoeuvreTime(double t) const;
  /// The manoeuvre at rest at τ_h (the hold pose), sampled at t, with an integrated heading
  /// starting from `yaw`.
  void holdPose(double t, double tau, double yaw, ReferenceSample& out);
  /// The heading of the hold point at manoeuvre time τ (heading_): the vehicle's `vehicle_yaw`, or
  /// the manoeuvre's own heading there.
  double holdYaw(double tau, double vehicle_yaw);
  /// ws_ holds the state's kinematics (errors() ran at this instant).
  void stabilize(double t, bool entering);
  void startReturn(double t, const State& state);
  /// What a reference asks of the base over [t0, t1]: its largest angular speed and its smallest
  /// specific thrust |r̈ − a_G|.
  struct RunUp {
    double max_rate = 0.0, min_thrust = 0.0;
  };
  RunUp runUp(const Reference& reference, double t0, double t1);
  /// The latest manoeuvre time ≤ tau from which a rejoin from rest (heading yaw) asks no more than
  /// the manoeuvre itself (recovery.cpp).
  double rejoinTime(double tau, double yaw);
  /// phase_reference_: the base on a flat attitude (thrust ∥ r̈ − a_G) along `position` with the
  /// heading `yaw`; the other joints at the hold pose (more steps may be added to it).
  ComposedReference& setFlatReference(std::shared_ptr<const traj::Path> position, std::shared_ptr<const traj::Path> yaw);
  void startRejoin(double t);

  const Model& model_;
  RejoinHeading heading_;
  int base_joint_ = -1, base_body_ = -1;
  Parameter position_threshold_, tilt_threshold_, rate_threshold_, return_speed_, rejoin_ramp_;
  const ParameterSet& parameters_;
  /// The parameters' values at the last supervision instant.
  struct Settings {
    double position = 0.0, tilt = 0.0, rate = 0.0, return_speed = 0.0, rejoin_ramp = 0.0;
  };
  Settings settings_;
  const Reference* manoeuvre_ = nullptr;
  ReferenceFactory factory_;
  RecoveryPhase phase_ = RecoveryPhase::Tracking;
  std::unique_ptr<Reference> retimed_;            ///< the manoeuvre after a recovery (null: the scene's)
  std::optional<traj::ManoeuvreClock> clock_;     ///< retimed_'s clock
  std::unique_ptr<Reference> phase_reference_;    ///< Stabilizing, Returning
  double tau_hold_ = 0.0;                         ///< τ_h: where the manoeuvre was left
  double altitude_hold_ = 0.0;                    ///< Stabilizing: the altitude held [m]
  double phase_end_ = 0.0;                        ///< Returning: end of the path; Rejoining: of the ramp
  double spin_ = 0.0;                             ///< spin()
  double hold_yaw_ = 0.0;                         ///< the heading the return ends with and the rejoin starts from
  ReferenceSample hold_;                          ///< the hold pose (x_R) of the last return
  Workspace ws_, ws_ref_;
  ReferenceSample sample_;
};

}  // namespace rbs
