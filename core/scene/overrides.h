// "--set PATH=VALUE" assignments on a parsed scene tree (docs/SCENE_FORMAT.md), private to
// core/scene. Applied before the tree is interpreted, so the values pass the same checks as the
// file's own; errors in them name the assignment.
#pragma once

#include <string>
#include <vector>

#include "core/scene/yaml_access.h"

namespace rbs::scene_detail {

/// joint.NAME.position/velocity for a joint that is not in the file's `joints` list but may come
/// from the included URDF: applied to the built model's initial state.
struct DeferredJointValue {
  std::string assignment;
  std::string joint;
  std::string field;  ///< "position" or "velocity"
  YAML::Node value;
};

/// Applies each "PATH=VALUE" to `root` (a map) and registers the nodes it introduced with `src`.
/// Throws SceneError for a malformed assignment, an unparsable value or a path that does not
/// exist (with a did-you-mean suggestion). Returns the initial values of joints the file does not
/// list when it includes a URDF.
std::vector<DeferredJointValue> applyOverrides(Source& src, YAML::Node root,
                                               const std::vector<std::string>& assignments);

}  // namespace rbs::scene_detail
