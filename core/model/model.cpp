#include "core/model/model.h"

#include <algorithm>

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
