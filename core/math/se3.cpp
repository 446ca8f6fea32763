#include "core/math/se3.h"

#include <Eigen/SVD>
#include <cmath>

namespace rbs {


Vec3 vee(const Mat3& W) { return Vec3(W(2, 1), W(0, 2), W(1, 0)); }

Vec3 vee2(const Mat3& M) {
  return Vec3(M(2, 1) - M(1, 2), M(0, 2) - M(2, 0), M(1, 0) - M(0, 1));
}

Mat3 Vee(const Mat3& M) { return M.trace() * Mat3::Identity() - M; }

Mat3 Wed(const Mat3& M) { return 0.5 * M.trace() * Mat3::Identity() - M; }

Mat4 wed(const Vec6& xi) {
  Mat4 X = Mat4::Zero();
  X.topLeftCorner<3, 3>() = wed(Vec3(xi.tail<3>()));
  X.topRightCorner<3, 1>() = xi.head<3>();
  return X;
}

Vec6 vee(const Mat4& X) {
  Vec6 xi;
  xi << X.topRightCorner<3, 1>(), vee(Mat3(X.topLeftCorner<3, 3>()));
  return xi;
}

Vec6 vee2(const Mat4& M) {
  Vec6 out;
  out << M.topRightCorner<3, 1>(), vee2(Mat3(M.topLeftCorner<3, 3>()));
  return out;
}

Mat6 Vee(const Mat4& M) {
  // (3.83b): Vee [A b; cᵀ d] = [d I, wed(b)ᵀ; wed(c), Vee A]
  Mat6 out;
  const Mat3 A = M.topLeftCorner<3, 3>();
  const Vec3 b = M.topRightCorner<3, 1>();
  const Vec3 c = M.bottomLeftCorner<1, 3>().transpose();
  out.topLeftCorner<3, 3>() = M(3, 3) * Mat3::Identity();
  out.topRightCorner<3, 3>() = wed(b).transpose();
  out.bottomLeftCorner<3, 3>() = wed(c);
  out.bottomRightCorner<3, 3>() = Vee(A);
  return out;
}

Mat4 Wed(const Mat6& M) {
  // Inverse of Vee on matrices [d I, wed(b)ᵀ; wed(c), X]: Wed = [Wed₃(X) b; cᵀ d].
  Mat4 out;
  out.topLeftCorner<3, 3>() = Wed(Mat3(M.bottomRightCorner<3, 3>()));
  out.topRightCorner<3, 1>() = vee(Mat3(M.topRightCorner<3, 3>().transpose()));
  out.bottomLeftCorner<1, 3>() = vee(Mat3(M.bottomLeftCorner<3, 3>())).transpose();
  out(3, 3) = M(0, 0);
  return out;
}

Mat4 Pose::matrix() const {
  Mat4 G = Mat4::Identity();
  G.topLeftCorner<3, 3>() = R;
  G.topRightCorner<3, 1>() = r;
  return G;
}

Mat6 Ad(const Pose& G) {
  Mat6 X = Mat6::Zero();
  X.topLeftCorner<3, 3>() = G.R;
  X.topRightCorner<3, 3>() = wed(G.r) * G.R;
  X.bottomRightCorner<3, 3>() = G.R;
  return X;
}

Mat6 AdInv(const Pose& G) {
  Mat6 X = Mat6::Zero();
  const Mat3 Rt = G.R.transpose();
  X.topLeftCorner<3, 3>() = Rt;
  X.topRightCorner<3, 3>() = -Rt * wed(G.r);
  X.bottomRightCorner<3, 3>() = Rt;
  return X;
}

Mat6 ad(const Vec6& xi) {
  Mat6 X = Mat6::Zero();
  const Mat3 W = wed(Vec3(xi.tail<3>()));
  X.topLeftCorner<3, 3>() = W;
  X.topRightCorner<3, 3>() = wed(Vec3(xi.head<3>()));
  X.bottomRightCorner<3, 3>() = W;
  return X;
}






Mat3 expSO3(const Vec3& w) {
  const double theta2 = w.squaredNorm();
  const double theta = std::sqrt(theta2);
  const Mat3 W = wed(w);
  double a, b;  // R = I + a W + b W²
  if (theta < 1e-4) {
    a = 1.0 - theta2 / 6.0 + theta2 * theta2 / 120.0;
    b = 0.5 - theta2 / 24.0 + theta2 * theta2 / 720.0;
  } else {
    a = std::sin(theta) / theta;
    b = (1.0 - std::cos(theta)) / theta2;
  }
  return Mat3::Identity() + a * W + b * W * W;
}

double rotationAngle(const Mat3& R) {
  // atan2 of |vee2 R|/2 = sin θ and (tr R − 1)/2 = cos θ: accurate over the whole range.
  const double s = 0.5 * vee2(R).norm();
  const double c = 0.5 * (R.trace() - 1.0);
  return std::atan2(s, c);
}

Vec3 logSO3(const Mat3& R) {
  const double theta = rotationAngle(R);
  const Vec3 axis_sin = 0.5 * vee2(R);  // = sin θ · axis
  if (theta < 1e-4) {
    return axis_sin * (1.0 + theta * theta / 6.0);
  }
  if (theta < M_PI - 1e-3) {
    return axis_sin * (theta / std::sin(theta));
  }
  // Near π: the axis comes from the symmetric part, R + I ≈ 2 a aᵀ; the sign from vee2.
  const Mat3 S = 0.5 * (R + R.transpose() + (1.0 - R.trace()) * Mat3::Identity());
  int k;
  S.diagonal().maxCoeff(&k);
  Vec3 axis = S.col(k) / std::sqrt(std::max(S(k, k), 1e-300));
  axis.normalize();
  if (axis.dot(axis_sin) < 0.0) axis = -axis;
  return theta * axis;
}

Pose expSE3(const Vec6& xi) {
  const Vec3 v = xi.head<3>(), w = xi.tail<3>();
  const double theta2 = w.squaredNorm();
  const double theta = std::sqrt(theta2);
  const Mat3 W = wed(w);
  double b, c;  // V = I + b W + c W²
  if (theta < 1e-4) {
    b = 0.5 - theta2 / 24.0;
    c = 1.0 / 6.0 - theta2 / 120.0;
  } else {
    b = (1.0 - std::cos(theta)) / theta2;
    c = (theta - std::sin(theta)) / (theta2 * theta);
  }
  const Mat3 V = Mat3::Identity() + b * W + c * W * W;
  return Pose{expSO3(w), V * v};
}

Vec6 logSE3(const Pose& G) {
  const Vec3 w = logSO3(G.R);
  const double theta2 = w.squaredNorm();
  const double theta = std::sqrt(theta2);
  const Mat3 W = wed(w);
  double d;  // V⁻¹ = I − ½ W + d W²
  if (theta < 1e-4) {
    d = 1.0 / 12.0 + theta2 / 720.0;
  } else {
    d = (1.0 - theta * std::sin(theta) / (2.0 * (1.0 - std::cos(theta)))) / theta2;
  }
  const Mat3 Vinv = Mat3::Identity() - 0.5 * W + d * W * W;
  Vec6 xi;
  xi << Vinv * G.r, w;
  return xi;
}

Mat3 projectToSO3(const Mat3& M) {
  Eigen::JacobiSVD<Mat3> svd(M, Eigen::ComputeFullU | Eigen::ComputeFullV);
  const Mat3 U = svd.matrixU(), V = svd.matrixV();
  Mat3 D = Mat3::Identity();
  D(2, 2) = (U * V.transpose()).determinant() < 0.0 ? -1.0 : 1.0;
  return U * D * V.transpose();
}

Mat3 axisAngleRotation(const Vec3& a, double angle) {
  // Rodrigues: R = I + sin θ wed(a) + (1 − cos θ) wed(a)², written out for a unit axis.
  const double s = std::sin(angle), c = std::cos(angle), v = 1.0 - c;
  Mat3 R;
  R << c + v * a.x() * a.x(), v * a.x() * a.y() - s * a.z(), v * a.x() * a.z() + s * a.y(),
      v * a.x() * a.y() + s * a.z(), c + v * a.y() * a.y(), v * a.y() * a.z() - s * a.x(),
      v * a.x() * a.z() - s * a.y(), v * a.y() * a.z() + s * a.x(), c + v * a.z() * a.z();
  return R;
}

Mat3 axisCosSinRotation(const Vec3& a, double c, double s) {
  const double rho = std::hypot(c, s);
  c /= rho;
  s /= rho;
  const Mat3 A = wed(a);
  return Mat3::Identity() + s * A + (1.0 - c) * A * A;
}

Mat3 rotationZYX(double roll, double pitch, double yaw) {
  return (Eigen::AngleAxisd(yaw, Vec3::UnitZ()) * Eigen::AngleAxisd(pitch, Vec3::UnitY()) *
          Eigen::AngleAxisd(roll, Vec3::UnitX()))
      .toRotationMatrix();
}

Vec3 eulerZYXFromRotation(const Mat3& R) {
  // R(2,0) = −sin β, R(2,1) = cos β sin α, R(2,2) = cos β cos α, R(1,0) = sin φ cos β, R(0,0) = cos φ cos β.
  const double pitch = std::atan2(-R(2, 0), std::hypot(R(2, 1), R(2, 2)));
  const double roll = std::atan2(R(2, 1), R(2, 2));
  const double yaw = std::atan2(R(1, 0), R(0, 0));
  return Vec3(roll, pitch, yaw);
}

Mat3 quaternionToRotation(const Vec4& q) {
  const Vec3 qv = q.tail<3>();
  const Mat3 Q = wed(qv);
  return Mat3::Identity() + (2.0 / q.squaredNorm()) * (q(0) * Q + Q * Q);
}

Vec4 rotationToQuaternion(const Mat3& R) {
  Eigen::Quaterniond e(R);
  e.normalize();
  Vec4 q(e.w(), e.x(), e.y(), e.z());
  if (q(0) < 0.0) q = -q;
  return q;
}

Vec4 quaternionMultiply(const Vec4& p, const Vec4& q) {
  Vec4 out;
  const Vec3 pv = p.tail<3>(), qv = q.tail<3>();
  out(0) = p(0) * q(0) - pv.dot(qv);
  out.tail<3>() = p(0) * qv + q(0) * pv + pv.cross(qv);
  return out;
}

double orthogonalityError(const Mat3& R) {
  return (R.transpose() * R - Mat3::Identity()).norm();
}

}  // namespace rbs
