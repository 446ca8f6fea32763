// "--set PATH=VALUE" assignments on a parsed scene tree (docs/SCENE_FORMAT.md), private to
// core/scene. Applied before the tree is interpreted, so the values pass the same checks as the
// file's own; errors in them name the assignment.
#pragma once

#include <string>
#include <vector>

#include "core/scene/yaml_access.h"

namespace rbs::scene_detail {

/// A value for what the included URDF adds rather than the file itself:
///  - Joint: joint.NAME.position/velocity for a joint not in the file's `joints` list, applied to
///    the built model's initial state;
///  - Link: link.NAME.mass/com/inertia, the URDF link's <inertial> (UrdfLinkInertial), applied
///    before the links are merged and validated.
struct DeferredValue {
  enum class Target { Joint, Link };
  Target target = Target::Joint;
  std::string assignment;
  std::string name;   ///< the joint or link
  std::string field;  ///< "position", "velocity"; "mass", "com", "inertia"
  YAML::Node value;
};

/// Applies each "PATH=VALUE" to `root` (a map) and registers the nodes it introduced with `src`.
/// Throws SceneError for a malformed assignment, an unparsable value or a path that does not
/// exist (with a did-you-mean suggestion). Returns the values for the included URDF's joints and
/// links (when the file includes one).
std::vector<DeferredValue> applyOverrides(Source& src, YAML::Node root,
                                               const std::vector<std::string>& assignments);

}  // namespace rbs::scene_detail
