#include "core/control/prototype_template.h"

#include <algorithm>
#include <cmath>

#include <Eigen/Cholesky>

#include "core/dynamics/kinematics.h"

namespace rbs {
namespace {

/// Ŵ(w) of the compact Levi-Civita form (konz-control §5.3): [0, wed w_v; wed w_v, wed w_ω].
Vec6 hatWTimes(const Vec6& w, const Vec6& e) {
  Vec6 out;
  out.head<3>() = w.head<3>().cross(e.tail<3>());
  out.tail<3>() = w.head<3>().cross(e.head<3>()) + w.tail<3>().cross(e.tail<3>());
  return out;
}

/// C̄(η) ξ_E with C̄(η) = ½ (−Ŵ(M̄η) − ad_ηᵀ M̄ + M̄ ad_η) (4.44, compact form [verified] in the
/// notes); C̄(ξ_E) ξ_E = −ad_{ξ_E}ᵀ M̄ ξ_E.
Vec6 leviCivitaTimes(const Mat6& Mb, const Vec6& eta, const Vec6& xi_e) {
  return 0.5 * (-hatWTimes(Mb * eta, xi_e) - adTransposeTimes(eta, Mb * xi_e) + Mb * adTimes(eta, xi_e));
}

/// tr(X K Xᵀ) = Σ_ij (X K)_ij X_ij: one 4×4 product instead of two.
double traceWeighted(const Mat4& X, const Mat4& K) { return (X * K).cwiseProduct(X).sum(); }

/// Vee(M̄'), Vee(D̄') (3.83b) of the pair, formed again only when its moment matrices changed (a
/// parameter edit), not in every evaluation.
void refreshVee(const TemplatePair& p, PairState& s) {
  if (s.inertia_moment != p.inertia) {  // (NaN at first: never equal)
    s.inertia_moment = p.inertia;
    s.inertia_6 = Vee(p.inertia);
  }
  if (s.damping_moment != p.damping) {
    s.damping_moment = p.damping;
    s.damping_6 = Vee(p.damping);
  }
}

}  // namespace

void boundedStiffness(const Mat4& K, double force_limit, bool tilt_only, const Pose& G_E, Vec6& force,
                      double& energy) {
  const Mat3& R = G_E.R;
  force.setZero();
  energy = 0.0;
  const double k = K(3, 3);
  Mat3 K_c = K.topLeftCorner<3, 3>();
  if (k > 0.0) {
    const Vec3 h = K.topRightCorner<3, 1>() / k;
    K_c -= k * h * h.transpose();
    const Vec3 d = R * h + G_E.r - h;
    const double sigma = force_limit / k;
    const double ratio2 = d.squaredNorm() / (sigma * sigma);
    const double root = std::sqrt(1.0 + ratio2);
    // k σ² (√(1 + r) − 1) = k |d|² / (√(1 + r) + 1): no cancellation for small d.
    energy += k * d.squaredNorm() / (root + 1.0);
    const Vec3 f = (k / root) * (R.transpose() * d);  // the centre's force in body axes
    force.head<3>() = f;
    force.tail<3>() = h.cross(f);
  }
  // Rotation about the centre: Π = tr(K_c) I − K_c (Wed⁻¹), q = (w, q_v) of R_E with w ≥ 0.
  const Mat3 Pi = K_c.trace() * Mat3::Identity() - K_c;
  if (tilt_only) {
    // c = cos α = e_zᵀ R_E e_z, s = cos(α/2) = √((1 + c)/2): V = 4 Π̄ (1 − s), and with
    // δc = δωᵀ (e_z × R_Eᵀ e_z) the torque −(Π̄/s) e_z × R_Eᵀ e_z, of size 2 Π̄ sin(α/2).
    const double pi_tilt = 0.5 * (Pi(0, 0) + Pi(1, 1));
    const Vec3 z_in_body = R.row(2).transpose();  // R_Eᵀ e_z
    const double c = std::clamp(z_in_body.z(), -1.0, 1.0);
    const double s = std::sqrt(0.5 * (1.0 + c));
    energy += 4.0 * pi_tilt * (1.0 - s);
    if (s > 1e-12) force.tail<3>() += -(pi_tilt / s) * Vec3::UnitZ().cross(z_in_body);
    return;
  }
  const Vec4 q = rotationToQuaternion(R);
  const double w = q(0);
  const Vec3 qv = q.tail<3>();
  const Vec3 Pq = Pi * qv;
  const double N = qv.dot(Pq), s = 1.0 + w;
  energy += 4.0 * N / s;
  // δq_v = ½ (w δω + q_v × δω), δw = −½ q_vᵀ δω for R_E → R_E exp(wed δω).
  force.tail<3>() += (4.0 / (s * s)) * (s * (w * Pq + Pq.cross(qv)) + 0.5 * N * qv);
}

Mat4 momentMatrix(double total, const Vec3& centre, const Mat3& moment_about_centre) {
  Mat4 out;
  out.topLeftCorner<3, 3>() = Wed(moment_about_centre) + total * centre * centre.transpose();
  out.topRightCorner<3, 1>() = total * centre;
  out.bottomLeftCorner<1, 3>() = total * centre.transpose();
  out(3, 3) = total;
  return out;
}

void setNaturalGains(TemplatePair& pair, double mass, const Vec3& theta, double omega, double zeta,
                     double omega_rot, double zeta_rot) {
  const Vec3 o = Vec3::Zero();
  pair.inertia = momentMatrix(mass, o, theta.asDiagonal());
  pair.damping = momentMatrix(2 * zeta * omega * mass, o, (2 * zeta_rot * omega_rot * theta).asDiagonal());
  pair.stiffness = momentMatrix(omega * omega * mass, o, (omega_rot * omega_rot * theta).asDiagonal());
}

void PrototypeTemplate::evaluateWithPlant(const State& state, const ReferenceSample& reference, Workspace& ws,
                                          Workspace& ws_ref, PlantTerms& plant, TemplateEvaluation& out) {
  evaluatePlant(model_, state, ws, plant);
  evaluateAgainstReference(ws, state, reference, ws_ref, out);
}

void PrototypeTemplate::evaluateKinematicsOnly(const State& state, const ReferenceSample& reference, Workspace& ws,
                                               Workspace& ws_ref, TemplateEvaluation& out) {
  computeKinematics(model_, state.x, state.xi, ws);
  refreshLayout();
  if (needs_body_jacobians_) computeBodyJacobians(model_, ws);
  evaluateAgainstReference(ws, state, reference, ws_ref, out);
}

void PrototypeTemplate::completeReferenceKinematics(const VecX& x_ref, const VecX& xi_ref, Workspace& ws_ref) {
  if (!reference_bodies_missing_) return;
  computeKinematics(model_, x_ref, xi_ref, ws_ref);
  reference_bodies_missing_ = false;
}

int PrototypeTemplate::spannedJoint(const TemplatePair& p) const {
  if (p.joint >= 0) return p.joint;
  if (p.a.body >= 0 || p.b.body < 0) return -1;
  // Joint index = child body index. At the root with T_p = T_c = I, the world → body pair is the
  // joint pair: ^a_bG = G_b = G_e, J_b = S_e in the joint's columns, η_b = J_e ξ, κ_b = σ_e.
  const Joint& joint = model_.joints[p.b.body];
  if (joint.parent >= 0 || joint.has_parent_placement || joint.has_child_placement ||
      joint.type == JointType::SphericalAbsolute || !p.a.offset.isIdentity() || !p.b.offset.isIdentity())
    return -1;
  return p.b.body;
}

void PrototypeTemplate::refreshLayout() {
  if (layout_valid_ && spanned_.size() == pairs_.size()) return;
  spanned_.resize(pairs_.size());
  for (std::size_t k = 0; k < pairs_.size(); ++k) spanned_[k] = spannedJoint(pairs_[k]);
  // Pairs that span a joint take their Jacobians from the joints (jointPairJacobian).
  needs_body_jacobians_ = std::any_of(spanned_.begin(), spanned_.end(), [](int j) { return j < 0; });
  layout_valid_ = true;
}

void PrototypeTemplate::evaluateAgainstReference(const Workspace& ws, const State& state,
                                                 const ReferenceSample& reference, Workspace& ws_ref,
                                                 TemplateEvaluation& out) {
  refreshLayout();
  const bool bodies = needs_body_jacobians_;
  if (!bodies) {
    // Joint pairs read their joints' own motions only (jointPairJacobian), and a joint's S_e, J_e ξ
    // and σ_e do not depend on its parent's motion (joint pairs exclude spherical_absolute, the
    // one type whose do): no poses, twists or biases of the reference bodies, and no other joints.
    const Vec6 zero = Vec6::Zero();
    for (const int spanned : spanned_) {
      const Joint& j = model_.joints[spanned];
      evaluateJoint(j, reference.x.data() + j.x_offset, reference.xi.data() + j.xi_offset, zero, zero,
                    ws_ref.joint[j.child]);
    }
  } else {
    computeKinematics(model_, reference.x, reference.xi, ws_ref);
    if (bodies) computeBodyJacobians(model_, ws_ref);
  }
  reference_bodies_missing_ = !bodies;
  evaluate(ws, ws_ref, state.xi, reference.xidot, out);
}

PrototypeTemplate::PrototypeTemplate(const Model& model, std::vector<TemplatePair> pairs,
                                     VelocityError variant)
    : model_(model), pairs_(std::move(pairs)), variant_(variant) {
  scratch_.setZero(6, model.nxi);
  child_placement_adjoint_.reserve(model.joints.size());
  for (const Joint& j : model.joints) {
    child_placement_adjoint_.push_back(Ad(j.child_placement));
    parent_placement_inverse_.push_back(j.parent_placement.inverse());
    child_placement_inverse_.push_back(j.child_placement.inverse());
  }
}

// ^a_bG = G_a⁻¹ G_b, ^a_bJ = J_b − Ad_{^a_bG}⁻¹ J_a (3.121), ^a_bξ = J ξ and
// ^a_bJ̇ ξ = κ_b − Ad⁻¹ κ_a + ad_{^a_bξ} Ad⁻¹ η_a (from d/dt Ad_G⁻¹ = −ad_ξ Ad_G⁻¹). Frames with an
// offset T: J_f = Ad_T⁻¹ J_body, and likewise for η and κ.
void PrototypeTemplate::pairJacobian(const Workspace& ws, const TemplatePair& p, int spanned_joint, Pose& G,
                                     Mat6X& J, Vec6& twist, Vec6& bias) const {
  if (spanned_joint >= 0) {
    jointPairJacobian(ws, spanned_joint, G, J, twist, bias);
    return;
  }
  const Pose G_b = framePose(model_, ws, p.b);
  if (p.a.body < 0 && p.a.offset.isIdentity()) {
    G = G_b;  // the world frame: ^a_bG = G_b
  } else {
    G = framePose(model_, ws, p.a).inverse() * G_b;
  }
  if (p.b.offset.isIdentity()) {  // the body frame itself (a base pair)
    J = ws.jacobian(p.b.body);
    twist = ws.twist[p.b.body];
    bias = ws.bias[p.b.body];
  } else {
    J.noalias() = AdInv(p.b.offset) * ws.jacobian(p.b.body);
    twist = adjointInvTimes(p.b.offset, ws.twist[p.b.body]);
    bias = adjointInvTimes(p.b.offset, ws.bias[p.b.body]);
  }
  if (p.a.body >= 0) {
    const Vec6 eta_a = adjointInvTimes(p.a.offset, ws.twist[p.a.body]);
    const Vec6 kappa_a = adjointInvTimes(p.a.offset, ws.bias[p.a.body]);
    const Mat6 map = AdInv(G) * AdInv(p.a.offset);
    J.noalias() -= map * ws.jacobian(p.a.body);
    const Vec6 eta_a_in_b = adjointInvTimes(G, eta_a);
    twist -= eta_a_in_b;
    bias += -adjointInvTimes(G, kappa_a) + adTimes(twist, eta_a_in_b);
  }
}

// For a = (λ, T_p), b = (child, T_c⁻¹): ^a_bG = T_p⁻¹ G_e T_c⁻¹, the joint's motion pose, and
// ^a_bJ = Ad_{T_c} (J_child − Ad_{G_e}⁻¹ J_λ) = Ad_{T_c} J_e (3.102a), whose only non-zero columns
// are S_e. Likewise ^a_bξ = Ad_{T_c} J_e ξ and ^a_bJ̇ ξ = Ad_{T_c} σ_e (the offsets are constant).
// Writes the joint's columns of J only: the others are zero (evaluate() zeroes J when a pair is
// laid out), which saves clearing 6×n entries per pair and evaluation.
void PrototypeTemplate::jointPairJacobian(const Workspace& ws, int joint_index, Pose& G, Mat6X& J,
                                          Vec6& twist, Vec6& bias) const {
  const Joint& joint = model_.joints[joint_index];
  const JointMotion& m = ws.joint[joint.child];
  G = m.transform;
  if (joint.has_parent_placement) G = parent_placement_inverse_[joint_index] * G;
  if (!joint.has_child_placement) {  // T_c = I: the joint's own columns, twist and bias
    J.middleCols(joint.xi_offset, joint.nxi) = m.S;
    twist = m.relative_twist;
    bias = m.bias;
    return;
  }
  const Pose& Tc = joint.child_placement;
  G = G * child_placement_inverse_[joint_index];
  J.middleCols(joint.xi_offset, joint.nxi).noalias() = child_placement_adjoint_[joint_index] * m.S;
  twist = adjointTimes(Tc, m.relative_twist);
  bias = adjointTimes(Tc, m.bias);
}

void PrototypeTemplate::evaluate(const Workspace& ws, const Workspace& ws_ref, const VecX& xi,
                                 const VecX& xidot_ref, TemplateEvaluation& out) {
  const int n = model_.nxi;
  (void)xi;  // enters through ws (the twists J ξ)
  refreshLayout();
  if (state_.size() != pairs_.size()) {  // pairs() was edited: size the per-pair buffers
    state_.resize(pairs_.size());
    J_.assign(pairs_.size(), Mat6X::Zero(6, n));
    J_ref_.assign(pairs_.size(), Mat6X::Zero(6, n));
  }
  out.Mbar.setZero(n, n);
  out.bbar.setZero(n);
  out.kinetic = out.potential = out.rayleigh = 0.0;
  for (std::size_t k = 0; k < pairs_.size(); ++k) {
    const TemplatePair& p = pairs_[k];
    PairState& s = state_[k];
    Mat6X& J = J_[k];
    Mat6X& J_R = J_ref_[k];
    const int spanned = spanned_[k];
    if (s.jacobian_joint != spanned) {  // a new layout: jointPairJacobian writes its columns only
      J.setZero();
      J_R.setZero();
      s.jacobian_joint = spanned;
      s.rotation_pair = spanned >= 0 && isRevoluteType(model_.joints[spanned].type);
      s.identity_jacobian = spanned >= 0 && hasIdentityMotionSubspace(model_.joints[spanned]);
      if (s.rotation_pair) {
        const Joint& joint = model_.joints[spanned];
        J.col(joint.xi_offset).tail<3>() = joint.axis;
        J_R.col(joint.xi_offset).tail<3>() = joint.axis;
      }
    }
    if (s.rotation_pair && variant_ != VelocityError::Particle) {
      evaluateRotationPair(ws, ws_ref, xidot_ref, spanned, p, s, out);
      continue;
    }
    Pose G, G_R;
    pairJacobian(ws, p, spanned, G, J, s.twist, s.bias);
    Vec6 ref_bias;
    pairJacobian(ws_ref, p, spanned, G_R, J_R, s.ref_twist, ref_bias);
    if (s.identity_jacobian) {  // J_R = I in the joint's columns
      s.ref_acceleration = xidot_ref.segment<6>(model_.joints[spanned].xi_offset) + ref_bias;
    } else if (spanned >= 0) {  // J_R is zero outside the joint's columns
      const Joint& joint = model_.joints[spanned];
      s.ref_acceleration.noalias() =
          J_R.middleCols(joint.xi_offset, joint.nxi) * xidot_ref.segment(joint.xi_offset, joint.nxi);
      s.ref_acceleration += ref_bias;
    } else {
      s.ref_acceleration = J_R * xidot_ref + ref_bias;
    }
    s.G_E = G_R.inverse() * G;

    const Pose G_E_inv = s.G_E.inverse();
    const Mat4 G_E_inv4 = G_E_inv.matrix();
    refreshVee(p, s);
    const Mat6& Mb = s.inertia_6;
    const Mat6& Db = s.damping_6;
    // (4.66b) f̄_K = vee2((I − G_E⁻¹) K̄'); V̄ = ½ ‖(G_E − I)ᵀ‖²_K̄' (4.20a).
    if (p.force_limit > 0.0) {
      double energy = 0.0;
      boundedStiffness(p.stiffness, p.force_limit, p.tilt_only, s.G_E, s.stiffness_force, energy);
      out.potential += energy;
    } else {
      s.stiffness_force = vee2(Mat4((Mat4::Identity() - G_E_inv4) * p.stiffness));
      out.potential += 0.5 * traceWeighted(s.G_E.matrix() - Mat4::Identity(), p.stiffness);
    }
    // Body error twist ξ_E = Jξ − Ad_{G_E}⁻¹ J_R ξ_R (4.66e), used by all variants' energy rate.
    const Vec6 ref_in_body = adjointInvTimes(s.G_E, s.ref_twist);
    s.error_twist = s.twist - ref_in_body;
    s.error_acceleration =
        s.bias - adjointInvTimes(s.G_E, s.ref_acceleration) + adTimes(s.error_twist, ref_in_body);

    Vec6 force;  // c̄ + f̄_D + f̄_K of the pair, in pair coordinates
    if (variant_ == VelocityError::Particle) {
      // (4.66c,d): point velocities and accelerations of the actual and the reference body,
      // compared in the actual body frame (left multiplication by G_E⁻¹).
      const Mat4 wed_eta = wed(s.twist), wed_ref = wed(s.ref_twist);
      s.point_velocity_error = wed_eta - G_E_inv4 * wed_ref;
      const Mat4 accel = wed(s.bias) + wed_eta * wed_eta -
                         G_E_inv4 * (wed(s.ref_acceleration) + wed_ref * wed_ref);
      force = vee2(Mat4(accel * p.inertia)) + vee2(Mat4(s.point_velocity_error * p.damping)) +
              s.stiffness_force;
      out.kinetic += 0.5 * traceWeighted(s.point_velocity_error, p.inertia);
      out.rayleigh += 0.5 * traceWeighted(s.point_velocity_error, p.damping);
    } else {
      // (4.66f) body: M̄_ab (J̇ξ − Ad⁻¹ a_R + ad_{ξ_E} Ad⁻¹ η_R) − ad_{ξ_E}ᵀ M̄_ab ξ_E;
      // (4.66h) energy: the Levi-Civita term C̄(Jξ) ξ_E instead of −ad_{ξ_E}ᵀ M̄_ab ξ_E.
      const Vec6 momentum = Mb * s.error_twist;
      const Vec6 damping_force = Db * s.error_twist;
      const Vec6 gyroscopic = variant_ == VelocityError::Body ? Vec6(-adTransposeTimes(s.error_twist, momentum))
                                                              : leviCivitaTimes(Mb, s.twist, s.error_twist);
      force = Mb * s.error_acceleration + gyroscopic + damping_force + s.stiffness_force;
      out.kinetic += 0.5 * s.error_twist.dot(momentum);
      out.rayleigh += 0.5 * s.error_twist.dot(damping_force);
    }
    // (4.66a) M̄ = Σ Jᵀ Vee(M̄') J; (4.66j) b̄ = Σ Jᵀ (c̄ + f̄_D + f̄_K).
    // Inner dimension 6: coefficient-wise products beat the blocked GEMM kernels here.
    if (s.identity_jacobian) {  // J = I in the joint's columns: Jᵀ Vee(M̄') J = Vee(M̄'), exactly
      const int o = model_.joints[spanned].xi_offset;
      out.Mbar.block<6, 6>(o, o) += Mb;
      out.bbar.segment<6>(o) += force;
    } else if (spanned >= 0) {  // J is non-zero in the joint's columns only
      const Joint& joint = model_.joints[spanned];
      const auto Jc = J.middleCols(joint.xi_offset, joint.nxi);
      scratch_.leftCols(joint.nxi).noalias() = Mb.lazyProduct(Jc);
      out.Mbar.block(joint.xi_offset, joint.xi_offset, joint.nxi, joint.nxi).noalias() +=
          Jc.transpose().lazyProduct(scratch_.leftCols(joint.nxi));
      out.bbar.segment(joint.xi_offset, joint.nxi).noalias() += Jc.transpose().lazyProduct(force);
    } else {
      scratch_.noalias() = Mb.lazyProduct(J);
      out.Mbar.noalias() += J.transpose().lazyProduct(scratch_);
      out.bbar.noalias() += J.transpose().lazyProduct(force);
    }
  }
}

// A pair across a revolute (or revolute_unit_circle) joint, from the joint frame before to the one
// after the motion: G = Rot(a, θ) with a the joint axis, J = Ad_{T_c} S_e = [0; a], Jξ = [0; a θ̇]
// and J̇ξ = Ad_{T_c} σ_e = 0; likewise at the reference. So G_E = Rot(a, δ), δ = θ − θ_R, whose
// Ad⁻¹ leaves [0; a] alone, and the general terms (4.66e,f) become
//   ξ_E = [0; a] δ̇,   (d/dt ξ_E) − J ξ̇ = −[0; a] θ̈_R   (ad_{ξ_E} of a parallel twist vanishes),
//   Jᵀ ad_{ξ_E}ᵀ(·) = (ad_{ξ_E} J)ᵀ(·) = 0, and the Levi-Civita term C̄(Jξ) ξ_E (4.44) projects to 0
//   as well (ad_η ξ_E = 0, ad_η J = 0, aᵀ(w × a) = 0).
// With m = aᵀ M̄_ωω a and d = aᵀ D̄_ωω a (angular blocks of Vee(M̄'), Vee(D̄')) and K̄' = [K̄₃ κ; κᵀ k]:
//   M̄_jj += m,   b̄_j += −m θ̈_R + d δ̇ + aᵀ vee2((I − R_Eᵀ) K̄₃)          (4.66a,j)
//   f̄_K = vee2((I − G_E⁻¹) K̄') = [(I − R_Eᵀ) κ; vee2((I − R_Eᵀ) K̄₃)],   V̄ = ½ tr((R_E − I) K̄₃ (R_E − I)ᵀ).
// The same numbers as the general path to rounding (test JointPairsGiveTheFramePairNumbers…), at a
// tenth of its cost: no pose products, 6×6 products or Jacobian columns per evaluation.
void PrototypeTemplate::evaluateRotationPair(const Workspace& ws, const Workspace& ws_ref, const VecX& xidot_ref,
                                             int joint_index, const TemplatePair& p, PairState& s,
                                             TemplateEvaluation& out) const {
  const Joint& joint = model_.joints[joint_index];
  const JointMotion& motion = ws.joint[joint.child];
  const JointMotion& motion_ref = ws_ref.joint[joint.child];
  const Vec3& a = joint.axis;
  const int j = joint.xi_offset;
  // θ̇ from J_e ξ = S_e θ̇, whose angular part R_cᵀ a is a unit vector.
  const double rate = motion.S.col(0).tail<3>().dot(motion.relative_twist.tail<3>());
  const double rate_ref = motion_ref.S.col(0).tail<3>().dot(motion_ref.relative_twist.tail<3>());
  const double delta_rate = rate - rate_ref;
  const double accel_ref = xidot_ref(j);
  // R_E = R_Rᵀ R with R = R_pᵀ R_e R_cᵀ (G = T_p⁻¹ G_e T_c⁻¹): R_p cancels.
  Mat3 R_E = motion_ref.transform.R.transpose() * motion.transform.R;
  if (joint.has_child_placement) R_E = joint.child_placement.R * R_E * joint.child_placement.R.transpose();

  Vec6 axis6;
  axis6 << Vec3::Zero(), a;
  s.G_E = Pose{R_E, Vec3::Zero()};
  s.twist = rate * axis6;
  s.bias.setZero();
  s.ref_twist = rate_ref * axis6;
  s.ref_acceleration = accel_ref * axis6;
  s.error_twist = delta_rate * axis6;
  s.error_acceleration = -accel_ref * axis6;
  const Mat3 K3 = p.stiffness.topLeftCorner<3, 3>();
  double bounded_energy = 0.0;
  if (p.force_limit > 0.0) {
    boundedStiffness(p.stiffness, p.force_limit, p.tilt_only, s.G_E, s.stiffness_force, bounded_energy);
  } else {
    const Mat3 I_minus_RtE = Mat3::Identity() - R_E.transpose();
    s.stiffness_force << I_minus_RtE * p.stiffness.topRightCorner<3, 1>(), vee2(Mat3(I_minus_RtE * K3));
  }
  refreshVee(p, s);
  const double m = a.dot(s.inertia_6.bottomRightCorner<3, 3>() * a);
  const double d = a.dot(s.damping_6.bottomRightCorner<3, 3>() * a);
  out.Mbar(j, j) += m;
  out.bbar(j) += -m * accel_ref + d * delta_rate + a.dot(s.stiffness_force.tail<3>());
  out.kinetic += 0.5 * m * delta_rate * delta_rate;
  out.rayleigh += 0.5 * d * delta_rate * delta_rate;
  if (p.force_limit > 0.0) {
    out.potential += bounded_energy;
  } else {
    const Mat3 RE_minus_I = R_E - Mat3::Identity();
    out.potential += 0.5 * (RE_minus_I * K3).cwiseProduct(RE_minus_I).sum();
  }
}

double PrototypeTemplate::energyRate(const VecX& xidot) const {
  double rate = 0.0;
  for (std::size_t k = 0; k < pairs_.size(); ++k) {
    const TemplatePair& p = pairs_[k];
    const PairState& s = state_[k];
    const Vec6 pair_accel = J_[k] * xidot;
    // dV̄/dt = ξ_Eᵀ vee2((I − G_E⁻¹) K̄') since Ġ_E = G_E wed ξ_E.
    rate += s.error_twist.dot(s.stiffness_force);
    if (variant_ == VelocityError::Particle) {
      // T̄ = ½ tr(V M̄' Vᵀ), V̇ = wed(Jξ̇ + J̇ξ) + wed(ξ_E) G_E⁻¹ wed(η_R) − G_E⁻¹ wed(a_R).
      const Mat4 G_E_inv4 = s.G_E.inverse().matrix();
      const Mat4 v_dot = wed(Vec6(pair_accel + s.bias)) +
                         wed(s.error_twist) * G_E_inv4 * wed(s.ref_twist) -
                         G_E_inv4 * wed(s.ref_acceleration);
      rate += (v_dot * p.inertia * s.point_velocity_error.transpose()).trace();
    } else {
      rate += s.error_twist.dot(s.inertia_6 * (pair_accel + s.error_acceleration));
    }
  }
  return rate;
}

double PrototypeTemplate::transportMapResidual() const {
  const int rows = 6 * static_cast<int>(pairs_.size());
  MatX stacked(rows, model_.nxi), target(rows, model_.nxi);
  double scale = 1.0;
  for (std::size_t k = 0; k < pairs_.size(); ++k) {
    stacked.middleRows<6>(6 * k) = J_[k];
    target.middleRows<6>(6 * k) = AdInv(state_[k].G_E) * J_ref_[k];
    scale = std::max(scale, J_ref_[k].norm());
  }
  // Least squares through the normal equations (n ≤ a few dozen; J_s has full column rank for a
  // template that determines every coordinate).
  const MatX Q = (stacked.transpose() * stacked).ldlt().solve(stacked.transpose() * target);
  return (stacked * Q - target).norm() / scale;
}

}  // namespace rbs
