// The inverse model of servo_constraint_pd (Seifried 2014, Ch. 4–5; digest
// seifried-underactuated §4.2–4.7, §5.1–5.3, §10): for an underactuated chain with passive joints,
// M q̈ + b = B u with B = [I; 0] in (q_a, q_u) (one joint-effort actuator per actuated coordinate),
// and an output y = h(q) with m = p components, it computes the feedforward u_d(t) and the
// trajectory q_d(t) that make y follow y_d(t) exactly.
//
// Outputs (Table 4.1):
//   linearly combined  y = q_a + Γ q_u (4.5; the book's workhorse). y_d comes from the rigid
//                      inverse kinematics of the arm with the passive joints locked at their
//                      initial values (the book's "auxiliary angles"), so the end effector is met
//                      only to first order in q_u (the book's ≈ 3 mm in Example A).
//   end effector       y = [q_c; r_ef(q)] (4.6): the first p − 2 actuated coordinates (the cart)
//                      directly and the end-effector point in the plane of motion.
//
// Servo constraints (5.3) h(q) − y_d(t) = 0 appended to the equations of motion; the input is the
// Lagrange multiplier. At every evaluation the index-reduced system (5.22) with (5.14) is solved
// in its saddle-point form (digest §5.2, [derived])
//     [ M  −B ] [ q̈ ]   [ −b           ]
//     [ H   0 ] [ u  ] = [ ÿ_d − Ḣ q̇    ],     H = ∂h/∂q, regular iff α = H M⁻¹ B is (4.29),
// where q_a, q̇_a are given by the constraint itself (the projection procedure of Fig. 5.3:
// h(q_a, q_u) = y_d solved for q_a — closed form for the linear output, Newton for the end
// effector — and q̇_a = H_a⁻¹(ẏ_d − H_u q̇_u)). What remains is the driven internal dynamics
// η̇ = f(t, η), η = [q_u; q̇_u] (4.105/(5.15)–(5.17) in original coordinates):
//   classical inversion  f integrated forward from the rest equilibrium (RK4); bounded only for
//                        minimum-phase systems (Sect. 3.2, 5.2).
//   stable inversion     two-point boundary value problem on [t₀ − pre, t_f + post] (Sect. 3.2,
//                        Chen & Paden / Devasia): at the start the state lies on the unstable
//                        eigenspace of the linearized zero dynamics (stable components zero), at
//                        the end on the stable one (unstable components zero) (3.76, with the
//                        digest's corrected labels). Solved by Hermite–Simpson collocation (the
//                        3-stage Lobatto IIIA of bvp4c, 4th order) and damped Newton on the whole
//                        grid with a sparse LU (digest §10: "shooting is unusable").
// For the end-effector output the BVP is warm-started from the linearly combined solution, as the
// book advises (§5.3: "needs a very good initial guess").
#pragma once

#include <complex>
#include <limits>
#include <string>
#include <vector>

#include <Eigen/LU>

#include "core/control/plant.h"
#include "core/control/servo_constraint_path.h"
#include "core/dynamics/workspace.h"

namespace rbs {

enum class ServoOutput { LinearlyCombined, EndEffector };

/// Which coordinates are actuated and which passive (analyzeServoStructure).
struct ServoStructure {
  int f = 0;                       ///< number of coordinates (n = ν)
  int m = 0;                       ///< number of inputs = outputs
  std::vector<int> actuated;       ///< coordinate of actuator i (actuator order)
  std::vector<int> passive;        ///< the other coordinates, ascending
  std::vector<bool> prismatic;     ///< per coordinate: prismatic joint (else revolute)
};

/// Checks that the model suits the controller and partitions it. Throws ControlError naming the
/// problem: a joint other than revolute/prismatic/fixed, an actuator that is not a joint effort,
/// two actuators on one coordinate, fewer than two inputs, loop closures.
ServoStructure analyzeServoStructure(const Model& model, const std::string& controller_name);

struct ServoInversionSettings {
  ServoPath path;
  ServoOutput output = ServoOutput::LinearlyCombined;
  MatX gamma;                        ///< m × f_u: y = q_a + Γ q_u (linear output)
  int end_effector_body = -1;
  Vec3 end_effector_point = Vec3::Zero();  ///< in the end-effector body frame
  int plane_axes[2] = {0, 1};        ///< world axes of the plane of motion (xy by default)
  bool stable_inversion = true;
  double pre_actuation = 0.2;        ///< [s] before t₀
  double post_actuation = 0.3;       ///< [s] after t_f
  double step = 1e-3;                ///< [s] collocation grid; the forward RK4 uses step / 4
};

/// The inverse model at one time: the full desired motion and input.
struct ServoPoint {
  double t = 0.0;
  VecX q, qd, qdd;   ///< q_d, q̇_d, q̈_d (size f)
  VecX u;            ///< u_d (size m, actuator order)
  VecX eta_dot;      ///< η̇ = [q̇_u; q̈_u]
  VecX ik;           ///< the inverse-kinematics solution (warm start for nearby times)
  Eigen::Vector2d r_desired = Eigen::Vector2d::Zero();  ///< desired end-effector point (plane)
};

/// The offline feedforward: η on a uniform grid and what the solver reported.
struct ServoFeedforward {
  bool ok = false;
  std::string message;               ///< why not ok
  bool stable_inversion = false;     ///< BVP (true) or forward integration (false)
  bool diverged = false;             ///< forward integration left the bounded region
  double diverged_at = 0.0;          ///< [s] where
  double t_begin = 0.0, t_end = 0.0, step = 0.0;
  std::vector<VecX> eta, eta_dot, ik;   ///< per grid node
  VecX eta_start, eta_final;         ///< rest equilibria of η at y_d(t₀), y_d(t_f)
  VecX ik_start, ik_final;
  /// Eigenvalues of the linearized internal dynamics at the start and final equilibria
  /// (= zero-dynamics eigenvalues; for the linear output independent of the equilibrium in a
  /// horizontal plane).
  std::vector<std::complex<double>> zeros_start, zeros_final;
  int stable_conditions = 0, unstable_conditions = 0;  ///< BVP boundary rows at start / end
  int newton_iterations = 0;         ///< BVP Newton iterations (last solve)
  double residual = 0.0;             ///< BVP max-norm residual at the solution
  double max_passive = 0.0;          ///< max |q_u| over the grid
};

class ServoInverseModel {
 public:
  ServoInverseModel(const Model& model, ServoStructure structure);

