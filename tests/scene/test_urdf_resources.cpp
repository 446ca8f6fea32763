// Where meshes are found (core/io/resource_path.h), on robot packages the tests lay out
// themselves: package:// through --package-path, ROS_PACKAGE_PATH, AMENT_PREFIX_PATH and the
// folders above the URDF (by folder name and by package.xml); paths relative to the URDF and to the
// scene file with assets/ last; one warning per mesh file that is missing or not a mesh, with the
// places searched; and rbsim-cli's --package-path.
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <optional>
#include <string>

#include "core/io/resource_path.h"
#include "core/scene/scene.h"
#include "tests/scene/scene_test_util.h"
#include "tests/support/mesh_files.h"

namespace rbs {
namespace {

namespace fs = std::filesystem;

bool contains(const std::string& s, const std::string& part) {
  return s.find(part) != std::string::npos;
}

/// Sets an environment variable for the scope of a test and restores it afterwards.
class ScopedEnv {
 public:
  ScopedEnv(const char* name, const std::string& value) : name_(name) {
    if (const char* old = std::getenv(name)) old_ = old;
    ::setenv(name, value.c_str(), 1);
  }
  ~ScopedEnv() {
    if (old_) ::setenv(name_, old_->c_str(), 1);
    else ::unsetenv(name_);
  }
  ScopedEnv(const ScopedEnv&) = delete;
  ScopedEnv& operator=(const ScopedEnv&) = delete;

 private:
  const char* name_;
  std::optional<std::string> old_;
};

/// A robot with three links and meshes named as `base_mesh`, `arm_mesh` (both on link visuals).
std::string robot(const std::string& base_mesh, const std::string& arm_mesh, const std::string& tool_mesh = "") {
  const std::string inertial =
      R"(<inertial><mass value="1"/><inertia ixx="0.01" iyy="0.01" izz="0.01" ixy="0" ixz="0" iyz="0"/></inertial>)";
  auto visual = [](const std::string& mesh) {  // a link without a mesh: a box, so that nothing is drawn from its inertia
    return mesh.empty() ? std::string(R"(<visual><geometry><box size="0.1 0.1 0.1"/></geometry></visual>)")
                        : R"(<visual><geometry><mesh filename=")" + mesh + R"(" scale="0.5 0.5 0.5"/></geometry>
      <material name="steel"><color rgba="0.2 0.4 0.6 1"/></material></visual>)";
  };
  return R"(<robot name="acme">
  <link name="base">)" + inertial + visual(base_mesh) + R"(</link>
  <link name="arm">)" + inertial + visual(arm_mesh) + R"(</link>
  <link name="tool">)" + inertial + visual(tool_mesh) + R"(</link>
  <joint name="shoulder" type="revolute"><parent link="base"/><child link="arm"/><axis xyz="0 0 1"/>
    <limit lower="-2" upper="2" effort="10" velocity="2"/></joint>
  <joint name="wrist" type="continuous"><parent link="arm"/><child link="tool"/><axis xyz="1 0 0"/></joint>
</robot>
)";
}

/// The mesh visuals' files of a loaded scene, in order.
std::vector<std::string> meshFiles(const Scene& scene) {
  std::vector<std::string> out;
  for (const Visual& v : scene.model.visuals)
    if (v.shape == Visual::Shape::Mesh) out.push_back(v.mesh_file);
  return out;
}

class MeshPaths : public test::SceneDir {
 protected:
  /// ws/src/acme_robot/{package.xml naming acme_description, urdf/, meshes/base.stl, meshes/arm.dae}
  fs::path makePackage(const fs::path& root, const std::string& folder = "acme_robot",
                       const std::string& name = "acme_description") const {
    const fs::path pkg = root / folder;
    fs::create_directories(pkg / "urdf");
    fs::create_directories(pkg / "meshes");
    std::ofstream(pkg / "package.xml") << "<?xml version=\"1.0\"?>\n<package format=\"3\">\n  <name>" << name
                                       << "</name>\n  <version>1.0.0</version>\n</package>\n";
    test::writeBinaryStlBox(pkg / "meshes" / "base.stl", Vec3(0.2, 0.2, 0.1));
    test::writeColladaBox(pkg / "meshes" / "arm.dae", Vec3(0.5, 0.05, 0.05), Vec4(0.9, 0.5, 0.1, 1.0));
    return pkg;
  }
  const fs::path& dir() const { return dir_; }
};

