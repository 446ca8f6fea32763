// Tests for render/offscreen.h, render/video_encoder.h and rbsim-cli render, with OpenGL (Mesa's
// software renderer under Xvfb in CI).
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <vector>
#include <osgDB/ReadFile>

#include "core/dynamics/snapshot.h"
#include "render/camera.h"
#include "render/offscreen.h"
#include "render/scene_graph.h"
#include "render/video_encoder.h"
#include "core/dynamics/kinematics.h"
#include "core/dynamics/workspace.h"
#include "core/scene/scene.h"
#include "tests/render/render_test_models.h"
#include "tests/support/mesh_files.h"
#include "tests/scene/scene_test_util.h"

namespace rbs::render {
namespace {

/// A red cube on an otherwise empty view (no ground, no HUD): where is it in the image?
struct CubeView {
  Model model = test::redCube(Pose::translation(Vec3(0.5, -0.3, 1.2)));
  SceneGraph graph{model};
  OffscreenRenderer renderer{320, 240, 0};
  CameraPose camera{Vec3(4, -3, 2.5), Vec3(0, 0, 1), Vec3::UnitZ()};

  CubeView() {
    for (Overlay o : allOverlays()) graph.setOverlay(o, false);
    renderer.setScene(graph.root());
    renderer.setCamera(camera, 0.61);
  }
  bool isRed(int x, int y, const Image& img) const {
    const std::uint8_t* p = img.pixel(x, y);
    return p[0] > 100 && p[0] > 2 * p[1] && p[0] > 2 * p[2];
  }
  /// Pixel (x from the left, y from the top) of a world point.
  std::pair<int, int> project(const Vec3& w) const {
    const osg::Vec3d win = osg::Vec3d(w.x(), w.y(), w.z()) * renderer.worldToWindow();
    return {static_cast<int>(win.x()), renderer.height() - 1 - static_cast<int>(win.y())};
  }
};

TEST(Offscreen, ImageIsNotBlankAndTheBodyIsWhereProjected) {
  CubeView v;
  const Image& img = v.renderer.render();
  ASSERT_EQ(img.width, 320);
  ASSERT_EQ(img.height, 240);
  // not blank: the sky gradient and the cube give many distinct colours
  int red = 0;
  for (int y = 0; y < img.height; ++y)
    for (int x = 0; x < img.width; ++x) red += v.isRed(x, y, img);
  EXPECT_GT(red, 200);
  EXPECT_LT(red, img.width * img.height / 4);
  // the cube's centre is red, a point 1 m beside it is not
  const auto [cx, cy] = v.project(Vec3(0.5, -0.3, 1.2));
  ASSERT_TRUE(cx >= 0 && cx < img.width && cy >= 0 && cy < img.height);
  EXPECT_TRUE(v.isRed(cx, cy, img)) << "centre at " << cx << ", " << cy;
  const auto [ox, oy] = v.project(Vec3(0.5, 1.2, 1.2));
  if (ox >= 0 && ox < img.width && oy >= 0 && oy < img.height) {
    EXPECT_FALSE(v.isRed(ox, oy, img));
  }
  // moving the body moves it in the image: up by 0.6 m is up on the screen
  Snapshot s;
  s.body_poses = {Pose::translation(Vec3(0.5, -0.3, 1.8))};
  v.graph.apply(s);
  const Image& moved = v.renderer.render();
  const auto [mx, my] = v.project(Vec3(0.5, -0.3, 1.8));
  EXPECT_LT(my, cy);
  EXPECT_TRUE(v.isRed(mx, my, moved));
  EXPECT_FALSE(v.renderer.glRenderer().empty());
}

// A robot as published: meshes named package://, found through package.xml above the URDF, STL
// coloured by the URDF's material and COLLADA by its own. Each mesh is drawn where its link's pose
// projects, in its colour, and nothing is the magenta placeholder.
/// The scene's bodies at its initial state, without overlays, on `renderer` seen from `camera`; the
/// graph must live while the renderer draws it.
SceneGraph showAtRest(const Scene& scene, OffscreenRenderer& renderer, const CameraPose& camera) {
  SceneGraph graph(scene.model);
  EXPECT_TRUE(graph.warnings().empty()) << graph.warnings().front();
  for (Overlay o : allOverlays()) graph.setOverlay(o, false);
  Workspace ws(scene.model);
  Snapshot snapshot;
  fillBodyPoses(scene.model, scene.model.initial_state.x, 0.0, ws, snapshot);
  graph.apply(snapshot);
  renderer.setScene(graph.root());
  renderer.setCamera(camera, 0.61);
  return graph;
}

/// The picture (width × height, from `camera`) of a URDF written to `urdf`: one link 1 m above the
/// ground, fixed to the world, drawn as the grey `mesh` (beside the URDF) scaled by `scale`, or as
/// nothing when `mesh` is empty.
Image pictureOfAGreyMesh(const std::filesystem::path& urdf, const std::string& mesh, const std::string& scale, int width,
                         int height, const CameraPose& camera) {
  const std::string visual = mesh.empty() ? "" : "<visual><geometry><mesh filename=\"" + mesh + "\" scale=\"" + scale +
                                                     "\"/></geometry><material name=\"grey\"><color rgba=\"0.7 0.7 0.7 1\"/>"
                                                     "</material></visual>";
  std::ofstream(urdf) << R"(<robot name="m"><link name="world"/>
  <link name="box"><inertial><mass value="1"/><inertia ixx="0.01" iyy="0.01" izz="0.01" ixy="0" ixz="0" iyz="0"/></inertial>
    )" << visual << R"(</link>
  <joint name="fix" type="fixed"><parent link="world"/><child link="box"/><origin xyz="0 0 1"/></joint>
</robot>)";
  const Scene scene = loadScene(urdf);
  OffscreenRenderer renderer(width, height, 0);
  const SceneGraph graph = showAtRest(scene, renderer, camera);
  return renderer.render();
}

TEST(Offscreen, MeshedUrdfRobotIsDrawnWithItsMeshesWhereItsLinksAre) {
  namespace fs = std::filesystem;
  const fs::path pkg = fs::path(testing::TempDir()) / "rbs_meshed_robot" / "src" / "acme_robot";
  fs::create_directories(pkg / "meshes");
  fs::create_directories(pkg / "urdf");
  std::ofstream(pkg / "package.xml") << "<package format=\"3\"><name>acme_description</name></package>\n";
  test::writeBinaryStlBox(pkg / "meshes" / "base.stl", Vec3(0.4, 0.4, 0.4));
  test::writeColladaBox(pkg / "meshes" / "arm.dae", Vec3(0.2, 0.2, 0.2), Vec4(0.1, 0.8, 0.1, 1.0));
  const fs::path urdf = pkg / "urdf" / "acme.urdf";
  std::ofstream(urdf) << R"(<robot name="acme">
  <link name="base"><inertial><mass value="2"/><inertia ixx="0.1" iyy="0.1" izz="0.1" ixy="0" ixz="0" iyz="0"/></inertial>
    <visual><geometry><mesh filename="package://acme_description/meshes/base.stl"/></geometry>
      <material name="red"><color rgba="0.9 0.05 0.05 1"/></material></visual></link>
  <link name="arm"><inertial><mass value="1"/><inertia ixx="0.01" iyy="0.01" izz="0.01" ixy="0" ixz="0" iyz="0"/></inertial>
    <visual><geometry><mesh filename="package://acme_description/meshes/arm.dae" scale="2 2 2"/></geometry></visual></link>
  <joint name="base_to_world" type="fixed"><parent link="world"/><child link="base"/><origin xyz="0 0 0.5"/></joint>
  <link name="world"/>
  <joint name="shoulder" type="revolute"><parent link="base"/><child link="arm"/><origin xyz="0 0.9 0.3"/>
    <axis xyz="0 0 1"/><limit lower="-1" upper="1" effort="1" velocity="1"/></joint>
</robot>)";
  const Scene scene = loadScene(urdf);
  ASSERT_TRUE(scene.warnings.empty()) << scene.warnings.front().text();
  OffscreenRenderer renderer(320, 240, 0);
  const SceneGraph graph = showAtRest(scene, renderer, CameraPose{Vec3(3, -2.5, 2.0), Vec3(0, 0.45, 0.6), Vec3::UnitZ()});
  const Image& img = renderer.render();
  auto project = [&](const Vec3& w) {
    const osg::Vec3d win = osg::Vec3d(w.x(), w.y(), w.z()) * renderer.worldToWindow();
    return std::pair<int, int>{static_cast<int>(win.x()), renderer.height() - 1 - static_cast<int>(win.y())};
  };
  auto channels = [&](const std::pair<int, int>& p) {
    const std::uint8_t* c = img.pixel(p.first, p.second);
    return std::array<int, 3>{c[0], c[1], c[2]};
  };
  const auto base = channels(project(Vec3(0, 0, 0.5)));
  EXPECT_TRUE(base[0] > 100 && base[0] > 2 * base[1] && base[0] > 2 * base[2]) << base[0] << " " << base[1] << " " << base[2];
  const auto arm = channels(project(Vec3(0, 0.9, 0.8)));
  EXPECT_TRUE(arm[1] > 80 && arm[1] > 2 * arm[0] && arm[1] > 2 * arm[2]) << arm[0] << " " << arm[1] << " " << arm[2];
  int magenta = 0, red = 0, green = 0;
  for (int y = 0; y < img.height; ++y)
    for (int x = 0; x < img.width; ++x) {
      const auto c = channels({x, y});
      magenta += c[0] > 120 && c[2] > 120 && c[1] < 60;
      red += c[0] > 100 && c[0] > 2 * c[1] && c[0] > 2 * c[2];
      green += c[1] > 80 && c[1] > 2 * c[0] && c[1] > 2 * c[2];
    }
  EXPECT_EQ(magenta, 0);
  EXPECT_GT(red, 300);    // the 0.4 m box is ~40 px across
  EXPECT_GT(green, 150);  // the 0.4 m (0.2 m scaled by 2) DAE box
}

