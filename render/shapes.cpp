#include "render/shapes.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <functional>
#include <iostream>
#include <iterator>
#include <sstream>
#include <thread>
#include <vector>

#include <unistd.h>

#include <osg/BlendFunc>
#include <osg/ComputeBoundsVisitor>
#include <osg/CullFace>
#include <osg/FrontFace>
#include <osg/Depth>
#include <osg/Geometry>
#include <osg/Image>
#include <osg/LineWidth>
#include <osg/Notify>
#include <osg/PolygonOffset>
#include <osg/ShapeDrawable>
#include <osg/Texture>
#include <osgDB/Options>
#include <osgDB/ReadFile>
#include <osgDB/Registry>

#include "render/collada_text.h"
#include "render/pose_conversion.h"

namespace rbs::render {

namespace {

/// Render bins (drawn in ascending order): sky first, opaque, transparent, overlays.
constexpr int kSkyBin = -100;
constexpr int kTransparentBin = 10;

/// What a reader printed, as one line for a warning: its first two messages and how many more.
/// The COLLADA DOM's notes on attributes its schema does not model ("unable to create an attribute
/// xmlns:xsi … Probably a schema violation", 83 of the files of a public robot collection) say
/// nothing about the mesh and are left out.
std::string summarizeReaderOutput(const std::string& output) {
  std::vector<std::string> messages;
  std::istringstream lines(output);
  for (std::string line; std::getline(lines, line);) {
    line.erase(0, line.find_first_not_of(" \t\r"));
    line.erase(line.find_last_not_of(" \t\r") + 1);
    if (line.empty() || line.find("unable to create an attribute") != std::string::npos ||
        line == "Probably a schema violation.")
      continue;
    if (std::find(messages.begin(), messages.end(), line) == messages.end()) messages.push_back(line);
  }
  std::string summary;
  for (std::size_t i = 0; i < std::min<std::size_t>(messages.size(), 2); ++i)
    summary += (i ? "; " : "") + messages[i];
  if (messages.size() > 2) summary += " (and " + std::to_string(messages.size() - 2) + " more)";
  return summary;
}

/// Reads a mesh with what the third-party readers print on stdout and stderr (the COLLADA DOM
/// writes "Failed to resolve …" to stdout, which rbsim-cli keeps for results) caught in `said`
/// (summarizeReaderOutput), to go into the mesh's warning: descriptors 1 and 2 point at a
/// temporary file while the reader runs.
osg::ref_ptr<osg::Node> readMeshQuietly(const std::string& file, const osgDB::Options* options, std::string& said) {
  std::cout.flush();
  std::cerr.flush();
  std::fflush(stdout);
  std::fflush(stderr);
  FILE* caught = std::tmpfile();
  const int saved_out = caught ? ::dup(1) : -1, saved_err = caught ? ::dup(2) : -1;
  const bool redirected = saved_out >= 0 && saved_err >= 0;
  if (redirected) {
    ::dup2(::fileno(caught), 1);
    ::dup2(::fileno(caught), 2);
  }
  osg::ref_ptr<osg::Node> node = osgDB::readRefNodeFile(file, options);
  std::cout.flush();
  std::cerr.flush();
  std::fflush(stdout);
  std::fflush(stderr);
  if (redirected) {
    ::dup2(saved_out, 1);
    ::dup2(saved_err, 2);
  }
  for (const int fd : {saved_out, saved_err})
    if (fd >= 0) ::close(fd);
  if (caught) {
    std::string output;
    std::rewind(caught);
    char buffer[4096];
    for (std::size_t n; (n = std::fread(buffer, 1, sizeof buffer, caught)) > 0;) output.append(buffer, n);
    std::fclose(caught);
    said = summarizeReaderOutput(output);
  }
  return node;
}

/// The longest side a mesh's texture keeps [texels]. Robot meshes come with textures drawn for
/// close-ups (ANYmal C: 17 of 2048² for 17 parts); a part takes at most a few hundred pixels of
/// the view, where 1024 texels still sample finer than the screen. Kept whole, they made ANYmal C's
/// screenshot peak at 0.77 GB (the image, then the driver's copy with its mipmaps).
constexpr int kMaxTextureSide = 1024;

/// Scales every texture image of a mesh down to kMaxTextureSide (aspect kept); compressed and
/// mipmapped images (DDS) are left as they are.
class TextureLimiter : public osg::NodeVisitor {
 public:
  TextureLimiter() : osg::NodeVisitor(TRAVERSE_ALL_CHILDREN) {}
  void apply(osg::Node& node) override {
    limit(node.getStateSet());
    traverse(node);
  }
  void apply(osg::Drawable& drawable) override { limit(drawable.getStateSet()); }