TEST_F(MeshPaths, PackageUriIsFoundAboveTheUrdfThroughItsPackageXml) {
  // The folder is acme_robot, the package acme_description (as in many ROS workspaces).
  const fs::path pkg = makePackage(dir() / "ws" / "src");
  const fs::path urdf = pkg / "urdf" / "acme.urdf";
  std::ofstream(urdf) << robot("package://acme_description/meshes/base.stl", "package://acme_description/meshes/arm.dae");
  const Scene scene = loadScene(urdf);
  EXPECT_TRUE(scene.warnings.empty()) << scene.warnings.front().text();
  const auto files = meshFiles(scene);
  ASSERT_EQ(files.size(), 2u);
  EXPECT_EQ(fs::path(files[0]), pkg / "meshes" / "base.stl");
  EXPECT_EQ(fs::path(files[1]), pkg / "meshes" / "arm.dae");
  // the URDF's scale and material colour are kept
  EXPECT_EQ(scene.model.visuals[0].size, Vec3(0.5, 0.5, 0.5));
  EXPECT_TRUE(scene.model.visuals[0].color.isApprox(Vec4(0.2, 0.4, 0.6, 1.0), 1e-6));  // URDF colours are floats
}

TEST_F(MeshPaths, PackagePathOptionComesBeforeEnvironmentAndUpwardSearch) {
  const fs::path upward = makePackage(dir() / "ws" / "src");
  const fs::path option = makePackage(dir() / "vendor" / "robots" / "descriptions", "acme_description");
  const fs::path ros = makePackage(dir() / "ros", "acme_ros");
  const fs::path urdf = upward / "urdf" / "acme.urdf";
  std::ofstream(urdf) << robot("package://acme_description/meshes/base.stl", "");
  const ScopedEnv ros_path("ROS_PACKAGE_PATH", (dir() / "ros").string());
  const ScopedEnv ament("AMENT_PREFIX_PATH", "");
  // --package-path: a folder two levels above the package (found by crawling, by folder name)
  LoadOptions options;
  options.package_paths = {dir() / "vendor"};
  EXPECT_EQ(fs::path(meshFiles(loadScene(urdf, options)).at(0)), option / "meshes" / "base.stl");
  // without it: ROS_PACKAGE_PATH (its package is found through package.xml)
  EXPECT_EQ(fs::path(meshFiles(loadScene(urdf)).at(0)), ros / "meshes" / "base.stl");
}

// A relative --package-path or ROS_PACKAGE_PATH entry is relative to the working directory, as in
// ROS, and the mesh found is an absolute path: before, the renderer joined the relative result to
// assets/ and drew magenta boxes. package:///PKG/… (three slashes) is package://PKG/….
TEST_F(MeshPaths, RelativePackagePathsAreRelativeToTheWorkingDirectory) {
  const fs::path pkg = makePackage(dir() / "vendor" / "robots");
  const fs::path urdf = dir() / "elsewhere" / "acme.urdf";
  fs::create_directories(urdf.parent_path());
  std::ofstream(urdf) << robot("package://acme_description/meshes/base.stl", "package:///acme_description/meshes/arm.dae");
  const ScopedEnv ament("AMENT_PREFIX_PATH", "");
  const fs::path working = fs::current_path();
  fs::current_path(dir());
  LoadOptions options;
  options.package_paths = {"vendor"};
  std::vector<std::string> with_option, with_environment;
  {
    const ScopedEnv ros_path("ROS_PACKAGE_PATH", "");
    with_option = meshFiles(loadScene(urdf, options));
  }
  {
    const ScopedEnv ros_path("ROS_PACKAGE_PATH", ".");
    with_environment = meshFiles(loadScene(urdf));
  }
  fs::current_path(working);
  for (const auto& files : {with_option, with_environment}) {
    ASSERT_EQ(files.size(), 2u);
    EXPECT_EQ(fs::path(files[0]), pkg / "meshes" / "base.stl");
    EXPECT_EQ(fs::path(files[1]), pkg / "meshes" / "arm.dae");
    EXPECT_TRUE(fs::path(files[0]).is_absolute());
  }
}

