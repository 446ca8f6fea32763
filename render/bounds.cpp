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

Bounds bodyBoundsLocal(const Model& model, int body) {
  Bounds b;
  for (const Visual& v : model.visuals)
    if (v.body == body) b.expand(v.origin.r, visualRadius(v));
  if (b.empty) {
    b.expand(Vec3::Zero());
    b.expand(model.bodies[body].com);
  }
  return b;
}

Bounds sceneBounds(const Model& model, const std::vector<Pose>& body_poses) {
  Bounds out;
  for (int b = 0; b < model.numBodies() && b < static_cast<int>(body_poses.size()); ++b) {
    const Bounds local = bodyBoundsLocal(model, b);
    out.expand(body_poses[b] * local.center, local.radius);
  }
  return out;
}

}  // namespace rbs::render
