// Tests for render/scene_graph.h, render/bounds.h, render/camera.h and core/dynamics/snapshot.h:
// structure and posing of the scene graph, without an OpenGL context.
#include <gtest/gtest.h>

#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <set>
#include <tuple>
#include <vector>

#include <osg/ComputeBoundsVisitor>
#include <osg/NodeVisitor>
#include <osg/Texture>
#include <osgDB/ReadFile>
#include <osgDB/Registry>
#include <osgDB/WriteFile>

#include "core/dynamics/snapshot.h"
#include "core/model/model_builder.h"
#include "core/scene/scene.h"
#include "render/camera.h"
#include "render/collada_text.h"
#include "render/offscreen.h"
#include "render/pose_conversion.h"
#include "render/scene_graph.h"
#include "render/shapes.h"
#include "tests/render/render_test_models.h"
#include "tests/support/mesh_files.h"

namespace rbs::render {
namespace {

constexpr double kTol = 1e-9;

/// Every node name in the graph.
struct NameCollector : osg::NodeVisitor {
  NameCollector() : osg::NodeVisitor(TRAVERSE_ALL_CHILDREN) { setNodeMaskOverride(~0u); }  // hidden too
  std::vector<std::string> names;
  void apply(osg::Node& n) override {
    if (!n.getName().empty()) names.push_back(n.getName());
    traverse(n);
  }
};

bool contains(const std::vector<std::string>& v, const std::string& s) {
  return std::find(v.begin(), v.end(), s) != v.end();
}

Scene library(const std::string& name) {
  return loadScene(std::string(RBS_SOURCE_DIR) + "/scenes/" + name);
}

TEST(SceneGraph, NodePerBodyAndEveryOverlay) {
  const Scene scene = library("tricopter_suspended_load.yaml");
  SceneGraph graph(scene.model);
  NameCollector names;
  graph.root()->accept(names);
  for (const Body& b : scene.model.bodies) {
    EXPECT_TRUE(contains(names.names, "body:" + b.name)) << b.name;
    EXPECT_TRUE(contains(names.names, "frame:" + b.name)) << b.name;
    EXPECT_TRUE(contains(names.names, "ghost:" + b.name)) << b.name;
  }
  for (const char* o : {"overlay:ground", "overlay:frames", "overlay:ghost", "overlay:trails",
                        "overlay:forces", "overlay:hud", "sky", "lights"})
    EXPECT_TRUE(contains(names.names, o)) << o;
  // three thrust actuators (body forces) get arrows; servo and motor torques do not
  int arrows = 0;
  for (const std::string& n : names.names) arrows += n.rfind("force:", 0) == 0;
  EXPECT_EQ(arrows, 3);
  // each body holds as many visual nodes as the model gives it
  for (int b = 0; b < scene.model.numBodies(); ++b) {
    int visuals = 0;
    for (const Visual& v : scene.model.visuals) visuals += v.body == b;
    auto* group = graph.bodyTransform(b)->getChild(0)->asGroup();
    ASSERT_NE(group, nullptr);
    EXPECT_EQ(static_cast<int>(group->getNumChildren()), visuals) << scene.model.bodies[b].name;
  }
  EXPECT_TRUE(graph.warnings().empty());
}

TEST(SceneGraph, OverlaysSwitch) {
  SceneGraph graph(test::redCube());
  for (Overlay o : allOverlays()) {
    graph.setOverlay(o, true);
    EXPECT_TRUE(graph.overlay(o));
    graph.setOverlay(o, false);
    EXPECT_EQ(graph.overlayNode(o)->getNodeMask(), 0u) << overlayName(o);
    EXPECT_EQ(overlayFromName(overlayName(o)), o);
  }
  EXPECT_FALSE(overlayFromName("nonsense"));
}

/// The HUD line drawn by the text drawable of this name, in viewport pixels.
osg::BoundingBox hudLine(const SceneGraph& graph, const std::string& name) {
  struct Finder : osg::NodeVisitor {
    Finder() : osg::NodeVisitor(TRAVERSE_ALL_CHILDREN) {}
    std::string name;
    osg::BoundingBox box;
    void apply(osg::Drawable& d) override {
      if (d.getName() == name) box = d.getBoundingBox();
    }
  } finder;
  finder.name = name;
  graph.overlayNode(Overlay::Hud)->accept(finder);
  return finder.box;
}

// A long scene name in a narrow view wraps instead of running under the status in the
// opposite corner; the lines stay inside the viewport.
TEST(SceneGraph, HudLinesDoNotOverlapInANarrowView) {
  SceneGraph graph(test::redCube());
  HudInfo hud;
  hud.scene_name = "tricopter with a suspended load and a long descriptive title";
  hud.time = 12.5;
  hud.real_time_factor = 1.0;
  hud.status = "running";
  for (const auto& [w, h] : {std::pair{1280, 720}, std::pair{360, 700}, std::pair{240, 240}}) {
    graph.setViewportSize(w, h);
    graph.setHud(hud);
    const osg::BoundingBox title = hudLine(graph, "hud:title");
    const osg::BoundingBox status = hudLine(graph, "hud:status");
    const osg::BoundingBox time = hudLine(graph, "hud:time");
    const osg::BoundingBox rate = hudLine(graph, "hud:rate");
    for (const osg::BoundingBox* b : {&title, &status, &time, &rate}) {
      ASSERT_TRUE(b->valid()) << w << "x" << h;
      EXPECT_GE(b->xMin(), 0.0f) << w << "x" << h;
      EXPECT_LE(b->xMax(), static_cast<float>(w)) << w << "x" << h;
    }
    EXPECT_LT(title.xMax(), status.xMin()) << w << "x" << h;
    EXPECT_LT(time.xMax(), rate.xMin()) << w << "x" << h;
    EXPECT_GT(title.yMin(), time.yMax()) << w << "x" << h;  // the wrapped title stays above the bottom lines
  }
}

TEST(SceneGraph, GhostOnlyWithReference) {
  const Model model = test::redCube();
  SceneGraph graph(model);
  Workspace ws(model);
  Snapshot s;
  fillBodyPoses(model, model.initial_state.x, 0.0, ws, s);
  graph.apply(s);
  EXPECT_EQ(graph.overlayNode(Overlay::ReferenceGhost)->getNodeMask(), 0u);
  s.reference_poses = {Pose::translation(Vec3(0, 0, 1))};
  graph.apply(s);
  EXPECT_NE(graph.overlayNode(Overlay::ReferenceGhost)->getNodeMask(), 0u);
}

TEST(SceneGraph, BodyTransformFollowsSnapshot) {
  const Model model = test::redCube();
  SceneGraph graph(model);
  Snapshot s;
  s.time = 0.5;
  s.body_poses = {Pose{Mat3(Eigen::AngleAxisd(0.3, Vec3::UnitY())), Vec3(1, 2, 3)}};
  graph.apply(s);
  const Pose back = fromOsg(graph.bodyTransform(0)->getMatrix());
  EXPECT_LT((back.R - s.body_poses[0].R).norm(), kTol);
  EXPECT_LT((back.r - s.body_poses[0].r).norm(), kTol);
  EXPECT_LT((graph.bounds().center - Vec3(1, 2, 3)).norm(), kTol);
  // the wrong number of poses is refused, not read out of bounds
  s.body_poses.clear();
  EXPECT_THROW(graph.apply(s), std::invalid_argument);
}

TEST(SceneGraph, PickFindsTheBodyAndThePointOnItsFace) {
  const Model model = test::redCube();
  SceneGraph graph(model);
  Snapshot s;
  s.time = 0.1;
  s.body_poses = {Pose{Mat3::Identity(), Vec3(1, 2, 3)}};
  graph.apply(s);
  // from +x towards the cube: the face at x = 1.2; aside of it: nothing
  const auto hit = graph.pick(Ray{Vec3(5, 2.1, 3.05), -Vec3::UnitX()});
  ASSERT_TRUE(hit.has_value());
  EXPECT_EQ(hit->body, 0);
  EXPECT_LT((hit->point - Vec3(1.2, 2.1, 3.05)).norm(), 1e-5);
  EXPECT_FALSE(graph.pick(Ray{Vec3(5, 2.5, 3.0), -Vec3::UnitX()}).has_value());
  // the outline and the push line do not get in the way of the next pick
  graph.setHighlight(0);
  EXPECT_EQ(graph.highlight(), 0);
  graph.setPushLine(Vec3(5, 2.1, 3.05), Vec3(1.2, 2.1, 3.05));
  EXPECT_TRUE(graph.pushLineVisible());
  EXPECT_EQ(graph.pick(Ray{Vec3(5, 2.1, 3.05), -Vec3::UnitX()})->body, 0);
  graph.hidePushLine();
  graph.setHighlight(-1);
  EXPECT_FALSE(graph.pushLineVisible());
  EXPECT_EQ(graph.highlight(), -1);
}

TEST(SceneGraph, PushArrowsAppearWithPushesOnly) {
  const Model model = test::redCube();
  SceneGraph graph(model);
  Snapshot s;
  s.body_poses = {Pose::identity()};
  auto shown = [&] {
    int n = 0;
    osg::Group* forces = graph.overlayNode(Overlay::ForceArrows)->asGroup();
    for (unsigned i = 0; i < forces->getNumChildren(); ++i)
      n += forces->getChild(i)->getName().rfind("push:", 0) == 0 && forces->getChild(i)->getNodeMask() != 0;
    return n;
  };
  graph.apply(s);
  EXPECT_EQ(shown(), 0);
  s.pushes = {AppliedForce{-1, Vec3(0.2, 0, 0), Vec3(0, 3, 0)}, AppliedForce{-1, Vec3::Zero(), Vec3::Zero()}};
  s.time = 0.1;
  graph.apply(s);
  EXPECT_EQ(shown(), 1);  // a zero force has no arrow
  s.pushes.clear();
  s.time = 0.2;
  graph.apply(s);
  EXPECT_EQ(shown(), 0);
}

TEST(SceneGraph, TrailsAreBoundedAndResetWhenTimeGoesBack) {
  const Model model = test::redCube();
  SceneOptions options;
  options.trail_points = 50;
  SceneGraph graph(model, options);
  ASSERT_EQ(graph.trailSizes().size(), 1u);  // the free body by default
  Snapshot s;
  s.body_poses.resize(1);
  for (int k = 0; k < 200; ++k) {
    s.time = 0.01 * k;
    s.body_poses[0] = Pose::translation(Vec3(0.1 * k, 0, 1));
    graph.apply(s);
  }
  EXPECT_EQ(graph.trailSizes()[0], 50);
  s.time = 0.0;
  graph.apply(s);
  EXPECT_EQ(graph.trailSizes()[0], 1);
}

// A window shows about 60 frames a second whatever the simulation's pace; the trails follow the
// path between them (issue 49: at ×2 or after a run-to the looping's circle was a triangle or a
// decagon). A circle of 100 samples shown in 3 frames is a trail of about 100 points on the circle.
TEST(SceneGraph, TrailsFollowThePathBetweenTheFramesShown) {
  const Model model = test::redCube();
  SceneGraph graph(model, SceneOptions{});
  const auto onCircle = [](int k) { return Pose::translation(Vec3(std::cos(0.0628 * k), std::sin(0.0628 * k), 1)); };
  Snapshot frame;
  frame.body_poses.resize(1);
  std::vector<PathSample> path;
  for (int k = 0; k <= 100; ++k) {
    path.push_back(PathSample{0.01 * k, {onCircle(k)}});
    if (k % 40 != 0 && k != 100) continue;  // frames at k = 0, 40, 80, 100
    graph.extendTrails(path);
    frame.time = path.back().time;
    frame.body_poses[0] = path.back().body_poses[0];
    graph.apply(frame);
    path.clear();
  }
  EXPECT_GE(graph.trailSizes()[0], 95);  // the spacing filter may skip a few
  // the frames alone: 4 points
  SceneGraph frames_only(model, SceneOptions{});
  for (int k : {0, 40, 80, 100}) {
    frame.time = 0.01 * k;
    frame.body_poses[0] = onCircle(k);
    frames_only.apply(frame);
  }
  EXPECT_EQ(frames_only.trailSizes()[0], 4);
  // a path that starts before the last frame: the run was reset, the trails start over
  path = {PathSample{0.0, {onCircle(0)}}, PathSample{0.01, {onCircle(1)}}};
  graph.extendTrails(path);
  EXPECT_EQ(graph.trailSizes()[0], 2);
}

/// The bounding box of a mesh visual read from `dir / file`, scaled by `scale`.
osg::BoundingBox meshBounds(const std::filesystem::path& dir, const std::string& file, const Vec3& scale = Vec3::Ones()) {
  Visual v;
  v.shape = Visual::Shape::Mesh;
  v.mesh_file = file;
  v.size = scale;
  std::string warning;
  osg::ref_ptr<osg::Node> node = makeVisualNode(v, dir, warning);
  EXPECT_TRUE(warning.empty()) << warning;
  osg::ComputeBoundsVisitor bounds;
  node->accept(bounds);
  return bounds.getBoundingBox();
}

/// The box spans lo … hi (to 1 µm).
void expectBox(const osg::BoundingBox& b, const Vec3& lo, const Vec3& hi) {
  for (int i = 0; i < 3; ++i) {
    EXPECT_NEAR(b._min[i], lo[i], 1e-6) << "axis " << i;
    EXPECT_NEAR(b._max[i], hi[i], 1e-6) << "axis " << i;
  }
}

// A mesh lies in its file's own coordinates whatever its format: the same asymmetric triangle,
// (0,0,0), (1,0,0), (0,0.2,1), as OBJ and STL has the same bounds — OSG's OBJ reader would turn
// it by +90° about x (its z extent becoming −y). The library's propeller (blades along x, chord
// along y, 12 mm thick along z) lies flat, as the rotor disc it is drawn on.
TEST(Meshes, ObjAndStlLieInTheFilesCoordinates) {
  const std::filesystem::path dir = std::filesystem::temp_directory_path() / "rbs_mesh_axes";
  std::filesystem::create_directories(dir);
  std::ofstream(dir / "tri.obj") << "v 0 0 0\nv 1 0 0\nv 0 0.2 1\nf 1 2 3\n";
  std::ofstream(dir / "tri.stl") << "solid t\nfacet normal 0 -0.98 0.2\nouter loop\nvertex 0 0 0\nvertex 1 0 0\n"
                                    "vertex 0 0.2 1\nendloop\nendfacet\nendsolid t\n";
  for (const char* file : {"tri.obj", "tri.stl"}) {
    SCOPED_TRACE(file);
    expectBox(meshBounds(dir, file), Vec3(0, 0, 0), Vec3(1, 0.2, 1));
  }
  // A negative scale mirrors it (Talos' and TIAGo's left/right links, issue 47): x in [−1, 0].
  const osg::BoundingBox mirrored = meshBounds(dir, "tri.stl", Vec3(-1, 1, 1));
  EXPECT_NEAR(mirrored.xMin(), -1.0, 1e-6);
  EXPECT_NEAR(mirrored.xMax(), 0.0, 1e-6);
  EXPECT_NEAR(mirrored.zMax(), 1.0, 1e-6);
  std::filesystem::remove_all(dir);
  const osg::BoundingBox propeller = meshBounds(std::string(RBS_SOURCE_DIR) + "/assets", "meshes/propeller.obj");
  EXPECT_LT(propeller.zMax() - propeller.zMin(), 0.015);
  EXPECT_GT(propeller.yMax() - propeller.yMin(), 0.02);
}

/// The sizes (s × t) of every texture image under `node`.
std::vector<std::pair<int, int>> textureSizes(osg::Node& node) {
  struct Collect : osg::NodeVisitor {
    Collect() : osg::NodeVisitor(TRAVERSE_ALL_CHILDREN) {}
    std::vector<std::pair<int, int>> sizes;
    void look(osg::StateSet* state) {
      for (unsigned unit = 0; state && unit < state->getTextureAttributeList().size(); ++unit)
        if (auto* t = dynamic_cast<osg::Texture*>(state->getTextureAttribute(unit, osg::StateAttribute::TEXTURE)))
          for (unsigned i = 0; i < t->getNumImages(); ++i)
            if (const osg::Image* image = t->getImage(i)) sizes.emplace_back(image->s(), image->t());
    }
    void apply(osg::Node& n) override {
      look(n.getStateSet());
      traverse(n);
    }
    void apply(osg::Drawable& d) override { look(d.getStateSet()); }
  } collect;
  node.accept(collect);
  return collect.sizes;
}

// A mesh's texture is kept at most 1024 texels on a side, its aspect kept (ANYmal C's seventeen
// 2048² textures made its screenshot peak at 0.77 GB, 0.33 GB since); a smaller one is untouched.
TEST(Meshes, TexturesAreBoundedTo1024TexelsOnASide) {
  const std::filesystem::path dir = std::filesystem::temp_directory_path() / "rbs_mesh_texture";
  std::filesystem::create_directories(dir);
  for (const auto& [name, s, t] : {std::tuple{"big", 2048, 512}, std::tuple{"small", 300, 200}}) {
    osg::ref_ptr<osg::Image> image = new osg::Image;
    image->allocateImage(s, t, 1, GL_RGB, GL_UNSIGNED_BYTE);
    std::fill(image->data(), image->data() + image->getTotalSizeInBytes(), 128);
    ASSERT_TRUE(osgDB::writeImageFile(*image, (dir / (std::string(name) + ".png")).string()));
    std::ofstream(dir / (std::string(name) + ".mtl")) << "newmtl m\nKd 1 1 1\nmap_Kd " << name << ".png\n";
    std::ofstream(dir / (std::string(name) + ".obj"))
        << "mtllib " << name << ".mtl\nv 0 0 0\nv 1 0 0\nv 0 1 0\nvt 0 0\nvt 1 0\nvt 0 1\nusemtl m\nf 1/1 2/2 3/3\n";
  }
  Visual v;
  v.shape = Visual::Shape::Mesh;
  std::string warning;
  v.mesh_file = "big.obj";
  const osg::ref_ptr<osg::Node> big = makeVisualNode(v, dir, warning);
  v.mesh_file = "small.obj";
  const osg::ref_ptr<osg::Node> small = makeVisualNode(v, dir, warning);
  EXPECT_TRUE(warning.empty()) << warning;
  EXPECT_EQ(textureSizes(*big), (std::vector<std::pair<int, int>>{{1024, 256}}));
  EXPECT_EQ(textureSizes(*small), (std::vector<std::pair<int, int>>{{300, 200}}));
  std::filesystem::remove_all(dir);
}

/// A COLLADA document of one triangle, (0,0,0), (0.2,0,0), (0,1,0), with `up` as its <up_axis>,
/// every id starting with `id`, and the scene's node instancing `#` + `instanced` (the geometry's
/// id unless a test breaks the reference).
std::string colladaTriangle(const std::string& up, const std::string& id, const std::string& instanced,
                            const std::string& meter = "1") {
  return R"(<?xml version="1.0" encoding="utf-8"?>
<COLLADA xmlns="http://www.collada.org/2005/11/COLLADASchema" version="1.4.1">
  <asset><unit name="unit" meter=")" + meter + R"("/><up_axis> )" + up + R"( </up_axis></asset>
  <library_geometries><geometry id=")" + id + R"("><mesh>
    <source id=")" + id + R"(-p"><float_array id=")" + id + R"(-a" count="9">0 0 0 0.2 0 0 0 1 0</float_array>
      <technique_common><accessor source="#)" + id + R"(-a" count="3" stride="3">
        <param name="X" type="float"/><param name="Y" type="float"/><param name="Z" type="float"/>
      </accessor></technique_common></source>
    <vertices id=")" + id + R"(-v"><input semantic="POSITION" source="#)" + id + R"(-p"/></vertices>
    <triangles count="1"><input semantic="VERTEX" source="#)" + id + R"(-v" offset="0"/><p>0 1 2</p></triangles>
  </mesh></geometry></library_geometries>
  <library_visual_scenes><visual_scene id="s"><node id=")" + id + R"(-n" name=")" + id + R"(">
    <instance_geometry url="#)" + instanced + R"("/></node></visual_scene></library_visual_scenes>
  <scene><instance_visual_scene url="#s"/></scene>
</COLLADA>
)";
}

// A COLLADA file lies in its own coordinates whatever its <up_axis> says, as RViz draws it (it
// ignores the tag, and robot packages are made to look right there: Baxter's torso is a Y_UP export
// that stands upright in RViz): the same triangle tagged Z_UP, Y_UP and X_UP has the same bounds.
// (OSG's reader turns Y_UP by +90° about x, X_UP by +90° about y.)
TEST(Meshes, ColladaLiesInItsOwnCoordinatesWhateverItsUpAxis) {
  const std::filesystem::path dir = std::filesystem::temp_directory_path() / "rbs_mesh_up";
  std::filesystem::create_directories(dir);
  for (const char* up : {"Z_UP", "Y_UP", "X_UP"}) {
    SCOPED_TRACE(up);
    const std::string file = std::string(up) + ".dae";
    std::ofstream(dir / file) << colladaTriangle(up, "g", "g");
    expectBox(meshBounds(dir, file), Vec3(0, 0, 0), Vec3(0.2, 1, 0));
  }
  std::filesystem::remove_all(dir);
}

// A COLLADA file's <unit meter="…"> scales its coordinates to metres, as RViz does (its mesh loader
// rescales by the unit): the triangle written in centimetres is 0.002 × 0.01 m, Y_UP too.
TEST(Meshes, ColladaUnitsAreMetres) {
  const std::filesystem::path dir = std::filesystem::temp_directory_path() / "rbs_mesh_unit";
  std::filesystem::create_directories(dir);
  for (const char* up : {"Z_UP", "Y_UP"}) {
    SCOPED_TRACE(up);
    const std::string file = std::string("cm_") + up + ".dae";
    std::ofstream(dir / file) << colladaTriangle(up, "g", "g", "0.01");
    expectBox(meshBounds(dir, file), Vec3(0, 0, 0), Vec3(0.002, 0.01, 0));
  }
  std::filesystem::remove_all(dir);
}

// Ids of any characters resolve (issue 47: the Go1's meshes are exported with the parts' Chinese
// names as ids, and OSG's reader resolved none of their references: no geometry). The triangle with
// ids in Chinese and in accented Latin lies where the ASCII one does, a Y_UP one included.
TEST(Meshes, ColladaIdsOfAnyCharactersResolve) {
  const std::filesystem::path dir = std::filesystem::temp_directory_path() / "rbs_mesh_ids";
  std::filesystem::create_directories(dir);
  int n = 0;  // a file name each: meshes are cached by file name
  for (const std::string id : {"\u5c0f\u817f\u6746_002-mesh", "tr\u00ed_\u00f1"}) {
    for (const char* up : {"Z_UP", "Y_UP"}) {
      SCOPED_TRACE(id + " " + up);
      const std::string file = "ids" + std::to_string(++n) + ".dae";
      std::ofstream(dir / file) << colladaTriangle(up, id, id);
      expectBox(meshBounds(dir, file), Vec3(0, 0, 0), Vec3(0.2, 1, 0));
    }
  }
  std::filesystem::remove_all(dir);
}

// The copy's text: ids and references are spelled alike (each non-ASCII byte as _xHH), an image's
// file name keeps its bytes and, relative, becomes absolute to the original's folder; a surface's
// <init_from> names an image id and is spelled like it.
TEST(Meshes, TheAsciiCopyOfAColladaFileKeepsItsReferencesAndImages) {
  const std::string document =
      "<image id=\"\u00e9\"><init_from>tex/\u00e9 1.png</init_from></image>"
      "<image id=\"b\"><init_from>\n  /abs/b.PNG </init_from></image>"
      "<image id=\"c\"><init_from>file:///c.jpg</init_from></image>"
      "<surface><init_from>\u00e9</init_from></surface><instance_effect url=\"#\u00e9\"/>";
  const std::string copy = withAsciiIds(document, "/robots/my robot/meshes");
  EXPECT_EQ(copy,
            "<image id=\"_xC3_xA9\"><init_from>/robots/my%20robot/meshes/tex/\u00e9 1.png</init_from></image>"
            "<image id=\"b\"><init_from>/abs/b.PNG</init_from></image>"
            "<image id=\"c\"><init_from>file:///c.jpg</init_from></image>"
            "<surface><init_from>_xC3_xA9</init_from></surface><instance_effect url=\"#_xC3_xA9\"/>");
  EXPECT_FALSE(hasNonAsciiBytes(withAsciiIds("<a id=\"\u5c0f\"/>", "/")));
  // a byte-order mark before <?xml is kept, and alone does not ask for a copy
  const std::string marked = "\xEF\xBB\xBF<?xml version=\"1.0\"?><a id=\"\u00e9\"/>";
  EXPECT_EQ(withAsciiIds(marked, "/"), "\xEF\xBB\xBF<?xml version=\"1.0\"?><a id=\"_xC3_xA9\"/>");
  EXPECT_FALSE(hasNonAsciiBytes("\xEF\xBB\xBF<?xml version=\"1.0\"?><a/>"));
  EXPECT_EQ(colladaUpAxis("<asset><up_axis>\n Y_UP </up_axis></asset>"), "Y_UP");
  EXPECT_EQ(colladaUpAxis("<asset></asset><up_axis>Y_UP</up_axis>"), "");
  EXPECT_EQ(colladaUnitMeter("<asset><unit name='mm' meter='0.001'/></asset>"), 0.001);
  EXPECT_EQ(colladaUnitMeter("<asset><unit meter=\"-2\"/></asset>"), 1.0);  // not a length: as written
  EXPECT_EQ(colladaUnitMeter("<asset><unit meter=\"cm\"/></asset>"), 1.0);
  EXPECT_EQ(colladaUnitMeter("<asset></asset><unit meter=\"0.01\"/>"), 1.0);  // outside the asset
}

// A COLLADA file that opens but whose references do not resolve gives no geometry: a warning
// naming the file, with what the reader said, and a magenta box, not an invisible body. What the
// COLLADA DOM prints goes into that warning, not to stdout, which rbsim-cli keeps for results, nor
// to stderr.
TEST(Meshes, AMeshWithNoGeometryIsAWarningWithTheReadersWordsAndNothingElseIsPrinted) {
  const std::filesystem::path dir = std::filesystem::temp_directory_path() / "rbs_mesh_empty";
  std::filesystem::create_directories(dir);
  std::ofstream(dir / "broken.dae") << colladaTriangle("Z_UP", "g", "no-such-geometry");
  Visual v;
  v.shape = Visual::Shape::Mesh;
  v.mesh_file = "broken.dae";
  std::string warning;
  // stdout and stderr into files for the call
  const std::filesystem::path captured_out = dir / "stdout.txt", captured_err = dir / "stderr.txt";
  std::fflush(stdout);
  std::fflush(stderr);
  const int saved_out = ::dup(1), saved_err = ::dup(2);
  FILE* out_sink = std::fopen(captured_out.c_str(), "w");
  FILE* err_sink = std::fopen(captured_err.c_str(), "w");
  ::dup2(::fileno(out_sink), 1);
  ::dup2(::fileno(err_sink), 2);
  v.origin = Pose::translation(Vec3(0, 0, 0.3));
  Bounds extent;
  const osg::ref_ptr<osg::Node> node = makeVisualNode(v, dir, warning, &extent);
  std::fflush(stdout);
  std::fflush(stderr);
  ::dup2(saved_out, 1);
  ::dup2(saved_err, 2);
  ::close(saved_out);
  ::close(saved_err);
  std::fclose(out_sink);
  std::fclose(err_sink);
  EXPECT_EQ(std::filesystem::file_size(captured_out), 0u) << "stdout got the reader's messages";
  EXPECT_EQ(std::filesystem::file_size(captured_err), 0u) << "stderr got the reader's messages";
  EXPECT_NE(warning.find("broken.dae' has no geometry the reader could take (the reader: Error: "
                         "daeStandardURIResolver::resolveElement() - Failed to resolve file:"),
            std::string::npos)
      << warning;
  EXPECT_NE(warning.find("broken.dae#no-such-geometry); drawn as a magenta box"), std::string::npos) << warning;
  // framed as the 5 cm box it is drawn as (the Go1 was framed for spheres of 1 m, its scale)
  EXPECT_NEAR(extent.radius, 0.5 * std::sqrt(3.0) * 0.05, 1e-6);
  EXPECT_LT((extent.center - Vec3(0, 0, 0.3)).norm(), 1e-12);
  std::filesystem::remove_all(dir);
}

TEST(Snapshot, ActuatorForcesInWorldCoordinates) {
  const Model model = test::redCube();
  Workspace ws(model);
  Snapshot s;
  // body turned a quarter about x: body z points along world −y
  const Model turned = test::redCube(Pose{Mat3(Eigen::AngleAxisd(M_PI / 2, Vec3::UnitX())), Vec3(0, 0, 1)});
  fillBodyPoses(turned, turned.initial_state.x, 0.0, ws, s);
  VecX u(1);
  u << 2.0;
  fillActuatorForces(turned, VecX(), u, s);
  ASSERT_EQ(s.forces.size(), 1u);
  EXPECT_LT((s.forces[0].point - Vec3(0.2, 0, 1)).norm(), kTol);
  EXPECT_LT((s.forces[0].force - Vec3(0, -2, 0)).norm(), kTol);
}

TEST(Snapshot, PropellerThrustIsKappaFOmegaSquaredAlongItsAxis) {
  ModelBuilder b;
  b.addBody({"rotor", 0.01, Vec3::Zero(), Vec3(1.8e-5, 1.8e-5, 3.6e-5).asDiagonal()});
  b.addJoint({.name = "spin", .type = JointType::RevoluteUnitCircle, .parent = kWorld, .child = "rotor",
              .parent_placement = Pose{Mat3(Eigen::AngleAxisd(M_PI / 2, Vec3::UnitX())), Vec3(0, 0, 1)},
              .axis = -Vec3::UnitZ()});
  b.addPropeller({.name = "prop", .joint = "spin", .thrust_coefficient = 1.44e-5});
  b.addActuator({.name = "motor", .joint = "spin", .gain = 0.0105});
  const Model model = b.build();
  Workspace ws(model);
  Snapshot s;
  fillBodyPoses(model, model.initial_state.x, 0.0, ws, s);
  VecX xi(1);
  xi << 400.0;
  fillActuatorForces(model, xi, VecX::Zero(1), s);
  ASSERT_EQ(s.forces.size(), 1u);
  EXPECT_EQ(s.forces[0].actuator, propellerForceIndex(model, 0));
  // thrust direction +z of the rotor, which the mount turns onto world −y
  EXPECT_LT((s.forces[0].force - Vec3(0, -1.44e-5 * 400 * 400, 0)).norm(), kTol);
  EXPECT_LT((s.forces[0].point - Vec3(0, 0, 1)).norm(), kTol);
}

TEST(Bounds, SphereContainsBoth) {
  Bounds b;
  b.expand(Vec3(0, 0, 0), 1.0);
  b.expand(Vec3(4, 0, 0), 1.0);
  EXPECT_NEAR(b.radius, 3.0, kTol);
  EXPECT_LT((b.center - Vec3(2, 0, 0)).norm(), kTol);
  b.expand(Vec3(2, 0, 0), 0.5);  // inside: no change
  EXPECT_NEAR(b.radius, 3.0, kTol);
}

TEST(Camera, OrbitConvention) {
  const Model model = test::redCube();
  CameraSpec c;
  c.target = Vec3(1, 1, 1);
  c.distance = 2.0;
  c.azimuth = M_PI / 2;
  c.elevation = 0.0;
  const CameraPose p = cameraPose(model, c, {Pose::identity()});
  EXPECT_LT((p.eye - Vec3(1, 3, 1)).norm(), kTol);  // azimuth π/2: on the +y side
  c.elevation = M_PI / 2;
  const CameraPose top = cameraPose(model, c, {Pose::identity()});
  EXPECT_LT((top.eye - Vec3(1, 1, 3)).norm(), kTol);
  EXPECT_NEAR(top.up.dot(top.center - top.eye), 0.0, kTol);  // a valid look-at, not along +z
}

TEST(Camera, NamedCamerasAndErrors) {
  const Scene scene = library("quadcopter_looping.yaml");
  const CameraSpec s = makeCamera("scene", scene.model, scene.camera, 16.0 / 9.0);
  EXPECT_LT((s.target - Vec3(0, 0, 2)).norm(), kTol);
  EXPECT_DOUBLE_EQ(s.distance, 7.0);
  const CameraSpec follow = makeCamera("follow", scene.model, scene.camera, 16.0 / 9.0);
  EXPECT_EQ(follow.follow_body, 0);
  const CameraSpec fit = makeCamera("fit", scene.model, scene.camera, 16.0 / 9.0);
  EXPECT_GT(fit.distance, 0.0);
  for (const char* n : {"front", "side", "top", "iso", "follow:base"})
    EXPECT_NO_THROW(makeCamera(n, scene.model, scene.camera, 1.0)) << n;
  try {
    makeCamera("bogus", scene.model, scene.camera, 1.0);
    FAIL() << "no exception";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("available: scene, fit"), std::string::npos) << e.what();
  }
  EXPECT_THROW(makeCamera("follow:nobody", scene.model, scene.camera, 1.0), std::invalid_argument);
  // the follow camera moves with the body
  std::vector<Pose> poses = {Pose::translation(Vec3(5, 0, 0))};
  EXPECT_LT((cameraPose(scene.model, follow, poses).center - Vec3(5, 0, 0)).norm(), kTol);
}

