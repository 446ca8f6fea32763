// The 3D view: the OSG scene of render/ drawn offscreen (render/offscreen.h: a GLX pbuffer +
// framebuffer object, Mesa's llvmpipe is enough) and shown as an image in a plain QWidget.
// Chosen over a QOpenGLWidget hosting an osgViewer because it works the same under Xvfb, with
// QT_QPA_PLATFORM=offscreen and on a desktop, and gives the pixels of the video and screenshot
// exports by construction. Mouse: drag to orbit, wheel to zoom, Shift+drag or middle drag to pan,
// double click on a body (or Ctrl+click) to select it, double click elsewhere to re-frame;
// Ctrl+right-drag pulls the body under the cursor with a spring, Ctrl+left-drag turns it
// (sim/push_forces.h: the view only says where the spring pulls; the simulation applies it).
#pragma once

#include <chrono>
#include <filesystem>
#include <map>
#include <memory>
#include <span>
#include <string>

#include <QImage>
#include <QWidget>

#include "core/model/snapshot.h"
#include "core/scene/scene.h"
#include "render/camera.h"
#include "render/offscreen.h"
#include "render/scene_graph.h"
#include "sim/push_forces.h"

namespace rbs::ui {

class View3D : public QWidget {
  Q_OBJECT
 public:
  explicit View3D(QWidget* parent = nullptr);
  ~View3D() override;

  /// Builds the scene graph of `scene` (on the GUI thread) and the scene's camera. Warnings of
  /// the scene graph (e.g. unreadable meshes) are returned, one per line.
  std::vector<std::string> setScene(const Scene& scene);
  /// Poses the scene at `snapshot` and draws it at the widget's size (scaled by `supersample`).
  /// `path`: the body poses at the output samples since the last frame shown, for the trails
  /// (SimulationWorker::takeSnapshot), so that they follow every sample and not only the frames.
  void showFrame(const Snapshot& snapshot, const render::HudInfo& hud, std::span<const PathSample> path = {});
  /// Draws the last frame again at width × height (for screenshots) and returns the image.
  const render::Image& renderAt(int width, int height);
  /// While suspended the view draws nothing (it keeps its last picture and takes the newest
  /// snapshot for later): another renderer, the video export, has the GPU. Resuming draws the
  /// newest snapshot at once.
  void setDrawingSuspended(bool suspended);
  bool drawingSuspended() const { return suspended_; }

  /// The camera as the user has set it, for a 16:9 image (render::kSceneCameraAspect); the view
  /// draws it through render::fitToAspect for its own width and height.
  const render::CameraSpec& camera() const { return camera_; }
  /// A camera preset of render::makeCamera (scene, fit, follow, front, side, top, iso); throws
  /// std::invalid_argument for other names. Without a scene it does nothing.
  void setCameraPreset(const std::string& name);
  /// Shows or hides an overlay of render/ (ground, frames, ghost, trails, forces, HUD); the choice
  /// is kept while the same scene file is set again (a new run), not for another file.
  void setOverlay(render::Overlay overlay, bool visible);
  bool overlay(render::Overlay overlay) const;
  render::SceneGraph* sceneGraph() const { return graph_.get(); }
  /// The selected body (−1: none): outlined in the view; the follow camera follows it.
  int selectedBody() const { return selected_; }
  void selectBody(int body);
  /// While the user holds a body (Ctrl + button down on it): the spring, sent by pushChanged once
  /// the cursor moves.
  const std::optional<SpringPush>& push() const { return push_; }
  /// The camera as drawn at this widget's size (for turning widget pixels into rays).
  render::CameraPose drawnCameraPose() const;
  /// The widget pixel where the world point p appears (NaN coordinates: behind the eye).
  QPointF widgetPoint(const Vec3& p) const;

 Q_SIGNALS:
  /// The selection changed (−1: nothing selected).
  void bodySelected(int body);
  /// The spring of a Ctrl+drag: set when the drag starts and as the cursor moves, nullopt when
  /// the mouse is released.
  void pushChanged(const std::optional<SpringPush>& push);
  /// A hint for the status bar (e.g. a Ctrl+drag that did not start on a body).
  void hint(const QString& text);

