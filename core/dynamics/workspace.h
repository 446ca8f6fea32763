// Preallocated buffers for evaluating one Model (konz-modeling §10). Create one per model and
// thread; after construction no evaluation allocates on the heap.
#pragma once

#include <Eigen/Cholesky>
#include <vector>

#include "core/model/model.h"

namespace rbs {

/// Energies and powers of the current state (thesis §3.2.7, konz-modeling §13).
struct Energies {
  double kinetic = 0.0;        ///< T = ½ ξᵀ M ξ
  double gravitational = 0.0;  ///< V_G = −Σ m_b ⟨r_b + R_b s_b, a_G⟩
  double elastic = 0.0;        ///< V_K: springs between frames and joint springs
  double input_power = 0.0;    ///< ξᵀ f_E (actuators and external wrenches)
  double dissipation = 0.0;    ///< ξᵀ f_D = 2R ≥ 0 (dampers and joint dampers)
  double potential() const { return gravitational + elastic; }
  double total() const { return kinetic + gravitational + elastic; }  ///< W
};

struct Workspace {
  explicit Workspace(const Model& model);

  // Per body, filled by computeKinematics (index = body index).
  std::vector<JointMotion> joint;  ///< G_e, S_e, J_e ξ, σ_e of the body's parent joint
  std::vector<Pose> pose;          ///< G_b = ^0_b G, world pose of the body frame
  std::vector<Vec6> twist;         ///< η_b = J_b ξ, body twist in body coordinates
  std::vector<Vec6> bias;          ///< κ_b = J̇_b ξ

  /// Body Jacobians J_b (6×n each, rows 6b…6b+5), filled by computeBodyJacobians.
  MatX body_jacobians;
  auto jacobian(int body) { return body_jacobians.middleRows<6>(6 * body); }
  auto jacobian(int body) const { return body_jacobians.middleRows<6>(6 * body); }

  // Generalized quantities (size n), left-hand-side convention of (3.124):
  // M ξ̇ + c + f_D + f_K + f_G = f_E. M, c and f_G are filled by their compute functions; the
  // articulated-body path of computeForwardDynamics does not call them (they keep old values).
  MatX mass_matrix;          ///< M (n×n, SPD)
  MatX mass_factor;          ///< Lᵀ of M = Lᵀ L (upper triangle), factorizeMassMatrix
  Eigen::LLT<MatX> mass_llt; ///< the factor instead, when model.dofs_form_chain
  VecX inertial_forces;      ///< c (Coriolis, centrifugal, gyroscopic)
  VecX gravity_forces;       ///< f_G = ∇V_G
  VecX elastic_forces;       ///< f_K = ∇V_K
  VecX damping_forces;       ///< f_D = D ξ
  VecX input_forces;         ///< f_E = B u + external wrenches
  VecX xidot;                ///< ξ̇
  VecX xdot;                 ///< ẋ = A(x) ξ (+ stabilization)
  MatX damping_matrix;       ///< D (n×n), computeDampingMatrix
  MatX input_matrix;         ///< B (n×m), computeInputMatrix

  // Loop closures: Z ξ̇ = z (rows = model.constraint_rows).
  MatX constraint_jacobian;  ///< Z
  VecX constraint_rhs;       ///< z, including the Baumgarte terms
  VecX constraint_error;     ///< ψ (position-level closure error)
  VecX constraint_velocity;  ///< Z ξ
  VecX multipliers;          ///< μ with M ξ̇ = b + Zᵀ μ (Zᵀμ is the generalized reaction force)
  MatX mass_inv_constraint_t;  ///< M⁻¹ Zᵀ
  MatX constraint_schur;       ///< Z M⁻¹ Zᵀ (+ regularization)
  Eigen::LDLT<MatX> constraint_ldlt;
  /// M + w Zᵀ Z and its factor, for a singular M on constrained coordinates (a massless mimic
  /// follower: solveAccelerations); sized on first use.
  MatX augmented_mass;
  Eigen::LLT<MatX> augmented_llt;

  /// model.constant_mass_matrix: mass_matrix (and its factor) already hold M, computed once.
  bool mass_matrix_ready = false;
  bool mass_factor_ready = false;
  /// M⁻¹ itself, for a constant M of at most kExplicitInverseMaxSize coordinates (a free flyer):
  /// one n×n product then replaces the two triangular solves of every evaluation.
  static constexpr int kExplicitInverseMaxSize = 12;
  MatX mass_inverse;  ///< empty unless filled by factorizeMassMatrix

  // Articulated-body recursion (Model::articulated_body_dynamics, in world axes about the origin
  // of each body's tree root): scratch, not meaningful between calls.
  std::vector<Mat6> articulated_inertia;  ///< I^A_b (for multi-axis joints reduced by the joint in the backward pass)
  std::vector<Vec6> articulated_bias;     ///< p^A_b
  std::vector<Vec6> body_acceleration;    ///< J^w_b ξ̇ (without the velocity terms)
  MatX world_motion_subspace;             ///< S^w_e = Ad_{G_b} S_e (6×n, the joint's columns)
  MatX joint_inertia_times_s;             ///< U = I^A_b S^w_e (6×n)
  /// D_e⁻¹ = (S^w_eᵀ I^A_b S^w_e + armature)⁻¹ per body (n_e × n_e, no heap)
  std::vector<Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, 0, 6, 6>> joint_inertia_inverse;

  // Scratch (not meaningful between calls).
  std::vector<Mat6> composite_inertia;
  std::vector<Vec6> wrench;
  std::vector<Vec6> body_frame_acceleration;  ///< J_b ξ̇ in body axes (computeInverseDynamicsForces)
  VecX rhs;
};

}  // namespace rbs