// The scene file's camera is chosen for 16:9. A tall, narrow view (a portrait window) keeps the
// same width in view: the point at the 16:9 image's left and right edges stays inside the image.
TEST(Camera, ANarrowViewKeepsTheSceneCamerasWidthInView) {
  const Scene scene = library("quadcopter_looping.yaml");
  const CameraSpec wide = makeCamera("scene", scene.model, scene.camera, kSceneCameraAspect);
  for (const double aspect : {kSceneCameraAspect, 1.0, 0.4}) {
    const CameraSpec c = makeCamera("scene", scene.model, scene.camera, aspect);
    // half the width visible at the target distance: d · tan(half_y) · aspect
    const double half_width = c.distance * std::tan(0.5 * c.fov_y) * aspect;
    const double wide_half_width = wide.distance * std::tan(0.5 * wide.fov_y) * kSceneCameraAspect;
    EXPECT_GE(half_width, wide_half_width * (1 - 1e-12)) << "aspect " << aspect;
    EXPECT_EQ(fitToAspect(wide, aspect).distance, c.distance);
  }
  EXPECT_EQ(makeCamera("scene", scene.model, scene.camera, 3.0).distance, wide.distance);  // wider: unchanged
  EXPECT_GT(makeCamera("top", scene.model, scene.camera, 0.5).distance,
            makeCamera("top", scene.model, scene.camera, kSceneCameraAspect).distance);
}

