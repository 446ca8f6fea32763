// Where the 3D view looks from: an orbit about a fixed point or about a moving body ("follow"),
// set by distance, azimuth and elevation; named presets for the CLI and the GUI; framing of the
// whole scene. Pure geometry (no OSG), world frame z up, metres and radians.
//
// Convention: the eye sits at target + d (cos e cos a, cos e sin a, sin e) — azimuth a from +x
// towards +y, elevation e above the horizontal plane — and looks at the target with +z up.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "core/model/model.h"
#include "core/scene/scene.h"
#include "render/bounds.h"

namespace rbs::render {

struct CameraSpec {
  std::string name = "scene";
  int follow_body = -1;          ///< ≥ 0: the target is this body's centre of mass, moving with it
  Vec3 target = Vec3::Zero();    ///< fixed target (world frame) when follow_body < 0 [m]
  double distance = 3.0;         ///< eye to target [m], > 0
  double azimuth = 0.6;          ///< [rad]
  double elevation = 0.4;        ///< [rad], in [−π/2, π/2]
  double fov_y = 0.61;           ///< vertical field of view [rad] (35°)
  /// Set by framing (fit; a scene camera without a distance; the presets then): the half width and
  /// half height across the view, and the half depth along it, of what must stay in view about
  /// the target [m]. fitToAspect scales the distance so that they fill any aspect. Zero: a distance
  /// chosen for 16:9 (a scene file's).
  Vec3 framed = Vec3::Zero();
};

/// A look-at camera: eye and target (world frame) and the screen's up direction (unit).
struct CameraPose {
  Vec3 eye = Vec3::Zero();
  Vec3 center = Vec3::Zero();
  Vec3 up = Vec3::UnitZ();
};

/// The image aspect (width/height) a scene file's camera distance is chosen for: 16:9, the video
/// default.
constexpr double kSceneCameraAspect = 16.0 / 9.0;

/// `spec` for an image of `aspect` = width/height. Narrower than kSceneCameraAspect, the eye moves
/// back so that the width the camera shows at 16:9 stays in view (a tall, narrow window cuts
/// nothing off at the sides); at 16:9 or wider it is unchanged. A framed camera (spec.framed) gets
/// the distance at which what it framed fills this aspect.
CameraSpec fitToAspect(CameraSpec spec, double aspect);

/// `spec` (its direction and field of view kept) aimed at the middle of `spheres` as seen from its
/// direction, at the distance where they fill a 16:9 image with a small margin (fitToAspect for
/// others): their extent across the view, width and height apart, so that a tall arm fills the
/// height of a wide image, plus their half depth, since the nearest stand closer than the target.
CameraSpec frameSpheres(CameraSpec spec, const std::vector<Bounds>& spheres);

/// The camera at body poses `body_poses` (world poses of the bodies; needed for follow).
CameraPose cameraPose(const Model& model, const CameraSpec& spec,
                      const std::vector<Pose>& body_poses);

/// A half-line from `origin` along the unit vector `direction` (world frame).
struct Ray {
  Vec3 origin = Vec3::Zero();
  Vec3 direction = Vec3::UnitX();
};

/// The ray from the eye through the image point (x, y) in normalized device coordinates (−1 at
/// the left and bottom edges, +1 at the right and top) of an image of `aspect` = width/height seen
/// by `pose` with the vertical field of view fov_y: the inverse of the perspective projection.
Ray viewRay(const CameraPose& pose, double fov_y, double aspect, double x, double y);

/// The inverse of viewRay: the normalized device coordinates (x, y) where the world point p
/// appears; NaN when p is not in front of the eye.
Eigen::Vector2d imagePoint(const CameraPose& pose, double fov_y, double aspect, const Vec3& p);

/// Where `ray` meets the plane through `point` perpendicular to `normal`; the point itself when
/// the ray runs parallel to the plane or away from it.
Vec3 rayPlaneIntersection(const Ray& ray, const Vec3& point, const Vec3& normal);

/// Distance at which a sphere of `radius` fills the view (field of view fov_y, width/height
/// `aspect`) with a small margin.
double framingDistance(double radius, double fov_y, double aspect);

/// The names makeCamera accepts: scene, fit, follow, front, side, top, iso (and follow:BODY).
std::vector<std::string> cameraNames();

/// The camera `name` for a model whose scene asks for `scene_camera`, at the model's initial
/// state; `aspect` = width/height of the image.
///   scene    the scene file's camera section (orbit about its target point or body, or follow);
///   fit      frames every body at the initial state, seen from the scene camera's direction;
///   follow   follows the scene camera's target body, else the first body on a free joint;
///   follow:BODY  follows the named body;
///   front, side, top, iso  fixed directions (from +x, from −y, from above, from +x −y above)
///            about the scene camera's target, at its distance (following when it follows).
/// The scene camera's distance is for a 16:9 image: scene and the presets go through
/// fitToAspect(…, aspect); fit and follow frame their bodies for `aspect` directly. A scene camera
/// without a distance (no camera section: an imported robot) stands far enough to frame every body
/// about its target (a followed body: that body with room around it) in a 16:9 image.
/// `extents`: the visuals as drawn (SceneGraph::visualExtents), so that meshes count with their
/// size; without it a mesh counts as a sphere of its scale factor.
/// Throws std::invalid_argument naming the known cameras (or bodies) for anything else.
CameraSpec makeCamera(std::string_view name, const Model& model, const CameraSettings& scene_camera,
                      double aspect, const VisualExtents* extents = nullptr);

}  // namespace rbs::render
