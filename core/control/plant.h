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
  VecX zero_inputs;  ///< scratch: u = 0, to evaluate the constant external wrenches alone
};

/// Evaluates M, b and B at (x, ξ) into `out` (sized on first use). Afterwards `ws` holds the
/// kinematics and body Jacobians of that state (controllers read poses and Jacobians from it).
void evaluatePlant(const Model& model, const State& state, Workspace& ws, PlantTerms& out);

/// Whether f_E(u = 0) can be non-zero: constant external wrenches, propeller aerodynamics, or (with
/// `joint_actuators`) the servos' own PD part. A joint actuator's force lies in its own joint's
/// coordinates only (computeInputForces), so a caller that reads other rows may leave them out.
bool hasForcesAtZeroInput(const Model& model, bool joint_actuators = true);

/// M ξ̇ + b (4.2) at `state`, whose kinematics ws holds, for the acceleration ξ̇: one Newton–Euler
/// pass without M (computeInverseDynamicsForces: M ξ̇ + c + f_G) plus f_K + f_D, minus f_E(u = 0)
/// when `forces_at_zero_input` (hasForcesAtZeroInput). `zero_inputs` is scratch (numInputs()).
void computeForcesForAcceleration(const Model& model, const State& state, const VecX& xidot,
                                  bool forces_at_zero_input, Workspace& ws, VecX& zero_inputs, VecX& out);

/// ‖(B⊥)ᵀ (M ξ̇ + b)‖ at (x, ξ) with acceleration ξ̇: the part of the kinetics no input can produce.
/// At a reference sample it is the zero-error matching force λ^ZeroError of (4.60) (corrected
/// sign): zero exactly when the reference is feasible for the plant (planned through a flat
/// output). B⊥ is an orthonormal basis of the null space of Bᵀ; 0 for a fully actuated model.
double unactuatedForce(const Model& model, const State& state, const VecX& xidot, Workspace& ws);

}  // namespace rbs
