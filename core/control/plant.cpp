#include "core/control/plant.h"

#include <algorithm>

#include <Eigen/LU>

#include "core/dynamics/dynamics.h"

namespace rbs {

void evaluatePlant(const Model& model, const State& state, Workspace& ws, PlantTerms& out) {
  computeKinematics(model, state.x, state.xi, ws);
  computeBodyJacobians(model, ws);
  computeMassMatrix(model, ws);
  computeInertialForces(model, ws);
  computeGravityForces(model, ws);
  computeElasticForces(model, state.x, ws);
  computeDampingForces(model, state.xi, ws);
  computeInputMatrix(model, ws);
  // f_E with u = 0: constant external wrenches, propeller aerodynamics, the servos' own PD part.
  out.b.resize(model.nxi);
  if (hasForcesAtZeroInput(model)) {
    out.zero_inputs.setZero(model.numInputs());
    computeInputForces(model, state.x, state.xi, out.zero_inputs, ws);
    out.b = -ws.input_forces;
  } else {
    out.b.setZero();
  }
  out.b += ws.inertial_forces + ws.gravity_forces + ws.elastic_forces + ws.damping_forces;
  out.M = ws.mass_matrix;
  out.B = ws.input_matrix;
}

bool hasForcesAtZeroInput(const Model& model, bool joint_actuators) {
  const bool servos = std::any_of(model.actuators.begin(), model.actuators.end(), [](const Actuator& a) {
    return a.kind == ActuatorKind::JointServo || a.kind == ActuatorKind::JointSpeedServo;
  });
  return !model.external_wrenches.empty() || !model.propellers.empty() || (joint_actuators && servos);
}

void computeForcesForAcceleration(const Model& model, const State& state, const VecX& xidot,
                                  bool forces_at_zero_input, Workspace& ws, VecX& zero_inputs, VecX& out) {
  computeInverseDynamicsForces(model, xidot, ws, out);
  computeElasticForces(model, state.x, ws);
  computeDampingForces(model, state.xi, ws);
  out += ws.elastic_forces + ws.damping_forces;
  if (forces_at_zero_input) {
    zero_inputs.setZero(model.numInputs());
    computeInputForces(model, state.x, state.xi, zero_inputs, ws);
    out -= ws.input_forces;
  }
}

double unactuatedForce(const Model& model, const State& state, const VecX& xidot, Workspace& ws) {
  PlantTerms p;
  evaluatePlant(model, state, ws, p);
  // Null space of Bᵀ, orthonormalized by Gram–Schmidt (Eigen's QR and eigen solvers trip a GCC 12
  // -Wmaybe-uninitialized false positive).
  MatX B_perp = Eigen::FullPivLU<MatX>(p.B.transpose()).kernel();
  if (B_perp.cols() == 1 && B_perp.isZero()) return 0.0;  // full row rank: nothing unactuated
  for (int c = 0; c < B_perp.cols(); ++c) {
    for (int d = 0; d < c; ++d) B_perp.col(c) -= B_perp.col(d).dot(B_perp.col(c)) * B_perp.col(d);
    B_perp.col(c).normalize();
  }
  return (B_perp.transpose() * (p.M * xidot + p.b)).norm();
}

}  // namespace rbs