// Every mesh format lands where RViz puts it (issue 47: OSG's OBJ reader turned OBJ files by 90°
// about x, its COLLADA reader turned Y_UP files and took no geometry from non-ASCII ids): the same
// off-centre box (its corner at the link origin, 0.3 × 0.16 × 0.08 m, so a turn or a mirror moves
// it) as STL, OBJ, PLY and a COLLADA file tagged Y_UP with Chinese ids covers the same pixels.
TEST(Offscreen, EveryMeshFormatOfTheSameBoxCoversTheSamePixels) {
  namespace fs = std::filesystem;
  const fs::path dir = fs::path(testing::TempDir()) / "rbs_mesh_formats";
  fs::create_directories(dir);
  const Vec3 size(0.3, 0.16, 0.08), centre = 0.5 * size;
  test::writeBinaryStlBox(dir / "box.stl", size, centre);
  test::writeObjBox(dir / "box.obj", size, centre);
  test::writePlyBox(dir / "box.ply", size, centre);
  test::writeColladaBox(dir / "box.dae", size, Vec4(0.7, 0.7, 0.7, 1), centre, "Y_UP", "\u76d2\u5b50");
  auto picture = [&](const std::string& mesh) {
    return pictureOfAGreyMesh(dir / (mesh.empty() ? std::string("none.urdf") : mesh + ".urdf"), mesh, "1 1 1", 200, 150,
                              CameraPose{Vec3(0.9, -0.7, 1.5), Vec3(0, 0, 1), Vec3::UnitZ()});
  };
  const Image empty = picture("");
  auto covered = [&](const Image& img) {  // the pixels the mesh changed
    std::vector<bool> mask(static_cast<std::size_t>(img.width * img.height));
    for (int y = 0; y < img.height; ++y)
      for (int x = 0; x < img.width; ++x)
        for (int k = 0; k < 3; ++k)
          if (std::abs(int(img.pixel(x, y)[k]) - int(empty.pixel(x, y)[k])) > 8) mask[y * img.width + x] = true;
    return mask;
  };
  const std::vector<bool> stl = covered(picture("box.stl"));
  const long area = std::count(stl.begin(), stl.end(), true);
  EXPECT_GT(area, 1500);  // the box is ~70 px across
  for (const char* mesh : {"box.obj", "box.ply", "box.dae"}) {
    SCOPED_TRACE(mesh);
    const std::vector<bool> other = covered(picture(mesh));
    long differing = 0;
    for (std::size_t i = 0; i < stl.size(); ++i) differing += stl[i] != other[i];
    EXPECT_LT(differing, area / 50) << "of " << area;  // edge pixels at most
  }
}

