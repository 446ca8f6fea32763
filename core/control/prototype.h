// The prototype-template controllers "prototype_particle", "prototype_body" and
// "prototype_energy" (thesis chapter 4, konz-control §9 "THE recipe"): a template of springs,
// dampers and inertias between frame pairs (PrototypeTemplate) realized by input allocation
// (Allocator): exactly when fully actuated, in the M̄-weighted least-squares sense when
// underactuated, and by the box QP when inputs saturate.
//
// Options (scene `controller.options`):
//   template    base | joints | base_joints | tool  — where the template's pairs sit:
//               base:   one pair world → the base body (free, planar or spherical root joint);
//               base_joints: the base pair plus a pair across every other joint (vehicles with
//                       an arm, tilt servos or propellers: M̄ must be positive definite, so every
//                       coordinate needs a pair); the joint pairs take joint_mbar, joint_thetabar,
//                       joint_omega, joint_zeta;
//               joints: one pair across every joint (joint frame before → after the motion), i.e.
//                       joint-space gains about each joint axis;
//               tool:   one pair world → a point/frame on `tool_body` (tool_x/y/z parameters).
//               Default: base when the model has a base joint, else joints.
//   gains       raw | natural | poles — raw: total and moments of M̄', D̄', K̄' (moments about
//               their centres, thesis §4.8.2 convention); natural: m̄ and Θ̄ with natural
//               frequency ω and damping ratio ζ (k̄ = m̄ω², d̄ = 2ζωm̄, Π̄ = Θ̄ω_r², Ῡ = 2ζ_rω_rΘ̄);
//               poles: only with matching pvtol or multicopter — quadruple pole −p of the
//               matched tilt/translation quartic ((4.140)–(4.142), with the p0 p3² fix).
//               Default: raw.
//   matching    none | multicopter | pvtol | two_mass — the linear matching solutions
//               (4.148), (4.136), (4.125) fill the dependent parameters (Λ_K = Λ_D = 0).
//   allocation  auto | exact | least_squares | constrained (auto: constrained when an input has
//               a finite bound, else least squares, which is exact for p = n). It is also the
//               choice parameter "allocation" (exact only for p = n), switchable during a run.
//   recovery    on | off — large errors of a vehicle on a free root joint whose thrust axis is
//               the base's z (docs/CONTROL.md "Recovery"): the bounded template (parameter
//               force_limit: the largest pull of its springs at their centres), strict allocation
//               priorities (tilt, then the thrust along body z, then the template metric; while
//               stabilizing a vehicle with a yaw authority like its tilt authority stops its spin
//               first), and the supervisor of core/control/recovery.h with the stabilizing
//               template (the plant's own inertia, the thrust direction and altitude, no heading
//               spring: parameter recovery_omega). Default off.
//   rejoin_heading  vehicle | manoeuvre — recovery: the heading the manoeuvre is rejoined at
//               (RejoinHeading). Default vehicle.
//   tracked_body  the body whose errors are reported (TrackingErrors).
//   tool_body   for template: tool.
#pragma once

#include <memory>

#include "core/control/allocation.h"
#include "core/control/controller.h"
#include "core/control/plant.h"
#include "core/control/prototype_template.h"
#include "core/control/recovery.h"
#include "core/control/settings.h"
#include "core/control/tracking.h"
#include "core/dynamics/workspace.h"
#include "core/math/cached_llt.h"

namespace rbs {

class PrototypeController : public Controller {
 public:
  PrototypeController(const Model& model, VelocityError variant, const ControllerSettings& settings);

  std::string_view name() const override;
  bool compute(double t, const State& state, const ReferenceSample& reference, VecX& u) override;
  void updateSignals() override;
  bool plantRate(const Model& plant, const State& state, const VecX& u, double stabilization_gain, VecX& xdot,
                 VecX& xidot) override;
  Recovery* recovery() override { return recovery_.get(); }

  /// The template as the last compute() built it from the parameters (tests, the GUI's poles).
  const PrototypeTemplate& prototype() const { return template_; }
  const TemplateEvaluation& lastTemplate() const { return evaluation_; }
  const AllocationResult& lastAllocation() const { return allocation_; }
  /// The last compute() allocated by inverse dynamics, without forming M (docs/CONTROL.md).
  bool allocatedByInverseDynamics() const { return plant_terms_skipped_; }

