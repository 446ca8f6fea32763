// SO(3)/SE(3) algebra with the conventions of the Konz dissertation (seeds/000, §2.3 and §3.3.6):
//  - twists are ordered [v; ω] (linear first), wrenches [f; τ];
//  - wed/vee are the hat maps, vee2(M) = vee(M − Mᵀ) (2.52, 3.81), Vee/Wed map between the 6×6
//    inertia-like matrices and the 4×4 "moment" matrices (2.54–2.56, 3.83);
//  - Ad_G maps a twist from child (G's "from") coordinates to parent coordinates (3.85).
#pragma once

#include <Eigen/Core>
#include <Eigen/Geometry>

namespace rbs {

using Vec3 = Eigen::Vector3d;
using Vec4 = Eigen::Vector4d;
using Vec6 = Eigen::Matrix<double, 6, 1>;
using Mat3 = Eigen::Matrix3d;
using Mat4 = Eigen::Matrix4d;
using Mat6 = Eigen::Matrix<double, 6, 6>;
using VecX = Eigen::VectorXd;
using MatX = Eigen::MatrixXd;

// ---- 3-D hat maps (2.8, 2.51–2.57) ----------------------------------------------------------
/// Skew matrix: wed(a) b = a × b.
inline Mat3 wed(const Vec3& w) {
  Mat3 W;
  W << 0, -w.z(), w.y(), w.z(), 0, -w.x(), -w.y(), w.x(), 0;
  return W;
}
Vec3 vee(const Mat3& W);        // inverse of wed (reads the skew part's entries)
Vec3 vee2(const Mat3& M);       // vee(M − Mᵀ); vee2(wed a) = 2a
Mat3 Vee(const Mat3& M);        // tr(M) I − M
Mat3 Wed(const Mat3& M);        // ½ tr(M) I − M, the inverse of Vee

// ---- 6-D / 4×4 maps (3.78–3.84) --------------------------------------------------------------
Mat4 wed(const Vec6& xi);       // [wed ω, v; 0, 0]
Vec6 vee(const Mat4& X);        // inverse of wed on se(3)
Vec6 vee2(const Mat4& M);       // [b; vee2 A] for M = [A b; * *] (reads the top 3×4 block only)
Mat6 Vee(const Mat4& M);        // (3.83b)
Mat4 Wed(const Mat6& M);        // inverse of Vee on [dI wed(b)ᵀ; wed(c) X] (3.91)

// ---- Rigid transforms ------------------------------------------------------------------------
/// Pose G = [R r; 0 1] ∈ SE(3): rotation R (3×3, orthonormal) and translation r (metres).
struct Pose {
  Mat3 R = Mat3::Identity();
  Vec3 r = Vec3::Zero();

  static Pose identity() { return Pose{}; }
  static Pose fromMatrix(const Mat4& G) { return Pose{G.topLeftCorner<3, 3>(), G.topRightCorner<3, 1>()}; }
  static Pose translation(const Vec3& r) { return Pose{Mat3::Identity(), r}; }
  static Pose rotation(const Mat3& R) { return Pose{R, Vec3::Zero()}; }

