#include "core/dynamics/workspace.h"

namespace rbs {

Workspace::Workspace(const Model& model)
    : joint(model.bodies.size()),
      pose(model.bodies.size()),
      twist(model.bodies.size(), Vec6::Zero()),
      bias(model.bodies.size(), Vec6::Zero()),
      body_jacobians(MatX::Zero(6 * model.numBodies(), model.nxi)),
      mass_matrix(MatX::Zero(model.nxi, model.nxi)),
      mass_factor(MatX::Zero(model.nxi, model.nxi)),
      mass_llt(model.nxi),
      inertial_forces(VecX::Zero(model.nxi)),
      gravity_forces(VecX::Zero(model.nxi)),
      elastic_forces(VecX::Zero(model.nxi)),
      damping_forces(VecX::Zero(model.nxi)),
      input_forces(VecX::Zero(model.nxi)),
      xidot(VecX::Zero(model.nxi)),
      xdot(VecX::Zero(model.nx)),
      damping_matrix(MatX::Zero(model.nxi, model.nxi)),
      input_matrix(MatX::Zero(model.nxi, model.numInputs())),
      constraint_jacobian(MatX::Zero(model.constraint_rows, model.nxi)),
      constraint_rhs(VecX::Zero(model.constraint_rows)),
      constraint_error(VecX::Zero(model.constraint_rows)),
      constraint_velocity(VecX::Zero(model.constraint_rows)),
      multipliers(VecX::Zero(model.constraint_rows)),
      mass_inv_constraint_t(MatX::Zero(model.nxi, model.constraint_rows)),
      constraint_schur(MatX::Zero(model.constraint_rows, model.constraint_rows)),
      constraint_ldlt(model.constraint_rows),
      articulated_inertia(model.bodies.size(), Mat6::Zero()),
      articulated_bias(model.bodies.size(), Vec6::Zero()),
      body_acceleration(model.bodies.size(), Vec6::Zero()),
      world_motion_subspace(MatX::Zero(6, model.nxi)),
      joint_inertia_times_s(MatX::Zero(6, model.nxi)),
      joint_inertia_inverse(model.bodies.size()),
      composite_inertia(model.bodies.size(), Mat6::Zero()),
      wrench(model.bodies.size(), Vec6::Zero()),
      body_frame_acceleration(model.bodies.size(), Vec6::Zero()),
      rhs(VecX::Zero(model.nxi)) {
  for (size_t b = 0; b < model.bodies.size(); ++b) {
    joint[b].S.resize(6, model.joints[b].nxi);
    joint_inertia_inverse[b].setZero(model.joints[b].nxi, model.joints[b].nxi);
  }
}

}  // namespace rbs
