// Runge–Kutta–Munthe-Kaas method of order 4 (classical RK4 tableau) for the redundant coordinates
// of the joint library (Iserles, Munthe-Kaas, Nørsett, Zanna: "Lie-group methods", Acta Numerica
// 2000, §5.2). The state z = [x; ξ] lives on the product group
//   SO(3) (rotation matrices of spherical, spherical_absolute, free joints)
//   × S³ (unit quaternions of spherical_quaternion, free_quaternion; as the double cover of SO(3))
//   × SO(2) (unit-circle pairs of revolute_unit_circle)
//   × ℝᵈ (every other coordinate: positions r, angles, velocities ξ).
// One step from z₀ with generators u (algebra coordinates, laid out like z: the rotation vector in
// the first 3 entries of a 9- or 4-slice, the angle in the first entry of a (c, s) slice):
//   K₁ = Θ(f(t, z₀))
//   K₂ = dexp⁻¹(u₂, Θ(f(t + h/2, u₂ · z₀))),  u₂ = h/2 K₁
//   K₃ = dexp⁻¹(u₃, Θ(f(t + h/2, u₃ · z₀))),  u₃ = h/2 K₂
//   K₄ = dexp⁻¹(u₄, Θ(f(t + h, u₄ · z₀))),    u₄ = h K₃
//   z₁ = (h/6 (K₁ + 2K₂ + 2K₃ + K₄)) · z₀
// where u · z₀ is R₀ expSO3(u), q₀ ⊗ (cos ½|u|, sin ½|u| u/|u|), the (c, s) pair rotated by u, and
// z₀ + u elsewhere. Θ reads the body angular velocity Ω = vee(skew(Rᵀ Ṙ)) (quaternions:
// 2 vec(q̄ ⊗ q̇)/|q|², circles: (c ṡ − s ċ)/(c² + s²)) from the ordinary right-hand side, so every
// joint's kinematics (including the absolute-ω joint) is used unchanged and the drift
// stabilization term, being normal to the group, drops out. dexp⁻¹ is the exact inverse of the
// right-trivialized differential on so(3): u̇ = Ω + ½ u × Ω + (1 − (θ/2) cot(θ/2))/θ² u × (u × Ω).
#pragma once

#include <vector>

#include "core/model/model.h"

namespace rbs {

class Rkmk4Stepper {
 public:
  explicit Rkmk4Stepper(const Model& model);

  /// One step of size h from (z, t); `system(z, dzdt, t)` is the ordinary right-hand side.
  template <class System>
  void do_step(System&& system, VecX& z, double t, double h) {
    z0_ = z;
    system(z0_, f_, t);
    toAlgebra(z0_, f_, k1_);
    u_ = (0.5 * h) * k1_;
    apply(z0_, u_, y_);
    system(y_, f_, t + 0.5 * h);
    toAlgebra(y_, f_, k2_);
    dexpInverse(u_, k2_);
    u_ = (0.5 * h) * k2_;
    apply(z0_, u_, y_);
    system(y_, f_, t + 0.5 * h);
    toAlgebra(y_, f_, k3_);
    dexpInverse(u_, k3_);
    u_ = h * k3_;
    apply(z0_, u_, y_);
    system(y_, f_, t + h);
    toAlgebra(y_, f_, k4_);
    dexpInverse(u_, k4_);
    u_ = (h / 6.0) * (k1_ + 2.0 * k2_ + 2.0 * k3_ + k4_);
    apply(z0_, u_, z);
  }

  /// Group slices found in the model (for tests): rotation matrices, quaternions, circle pairs.
  int numGroupSlices() const { return static_cast<int>(slices_.size()); }

 private:
  struct Slice {
    enum class Kind { Rotation, Quaternion, Circle } kind;
    int offset;  ///< start in z
  };
  void toAlgebra(const VecX& y, const VecX& f, VecX& k) const;
  void dexpInverse(const VecX& u, VecX& k) const;
  void apply(const VecX& z0, const VecX& u, VecX& y) const;

  std::vector<Slice> slices_;
  VecX z0_, f_, y_, u_, k1_, k2_, k3_, k4_;
};

}  // namespace rbs
