#include "render/scene_graph.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <cstdio>
#include <cstdlib>
#include <stdexcept>

#include <osg/BlendFunc>
#include <osg/ComputeBoundsVisitor>
#include <osg/Depth>
#include <osg/Light>
#include <osg/LightModel>
#include <osg/LightSource>
#include <osg/LineWidth>
#include <osg/Material>
#include <osgText/Font>
#include <osgUtil/IntersectionVisitor>
#include <osgUtil/LineSegmentIntersector>
#include <osgDB/Registry>

#include "core/dynamics/snapshot.h"
#include "core/io/resource_path.h"
#include "render/pose_conversion.h"


namespace rbs::render {

namespace {

constexpr int kHudBin = 1000;
/// OpenGL light numbers of the sun and the fill light (0 is left to a viewer's headlight).
constexpr int kSunLight = 1;
constexpr int kFillLight = 2;
/// The font of the HUD (Debian fonts-dejavu-core); OSG's built-in font when it is missing.
constexpr const char* kHudFont = "/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf";

int index(Overlay o) { return static_cast<int>(o); }

const osg::Vec4 kTrailColors[] = {{0.95f, 0.45f, 0.05f, 1.0f}, {0.55f, 0.2f, 0.8f, 1.0f},
                                  {0.0f, 0.6f, 0.6f, 1.0f},    {0.85f, 0.1f, 0.4f, 1.0f},
                                  {0.2f, 0.5f, 0.1f, 1.0f}};

osg::ref_ptr<osgText::Text> hudText(osgText::Font* font, osgText::Text::AlignmentType align) {
  osg::ref_ptr<osgText::Text> t = new osgText::Text;
  if (font) t->setFont(font);
  t->setFontResolution(64, 64);
  t->setAlignment(align);
  t->setColor(osg::Vec4(1.0f, 1.0f, 1.0f, 1.0f));
  t->setDrawMode(osgText::Text::TEXT | osgText::Text::FILLEDBOUNDINGBOX);
  t->setBoundingBoxColor(osg::Vec4(0.05f, 0.07f, 0.1f, 0.55f));
  t->setDataVariance(osg::Object::DYNAMIC);
  return t;
}

std::string format(const char* fmt, double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, fmt, v);
  return buf;
}

}  // namespace

std::string overlayName(Overlay o) {
  switch (o) {
    case Overlay::Ground: return "ground";
    case Overlay::BodyFrames: return "frames";
    case Overlay::ReferenceGhost: return "ghost";
    case Overlay::Trails: return "trails";
    case Overlay::ForceArrows: return "forces";
    case Overlay::Hud: return "hud";
  }
  return "";
}

std::optional<Overlay> overlayFromName(const std::string& name) {
  for (Overlay o : allOverlays())
    if (overlayName(o) == name) return o;
  return std::nullopt;
}

std::vector<Overlay> allOverlays() {
  return {Overlay::Ground,      Overlay::BodyFrames,  Overlay::ReferenceGhost,
          Overlay::Trails,      Overlay::ForceArrows, Overlay::Hud};
}

SceneGraph::SceneGraph(const Model& model, SceneOptions options)
    : model_(model), options_(std::move(options)) {
  root_ = new osg::Group;
  root_->setName("rbsim");
  root_->addChild(makeSky(osg::Vec4(0.46f, 0.62f, 0.80f, 1.0f), osg::Vec4(0.90f, 0.92f, 0.94f, 1.0f)));
  root_->getChild(0)->setName("sky");
  buildLights();
  // the visuals first: what the meshes measure, at the initial state, fixes the sizes of
  // everything scene-dependent
  const std::vector<osg::ref_ptr<osg::Group>> visuals = buildVisuals();
  Workspace ws(model_);
  Snapshot initial;
  fillBodyPoses(model_, model_.initial_state.x, 0.0, ws, initial);
  bounds_ = sceneBounds(model_, initial.body_poses, &extents_);
  scene_size_ = std::max(bounds_.radius, 0.1);
  ground_z_ = std::min(0.0, bounds_.center.z() - bounds_.radius);
  if (ground_z_ < 0.0) ground_z_ -= 1e-3;
  buildBodies(visuals);
  buildOverlays();
  buildHud();
  buildPushLine();
  updateOverlayMasks();
  apply(initial);
  last_time_ = -1e300;  // the first real snapshot may start anywhere
  clearTrails();
}