  Mat4 matrix() const;
  /// Exactly the identity (placements and offsets that were never set), compared entry by entry:
  /// what Eigen's isIdentity(0) and isZero(0) test, at a tenth of their cost.
  bool isIdentity() const { return (R.array() == Mat3::Identity().array()).all() && (r.array() == 0.0).all(); }
  /// Inverse assuming R is orthonormal: [Rᵀ, −Rᵀ r].
  Pose inverse() const { return Pose{R.transpose(), -(R.transpose() * r)}; }
  Pose operator*(const Pose& o) const { return Pose{R * o.R, r + R * o.r}; }
  Vec3 operator*(const Vec3& p) const { return r + R * p; }
};

/// Ad_G (3.85): maps a twist in G's child coordinates to its parent coordinates.
Mat6 Ad(const Pose& G);
/// Ad_G⁻¹ = Ad_{G⁻¹}.
Mat6 AdInv(const Pose& G);
/// ad_ξ (3.85): ad_ξ η = vee[wed ξ, wed η].
Mat6 ad(const Vec6& xi);

// Products used in the recursions: the same as the matrices above, without forming them. Inline:
// they sit in the innermost loops of the dynamics.
/// Ad_G ξ
inline Vec6 adjointTimes(const Pose& G, const Vec6& xi) {
  Vec6 out;
  const Vec3 w = G.R * xi.tail<3>();
  out.head<3>() = G.R * xi.head<3>() + G.r.cross(w);
  out.tail<3>() = w;
  return out;
}
/// Ad_G⁻¹ ξ
inline Vec6 adjointInvTimes(const Pose& G, const Vec6& xi) {
  Vec6 out;
  const Vec3 w = xi.tail<3>();
  out.head<3>() = G.R.transpose() * (xi.head<3>() - G.r.cross(w));
  out.tail<3>() = G.R.transpose() * w;
  return out;
}
/// Ad_G⁻ᵀ w: a wrench in child coordinates seen in parent coordinates
inline Vec6 adjointInvTransposeTimes(const Pose& G, const Vec6& w) {
  // (Ad_G⁻¹)ᵀ = [R 0; wed(r) R, R]
  Vec6 out;
  const Vec3 f = G.R * w.head<3>();
  out.head<3>() = f;
  out.tail<3>() = G.r.cross(f) + G.R * w.tail<3>();
  return out;
}
/// ad_ξ η
inline Vec6 adTimes(const Vec6& xi, const Vec6& eta) {
  Vec6 out;
  const Vec3 v = xi.head<3>(), w = xi.tail<3>();
  out.head<3>() = w.cross(eta.head<3>()) + v.cross(eta.tail<3>());
  out.tail<3>() = w.cross(eta.tail<3>());
  return out;
}
/// ad_ξᵀ w
inline Vec6 adTransposeTimes(const Vec6& xi, const Vec6& wr) {
  // ad_ξᵀ = [wed(ω)ᵀ 0; wed(v)ᵀ wed(ω)ᵀ] and wed(a)ᵀ b = b × a.
  Vec6 out;
  const Vec3 v = xi.head<3>(), w = xi.tail<3>();
  const Vec3 f = wr.head<3>(), t = wr.tail<3>();
  out.head<3>() = f.cross(w);
  out.tail<3>() = f.cross(v) + t.cross(w);
  return out;
}

// ---- Exponential and logarithm ---------------------------------------------------------------
Mat3 expSO3(const Vec3& w);      // rotation by angle |w| about w/|w| (Rodrigues)
Vec3 logSO3(const Mat3& R);      // inverse of expSO3, angle in [0, π]; robust near 0 and π
Pose expSE3(const Vec6& xi);     // exp(wed ξ)
Vec6 logSE3(const Pose& G);      // inverse of expSE3
/// Rotation angle of R in [0, π].
double rotationAngle(const Mat3& R);

// ---- Rotation parameterizations ---------------------------------------------------------------
/// Closest rotation to M in the Frobenius norm (SVD, det = +1): the special polar
/// decomposition of konz-modeling §6, also used to project a drifted R back onto SO(3).
Mat3 projectToSO3(const Mat3& M);
/// Rotation by angle θ about unit axis a.
Mat3 axisAngleRotation(const Vec3& a, double angle);
/// Rotation by the angle whose (cos, sin) is (c, s)/|(c, s)| about unit axis a.
Mat3 axisCosSinRotation(const Vec3& a, double c, double s);
/// R_z(φ) R_y(β) R_x(α) (1.6a): roll α, pitch β, yaw φ.
Mat3 rotationZYX(double roll, double pitch, double yaw);
/// Inverse of rotationZYX; returns (roll, pitch, yaw) with pitch in [−π/2, π/2].
Vec3 eulerZYXFromRotation(const Mat3& R);
/// Unit-quaternion rotation with the 1/qᵀq factor, q = (w, x, y, z) (Hamilton, scalar first):
/// the rotation of q/|q| for any q ≠ 0 (konz-modeling §10, quaternion row).
Mat3 quaternionToRotation(const Vec4& q);
/// A unit quaternion (w ≥ 0) of R.
Vec4 rotationToQuaternion(const Mat3& R);
/// Hamilton product p ⊗ q.
Vec4 quaternionMultiply(const Vec4& p, const Vec4& q);

/// ‖RᵀR − I‖_F, the orthogonality drift of a 3×3 matrix.
double orthogonalityError(const Mat3& R);

}  // namespace rbs
