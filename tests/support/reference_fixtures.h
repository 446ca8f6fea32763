// References for controller tests that need no generator.
#pragma once

#include <numbers>

#include "core/control/reference.h"

namespace rbs::test {

/// A fixed reference: the configuration x held at rest (nxi velocity coordinates).
class HeldPose : public Reference {
 public:
  HeldPose(const VecX& x, int nxi) : x_(x), nxi_(nxi) {}
  void sample(double, ReferenceSample& out) const override {
    out.x = x_;
    out.xi.setZero(nxi_);
    out.xidot.setZero(nxi_);
  }

 private:
  VecX x_;
  int nxi_;
};

/// A planar base spinning about the origin: x_R = (0, 0, ω t), ξ_R = (0, 0, ω), ξ̇_R = 0 (thesis
/// 4.7.5 with ω = π).
class SpinningReference : public Reference {
 public:
  explicit SpinningReference(double rate = std::numbers::pi) : rate_(rate) {}
  void sample(double t, ReferenceSample& out) const override {
    out.x = Eigen::Vector3d(0, 0, rate_ * t);
    out.xi = Eigen::Vector3d(0, 0, rate_);
    out.xidot = Eigen::Vector3d::Zero();
  }

 private:
  double rate_;
};

}  // namespace rbs::test