void SceneGraph::buildLights() {
  osg::ref_ptr<osg::Group> lights = new osg::Group;
  lights->setName("lights");
  osg::StateSet* s = root_->getOrCreateStateSet();
  auto add = [&](int number, const osg::Vec4& direction, float diffuse, float specular) {
    osg::ref_ptr<osg::Light> light = new osg::Light(number);
    light->setPosition(direction);  // w = 0: directional, towards the light
    light->setAmbient(osg::Vec4(0.0f, 0.0f, 0.0f, 1.0f));
    light->setDiffuse(osg::Vec4(diffuse, diffuse, diffuse, 1.0f));
    light->setSpecular(osg::Vec4(specular, specular, specular, 1.0f));
    osg::ref_ptr<osg::LightSource> source = new osg::LightSource;
    source->setLight(light.get());
    source->setLocalStateSetModes(osg::StateAttribute::ON);
    source->setStateSetModes(*s, osg::StateAttribute::ON);
    lights->addChild(source);
  };
  add(kSunLight, osg::Vec4(0.35f, -0.45f, 0.82f, 0.0f), 0.8f, 0.45f);
  add(kFillLight, osg::Vec4(-0.5f, 0.55f, 0.25f, 0.0f), 0.3f, 0.0f);
  osg::ref_ptr<osg::LightModel> model = new osg::LightModel;
  model->setAmbientIntensity(osg::Vec4(0.38f, 0.38f, 0.40f, 1.0f));
  model->setTwoSided(true);
  s->setAttributeAndModes(model.get());
  s->setMode(GL_LIGHTING, osg::StateAttribute::ON);
  s->setMode(GL_LIGHT0, osg::StateAttribute::OFF);
  s->setMode(GL_NORMALIZE, osg::StateAttribute::ON);
  root_->addChild(lights);
}

std::vector<osg::ref_ptr<osg::Group>> SceneGraph::buildVisuals() {
  const std::filesystem::path assets = options_.assets_dir.empty() ? defaultAssetsDir() : options_.assets_dir;
  // one warning per unreadable mesh file, naming the bodies that use it
  std::map<std::string, std::vector<std::string>> unreadable;
  const int nb = model_.numBodies();
  std::vector<osg::ref_ptr<osg::Group>> out(nb);
  extents_.assign(model_.visuals.size(), Bounds{});
  for (int b = 0; b < nb; ++b) {
    const std::string& name = model_.bodies[b].name;
    out[b] = new osg::Group;
    out[b]->setName("visuals:" + name);
    for (int i = 0; i < static_cast<int>(model_.visuals.size()); ++i) {
      if (model_.visuals[i].body != b) continue;
      std::string warning;
      out[b]->addChild(makeVisualNode(model_.visuals[i], assets, warning, &extents_[i]));
      if (!warning.empty()) {
        std::vector<std::string>& users = unreadable[warning];
        if (std::find(users.begin(), users.end(), name) == users.end()) users.push_back(name);
      }
    }
  }
  for (const auto& [warning, users] : unreadable) {
    std::string names;
    for (std::size_t i = 0; i < users.size(); ++i) names += (i ? ", '" : "'") + users[i] + "'";
    warnings_.push_back(warning + " (" + (users.size() == 1 ? "body " : "bodies ") + names + ")");
  }
  // The meshes were read through osgDB's object cache (makeVisualNode: a file used by several
  // bodies is read once); what this graph holds stays, and the next scene reads its files afresh.
  osgDB::Registry::instance()->clearObjectCache();
  return out;
}

