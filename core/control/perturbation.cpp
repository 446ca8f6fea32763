#include "core/control/perturbation.h"

#include <algorithm>
#include <cmath>
#include <numbers>
#include <sstream>

#include "core/math/se3.h"

namespace rbs {

namespace {

std::string number(double v) {
  std::ostringstream s;
  s << v;
  return s.str();
}

/// x ← x + σ n for `count` consecutive entries (nothing drawn for σ = 0).
void addNoise(double* x, int count, double sigma, NoiseGenerator& rng) {
  if (sigma <= 0.0) return;
  for (int i = 0; i < count; ++i) x[i] += sigma * rng.normal();
}

Vec3 drawVec3(double sigma, NoiseGenerator& rng) {
  const double a = rng.normal(), b = rng.normal(), c = rng.normal();
  return sigma * Vec3(a, b, c);
}

/// R ← R exp(wed(σ n)) for a column-stacked rotation matrix.
void perturbRotation(double* R9, double sigma, NoiseGenerator& rng) {
  if (sigma <= 0.0) return;
  Eigen::Map<Mat3> R(R9);
  R = (R * expSO3(drawVec3(sigma, rng))).eval();
}

/// q ← q ⊗ q(exp(σ n)) for a unit quaternion (w, x, y, z).
void perturbQuaternion(double* q4, double sigma, NoiseGenerator& rng) {
  if (sigma <= 0.0) return;
  const Vec3 w = drawVec3(sigma, rng);
  const double angle = w.norm();
  Vec4 dq(1.0, 0.0, 0.0, 0.0);
  if (angle > 0.0) {
    const Vec3 axis = std::sin(0.5 * angle) / angle * w;
    dq = Vec4(std::cos(0.5 * angle), axis.x(), axis.y(), axis.z());
  }
  Eigen::Map<Vec4> q(q4);
  q = quaternionMultiply(Vec4(q), dq);
}

/// A small random rotation of the attitude coordinates: a unit quaternion or a rotation matrix.
void perturbAttitude(bool quaternion, double* x, double sigma, NoiseGenerator& rng) {
  if (quaternion)
    perturbQuaternion(x, sigma, rng);
  else
    perturbRotation(x, sigma, rng);
}

}  // namespace

std::string perturbationError(const PerturbationSettings& s) {
  auto nonNegative = [](const char* key, double v) -> std::string {
    if (std::isfinite(v) && v >= 0.0) return {};
    return std::string(key) + ": expected a finite number ≥ 0, got " + number(v);
  };
  if (!(std::isfinite(s.mass_scale) && s.mass_scale > 0.0))
    return "mass_scale: expected a finite number > 0, got " + number(s.mass_scale);
  for (auto [key, v] : {std::pair<const char*, double>{"noise.position", s.noise.position},
                        {"noise.attitude", s.noise.attitude},
                        {"noise.velocity", s.noise.velocity},
                        {"noise.rate", s.noise.rate},
                        {"noise.joint", s.noise.joint},
                        {"noise.joint_rate", s.noise.joint_rate},
                        {"motion_capture.rate", s.motion_capture.rate},
                        {"motion_capture.latency", s.motion_capture.latency}})
    if (std::string e = nonNegative(key, v); !e.empty()) return e;
  return {};
}

Model scaledModel(const Model& model, double mass_scale) {
  Model scaled = model;
  for (Body& b : scaled.bodies) {
    b.mass *= mass_scale;
    b.inertia_com *= mass_scale;
    b.inertia_origin *= mass_scale;
    b.spatial_inertia *= mass_scale;  // M_b (3.51) is linear in m and Θ: the CoM s is unchanged
  }
  return scaled;
}

double NoiseGenerator::normal() {
  if (has_spare_) {
    has_spare_ = false;
    return spare_;
  }
  // Box–Muller: u1 in (0, 1] so that log(u1) is finite.
  constexpr double kScale = 1.0 / 18446744073709551616.0;  // 2⁻⁶⁴
  const double u1 = (static_cast<double>(engine_()) + 1.0) * kScale;
  const double u2 = static_cast<double>(engine_()) * kScale;
  const double radius = std::sqrt(-2.0 * std::log(std::min(u1, 1.0)));
  const double phase = 2.0 * std::numbers::pi * u2;
  spare_ = radius * std::sin(phase);
  has_spare_ = true;
  return radius * std::cos(phase);
}

void addMeasurementNoise(const Model& model, const PerturbationSettings::Noise& noise,
                         NoiseGenerator& rng, State& state) {
  for (const Joint& j : model.joints) {
    double* x = state.x.data() + j.x_offset;
    double* xi = state.xi.data() + j.xi_offset;
    switch (j.type) {
      case JointType::Fixed:
        break;
      case JointType::Free:
      case JointType::FreeQuaternion:
        addNoise(x, 3, noise.position, rng);
        perturbAttitude(j.type == JointType::FreeQuaternion, x + 3, noise.attitude, rng);
        addNoise(xi, 3, noise.velocity, rng);
        addNoise(xi + 3, 3, noise.rate, rng);
        break;
      case JointType::Spherical:
      case JointType::SphericalAbsolute:
      case JointType::SphericalQuaternion:
        perturbAttitude(j.type == JointType::SphericalQuaternion, x, noise.attitude, rng);
        addNoise(xi, 3, noise.rate, rng);
        break;
      case JointType::SphericalEulerZYX:
        addNoise(x, 3, noise.attitude, rng);
        addNoise(xi, 3, noise.rate, rng);
        break;
      case JointType::Planar:
        addNoise(x, 2, noise.position, rng);
        addNoise(x + 2, 1, noise.attitude, rng);
        addNoise(xi, 2, noise.velocity, rng);
        addNoise(xi + 2, 1, noise.rate, rng);
        break;
      case JointType::RevoluteUnitCircle:
        if (noise.joint > 0.0) {  // rotate (c, s) by a small angle: stays on the circle
          const double d = noise.joint * rng.normal();
          const double c = x[0], s = x[1];
          x[0] = c * std::cos(d) - s * std::sin(d);
          x[1] = s * std::cos(d) + c * std::sin(d);
        }
        addNoise(xi, 1, noise.joint_rate, rng);
        break;
      case JointType::Revolute:
      case JointType::Prismatic:
      case JointType::Universal:
        addNoise(x, j.nx, noise.joint, rng);
        addNoise(xi, j.nxi, noise.joint_rate, rng);
        break;
    }
  }
}

}  // namespace rbs
