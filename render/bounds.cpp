#include "render/bounds.h"

#include <algorithm>

namespace rbs::render {

void Bounds::expand(const Vec3& point, double point_radius) {
  Bounds b;
  b.center = point;
  b.radius = point_radius;
  b.empty = false;
  expand(b);
}

void Bounds::expand(const Bounds& o) {
  if (o.empty) return;
  if (empty) {
    *this = o;
    return;
  }
  const double d = (o.center - center).norm();
  if (d + o.radius <= radius) return;  // o inside
  if (d + radius <= o.radius) {        // this inside o
    *this = o;
    return;
  }
  const double new_radius = 0.5 * (d + radius + o.radius);
  center += (new_radius - radius) / d * (o.center - center);
  radius = new_radius;
}

double visualRadius(const Visual& v) {
  switch (v.shape) {
    case Visual::Shape::Box:
      return 0.5 * v.size.norm();
    case Visual::Shape::Cylinder:
      return std::hypot(v.size[0], 0.5 * v.size[1]);
    case Visual::Shape::Capsule:
      return v.size[0] + 0.5 * v.size[1];
    case Visual::Shape::Sphere:
      return v.size[0];
    case Visual::Shape::Mesh:
      return v.size.cwiseAbs().maxCoeff();
  }
  return 0.0;
}

Bounds visualBoundsLocal(const Model& model, int i, const VisualExtents* extents) {
  if (extents && i < static_cast<int>(extents->size()) && !(*extents)[i].empty) return (*extents)[i];
  const Visual& v = model.visuals[i];
  Bounds b;
  b.expand(v.origin.r, visualRadius(v));
  return b;
}

Bounds bodyBoundsLocal(const Model& model, int body, const VisualExtents* extents) {
  Bounds b;
  for (int i = 0; i < static_cast<int>(model.visuals.size()); ++i)
    if (model.visuals[i].body == body) b.expand(visualBoundsLocal(model, i, extents));
  if (b.empty) {
    b.expand(Vec3::Zero());
    b.expand(model.bodies[body].com);
  }
  return b;
}

std::vector<Bounds> visualSpheres(const Model& model, const std::vector<Pose>& body_poses,
                                  const VisualExtents* extents) {
  std::vector<Bounds> out;
  std::vector<bool> drawn(model.numBodies(), false);
  for (int i = 0; i < static_cast<int>(model.visuals.size()); ++i) {
    const int b = model.visuals[i].body;
    if (b < 0 || b >= static_cast<int>(body_poses.size())) continue;
    const Bounds local = visualBoundsLocal(model, i, extents);
    out.emplace_back().expand(body_poses[b] * local.center, local.radius);
    drawn[b] = true;
  }
  for (int b = 0; b < model.numBodies() && b < static_cast<int>(body_poses.size()); ++b)
    if (!drawn[b]) out.emplace_back().expand(body_poses[b].r);
  return out;
}

Bounds sceneBounds(const Model& model, const std::vector<Pose>& body_poses, const VisualExtents* extents) {
  Bounds out;
  for (int b = 0; b < model.numBodies() && b < static_cast<int>(body_poses.size()); ++b) {
    const Bounds local = bodyBoundsLocal(model, b, extents);
    out.expand(body_poses[b] * local.center, local.radius);
  }
  return out;
}

}  // namespace rbs::render