void SceneGraph::buildBodies(const std::vector<osg::ref_ptr<osg::Group>>& visuals) {
  osg::ref_ptr<osg::Group> bodies = new osg::Group;
  bodies->setName("bodies");
  osg::ref_ptr<osg::Group> frames = new osg::Group;
  osg::ref_ptr<osg::Group> ghost = new osg::Group;
  const int nb = model_.numBodies();
  for (int b = 0; b < nb; ++b) {
    const std::string& name = model_.bodies[b].name;
    // the visuals are shared by the body and its ghost
    bodies_.push_back(new osg::MatrixTransform);
    bodies_.back()->setName("body:" + name);
    bodies_.back()->addChild(visuals[b]);
    bodies->addChild(bodies_.back());

    ghosts_.push_back(new osg::MatrixTransform);
    ghosts_.back()->setName("ghost:" + name);
    ghosts_.back()->addChild(visuals[b]);
    ghost->addChild(ghosts_.back());

    const double axis = std::max(0.8 * bodyBoundsLocal(model_, b, &extents_).radius, 0.1 * scene_size_);
    frames_.push_back(new osg::MatrixTransform);
    frames_.back()->setName("frame:" + name);
    frames_.back()->addChild(makeAxes(axis));
    frames->addChild(frames_.back());
  }
  root_->addChild(bodies);
  bodies_group_ = bodies;
  overlays_[index(Overlay::BodyFrames)] = frames;
  overlays_[index(Overlay::ReferenceGhost)] = ghost;

  // the ghost: one translucent colour over every visual's own material
  osg::StateSet* s = ghost->getOrCreateStateSet();
  osg::ref_ptr<osg::Material> m = new osg::Material;
  m->setColorMode(osg::Material::OFF);
  const osg::Vec4 ghost_color(0.30f, 0.62f, 1.0f, 0.35f);
  m->setDiffuse(osg::Material::FRONT_AND_BACK, ghost_color);
  m->setAmbient(osg::Material::FRONT_AND_BACK, osg::Vec4(0.15f, 0.3f, 0.5f, 0.35f));
  m->setSpecular(osg::Material::FRONT_AND_BACK, osg::Vec4(0.0f, 0.0f, 0.0f, 1.0f));
  const auto override_on = osg::StateAttribute::ON | osg::StateAttribute::OVERRIDE;
  s->setAttributeAndModes(m.get(), override_on);
  s->setAttributeAndModes(new osg::BlendFunc(GL_SRC_ALPHA, GL_ONE_MINUS_SRC_ALPHA), override_on);
  s->setAttributeAndModes(new osg::Depth(osg::Depth::LESS, 0.0, 1.0, false), override_on);
  s->setRenderingHint(osg::StateSet::TRANSPARENT_BIN);
  s->setRenderBinDetails(11, "DepthSortedBin");
}

