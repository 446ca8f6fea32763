// The plant as a controller sees it (thesis (4.2)): M(x) ξ̇ + b(x, ξ) = B(x) u, with b collecting
// everything except inertia times acceleration and the inputs: Coriolis/gyroscopic c, damping,
// springs, gravity, minus constant external wrenches. Loop closures are not part of it.
#pragma once

#include "core/dynamics/workspace.h"

namespace rbs {

struct PlantTerms {
  MatX M;  ///< n×n
  VecX b;  ///< n
  MatX B;  ///< n×p
};

/// Evaluates M, b and B at (x, ξ) into `out` (sized on first use). Afterwards `ws` holds the
/// kinematics and body Jacobians of that state (controllers read poses and Jacobians from it).
void evaluatePlant(const Model& model, const State& state, Workspace& ws, PlantTerms& out);

}  // namespace rbs
