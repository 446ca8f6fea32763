// The prototype ("closed-loop template") of thesis chapter 4: springs, dampers and inertias
// between pairs of frames (a, b), acting on the error between the actual pair pose ^a_bG(x) and
// the reference pair pose ^a_bG(x_R), give the desired kinetics  M̄(x) ξ̇ + b̄ = 0  (4.66j).
// The three velocity-error variants (konz-control §6, recipe §9 step 6):
//   Particle  4×4 point-velocity error wed(Jξ) − G_E⁻¹ wed(J_R ξ_R)                 (4.66c,d)
//   Body      pair error twist ξ_E = Jξ − Ad_{G_E}⁻¹ J_R ξ_R, gyroscopic −ad_{ξ_E}ᵀ M̄ ξ_E  (4.66e,f)
//   Energy    the same error twist with the Levi-Civita term C̄(Jξ) ξ_E                (4.66g–i)
// The energy variant is written pair by pair: when a transport map Q with ^a_bJ Q =
// Ad_{G_E}⁻¹ ^a_bJ_R exists for every pair (joint-space pairs, a single free body), then
// J(ξ − Qξ_R) is the pair error twist and (4.66g–i) reduces to the body form with C̄(Jξ) in place
// of −ad_{ξ_E}ᵀ M̄ — no explicit Q or J̇ matrix needed. transportMapResidual() checks the
// condition.
#pragma once

#include <string>
#include <vector>

#include "core/control/plant.h"
#include "core/control/reference.h"
#include "core/dynamics/workspace.h"