void SceneGraph::buildOverlays() {
  // ground: grid spacing by the size of the scene, the disc well beyond it
  const double spacing = scene_size_ <= 2.0 ? 0.25 : (scene_size_ <= 10.0 ? 1.0 : 5.0);
  const double extent = std::max(15.0, 12.0 * scene_size_);
  osg::ref_ptr<osg::Group> ground = new osg::Group;
  ground->addChild(makeGround(ground_z_, extent, spacing, 4));
  overlays_[index(Overlay::Ground)] = ground;

  // trails: by default the centre of mass of every freely flying body
  std::vector<TrailSpec> specs = options_.trails;
  if (specs.empty())
    for (int b = 0; b < model_.numBodies(); ++b) {
      const JointType t = model_.joints[b].type;
      if (isFreeType(t)) specs.push_back({b, model_.bodies[b].com});
    }
  osg::ref_ptr<osg::Geode> trail_geode = new osg::Geode;
  for (std::size_t i = 0; i < specs.size(); ++i) {
    if (specs[i].body < 0 || specs[i].body >= model_.numBodies())
      throw std::invalid_argument("trail: no body with index " + std::to_string(specs[i].body));
    Trail t;
    t.spec = specs[i];
    t.geometry = new osg::Geometry;
    t.geometry->setDataVariance(osg::Object::DYNAMIC);
    t.geometry->setUseDisplayList(false);
    t.geometry->setUseVertexBufferObjects(true);
    t.geometry->setVertexArray(new osg::Vec3Array);
    t.geometry->setColorArray(new osg::Vec4Array, osg::Array::BIND_PER_VERTEX);
    t.geometry->addPrimitiveSet(new osg::DrawArrays(GL_LINE_STRIP, 0, 0));
    t.geometry->setName("trail:" + model_.bodies[specs[i].body].name);
    t.color = static_cast<int>(i % std::size(kTrailColors));
    trail_geode->addDrawable(t.geometry.get());
    trails_.push_back(std::move(t));
  }
  osg::StateSet* ts = trail_geode->getOrCreateStateSet();
  ts->setMode(GL_LIGHTING, osg::StateAttribute::OFF | osg::StateAttribute::PROTECTED);
  ts->setMode(GL_BLEND, osg::StateAttribute::ON);
  ts->setAttributeAndModes(new osg::BlendFunc(GL_SRC_ALPHA, GL_ONE_MINUS_SRC_ALPHA));
  ts->setAttributeAndModes(new osg::LineWidth(2.5f));
  ts->setAttributeAndModes(new osg::Depth(osg::Depth::LESS, 0.0, 1.0, false));
  ts->setRenderBinDetails(9, "RenderBin");
  osg::ref_ptr<osg::Group> trails = new osg::Group;
  trails->addChild(trail_geode);
  overlays_[index(Overlay::Trails)] = trails;
  if (options_.trail_spacing <= 0.0) options_.trail_spacing = scene_size_ / 400.0;

  // force arrows: one per body-force actuator, scaled so that the vehicle's weight is 1.2 sizes
  double mass = 0.0;
  for (const Body& b : model_.bodies) mass += b.mass;
  const double g = model_.gravity.norm() > 0.0 ? model_.gravity.norm() : 9.81;
  if (options_.force_scale <= 0.0) options_.force_scale = 1.2 * scene_size_ / std::max(mass * g, 1e-6);
  osg::ref_ptr<osg::Group> forces = new osg::Group;
  const double shaft_radius = std::max(0.02 * scene_size_, 0.002);
  for (int i = 0; i < model_.numInputs(); ++i) {
    if (model_.actuators[i].kind != ActuatorKind::BodyForce) continue;
    Arrow a{i, makeArrow(shaft_radius, osg::Vec4(1.0f, 0.55f, 0.05f, 1.0f))};
    a.parts.root->setName("force:" + model_.actuators[i].name);
    a.parts.root->setNodeMask(0);
    forces->addChild(a.parts.root);
    arrows_.push_back(std::move(a));
  }
  for (int p = 0; p < static_cast<int>(model_.propellers.size()); ++p) {  // thrust κ_F ϖ² (5.3)
    Arrow a{propellerForceIndex(model_, p), makeArrow(shaft_radius, osg::Vec4(1.0f, 0.55f, 0.05f, 1.0f))};
    a.parts.root->setName("force:" + model_.propellers[p].name);
    a.parts.root->setNodeMask(0);
    forces->addChild(a.parts.root);
    arrows_.push_back(std::move(a));
  }
  for (int k = 0; k < 4; ++k) {  // pushes (Snapshot::pushes): more than four at once are rare
    push_arrows_.push_back(makeArrow(shaft_radius, osg::Vec4(0.85f, 0.1f, 0.55f, 1.0f)));
    push_arrows_.back().root->setName("push:" + std::to_string(k));
    push_arrows_.back().root->setNodeMask(0);
    forces->addChild(push_arrows_.back().root);
  }
  overlays_[index(Overlay::ForceArrows)] = forces;

  const char* names[] = {"overlay:ground", "overlay:frames", "overlay:ghost",
                         "overlay:trails", "overlay:forces"};
  for (int i = 0; i < 5; ++i) {
    overlays_[i]->setName(names[i]);
    root_->addChild(overlays_[i]);
  }
}