TEST_F(MeshPaths, AmentPrefixPathIsSearchedInShare) {
  const fs::path prefix = dir() / "install";
  const fs::path pkg = makePackage(prefix / "share", "acme_description");
  const fs::path urdf = dir() / "elsewhere" / "acme.urdf";
  fs::create_directories(urdf.parent_path());
  std::ofstream(urdf) << robot("package://acme_description/meshes/arm.dae", "");
  const ScopedEnv ros_path("ROS_PACKAGE_PATH", "");
  const ScopedEnv ament("AMENT_PREFIX_PATH", (dir() / "nothing").string() + ":" + prefix.string());
  EXPECT_EQ(fs::path(meshFiles(loadScene(urdf)).at(0)), pkg / "meshes" / "arm.dae");
}

TEST_F(MeshPaths, RelativePathsAreRelativeToTheNamingFileThenToAssets) {
  // URDF: relative to its folder; file:// absolute
  const fs::path pkg = makePackage(dir());
  test::writeObjBox(pkg / "meshes" / "tool.obj", Vec3(0.1, 0.1, 0.1));
  const fs::path urdf = pkg / "urdf" / "acme.urdf";
  std::ofstream(urdf) << robot("../meshes/base.stl", "file://" + (pkg / "meshes" / "arm.dae").string(), "../meshes/tool.obj");
  const Scene robot_scene = loadScene(urdf);
  EXPECT_TRUE(robot_scene.warnings.empty());
  const auto files = meshFiles(robot_scene);
  ASSERT_EQ(files.size(), 3u);
  EXPECT_EQ(fs::path(files[0]), pkg / "meshes" / "base.stl");
  EXPECT_EQ(fs::path(files[1]), pkg / "meshes" / "arm.dae");
  EXPECT_EQ(fs::path(files[2]), pkg / "meshes" / "tool.obj");

  // scene file: relative to the scene file, then assets/ (the shipped propeller)
  fs::create_directories(dir() / "scenes" / "meshes");
  test::writeAsciiStlBox(dir() / "scenes" / "meshes" / "hull.stl", Vec3(1, 0.5, 0.2));
  std::ofstream(dir() / "scenes" / "boat.yaml") << R"(name: boat
bodies:
  - name: hull
    mass: 1
    inertia: [0.1, 0.1, 0.1, 0, 0, 0]
    visuals:
      - mesh: {file: meshes/hull.stl}
      - mesh: {file: meshes/propeller.obj}
joints:
  - {name: float, type: free, parent: world, child: hull}
)";
  const Scene scene = loadScene(dir() / "scenes" / "boat.yaml");
  EXPECT_TRUE(scene.warnings.empty()) << scene.warnings.front().text();
  const auto scene_files = meshFiles(scene);
  ASSERT_EQ(scene_files.size(), 2u);
  EXPECT_EQ(fs::path(scene_files[0]), dir() / "scenes" / "meshes" / "hull.stl");
  EXPECT_EQ(fs::path(scene_files[1]), (defaultAssetsDir() / "meshes" / "propeller.obj").lexically_normal());
}

TEST_F(MeshPaths, AMissingMeshIsOneWarningPerFileNamingThePlacesSearched) {
  // Three links share one missing mesh: one warning, at the first link, and three placeholders.
  const fs::path urdf = write("acme.urdf", robot("package://nowhere_description/meshes/link.stl",
                                                 "package://nowhere_description/meshes/link.stl",
                                                 "package://nowhere_description/meshes/link.stl"));
  const ScopedEnv ros_path("ROS_PACKAGE_PATH", "");
  const Scene scene = loadScene(urdf);
  ASSERT_EQ(scene.warnings.size(), 1u);
  const SceneWarning& w = scene.warnings.front();
  std::cout << w.text() << "\n";
  EXPECT_EQ(w.file, urdf.string());
  EXPECT_EQ(w.line, 2);  // <link name="base">
  EXPECT_TRUE(contains(w.message, "link 'base': mesh 'package://nowhere_description/meshes/link.stl' not found; searched "))
      << w.message;
  EXPECT_TRUE(contains(w.message, (defaultAssetsDir() / "nowhere_description/meshes/link.stl").lexically_normal().string()))
      << w.message;
  EXPECT_TRUE(contains(w.message, "drawn as a magenta box")) << w.message;
  ASSERT_EQ(scene.model.visuals.size(), 3u);
  for (const Visual& v : scene.model.visuals) {
    EXPECT_EQ(v.shape, Visual::Shape::Box);
    EXPECT_EQ(v.color, Vec4(1.0, 0.0, 1.0, 1.0));
  }
}

