// A scene: the model plus how to simulate, control, plot and view it (docs/SCENE_FORMAT.md).
// Loaded from YAML by loadScene (yaml-cpp stays private to core/scene); URDF through core/urdf.
#pragma once

#include <filesystem>
#include <map>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "core/control/perturbation.h"
#include "core/control/settings.h"
#include "core/io/scene_error.h"
#include "core/model/model.h"

namespace rbs {


struct IntegratorSettings {
  std::string stepper = "rk4";
  double dt = 1e-3;
  double rtol = 1e-8;
  double atol = 1e-8;
  std::string drift = "project";  ///< project | stabilize | none
  double stabilization_gain = 10.0;
  double t_end = 10.0;
  double dt_out = 0.01;
  double control_rate = 0.0;  ///< [Hz] controller as a zero-order hold at this rate; 0: inside the RHS
  /// Set when the scene names no stepper and the model is too stiff for rk4 at dt: the loader then
  /// takes rk_dopri5 and says why here (its fastest joint mode, core/dynamics/time_scale.h);
  /// `check` prints it. Empty otherwise.
  std::string default_stepper_note;
};

struct PlotGroup {
  std::string title;
  std::vector<std::string> channels;
};

struct CameraSettings {
  std::string mode = "orbit";  ///< orbit | follow
  std::string target_body;     ///< follow (or orbit about a body); empty: scene centre / target_point
  std::optional<Vec3> target_point;
  /// Eye to target [m]; absent (no camera section, an imported robot): far enough to frame every
  /// body at the initial state (render::makeCamera).
  std::optional<double> distance;
  double azimuth = 0.6;
  double elevation = 0.4;
};

struct Scene {
  std::string name;
  std::string description;
  std::filesystem::path file;  ///< the file it was loaded from
  Model model;
  /// With propellers: the rigid-body force model the controller is designed on
  /// (ModelBuilder::rotorsAsThrusters — rotors locked, one thrust input per propeller); else null.
  std::shared_ptr<const Model> force_model;
  ControllerSettings controller;
  ReferenceSettings reference;
  IntegratorSettings integrator;
  PerturbationSettings perturbation;  ///< controller model error, sensor noise, motion capture
  std::vector<PlotGroup> plots;
  CameraSettings camera;
  /// Accepted but not simulated as written (from an included URDF: joint friction, mimic joints);
  /// front ends show them once after loading.
  std::vector<SceneWarning> warnings;
};

/// How a scene is loaded: what the command line (or the GUI's options) add to the file.
struct LoadOptions {
  /// "PATH=VALUE" assignments applied before the model is built (docs/SCENE_FORMAT.md, "--set").
  std::vector<std::string> overrides;
  /// A URDF's root link on a free joint instead of fixed to the world (--floating).
  bool floating_base = false;
  /// Folders searched first for package://PKG/… (--package-path); then the ROS environment
  /// variables, the folders above the naming file and assets/ (core/io/resource_path.h).
  std::vector<std::filesystem::path> package_paths;
  /// Inertias violating the triangle inequality are balanced (MuJoCo's balanceinertia) instead of
  /// kept with a warning (--balance-inertia; the scene key balance_inertia does the same).
  bool balance_inertia = false;
  /// A URDF's <dynamics friction> becomes smooth Coulomb friction (--joint-friction; the scene key
  /// joint_friction does the same) instead of a warning.
  bool joint_friction = false;
  /// Lower bounds on the mass [kg] and principal moments [kg m²] of a URDF's moving links and
  /// of the scene file's bodies (--bound-mass, --bound-inertia; the scene keys bound_mass and bound_inertia, the larger
  /// wins; 0: none). UrdfOptions::bound_mass.
  double bound_mass = 0.0;
  double bound_inertia = 0.0;
};

/// A robot file (URDF, by its extension in any case), which loadScene reads as a robot: its root
/// link fixed to the world unless LoadOptions::floating_base.
bool isRobotFile(const std::filesystem::path& file);

/// Loads a scene file (.yaml/.yml) or a URDF file (.urdf). Throws SceneError for every problem
/// with the input, including the builder's physical-validity errors (located at the offending
/// element); what loads but is not shown or simulated as written is in Scene::warnings.
Scene loadScene(const std::filesystem::path& file, const LoadOptions& options);

/// loadScene with only overrides and the floating base, for tests and examples.
inline Scene loadScene(const std::filesystem::path& file, const std::vector<std::string>& overrides = {},
                       bool floating_base = false) {
  return loadScene(file, LoadOptions{.overrides = overrides, .floating_base = floating_base});
}

}  // namespace rbs
