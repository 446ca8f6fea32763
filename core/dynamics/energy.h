// Energies and powers (thesis 3.2.7, konz-modeling §13): W = T + V_G + V_K obeys
// Ẇ = ξᵀ f_E − ξᵀ D ξ for time-invariant force elements.
#pragma once

#include "core/dynamics/workspace.h"

namespace rbs {

/// Kinetic, gravitational and elastic energy of (x, ξ); input power ξᵀ f_E and dissipation ξᵀ f_D
/// from ws.input_forces and ws.damping_forces. Requires computeKinematics, and
/// computeInputForces / computeDampingForces for the two powers.
Energies computeEnergies(const Model& model, const VecX& x, const VecX& xi, const Workspace& ws);

}  // namespace rbs
