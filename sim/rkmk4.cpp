#include "sim/rkmk4.h"

#include <cmath>

namespace rbs {

Rkmk4Stepper::Rkmk4Stepper(const Model& model) {
  using K = Slice::Kind;
  for (const Joint& j : model.joints) {
    switch (j.type) {
      case JointType::Spherical:
      case JointType::SphericalAbsolute: slices_.push_back({K::Rotation, j.x_offset}); break;
      case JointType::Free: slices_.push_back({K::Rotation, j.x_offset + 3}); break;
      case JointType::SphericalQuaternion: slices_.push_back({K::Quaternion, j.x_offset}); break;
      case JointType::FreeQuaternion: slices_.push_back({K::Quaternion, j.x_offset + 3}); break;
      case JointType::RevoluteUnitCircle: slices_.push_back({K::Circle, j.x_offset}); break;
      default: break;
    }
  }
}

namespace {

using ConstMat3Map = Eigen::Map<const Mat3>;
using Mat3Map = Eigen::Map<Mat3>;

/// (1 − (θ/2) cot(θ/2)) / θ², the coefficient of u × (u × Ω) in dexp⁻¹ on so(3).
double dexpInverseCoefficient(double theta) {
  if (theta < 1e-3) {
    const double t2 = theta * theta;
    return 1.0 / 12.0 + t2 / 720.0 + t2 * t2 / 30240.0;
  }
  const double half = 0.5 * theta;
  return (1.0 - half * std::cos(half) / std::sin(half)) / (theta * theta);
}

}  // namespace

void Rkmk4Stepper::toAlgebra(const VecX& y, const VecX& f, VecX& k) const {
  k = f;
  for (const Slice& s : slices_) {
    const double* x = y.data() + s.offset;
    const double* xd = f.data() + s.offset;
    double* out = k.data() + s.offset;
    switch (s.kind) {
      case Slice::Kind::Rotation: {
        const Mat3 A = ConstMat3Map(x).transpose() * ConstMat3Map(xd);
        out[0] = 0.5 * (A(2, 1) - A(1, 2));
        out[1] = 0.5 * (A(0, 2) - A(2, 0));
        out[2] = 0.5 * (A(1, 0) - A(0, 1));
        for (int i = 3; i < 9; ++i) out[i] = 0.0;
        break;
      }
      case Slice::Kind::Quaternion: {
        // q̄ ⊗ q̇ = ½|q|² (0, ω) + (normal part along (1, 0, 0, 0)).
        const Vec4 conj(x[0], -x[1], -x[2], -x[3]);
        const Vec4 p = quaternionMultiply(conj, Vec4(xd[0], xd[1], xd[2], xd[3]));
        const double n2 = x[0] * x[0] + x[1] * x[1] + x[2] * x[2] + x[3] * x[3];
        out[0] = 2.0 * p(1) / n2;
        out[1] = 2.0 * p(2) / n2;
        out[2] = 2.0 * p(3) / n2;
        out[3] = 0.0;
        break;
      }
      case Slice::Kind::Circle: {
        out[0] = (x[0] * xd[1] - x[1] * xd[0]) / (x[0] * x[0] + x[1] * x[1]);
        out[1] = 0.0;
        break;
      }
    }
  }
}

void Rkmk4Stepper::dexpInverse(const VecX& u, VecX& k) const {
  for (const Slice& s : slices_) {
    if (s.kind == Slice::Kind::Circle) continue;  // SO(2) is abelian: dexp⁻¹ = identity
    const Vec3 v(u[s.offset], u[s.offset + 1], u[s.offset + 2]);
    const Vec3 w(k[s.offset], k[s.offset + 1], k[s.offset + 2]);
    const Vec3 vw = v.cross(w);
    const Vec3 r = w + 0.5 * vw + dexpInverseCoefficient(v.norm()) * v.cross(vw);
    for (int i = 0; i < 3; ++i) k[s.offset + i] = r(i);
  }
}

void Rkmk4Stepper::apply(const VecX& z0, const VecX& u, VecX& y) const {
  y = z0 + u;
  for (const Slice& s : slices_) {
    const double* x = z0.data() + s.offset;
    const double* g = u.data() + s.offset;
    double* out = y.data() + s.offset;
    switch (s.kind) {
      case Slice::Kind::Rotation:
        Mat3Map{out} = ConstMat3Map(x) * expSO3(Vec3(g[0], g[1], g[2]));
        break;
      case Slice::Kind::Quaternion: {
        const double theta = std::sqrt(g[0] * g[0] + g[1] * g[1] + g[2] * g[2]);
        // sin(θ/2)/θ, with its series for small θ.
        const double f = theta < 1e-4 ? 0.5 - theta * theta / 48.0 : std::sin(0.5 * theta) / theta;
        const Vec4 e(std::cos(0.5 * theta), f * g[0], f * g[1], f * g[2]);
        const Vec4 q = quaternionMultiply(Vec4(x[0], x[1], x[2], x[3]), e);
        for (int i = 0; i < 4; ++i) out[i] = q(i);
        break;
      }
      case Slice::Kind::Circle: {
        const double c = std::cos(g[0]), sn = std::sin(g[0]);
        out[0] = c * x[0] - sn * x[1];
        out[1] = sn * x[0] + c * x[1];
        break;
      }
    }
  }
}

}  // namespace rbs
