#include "render/camera.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>

#include "core/dynamics/snapshot.h"
#include "render/bounds.h"

namespace rbs::render {

namespace {

/// Limits the eye is kept from the vertical: the look-at up vector is +z.
constexpr double kMaxElevation = 0.5 * M_PI;

Vec3 bodyCentre(const Model& model, int body, const std::vector<Pose>& body_poses) {
  return body_poses[body] * model.bodies[body].com;
}

std::vector<Pose> initialPoses(const Model& model) {
  Workspace ws(model);
  Snapshot s;
  fillBodyPoses(model, model.initial_state.x, 0.0, ws, s);
  return s.body_poses;
}

int firstFreeBody(const Model& model) {
  for (int b = 0; b < model.numBodies(); ++b) {
    const JointType t = model.joints[b].type;
    if (isFreeType(t)) return b;
  }
  return model.numBodies() > 0 ? 0 : -1;
}

std::string bodyList(const Model& model) {
  std::string s;
  for (const Body& b : model.bodies) s += (s.empty() ? "" : ", ") + b.name;
  return s;
}

}  // namespace

CameraPose cameraPose(const Model& model, const CameraSpec& spec,
                      const std::vector<Pose>& body_poses) {
  CameraPose p;
  p.center = spec.follow_body >= 0 && spec.follow_body < static_cast<int>(body_poses.size())
                 ? bodyCentre(model, spec.follow_body, body_poses)
                 : spec.target;
  const double e = std::clamp(spec.elevation, -kMaxElevation, kMaxElevation);
  const double a = spec.azimuth;
  const Vec3 dir(std::cos(e) * std::cos(a), std::cos(e) * std::sin(a), std::sin(e));
  p.eye = p.center + spec.distance * dir;
  // straight above or below, +z is the viewing direction: take the limit of the up vector
  // for e → ±π/2 (the horizontal direction from the eye's footprint towards the target)
  if (std::abs(std::cos(e)) < 1e-6)
    p.up = (e > 0 ? -1.0 : 1.0) * Vec3(std::cos(a), std::sin(a), 0.0);
  else
    p.up = Vec3::UnitZ();
  return p;
}

double framingDistance(double radius, double fov_y, double aspect) {
  const double half_y = 0.5 * fov_y;
  const double half_x = std::atan(std::tan(half_y) * aspect);
  const double half = std::min(half_x, half_y);
  constexpr double kMargin = 1.15;
  return std::max(1e-3, kMargin * radius / std::sin(half));
}

CameraSpec fitToAspect(CameraSpec spec, double aspect) {
  if (!(aspect > 0.0)) return spec;
  // the horizontal half-angle obeys tan(half_x) = tan(half_y) · aspect: the visible width at the
  // target scales with the aspect, so the eye moves back by kSceneCameraAspect / aspect
  spec.distance *= std::max(1.0, kSceneCameraAspect / aspect);
  return spec;
}

std::vector<std::string> cameraNames() {
  return {"scene", "fit", "follow", "follow:BODY", "front", "side", "top", "iso"};
}

CameraSpec makeCamera(std::string_view name, const Model& model, const CameraSettings& scene_camera,
                      double aspect) {
  const std::vector<Pose> poses = initialPoses(model);
  const Bounds all = sceneBounds(model, poses);
  const int target_body = model.bodyIndex(scene_camera.target_body);

  // the scene file's camera
  CameraSpec scene;
  scene.name = "scene";
  scene.distance = scene_camera.distance > 0.0 ? scene_camera.distance : 3.0;
  scene.azimuth = scene_camera.azimuth;
  scene.elevation = scene_camera.elevation;
  if (scene_camera.mode == "follow" && target_body >= 0) {
    scene.follow_body = target_body;
  } else if (scene_camera.target_point) {
    scene.target = *scene_camera.target_point;
  } else if (target_body >= 0) {
    scene.target = bodyCentre(model, target_body, poses);
  } else {
    scene.target = all.center;
  }

  const std::string n(name);
  if (n == "scene") return fitToAspect(scene, aspect);
  if (n == "fit") {
    CameraSpec c = scene;
    c.name = n;
    c.follow_body = -1;
    c.target = all.center;
    c.distance = framingDistance(std::max(all.radius, 0.05), c.fov_y, aspect);
    return c;
  }
  if (n == "follow" || n.rfind("follow:", 0) == 0) {
    CameraSpec c = scene;
    c.name = n;
    int body = scene.follow_body >= 0 ? scene.follow_body : (target_body >= 0 ? target_body : firstFreeBody(model));
    if (n != "follow") {
      body = model.bodyIndex(n.substr(7));
      if (body < 0)
        throw std::invalid_argument("camera '" + n + "': no body named '" + n.substr(7) +
                                    "'; bodies: " + bodyList(model));
    }
    if (body < 0) throw std::invalid_argument("camera 'follow': the model has no body");
    c.follow_body = body;
    if (scene.follow_body != body) {
      // frame the followed body with some room around it
      const Bounds local = bodyBoundsLocal(model, body);
      c.distance = framingDistance(std::max(3.0 * local.radius, 0.3), c.fov_y, aspect);
    }
    return c;
  }
  struct Preset {
    const char* name;
    double azimuth, elevation;
  };
  static constexpr Preset kPresets[] = {
      {"front", 0.0, 0.15},
      {"side", -0.5 * M_PI, 0.15},
      {"top", -0.5 * M_PI, 0.5 * M_PI},
      {"iso", -0.25 * M_PI, 0.6154797086703873},  // atan(1/√2): the cube-diagonal view
  };
  for (const Preset& p : kPresets) {
    if (n != p.name) continue;
    CameraSpec c = scene;
    c.name = n;
    c.azimuth = p.azimuth;
    c.elevation = p.elevation;
    return fitToAspect(c, aspect);
  }
  std::string known;
  for (const std::string& k : cameraNames()) known += (known.empty() ? "" : ", ") + k;
  throw std::invalid_argument("unknown camera '" + n + "'; available: " + known);
}

Ray viewRay(const CameraPose& pose, double fov_y, double aspect, double x, double y) {
  // the look-at frame: forward, right = forward × up, screen up = right × forward
  const Vec3 forward = (pose.center - pose.eye).normalized();
  const Vec3 right = forward.cross(pose.up).normalized();
  const Vec3 up = right.cross(forward);
  const double t = std::tan(fov_y / 2.0);
  return Ray{pose.eye, (forward + x * t * aspect * right + y * t * up).normalized()};
}

Eigen::Vector2d imagePoint(const CameraPose& pose, double fov_y, double aspect, const Vec3& p) {
  const Vec3 forward = (pose.center - pose.eye).normalized();
  const Vec3 right = forward.cross(pose.up).normalized();
  const Vec3 up = right.cross(forward);
  const Vec3 d = p - pose.eye;
  const double depth = d.dot(forward);
  if (!(depth > 0.0)) return Eigen::Vector2d::Constant(std::numeric_limits<double>::quiet_NaN());
  const double t = std::tan(fov_y / 2.0);
  return Eigen::Vector2d(d.dot(right) / (depth * t * aspect), d.dot(up) / (depth * t));
}

Vec3 rayPlaneIntersection(const Ray& ray, const Vec3& point, const Vec3& normal) {
  const double along = ray.direction.dot(normal);
  if (!(std::abs(along) > 1e-9)) return point;
  const double s = (point - ray.origin).dot(normal) / along;
  return s > 0.0 ? Vec3(ray.origin + s * ray.direction) : point;
}

}  // namespace rbs::render
