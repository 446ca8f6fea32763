// URDF import (urdfdom, private to core/urdf): links with inertial origin, mass and full inertia,
// joints (revolute, continuous, prismatic, fixed, floating, planar) with origin, axis and limits,
// visuals (box, cylinder, sphere, mesh). Body frames are the URDF link frames.
#pragma once

#include <filesystem>
#include <string>

#include "core/model/model_builder.h"

namespace rbs {

struct UrdfOptions {
  bool floating_base = false;  ///< root link on a free joint instead of fixed to the world
};

struct UrdfSummary {
  std::string robot_name;
  std::string root_link;
};

/// Adds the robot's bodies, joints, limits and visuals to `builder`. Throws SceneError (file,
/// and the element: "link 'x'", "joint 'y'") for unreadable files, malformed XML and URDF content
/// rbsim cannot represent (e.g. a massless link that is not fixed to its parent).
UrdfSummary importUrdf(const std::filesystem::path& file, ModelBuilder& builder,
                       const UrdfOptions& options = {});

}  // namespace rbs