 private:
  enum class Layout { Base, Joints, BaseJoints, Tool };
  enum class Gains { Raw, Natural, Poles };
  enum class Matching { None, Multicopter, Pvtol, TwoMass };

  /// Declares the parameters of the template's matching × gains × layout; fills p_.
  void declareParameters();
  /// Recomputes the pairs' moment matrices from the parameter values (when they changed).
  void updatePairs();
  /// recovery: each pair's force_limit (the base pair's from the parameter, the others' infinite).
  void updateForceLimits();
  /// recovery: the stabilizing template (docs/CONTROL.md "Recovery"), from the plant and the
  /// parameters recovery_omega and force_limit.
  void makeStabilizingTemplate();
  void updateStabilizingTemplate();
  /// recovery: the allocation's strict priorities (tilt, thrust; spin_first_ and the stabilizing
  /// levels with the spin first), from the plant's input matrix at the initial state.
  void makeRecoveryPriorities();
  /// recovery: the levels of the phase (none while tracking; the stabilizing ones for a spin_first_
  /// vehicle while it stabilizes).
  void selectPriorities();
  /// The template of the recovery phase: the stabilizing one while stabilizing, else the scene's.
  PrototypeTemplate& activeTemplate();
  /// base_joints: the joint pairs from joint_mbar, joint_thetabar, joint_omega, joint_zeta.
  void updateJointPairs();
  /// The allocation by inverse dynamics (see inverse_dynamics_inputs_): Done when it gave u,
  /// NotApplicable when the general path has to (no such model, u₀ outside the bounds or not
  /// finite), Failed (reported through fail()) for a desired inertia that is not positive definite.
  /// Fills inverse_dynamics_inputs_ and mass_matrix_definite_everywhere_ from the model.
  void decideInverseDynamicsAllocation();
  enum class FastAllocation { Done, NotApplicable, Failed };
  FastAllocation allocateByInverseDynamics(const State& state, const ReferenceSample& reference, VecX& u);
  /// ξ̇ = M⁻¹(B u − b) for the applied u at the last compute()'s state (the plant terms are
  /// evaluated here when the inverse-dynamics allocation skipped them).
  void actualAcceleration(const VecX& u, VecX& xidot);
  /// u is, bit for bit, the input the last compute() gave (then M u's acceleration is a_des).
  bool isOwnInput(const VecX& u) const;

  /// The parameters declareParameters() declared for this combination; the others stay
  /// undeclared (reading one is a programming error, core/control/parameters.h).
  struct TemplateParameters {
    Parameter mbar, thetabar_axes[3];                  // base pair inertia (matching none)
    Parameter dbar, kbar;                              // raw translational gains
    Parameter upsilonbar_axes[3], pibar_axes[3];       // raw rotational gains (base, matching none)
    Parameter sbar_axes[3], lbar_axes[3], hbar_axes[3];  // raw centres (base, matching none)
    Parameter omega, zeta, omega_rot, zeta_rot;        // natural gains
    Parameter pole;                                    // gains poles
    Parameter hbar_thrust, sbar_thrust, epsilon;       // multicopter / PVTOL raw: along the thrust axis
    Parameter heading_thetabar, heading_upsilonbar, heading_pibar;  // multicopter: the free heading channel
    Parameter mbar_1, mbar_2, mbar_12, dbar_1, kbar_1;  // two-mass
    Parameter thetabar, upsilonbar, pibar;             // joint and tool pairs: isotropic
    Parameter tool[3];                                 // tool point
    Parameter joint_mbar, joint_thetabar, joint_omega, joint_zeta;  // base_joints: the joint pairs
    Parameter force_limit;                             // recovery: the bounded template's largest pull
    Parameter recovery_omega;                          // recovery: the stabilizing template's tilt frequency
  } p_;

  const Model& model_;
  Layout layout_ = Layout::Base;
  Gains gains_ = Gains::Raw;
  Matching matching_ = Matching::None;
  AllocationMode allocation_mode_ = AllocationMode::LeastSquares;
  std::vector<AllocationMode> allocation_modes_;  ///< the values of the parameter "allocation"
  Parameter p_allocation_;
  int base_body_ = -1;
  int tool_body_ = -1;
  double gravity_ = 9.81;
  double two_mass_varpi_ = 0.0;
  std::size_t first_joint_pair_ = 0;  ///< layouts joints and base_joints: the first joint pair

