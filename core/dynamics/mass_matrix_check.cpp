#include "core/dynamics/mass_matrix_check.h"

#include <algorithm>
#include <sstream>

#include "core/dynamics/dynamics.h"
#include "core/dynamics/kinematics.h"
#include "core/model/model_builder.h"

namespace rbs {

namespace {
// Rounding leaves ~n·1e-16 of the largest entry in a pivot that is zero in exact arithmetic; real
// small inertias (a 10 g finger on a 50 kg robot) are ≳ 1e-9 of it.
constexpr double kRelativePivot = 1e-12;
}  // namespace

std::optional<MassMatrixDeficiency> findMassMatrixDeficiency(const Model& model, const VecX& x) {
  const int n = model.nxi;
  if (n == 0) return std::nullopt;
  Workspace ws(model);
  computeKinematics(model, x, VecX::Zero(n), ws);
  computeMassMatrix(model, ws);
  MatX M = ws.mass_matrix;
  const double scale = M.diagonal().cwiseAbs().maxCoeff();
  // With loop closures only the velocities they allow need inertia (a massless mimic follower
  // moves with its leader): M + w Zᵀ Z, as solveAccelerations factorizes when M is singular.
  if (model.constraint_rows > 0) {
    computeBodyJacobians(model, ws);
    computeLoopClosures(model, x, VecX::Zero(n), ws);
    const MatX& Z = ws.constraint_jacobian;
    M.noalias() += (M.trace() / n) / std::max(Z.squaredNorm() / model.constraint_rows, 1e-300) * Z.transpose() * Z;
  }
  // M = L D Lᵀ column by column: d_k = M_kk − Σ_{j<k} L_kj² d_j. A non-positive (or tiny) pivot
  // means coordinate k moves nothing that the coordinates before it do not already move.
  MatX L = MatX::Identity(n, n);
  VecX d(n);
  for (int k = 0; k < n; ++k) {
    double dk = M(k, k);
    for (int j = 0; j < k; ++j) dk -= L(k, j) * L(k, j) * d(j);
    if (!(dk > kRelativePivot * scale)) {
      MassMatrixDeficiency out{k, -1, dk, scale};
      for (int j = 0; j < static_cast<int>(model.joints.size()); ++j) {
        const Joint& joint = model.joints[j];
        if (k >= joint.xi_offset && k < joint.xi_offset + joint.nxi) out.joint = j;
      }
      return out;
    }
    d(k) = dk;
    for (int i = k + 1; i < n; ++i) {
      double s = M(i, k);
      for (int j = 0; j < k; ++j) s -= L(i, j) * L(k, j) * d(j);
      L(i, k) = s / dk;
    }
  }
  return std::nullopt;
}

void checkMassMatrix(const Model& model) {
  const std::optional<MassMatrixDeficiency> deficiency = findMassMatrixDeficiency(model, model.initial_state.x);
  if (!deficiency) return;
  const Joint& joint = model.joints[deficiency->joint];
  std::ostringstream msg;
  msg.precision(3);
  msg << "joint '" << joint.name << "': the mass matrix is singular at the initial pose: moving this joint";
  if (joint.nxi > 1) msg << " (velocity coordinate " << deficiency->coordinate - joint.xi_offset + 1 << " of " << joint.nxi << ")";
  msg << " moves no inertia (pivot " << deficiency->pivot << " of M's largest diagonal entry " << deficiency->scale
      << "); the bodies it carries have no mass or no moment of inertia about its axis (a robot file's massless "
         "links or point masses on intersecting axes: --bound-mass and --bound-inertia, scene keys bound_mass and "
         "bound_inertia, give every moving body a least mass and moment, e.g. 0.001 kg and 1e-5 kg m²)";
  throw ModelError(ModelElement::Joint, -1, joint.name, ModelField::None, msg.str());
}

}  // namespace rbs