namespace rbs {

using Mat6X = Eigen::Matrix<double, 6, Eigen::Dynamic>;

enum class VelocityError { Particle, Body, Energy };

/// One spring–damper–inertia triple of the template between frame a (may be the world) and
/// frame b, in the 4×4 moment form of (3.91)/(4.12): X' = [Σ x_p h_p h_pᵀ, x h; x hᵀ, x].
struct TemplatePair {
  std::string name;
  Frame a, b;
  /// ≥ 0 when a and b are this joint's own frames, a = (parent, T_p) and b = (child, T_c⁻¹) with
  /// G_e = T_p · motion · T_c: the pair's Jacobian is then Ad_{T_c} S_e in the joint's columns and
  /// zero elsewhere, and the template skips the full-width products. Not for spherical_absolute
  /// joints, whose edge Jacobian reaches into the ancestors' columns. (A pair from the world to a
  /// root joint's child spans that joint without this index: PrototypeTemplate::spannedJoint.)
  int joint = -1;
  Mat4 inertia = Mat4::Zero();    ///< M̄'
  Mat4 damping = Mat4::Zero();    ///< D̄'
  Mat4 stiffness = Mat4::Zero();  ///< K̄'
  /// > 0: the bounded template of large errors (boundedStiffness; docs/CONTROL.md "Recovery"),
  /// whose spring at the stiffness centre never pulls harder than this [N]. 0: the thesis'
  /// quadratic potential (4.20a).
  double force_limit = 0.0;
  /// With force_limit > 0: the rotation energy depends on the angle between the frames' z axes
  /// only (a thrust direction without a heading; boundedStiffness), Π̄ = ½(Π̄_x + Π̄_y).
  bool tilt_only = false;
};

/// The stiffness force and energy of a pair with force_limit > 0 (issue 46). K̄' splits into a
/// spring of stiffness k = K̄'₄₄ at the centre h = K̄'₁:₃,₄ / k and a rotation about it,
/// K̄' = [K_c + k h hᵀ, k h; k hᵀ, k] with K_c = Wed(Π) (momentMatrix), so that the quadratic
/// energy is ½ k |d|² + tr((I − R_E) K_c), d = R_E h + t_E − h the displacement of the centre seen
/// from the reference frame. The bounded template keeps this split with
///   spring:   V = k σ² (√(1 + |d|²/σ²) − 1), σ = force_limit / k,
///             force at the centre k d / √(1 + |d|²/σ²): at most force_limit, k d (1 + O(|d|²/σ²));
///   rotation: V = 4 q_vᵀ Π q_v / (1 + w) for R_E = (w, q_v), w ≥ 0 (the turn angle θ ≤ π): for
///             Π = π I this is 4π (1 − cos(θ/2)), a torque 2π sin(θ/2) that grows up to θ = π
///             instead of vanishing there as the trace energy's π sin θ does, so that a vehicle
///             upside down is still turned back; ½ θ² nᵀΠn to second order, as the trace energy.
///   tilt only (`tilt_only`): V = 4 Π̄ (1 − cos(α/2)) of the angle α between the z axes (α ≤ π),
///             Π̄ = ½(Π_x + Π_y): the same torque law about the axis e_z × R_Eᵀ e_z, nothing
///             about z.
/// Both have the quadratic template's Hessian at G_E = I (tilt only: in the tilt directions), so
/// the linearization (4.48) and its eigenvalues stay those of the thesis' template. `force` is the
/// gradient in the pair's body coordinates, [f; τ] with dV = forceᵀ δ for G_E → G_E exp(wed δ)
/// (the convention of vee2(…)).
void boundedStiffness(const Mat4& stiffness, double force_limit, bool tilt_only, const Pose& G_E, Vec6& force,
                      double& energy);

/// 4×4 moment matrix from total x, centre c (frame b) and the 3×3 moment tensor about the centre
/// (inertia-tensor form, e.g. diag(Θ̄_x, Θ̄_y, Θ̄_z)): [Wed(Θ_c) + x c cᵀ, x c; x cᵀ, x].
Mat4 momentMatrix(double total, const Vec3& centre, const Mat3& moment_about_centre);

/// Sets a pair with centres at the frame origin from natural frequencies and damping ratios:
/// M̄' of (m̄, Θ̄ = diag θ̄), k̄ = m̄ω², d̄ = 2ζωm̄ and per axis Π̄ = Θ̄ω_r², Ῡ = 2ζ_rω_rΘ̄
/// (konz-control §7: the thesis' heading rule applied to every channel).
void setNaturalGains(TemplatePair& pair, double mass, const Vec3& theta, double omega, double zeta,
                     double omega_rot, double zeta_rot);

/// Result of one evaluation. Energies are the error energies of the template (konz-control
/// §12.4): T̄, V̄ and the Rayleigh function R̄ (template power −2R̄ for body and energy).
struct TemplateEvaluation {
  MatX Mbar;  ///< M̄(x) = Σ Jᵀ Vee(M̄') J (4.66a), n×n
  VecX bbar;  ///< b̄ = c̄ + f̄_D + f̄_K (4.66j), n
  double kinetic = 0.0;
  double potential = 0.0;
  double rayleigh = 0.0;
};

/// Per-pair quantities kept between evaluate() and energyRate().
struct PairState {
  Pose G_E;                         ///< ^a_bG(x_R)⁻¹ ^a_bG(x)
  Vec6 twist, bias;                 ///< Jξ, J̇ξ at x
  Vec6 ref_twist, ref_acceleration; ///< J_R ξ_R, J_R ξ̇_R + J̇_R ξ_R at x_R
  Vec6 error_twist;                 ///< Jξ − Ad_{G_E}⁻¹ J_R ξ_R
  Vec6 stiffness_force;             ///< vee2((I − G_E⁻¹) K̄')
  Vec6 error_acceleration;          ///< d/dt ξ_E minus J ξ̇ (body form, (4.66f))
  Mat4 point_velocity_error;        ///< particle: wed(Jξ) − G_E⁻¹ wed(J_R ξ_R)
  /// Vee(M̄'), Vee(D̄') (3.83b) and the moment matrices they came from: formed again only when the
  /// pair's matrices change (a parameter edit), not in every evaluation.
  Mat4 inertia_moment = Mat4::Constant(NAN), damping_moment = Mat4::Constant(NAN);
  Mat6 inertia_6 = Mat6::Zero(), damping_6 = Mat6::Zero();
  /// The joint the pair spanned when J and J_R were last laid out (spannedJoint; such pairs write
  /// their joint's columns only).
  int jacobian_joint = -2;
  /// A pair across a revolute or revolute_unit_circle joint: J = J_R = [0; a] with a the joint
  /// axis, constant, written at the layout (evaluateRotationPair).
  bool rotation_pair = false;
  /// A pair across a free joint without child placement: J = J_R = S_e = I in the joint's columns
  /// (body-twist coordinates), so M̄ and b̄ take the pair's Vee(M̄') and force as they are.
  bool identity_jacobian = false;
};

class PrototypeTemplate {
 public:
  PrototypeTemplate(const Model& model, std::vector<TemplatePair> pairs, VelocityError variant);

  const std::vector<TemplatePair>& pairs() const { return pairs_; }
  /// For edits: the pairs' joints and frames are laid out again at the next evaluation.
  std::vector<TemplatePair>& pairs() {
    layout_valid_ = false;
    return pairs_;
  }
  VelocityError variant() const { return variant_; }
  void setVariant(VelocityError v) { variant_ = v; }

  /// ws: computeKinematics + computeBodyJacobians at (x, ξ); ws_ref: the same at (x_R, ξ_R)
  /// (the body Jacobians only when some pair spans no joint).
  /// Writes M̄, b̄ and the energies into `out` (sized on first use).
  void evaluate(const Workspace& ws, const Workspace& ws_ref, const VecX& xi, const VecX& xidot_ref,
                TemplateEvaluation& out);