void SceneGraph::buildHud() {
  hud_camera_ = new osg::Camera;
  hud_camera_->setName("overlay:hud");
  hud_camera_->setReferenceFrame(osg::Transform::ABSOLUTE_RF);
  hud_camera_->setRenderOrder(osg::Camera::NESTED_RENDER);
  hud_camera_->setViewMatrix(osg::Matrixd::identity());
  hud_camera_->setClearMask(0);
  hud_camera_->setAllowEventFocus(false);
  osg::ref_ptr<osgText::Font> font;
  if (std::filesystem::exists(kHudFont)) font = osgText::readRefFontFile(kHudFont);
  hud_title_ = hudText(font.get(), osgText::Text::LEFT_TOP);
  hud_time_ = hudText(font.get(), osgText::Text::LEFT_BOTTOM);
  hud_rate_ = hudText(font.get(), osgText::Text::RIGHT_BOTTOM);
  hud_status_ = hudText(font.get(), osgText::Text::RIGHT_TOP);
  hud_title_->setName("hud:title");
  hud_time_->setName("hud:time");
  hud_rate_->setName("hud:rate");
  hud_status_->setName("hud:status");
  osg::ref_ptr<osg::Geode> geode = new osg::Geode;
  for (osgText::Text* t : {hud_title_.get(), hud_time_.get(), hud_rate_.get(), hud_status_.get()})
    geode->addDrawable(t);
  osg::StateSet* s = geode->getOrCreateStateSet();
  s->setMode(GL_LIGHTING, osg::StateAttribute::OFF | osg::StateAttribute::PROTECTED);
  s->setMode(GL_DEPTH_TEST, osg::StateAttribute::OFF | osg::StateAttribute::PROTECTED);
  s->setMode(GL_BLEND, osg::StateAttribute::ON);
  s->setRenderBinDetails(kHudBin, "RenderBin");
  hud_camera_->addChild(geode);
  overlays_[index(Overlay::Hud)] = hud_camera_;
  root_->addChild(hud_camera_);
  setViewportSize(1280, 720);
  HudInfo info;
  info.scene_name = options_.scene_name;
  setHud(info);
}

void SceneGraph::setViewportSize(int width, int height) {
  const float w = static_cast<float>(std::max(width, 1));
  const float h = static_cast<float>(std::max(height, 1));
  hud_camera_->setProjectionMatrix(osg::Matrixd::ortho2D(0.0, w, 0.0, h));
  // From the height, but narrow views shrink the text too so that four corners still fit.
  const float size = std::max(9.0f, std::min(h / 32.0f, w / 40.0f));
  const float margin = 0.6f * size;
  hud_width_ = w;
  hud_margin_ = margin;
  hud_title_->setPosition(osg::Vec3(margin, h - margin, 0.0f));
  hud_time_->setPosition(osg::Vec3(margin, margin, 0.0f));
  hud_rate_->setPosition(osg::Vec3(w - margin, margin, 0.0f));
  hud_status_->setPosition(osg::Vec3(w - margin, h - margin, 0.0f));
  for (osgText::Text* t : {hud_title_.get(), hud_time_.get(), hud_rate_.get(), hud_status_.get()}) {
    t->setCharacterSize(size);
    t->setBoundingBoxMargin(0.3f * size);
  }
  hud_title_->setCharacterSize(1.1f * size);
  fitHudTitle();
}

void SceneGraph::fitHudTitle() {
  const osg::BoundingBox status = hud_status_->getBoundingBox();
  const float status_width = status.valid() ? status.xMax() - status.xMin() : 0.0f;
  // 0 means "no wrapping" to OSG; keep at least a few characters per line
  const float room = hud_width_ - status_width - 4.0f * hud_margin_;
  hud_title_->setMaximumWidth(std::max(room, 4.0f * hud_title_->getCharacterHeight()));
}

