// How fast a model's stiffest linear terms act: the rate an explicit stepper's step must resolve.
// The scene loader picks the default stepper with it (docs/SCENE_FORMAT.md, "integrator"): a robot
// file with strong joint damping on light links (a hand's fingers: 10 N m s/rad on 5·10⁻⁶ kg m²)
// has modes decaying at 10⁵–10⁶ 1/s, far beyond what rk4 at 1 ms can take (its stability ends at
// about 2.8 / dt = 2 800 1/s).
#pragma once

#include "core/model/model.h"

namespace rbs {

struct FastestRate {
  double rate = 0.0;  ///< [1/s] the largest λ(M⁻¹D) + √λ(M⁻¹K) over the modes (0: none)
  int joint = -1;     ///< the joint with the largest share of that mode (−1: no such terms)
};

/// At configuration x (at rest): the generalized eigenproblems D v = λ M v and K v = ω² M v of the
/// joints' own linear terms — viscous damping, the slope μ/v_s of regularized Coulomb friction, and
/// the servos' k_D; spring stiffness and the servos' k_P; a speed servo's gain k_V as damping —
/// with M the mass matrix. Their largest λ and ω bound the decay and oscillation rates of the
/// fastest mode (the sum is a conservative estimate when both act on it). Gravity, the bodies'
/// springs and dampers and the velocity terms are left out: they set the slow scales. O(n³): for
/// loading.
FastestRate fastestJointRate(const Model& model, const VecX& x);

}  // namespace rbs
