// The OpenSceneGraph scene of one model (docs/RENDER.md): built once, then posed from Snapshots.
//
//   root "rbsim"
//   ├── sky              a vertical gradient drawn behind everything
//   ├── lights           sun (directional, from above) and a fill light, world-fixed
//   ├── bodies           one transform "body:NAME" per body holding its visuals
//   ├── overlay:ground   the ground disc with a grid (z = min(0, lowest initial point))
//   ├── overlay:frames   RGB axes per body (x red, y green, z blue)
//   ├── overlay:ghost    the bodies at the reference pose, translucent blue
//   ├── overlay:trails   fading polylines of chosen body points, bounded length
//   ├── overlay:forces   an arrow per force actuator (thrust vectors) and per push, length ∝ force
//   ├── overlay:hud      scene name, simulation time, real-time factor (pixel coordinates)
//   └── push             the mouse's push: a line from the grabbed point to the cursor
// The selected body carries an outline box ("highlight") below its transform.
//
// Every overlay is switchable (setOverlay). Knows nothing of Qt or of the simulator. Not
// thread-safe: call apply/setHud between frames, on the thread that renders.
#pragma once

#include <deque>
#include <limits>
#include <filesystem>
#include <optional>
#include <string>
#include <span>
#include <vector>

#include <osg/Group>
#include <osg/Geometry>
#include <osg/MatrixTransform>
#include <osg/Camera>
#include <osgText/Text>

#include "core/model/model.h"
#include "core/model/snapshot.h"
#include "render/bounds.h"
#include "render/camera.h"
#include "render/shapes.h"

namespace rbs::render {

enum class Overlay { Ground, BodyFrames, ReferenceGhost, Trails, ForceArrows, Hud };

/// Scene-file / command-line spelling: ground, frames, ghost, trails, forces, hud.
std::string overlayName(Overlay overlay);
std::optional<Overlay> overlayFromName(const std::string& name);
std::vector<Overlay> allOverlays();

/// A point whose path is drawn as a trail: `point` in the frame of `body`.
struct TrailSpec {
  int body = -1;
  Vec3 point = Vec3::Zero();
};

struct SceneOptions {
  /// Meshes (Visual::Shape::Mesh) are read from here; empty: $RBSIM_ASSETS_DIR, else the source
  /// tree's assets/.
  std::filesystem::path assets_dir;
  /// Trails; empty: the centre of mass of every body on a free joint.
  std::vector<TrailSpec> trails;
  int trail_points = 450;        ///< points kept per trail (the oldest fade out)
  double trail_spacing = 0.0;    ///< [m] minimal distance between stored points; 0: scene size / 400
  double force_scale = 0.0;      ///< arrow length per newton [m/N]; 0: from the scene size
  std::string scene_name;        ///< for the HUD
};

/// A body under the cursor: its index and the point hit on its visuals (world frame).
struct PickHit {
  int body = -1;
  Vec3 point = Vec3::Zero();
};

/// What the HUD shows. NaN hides a number.
struct HudInfo {
  std::string scene_name;
  double time = 0.0;                 ///< simulation time [s]
  double real_time_factor = std::numeric_limits<double>::quiet_NaN();  ///< sim time / wall time
  std::string status;                ///< a short line at the bottom right (camera, state, …)
};

class SceneGraph {
 public:
  /// Builds the scene of `model` at its initial state. The model is copied where needed; it
  /// does not have to outlive the scene graph.
  explicit SceneGraph(const Model& model, SceneOptions options = {});

  osg::Group* root() const { return root_.get(); }

  /// Poses bodies, frames, ghost and arrows, and appends to the trails (a time earlier than the
  /// last one clears them: the simulation was reset). body_poses must have numBodies() entries.
  void apply(const Snapshot& snapshot);
  /// Appends the path of a run to the trails, sample by sample, in time order: a sample at the
  /// last time applied is skipped, one before it clears the trails first (the simulation was
  /// reset). Then apply() the frame at or after the last sample.
  void extendTrails(std::span<const PathSample> path);
  void setHud(const HudInfo& hud);
  /// The HUD's pixel coordinate system: call when the viewport size changes.
  void setViewportSize(int width, int height);
  void setOverlay(Overlay overlay, bool visible);
  bool overlay(Overlay overlay) const;
  void clearTrails();

