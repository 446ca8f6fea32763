// Where the files a scene or URDF names (meshes) are, resolved the way ROS tools resolve them, so
// that robot descriptions load as they are published (docs/SCENE_FORMAT.md, "Paths").
//
//  - "package://PKG/rest": PKG is looked up, in this order, in
//      1. the package paths given by the user (--package-path, repeatable),
//      2. $ROS_PACKAGE_PATH (ROS 1: ':'-separated folders holding packages),
//      3. $AMENT_PREFIX_PATH (ROS 2: ':'-separated install prefixes, PREFIX/share/PKG),
//      4. the folders above the naming file (its own folder first): a folder named PKG, a folder
//         PKG inside it, or a folder whose package.xml says <name>PKG</name>;
//      5. the shipped assets folder (assets/PKG/rest).
//    In 1 and 2 a folder is the package itself (named PKG or with a package.xml naming it) or
//    holds it at most three levels down (as rospack crawls, but bounded); a relative folder is
//    relative to the working directory, as in ROS. "package:///PKG/rest" (an empty host) is the
//    same URI.
//  - "file:///abs/path" and absolute paths: as they are.
//  - relative paths: relative to the folder of the file that names them, then to assets/.
#pragma once

#include <cstddef>
#include <filesystem>
#include <map>
#include <string>
#include <vector>

namespace rbs {

/// Where an installed rbsim keeps its library scenes and assets: PREFIX/share/rbsim beside the
/// running program's PREFIX/bin (`cmake --install`, the .deb), when the program is rbsim's own
/// (rbsim, rbsim-cli) and that folder exists; empty for a program run from its build tree.
std::filesystem::path installedDataDir();

/// The shipped assets folder: $RBSIM_ASSETS_DIR if set, else the installed one
/// (installedDataDir()/assets), else the source tree's assets/.
std::filesystem::path defaultAssetsDir();

struct ResourceSearch {
  std::vector<std::filesystem::path> package_paths;  ///< --package-path folders, searched first
  bool use_environment = true;  ///< also search $ROS_PACKAGE_PATH and $AMENT_PREFIX_PATH
  std::filesystem::path assets_dir;  ///< the last fallback; empty: defaultAssetsDir()
};

struct ResolvedResource {
  std::filesystem::path file;  ///< the existing file found, absolute; empty if none
  /// Every candidate tried, in order (the message of a missing file lists them).
  std::vector<std::filesystem::path> searched;
  bool found() const { return !file.empty(); }
};

/// Resolves the resource paths of one scene load. Package look-ups are cached, so a robot naming
/// fifty meshes of one package crawls the package paths once.
class ResourceResolver {
 public:
  explicit ResourceResolver(ResourceSearch search = {});

  /// Resolves `uri` as named by the file `naming_file` (a URDF or scene file).
  ResolvedResource resolve(const std::string& uri, const std::filesystem::path& naming_file);

  /// resolve() for a mesh, checked with meshFileProblem(): the file found (empty if none) and
  /// what is wrong in words ("not found; searched …", "(/x/y.stl) is not an STL file …"), empty
  /// when the mesh can be drawn.
  struct Mesh {
    std::filesystem::path file;
    std::string problem;
  };
  Mesh resolveMesh(const std::string& uri, const std::filesystem::path& naming_file);

 private:
  /// The folders that are package `name`, in search order (steps 1–3 and 5; step 4 depends on
  /// the naming file).
  const std::vector<std::filesystem::path>& packageRoots(const std::string& name);

  ResourceSearch search_;
  std::vector<std::filesystem::path> ros_package_path_, ament_prefixes_;
  std::map<std::string, std::vector<std::filesystem::path>> package_cache_;
};

/// Whether the file can be a mesh rbsim reads (STL binary or ASCII, COLLADA .dae, OBJ, PLY),
/// judged by its extension and first bytes: an empty string if so, else why not ("is empty",
/// "is not an STL file: …"). The renderer reads the mesh itself; this lets the loader report a
/// wrong file at the place that names it.
std::string meshFileProblem(const std::filesystem::path& file);

/// "a, b and c" of the searched places, shortened to the first `limit` with "and N more".
std::string listSearched(const std::vector<std::filesystem::path>& searched, std::size_t limit = 6);

}  // namespace rbs