TEST_F(MeshPaths, AFileThatIsNotAMeshIsAWarningAtItsPlaceNotACrash) {
  fs::create_directories(dir() / "meshes");
  std::ofstream(dir() / "meshes" / "base.stl") << "this is a text file, not a mesh\n";
  std::ofstream(dir() / "meshes" / "arm.dae") << "<?xml version=\"1.0\"?><notcollada/>\n";
  std::ofstream(dir() / "meshes" / "tool.blend") << "BLENDER";
  const fs::path urdf = write("acme.urdf", robot("meshes/base.stl", "meshes/arm.dae", "meshes/tool.blend"));
  const Scene scene = loadScene(urdf);
  ASSERT_EQ(scene.warnings.size(), 3u);
  for (const SceneWarning& w : scene.warnings) std::cout << w.text() << "\n";
  EXPECT_TRUE(contains(scene.warnings[0].message, "base.stl) is not an STL file")) << scene.warnings[0].message;
  EXPECT_TRUE(contains(scene.warnings[1].message, "arm.dae) is not a COLLADA file")) << scene.warnings[1].message;
  EXPECT_TRUE(contains(scene.warnings[2].message, "has the extension '.blend'")) << scene.warnings[2].message;
  EXPECT_EQ(scene.warnings[1].line, 4);  // <link name="arm">
}

TEST(MeshFiles, TheTestMeshesAreRecognizedAndTruncatedOnesAreNot) {
  const fs::path dir = fs::path(testing::TempDir()) / "rbs_mesh_files";
  fs::create_directories(dir);
  test::writeBinaryStlBox(dir / "b.stl", Vec3(1, 2, 3));
  test::writeAsciiStlBox(dir / "a.stl", Vec3(1, 2, 3));
  test::writeColladaBox(dir / "c.dae", Vec3(1, 2, 3), Vec4(1, 0, 0, 1));
  test::writeObjBox(dir / "o.OBJ", Vec3(1, 2, 3));
  for (const char* f : {"b.stl", "a.stl", "c.dae", "o.OBJ"}) EXPECT_EQ(meshFileProblem(dir / f), "") << f;
  EXPECT_EQ(fs::file_size(dir / "b.stl"), 84u + 50u * 12u);
  // a binary STL cut short has neither the binary size nor (its header says 'solid-…' but it has
  // NUL bytes) the ASCII form
  fs::resize_file(dir / "b.stl", 84 + 50 * 11 + 7);
  EXPECT_TRUE(contains(meshFileProblem(dir / "b.stl"), "is not an STL file"));
  std::ofstream(dir / "e.ply");
  EXPECT_EQ(meshFileProblem(dir / "e.ply"), "is empty");
}

TEST_F(MeshPaths, CliTakesPackagePathsAndPrintsMissingMeshesAsWarnings) {
  const fs::path pkg = makePackage(dir() / "vendor");
  const fs::path urdf = write("acme.urdf", robot("package://acme_description/meshes/base.stl", ""));
  const test::CliResult without = run("check '" + urdf.string() + "'");
  EXPECT_EQ(without.exit_code, 0) << without.err;
  EXPECT_TRUE(contains(without.err, "acme.urdf:2:3: warning: link 'base': mesh 'package://acme_description/meshes/base.stl' not found"))
      << without.err;
  const test::CliResult with = run("check '" + urdf.string() + "' --package-path '" + (dir() / "vendor").string() + "'");
  EXPECT_EQ(with.exit_code, 0) << with.err;
  EXPECT_EQ(with.err, "");
  const test::CliResult empty = run("check '" + urdf.string() + "' --package-path ''");
  EXPECT_EQ(empty.exit_code, 2);
  EXPECT_TRUE(contains(empty.err, "--package-path: empty folder name")) << empty.err;
}

}  // namespace
}  // namespace rbs
