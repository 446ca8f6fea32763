#include "core/control/perturbation.h"

#include <algorithm>
#include <cmath>
#include <numbers>
#include <sstream>

#include <Eigen/LU>

#include "core/math/se3.h"

namespace rbs {

Vec3 drawVec3(double sigma, NoiseGenerator& rng) {
  const double a = rng.normal(), b = rng.normal(), c = rng.normal();
  return sigma * Vec3(a, b, c);
}

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

/// The error dynamics of one motion-capture cycle (5.62) with the gains (5.64) are, per axis and
/// for T'_S = 1 (the characteristic polynomial (5.65) does not depend on T'_S),
///   A_e = [1−l_r, 1−l_r, −(1−l_r)/2; −l_v, 1−l_v, l_v/2 − 1; −2l_a, −2l_a, 1+l_a].
/// Stable when the roots of det(λI − A_e) = λ³ + c₂λ² + c₁λ + c₀ lie inside the unit circle (Jury).
/// The thesis gains (1, 0.575, −0.025) give the roots {0, 0.5, 0.9}.
bool stableCorrectionGains(double l_r, double l_v, double l_a) {
  Mat3 A;
  A << 1 - l_r, 1 - l_r, -0.5 * (1 - l_r), -l_v, 1 - l_v, 0.5 * l_v - 1, -2 * l_a, -2 * l_a, 1 + l_a;
  const double c2 = -A.trace();
  const double c1 = A(0, 0) * A(1, 1) - A(0, 1) * A(1, 0) + A(0, 0) * A(2, 2) - A(0, 2) * A(2, 0) +
                    A(1, 1) * A(2, 2) - A(1, 2) * A(2, 1);
  const double c0 = -A.determinant();
  const double p1 = 1 + c2 + c1 + c0, pm1 = -1 + c2 - c1 + c0;
  return std::abs(c0) < 1 && p1 > 0 && pm1 < 0 && std::abs(c0 * c0 - 1) > std::abs(c0 * c2 - c1);
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
  const PerturbationSettings::Estimator& est = s.estimator;
  auto inRange = [](const char* key, double v, double lo, double hi, bool hi_open) -> std::string {
    if (std::isfinite(v) && v >= lo && (hi_open ? v < hi : v <= hi)) return {};
    return std::string(key) + ": expected a number in [" + number(lo) + ", " + number(hi) +
           (hi_open ? ")" : "]") + ", got " + number(v);
  };
  for (auto [key, v] : {std::pair<const char*, double>{"estimator.l_tau", est.l_tau},
                        {"imu.gyro_noise", s.imu.gyro_noise},
                        {"imu.accel_noise", s.imu.accel_noise}})
    if (std::string e = nonNegative(key, v); !e.empty()) return e;
  if (std::string e = inRange("estimator.l_omega", est.l_omega, 0.0, 1.0, false); !e.empty())
    return e;
  if (std::string e = inRange("estimator.l_f", est.l_f, 0.0, 1.0, true); !e.empty()) return e;
  for (auto [key, v] : {std::pair<const char*, double>{"estimator.l_r", est.l_r},
                        {"estimator.l_v", est.l_v},
                        {"estimator.l_a", est.l_a}})
    if (!std::isfinite(v)) return std::string(key) + ": expected a finite number, got " + number(v);
  if (!stableCorrectionGains(est.l_r, est.l_v, est.l_a))
    return "estimator: the gains l_r = " + number(est.l_r) + ", l_v = " + number(est.l_v) +
           ", l_a = " + number(est.l_a) +
           " give unstable position/velocity/bias error dynamics (5.65): choose the roots inside "
           "the unit circle (thesis: 1, 0.575, -0.025 for {0, 0.5, 0.9})";
  if (!s.imu.accel_bias.allFinite() || !s.imu.misalignment_rpy.allFinite())
    return "imu: accel_bias and misalignment_rpy need finite numbers";
  return {};
}

std::shared_ptr<const Model> controllerModel(const Model& plant,
                                             const PerturbationSettings& settings) {
  if (!settings.changesControllerModel()) return nullptr;
  Model model = scaledModel(plant, settings.mass_scale);
  if (!settings.external_wrenches_known) model.external_wrenches.clear();
  return std::make_shared<const Model>(std::move(model));
}

Model scaledModel(const Model& model, double mass_scale) {
  Model scaled = model;
  for (Body& b : scaled.bodies) {
    b.mass *= mass_scale;
    b.inertia_com *= mass_scale;
    b.inertia_origin *= mass_scale;
    b.spatial_inertia *= mass_scale;  // M_b (3.51) is linear in m and Θ: the CoM s is unchanged
  }
  for (Joint& j : scaled.joints) {  // geared rotors are inertia too (Joint::armature, rotor_coupling)
    j.armature *= mass_scale;
    j.rotor_coupling *= mass_scale;
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

void addPoseNoise(double sigma_position, double sigma_attitude, NoiseGenerator& rng, Vec3& r,
                  Mat3& R) {
  addNoise(r.data(), 3, sigma_position, rng);
  perturbRotation(R.data(), sigma_attitude, rng);
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
