#include "core/model/model.h"

#include <algorithm>
#include <cmath>

namespace rbs {
namespace {
template <class T>
int indexByName(const std::vector<T>& items, std::string_view name) {
  for (size_t i = 0; i < items.size(); ++i)
    if (items[i].name == name) return static_cast<int>(i);
  return -1;
}
}  // namespace

int Model::bodyIndex(std::string_view name) const { return indexByName(bodies, name); }
int Model::jointIndex(std::string_view name) const { return indexByName(joints, name); }
int Model::actuatorIndex(std::string_view name) const { return indexByName(actuators, name); }

int Model::propellerOnJoint(int joint) const {
  for (size_t i = 0; i < propellers.size(); ++i)
    if (propellers[i].joint == joint) return static_cast<int>(i);
  return -1;
}

double Propeller::loadTorque(double rate) const {
  // (5.3) drag and (5.9e) friction; tanh smooths the friction's sign over ±1 rad/s so that the
  // right-hand side stays Lipschitz at rest (a rotor runs at hundreds of rad/s).
  return drag_coefficient * rate * std::abs(rate) + friction * std::tanh(rate);
}

void satisfyJointCouplings(const Model& model, State& state) {
  for (std::size_t pass = 0; pass < model.loop_closures.size(); ++pass) {
    for (const LoopClosure& lc : model.loop_closures) {
      if (lc.kind != LoopClosure::Kind::JointCoupling) continue;
      const Joint& f = model.joints[lc.follower];
      const Joint& l = model.joints[lc.leader];
      state.x(f.x_offset) = lc.multiplier * state.x(l.x_offset) + lc.offset;
      state.xi(f.xi_offset) = lc.multiplier * state.xi(l.xi_offset);
    }
  }
}

State Model::neutralState() const {
  State s{VecX::Zero(nx), VecX::Zero(nxi)};
  for (const Joint& j : joints) neutralJointCoordinates(j, s.x.data() + j.x_offset);
  return s;
}

double Model::coordinateDrift(const VecX& x) const {
  double drift = 0.0;
  for (const Joint& j : joints) drift = std::max(drift, jointCoordinateDrift(j, x.data() + j.x_offset));
  return drift;
}

void Model::projectCoordinates(VecX& x) const {
  for (const Joint& j : joints) projectJointCoordinates(j, x.data() + j.x_offset);
}

}  // namespace rbs
