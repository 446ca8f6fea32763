#include "ui/view3d.h"

#include <algorithm>
#include <cmath>

#include <QApplication>
#include <QKeyEvent>
#include <QMouseEvent>
#include <QPainter>
#include <QResizeEvent>
#include <QWheelEvent>

#include "core/dynamics/snapshot.h"
#include "core/dynamics/workspace.h"

namespace rbs::ui {
namespace {
/// Radians of orbit per pixel of mouse drag.
constexpr double kOrbitPerPixel = 0.008;
/// Zoom factor per wheel notch (120 units).
constexpr double kZoomPerNotch = 1.15;
}  // namespace

View3D::View3D(QWidget* parent) : QWidget(parent) {
  setMinimumSize(160, 120);  // a narrow window keeps its side panels usable
  setAttribute(Qt::WA_OpaquePaintEvent);
  setFocusPolicy(Qt::StrongFocus);
}

View3D::~View3D() = default;

std::vector<std::string> View3D::setScene(const Scene& scene) {
  model_ = std::make_unique<Model>(scene.model);
  scene_camera_ = scene.camera;
  render::SceneOptions options;
  options.scene_name = scene.name.empty() ? scene.file.stem().string() : scene.name;
  graph_ = std::make_unique<render::SceneGraph>(*model_, options);
  camera_ = makeCamera("scene");
  if (push_) {  // the old graph goes: no redraw of it
    push_.reset();
    push_button_ = drag_button_ = Qt::NoButton;
    if (push_sent_) Q_EMIT pushChanged(std::nullopt);
    push_sent_ = false;
  }
  if (scene.file != overlays_file_) {  // another scene: its own choices (MainWindow restores them)
    overlays_.clear();
    overlays_file_ = scene.file;
    selected_name_.clear();
  }
  // the same file again (a reload, a new run): the body of the same name stays selected
  const int selected = selected_name_.empty() ? -1 : model_->bodyIndex(selected_name_);
  if (selected != selected_) {
    selected_ = selected;
    if (selected_ < 0) selected_name_.clear();
    Q_EMIT bodySelected(selected_);
  }
  graph_->setHighlight(selected_);
  for (const auto& [overlay, visible] : overlays_) graph_->setOverlay(overlay, visible);
  if (renderer_) renderer_->setScene(graph_->root());
  Workspace ws(*model_);
  last_ = Snapshot{};
  fillBodyPoses(*model_, model_->initial_state.x, 0.0, ws, last_);
  return graph_->warnings();
}

bool View3D::ensureRenderer(int width, int height) {
  if (renderer_ && renderer_->width() == width && renderer_->height() == height) return true;
  try {
    renderer_.reset();
    renderer_ = std::make_unique<render::OffscreenRenderer>(width, height, 0);
    if (graph_) renderer_->setScene(graph_->root());
    error_.clear();
  } catch (const render::RenderError& e) {
    renderer_.reset();
    error_ = e.what();
    return false;
  }
  return true;
}

const render::Image& View3D::draw(int width, int height) {
  static const render::Image kNone;
  if (!graph_ || !ensureRenderer(width, height)) return kNone;
  graph_->setViewportSize(width, height);
  const render::CameraSpec camera = render::fitToAspect(camera_, static_cast<double>(width) / height);
  updatePushLine();
  renderer_->setCamera(render::cameraPose(*model_, camera, last_.body_poses), camera.fov_y);
  try {
    return renderer_->render();
  } catch (const render::RenderError& e) {
    renderer_.reset();  // a fresh context on the next frame
    error_ = e.what();
    return kNone;
  }
}

void View3D::redraw() {
  const int w = std::max(16, width() & ~1), h = std::max(16, height() & ~1);
  const render::Image& image = draw(w, h);
  if (image.width > 0)
    image_ = QImage(image.rgb.data(), image.width, image.height, 3 * image.width, QImage::Format_RGB888).copy();
  update();
}

void View3D::setDrawingSuspended(bool suspended) {
  suspended_ = suspended;
  if (!suspended_ && graph_) redraw();
}

void View3D::resizeEvent(QResizeEvent* event) {
  QWidget::resizeEvent(event);
  if (!suspended_ && graph_ && isVisible()) redraw();
}

void View3D::showFrame(const Snapshot& snapshot, const render::HudInfo& hud, std::span<const PathSample> path) {
  if (!graph_) return;
  graph_->extendTrails(path);
  if (snapshot.body_poses.size() == model_->bodies.size()) {
    last_ = snapshot;
    graph_->apply(last_);
  }
  hud_ = hud;
  graph_->setHud(hud_);
  if (suspended_) return;
  redraw();
  ++frames_;
  ++frames_total_;
  const auto now = std::chrono::steady_clock::now();
  const double dt = std::chrono::duration<double>(now - fps_start_).count();
  if (dt >= 1.0) {
    fps_ = frames_ / dt;
    frames_ = 0;
    fps_start_ = now;
  }
}

const render::Image& View3D::renderAt(int width, int height) {
  const render::Image& image = draw(width, height);
  return image;
}

void View3D::paintEvent(QPaintEvent*) {
  QPainter painter(this);
  if (image_.isNull()) {
    painter.fillRect(rect(), QColor(40, 44, 52));
    painter.setPen(Qt::white);
    painter.drawText(rect(), Qt::AlignCenter | Qt::TextWordWrap,
                     error_.empty() ? tr("no scene") : tr("3D view unavailable: %1").arg(QString::fromStdString(error_)));
    return;
  }
  painter.drawImage(rect(), image_);
}

void View3D::mousePressEvent(QMouseEvent* event) {
  if (push_) return;  // one gesture at a time: the push ends with its own button
  drag_start_ = event->position().toPoint();
  drag_button_ = event->button();
  // Ctrl + left: select and turn, Ctrl + right: select and pull
  if (model_ && (event->modifiers() & Qt::ControlModifier) &&
      (drag_button_ == Qt::LeftButton || drag_button_ == Qt::RightButton)) {
    drag_pans_ = false;
    const Qt::MouseButton button = drag_button_;
    drag_button_ = Qt::NoButton;  // no orbit or pan from this press
    if (startPush(event->position(), button == Qt::RightButton ? SpringPush::Mode::Force : SpringPush::Mode::Torque))
      push_button_ = button;
    else
      Q_EMIT hint(tr("No body under the cursor: Ctrl+drag on a body to push it"));
    return;
  }
  drag_azimuth_ = camera_.azimuth;
  drag_elevation_ = camera_.elevation;
  drag_target_ = camera_.target;
  // middle drag or Shift + left drag pans; a following camera keeps its body centred
  drag_pans_ = model_ && camera_.follow_body < 0 &&
               (drag_button_ == Qt::MiddleButton ||
                (drag_button_ == Qt::LeftButton && (event->modifiers() & Qt::ShiftModifier)));
}

void View3D::mouseMoveEvent(QMouseEvent* event) {
  if (push_) {
    if (!(event->buttons() & push_button_)) {  // its release went elsewhere
      endPush();
      return;
    }
    // a Ctrl+click selects: the spring only starts once the cursor has moved
    if (!push_sent_ && (event->position().toPoint() - drag_start_).manhattanLength() < QApplication::startDragDistance())
      return;
    push_->harder = event->modifiers() & Qt::ShiftModifier;  // beyond the body's limits (PushLimits)
    movePush(event->position());
    return;
  }
  if (!(event->buttons() & drag_button_) || (drag_button_ != Qt::LeftButton && !drag_pans_)) return;
  const QPoint d = event->position().toPoint() - drag_start_;
  if (drag_pans_) {
    // The target moves in the screen plane by as much as the picture under the cursor does at
    // the target's distance. The screen's axes from the camera's own look-at pose (render/camera.h):
    // right = forward × up, screen up = right × forward.
    const render::CameraPose pose = render::cameraPose(*model_, camera_, last_.body_poses);
    const Vec3 forward = (pose.center - pose.eye).normalized();
    const Vec3 right = forward.cross(pose.up).normalized();
    const Vec3 up = right.cross(forward);
    // the camera as drawn (fitToAspect moves a 16:9 camera back in a narrower view)
    const render::CameraSpec drawn =
        render::fitToAspect(camera_, static_cast<double>(std::max(1, width())) / std::max(1, height()));
    const double metres_per_pixel = 2.0 * drawn.distance * std::tan(drawn.fov_y / 2) / std::max(1, height());
    camera_.target = drag_target_ - metres_per_pixel * (d.x() * right - d.y() * up);
    return;
  }
  camera_.azimuth = drag_azimuth_ - kOrbitPerPixel * d.x();
  camera_.elevation = std::clamp(drag_elevation_ + kOrbitPerPixel * d.y(), -1.5, 1.5);
}

void View3D::setCameraPreset(const std::string& name) {
  if (!model_) return;
  // "follow" follows the selected body when there is one
  const std::string preset = name == "follow" && selected_ >= 0 ? "follow:" + model_->bodies[selected_].name : name;
  camera_ = makeCamera(preset);
  if (graph_ && !suspended_) redraw();
}

render::CameraSpec View3D::makeCamera(const std::string& name) const {
  return render::makeCamera(name, *model_, scene_camera_, render::kSceneCameraAspect,
                            graph_ ? &graph_->visualExtents() : nullptr);
}

void View3D::setOverlay(render::Overlay overlay, bool visible) {
  overlays_[overlay] = visible;
  if (graph_) {
    graph_->setOverlay(overlay, visible);
    if (!suspended_) redraw();
  }
}

bool View3D::overlay(render::Overlay overlay) const {
  if (graph_) return graph_->overlay(overlay);
  const auto it = overlays_.find(overlay);
  if (it != overlays_.end()) return it->second;
  return overlay != render::Overlay::BodyFrames;  // the scene graph's defaults: all but frames
}

void View3D::mouseDoubleClickEvent(QMouseEvent* event) {
  if (!model_ || event->button() != Qt::LeftButton) return;
  if (const auto hit = pickAt(event->position())) {
    selectBody(hit->body);
    return;
  }
  selectBody(-1);
  camera_ = makeCamera("scene");
  if (graph_ && !suspended_) redraw();
}

void View3D::mouseReleaseEvent(QMouseEvent* event) {
  if (push_ && event->button() == push_button_) endPush();
  if (event->button() == drag_button_) drag_button_ = Qt::NoButton;
}

void View3D::focusOutEvent(QFocusEvent* event) {
  if (push_) endPush();  // a dialog took the mouse: let go
  QWidget::focusOutEvent(event);
}

void View3D::keyPressEvent(QKeyEvent* event) {
  if (event->key() == Qt::Key_Escape && (selected_ >= 0 || push_)) {
    if (push_) endPush();
    selectBody(-1);
    return;
  }
  if (event->key() == Qt::Key_Shift && setPushHarder(true)) return;
  QWidget::keyPressEvent(event);
}

void View3D::keyReleaseEvent(QKeyEvent* event) {
  if (event->key() == Qt::Key_Shift && setPushHarder(false)) return;
  QWidget::keyReleaseEvent(event);
}

bool View3D::setPushHarder(bool harder) {
  if (!push_ || !push_sent_) return false;
  if (push_->harder != harder) {
    push_->harder = harder;
    Q_EMIT pushChanged(push_);
  }
  return true;
}

void View3D::selectBody(int body) {
  if (!model_ || body < -1 || body >= model_->numBodies()) body = -1;
  if (body == selected_) return;
  selected_ = body;
  selected_name_ = body >= 0 ? model_->bodies[body].name : std::string();
  if (graph_) {
    graph_->setHighlight(selected_);
    if (!suspended_) redraw();
  }
  Q_EMIT bodySelected(selected_);
}

render::CameraPose View3D::drawnCameraPose() const {
  const render::CameraSpec drawn =
      render::fitToAspect(camera_, static_cast<double>(std::max(1, width())) / std::max(1, height()));
  return render::cameraPose(*model_, drawn, last_.body_poses);
}

QPointF View3D::widgetPoint(const Vec3& p) const {
  const render::CameraSpec drawn =
      render::fitToAspect(camera_, static_cast<double>(std::max(1, width())) / std::max(1, height()));
  const Eigen::Vector2d ndc = render::imagePoint(drawnCameraPose(), drawn.fov_y,
                                                 static_cast<double>(std::max(1, width())) / std::max(1, height()), p);
  return QPointF((ndc.x() + 1.0) / 2.0 * width(), (1.0 - ndc.y()) / 2.0 * height());
}

std::optional<render::PickHit> View3D::pickAt(QPointF at) const {
  if (!graph_ || !model_) return std::nullopt;
  const double w = std::max(1, width()), h = std::max(1, height());
  const render::CameraSpec drawn = render::fitToAspect(camera_, w / h);
  const render::Ray ray = render::viewRay(drawnCameraPose(), drawn.fov_y, w / h, 2.0 * at.x() / w - 1.0, 1.0 - 2.0 * at.y() / h);
  return graph_->pick(ray);
}

bool View3D::startPush(QPointF at, SpringPush::Mode mode) {
  const auto hit = pickAt(at);
  if (!hit) return false;
  selectBody(hit->body);
  const Pose& G = last_.body_poses[hit->body];
  // A following view moves with its body: so does the pull (the target is an offset from the
  // body's centre of mass), and the damping then acts on the velocity relative to it.
  push_anchor_ = camera_.follow_body;
  const Vec3 centre = anchorCentre();
  SpringPush spring;
  spring.mode = mode;
  spring.body = hit->body;
  spring.point = G.R.transpose() * (hit->point - G.r);
  spring.anchor_body = push_anchor_;
  spring.target = hit->point - centre;
  spring.grab_attitude = push_anchor_ >= 0 ? Mat3(last_.body_poses[push_anchor_].R.transpose() * G.R) : G.R;
  const render::CameraPose eye = drawnCameraPose();
  grab_world_ = hit->point - centre;
  grab_normal_ = (eye.eye - hit->point).normalized();
  // a turn moves the grabbed point with the cursor when the lever is its distance from the body's
  // centre of mass, seen across the view; at least a tenth of the body's size
  const Body& body = model_->bodies[hit->body];
  const Vec3 lever = hit->point - (G.R * body.com + G.r);
  const double body_size = render::bodyBoundsLocal(*model_, hit->body, &graph_->visualExtents()).radius;
  grab_lever_ = std::max((lever - lever.dot(grab_normal_) * grab_normal_).norm(), 0.1 * std::max(body_size, 0.05));
  cursor_world_ = grab_world_;
  push_ = spring;
  push_sent_ = false;  // sent on the first move: a Ctrl+click only selects
  return true;
}

void View3D::movePush(QPointF at) {
  const double w = std::max(1, width()), h = std::max(1, height());
  const render::CameraSpec drawn = render::fitToAspect(camera_, w / h);
  const render::Ray ray = render::viewRay(drawnCameraPose(), drawn.fov_y, w / h, 2.0 * at.x() / w - 1.0, 1.0 - 2.0 * at.y() / h);
  const Vec3 centre = anchorCentre();
  cursor_world_ = render::rayPlaneIntersection(ray, centre + grab_world_, grab_normal_) - centre;
  if (push_->mode == SpringPush::Mode::Force) {
    push_->target = cursor_world_;
  } else {
    // the front of the body follows the cursor: a turn about normal × travel (right-handed)
    push_->rotation = grab_normal_.cross(cursor_world_ - grab_world_) / grab_lever_;
  }
  push_sent_ = true;
  Q_EMIT pushChanged(push_);
  if (!suspended_) redraw();
}

Vec3 View3D::anchorCentre() const {
  if (push_anchor_ < 0 || push_anchor_ >= static_cast<int>(last_.body_poses.size())) return Vec3::Zero();
  return last_.body_poses[push_anchor_] * model_->bodies[push_anchor_].com;
}

void View3D::endPush() {
  push_.reset();
  push_button_ = drag_button_ = Qt::NoButton;
  if (graph_) graph_->hidePushLine();
  if (push_sent_) Q_EMIT pushChanged(std::nullopt);
  push_sent_ = false;
  if (graph_ && !suspended_) redraw();
}

void View3D::updatePushLine() {
  if (!graph_ || !push_ || !push_sent_) return;
  const Pose& G = last_.body_poses[push_->body];
  graph_->setPushLine(G.R * push_->point + G.r, anchorCentre() + cursor_world_);
}

void View3D::wheelEvent(QWheelEvent* event) {
  camera_.distance *= std::pow(kZoomPerNotch, -event->angleDelta().y() / 120.0);
  camera_.distance = std::clamp(camera_.distance, 1e-3, 1e4);
}

}  // namespace rbs::ui