void SceneGraph::setHud(const HudInfo& hud) {
  // an empty line draws nothing, not even its background box (OSG keeps the old box otherwise)
  const auto set = [](osgText::Text& text, const std::string& line) {
    text.setText(line, osgText::String::ENCODING_UTF8);
    text.setDrawMode(line.empty() ? osgText::Text::TEXT : osgText::Text::TEXT | osgText::Text::FILLEDBOUNDINGBOX);
  };
  set(*hud_title_, hud.scene_name);
  set(*hud_time_, std::isfinite(hud.time) ? format("t = %.3f s", hud.time) : "");
  set(*hud_rate_, std::isfinite(hud.real_time_factor) ? format("%.2f\u00d7 real time", hud.real_time_factor) : "");
  set(*hud_status_, hud.status);
  fitHudTitle();
}

void SceneGraph::setOverlay(Overlay o, bool visible) {
  overlay_on_[index(o)] = visible;
  updateOverlayMasks();
}

bool SceneGraph::overlay(Overlay o) const { return overlay_on_[index(o)]; }

osg::Node* SceneGraph::overlayNode(Overlay o) const { return overlays_[index(o)].get(); }

void SceneGraph::updateOverlayMasks() {
  for (Overlay o : allOverlays()) {
    bool on = overlay_on_[index(o)];
    if (o == Overlay::ReferenceGhost) on = on && have_reference_;
    overlays_[index(o)]->setNodeMask(on ? ~0u : 0u);
  }
}

void SceneGraph::clearTrails() {
  for (Trail& t : trails_) {
    t.points.clear();
    redrawTrail(t);
  }
}

std::vector<int> SceneGraph::trailSizes() const {
  std::vector<int> n;
  for (const Trail& t : trails_) n.push_back(static_cast<int>(t.points.size()));
  return n;
}

void SceneGraph::addTrailPoint(Trail& trail, const Vec3& p) {
  if (!p.allFinite()) return;
  const osg::Vec3 q(static_cast<float>(p.x()), static_cast<float>(p.y()), static_cast<float>(p.z()));
  if (!trail.points.empty() && (trail.points.back() - q).length() < options_.trail_spacing) return;
  trail.points.push_back(q);
  while (static_cast<int>(trail.points.size()) > std::max(options_.trail_points, 2)) trail.points.pop_front();
}

void SceneGraph::extendTrails(std::span<const PathSample> path) {
  const int nb = model_.numBodies();
  for (const PathSample& sample : path) {
    if (static_cast<int>(sample.body_poses.size()) != nb) continue;
    if (sample.time < last_time_) clearTrails();
    else if (sample.time == last_time_) continue;  // drawn with the frame at that instant
    last_time_ = sample.time;
    for (Trail& t : trails_) addTrailPoint(t, sample.body_poses[t.spec.body] * t.spec.point);
  }
  if (!path.empty())
    for (Trail& t : trails_) redrawTrail(t);
}

void SceneGraph::redrawTrail(Trail& trail) {
  auto* v = static_cast<osg::Vec3Array*>(trail.geometry->getVertexArray());
  auto* c = static_cast<osg::Vec4Array*>(trail.geometry->getColorArray());
  const osg::Vec4 color = kTrailColors[trail.color];
  const std::size_t n = trail.points.size();
  v->assign(trail.points.begin(), trail.points.end());
  c->resize(n);
  for (std::size_t i = 0; i < n; ++i) {
    // oldest transparent, newest opaque
    const float a = n > 1 ? static_cast<float>(i) / static_cast<float>(n - 1) : 1.0f;
    (*c)[i] = osg::Vec4(color.r(), color.g(), color.b(), 0.9f * a * a);
  }
  v->dirty();
  c->dirty();
  static_cast<osg::DrawArrays*>(trail.geometry->getPrimitiveSet(0))->setCount(static_cast<GLsizei>(n));
  trail.geometry->dirtyBound();
}