// A negative mesh scale mirrors the mesh (issue 47: Talos' and TIAGo's left/right links) and keeps
// its lighting: a box symmetric about its centre, drawn with scale (−1, 1, 1), is the same picture
// as with (1, 1, 1). Without the clockwise front face the mirrored box's visible faces count as
// back faces and the two-sided lighting shades them with the reversed normals.
TEST(Offscreen, AMirroredMeshIsLitAsTheOriginal) {
  namespace fs = std::filesystem;
  const fs::path dir = fs::path(testing::TempDir()) / "rbs_mirrored_mesh";
  fs::create_directories(dir);
  test::writeBinaryStlBox(dir / "box.stl", Vec3(0.4, 0.3, 0.2));
  auto picture = [&](const std::string& scale) {
    return pictureOfAGreyMesh(dir / (std::string("box") + (scale[0] == '-' ? "_mirrored" : "") + ".urdf"), "box.stl",
                              scale, 160, 120, CameraPose{Vec3(1.5, -1.2, 1.8), Vec3(0, 0, 1), Vec3::UnitZ()});
  };
  const Image plain = picture("1 1 1");
  const Image mirrored = picture("-1 1 1");
  ASSERT_EQ(plain.width, mirrored.width);
  int differing = 0, box = 0;
  for (int y = 0; y < plain.height; ++y)
    for (int x = 0; x < plain.width; ++x) {
      const std::uint8_t* a = plain.pixel(x, y);
      const std::uint8_t* b = mirrored.pixel(x, y);
      int worst = 0;
      for (int k = 0; k < 3; ++k) worst = std::max(worst, std::abs(int(a[k]) - int(b[k])));
      differing += worst > 8;
      box += a[0] > 40 && std::abs(int(a[0]) - int(a[2])) < 20;  // grey
    }
  EXPECT_GT(box, 400);
  EXPECT_LT(differing, 20);  // edge pixels at most
}

