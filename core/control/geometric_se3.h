// Geometric tracking control on SE(3) of a multicopter (Lee, Leok, McClamroch, "Geometric
// tracking control of a quadrotor UAV on SE(3)", CDC 2010), written for z up and the model's
// gravity a_G (the paper has z down and +m g e₃):
//   e_x = r − r_d,  e_v = ṙ − ṙ_d,
//   F   = −k_x e_x − k_v e_v − m a_G + m r̈_d                      (desired force, world)
//   f   = F · R e₃                                               (thrust along body +z)
//   R_c = [b₁c, b₃c × b₁c, b₃c],  b₃c = F/|F|,  b₂c ∥ b₃c × b₁d,  b₁d = R_d e₁ (heading)
//   e_R = ½ vee(R_cᵀ R − Rᵀ R_c),  e_Ω = Ω − Rᵀ R_c Ω_c
//   M   = −k_R e_R − k_Ω e_Ω + Ω × J Ω − J (Ω̂ Rᵀ R_c Ω_c − Rᵀ R_c Ω̇_c)
// R_c tilts the thrust towards the position error; its heading axis b₁d = R_d e₁, r_d and its
// derivatives, Ω_d and Ω̇_d come from the ReferenceSample of the base joint (ξ_R = [v; Ω_d],
// r̈_d = R_d (v̇ + Ω_d × v)). Ω_c = vee(R_cᵀ Ṙ_c) is the exact derivative of R_c, with Ḟ from the
// CoM acceleration the thrust produces, a_G + f R e₃/m, and the reference jerk estimated as
// R_d Ω_d × (r̈_d − a_G) (ReferenceSample has no jerk; exact for a flat-output reference of
// constant thrust, and its part normal to the thrust, all that matters at zero error, is exact
// for every flat-output reference). Ω̇_c would need F̈ (snap): it is replaced by the reference's
// R_c Ω̇_c ≈ R_d Ω̇_d. Without the Ω_c term the paper's gains give an unstable cascade (the
// attitude loop lags the commanded tilt), with it the loop is stable for them. On a reference
// whose thrust axis R_d e₃ is along r̈_d − a_G (flat-output attitude) R_c = R_d, Ω_c = Ω_d at
// zero error: the law is exact there (perfect tracking).
//
// Vehicle: the base joint (tracking.h) must be free or free_quaternion; r, R, Ω are those of the
// joint's moving frame (the body frame unless the joint has a child placement). m and J are the
// total mass and the inertia about the total centre of mass (body axes) of the base and every
// body below it, evaluated at the current configuration: for a rigid vehicle just the base body,
// for an arm on the vehicle the composite body frozen in its current shape (an approximation: the
// arm's relative motion is treated as a disturbance). The translational law acts on that centre of
// mass, so a CoM away from the frame origin is accounted for: r_d, ṙ_d, r̈_d are the reference's
// CoM (composite, from the reference configuration) and the body wrench at the frame origin is
// [0, 0, f, M + s × f e₃] with s the CoM in body axes.
// Allocation: u = B_b⁺ w, the minimum-norm least-squares solution with B_b the base rows of B
// (control.wrench_residual reports what it cannot produce, e.g. a yaw moment of coplanar rotors
// without drag torques); the simulator applies the input limits. Inputs without base authority
// (joint efforts of an arm) get 0.
//
// Parameters (log scale; defaults scale the paper's gains, k_x = 16 m, k_v = 5.6 m,
// k_R = 8.81 N m and k_Ω = 2.54 N m s for J_xx = 0.082 kg m², to the vehicle's m and
// J_t = max(J_xx, J_yy) at the initial state):
//   kx      [N/m]        1e-3 … 1e5     default 16 m
//   kv      [N s/m]      1e-3 … 1e4     default 5.6 m
//   kR      [N m/rad]    1e-4 … 1e4     default 107.4 J_t
//   kOmega  [N m s/rad]  1e-5 … 1e3     default 31.0 J_t
// Option: tracked_body (tracking.h).
#pragma once

#include <memory>
#include <vector>

#include "core/control/baseline_support.h"
#include "core/control/controller.h"
#include "core/control/settings.h"
#include "core/control/tracking.h"

namespace rbs {

class GeometricSe3Controller final : public Controller {
 public:
  /// Throws ControlError for an unknown option, a model without a free or free_quaternion base
  /// joint, loop closures, or inputs that cannot produce a thrust along the base z axis and
  /// moments about its x and y axes.
  GeometricSe3Controller(const Model& model, const ControllerSettings& settings);

  std::string_view name() const override { return "geometric_se3"; }
  bool compute(double t, const State& state, const ReferenceSample& reference, VecX& u) override;

 private:
  /// Mass m, CoM position and velocity (world), and, when `J` is given, the CoM in body axes s
  /// and the inertia about the CoM in body axes, of the bodies that move with the base.
  /// With `xidot` also the CoM acceleration (requires the body Jacobians in `ws`).
  void composite(const Workspace& ws, const Pose& frame, const VecX* xidot, Vec3& com,
                 Vec3& com_velocity, Vec3* com_acceleration, Vec3* s, Mat3* J) const;
  Pose movingFrame(const Workspace& ws) const;

  const Model& model_;
  int base_joint_ = -1;
  int base_body_ = -1;
  std::vector<int> bodies_;  // the base and its descendants
  double mass_ = 0.0;
  TrackingErrors tracking_;
  Parameter kx_, kv_, kR_, kOmega_;
  SignalSlot tracking_signals_, signal_thrust_, signal_moment_, signal_attitude_, signal_residual_;

  Workspace ws_, ws_ref_;
  baseline::MinimumNormLeastSquares allocation_;
  VecX wrench_;
};

/// The registry's factory for "geometric_se3".
std::unique_ptr<Controller> makeGeometricSe3(const Model& model,
                                             const ControllerSettings& settings);

}  // namespace rbs