void SceneGraph::apply(const Snapshot& snapshot) {
  const int nb = model_.numBodies();
  if (static_cast<int>(snapshot.body_poses.size()) != nb)
    throw std::invalid_argument("Snapshot has " + std::to_string(snapshot.body_poses.size()) +
                                " body poses; the model has " + std::to_string(nb) + " bodies");
  if (snapshot.time < last_time_) clearTrails();
  last_time_ = snapshot.time;

  for (int b = 0; b < nb; ++b) {
    const osg::Matrixd M = toOsg(snapshot.body_poses[b]);
    bodies_[b]->setMatrix(M);
    frames_[b]->setMatrix(M);
  }
  const bool have_reference = static_cast<int>(snapshot.reference_poses.size()) == nb;
  if (have_reference)
    for (int b = 0; b < nb; ++b) ghosts_[b]->setMatrix(toOsg(snapshot.reference_poses[b]));
  if (have_reference != have_reference_) {
    have_reference_ = have_reference;
    updateOverlayMasks();
  }

  // an arrow from the application point along the force, hidden when (nearly) zero or NaN
  auto place = [&](ArrowParts& parts, const AppliedForce& f) {
    const double length = f.force.norm() * options_.force_scale;
    if (!(length > 1e-6)) return;
    const double shaft = std::max(length - parts.head_length, 1e-6);
    parts.root->setMatrix(toOsg(Pose{rotationFromZ(f.force), f.point}));
    parts.shaft->setMatrix(osg::Matrixd::scale(1.0, 1.0, shaft));
    parts.head->setMatrix(osg::Matrixd::translate(0.0, 0.0, shaft));
    parts.root->setNodeMask(~0u);
  };
  for (Arrow& a : arrows_) a.parts.root->setNodeMask(0);
  for (const AppliedForce& f : snapshot.forces)
    for (Arrow& a : arrows_)
      if (a.actuator == f.actuator) {
        place(a.parts, f);
        break;
      }
  for (ArrowParts& parts : push_arrows_) parts.root->setNodeMask(0);
  for (std::size_t k = 0; k < std::min(snapshot.pushes.size(), push_arrows_.size()); ++k) place(push_arrows_[k], snapshot.pushes[k]);

  for (Trail& t : trails_) {
    addTrailPoint(t, snapshot.body_poses[t.spec.body] * t.spec.point);
    redrawTrail(t);
  }
  bounds_ = sceneBounds(model_, snapshot.body_poses, &extents_);
}

namespace {

/// A geode of GL_LINES between consecutive pairs of `points`, unlit, in one colour.
osg::ref_ptr<osg::Geode> makeLines(osg::Vec3Array* points, const osg::Vec4& rgba, float width) {
  osg::ref_ptr<osg::Geometry> g = new osg::Geometry;
  g->setUseDisplayList(false);
  g->setUseVertexBufferObjects(true);
  g->setVertexArray(points);
  osg::ref_ptr<osg::Vec4Array> c = new osg::Vec4Array;
  c->push_back(rgba);
  g->setColorArray(c.get(), osg::Array::BIND_OVERALL);
  g->addPrimitiveSet(new osg::DrawArrays(GL_LINES, 0, static_cast<GLsizei>(points->size())));
  osg::ref_ptr<osg::Geode> geode = new osg::Geode;
  geode->addDrawable(g.get());
  osg::StateSet* s = geode->getOrCreateStateSet();
  s->setMode(GL_LIGHTING, osg::StateAttribute::OFF | osg::StateAttribute::PROTECTED);
  s->setAttributeAndModes(new osg::LineWidth(width));
  return geode;
}

}  // namespace

void SceneGraph::buildPushLine() {
  push_line_points_ = new osg::Vec3Array(2);
  push_line_ = makeLines(push_line_points_.get(), osg::Vec4(1.0f, 0.35f, 0.1f, 1.0f), 3.0f);
  push_line_->setName("push");
  // over everything: the grabbed point may be behind the body
  osg::StateSet* s = push_line_->getOrCreateStateSet();
  s->setMode(GL_DEPTH_TEST, osg::StateAttribute::OFF);
  s->setRenderBinDetails(20, "RenderBin");
  push_line_->setNodeMask(0);
  root_->addChild(push_line_);
}