// Two renderers on one thread (the live view and a video export) draw in turn, and one of them
// goes away in between: each draws into its own context every time, so each picture equals what
// it draws alone. Was: osgViewer kept the context it made current last and drew the other
// renderer's frame into it (or into none after the other was destroyed): frozen or garbled
// pictures, OpenGL errors, a crash in the GL driver.
TEST(Offscreen, RenderersTakingTurnsEachDrawIntoTheirOwnContext) {
  const auto copy = [](const Image& i) { return i.rgb; };
  CubeView alone_a;
  const std::vector<std::uint8_t> a_alone = copy(alone_a.renderer.render());
  Model other = test::redCube(Pose::translation(Vec3(-0.4, 0.2, 0.8)));
  SceneGraph other_graph(other);
  std::vector<std::uint8_t> b_alone;
  {
    OffscreenRenderer b(200, 120, 4);  // another size and multisampling, like the video's
    b.setScene(other_graph.root());
    b.setCamera(CameraPose{Vec3(3, 2, 2), Vec3(0, 0, 1), Vec3::UnitZ()}, 0.7);
    b_alone = copy(b.render());
  }
  CubeView a;
  EXPECT_EQ(copy(a.renderer.render()), a_alone);
  for (int round = 0; round < 3; ++round) {
    OffscreenRenderer b(200, 120, 4);
    b.setScene(other_graph.root());
    b.setCamera(CameraPose{Vec3(3, 2, 2), Vec3(0, 0, 1), Vec3::UnitZ()}, 0.7);
    for (int k = 0; k < 3; ++k) {
      EXPECT_EQ(copy(b.render()), b_alone) << "round " << round << ", frame " << k;
      EXPECT_EQ(copy(a.renderer.render()), a_alone) << "round " << round << ", frame " << k;
    }
  }  // b is destroyed: a draws on alone
  EXPECT_EQ(copy(a.renderer.render()), a_alone);
}

