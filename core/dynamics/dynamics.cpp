#include "core/dynamics/dynamics.h"

#include <cmath>

#include "core/math/assert.h"

namespace rbs {
namespace {

/// Generalized force Σ_b J_bᵀ w_b of body wrenches w_b (body coordinates, at the body origin).
/// Uses J_b = L_b J_λ + S_e with L_b = P_b Ad_{G_e⁻¹}: accumulating F_b = w_b + Σ_c L_cᵀ F_c from
/// the leaves gives the joint columns S_eᵀ F_b (the backward pass of Newton–Euler).
/// `wrench` is consumed (overwritten by the accumulated F_b).
void mapBodyWrenches(const Model& model, std::vector<Vec6>& wrench, const Workspace& ws, VecX& out) {
  if (model.single_rigid_body) {  // S_e = I at the root: the generalized force is the wrench
    out = wrench[0];
    return;
  }
  for (int b = model.numBodies() - 1; b >= 0; --b) {
    const Joint& j = model.joints[b];
    const JointMotion& jm = ws.joint[b];
    Vec6 F = wrench[b];
    for (int c = 0; c < j.nxi; ++c) out(j.xi_offset + c) = jm.S.col(c).dot(F);
    if (j.parent >= 0) {
      if (jm.drops_parent_rotation) F.tail<3>().setZero();
      wrench[j.parent] += adjointInvTransposeTimes(jm.transform, F);
    }
  }
}

/// v.allFinite(), cheaper on the usual path: a sum of finite numbers is finite unless it
/// overflows, and a NaN or infinity makes the sum NaN or infinite; only then look element-wise.
bool allFinite(const VecX& v) { return std::isfinite(v.sum()) || v.allFinite(); }

void clearWrenches(Workspace& ws) {
  for (Vec6& w : ws.wrench) w.setZero();
}

/// q̇ of the revolute joint of body b from the body twists: ω_b − R_eᵀ ω_λ = a q̇ (child axes).
double revoluteJointRate(const Model& model, const Workspace& ws, int b) {
  const Joint& j = model.joints[b];
  const JointMotion& jm = ws.joint[b];
  Vec3 relative = ws.twist[b].tail<3>();
  if (j.parent >= 0) relative -= jm.transform.R.transpose() * ws.twist[j.parent].tail<3>();
  return jm.S.col(0).tail<3>().dot(relative);
}

/// The geared rotor of a joint with Joint::rotor_coupling Θ_AC: it sits in the parent λ and spins
/// at s = a·ω_λ + n q̇ about the axis a (parent axes), kinetic energy ½ Θ_S s² with Θ_S a aᵀ part of
/// the parent's inertia and n² Θ_S the armature. Newton–Euler for it (axial inertia only: h = Θ_S s a,
/// torque Θ_S ṡ a + ω_λ × h) leaves, beyond those two, with Θ_AC = n Θ_S:
///   M:  Θ_AC aᵀ J_ω,λ in the joint's row, and its transpose;
///   c:  Θ_AC a·κ_ω,λ on the joint (κ the parent's bias acceleration) and the gyroscopic moment
///       Θ_AC q̇ (ω_λ × a) on the parent.
/// The moment on the parent, in parent body axes.
Vec3 rotorCouplingMoment(const Model& model, const Workspace& ws, int b) {
  const Joint& j = model.joints[b];
  return j.rotor_coupling * revoluteJointRate(model, ws, b) * ws.twist[j.parent].tail<3>().cross(j.axis_in_parent);
}

/// Body b's share of c, in body coordinates: M_b κ_b − ad_{η_b}ᵀ M_b η_b (3.111).
Vec6 inertialWrench(const Model& model, const Workspace& ws, int b) {
  const Mat6& Mb = model.bodies[b].spatial_inertia;
  return Mb * ws.bias[b] - adTransposeTimes(ws.twist[b], Mb * ws.twist[b]);
}

/// Body b's share of f_G, in body coordinates: −M_b Ad_{G_b}⁻¹ α_G with α_G = [a_G; 0] (3.113).
Vec6 gravityWrench(const Model& model, const Workspace& ws, int b) {
  Vec6 alpha;  // Ad_{G_b}⁻¹ α_G = [R_bᵀ a_G; 0]
  alpha << ws.pose[b].R.transpose() * model.gravity, Vec3::Zero();
  return -(model.bodies[b].spatial_inertia * alpha);
}

/// Adds the constant external wrenches and the body force/torque actuators (at inputs u) to
/// ws.wrench (body coordinates). Returns whether the model has any of them.
bool addBodyInputWrenches(const Model& model, const VecX& u, Workspace& ws) {
  bool any = !model.external_wrenches.empty();
  for (const ExternalWrench& e : model.external_wrenches) {
    const Mat3& R = ws.pose[e.body].R;
    const Vec3 f = e.world_axes ? Vec3(R.transpose() * e.force) : e.force;
    const Vec3 t = e.world_axes ? Vec3(R.transpose() * e.torque) : e.torque;
    ws.wrench[e.body].head<3>() += f;
    ws.wrench[e.body].tail<3>() += e.point.cross(f) + t;
  }
  for (int i = 0; i < model.numInputs(); ++i) {
    const Actuator& a = model.actuators[i];
    if (!actsOnJoint(a.kind)) {
      any = true;
      ws.wrench[a.body] += a.unit_wrench * u(i);
    }
  }
  return any;
}

/// Model::single_rigid_body: the five force terms of computeForwardDynamics in one pass over the
/// one body (no springs, dampers or joint actuators exist; mapBodyWrenches would copy).
void computeSingleBodyForces(const Model& model, const VecX& u, Workspace& ws) {
  Eigen::Map<Vec6>(ws.inertial_forces.data()) = inertialWrench(model, ws, 0);
  Eigen::Map<Vec6>(ws.gravity_forces.data()) = gravityWrench(model, ws, 0);
  ws.elastic_forces.setZero();
  ws.damping_forces.setZero();
  ws.wrench[0].setZero();
  addBodyInputWrenches(model, u, ws);
  Eigen::Map<Vec6>(ws.input_forces.data()) = ws.wrench[0];
}

/// Adds J_{ab}ᵀ w to the body wrenches, where w acts in frame b' = frame b and J_ab is the
/// Jacobian of the twist of frame b relative to frame a, in b coordinates:
/// J_ab = J_b' − Ad_{G_ab⁻¹} J_a' (3.104).
void addFramePairWrench(const Frame& a, const Frame& b, const Pose& G_ab, const Vec6& w,
                        std::vector<Vec6>& wrench) {
  if (b.body >= 0) wrench[b.body] += adjointInvTransposeTimes(b.offset, w);
  if (a.body >= 0) {
    const Vec6 w_a = adjointInvTransposeTimes(G_ab, w);  // in frame a coordinates
    wrench[a.body] -= adjointInvTransposeTimes(a.offset, w_a);
  }
}


/// L_bᵀ I L_b for L_b = P_b Ad_{G_e⁻¹}: the inertia I (child coordinates) seen from the parent.
/// With X = Ad_{G⁻¹} = diag(Rᵀ, Rᵀ)[I −r̂; 0 I] and I = [A B; Bᵀ C] rotated to A' = R A Rᵀ, …:
/// Xᵀ I X = [A', B' − A' r̂; r̂ A' + B'ᵀ, C' + r̂ B' − B'ᵀ r̂ − r̂ A' r̂]. P zeroes the ω rows of L,
/// i.e. the B and C blocks of I. Block form: ~4× fewer operations than two dense 6×6 products.
void addTransformedInertia(const Mat6& I, const Pose& G, bool drops_parent_rotation, Mat6& out) {
  const Mat3& R = G.R;
  const Mat3 rhat = wed(G.r);
  const Mat3 A = R * I.topLeftCorner<3, 3>() * R.transpose();
  if (drops_parent_rotation) {
    out.topLeftCorner<3, 3>() += A;
    out.topRightCorner<3, 3>() -= A * rhat;
    out.bottomLeftCorner<3, 3>() += rhat * A;
    out.bottomRightCorner<3, 3>() -= rhat * A * rhat;
    return;
  }
  const Mat3 B = R * I.topRightCorner<3, 3>() * R.transpose();
  const Mat3 C = R * I.bottomRightCorner<3, 3>() * R.transpose();
  const Mat3 upper_right = B - A * rhat;
  out.topLeftCorner<3, 3>() += A;
  out.topRightCorner<3, 3>() += upper_right;
  out.bottomLeftCorner<3, 3>() += upper_right.transpose();
  out.bottomRightCorner<3, 3>() += C + rhat * B - B.transpose() * rhat - rhat * A * rhat;
}

}  // namespace

void computeMassMatrix(const Model& model, Workspace& ws) {
  if (ws.mass_matrix_ready) return;  // constant M, computed by an earlier call
  const int N = model.numBodies();
  for (int b = 0; b < N; ++b) ws.composite_inertia[b] = model.bodies[b].spatial_inertia;
  // Composite inertias I_b = M_b + Σ_children L_cᵀ I_c L_c.
  for (int b = N - 1; b >= 0; --b) {
    const Joint& j = model.joints[b];
    if (j.parent < 0) continue;
    addTransformedInertia(ws.composite_inertia[b], ws.joint[b].transform, ws.joint[b].drops_parent_rotation,
                          ws.composite_inertia[j.parent]);
  }
  ws.mass_matrix.setZero();  // entries of bodies on different branches stay zero
  // Column by column: f = I_i s (s a column of S_i); M_ii = S_iᵀ f, and walking to the root
  // f ← L_kᵀ f gives the blocks M_ki = S_kᵀ f of every ancestor k (only the lower part is
  // written; the upper is mirrored at the end).
  for (int i = 0; i < N; ++i) {
    const Joint& ji = model.joints[i];
    for (int c = 0; c < ji.nxi; ++c) {
      const int col = ji.xi_offset + c;
      Vec6 f = ws.composite_inertia[i] * ws.joint[i].S.col(c);
      for (int r = c; r < ji.nxi; ++r) ws.mass_matrix(ji.xi_offset + r, col) = ws.joint[i].S.col(r).dot(f);
      int k = i;
      while (model.joints[k].parent >= 0) {
        const JointMotion& jm = ws.joint[k];
        if (jm.drops_parent_rotation) f.tail<3>().setZero();
        f = adjointInvTransposeTimes(jm.transform, f);
        k = model.joints[k].parent;
        const Joint& jk = model.joints[k];
        for (int r = 0; r < jk.nxi; ++r) ws.mass_matrix(col, jk.xi_offset + r) = ws.joint[k].S.col(r).dot(f);
      }
    }
  }
  // Ancestors' columns precede a body's own (topological order): everything above was written
  // on or below the diagonal. Mirror it.
  ws.mass_matrix.triangularView<Eigen::StrictlyUpper>() = ws.mass_matrix.transpose();
  for (const Joint& j : model.joints) {
    if (j.armature != 0.0) ws.mass_matrix(j.xi_offset, j.xi_offset) += j.armature;
    if (j.rotor_coupling == 0.0) continue;
    // Θ_AC aᵀ J_ω,λ: the pure moment Θ_AC a on the parent, walked to the root as a column above.
    Vec6 f;
    f << Vec3::Zero(), j.rotor_coupling * j.axis_in_parent;
    const int row = j.xi_offset;
    for (int k = j.parent;;) {
      const Joint& jk = model.joints[k];
      for (int r = 0; r < jk.nxi; ++r) {
        const double m = ws.joint[k].S.col(r).dot(f);
        ws.mass_matrix(row, jk.xi_offset + r) += m;
        ws.mass_matrix(jk.xi_offset + r, row) += m;
      }
      if (jk.parent < 0) break;
      if (ws.joint[k].drops_parent_rotation) f.tail<3>().setZero();
      f = adjointInvTransposeTimes(ws.joint[k].transform, f);
      k = jk.parent;
    }
  }
  ws.mass_matrix_ready = model.constant_mass_matrix;
}

bool regularCholeskyPivots(const MatX& llt_factor, const MatX& M) {
  for (Eigen::Index k = 0; k < M.rows(); ++k) {
    const double l = llt_factor(k, k);
    if (!(l * l > kSingularMassPivot * M(k, k))) return false;
  }
  return true;
}

namespace {

/// The factorization proper (RBDA Table 6.3 or Eigen's LLT), without the constant-M shortcuts.
bool factorizeTreeSparse(const Model& model, Workspace& ws) {
  // RBDA Table 6.3 (M = Lᵀ L), stored as U = Lᵀ in the upper triangle so that every update runs
  // down a column: for k = n…1: U_kk = √H_kk; U_ik = H_ik / U_kk for the ancestors i of k; then
  // H_ji −= U_ik U_jk for every ancestor pair j ≤ i of k. Ancestor chains are walked as contiguous
  // runs [dof_run_start, i], so the innermost update is a vectorized segment operation.
  if (model.dofs_form_chain) {
    ws.mass_llt.compute(ws.mass_matrix);
    return ws.mass_llt.info() == Eigen::Success && regularCholeskyPivots(ws.mass_llt.matrixLLT(), ws.mass_matrix);
  }
  MatX& H = ws.mass_factor;
  H = ws.mass_matrix;
  const std::vector<int>& parent = model.dof_parent;
  const std::vector<int>& run_start = model.dof_run_start;
  for (int k = model.nxi - 1; k >= 0; --k) {
    // A pivot lost to rounding (≤ 1e-14 of the diagonal entry it came from, i.e. a condition
    // number beyond ~1e14, as at gimbal lock) counts as singular; the comparison also catches NaN.
    if (!(H(k, k) > kSingularMassPivot * ws.mass_matrix(k, k))) return false;
    const double d = std::sqrt(H(k, k));
    H(k, k) = d;
    for (int end = parent[k]; end >= 0; end = parent[run_start[end]]) {
      const int begin = run_start[end];
      H.col(k).segment(begin, end - begin + 1) /= d;
    }
    for (int i = parent[k]; i >= 0; i = parent[i]) {
      const double u_ik = H(i, k);
      for (int end = i; end >= 0; end = parent[run_start[end]]) {
        const int begin = run_start[end];
        H.col(i).segment(begin, end - begin + 1) -= u_ik * H.col(k).segment(begin, end - begin + 1);
      }
    }
  }
  return true;
}

/// M⁻¹ B with the factor of factorizeTreeSparse.
void solveTreeSparse(const Model& model, const Workspace& ws, Eigen::Ref<MatX> B) {
  // M = Lᵀ L with U = Lᵀ: first U y = b from the leaves (b_j −= U_ji y_i for the ancestors j of i),
  // then Uᵀ x = y from the root (x_i = (y_i − Σ_j U_ji x_j) / U_ii), RBDA Table 6.4.
  if (model.dofs_form_chain) {
    ws.mass_llt.solveInPlace(B);
    return;
  }
  const MatX& U = ws.mass_factor;
  const std::vector<int>& parent = model.dof_parent;
  const std::vector<int>& run_start = model.dof_run_start;
  for (Eigen::Index col = 0; col < B.cols(); ++col) {
    auto b = B.col(col);
    for (int i = model.nxi - 1; i >= 0; --i) {
      b(i) /= U(i, i);
      for (int end = parent[i]; end >= 0; end = parent[run_start[end]]) {
        const int begin = run_start[end];
        b.segment(begin, end - begin + 1) -= b(i) * U.col(i).segment(begin, end - begin + 1);
      }
    }
    for (int i = 0; i < model.nxi; ++i) {
      double sum = 0.0;
      for (int end = parent[i]; end >= 0; end = parent[run_start[end]]) {
        const int begin = run_start[end];
        sum += U.col(i).segment(begin, end - begin + 1).dot(b.segment(begin, end - begin + 1));
      }
      b(i) = (b(i) - sum) / U(i, i);
    }
  }
}

}  // namespace

namespace {

/// A pivot at the rounding level of the products that formed it (|s| |U| for D = sᵀ U, or below
/// 1e-14 of the diagonal entry it came from in a factorization) counts as singular: M is then
/// singular to working precision, e.g. Euler angles at gimbal lock. False for NaN too.
constexpr double kRelativePivot = kSingularMassPivot;

/// M_b in world coordinates at the world origin, Ad_{G_b}⁻ᵀ M_b Ad_{G_b}⁻¹, from m, the world
/// centre of mass h = r_b + R_b s and Θ_s (about the CoM): [m I, −m ĥ; m ĥ, R Θ_s Rᵀ − m ĥ ĥ].
/// About a third of the operations of transforming a general 6×6 inertia. Returns h.
Vec3 worldSpatialInertia(const Body& body, const Pose& G, Mat6& out) {
  // Written out entry by entry: the 3×3 products of the block form cost twice as much (perf).
  const double m = body.mass;
  const Vec3 h = G * body.com;
  const Mat3& R = G.R;
  const Mat3 A = R * body.inertia_com;  // R Θ_s Rᵀ = A Rᵀ, symmetric: six dot products
  const double hx = h.x(), hy = h.y(), hz = h.z();
  const double mx = m * hx, my = m * hy, mz = m * hz;
  // −m ĥ ĥ = m (|h|² I − h hᵀ)
  const double t00 = A.row(0).dot(R.row(0)) + my * hy + mz * hz;
  const double t11 = A.row(1).dot(R.row(1)) + mx * hx + mz * hz;
  const double t22 = A.row(2).dot(R.row(2)) + mx * hx + my * hy;
  const double t01 = A.row(0).dot(R.row(1)) - mx * hy;
  const double t02 = A.row(0).dot(R.row(2)) - mx * hz;
  const double t12 = A.row(1).dot(R.row(2)) - my * hz;
  out << m, 0, 0, 0, mz, -my,  //
      0, m, 0, -mz, 0, mx,     //
      0, 0, m, my, -mx, 0,     //
      0, -mz, my, t00, t01, t02,  //
      mz, 0, -mx, t01, t11, t12,  //
      -my, mx, 0, t02, t12, t22;
  return h;
}

/// ξ̇ of M ξ̇ = τ − (c + f_G) by the articulated-body recursion (Featherstone, RBDA Table 7.1),
/// without forming M. τ arrives in ws.xidot and is overwritten by ξ̇.
///
/// Everything is in world axes about one point per kinematic tree, the origin o of its root body
/// or of the body its root's carriers move (Model::recursion_origin_body; about the world origin,
/// D = Sᵀ I^A S of a light rotor 5 km away would cancel to noise). There
/// the redundant-coordinate Jacobians chain without transforms: with J_b = Ad_{G_e⁻¹} J_λ + S_e
/// (3.102a) and J^w_b = Ad_{G_b} J_b (G_b shifted by −o), J^w_b = J^w_λ + S^w_e with
/// S^w_e = Ad_{G_b} S_e, since G_b = G_λ G_e and every rotation is orthonormal
/// (Model::articulated_body_dynamics). Then M = Σ_b J^wᵀ M^w_b J^w and c + f_G = Σ_b J^wᵀ p^w_b,
/// with p^w_b the body's share of (3.111) and (3.113) as a world wrench, and the recursion needs no
/// spatial transform between bodies:
///   backward: U = I^A S^w, D = S^wᵀ U (+ armature), u = τ_e − S^wᵀ p^A,
///             I^A_λ += I^A − U D⁻¹ Uᵀ,  p^A_λ += p^A + U D⁻¹ u;
///   forward:  ξ̇_e = D⁻¹ (u − Uᵀ a_λ),  a_b = a_λ + S^w ξ̇_e.
/// Returns false when some D is not (numerically) positive definite.
/// flatten: GCC otherwise leaves the 6×6 products and the ad helpers of this long loop as calls
/// (perf: 10 % of a 30-body tree in one Eigen assignment loop); with it 10–20 % less time per call.
[[gnu::flatten]] bool solveArticulatedBody(const Model& model, Workspace& ws) {
  const int N = model.numBodies();
  for (int b = 0; b < N; ++b) {
    const Body& body = model.bodies[b];
    // the body about its tree's origin o (Model::recursion_origin_body)
    const Pose G{ws.pose[b].R, ws.pose[b].r - ws.pose[model.recursion_origin_body[b]].r};
    const Vec3 com = worldSpatialInertia(body, G, ws.articulated_inertia[b]);
    // p^w_b: M_b κ_b − ad_{η_b}ᵀ M_b η_b (body coordinates, to the world), and gravity −M^w [a_G; 0].
    const Mat6& Mb = body.spatial_inertia;
    const Vec6 inertial = Mb * ws.bias[b] - adTransposeTimes(ws.twist[b], Mb * ws.twist[b]);
    Vec6& p = ws.articulated_bias[b];  // Ad_G⁻ᵀ, written out: GCC leaves the inline helper a call here
    p.head<3>() = G.R * inertial.head<3>();
    p.tail<3>() = G.r.cross(p.head<3>()) + G.R * inertial.tail<3>();
    const Vec3 weight = body.mass * model.gravity;
    p.head<3>() -= weight;
    p.tail<3>() -= com.cross(weight);
    const Joint& j = model.joints[b];
    if (isPlainRevolute(j)) {  // S_e = [0; a]: Ad_G S_e = [r × R a; R a]
      const Vec3 axis = G.R * j.axis;
      ws.world_motion_subspace.col(j.xi_offset) << G.r.cross(axis), axis;
    } else {
      for (int c = 0; c < j.nxi; ++c)
        ws.world_motion_subspace.col(j.xi_offset + c) = adjointTimes(G, ws.joint[b].S.col(c));
    }
  }
  for (int b = N - 1; b >= 0; --b) {
    const Joint& j = model.joints[b];
    Mat6& IA = ws.articulated_inertia[b];
    Vec6& pA = ws.articulated_bias[b];
    const int o = j.xi_offset;
    if (j.nxi == 1) {  // one axis: D and u are numbers
      const Vec6 s = ws.world_motion_subspace.col(o);
      Vec6 U = IA * s;
      const double D = s.dot(U) + j.armature;
      // D > k (|s| |U| + armature), squared: no square roots on this path
      const double excess = D - kRelativePivot * j.armature;
      if (!(excess > 0.0 && excess * excess > kRelativePivot * kRelativePivot * s.squaredNorm() * U.squaredNorm()))
        return false;
      const double D_inv = 1.0 / D;
      double u = ws.xidot(o) - s.dot(pA);
      if (j.rotor_coupling != 0.0) {
        // The geared rotor (see rotorCouplingMoment): the joint sees the parent's acceleration through
        // U' = U + Θ_AC [0; a] (world axes; a pure moment needs no shift), its bias Θ_AC a·κ_ω,λ moves
        // into u, and the gyroscopic moment joins the parent's bias force.
        const Vec3 axis = s.tail<3>();
        U.tail<3>() += j.rotor_coupling * axis;
        u -= j.rotor_coupling * j.axis_in_parent.dot(ws.bias[j.parent].tail<3>());
        ws.articulated_bias[j.parent].tail<3>() += ws.pose[j.parent].R * rotorCouplingMoment(model, ws, b);
      }
      ws.xidot(o) = u;
      ws.joint_inertia_inverse[b](0, 0) = D_inv;
      ws.joint_inertia_times_s.col(o) = U;
      if (j.parent >= 0) {  // straight into the parent's sums
        // column by column: one vectorized axpy per column, no temporary for the rank-1 term
        Mat6& parent_inertia = ws.articulated_inertia[j.parent];
        const Vec6 scaled = D_inv * U;
        for (int c = 0; c < 6; ++c) parent_inertia.col(c) += IA.col(c) - U(c) * scaled;
        ws.articulated_bias[j.parent] += pA + (D_inv * u) * U;
      }
    } else if (j.nxi > 1) {
      using Small = Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, 0, 6, 6>;
      using SmallVec = Eigen::Matrix<double, Eigen::Dynamic, 1, 0, 6, 1>;
      const auto S = ws.world_motion_subspace.middleCols(o, j.nxi);
      auto U = ws.joint_inertia_times_s.middleCols(o, j.nxi);
      U.noalias() = IA * S;
      const Small D = S.transpose() * U;  // (armature exists on one-axis joints only: the builder)
      const Eigen::LLT<Small> llt(D);
      if (llt.info() != Eigen::Success) return false;
      for (int k = 0; k < j.nxi; ++k) {
        const double l = llt.matrixLLT()(k, k);
        if (!(D(k, k) > kRelativePivot * S.col(k).norm() * U.col(k).norm()) || !(l * l > kRelativePivot * D(k, k)))
          return false;
      }
      Small& D_inv = ws.joint_inertia_inverse[b];
      D_inv.setIdentity(j.nxi, j.nxi);
      llt.solveInPlace(D_inv);
      SmallVec u = ws.xidot.segment(o, j.nxi);
      u.noalias() -= S.transpose() * pA;
      ws.xidot.segment(o, j.nxi) = u;
      if (j.parent >= 0) {
        const Eigen::Matrix<double, 6, Eigen::Dynamic, 0, 6, 6> UD = U * D_inv;
        IA.noalias() -= UD * U.transpose();
        pA.noalias() += UD * u;
      }
    }
    if (j.nxi != 1 && j.parent >= 0) {  // (one-axis joints added theirs above)
      ws.articulated_inertia[j.parent] += IA;
      ws.articulated_bias[j.parent] += pA;
    }
  }
  for (int b = 0; b < N; ++b) {
    const Joint& j = model.joints[b];
    Vec6 a = j.parent >= 0 ? ws.body_acceleration[j.parent] : Vec6::Zero();
    const int o = j.xi_offset;
    if (j.nxi == 1) {
      const double rate = ws.joint_inertia_inverse[b](0, 0) * (ws.xidot(o) - ws.joint_inertia_times_s.col(o).dot(a));
      ws.xidot(o) = rate;
      a += rate * ws.world_motion_subspace.col(o);
    } else if (j.nxi > 1) {
      Eigen::Matrix<double, Eigen::Dynamic, 1, 0, 6, 1> u = ws.xidot.segment(o, j.nxi);
      u.noalias() -= ws.joint_inertia_times_s.middleCols(o, j.nxi).transpose() * a;
      ws.xidot.segment(o, j.nxi).noalias() = ws.joint_inertia_inverse[b] * u;
      a.noalias() += ws.world_motion_subspace.middleCols(o, j.nxi) * ws.xidot.segment(o, j.nxi);
    }
    ws.body_acceleration[b] = a;
  }
  return true;
}

}  // namespace

bool factorizeMassMatrix(const Model& model, Workspace& ws) {
  if (ws.mass_factor_ready) return true;  // constant M, factorized by an earlier call
  if (!factorizeTreeSparse(model, ws)) return false;
  if (model.constant_mass_matrix) {
    ws.mass_factor_ready = true;
    if (model.nxi <= Workspace::kExplicitInverseMaxSize) {
      ws.mass_inverse.setIdentity(model.nxi, model.nxi);
      solveTreeSparse(model, ws, ws.mass_inverse);
    }
  }
  return true;
}

void solveWithMassMatrix(const Model& model, const Workspace& ws, Eigen::Ref<MatX> B) {
  RBS_ASSERT(B.rows() == model.nxi, "B must have one row per velocity coordinate");
  if (ws.mass_inverse.size() == 0) {
    solveTreeSparse(model, ws, B);
    return;
  }
  using SmallVec = Eigen::Matrix<double, Eigen::Dynamic, 1, 0, Workspace::kExplicitInverseMaxSize, 1>;
  for (Eigen::Index c = 0; c < B.cols(); ++c) {
    const SmallVec column = B.col(c);
    B.col(c).noalias() = ws.mass_inverse.lazyProduct(column);  // tiny: no GEMV kernel dispatch
  }
}

void computeInertialForces(const Model& model, Workspace& ws) {
  for (int b = 0; b < model.numBodies(); ++b) ws.wrench[b] = inertialWrench(model, ws, b);
  for (int b = 0; b < model.numBodies(); ++b)
    if (model.joints[b].rotor_coupling != 0.0) ws.wrench[model.joints[b].parent].tail<3>() += rotorCouplingMoment(model, ws, b);
  mapBodyWrenches(model, ws.wrench, ws, ws.inertial_forces);
  for (const Joint& j : model.joints)
    if (j.rotor_coupling != 0.0)
      ws.inertial_forces(j.xi_offset) += j.rotor_coupling * j.axis_in_parent.dot(ws.bias[j.parent].tail<3>());
}

void computeInverseDynamicsForces(const Model& model, const VecX& xidot, Workspace& ws, VecX& out) {
  RBS_ASSERT_SIZE(xidot, model.nxi);
  RBS_ASSERT_SIZE(out, model.nxi);
  const int N = model.numBodies();
  for (int b = 0; b < N; ++b) {
    const Joint& j = model.joints[b];
    const JointMotion& jm = ws.joint[b];
    Vec6& a = ws.body_frame_acceleration[b];
    if (j.parent >= 0) {
      a = adjointInvTimes(jm.transform, ws.body_frame_acceleration[j.parent]);
      if (jm.drops_parent_rotation) a.tail<3>().setZero();
    } else {
      a.setZero();
    }
    a.noalias() += jm.S * xidot.segment(j.xi_offset, j.nxi);
    const Mat6& Mb = model.bodies[b].spatial_inertia;
    Vec6 alpha = a + ws.bias[b];  // the body's acceleration J_b ξ̇ + κ_b, less gravity's Ad_{G_b}⁻¹ α_G
    alpha.head<3>() -= ws.pose[b].R.transpose() * model.gravity;
    ws.wrench[b] = Mb * alpha - adTransposeTimes(ws.twist[b], Mb * ws.twist[b]);
  }
  for (int b = 0; b < N; ++b) {  // the geared rotors' moments on their parents (rotorCouplingMoment)
    const Joint& j = model.joints[b];
    if (j.rotor_coupling == 0.0) continue;
    ws.wrench[j.parent].tail<3>() +=
        rotorCouplingMoment(model, ws, b) + j.rotor_coupling * xidot(j.xi_offset) * j.axis_in_parent;
  }
  mapBodyWrenches(model, ws.wrench, ws, out);
  for (int b = 0; b < N; ++b) {
    const Joint& j = model.joints[b];
    if (j.armature != 0.0) out(j.xi_offset) += j.armature * xidot(j.xi_offset);
    if (j.rotor_coupling != 0.0)  // Θ_AC aᵀ (J_ω,λ ξ̇ + κ_ω,λ): the rotor's row of M ξ̇ and of c
      out(j.xi_offset) += j.rotor_coupling *
                          j.axis_in_parent.dot(ws.body_frame_acceleration[j.parent].tail<3>() + ws.bias[j.parent].tail<3>());
  }
}

void computeGravityForces(const Model& model, Workspace& ws) {
  for (int b = 0; b < model.numBodies(); ++b) ws.wrench[b] = gravityWrench(model, ws, b);
  mapBodyWrenches(model, ws.wrench, ws, ws.gravity_forces);
}

void computeElasticForces(const Model& model, const VecX& x, Workspace& ws) {
  RBS_ASSERT_SIZE(x, model.nx);
  RBS_ASSERT(ws.xidot.size() == model.nxi && ws.pose.size() == model.bodies.size(),
             "the workspace was built for another model");
  ws.elastic_forces.setZero();
  if (!model.springs.empty()) clearWrenches(ws);
  for (const Spring& s : model.springs) {
    const Pose G_ab = framePose(model, ws, s.a).inverse() * framePose(model, ws, s.b);
    // (3.116): w = vee2((I₄ − G_ab⁻¹ G_R) K')
    const Mat4 E = Mat4::Identity() - (G_ab.inverse() * s.rest).matrix();
    addFramePairWrench(s.a, s.b, G_ab, vee2(Mat4(E * s.stiffness_moment)), ws.wrench);
  }
  if (!model.springs.empty()) mapBodyWrenches(model, ws.wrench, ws, ws.elastic_forces);
  for (const JointSpringDamper& js : model.joint_spring_dampers) {
    if (js.stiffness == 0.0) continue;
    const Joint& j = model.joints[js.joint];
    ws.elastic_forces(j.xi_offset) += jointSpringForce(j, x.data() + j.x_offset, js.stiffness, js.rest_position);
  }
}

void computeDampingForces(const Model& model, const VecX& xi, Workspace& ws) {
  RBS_ASSERT_SIZE(xi, model.nxi);
  RBS_ASSERT(ws.xidot.size() == model.nxi && ws.pose.size() == model.bodies.size(),
             "the workspace was built for another model");
  ws.damping_forces.setZero();
  if (!model.dampers.empty()) clearWrenches(ws);
  for (const Damper& d : model.dampers) {
    const Pose G_ab = framePose(model, ws, d.a).inverse() * framePose(model, ws, d.b);
    // Relative twist of frame b w.r.t. the fluid frame a, in b coordinates (3.117).
    const Vec6 rel = frameTwist(ws, d.b) - adjointInvTimes(G_ab, frameTwist(ws, d.a));
    addFramePairWrench(d.a, d.b, G_ab, d.damping * rel, ws.wrench);
  }
  if (!model.dampers.empty()) mapBodyWrenches(model, ws.wrench, ws, ws.damping_forces);
  for (const JointSpringDamper& js : model.joint_spring_dampers) {
    const int c = model.joints[js.joint].xi_offset;
    ws.damping_forces(c) += js.damping * xi(c);
    // smooth Coulomb friction μ tanh(q̇ / v_s): dissipates (q̇ μ tanh(q̇ / v_s) ≥ 0), → μ sign(q̇)
    if (js.friction != 0.0) ws.damping_forces(c) += js.friction * std::tanh(xi(c) / js.friction_velocity);
  }
}

void computeInputForces(const Model& model, const VecX& x, const VecX& xi, const VecX& u, Workspace& ws) {
  RBS_ASSERT_SIZE(x, model.nx);
  RBS_ASSERT_SIZE(xi, model.nxi);
  RBS_ASSERT_SIZE(u, model.numInputs());
  RBS_ASSERT(ws.xidot.size() == model.nxi && ws.pose.size() == model.bodies.size(),
             "the workspace was built for another model");
  ws.input_forces.setZero();
  clearWrenches(ws);
  bool any_body_wrench = addBodyInputWrenches(model, u, ws) || !model.propellers.empty();
  // Propellers (5.3): thrust κ_F ϖ|ϖ| and drag torque −κ_T ϖ|ϖ| on the rotor body; the motor
  // that holds the rotor against the drag is an actuator, so the drag reaches the vehicle through
  // the joint (the reaction torque of (5.34)).
  for (const Propeller& p : model.propellers) {
    const Joint& j = model.joints[p.joint];
    const double rate = xi(j.xi_offset);
    const double rate_squared = rate * std::abs(rate);
    ws.wrench[j.child].head<3>() += p.thrust_coefficient * rate_squared * p.thrust_direction;
    ws.wrench[j.child].tail<3>() -= p.drag_coefficient * rate_squared * p.spin_axis;
  }
  if (any_body_wrench) mapBodyWrenches(model, ws.wrench, ws, ws.input_forces);
  for (const Propeller& p : model.propellers) {  // bearing friction (5.9e) acts on the joint
    const int c = model.joints[p.joint].xi_offset;
    ws.input_forces(c) -= p.friction * std::tanh(xi(c));
  }
  for (int i = 0; i < model.numInputs(); ++i) {
    const Actuator& a = model.actuators[i];
    if (!actsOnJoint(a.kind)) continue;
    const Joint& j = model.joints[a.joint];
    const int c = j.xi_offset + a.component;
    switch (a.kind) {
      case ActuatorKind::JointEffort:
        ws.input_forces(c) += a.gain * u(i);
        break;
      case ActuatorKind::JointServo:  // (5.2): k_P (θ_R − θ) − k_D θ̇
        ws.input_forces(c) += a.gain * (u(i) - x(j.x_offset)) - a.damping * xi(c);
        break;
      case ActuatorKind::JointSpeedServo: {
        const int p = model.propellerOnJoint(a.joint);
        const double load = p >= 0 ? model.propellers[p].loadTorque(xi(c)) : 0.0;
        ws.input_forces(c) += a.gain * (u(i) - xi(c)) + load;
        break;
      }
      default:
        break;
    }
  }
}

void computeDampingMatrix(const Model& model, Workspace& ws) {
  ws.damping_matrix.setZero();
  for (const Damper& d : model.dampers) {
    const Pose G_ab = framePose(model, ws, d.a).inverse() * framePose(model, ws, d.b);
    // J_ab = Ad_{O_b⁻¹} J_b − Ad_{G_ab⁻¹} Ad_{O_a⁻¹} J_a, restricted to the union of supports.
    MatX J_ab = MatX::Zero(6, model.nxi);  // allocation acceptable: not on the simulation path
    if (d.b.body >= 0) J_ab += AdInv(d.b.offset) * ws.jacobian(d.b.body);
    if (d.a.body >= 0) J_ab -= AdInv(G_ab) * AdInv(d.a.offset) * ws.jacobian(d.a.body);
    ws.damping_matrix.noalias() += J_ab.transpose() * d.damping * J_ab;
  }
  for (const JointSpringDamper& js : model.joint_spring_dampers) {
    const int c = model.joints[js.joint].xi_offset;
    ws.damping_matrix(c, c) += js.damping;
  }
}

void computeInputMatrix(const Model& model, Workspace& ws) {
  if (model.single_rigid_body) {  // S_e = I: a body actuator's column is its unit wrench (J_bᵀ = I)
    for (int i = 0; i < model.numInputs(); ++i) ws.input_matrix.col(i) = model.actuators[i].unit_wrench;
    return;
  }
  ws.input_matrix.setZero();
  for (int i = 0; i < model.numInputs(); ++i) {
    const Actuator& a = model.actuators[i];
    if (!actsOnJoint(a.kind)) {
      ws.input_matrix.col(i).noalias() = ws.jacobian(a.body).transpose() * a.unit_wrench;
    } else {  // joint actuators: gain on their coordinate
      ws.input_matrix(model.joints[a.joint].xi_offset + a.component, i) = a.gain;
    }
  }
}

namespace {

/// ψ = q_f − m q_l − o on angle/displacement coordinates (q̇ = ξ, q̈ = ξ̇): Z = e_fᵀ − m e_lᵀ, no
/// bias term. Out of line: the frame closures' loop stays as it was.
[[gnu::noinline]] void addJointCouplingRow(const Model& model, const LoopClosure& lc, const VecX& x, const VecX& xi,
                                           int row, Workspace& ws) {
  const Joint& f = model.joints[lc.follower];
  const Joint& l = model.joints[lc.leader];
  auto Z = ws.constraint_jacobian.row(row);
  Z.setZero();
  Z(f.xi_offset) = 1.0;
  Z(l.xi_offset) -= lc.multiplier;
  const double psi = x(f.x_offset) - lc.multiplier * x(l.x_offset) - lc.offset;
  const double psi_dot = xi(f.xi_offset) - lc.multiplier * xi(l.xi_offset);
  const double w0 = lc.stabilization_frequency, zeta = lc.stabilization_damping;
  ws.constraint_error(row) = psi;
  ws.constraint_velocity(row) = psi_dot;
  ws.constraint_rhs(row) = -2.0 * zeta * w0 * psi_dot - w0 * w0 * psi;
}

}  // namespace

void computeLoopClosures(const Model& model, const VecX& x, const VecX& xi, Workspace& ws) {
  int row = 0;
  for (const LoopClosure& lc : model.loop_closures) {
    if (lc.kind == LoopClosure::Kind::JointCoupling) [[unlikely]] {
      addJointCouplingRow(model, lc, x, xi, row, ws);
      row += lc.rows();
      continue;
    }
    // Point of each frame in the world: p = r_body + R_body h; ṗ = R [I wed(h)ᵀ] η,
    // p̈ = R([I wed(h)ᵀ](J ξ̇ + κ) + ω × (v + ω × h)) (3.47).
    Vec3 psi = Vec3::Zero(), psi_dot = Vec3::Zero(), bias_acc = Vec3::Zero();
    Vec3 rot_err = Vec3::Zero(), rot_vel = Vec3::Zero(), rot_bias = Vec3::Zero();
    auto Z = ws.constraint_jacobian.middleRows(row, lc.rows());
    Z.setZero();
    for (int side = 0; side < 2; ++side) {
      const Frame& f = side == 0 ? lc.a : lc.b;
      const double sign = side == 0 ? 1.0 : -1.0;
      const Pose G = framePose(model, ws, f);
      psi += sign * G.r;
      if (f.body < 0) continue;
      const Mat3& R = ws.pose[f.body].R;
      const Vec3& h = f.offset.r;
      const Vec6& eta = ws.twist[f.body];
      const Vec6& kappa = ws.bias[f.body];
      const Vec3 v = eta.head<3>(), w = eta.tail<3>();
      Eigen::Matrix<double, 3, 6> point_map;
      point_map << Mat3::Identity(), wed(h).transpose();
      const auto J = ws.jacobian(f.body);
      for (int c : model.support[f.body]) Z.topRows<3>().col(c) += sign * (R * (point_map * J.col(c)));
      psi_dot += sign * (R * (v + w.cross(h)));
      bias_acc += sign * (R * (point_map * kappa + w.cross(v + w.cross(h))));
      if (lc.kind == LoopClosure::Kind::Weld) {
        // World angular velocity R ω; its derivative R ω̇ = R [0 I](J ξ̇ + κ).
        for (int c : model.support[f.body]) Z.bottomRows<3>().col(c) += sign * (R * J.col(c).tail<3>());
        rot_vel += sign * (R * w);
        rot_bias += sign * (R * kappa.tail<3>());
      }
    }
    if (lc.kind == LoopClosure::Kind::Weld) {
      // Orientation error as the world rotation vector of R_a' R_b'ᵀ (zero when the frames agree).
      const Mat3 Ra = framePose(model, ws, lc.a).R, Rb = framePose(model, ws, lc.b).R;
      rot_err = logSO3(Ra * Rb.transpose());
    }
    const double w0 = lc.stabilization_frequency, zeta = lc.stabilization_damping;
    ws.constraint_error.segment<3>(row) = psi;
    ws.constraint_velocity.segment<3>(row) = psi_dot;
    ws.constraint_rhs.segment<3>(row) = -bias_acc - 2.0 * zeta * w0 * psi_dot - w0 * w0 * psi;
    if (lc.kind == LoopClosure::Kind::Weld) {
      ws.constraint_error.segment<3>(row + 3) = rot_err;
      ws.constraint_velocity.segment<3>(row + 3) = rot_vel;
      ws.constraint_rhs.segment<3>(row + 3) = -rot_bias - 2.0 * zeta * w0 * rot_vel - w0 * w0 * rot_err;
    }
    row += lc.rows();
  }
}

std::string_view toString(DynamicsStatus status) {
  switch (status) {
    case DynamicsStatus::Ok:
      return "ok";
    case DynamicsStatus::SingularMassMatrix:
      return "mass matrix is singular or not positive definite";
    case DynamicsStatus::NonFinite:
      return "non-finite value (NaN or infinity) in the state or the accelerations";
  }
  return "unknown";
}

DynamicsStatus computeDynamicsTerms(const Model& model, const VecX& x, const VecX& xi, const VecX& u,
                                    Workspace& ws, double stabilization_gain) {
  RBS_ASSERT_SIZE(x, model.nx);
  RBS_ASSERT_SIZE(xi, model.nxi);
  RBS_ASSERT_SIZE(u, model.numInputs());
  RBS_ASSERT(ws.xidot.size() == model.nxi && ws.pose.size() == model.bodies.size(),
             "the workspace was built for another model");
  if (!allFinite(x) || !allFinite(xi) || !allFinite(u)) return DynamicsStatus::NonFinite;
  computeKinematics(model, x, xi, ws);
  if (model.articulated_body_dynamics) {  // c and f_G enter the recursion as body wrenches
    computeElasticForces(model, x, ws);
    computeDampingForces(model, xi, ws);
    computeInputForces(model, x, xi, u, ws);
  } else if (model.single_rigid_body) {  // the same terms as the five calls below, one pass
    computeMassMatrix(model, ws);
    computeSingleBodyForces(model, u, ws);
  } else {
    computeMassMatrix(model, ws);
    computeInertialForces(model, ws);
    computeGravityForces(model, ws);
    computeElasticForces(model, x, ws);
    computeDampingForces(model, xi, ws);
    computeInputForces(model, x, xi, u, ws);
  }
  computeConfigurationRate(model, x, xi, ws, stabilization_gain);
  return DynamicsStatus::Ok;
}

DynamicsStatus solveAccelerations(const Model& model, const VecX& x, const VecX& xi, Workspace& ws) {
  if (model.articulated_body_dynamics) {
    // (3.124) as M ξ̇ = τ − Σ_b J_bᵀ p_b with τ = f_E − f_D − f_K and c + f_G in the p_b.
    ws.xidot = ws.input_forces - ws.damping_forces - ws.elastic_forces;
    if (!solveArticulatedBody(model, ws)) return DynamicsStatus::SingularMassMatrix;
    if (!allFinite(ws.xidot) || !allFinite(ws.xdot)) return DynamicsStatus::NonFinite;
    return DynamicsStatus::Ok;
  }
  // (3.124): M ξ̇ = f_E − c − f_D − f_K − f_G
  ws.rhs = ws.input_forces - ws.inertial_forces - ws.damping_forces - ws.elastic_forces - ws.gravity_forces;
  const bool regular = factorizeMassMatrix(model, ws);
  if (!regular && model.constraint_rows == 0) return DynamicsStatus::SingularMassMatrix;
  if (model.constraint_rows > 0) {
    computeBodyJacobians(model, ws);
    computeLoopClosures(model, x, xi, ws);
  }
  // M⁻¹ B, or M̃⁻¹ B with the augmented M̃ below when M itself is singular
  const auto solve = [&](Eigen::Ref<MatX> B) {
    if (regular)
      solveWithMassMatrix(model, ws, B);
    else
      ws.augmented_llt.solveInPlace(B);
  };
  if (!regular) {
    // A body without mass or inertia on a constrained coordinate (a URDF mimic follower) makes M
    // singular while the motion is still determined: M is positive definite on the velocities
    // Z ξ̇ = z allows. Adding w Zᵀ Z ξ̇ = w Zᵀ z to M ξ̇ = b + Zᵀ μ leaves the solution as it is
    // (the augmented-Lagrangian form of the KKT system) and makes M̃ = M + w Zᵀ Z positive definite
    // exactly then; w brings Zᵀ Z to M's scale (mean diagonals).
    const MatX& Z = ws.constraint_jacobian;
    const double w = (ws.mass_matrix.trace() / model.nxi) /
                     std::max(Z.squaredNorm() / model.constraint_rows, 1e-300);
    ws.augmented_mass = ws.mass_matrix;
    ws.augmented_mass.noalias() += w * Z.transpose() * Z;
    ws.augmented_llt.compute(ws.augmented_mass);
    if (ws.augmented_llt.info() != Eigen::Success ||
        !regularCholeskyPivots(ws.augmented_llt.matrixLLT(), ws.augmented_mass))
      return DynamicsStatus::SingularMassMatrix;
    ws.rhs.noalias() += w * Z.transpose() * ws.constraint_rhs;
  }
  ws.xidot = ws.rhs;
  solve(ws.xidot);

  if (model.constraint_rows > 0) {
    // Gauss' principle (3.132): ξ̇ = ξ̇_free + M⁻¹Zᵀ (Z M⁻¹ Zᵀ)⁻¹ (z − Z ξ̇_free).
    // Redundant closure rows (e.g. a ball closure of a planar loop) make Z M⁻¹ Zᵀ singular; a
    // regularization of 1e-12 of its trace keeps the solve defined and changes consistent
    // constraints only at that relative level.
    ws.mass_inv_constraint_t = ws.constraint_jacobian.transpose();
    solve(ws.mass_inv_constraint_t);
    ws.constraint_schur.noalias() = ws.constraint_jacobian * ws.mass_inv_constraint_t;
    const double reg = 1e-12 * (ws.constraint_schur.trace() + 1e-300);
    ws.constraint_schur.diagonal().array() += reg;
    ws.constraint_ldlt.compute(ws.constraint_schur);
    ws.multipliers = ws.constraint_rhs;
    ws.multipliers.noalias() -= ws.constraint_jacobian * ws.xidot;
    ws.constraint_ldlt.solveInPlace(ws.multipliers);
    ws.xidot.noalias() += ws.mass_inv_constraint_t * ws.multipliers;
  }
  if (!allFinite(ws.xidot) || !allFinite(ws.xdot)) return DynamicsStatus::NonFinite;
  return DynamicsStatus::Ok;
}

DynamicsStatus computeForwardDynamics(const Model& model, const VecX& x, const VecX& xi,
                                      const VecX& u, Workspace& ws, double stabilization_gain) {
  RBS_ASSERT_SIZE(x, model.nx);  // here too: a violation names the function the caller called
  RBS_ASSERT_SIZE(xi, model.nxi);
  RBS_ASSERT_SIZE(u, model.numInputs());
  const DynamicsStatus s = computeDynamicsTerms(model, x, xi, u, ws, stabilization_gain);
  return s == DynamicsStatus::Ok ? solveAccelerations(model, x, xi, ws) : s;
}

void computeAppliedForces(const Model& model, const AppliedWrench* wrenches, int count, Workspace& ws, VecX& out) {
  RBS_ASSERT_SIZE(out, model.nxi);
  clearWrenches(ws);
  for (int k = 0; k < count; ++k) {
    const AppliedWrench& w = wrenches[k];
    RBS_ASSERT(w.body >= 0 && w.body < model.numBodies(), "applied wrench on a body the model does not have");
    // Body coordinates: f_b = Rᵀ f, τ_b = p × f_b + Rᵀ τ (the torque of f about the body origin).
    const Mat3& R = ws.pose[w.body].R;
    const Vec3 f = R.transpose() * w.force;
    ws.wrench[w.body].head<3>() += f;
    ws.wrench[w.body].tail<3>() += w.point.cross(f) + R.transpose() * w.torque;
  }
  mapBodyWrenches(model, ws.wrench, ws, out);
}

}  // namespace rbs
