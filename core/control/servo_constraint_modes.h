// Boundary conditions of stable inversion (Seifried 2014, Sect. 3.2, (3.76); digest
// seifried-underactuated §3.2 with the corrected labels): the internal dynamics linearized at a
// rest equilibrium, δη̇ = A δη, split into stable (Re λ < 0) and unstable (Re λ > 0) modes. At the
// start the state must lie on the unstable eigenspace (its stable modal components vanish), at the
// end on the stable one (its unstable components vanish).
#pragma once

#include <complex>
#include <string>
#include <vector>

#include "core/math/se3.h"

namespace rbs {

/// Orthonormal rows R (k × n, k = number of selected eigenvalues) with R δ = 0 ⇔ the modal
/// components of δ along the selected eigenvalues vanish (stable: Re λ < 0; else Re λ > 0).
/// `eigenvalues` receives all eigenvalues of A. False (with `error`) when A is not hyperbolic
/// (an eigenvalue on the imaginary axis) or the eigen-decomposition fails.
bool modalConditionRows(const MatX& A, bool stable, MatX& rows,
                        std::vector<std::complex<double>>& eigenvalues, std::string& error);

}  // namespace rbs