TEST(Offscreen, PngRoundTripKeepsTheTopRow) {
  CubeView v;
  const Image& img = v.renderer.render();
  const std::string file = ::testing::TempDir() + "rbs_render_roundtrip.png";
  writePng(img, file);
  osg::ref_ptr<osg::Image> back = osgDB::readRefImageFile(file);
  ASSERT_TRUE(back.valid());
  ASSERT_EQ(back->s(), img.width);
  ASSERT_EQ(back->t(), img.height);
  // osg::Image rows run from the bottom: our top row is its last
  const unsigned char* top = back->data(0, back->t() - 1);
  const unsigned char* ours = img.pixel(0, 0);
  for (int c = 0; c < 3; ++c) EXPECT_NEAR(top[c], ours[c], 1);
  std::remove(file.c_str());
}

TEST(VideoEncoder, MissingFfmpegNamesThePackage) {
  VideoOptions o;
  o.file = ::testing::TempDir() + "never.mp4";
  o.ffmpeg = "rbsim-no-such-ffmpeg";
  try {
    VideoEncoder e(o);
    FAIL() << "no exception";
  } catch (const RenderError& e) {
    EXPECT_NE(std::string(e.what()).find("Debian package 'ffmpeg'"), std::string::npos) << e.what();
  }
  o.ffmpeg = "ffmpeg";
  o.width = 321;
  EXPECT_THROW(VideoEncoder{o}, RenderError);
}

TEST(VideoEncoder, FfmpegFailureIsReportedNotHung) {
  VideoOptions o;
  o.file = "/nonexistent-dir/x.mp4";  // ffmpeg cannot open it and exits
  o.width = 64;
  o.height = 48;
  VideoEncoder e(o);
  Image frame{64, 48, std::vector<std::uint8_t>(64 * 48 * 3, 128)};
  for (int k = 0; k < 200 && e.write(frame); ++k) {
  }
  EXPECT_FALSE(e.finish());
  EXPECT_NE(e.error().find("ffmpeg"), std::string::npos) << e.error();
}

/// rbsim-cli render, end to end.
class RenderCli : public test::SceneDir {
 protected:
  static std::string scene(const std::string& name) {
    return std::string("'") + RBS_SOURCE_DIR + "/scenes/" + name + "'";
  }
  std::string probe(const std::filesystem::path& file) const {
    const auto out = dir_ / "probe.txt";
    const std::string cmd = "ffprobe -v error -select_streams v:0 -count_frames -show_entries "
                            "stream=codec_name,width,height,nb_read_frames,pix_fmt -of default=nw=1 '" +
                            file.string() + "' >'" + out.string() + "' 2>&1";
    EXPECT_EQ(std::system(cmd.c_str()), 0);
    return slurp(out);
  }
};

TEST_F(RenderCli, TwoSecondVideoIsH264WithTwoFpsFrames) {
  const auto file = dir_ / "quad.mp4";
  const test::CliResult r = run("render " + scene("quadcopter_looping.yaml") + " --out '" + file.string() +
                                "' --t-end 2 --fps 12 --size 320x180 --quiet");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const std::string info = probe(file);
  EXPECT_NE(info.find("codec_name=h264"), std::string::npos) << info;
  EXPECT_NE(info.find("width=320"), std::string::npos) << info;
  EXPECT_NE(info.find("height=180"), std::string::npos) << info;
  EXPECT_NE(info.find("pix_fmt=yuv420p"), std::string::npos) << info;
  EXPECT_NE(info.find("nb_read_frames=24"), std::string::npos) << info;
}

