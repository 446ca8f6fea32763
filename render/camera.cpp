#include "render/camera.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>

#include "core/dynamics/snapshot.h"
#include "render/bounds.h"

namespace rbs::render {

namespace {

constexpr double kFramingMargin = 1.15;

/// Eye to target at which half extents (w, h) across the view fill an image of `aspect`, plus the
/// half depth d (the nearest parts stand that much closer than the target).
double framedDistance(const Vec3& framed, double fov_y, double aspect) {
  const double tan_y = std::tan(0.5 * fov_y), tan_x = tan_y * aspect;
  return std::max(1e-3, kFramingMargin * std::max(framed.x() / tan_x, framed.y() / tan_y) + framed.z());
}

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
  return std::max(1e-3, kFramingMargin * radius / std::sin(half));
}

CameraSpec frameSpheres(CameraSpec spec, const std::vector<Bounds>& spheres) {
  // the view's axes: forward from the eye to the target, right, and up on the screen
  const double ca = std::cos(spec.azimuth), sa = std::sin(spec.azimuth);
  const double ce = std::cos(spec.elevation), se = std::sin(spec.elevation);
  const Vec3 back(ce * ca, ce * sa, se);  // from the target to the eye
  Vec3 right = Vec3::UnitZ().cross(back);
  right = right.norm() > 1e-9 ? Vec3(right.normalized()) : Vec3(-sa, ca, 0.0);  // from straight above
  const Vec3 up = back.cross(right);
  Vec3 lo = Vec3::Constant(std::numeric_limits<double>::infinity()), hi = -lo;
  for (const Bounds& s : spheres) {
    if (s.empty) continue;
    const Vec3 c(s.center.dot(right), s.center.dot(up), s.center.dot(back));
    lo = lo.cwiseMin(c - Vec3::Constant(s.radius));
    hi = hi.cwiseMax(c + Vec3::Constant(s.radius));
  }
  if (!(lo.array() <= hi.array()).all()) return spec;  // nothing to frame
  const Vec3 mid = 0.5 * (lo + hi);
  spec.follow_body = -1;
  spec.target = mid.x() * right + mid.y() * up + mid.z() * back;
  spec.framed = (0.5 * (hi - lo)).cwiseMax(0.025);
  spec.distance = framedDistance(spec.framed, spec.fov_y, kSceneCameraAspect);
  return spec;
}

CameraSpec fitToAspect(CameraSpec spec, double aspect) {
  if (!(aspect > 0.0)) return spec;
  if (spec.framed != Vec3::Zero()) {  // what was framed fills this aspect (a zoom since is kept)
    spec.distance *= framedDistance(spec.framed, spec.fov_y, aspect) /
                     framedDistance(spec.framed, spec.fov_y, kSceneCameraAspect);
    return spec;
  }
  // the horizontal half-angle obeys tan(half_x) = tan(half_y) · aspect: the visible width at the
  // target scales with the aspect, so the eye moves back by kSceneCameraAspect / aspect
  spec.distance *= std::max(1.0, kSceneCameraAspect / aspect);
  return spec;
}

std::vector<std::string> cameraNames() {
  return {"scene", "fit", "follow", "follow:BODY", "front", "side", "top", "iso"};
}

CameraSpec makeCamera(std::string_view name, const Model& model, const CameraSettings& scene_camera,
                      double aspect, const VisualExtents* extents) {
  const std::vector<Pose> poses = initialPoses(model);
  const Bounds all = sceneBounds(model, poses, extents);
  const int target_body = model.bodyIndex(scene_camera.target_body);
  // a followed body with room around it (three times its own sphere)
  const auto followDistance = [&](int body, double image_aspect) {
    return framingDistance(std::max(3.0 * bodyBoundsLocal(model, body, extents).radius, 0.3), CameraSpec{}.fov_y,
                           image_aspect);
  };

  // the scene file's camera
  CameraSpec scene;
  scene.name = "scene";
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
  const std::vector<Bounds> spheres = visualSpheres(model, poses, extents);
  // A scene camera without a distance frames every body (or, following, its body with room).
  if (scene_camera.distance && *scene_camera.distance > 0.0) {
    scene.distance = *scene_camera.distance;
  } else if (scene.follow_body >= 0) {
    scene.distance = followDistance(scene.follow_body, kSceneCameraAspect);
  } else if (scene_camera.target_point || target_body >= 0) {  // about its target: the sphere there
    const double radius = all.radius + (all.empty ? 0.0 : (all.center - scene.target).norm());
    scene.distance = framingDistance(std::max(radius, 0.05), scene.fov_y, kSceneCameraAspect);
  } else {
    scene = frameSpheres(scene, spheres);
  }

  const std::string n(name);
  if (n == "scene") return fitToAspect(scene, aspect);
  if (n == "fit") {
    CameraSpec c = frameSpheres(scene, spheres);
    c.name = n;
    return fitToAspect(c, aspect);
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
    c.framed = Vec3::Zero();  // it frames its body, not the scene
    if (scene.follow_body != body) c.distance = followDistance(body, aspect);
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
    if (c.framed != Vec3::Zero()) c = frameSpheres(c, spheres);  // framed from there
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
