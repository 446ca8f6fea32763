// Equations of motion M(x) ξ̇ + c(x, ξ) + f_D + f_K + f_G = B(x) u + f_ext (thesis (3.124)),
// evaluated numerically from the forward pass (konz-modeling §10, steps 2–8) — no symbolic
// algebra, no allocation after the Workspace is built.
//
// Each term is available on its own (controllers need M, c, f_G, f_K separately). All functions
// except computeKinematics require a preceding computeKinematics on the same (x, ξ).
#pragma once

#include <string_view>

#include "core/dynamics/kinematics.h"

namespace rbs {

/// M = Σ_b J_bᵀ M_b J_b (3.108), by composite inertias (the tree structure of J_b).
void computeMassMatrix(const Model& model, Workspace& ws);

/// Factorizes M. Branched trees: M = Lᵀ L exploiting the tree's sparsity (Featherstone's LTL
/// factorization, RBDA §6.5: O(n d²) for depth d, no fill-in) into ws.mass_factor. A single chain
/// has no sparsity: Eigen's blocked Cholesky into ws.mass_llt. Returns false when M is not
/// (numerically) positive definite. Requires computeMassMatrix.
bool factorizeMassMatrix(const Model& model, Workspace& ws);

/// M counts as singular to working precision (e.g. Euler angles at gimbal lock) when a pivot of
/// its factorization is at most this fraction of the diagonal entry it came from: L_kk² ≤ 1e-14 M_kk.
inline constexpr double kSingularMassPivot = 1e-14;
/// The test above on a Cholesky factorization M = L Lᵀ (L in the lower triangle of `llt_factor`,
/// as Eigen::LLT::matrixLLT() holds it); false for NaN. Every path that solves with M applies it.
bool regularCholeskyPivots(const MatX& llt_factor, const MatX& M);

/// Overwrites B (n×k, or a vector) with M⁻¹ B. Requires factorizeMassMatrix.
void solveWithMassMatrix(const Model& model, const Workspace& ws, Eigen::Ref<MatX> B);

/// c = Σ_b J_bᵀ (M_b κ_b − ad_{η_b}ᵀ M_b η_b) (3.111) → ws.inertial_forces.
void computeInertialForces(const Model& model, Workspace& ws);

/// f_G = −Σ_b J_bᵀ M_b Ad_{G_b}⁻¹ α_G (3.113, corrected sign) → ws.gravity_forces.
void computeGravityForces(const Model& model, Workspace& ws);

/// out = M(x) ξ̇ + c(x, ξ) + f_G(x) for a given ξ̇ (size n), without forming M: the recursive
/// Newton–Euler algorithm (RBDA §5.3) on the redundant-coordinate Jacobians. Forward, the body
/// accelerations a_b = J_b ξ̇ = L_b a_λ + S_e ξ̇_e (L_b = P_b Ad_{G_e⁻¹}, (3.102a)); each body's
/// wrench M_b (a_b + κ_b) − ad_{η_b}ᵀ M_b η_b − M_b Ad_{G_b}⁻¹ α_G ((3.108), (3.111), (3.113));
/// backward, Σ_b J_bᵀ of them. Armature and geared rotors (Joint::rotor_coupling) included.
/// O(n); an inverse-dynamics controller needs no M. ws.wrench and ws.body_frame_acceleration are
/// scratch. Requires computeKinematics.
void computeInverseDynamicsForces(const Model& model, const VecX& xidot, Workspace& ws, VecX& out);

/// f_K of all springs between frames (3.116) and joint springs → ws.elastic_forces.
void computeElasticForces(const Model& model, const VecX& x, Workspace& ws);

/// f_D = D ξ of all dampers (3.119) and joint dampers → ws.damping_forces.
void computeDampingForces(const Model& model, const VecX& xi, Workspace& ws);

/// f_E = B(x) u + f_E(x, ξ, 0) → ws.input_forces: actuators, constant external wrenches,
/// propeller thrust, drag and friction (5.3), and the state-dependent part of the servos (see
/// ActuatorKind). u has size model.numInputs(). Requires computeKinematics.
void computeInputForces(const Model& model, const VecX& x, const VecX& xi, const VecX& u, Workspace& ws);

/// D(x) (n×n) of the viscous part f_D = D ξ (joint friction, nonlinear in ξ, is not in it).
/// Requires computeBodyJacobians.
void computeDampingMatrix(const Model& model, Workspace& ws);

/// B(x) (n×m), so that the actuator part of f_E is B u. Requires computeBodyJacobians.
void computeInputMatrix(const Model& model, Workspace& ws);

/// Loop-closure rows Z ξ̇ = z with Baumgarte terms (A.13b), the closure error ψ and Z ξ; joint
/// couplings read their positions and velocities from x and ξ. Requires computeBodyJacobians.
void computeLoopClosures(const Model& model, const VecX& x, const VecX& xi, Workspace& ws);

/// A wrench applied from outside the model (a push by the user or a script): a force through a
/// body-fixed point and a torque, both in world axes.
struct AppliedWrench {
  int body = -1;
  Vec3 point = Vec3::Zero();   ///< body frame [m]
  Vec3 force = Vec3::Zero();   ///< world axes [N]
  Vec3 torque = Vec3::Zero();  ///< world axes [N m]
};

/// out = Σ_k J_{b_k}ᵀ W_k, the generalized force of applied wrenches (out has size n; ws.wrench is
/// used as scratch). Its power is ξᵀ out = Σ_k f_k · v(point_k) + τ_k · ω_k. Requires
/// computeKinematics.
void computeAppliedForces(const Model& model, const AppliedWrench* wrenches, int count, Workspace& ws, VecX& out);

enum class DynamicsStatus {
  Ok,
  SingularMassMatrix,   ///< M not positive definite (e.g. Euler angles at gimbal lock)
  NonFinite,            ///< NaN or infinity in the state or the result
};
std::string_view toString(DynamicsStatus status);

/// ξ̇ and ẋ (with drift stabilization gain λ) at (x, ξ, u), with kinematics, f_K, f_D and f_E in
/// the workspace. ξ̇ comes from one of two paths, chosen per model:
///  - Model::articulated_body_dynamics: the articulated-body recursion, O(n); M, c and f_G are
///    not formed (c + f_G enter as body wrenches) and ws keeps whatever they held. Callers that
///    need them call computeMassMatrix, computeInertialForces and computeGravityForces afterwards.
///  - otherwise M, c and f_G are formed and M is factorized (loop closures via Gauss' principle,
///    (3.130)–(3.132)).
/// Energies are not part of it (they are not needed by the integration): computeEnergies
/// afterwards gives them for this state.
DynamicsStatus computeForwardDynamics(const Model& model, const VecX& x, const VecX& xi,
                                      const VecX& u, Workspace& ws, double stabilization_gain = 0.0);

/// computeForwardDynamics in two halves, for a caller that adds generalized forces of its own to
/// ws.input_forces in between (pushes, sim/push_forces.h): first kinematics, the force terms (and
/// M, c, f_G on the composite-rigid-body path) and ẋ (NonFinite for a non-finite x, ξ or u)...
DynamicsStatus computeDynamicsTerms(const Model& model, const VecX& x, const VecX& xi, const VecX& u,
                                    Workspace& ws, double stabilization_gain = 0.0);
/// ... then ξ̇ from M ξ̇ = f_E − c − f_D − f_K − f_G and the loop closures.
DynamicsStatus solveAccelerations(const Model& model, const VecX& x, const VecX& xi, Workspace& ws);

}  // namespace rbs