 private:
  static void limit(osg::StateSet* state) {
    if (!state) return;
    for (unsigned unit = 0; unit < state->getTextureAttributeList().size(); ++unit) {
      auto* texture = dynamic_cast<osg::Texture*>(state->getTextureAttribute(unit, osg::StateAttribute::TEXTURE));
      for (unsigned i = 0; texture && i < texture->getNumImages(); ++i) shrink(texture->getImage(i));
    }
  }
  static void shrink(osg::Image* image) {
    if (!image || !image->data() || image->isCompressed() || image->isMipmap() || image->r() > 1) return;
    const int longest = std::max(image->s(), image->t());
    if (longest <= kMaxTextureSide) return;
    const double scale = static_cast<double>(kMaxTextureSide) / longest;
    image->scaleImage(std::max(1, static_cast<int>(std::lround(image->s() * scale))),
                      std::max(1, static_cast<int>(std::lround(image->t() * scale))), 1);
  }
};

/// Reads a COLLADA file and tells its `<up_axis>` and `<unit meter>`. A file with non-ASCII bytes (ids named after
/// the parts in Chinese: a Go1's meshes) is read from a copy with ASCII ids (withAsciiIds), under
/// one name per file and thread so that the object cache shares it between a robot's legs.
osg::ref_ptr<osg::Node> readCollada(const std::filesystem::path& file, const osgDB::Options* options,
                                    std::string& up_axis, double& unit_meter, std::string& said) {
  std::ifstream in(file, std::ios::binary);
  const std::string document((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  up_axis = colladaUpAxis(document);
  unit_meter = colladaUnitMeter(document);
  if (!hasNonAsciiBytes(document)) return readMeshQuietly(file.string(), options, said);
  const std::size_t key =
      std::hash<std::string>{}(file.string()) ^ std::hash<std::thread::id>{}(std::this_thread::get_id());
  const std::string name = "rbsim-" + std::to_string(::getpid()) + "-" + std::to_string(key) + ".dae";
  const std::filesystem::path copy = std::filesystem::temp_directory_path() / name;
  if (osg::ref_ptr<osg::Object> cached = osgDB::Registry::instance()->getRefFromObjectCache(copy.string()))
    if (osg::Node* node = dynamic_cast<osg::Node*>(cached.get())) return node;
  std::ofstream(copy, std::ios::binary) << withAsciiIds(document, file.parent_path());
  osg::ref_ptr<osg::Node> node =
      readMeshQuietly(std::filesystem::exists(copy) ? copy.string() : file.string(), options, said);
  std::error_code ignored;
  std::filesystem::remove(copy, ignored);
  return node;
}

void makeTranslucent(osg::StateSet& state) {
  state.setMode(GL_BLEND, osg::StateAttribute::ON);
  state.setAttributeAndModes(new osg::BlendFunc(GL_SRC_ALPHA, GL_ONE_MINUS_SRC_ALPHA));
  state.setAttributeAndModes(new osg::Depth(osg::Depth::LESS, 0.0, 1.0, false));
  state.setRenderingHint(osg::StateSet::TRANSPARENT_BIN);
  state.setRenderBinDetails(kTransparentBin, "DepthSortedBin");
}

osg::ref_ptr<osg::Drawable> shapeDrawable(osg::Shape* shape) {
  osg::ref_ptr<osg::TessellationHints> hints = new osg::TessellationHints;
  hints->setDetailRatio(1.5f);
  osg::ref_ptr<osg::ShapeDrawable> d = new osg::ShapeDrawable(shape, hints.get());
  return d;
}

/// The side of the magenta box drawn for a mesh that cannot be read [m].
constexpr float kMissingMeshBox = 0.05f;

/// The magenta box's sphere at the visual's origin (what is drawn, not the mesh's scale factor).
Bounds missingMeshExtent(const Visual& v) {
  Bounds b;
  b.expand(v.origin.r, 0.5 * std::sqrt(3.0) * kMissingMeshBox);
  return b;
}

osg::ref_ptr<osg::Node> missingMeshBox() {
  osg::ref_ptr<osg::Geode> g = new osg::Geode;
  g->addDrawable(shapeDrawable(new osg::Box(osg::Vec3(), kMissingMeshBox)));
  applyMaterial(*g->getOrCreateStateSet(), osg::Vec4(1.0f, 0.0f, 1.0f, 1.0f));
  return g;
}

}  // namespace

void applyMaterial(osg::StateSet& state, const osg::Vec4& rgba) {
  osg::ref_ptr<osg::Material> m = new osg::Material;
  m->setColorMode(osg::Material::OFF);
  const osg::Vec4 ambient(rgba.r() * 0.45f, rgba.g() * 0.45f, rgba.b() * 0.45f, rgba.a());
  m->setAmbient(osg::Material::FRONT_AND_BACK, ambient);
  m->setDiffuse(osg::Material::FRONT_AND_BACK, rgba);
  m->setSpecular(osg::Material::FRONT_AND_BACK, osg::Vec4(0.25f, 0.25f, 0.25f, 1.0f));
  m->setShininess(osg::Material::FRONT_AND_BACK, 40.0f);
  state.setAttributeAndModes(m.get());
  if (rgba.a() < 1.0f) makeTranslucent(state);
}

osg::ref_ptr<osg::Node> makeVisualNode(const Visual& v, const std::filesystem::path& assets_dir,
                                       std::string& warning, Bounds* extent) {
  osg::ref_ptr<osg::MatrixTransform> placed = new osg::MatrixTransform(toOsg(v.origin));
  const float sx = static_cast<float>(v.size[0]);
  const float sy = static_cast<float>(v.size[1]);
  const float sz = static_cast<float>(v.size[2]);
  osg::ref_ptr<osg::Geode> geode = new osg::Geode;
  switch (v.shape) {
    case Visual::Shape::Box:
      geode->addDrawable(shapeDrawable(new osg::Box(osg::Vec3(), sx, sy, sz)));
      break;
    case Visual::Shape::Cylinder:
      geode->addDrawable(shapeDrawable(new osg::Cylinder(osg::Vec3(), sx, sy)));
      break;
    case Visual::Shape::Capsule:
      geode->addDrawable(shapeDrawable(new osg::Capsule(osg::Vec3(), sx, sy)));
      break;
    case Visual::Shape::Sphere:
      geode->addDrawable(shapeDrawable(new osg::Sphere(osg::Vec3(), sx)));
      break;
    case Visual::Shape::Mesh: {
      const std::filesystem::path file = assets_dir / v.mesh_file;
      // OSG's OBJ reader warns about every face group without a material (ours take the
      // visual's colour); failures are reported below
      const osg::NotifySeverity level = osg::getNotifyLevel();
      osg::setNotifyLevel(osg::FATAL);
      // OSG's OBJ reader turns the mesh by +90° about x (y-up files to z-up) unless told not to;
      // URDF and the tools beside it (RViz, Gazebo) take the file's coordinates as they are, as
      // every other format here does.
      std::string extension = file.extension().string();
      std::transform(extension.begin(), extension.end(), extension.begin(),
                     [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
      osg::ref_ptr<osgDB::Options> options = new osgDB::Options(extension == ".obj" ? "noRotation" : "");
      // A robot uses one mesh file (and its textures) for each of its legs or fingers: read once,
      // shared (ANYmal C, 17 textures of 2048²: 1.66 GB → 0.74 GB, half the time). The scene graph
      // empties the cache when it is built (SceneGraph::buildVisuals).
      options->setObjectCacheHint(osgDB::Options::CACHE_ALL);
      std::string up_axis, said;
      double unit_meter = 1.0;
      osg::ref_ptr<osg::Node> mesh = extension == ".dae" ? readCollada(file, options.get(), up_axis, unit_meter, said)
                                                         : readMeshQuietly(file.string(), options.get(), said);
      const std::string reader_said = said.empty() ? "" : " (the reader: " + said + ")";
      if (mesh) {
        TextureLimiter limiter;
        mesh->accept(limiter);
      }
      osg::setNotifyLevel(level);
      if (!mesh) {
        warning = "cannot read mesh '" + file.string() + "'" + reader_said + "; drawn as a magenta box";
        placed->addChild(missingMeshBox());
        if (extent) *extent = missingMeshExtent(v);
        return placed;
      }
      // OSG's COLLADA reader turns a Y_UP file by +90° about x and an X_UP one by +90° about y, to
      // z up. RViz ignores <up_axis> and draws the file's coordinates as they are, and robot
      // packages are made to look right there (Baxter's torso, a Y_UP export, stands upright in
      // RViz and lay on its back here): the turn is undone.
      // Its <unit meter> it leaves to the application; RViz's mesh loader rescales by it (as
      // Gazebo's does), so coordinates written in millimetres come out in metres.
      if (up_axis == "Y_UP" || up_axis == "X_UP" || unit_meter != 1.0) {
        osg::Matrixd undo = osg::Matrixd::scale(unit_meter, unit_meter, unit_meter);
        if (up_axis == "Y_UP" || up_axis == "X_UP")
          undo = osg::Matrixd::rotate(-0.5 * M_PI, up_axis == "Y_UP" ? osg::Vec3d(1, 0, 0) : osg::Vec3d(0, 1, 0)) *
                 undo;
        osg::ref_ptr<osg::MatrixTransform> placed_in_metres = new osg::MatrixTransform(undo);
        placed_in_metres->addChild(mesh);
        mesh = placed_in_metres;
      }
      // A file the reader opens but takes nothing from (a COLLADA file whose references do not
      // resolve) would be an invisible body.
      osg::ComputeBoundsVisitor bounds;
      mesh->accept(bounds);
      if (!bounds.getBoundingBox().valid()) {
        warning = "mesh '" + file.string() + "' has no geometry the reader could take" + reader_said +
                  "; drawn as a magenta box";
        placed->addChild(missingMeshBox());
        if (extent) *extent = missingMeshExtent(v);
        return placed;
      }
      // drawn, but the reader had something to say (a part whose reference does not resolve)
      if (!said.empty()) warning = "mesh '" + file.string() + "' is drawn as read, but the reader said: " + said;
      if (extent) {
        const osg::BoundingBox& box = bounds.getBoundingBox();
        const Vec3 lo(box.xMin(), box.yMin(), box.zMin()), hi(box.xMax(), box.yMax(), box.zMax());
        *extent = Bounds{};
        const Vec3 centre = v.origin * Vec3(v.size.cwiseProduct(0.5 * (lo + hi)));
        extent->expand(centre, 0.5 * v.size.cwiseProduct(hi - lo).norm());
      }
      osg::ref_ptr<osg::MatrixTransform> scaled =
          new osg::MatrixTransform(osg::Matrixd::scale(v.size[0], v.size[1], v.size[2]));
      scaled->getOrCreateStateSet()->setMode(GL_NORMALIZE, osg::StateAttribute::ON);
      // A negative scale mirrors the mesh, which reverses its triangles' winding on screen: their
      // front faces would count as back faces, and the two-sided lighting model would light them
      // with the reversed normal (dark where lit). Clockwise front faces undo the reversal; the
      // normals themselves are mirrored correctly by the inverse transpose.
      if (v.size.prod() < 0.0)
        scaled->getOrCreateStateSet()->setAttributeAndModes(new osg::FrontFace(osg::FrontFace::CLOCKWISE));
      scaled->addChild(mesh);
      applyMaterial(*scaled->getOrCreateStateSet(), toOsgColor(v.color));
      placed->addChild(scaled);
      return placed;
    }
  }
  applyMaterial(*geode->getOrCreateStateSet(), toOsgColor(v.color));
  placed->addChild(geode);
  return placed;
}

osg::ref_ptr<osg::Geode> makeAxes(double length) {
  osg::ref_ptr<osg::Geometry> g = new osg::Geometry;
  osg::ref_ptr<osg::Vec3Array> v = new osg::Vec3Array;
  osg::ref_ptr<osg::Vec4Array> c = new osg::Vec4Array;
  const float l = static_cast<float>(length);
  const osg::Vec4 colors[3] = {{0.9f, 0.1f, 0.1f, 1.0f}, {0.1f, 0.75f, 0.1f, 1.0f},
                               {0.15f, 0.3f, 1.0f, 1.0f}};
  for (int i = 0; i < 3; ++i) {
    osg::Vec3 tip;
    tip[i] = l;
    v->push_back(osg::Vec3());
    v->push_back(tip);
    c->push_back(colors[i]);
    c->push_back(colors[i]);
  }
  g->setVertexArray(v.get());
  g->setColorArray(c.get(), osg::Array::BIND_PER_VERTEX);
  g->addPrimitiveSet(new osg::DrawArrays(GL_LINES, 0, 6));
  osg::ref_ptr<osg::Geode> geode = new osg::Geode;
  geode->addDrawable(g.get());
  osg::StateSet* s = geode->getOrCreateStateSet();
  s->setMode(GL_LIGHTING, osg::StateAttribute::OFF | osg::StateAttribute::PROTECTED);
  s->setAttributeAndModes(new osg::LineWidth(2.5f));
  return geode;
}

ArrowParts makeArrow(double shaft_radius, const osg::Vec4& rgba) {
  ArrowParts a;
  const float r = static_cast<float>(shaft_radius);
  a.head_length = 4.0 * shaft_radius;
  a.root = new osg::MatrixTransform;
  a.shaft = new osg::MatrixTransform;
  a.head = new osg::MatrixTransform;
  osg::ref_ptr<osg::Geode> shaft = new osg::Geode;
  shaft->addDrawable(shapeDrawable(new osg::Cylinder(osg::Vec3(0.0f, 0.0f, 0.5f), r, 1.0f)));
  osg::ref_ptr<osg::Geode> head = new osg::Geode;
  // osg::Cone's centre is a quarter of its height above the base
  const float h = static_cast<float>(a.head_length);
  head->addDrawable(shapeDrawable(new osg::Cone(osg::Vec3(0.0f, 0.0f, 0.25f * h), 2.2f * r, h)));
  a.shaft->addChild(shaft);
  a.head->addChild(head);
  a.root->addChild(a.shaft);
  a.root->addChild(a.head);
  osg::StateSet* s = a.root->getOrCreateStateSet();
  applyMaterial(*s, rgba);
  s->setMode(GL_NORMALIZE, osg::StateAttribute::ON);  // the shaft is scaled
  return a;
}

osg::ref_ptr<osg::Node> makeGround(double z, double extent, double spacing, int major_every) {
  osg::ref_ptr<osg::Geode> geode = new osg::Geode;
  const float fz = static_cast<float>(z);
  const float e = static_cast<float>(extent);

  // the disc: opaque in the middle, fading out towards the rim
  {
    osg::ref_ptr<osg::Geometry> g = new osg::Geometry;
    osg::ref_ptr<osg::Vec3Array> v = new osg::Vec3Array;
    osg::ref_ptr<osg::Vec4Array> c = new osg::Vec4Array;
    const osg::Vec4 ground(0.80f, 0.81f, 0.80f, 1.0f);
    constexpr int kRings = 3;
    constexpr int kSegments = 96;
    const float ring_radius[kRings + 1] = {0.0f, 0.35f * e, 0.7f * e, e};
    const float ring_alpha[kRings + 1] = {1.0f, 1.0f, 0.8f, 0.0f};
    for (int ring = 0; ring < kRings; ++ring) {
      const GLint first = static_cast<GLint>(v->size());
      for (int k = 0; k <= kSegments; ++k) {
        const float a = 2.0f * static_cast<float>(M_PI) * static_cast<float>(k) / kSegments;
        for (int side = 1; side >= 0; --side) {
          const float rr = ring_radius[ring + side];
          v->push_back(osg::Vec3(rr * std::cos(a), rr * std::sin(a), fz));
          osg::Vec4 col = ground;
          col.a() = ring_alpha[ring + side];
          c->push_back(col);
        }
      }
      g->addPrimitiveSet(new osg::DrawArrays(GL_TRIANGLE_STRIP, first, 2 * (kSegments + 1)));
    }
    g->setVertexArray(v.get());
    g->setColorArray(c.get(), osg::Array::BIND_PER_VERTEX);
    // push the disc behind the grid lines drawn at the same height
    g->getOrCreateStateSet()->setAttributeAndModes(new osg::PolygonOffset(1.0f, 1.0f));
    geode->addDrawable(g.get());
  }

  // the grid lines, fading out like the disc
  {
    osg::ref_ptr<osg::Geometry> g = new osg::Geometry;
    osg::ref_ptr<osg::Vec3Array> v = new osg::Vec3Array;
    osg::ref_ptr<osg::Vec4Array> c = new osg::Vec4Array;
    const int n = static_cast<int>(std::floor(extent / spacing));
    for (int i = -n; i <= n; ++i) {
      const float p = static_cast<float>(i * spacing);
      const bool major = i % major_every == 0;
      const float strength = major ? 0.55f : 0.25f;
      const float half = std::sqrt(std::max(0.0f, e * e - p * p));  // clip to the disc
      for (int axis = 0; axis < 2; ++axis) {
        // three vertices per line: transparent ends, opaque middle
        for (int k = -1; k <= 1; ++k) {
          const float q = static_cast<float>(k) * half;
          v->push_back(axis == 0 ? osg::Vec3(p, q, fz) : osg::Vec3(q, p, fz));
          const float fade = 1.0f - std::sqrt(p * p + q * q) / e;
          c->push_back(osg::Vec4(0.35f, 0.37f, 0.4f, strength * std::max(0.0f, fade)));
          if (k == 0) {  // the middle vertex also starts the second segment
            v->push_back(v->back());
            c->push_back(c->back());
          }
        }
      }
    }
    g->setVertexArray(v.get());
    g->setColorArray(c.get(), osg::Array::BIND_PER_VERTEX);
    g->addPrimitiveSet(new osg::DrawArrays(GL_LINES, 0, static_cast<GLsizei>(v->size())));
    g->getOrCreateStateSet()->setAttributeAndModes(new osg::LineWidth(1.0f));
    geode->addDrawable(g.get());
  }

  osg::StateSet* s = geode->getOrCreateStateSet();
  s->setMode(GL_LIGHTING, osg::StateAttribute::OFF | osg::StateAttribute::PROTECTED);
  s->setMode(GL_CULL_FACE, osg::StateAttribute::OFF);
  s->setMode(GL_BLEND, osg::StateAttribute::ON);
  s->setAttributeAndModes(new osg::BlendFunc(GL_SRC_ALPHA, GL_ONE_MINUS_SRC_ALPHA));
  // drawn after the opaque bodies (in the default bin 0, before the transparent bin), writing
  // depth so that translucent things above it blend correctly
  s->setRenderBinDetails(1, "RenderBin");
  return geode;
}

osg::ref_ptr<osg::Camera> makeSky(const osg::Vec4& top, const osg::Vec4& horizon) {
  osg::ref_ptr<osg::Camera> cam = new osg::Camera;
  cam->setReferenceFrame(osg::Transform::ABSOLUTE_RF);
  cam->setRenderOrder(osg::Camera::NESTED_RENDER);
  cam->setProjectionMatrix(osg::Matrixd::ortho2D(0.0, 1.0, 0.0, 1.0));
  cam->setViewMatrix(osg::Matrixd::identity());
  cam->setClearMask(0);
  cam->setAllowEventFocus(false);
  cam->setCullingActive(false);

  osg::ref_ptr<osg::Geometry> g = new osg::Geometry;
  osg::ref_ptr<osg::Vec3Array> v = new osg::Vec3Array;
  v->push_back(osg::Vec3(0.0f, 0.0f, 0.0f));
  v->push_back(osg::Vec3(1.0f, 0.0f, 0.0f));
  v->push_back(osg::Vec3(1.0f, 1.0f, 0.0f));
  v->push_back(osg::Vec3(0.0f, 1.0f, 0.0f));
  osg::ref_ptr<osg::Vec4Array> c = new osg::Vec4Array;
  c->push_back(horizon);
  c->push_back(horizon);
  c->push_back(top);
  c->push_back(top);
  g->setVertexArray(v.get());
  g->setColorArray(c.get(), osg::Array::BIND_PER_VERTEX);
  g->addPrimitiveSet(new osg::DrawArrays(GL_QUADS, 0, 4));
  g->setCullingActive(false);
  osg::ref_ptr<osg::Geode> geode = new osg::Geode;
  geode->addDrawable(g.get());
  geode->setCullingActive(false);
  osg::StateSet* s = geode->getOrCreateStateSet();
  s->setMode(GL_LIGHTING, osg::StateAttribute::OFF | osg::StateAttribute::PROTECTED);
  s->setMode(GL_DEPTH_TEST, osg::StateAttribute::OFF | osg::StateAttribute::PROTECTED);
  s->setAttributeAndModes(new osg::Depth(osg::Depth::ALWAYS, 0.0, 1.0, false));
  s->setRenderBinDetails(kSkyBin, "RenderBin");
  cam->addChild(geode);
  return cam;
}

}  // namespace rbs::render