  PrototypeTemplate template_;
  bool recovery_requested_ = false;
  std::unique_ptr<Recovery> recovery_;
  PrototypeTemplate stabilizing_;       ///< recovery: the stabilizing template
  PrototypeTemplate* evaluated_template_ = nullptr;  ///< the template the last compute() evaluated
  std::size_t stabilizing_joint_pairs_ = 0;  ///< index of the first joint pair in stabilizing_
  std::uint64_t stabilizing_version_ = ~std::uint64_t{0};
  double stabilizing_spin_ = -1.0;      ///< the spin the stabilizing template was made for [rad/s]
  double composite_mass_ = 0.0;         ///< recovery: of every body that moves with the base
  bool spin_first_ = false;             ///< recovery: stop the spin before tilting while stabilizing
  std::vector<Allocator::PriorityLevel> recovering_priorities_, stabilizing_priorities_;
  /// recovery: the allocation's levels in effect — none while tracking, tilt and thrust first
  /// while recovering, the spin before them while a spin_first_ vehicle stabilizes.
  enum class PriorityLevels { None, TiltFirst, SpinFirst };
  PriorityLevels active_priorities_ = PriorityLevels::None;
  Vec3 composite_inertia_ = Vec3::Zero();  ///< recovery: the diagonal of the composite inertia about the composite CoM in base axes (initial state)
  TrackingErrors tracking_;
  Workspace ws_, ws_ref_;
  PlantTerms plant_;
  Allocator allocator_;
  TemplateEvaluation evaluation_;
  AllocationResult allocation_;
  VecX lower_, upper_;
  VecX x_, x_ref_;
  std::uint64_t parameters_version_ = ~std::uint64_t{0};
  bool transport_map_checked_ = false;
  /// plant_, allocator_'s factorization of M and ws_'s kinematics belong to the state of the last
  /// compute(), which succeeded: plantRate() may use them.
  bool plant_terms_valid_ = false;
  bool plant_b_shifted_ = false;  ///< the last compute() subtracted an external-force estimate from b

  /// One joint-effort input per velocity coordinate (B constant and invertible), no input sets, no
  /// loop closures, no force term that depends on u but B u: then every allocation mode's
  /// unconstrained optimum is u₀ = B⁻¹(b + M a_des) with a_des = −M̄⁻¹ b̄ (4.51, (4.53) with B
  /// invertible), which the recursive Newton–Euler pass gives without M, c, f_G or any
  /// factorization of M (computeInverseDynamicsForces). Within the bounds it is the answer; the
  /// plant then accelerates at a_des. The velocity coordinate of each input; empty: no such model.
  std::vector<int> inverse_dynamics_inputs_;
  /// M(x) is positive definite at every x (every moving body has a positive definite spatial
  /// inertia, no joint parameterization with singular points): the shared rate a_des needs no test.
  bool mass_matrix_definite_everywhere_ = false;
  bool plant_terms_skipped_ = false;  ///< the last compute() took the inverse-dynamics allocation
  bool late_plant_terms_ = false;     ///< ... and plant_ was evaluated afterwards (actualAcceleration)
  VecX desired_acceleration_;         ///< a_des = −M̄⁻¹ b̄ of the last compute()
  VecX inverse_dynamics_forces_;      ///< M a_des + c + f_G (+ f_K + f_D) at the last state
  CachedLlt<MatX> mbar_factor_;       ///< of M̄ (the inverse-dynamics allocation)
  VecX xi_;                           ///< ξ of the last compute() (for late plant terms)
  VecX xi_ref_;                       ///< ξ_R of the last compute() (for the reference's kinematics)
  /// control.energy, energy_kinetic, energy_potential, energy_rate, template_power,
  /// matching_residual, template_deviation, saturated: entries of control_signals_ in this order.
  enum ControlSignal { kEnergy, kKinetic, kPotential, kEnergyRate, kTemplatePower, kMatchingResidual,
                       kTemplateDeviation, kSaturated };
  SignalSlot tracking_signals_, control_signals_, saturation_signals_, input_set_signals_;
  SignalSlot recovery_signals_;  ///< control.recovery (the phase), control.delay
  double last_t_ = 0.0;          ///< t of the last compute()
};

std::unique_ptr<Controller> makePrototypeController(const Model& model, VelocityError variant,
                                                    const ControllerSettings& settings);

}  // namespace rbs