TEST_F(RenderCli, ScreenshotAndFrames) {
  const auto png = dir_ / "shot.png";
  test::CliResult r = run("render " + scene("tricopter_suspended_load.yaml") + " --screenshot '" + png.string() +
                          "' --at 0.5 --size 200x120 --camera follow --show frames");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  osg::ref_ptr<osg::Image> img = osgDB::readRefImageFile(png.string());
  ASSERT_TRUE(img.valid());
  EXPECT_EQ(img->s(), 200);
  const auto frames = dir_ / "frames";
  r = run("render " + scene("double_pendulum.yaml") + " --frames '" + frames.string() +
          "' --t-end 0.25 --fps 20 --size 64x48 --quiet");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  for (int k = 0; k < 5; ++k) {
    char name[32];
    std::snprintf(name, sizeof name, "frame_%06d.png", k);
    EXPECT_TRUE(std::filesystem::exists(frames / name)) << name;
  }
  EXPECT_FALSE(std::filesystem::exists(frames / "frame_000005.png"));
}

// Each overlay and each fixed camera preset changes the picture (the pictures of docs/GUI.md):
// the quadcopter from 0.5 m and 90° off at 1.5 s has a ghost apart from it, a trail, thrust
// arrows and a HUD.
TEST_F(RenderCli, EveryOverlayAndCameraPresetChangesThePicture) {
  const auto shot = [&](const std::string& name, const std::string& options) {
    const auto png = dir_ / (name + ".png");
    const test::CliResult r = run("render " + scene("quadcopter.yaml") + " --screenshot '" + png.string() +
                                  "' --at 1.5 --size 320x180 " + options);
    EXPECT_EQ(r.exit_code, 0) << name << ": " << r.err;
    osg::ref_ptr<osg::Image> img = osgDB::readRefImageFile(png.string());
    EXPECT_TRUE(img.valid()) << name;
    return img;
  };
  const auto differing = [](const osg::Image* a, const osg::Image* b) {
    if (!a || !b || a->s() != b->s() || a->t() != b->t()) return -1;
    int n = 0;
    for (int r = 0; r < a->t(); ++r)
      for (int c = 0; c < a->s(); ++c)
        n += std::memcmp(a->data(c, r), b->data(c, r), 3) != 0;
    return n;
  };
  const auto all = shot("all", "--show frames");
  for (const char* overlay : {"ground", "frames", "ghost", "trails", "forces", "hud"}) {
    const auto without = shot(std::string("no_") + overlay, std::string("--show frames --hide ") + overlay);
    EXPECT_GT(differing(all.get(), without.get()), 30) << "hiding " << overlay << " changes nothing";
  }
  const auto scene_camera = shot("scene", "");
  for (const char* camera : {"fit", "front", "side", "top", "iso"}) {
    const auto preset = shot(camera, std::string("--camera ") + camera);
    EXPECT_GT(differing(scene_camera.get(), preset.get()), 320 * 180 / 20) << "camera " << camera;
  }
}

// A scripted push is drawn in the video as a magenta arrow while it acts (4 N along y from t = 4 s
// for 0.3 s in scenes/quadcopter_looping_push.yaml), and not before. Seen from the side (the
// scene's own camera looks along y, where the arrow would be a dot), following the vehicle.
TEST_F(RenderCli, AScriptedPushIsDrawnWhileItActs) {
  const auto magenta = [&](const std::string& at) {
    const auto png = dir_ / ("push_" + at + ".png");
    const test::CliResult r = run("render " + scene("quadcopter_looping_push.yaml") + " --screenshot '" + png.string() +
                                  "' --at " + at + " --size 480x270 --set camera.mode=follow --set camera.target=base" +
                                  " --set camera.distance=1.5 --set camera.azimuth=0 --set camera.elevation=0.3");
    EXPECT_EQ(r.exit_code, 0) << r.err;
    osg::ref_ptr<osg::Image> img = osgDB::readRefImageFile(png.string());
    if (!img.valid()) return -1;
    int n = 0;
    for (int row = 0; row < img->t(); ++row)
      for (int c = 0; c < img->s(); ++c) {
        const unsigned char* p = img->data(c, row);
        n += p[0] > 120 && p[1] < 90 && p[2] > 70 && p[2] > p[1] + 40;  // the push arrow's hue
      }
    return n;
  };
  const int before = magenta("3.9"), during = magenta("4.15");
  EXPECT_LT(before, 5);
  EXPECT_GT(during, 40) << "before: " << before;
  RecordProperty("push_arrow_pixels", std::to_string(during));
}

