// "servo_constraint_pd": Seifried's two-degree-of-freedom tracking controller for underactuated
// manipulators with passive joints (Seifried 2014, Sect. 3.2, 4.2.7, 5.2–5.3; digest
// seifried-underactuated §4.5–4.7, §5, §9–§11):
//   u = u_d(t) + K (ω² (q_a,d − q_a) + 2ζω (q̇_a,d − q̇_a)),   K = M_aa(q) or I,
// the feedforward u_d and the whole desired motion q_d(t) from inverting the end-effector task
// (servo constraints, core/control/servo_constraint_inverse.h), the feedback a decentralized PD on
// the actuated coordinates only (the book's "PID on q_a", without the integral part; it cannot act
// on the passive coordinates).
//
// The task is built in: the end-effector point follows a circular arc (the book's half-circle,
// centre (0, −1.5) m, radius 1 m) while the first actuated coordinate (the cart) moves from
// cart_start to cart_end, both timed by one rest-to-rest polynomial of degree 5 (7, 9) from t_start
// for `duration` (servo_constraint_path.h). The `reference` argument of compute() is ignored: the
// controller's reference is its own q_d(t) (scenes leave out the reference block).
//
// The feedforward is computed offline — forward integration of the internal dynamics
// (stable_inversion = 0, minimum-phase systems) or stable inversion by a boundary value problem
// with pre- and post-actuation (stable_inversion = 1) — at the first compute() or
// prepareFeedforward(), and again whenever one of its parameters (everything except omega and
// zeta) has changed; this can take a few seconds. Outside [t_start − pre_actuation,
// t_start + duration + post_actuation] the desired motion is the rest equilibrium at the ends.
//
// Model requirements: revolute/prismatic (or fixed) joints only, every actuator a joint effort on
// its own coordinate (B = [I; 0] after sorting), at least two inputs, no loop closures. The first
// p − 2 actuators' coordinates are outputs themselves (the cart), the last two outputs are the
// end-effector point in the plane of motion.
//
// Parameters (numbers; scene `controller.parameters`):
//   omega, zeta             PD on q_a: K_p = ω², K_d = 2ζω (times M_aa with gain_scaling mass)
//   exact_output            0: linearly combined output y = q_a + Γ q_u (Sect. 4.5), 1: exact
//                           end-effector output (Sect. 4.6 / servo constraints on r_ef)
//   stable_inversion        0: classical inversion (forward), 1: stable inversion (BVP)
//   pre_actuation, post_actuation  [s] windows before t_start and after the motion
//   inversion_step          [s] collocation grid (the forward RK4 integration uses a quarter)
//   center_x, center_y, radius, angle_start, angle_end   the arc in the plane (angles from the
//                           first plane axis; π → 0 runs over the top for a downward-open arc)
//   cart_start, cart_end    the first direct output (cart) [m]
//   t_start, duration, degree   timing t₀, T and the polynomial degree (5, 7 or 9)
//   end_effector_x/y/z      the end-effector point in the end-effector body's frame [m]
//   gamma_<passive joint>   Γ entries of the last actuated output: y_last = q_a,last + Σ Γ_j q_u,j
// Options (scene `controller.options`):
//   end_effector_body   body carrying the end-effector point (default: the last body)
//   plane               xy | xz | yz: the world axes of the plane of motion (default xy)
//   gamma               parameters | geometric: Γ from the gamma_* parameters, or by the book's
//                       rule from the geometry (distance ratios to the end effector, (4.5))
//   gain_scaling        mass | none: K = M_aa(q) (default) or K = I (plain gains)
//   tracked_body        body for the standard error.* signals (TrackingErrors)
// Signals: the TrackingErrors set against q_d(t); error.end_effector, the distance of the end
// effector from the desired path point (in the plane) [m]; error.end_effector_path, its distance
// from the arc's circle (the path-normal error — the measure whose values match the book's
// reported 3 mm / 2.75 mm / 3.2 mm for the linearly combined output) [m];
// control.feedforward.<actuator>, u_d.
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "core/control/controller.h"
#include "core/control/plant.h"
#include "core/control/servo_constraint_inverse.h"
#include "core/control/settings.h"
#include "core/control/tracking.h"
#include "core/dynamics/workspace.h"

namespace rbs {

class ServoConstraintPd : public Controller {
 public:
  /// Throws ControlError for a model it cannot handle, or an unknown option or value.
  ServoConstraintPd(const Model& model, const ControllerSettings& settings);

  std::string_view name() const override { return "servo_constraint_pd"; }
  bool compute(double t, const State& state, const ReferenceSample& reference, VecX& u) override;
  void updateSignals() override;

  /// Computes the feedforward now if its parameters changed since the last time (compute() does
  /// the same lazily). False (message()) when the inversion fails or diverges; feedforward() then
  /// still holds what the solver reached (e.g. the diverging forward integration).
  bool prepareFeedforward();
  const ServoFeedforward& feedforward() const { return feedforward_; }
  /// The desired motion and feedforward input at t (prepareFeedforward() first).
  bool sampleFeedforward(double t, ServoPoint& out);
  ServoInverseModel& inverseModel() { return inverse_; }
  const ServoStructure& structure() const { return inverse_.structure(); }

 private:
  const Model& model_;
  ServoInverseModel inverse_;
  TrackingErrors tracking_;
  bool geometric_gamma_ = false;
  bool mass_scaling_ = true;
  int end_effector_body_ = -1;
  int plane_axes_[2] = {0, 1};
  struct Parameters {
    Parameter omega, zeta;  // the PD loop
    Parameter exact_output, stable_inversion, pre_actuation, post_actuation, inversion_step;
    Parameter center_x, center_y, radius, angle_start, angle_end, cart_start, cart_end, t_start, duration, degree;
    Parameter end_effector[3];
    std::vector<Parameter> gamma;  ///< per passive coordinate
  } p_;
  std::vector<Parameter> feedforward_parameters_;  ///< the ones that shape the feedforward
  std::vector<double> prepared_values_;   ///< their values at the last preparation
  bool prepared_ = false;
  std::uint64_t prepared_version_ = 0;    ///< parameters().version() at the last check
  ServoFeedforward feedforward_;

  Workspace ws_, ws_ref_;
  PlantTerms plant_;
  ServoPoint point_;    ///< desired motion at the last compute()
  VecX x_;              ///< configuration at the last compute()
  VecX error_, error_rate_, feedback_;
  SignalSlot tracking_signals_;
  SignalSlot end_effector_signals_;  ///< error.end_effector, error.end_effector_path
  SignalSlot feedforward_signals_;   ///< per input
};

/// The registry's factory for "servo_constraint_pd".
std::unique_ptr<Controller> makeServoConstraintPd(const Model& model,
                                                  const ControllerSettings& settings);

}  // namespace rbs