  /// The whole step of a template controller: the plant terms at the state (evaluatePlant into
  /// `plant`, kinematics into `ws`), the reference into `ws_ref` as in evaluateKinematicsOnly, then
  /// evaluate().
  void evaluateWithPlant(const State& state, const ReferenceSample& reference, Workspace& ws,
                         Workspace& ws_ref, PlantTerms& plant, TemplateEvaluation& out);
  /// evaluateWithPlant without the plant terms: the kinematics at the state into `ws` (and the body
  /// Jacobians when a pair needs them), the reference's into `ws_ref`, then evaluate(). When every
  /// pair spans a joint (spannedJoint), only those joints' own motions of the reference
  /// (ws_ref.joint) are evaluated: ws_ref's body poses and twists are then not the reference's
  /// until completeReferenceKinematics().
  void evaluateKinematicsOnly(const State& state, const ReferenceSample& reference, Workspace& ws,
                              Workspace& ws_ref, TemplateEvaluation& out);
  /// The reference's body kinematics into ws_ref (for tracking errors and plots) when the last
  /// evaluation read only its joints' motions; otherwise ws_ref holds them already.
  void completeReferenceKinematics(const VecX& x_ref, const VecX& xi_ref, Workspace& ws_ref);

  /// dW̄/dt for the actual acceleration ξ̇ (after evaluate() at the same state): compares with the
  /// template power −2R̄ (approach 2/3: equal when the template is realized, single body).
  double energyRate(const VecX& xidot) const;

  /// max over pairs of ‖J Q − Ad_{G_E}⁻¹ J_R‖ / max(1, ‖J_R‖) with Q = J_s⁺ (stacked) — zero when
  /// a transport map in the sense above exists. After evaluate().
  double transportMapResidual() const;

 private:
  /// ^a_bG, ^a_bJ, ^a_bJ ξ and ^a_bJ̇ ξ of pair p; `spanned_joint` = spannedJoint(p).
  void pairJacobian(const Workspace& ws, const TemplatePair& p, int spanned_joint, Pose& G, Mat6X& J,
                    Vec6& twist, Vec6& bias) const;
  /// pairJacobian for a pair that spans a joint (spannedJoint ≥ 0): J is zero outside the joint's
  /// columns, which receive Ad_{T_c} S_e.
  void jointPairJacobian(const Workspace& ws, int joint_index, Pose& G, Mat6X& J, Vec6& twist,
                         Vec6& bias) const;
  /// evaluate() for a rotation pair (PairState::rotation_pair) in the body and energy variants, in
  /// scalars: J = [0; a], G_E is a rotation about a, and the general terms reduce to sums over a
  /// (derivation in the .cpp). Fills `s` as the general path does and adds to M̄, b̄ and energies.
  void evaluateRotationPair(const Workspace& ws, const Workspace& ws_ref, const VecX& xidot_ref, int joint_index,
                            const TemplatePair& p, PairState& s, TemplateEvaluation& out) const;
  /// The joint whose frames the pair spans: TemplatePair::joint, or, for a pair from the world to
  /// the child of a root joint without placements (a base pair of a free-flying vehicle), that
  /// root joint, whose motion is then the body's pose, twist and bias. −1 for any other pair.
  int spannedJoint(const TemplatePair& p) const;
  /// spanned_ and needs_body_jacobians_ from the pairs, after an edit through pairs().
  void refreshLayout();
  /// The reference's kinematics into ws_ref (and its body Jacobians if needed; only the spanned
  /// joints' motions when every pair spans a joint), then evaluate().
  void evaluateAgainstReference(const Workspace& ws, const State& state, const ReferenceSample& reference,
                                Workspace& ws_ref, TemplateEvaluation& out);

  const Model& model_;
  std::vector<TemplatePair> pairs_;
  VelocityError variant_;
  std::vector<PairState> state_;
  // The layout (refreshLayout): each pair's spannedJoint, and whether some pair spans no joint, so
  // that evaluate() needs the body Jacobians of both workspaces (and the reference's bodies).
  bool layout_valid_ = false;
  std::vector<int> spanned_;
  bool needs_body_jacobians_ = false;
  bool reference_bodies_missing_ = false;  ///< the last evaluation read the reference's joints only
  std::vector<Mat6X> J_, J_ref_;
  Mat6X scratch_;
  /// Ad_{T_c} of every joint's child placement (model constants; indexed by joint): joint pairs
  /// map twists with them twice per pair and call.
  std::vector<Mat6> child_placement_adjoint_;
  std::vector<Pose> parent_placement_inverse_, child_placement_inverse_;  ///< T_p⁻¹, T_c⁻¹ per joint
};

}  // namespace rbs