std::optional<PickHit> SceneGraph::pick(const Ray& ray) const {
  const double reach = 1e3 * std::max(scene_size_, 1.0) + (ray.origin - bounds_.center).norm();
  osg::ref_ptr<osgUtil::LineSegmentIntersector> intersector =
      new osgUtil::LineSegmentIntersector(toOsg(ray.origin), toOsg(Vec3(ray.origin + reach * ray.direction)));
  osgUtil::IntersectionVisitor visitor(intersector.get());
  bodies_group_->accept(visitor);
  // nearest first; the body is the "body:" transform on the hit's path (not the outline box)
  for (const auto& hit : intersector->getIntersections()) {
    if (highlight_ && std::find(hit.nodePath.begin(), hit.nodePath.end(), highlight_.get()) != hit.nodePath.end())
      continue;
    for (const osg::Node* node : hit.nodePath) {
      const auto it = std::find(bodies_.begin(), bodies_.end(), node);
      if (it == bodies_.end()) continue;
      const osg::Vec3d p = hit.getWorldIntersectPoint();
      return PickHit{static_cast<int>(it - bodies_.begin()), Vec3(p.x(), p.y(), p.z())};
    }
  }
  return std::nullopt;
}

void SceneGraph::setHighlight(int body) {
  if (body == highlight_body_) return;
  if (highlight_body_ >= 0) bodies_[highlight_body_]->removeChild(highlight_.get());
  highlight_body_ = body >= 0 && body < model_.numBodies() ? body : -1;
  if (highlight_body_ < 0) return;
  // the box around the body's visuals in its own frame (a body without visuals: its bounds sphere)
  osg::ComputeBoundsVisitor bounds;
  bodies_[highlight_body_]->getChild(0)->accept(bounds);
  osg::BoundingBox box = bounds.getBoundingBox();
  if (!box.valid()) {
    const Bounds b = bodyBoundsLocal(model_, highlight_body_, &extents_);
    const float r = static_cast<float>(std::max(b.radius, 0.02 * scene_size_));
    box.expandBy(toOsg(b.center) - osg::Vec3(r, r, r));
    box.expandBy(toOsg(b.center) + osg::Vec3(r, r, r));
  }
  const float pad = 0.03f * static_cast<float>(scene_size_);
  const osg::Vec3 lo = box._min - osg::Vec3(pad, pad, pad), hi = box._max + osg::Vec3(pad, pad, pad);
  osg::ref_ptr<osg::Vec3Array> edges = new osg::Vec3Array;
  auto corner = [&](int i) { return osg::Vec3(i & 1 ? hi.x() : lo.x(), i & 2 ? hi.y() : lo.y(), i & 4 ? hi.z() : lo.z()); };
  for (int i = 0; i < 8; ++i)
    for (int bit : {1, 2, 4})
      if (!(i & bit)) {  // the edge from corner i along this axis
        edges->push_back(corner(i));
        edges->push_back(corner(i | bit));
      }
  highlight_ = makeLines(edges.get(), osg::Vec4(1.0f, 0.85f, 0.1f, 1.0f), 2.5f);
  highlight_->setName("highlight");
  bodies_[highlight_body_]->addChild(highlight_.get());
}

void SceneGraph::setPushLine(const Vec3& from, const Vec3& to) {
  (*push_line_points_)[0] = toOsg(from);
  (*push_line_points_)[1] = toOsg(to);
  push_line_points_->dirty();
  push_line_->getDrawable(0)->dirtyBound();
  push_line_->setNodeMask(~0u);
}

void SceneGraph::hidePushLine() { push_line_->setNodeMask(0); }
bool SceneGraph::pushLineVisible() const { return push_line_->getNodeMask() != 0; }

}  // namespace rbs::render