// An imported robot (issue 47): no camera section, links drawn as meshes of 0.1 m. The view is
// framed by the meshes as read, not by their scale factor (1: a sphere of 1 m per link, so that
// the default and even "fit" showed the robot at a few per cent of the picture): the scene camera,
// fit and the presets show the whole robot across most of the image's width or height, in a wide
// and in a narrow image.
TEST(Camera, AnImportedRobotIsFramedByItsMeshes) {
  const std::filesystem::path dir = std::filesystem::temp_directory_path() / "rbs_framing";
  std::filesystem::create_directories(dir);
  test::writeAsciiStlBox(dir / "cube.stl", Vec3::Constant(0.1));  // centred at the link frame
  std::ofstream(dir / "arm.urdf") << R"(<robot name="arm">
  <link name="base"><inertial><mass value="1"/><inertia ixx="0.01" iyy="0.01" izz="0.01" ixy="0" ixz="0" iyz="0"/></inertial>
    <visual><geometry><mesh filename="cube.stl"/></geometry></visual></link>
  <link name="link"><inertial><mass value="1"/><inertia ixx="0.01" iyy="0.01" izz="0.01" ixy="0" ixz="0" iyz="0"/></inertial>
    <visual><geometry><mesh filename="cube.stl"/></geometry></visual></link>
  <joint name="j" type="revolute"><parent link="base"/><child link="link"/><origin xyz="0 0 0.1"/>
    <axis xyz="0 1 0"/><limit lower="-1" upper="1" effort="10" velocity="1"/></joint>
</robot>)";
  const Scene scene = loadScene(dir / "arm.urdf");
  EXPECT_FALSE(scene.camera.distance.has_value());
  SceneGraph graph(scene.model, SceneOptions{});
  ASSERT_TRUE(graph.warnings().empty()) << graph.warnings().front();
  // both links use cube.stl: read once, the same geometry under both (a quadruped's four legs),
  // and nothing left in osgDB's cache once the graph is built
  struct Geometries : osg::NodeVisitor {
    std::set<const osg::Drawable*> found;
    Geometries() : osg::NodeVisitor(TRAVERSE_ALL_CHILDREN) {}
    void apply(osg::Drawable& d) override { found.insert(&d); }
  } link0, link1;
  graph.bodyTransform(0)->accept(link0);
  graph.bodyTransform(1)->accept(link1);
  ASSERT_FALSE(link0.found.empty());
  EXPECT_EQ(link0.found, link1.found);
  EXPECT_FALSE(osgDB::Registry::instance()->getRefFromObjectCache((dir / "cube.stl").string()).valid());
  const VisualExtents& extents = graph.visualExtents();
  ASSERT_EQ(extents.size(), 2u);
  EXPECT_NEAR(extents[0].radius, 0.5 * std::sqrt(3.0) * 0.1, 1e-6);  // the cube's half diagonal
  EXPECT_LT(extents[0].center.norm(), 1e-6);
  // the two cubes stacked: a 0.1 × 0.1 × 0.2 m column from z = −0.05 to 0.15; the ground below
  // its drawn sphere, a few centimetres under its foot (a metre with spheres of the scale factor)
  EXPECT_LT(graph.groundHeight(), -0.05);
  EXPECT_GT(graph.groundHeight(), -0.1);
  const std::vector<Pose> poses = {Pose::identity(), Pose::translation(Vec3(0, 0, 0.1))};
  for (const char* name : {"scene", "fit", "front", "top"}) {
    for (const double aspect : {kSceneCameraAspect, 0.6}) {
      SCOPED_TRACE(std::string(name) + " at aspect " + std::to_string(aspect));
      const CameraSpec c = makeCamera(name, scene.model, scene.camera, aspect, &extents);
      // the column's corners in the image: all inside, and across most of its width or height
      Eigen::Vector2d extent = Eigen::Vector2d::Zero();
      for (int k = 0; k < 8; ++k) {
        const Vec3 corner(0.1 * (k & 1) - 0.05, 0.1 * ((k >> 1) & 1) - 0.05, 0.2 * ((k >> 2) & 1) - 0.05);
        const Eigen::Vector2d p = imagePoint(cameraPose(scene.model, c, poses), c.fov_y, aspect, corner);
        ASSERT_TRUE(p.allFinite());
        extent = extent.cwiseMax(p.cwiseAbs());
      }
      // (framed by each mesh's sphere: a cube face-on spans 0.58 of its sphere's diameter; from
      // the top the column is a cube, measured 0.45 of the image)
      EXPECT_LT(extent.maxCoeff(), 1.0);
      EXPECT_GT(extent.maxCoeff(), 0.4);
      // without the measured meshes the camera stands several times as far
      EXPECT_GT(makeCamera(name, scene.model, scene.camera, aspect).distance, 4.0 * c.distance);
    }
  }
  std::filesystem::remove_all(dir);
}

