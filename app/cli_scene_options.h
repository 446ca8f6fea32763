// The options of every command that loads a scene (rbsim-cli check, run, bench, render and the
// rbsim window): --set, --floating, --package-path, --balance-inertia, --bound-mass, --bound-inertia and
// --joint-friction, parsed into LoadOptions
// in one place.
#pragma once

#include <string>
#include <vector>

#include "app/cli_args.h"
#include "core/scene/scene.h"

namespace rbs::cli {

/// `own` with the scene-loading options inserted before its last entry (by convention --help).
inline std::vector<OptionSpec> withSceneLoadOptions(std::vector<OptionSpec> own) {
  const std::vector<OptionSpec> load = {
      {"set", true, "PATH=VALUE", "override a value of the scene (repeatable), e.g. joint.elbow.position=0.3"},
      {"floating", false, "", "put the root of a URDF robot on a free joint"},
      {"package-path", true, "DIR",
       "where package://PKG/… meshes are looked up first (repeatable): a package folder or a folder holding packages"},
      {"balance-inertia", false, "",
       "make inertias that violate the triangle inequality valid (isotropic, mean principal moment) instead of warning"},
      {"bound-mass", true, "KG",
       "least mass of every moving URDF link and scene body (MuJoCo's boundmass; massless links then load)"},
      {"bound-inertia", true, "KGM2",
       "least principal moment of inertia of every moving URDF link and scene body (MuJoCo's boundinertia; point "
       "masses then load)"},
      {"joint-friction", false, "",
       "model a URDF's <dynamics friction> as smooth Coulomb friction mu tanh(qdot / 0.01) instead of ignoring it"},
  };
  own.insert(own.empty() ? own.end() : own.end() - 1, load.begin(), load.end());
  return own;
}

/// The LoadOptions the command line asks for. Throws UsageError for an empty --package-path.
inline LoadOptions sceneLoadOptions(const ParsedArgs& parsed) {
  LoadOptions options;
  options.overrides = parsed.all("set");
  options.floating_base = parsed.has("floating");
  options.balance_inertia = parsed.has("balance-inertia");
  options.joint_friction = parsed.has("joint-friction");
  for (auto [name, bound] : {std::pair<const char*, double*>{"bound-mass", &options.bound_mass},
                             {"bound-inertia", &options.bound_inertia}})
    *bound = nonNegativeOption(parsed, name, 0.0);
  for (const std::string& dir : parsed.all("package-path")) {
    if (dir.empty()) throw UsageError("--package-path: empty folder name");
    options.package_paths.emplace_back(dir);
  }
  return options;
}

}  // namespace rbs::cli