 public:
  /// Frames drawn per second of wall time (over the last second).
  double framesPerSecond() const { return fps_; }
  long framesShown() const { return frames_total_; }
  /// Why there is no picture (no X display, no OpenGL), else empty.
  const std::string& error() const { return error_; }

 protected:
  void paintEvent(QPaintEvent* event) override;
  void mousePressEvent(QMouseEvent* event) override;
  void mouseMoveEvent(QMouseEvent* event) override;
  void mouseDoubleClickEvent(QMouseEvent* event) override;
  void mouseReleaseEvent(QMouseEvent* event) override;
  void keyPressEvent(QKeyEvent* event) override;
  void keyReleaseEvent(QKeyEvent* event) override;
  /// Shift while holding a body: push beyond its limits (SpringPush::harder). False when no push
  /// is under way (the key is not the view's).
  bool setPushHarder(bool harder);
  void focusOutEvent(QFocusEvent* event) override;
  void wheelEvent(QWheelEvent* event) override;
  void resizeEvent(QResizeEvent* event) override;

 private:
  /// render::makeCamera with the meshes as the scene graph read them.
  render::CameraSpec makeCamera(const std::string& name) const;
  std::unique_ptr<Model> model_;  ///< copy: the camera follows bodies of it
  CameraSettings scene_camera_;
  render::CameraSpec camera_;
  std::unique_ptr<render::SceneGraph> graph_;
  std::unique_ptr<render::OffscreenRenderer> renderer_;
  Snapshot last_;
  render::HudInfo hud_;
  QImage image_;
  std::string error_;
  std::map<render::Overlay, bool> overlays_;  ///< the user's choices (others: the scene graph's default)
  std::filesystem::path overlays_file_;       ///< the scene file they were made for
  QPoint drag_start_;
  Qt::MouseButton drag_button_ = Qt::NoButton;
  bool drag_pans_ = false;
  Vec3 drag_target_ = Vec3::Zero();
  double drag_azimuth_ = 0.0, drag_elevation_ = 0.0;
  int selected_ = -1;
  std::string selected_name_;       ///< kept across a reload of the same file
  std::optional<SpringPush> push_;  ///< the spring of the drag in progress
  Qt::MouseButton push_button_ = Qt::NoButton;  ///< the button holding it
  bool push_sent_ = false;          ///< sent (the cursor moved since the press)
  int push_anchor_ = -1;            ///< the followed body the drag moves with (−1: the world)
  Vec3 grab_world_ = Vec3::Zero();  ///< where the drag started, relative to the anchor's centre
  Vec3 grab_normal_ = Vec3::UnitX(); ///< the drag plane's normal: towards the eye
  double grab_lever_ = 1.0;         ///< [m] a torque drag turns by (cursor travel) / lever
  Vec3 cursor_world_ = Vec3::Zero(); ///< the cursor in the drag plane, relative to the anchor's centre
  bool suspended_ = false;
  int frames_ = 0;
  long frames_total_ = 0;
  double fps_ = 0.0;
  std::chrono::steady_clock::time_point fps_start_ = std::chrono::steady_clock::now();

  bool ensureRenderer(int width, int height);
  const render::Image& draw(int width, int height);
  /// Draws `last_` at the widget's size into the shown picture.
  void redraw();
  /// The body under widget pixel `at`, with the world point hit.
  std::optional<render::PickHit> pickAt(QPointF at) const;
  /// Starts a Ctrl+drag on the body under `at`; false when there is none.
  bool startPush(QPointF at, SpringPush::Mode mode);
  /// Moves the spring's target to the cursor at `at` and redraws the push line.
  void movePush(QPointF at);
  void endPush();
  void updatePushLine();
  /// The centre of mass of the drag's anchor body now (zero when anchored to the world).
  Vec3 anchorCentre() const;
};

}  // namespace rbs::ui
