// Whether every velocity direction of a model has inertia: the assembled mass matrix M(x) must be
// positive definite, while single bodies may have positive *semi*definite inertia (point masses,
// thin rods; docs/SCENE_FORMAT.md, "What is validated"). Checked once per loaded scene, at the
// initial state, by the scene loader.
#pragma once

#include <optional>
#include <string>

#include "core/model/model.h"

namespace rbs {

/// The first velocity coordinate k (in ξ order, parents before children) whose direction has no
/// inertia given the coordinates before it: the pivot d_k of M = L D Lᵀ (no pivoting) is at most
/// 1e-12 of M's largest diagonal entry.
struct MassMatrixDeficiency {
  int coordinate = -1;  ///< k in ξ
  int joint = -1;       ///< the joint whose velocity coordinates contain k
  double pivot = 0.0;   ///< d_k
  double scale = 0.0;   ///< max_i M_ii
};

/// Empty when M(x) is positive definite on the velocities the loop closures allow (M itself
/// without closures; M + w Zᵀ Z with them, so that a massless mimic follower passes). O(n³) in the
/// number of velocity coordinates: for loading,
/// not for the right-hand side.
std::optional<MassMatrixDeficiency> findMassMatrixDeficiency(const Model& model, const VecX& x);

/// Throws ModelError (element Joint, index -1, the joint's name) when M at the initial state is not
/// positive definite, saying which joint's direction has no inertia and what usually causes it.
void checkMassMatrix(const Model& model);

}  // namespace rbs
