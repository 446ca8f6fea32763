#include "core/control/plant.h"

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
  // f_E with u = 0 is the constant external wrenches only.
  out.b.resize(model.nxi);
  if (!model.external_wrenches.empty()) {
    VecX zero = VecX::Zero(model.numInputs());
    computeInputForces(model, zero, ws);
    out.b = -ws.input_forces;
  } else {
    out.b.setZero();
  }
  out.b += ws.inertial_forces + ws.gravity_forces + ws.elastic_forces + ws.damping_forces;
  out.M = ws.mass_matrix;
  out.B = ws.input_matrix;
}

}  // namespace rbs