  /// The first body whose visuals `ray` (world frame) meets, with the point; nullopt when it
  /// meets none. Uses the poses of the last apply().
  std::optional<PickHit> pick(const Ray& ray) const;
  /// Outlines body b's visuals with a box (−1: no body); the outline moves with the body.
  void setHighlight(int body);
  int highlight() const { return highlight_body_; }
  /// A line from `from` to `to` (world), drawn over everything: the mouse's push. Hidden by
  /// hidePushLine().
  void setPushLine(const Vec3& from, const Vec3& to);
  void hidePushLine();
  bool pushLineVisible() const;

  /// The transform of body b (for tests and picking) and the root of an overlay.
  osg::MatrixTransform* bodyTransform(int b) const { return bodies_[b].get(); }
  osg::Node* overlayNode(Overlay overlay) const;
  /// The bodies at the last applied snapshot (initial state before the first).
  const Bounds& bounds() const { return bounds_; }
  /// The visuals' spheres as drawn (the meshes as read): for framing the view (makeCamera).
  const VisualExtents& visualExtents() const { return extents_; }
  double groundHeight() const { return ground_z_; }
  /// Problems found while building (e.g. unreadable meshes): one line each, for the user.
  const std::vector<std::string>& warnings() const { return warnings_; }
  /// Trail points currently stored, per trail.
  std::vector<int> trailSizes() const;

 private:
  struct Trail {
    TrailSpec spec;
    std::deque<osg::Vec3> points;
    osg::ref_ptr<osg::Geometry> geometry;
    int color = 0;  ///< index into the trail palette
  };
  struct Arrow {
    int actuator = -1;
    ArrowParts parts;
  };

  Model model_;
  SceneOptions options_;
  osg::ref_ptr<osg::Group> root_;
  std::vector<osg::ref_ptr<osg::MatrixTransform>> bodies_, frames_, ghosts_;
  osg::ref_ptr<osg::Group> overlays_[6];
  bool overlay_on_[6] = {true, false, true, true, true, true};
  bool have_reference_ = false;
  std::vector<Trail> trails_;
  std::vector<Arrow> arrows_;
  std::vector<ArrowParts> push_arrows_;  ///< for Snapshot::pushes (the first few drawn)
  osg::ref_ptr<osg::Group> bodies_group_;
  osg::ref_ptr<osg::Geode> highlight_;   ///< the outline box, child of the highlighted body
  int highlight_body_ = -1;
  osg::ref_ptr<osg::Geode> push_line_;
  osg::ref_ptr<osg::Vec3Array> push_line_points_;
  osg::ref_ptr<osg::Camera> hud_camera_;
  osg::ref_ptr<osgText::Text> hud_title_, hud_time_, hud_rate_, hud_status_;
  float hud_width_ = 1.0f;  ///< viewport width in pixels
  float hud_margin_ = 0.0f;
  /// Wraps the title so it stays left of the status line in narrow views.
  void fitHudTitle();
  Bounds bounds_;
  VisualExtents extents_;
  double ground_z_ = 0.0;
  double scene_size_ = 1.0;
  double last_time_ = -1e300;
  std::vector<std::string> warnings_;

  /// Every body's visuals (one group each, shared by the body and its ghost); fills extents_ and
  /// the warnings about meshes that cannot be read.
  std::vector<osg::ref_ptr<osg::Group>> buildVisuals();
  void buildBodies(const std::vector<osg::ref_ptr<osg::Group>>& visuals);
  void buildLights();
  void buildOverlays();
  void buildHud();
  void buildPushLine();
  void updateOverlayMasks();
  /// Stores p when it is finite and has moved far enough (the oldest points fall off).
  void addTrailPoint(Trail& trail, const Vec3& p);
  /// The trail's geometry from its points (oldest transparent, newest opaque).
  void redrawTrail(Trail& trail);
};

}  // namespace rbs::render