TEST_F(RenderCli, BadInputIsAClearMessageWithExitTwo) {
  const std::string quad = scene("quadcopter_looping.yaml");
  struct Case {
    std::string args, message;
  };
  const Case cases[] = {
      {"--out " + (dir_ / "a.mp4").string() + " --camera nowhere", "unknown camera 'nowhere'"},
      {"--out " + (dir_ / "a.mp4").string() + " --camera follow:nobody", "no body named 'nobody'"},
      {"--out " + (dir_ / "a.mp4").string() + " --size 1280", "--size"},
      {"--out " + (dir_ / "a.mp4").string() + " --size 321x240", "even width and height"},
      {"--out /nonexistent-dir/a.mp4", "cannot write '/nonexistent-dir/a.mp4'"},
      {"--out " + (dir_ / "a.avi").string(), ".mp4"},
      {"--screenshot " + (dir_ / "a.png").string() + " --out " + (dir_ / "a.mp4").string(), "exactly one"},
      {"--out " + (dir_ / "a.mp4").string() + " --hide clouds", "unknown overlay 'clouds'"},
      {"--out " + (dir_ / "a.mp4").string() + " --fps 0", "--fps"},
      {"--frames /proc/rbsim-frames", "cannot write frames"},
  };
  for (const Case& c : cases) {
    const test::CliResult r = run("render " + quad + " " + c.args);
    EXPECT_EQ(r.exit_code, 2) << c.args << "\n" << r.err;
    EXPECT_NE(r.err.find(c.message), std::string::npos) << c.args << "\n" << r.err;
  }
}

TEST_F(RenderCli, MissingFfmpegNamesThePackage) {
  // no ffmpeg on PATH (rbsim-cli is started by its absolute path)
  const std::string path = std::getenv("PATH") ? std::getenv("PATH") : "";
  ::setenv("PATH", "/nonexistent", 1);
  const test::CliResult r =
      run("render " + scene("quadcopter_looping.yaml") + " --out '" + (dir_ / "a.mp4").string() + "'");
  ::setenv("PATH", path.c_str(), 1);
  EXPECT_EQ(r.exit_code, 1) << r.err;
  EXPECT_NE(r.err.find("Debian package 'ffmpeg'"), std::string::npos) << r.err;
}

TEST_F(RenderCli, DivergingSimulationKeepsTheFramesSoFar) {
  // explicit Euler on a spinning rotation matrix without drift control: the orthogonality error
  // grows by about |ω|² dt per second and passes the bound 1e-3 at t ≈ 0.18 s
  const auto file = dir_ / "boom.mp4";
  const test::CliResult r = run("render " + scene("free_rigid_body.yaml") + " --out '" + file.string() +
                                "' --t-end 20 --fps 10 --size 64x48 --quiet --controller none "
                                "--set integrator.stepper=euler --set integrator.dt=0.001 "
                                "--set integrator.drift=none --set joint.float.initial.twist=[0,0,0,2,0,0]");
  EXPECT_EQ(r.exit_code, 1) << r.err;
  EXPECT_NE(r.err.find("coordinate drift"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("wrote the 2 frames"), std::string::npos) << r.err;
  EXPECT_NE(probe(file).find("nb_read_frames=2"), std::string::npos);
}

}  // namespace
}  // namespace rbs::render
