// URDF import (urdfdom, private to core/urdf): links with inertial origin, mass and full inertia,
// joints (revolute, continuous, prismatic, fixed, floating, planar) with origin, axis and limits,
// visuals (box, cylinder, sphere, mesh). Body frames are the URDF link frames.
//
// Mapping (docs/SCENE_FORMAT.md, "URDF"):
//  - link → body: mass, CoM = inertial origin xyz, inertia about the CoM in link axes
//    R_i I R_iᵀ (URDF gives I in the inertial frame, rotated by the inertial origin's rpy).
//  - joint → joint with T_p = origin (R = R_z(yaw) R_y(pitch) R_x(roll)), T_c = I; revolute and
//    continuous → revolute (angle), prismatic, fixed, floating → free, planar → planar with the
//    joint frame's z along the URDF axis (the plane normal). Axes are normalized.
//  - limits: revolute/prismatic lower, upper, effort, velocity; continuous: effort and velocity
//    only. A URDF effort or velocity ≤ 0 and lower = upper = 0 mean "not given" (unlimited).
//  - <dynamics damping="d" friction="μ"> of a revolute, continuous or prismatic joint: viscous
//    joint damping −d q̇ (a joint spring-damper with zero stiffness); with `joint_friction` also
//    smooth Coulomb friction −μ tanh(q̇ / 0.01). d or μ < 0 is an error. Friction that is off and
//    damping on floating and planar joints get a SceneWarning each (friction: one for the file,
//    naming the joints).
//  - <mimic joint="L" multiplier="m" offset="o"> on joint F: the holonomic constraint
//    q_F = m q_L + o, a loop closure of kind JointCoupling named "F_mimic" (revolute, continuous
//    and prismatic joints; a cycle of mimics is an error at the joint).
//  - fixed joints: a link and every link fixed to it (recursively) are one body, named after the
//    first (the one on a moving joint, or the root): masses added, CoM the weighted mean, inertias
//    rotated into its frame and moved to the common CoM; visuals kept at their links' poses
//    (UrdfSummary::merged_links lists what went where) and their frames as named frames
//    (Model::frames, recorded as frame.LINK.* channels). Point masses and rods (inertia 0 or with a
//    zero principal moment) are valid; whether every joint direction carries inertia is checked on
//    the assembled mass matrix (core/dynamics/mass_matrix_check.h). A principal-moment triangle
//    inequality violation is a warning (or balanced, UrdfOptions::balance_inertia).
//  - a massless root (e.g. a "world" link) is the world itself, with a fixed base: links with mass
//    fixed to it are bodies fixed to the world by their URDF joint. With `floating_base` its fixed
//    group floats as one body named after its first link with mass. A link on a moving joint must
//    have mass, or a link with mass fixed to it.
//  - the root link is fixed to the world by the joint "<root>_to_world" (identity placement), or
//    on a free joint of that name with `floating_base`. A root fixed to the world never moves: its
//    inertia is not validated (an unusable one counts as zero).
//  - visuals: box, cylinder (axis z, as rbs), sphere, mesh (package://, file:// or a path relative
//    to the URDF, resolved as ROS tools do: core/io/resource_path.h; scale); colour from the
//    visual's material or the robot's named material (a mesh's own materials take precedence).
//    A mesh that is not found or not a mesh file is a magenta box with one SceneWarning per file.
//    Visuals of a massless root (the world) are dropped.
#pragma once

#include <filesystem>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "core/io/resource_path.h"
#include "core/io/scene_error.h"
#include "core/model/model_builder.h"

namespace rbs {

/// Values replacing a link's <inertial> before the links are merged and validated (`--set
/// link.NAME.mass|com|inertia`), in the file's own terms: the mass, the inertial origin's xyz and
/// the <inertia> entries [ixx, iyy, izz, ixy, ixz, iyz] (in the inertial frame, rotated by the
/// origin's rpy). A link without <inertial> gets one (origin at the link frame, inertia 0).
struct UrdfLinkInertial {
  std::optional<double> mass;
  std::optional<Vec3> com;
  std::optional<Vec6> inertia;
};

struct UrdfOptions {
  bool floating_base = false;  ///< root link on a free joint instead of fixed to the world
  ResourceSearch resources;    ///< where package:// and relative mesh paths are looked up
  /// Inertias violating the triangle inequality are made isotropic with the mean principal moment
  /// (MuJoCo's balanceinertia), with a warning saying so; otherwise they are kept, with a warning.
  bool balance_inertia = false;
  /// <dynamics friction="μ"> becomes smooth Coulomb friction μ tanh(q̇ / 0.01) on revolute,
  /// continuous and prismatic joints; otherwise it is reported (one warning) and ignored.
  bool joint_friction = false;
  /// Lower bounds on every moving body's mass [kg] and principal moments of inertia about its
  /// centre of mass [kg m²] (MuJoCo's boundmass and boundinertia; 0: none). A massless link on a
  /// moving joint then gets the bounds (its centre of mass at its origin) instead of an error, and
  /// a point mass on intersecting axes a least inertia; one warning names the bodies raised.
  double bound_mass = 0.0;
  double bound_inertia = 0.0;
  /// Link name → replaced <inertial> values.
  std::map<std::string, UrdfLinkInertial> link_inertials;
  /// Called with a link_inertials name the file has no link of, and the names it has (the caller
  /// throws its located error); without it, a SceneError at the file.
  std::function<void(const std::string& link, const std::vector<std::string>& links)> unknown_link;
};

struct UrdfSummary {
  std::string robot_name;
  std::string root_link;  ///< the URDF root link (may be massless, then it is not a body)
  /// The body attached to the world: the root link, or for a massless root the one body fixed or
  /// jointed to it (empty if several bodies hang from a massless root).
  std::string root_body;
  /// Where the file declares each link (body) and each joint it added (by its rbs name): line and
  /// column, 1-based, 0 if unknown. A joint "…_to_world" is at its URDF joint, or at the root link
  /// when the importer made it up. Visuals folded into a parent are at the parent. For locating
  /// ModelErrors.
  struct Position {
    int line = 0, column = 0;
  };
  std::map<std::string, Position> link_positions, joint_positions;
  /// The moving one-degree-of-freedom joints (revolute, continuous, prismatic) in file order, with
  /// their <limit effort> (0: not given): what `joint_actuators` can drive.
  struct ScalarJoint {
    std::string name;
    double effort = 0.0;
  };
  std::vector<ScalarJoint> scalar_joints;
  /// Links on fixed joints merged into the body they are fixed to: link name → body name.
  std::map<std::string, std::string> merged_links;
  /// What the file says that rbsim does not simulate as written: joint friction that is off (one
  /// warning for the file, naming the joints), damping on floating and planar joints, meshes that
  /// cannot be drawn, inertias violating the triangle inequality.
  std::vector<SceneWarning> warnings;
};

/// Adds the robot's bodies, joints, limits and visuals to `builder`. Throws SceneError (file,
/// and the element: "link 'x'", "joint 'y'") for unreadable files, malformed XML and URDF content
/// rbsim cannot represent (e.g. a massless link that is not fixed to its parent).
UrdfSummary importUrdf(const std::filesystem::path& file, ModelBuilder& builder,
                       const UrdfOptions& options = {});

}  // namespace rbs