  /// Sets the task, output and solver settings (checks sizes; throws ControlError).
  void configure(const ServoInversionSettings& settings);
  const ServoInversionSettings& settings() const { return settings_; }
  const ServoStructure& structure() const { return s_; }
  int stateSize() const { return 2 * static_cast<int>(s_.passive.size()); }

  /// Evaluates the inverse model at (t, η). `ik_guess` (size m, may be empty) warm-starts the
  /// Newton iteration of the inverse kinematics. False (message()) when the inverse kinematics
  /// fails or the saddle-point matrix is singular (α = H M⁻¹ B singular).
  bool evaluate(double t, const VecX& eta, const VecX& ik_guess, ServoPoint& out);

  /// The rest equilibrium of the internal dynamics at the output y_d(t) (y_d at rest at t):
  /// q̈_u(q_u, q̇_u = 0) = 0 by Newton, started at the model's initial q_u.
  bool equilibrium(double t, VecX& eta, VecX& ik);

  /// Computes the feedforward (classical or stable inversion, settings().stable_inversion).
  ServoFeedforward computeFeedforward();

  /// Samples a computed feedforward at t: η by cubic Hermite interpolation of the grid (the
  /// collocation polynomial), then the full motion and input from evaluate(). Before the grid:
  /// the start node; after it: the final rest equilibrium.
  bool sample(const ServoFeedforward& ff, double t, ServoPoint& out);

  /// World position of the end-effector point at configuration q (kinematics only).
  Vec3 endEffectorPosition(const VecX& q);
  /// The end-effector point in the plane's two axes.
  Eigen::Vector2d inPlane(const Vec3& p) const {
    return {p[settings_.plane_axes[0]], p[settings_.plane_axes[1]]};
  }
  /// Γ by the book's rule (4.5): y = q_a,last + Σ_j Γ_j q_u,j with Γ_j the distance of passive
  /// joint j from the end effector over that of the last actuated joint, in the plane at the
  /// model's initial configuration (Γ = l₃/(l₂ + l₃) for Example A, (5.23) for Example B).
  MatX geometricGamma();

  const std::string& message() const { return message_; }

 private:
  // Task coordinates w(q) = [q_c; r_ef] (size m), their Jacobian W = ∂w/∂q (m × f) and
  // Ẇ q̇ (size m) at (q, q̇).
  void task(const VecX& q, const VecX& qd, bool with_rates);
  // Solves w(q_a, q_u) = w_target for q_a (Newton from `guess`). Leaves the task at the solution.
  bool solveIk(const VecX& w_target, const VecX& q_u, const VecX& guess, VecX& q_a);
  VecX assemble(const VecX& q_a, const VecX& q_u) const;
  // f(t, η) and optionally its Jacobian ∂f/∂η (forward differences); `guess` is updated to the
  // IK solution at η.
  bool rhs(double t, const VecX& eta, VecX& guess, VecX& f, MatX* F);
  bool forward(ServoFeedforward& ff);
  bool collocation(ServoFeedforward& ff, std::vector<VecX> guess);
  bool boundaryRows(const MatX& A, bool stable, MatX& rows, std::vector<std::complex<double>>& ev);
  bool failWith(std::string m) {
    message_ = std::move(m);
    return false;
  }

  const Model& model_;
  ServoStructure s_;
  ServoInversionSettings settings_;
  Workspace ws_;
  PlantTerms plant_;
  VecX q_ref_u_;    ///< passive coordinates of the rigid approximation (initial state)
  VecX q_init_a_;   ///< initial actuated coordinates (first IK guess)
  std::vector<int> direct_;  ///< direct-output coordinates (first m − 2 actuators)
  // Task buffers.
  VecX w_, wbar_;
  MatX W_;
  // Saddle point.
  MatX K_;
  VecX rhs_, sol_;
  Eigen::PartialPivLU<MatX> lu_;
  // Cache of the linear output's rigid inverse kinematics at one time.
  double cache_t_ = std::numeric_limits<double>::quiet_NaN();
  VecX cache_y_, cache_yd_, cache_ydd_;
  std::string message_;
};

}  // namespace rbs
