// "tiltrotor_inversion": the tricopter force control of thesis §5.3.3 (konz-multicopters §A.6)
// behind a body-based prototype template of the vehicle's base.
//
// 1. The template (thesis 4.2, one pair world → base, s̄ = l̄ = h̄ = 0, natural gains) gives the
//    desired base acceleration a_des = −M̄⁻¹ b̄; with the joints' accelerations taken as zero, the
//    desired generalized force of the base rows is f_D = M_bb a_des + b_b (the plant's own terms,
//    so the arms' and propellers' inertia and gyroscopy are included), the base rows of M ξ̇ + b at
//    ξ̇ = (a_des, 0): one Newton–Euler pass, without forming M or the body Jacobians.
// 2. Every thrust actuator (a body_force on a body below a revolute "tilt" joint whose parent is
//    the base) contributes a vertical part along its direction at zero tilt and a horizontal part
//    along axis × direction; the 6×2K matrix of those wrenches (5.16c) is inverted (least squares
//    for K ≠ 3): F^{VH} = B⁺ f_D, then per arm F = |(F^V, F^H)|, θ_D = atan2(F^H, F^V) (5.28),
//    clamped to the thrust actuators' limits and ±tilt_max.
// 3. A servo actuator on the tilt joint (type servo: the PD loop (5.2) is in the plant) gets θ_D
//    itself; a torque input there gets the PD loop of (5.2) closed here, scaled by the tilt joint's
//    inertia (servo_omega, servo_zeta). A motor (joint_effort on the propeller's joint) holds the
//    propeller's initial speed. Other inputs are zero. With propeller models the controller runs on
//    the force model and core/control/actuation.h turns the thrusts into motor currents.
//
// Options: tracked_body; recovery on | off (default off; docs/CONTROL.md "Recovery"): the base pair
// bounded (parameter force_limit), step 2 with strict priorities when the arms saturate (prioritize),
// and the recovery supervisor (core/control/recovery.h), whose phases this controller flies with its
// own template.
#pragma once

#include <array>
#include <memory>
#include <optional>
#include <vector>

#include "core/control/controller.h"
#include "core/control/prototype_template.h"
#include "core/control/recovery.h"
#include "core/control/settings.h"
#include "core/control/tracking.h"
#include "core/math/cached_llt.h"
#include "core/math/lexicographic_qp.h"

namespace rbs {

class TiltrotorInversion : public Controller {
 public:
  /// Throws ControlError when the model has no free base, no tilted thrust, or the thrust
  /// wrenches cannot span the six base directions.
  TiltrotorInversion(const Model& model, const ControllerSettings& settings);

  std::string_view name() const override { return "tiltrotor_inversion"; }
  bool compute(double t, const State& state, const ReferenceSample& reference, VecX& u) override;
  /// The tracking errors of the last compute().
  void updateSignals() override;
  Recovery* recovery() override { return recovery_.get(); }

 private:
  struct Rotor {
    int thrust = -1;      ///< actuator index of the thrust
    int tilt_joint = -1;  ///< the revolute joint it tilts with
    int servo = -1;       ///< actuator on the tilt joint, −1 if none
    int spin_joint = -1;  ///< the propeller's own joint, −1 if none
    int motor = -1;       ///< actuator on the spin joint, −1 if none
    double spin_rate = 0.0;  ///< initial propeller speed, held by the motor [rad/s]
  };
  void updateTemplate();
  /// f_D = M_bb a_des + b_b (step 1): the base rows of M ξ̇ + b at ξ̇ = (a_des on the base, 0
  /// elsewhere), by one inverse-dynamics pass (O(n), no M) plus f_K, f_D, −f_E(u = 0) and the
  /// external-force estimate. Requires the kinematics of `state` in ws_.
  Vec6 desiredBaseForce(const State& state, const Vec6& a_des);
  /// Whether F^{VH} asks some arm for a thrust or tilt beyond its limits.
  bool beyondLimits(const VecX& vh, double tilt_max) const;
  /// Recovery: F^{VH} for f_D under strict priorities within the arms' limits (docs/CONTROL.md
  /// "Recovery", "Tilting rotors"): the base torques about x and y first, the force along z next,
  /// both as far as the thrusts along the arms (the V parts) make them, then the whole wrench in
  /// the metric of the template's inertia. False (vh left alone) when there is no polygon for
  /// tilt_max or the QP fails.
  bool prioritize(const Vec6& f_D, double tilt_max, VecX& vh);

  const Model& model_;
  int base_joint_ = -1;
  std::vector<Rotor> rotors_;
  MatX wrench_map_;      ///< 6×2K: base wrench per unit vertical / horizontal thrust (5.16c)
  MatX wrench_inverse_;  ///< 2K×6: its (pseudo-)inverse, constant, so computed once
  VecX vertical_horizontal_;  ///< F^{VH} of the last compute()
  std::unique_ptr<Recovery> recovery_;
  Parameter force_limit_;  ///< recovery: the base pair's largest pull
  SignalSlot recovery_signals_;  ///< control.recovery (the phase), control.delay
  double last_t_ = 0.0;
  /// prioritize(): the arms' polygons (annularSectorPolygon) for the tilt limit they were made for.
  MatX arm_rows_;
  VecX arm_bounds_;
  double arm_rows_tilt_ = -1.0;
  std::optional<LexicographicQp> priority_qp_;
  std::array<LexicographicQp::Level, 2> priority_levels_;
  MatX weighted_map_;     ///< D W, D = diag(1/m̄, 1/m̄, 1/m̄, 1/Θ̄): the wrench rows as accelerations
  MatX priority_metric_;  ///< Wᵀ D W
  PrototypeTemplate template_;
  TrackingErrors tracking_;
  Workspace ws_, ws_ref_;
  TemplateEvaluation evaluation_;
  CachedLlt<Mat6> mbar_factor_;  ///< of the base block of M̄
  /// A torque input on a tilt joint or a motor needs that joint's diagonal entry of M.
  bool joint_inertia_needed_ = false;
  /// f_E(u = 0) reaches the base rows (external wrenches, propeller aerodynamics): desiredBaseForce
  /// subtracts it.
  bool forces_at_zero_input_ = false;
  VecX acceleration_, forces_, zero_inputs_;  ///< desiredBaseForce's workspace
  VecX x_, x_ref_, xi_ref_;  ///< state and reference of the last compute() (tracking errors)
  std::uint64_t parameters_version_ = ~std::uint64_t{0};
  Parameter mbar_, omega_, zeta_, omega_rot_, zeta_rot_, tilt_max_, servo_omega_, servo_zeta_, motor_gain_;
  Parameter thetabar_[3];  ///< x, y, z
  SignalSlot tracking_signals_, tilt_command_signals_;  ///< the latter: one per rotor
};

std::unique_ptr<Controller> makeTiltrotorInversion(const Model& model, const ControllerSettings& settings);

}  // namespace rbs
