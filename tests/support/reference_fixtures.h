// References for controller tests that need no generator.
#pragma once

#include <numbers>

#include "core/control/reference.h"

namespace rbs::test {

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