TEST(Camera, ViewRayAndImagePointAreInverses) {
  const CameraPose pose{Vec3(3, -2, 1.5), Vec3(0.2, 0.1, 0.4), Vec3::UnitZ()};
  const double fov = 0.61, aspect = 16.0 / 9.0;
  for (const Vec3& p : {Vec3(0.2, 0.1, 0.4), Vec3(0.5, 0.8, -0.3), Vec3(-1.0, 0.3, 1.0)}) {
    const Eigen::Vector2d ndc = imagePoint(pose, fov, aspect, p);
    const Ray ray = viewRay(pose, fov, aspect, ndc.x(), ndc.y());
    // p lies on the ray
    const Vec3 d = p - ray.origin;
    EXPECT_LT((d - d.dot(ray.direction) * ray.direction).norm(), 1e-12);
    EXPECT_GT(d.dot(ray.direction), 0.0);
  }
  // the target is at the image centre; a point behind the eye has no image point
  EXPECT_LT(imagePoint(pose, fov, aspect, pose.center).norm(), 1e-12);
  EXPECT_TRUE(std::isnan(imagePoint(pose, fov, aspect, Vec3(6, -4, 2.6)).x()));
  // the ray meets the plane through the target facing the eye at the target
  const Ray centre = viewRay(pose, fov, aspect, 0.0, 0.0);
  EXPECT_LT((rayPlaneIntersection(centre, pose.center, pose.eye - pose.center) - pose.center).norm(), 1e-12);
}

TEST(Camera, FramingDistanceFitsTheSphere) {
  // a unit sphere at the framing distance subtends at most the smaller half field of view
  const double fov = 0.61, aspect = 16.0 / 9.0;
  const double d = framingDistance(1.0, fov, aspect);
  EXPECT_LE(std::asin(1.0 / d), 0.5 * fov);
}

TEST(Offscreen, ParseSize) {
  EXPECT_EQ(parseSize("1280x720"), std::make_pair(1280, 720));
  for (const char* bad : {"", "1280", "x720", "1280x", "0x0", "8x8", "99999x10", "12a0x720", "-5x20"})
    EXPECT_THROW(parseSize(bad), std::invalid_argument) << bad;
}

}  // namespace
}  // namespace rbs::render
