#include "core/model/joint.h"

#include <array>
#include <cmath>
#include <numbers>

namespace rbs {
namespace {

struct TypeInfo {
  JointType type;
  std::string_view name;
  int nx;
  int nxi;
  bool constrained;
};

constexpr std::array<TypeInfo, 12> kTypes{{
    {JointType::Fixed, "fixed", 0, 0, false},
    {JointType::Revolute, "revolute", 1, 1, false},
    {JointType::RevoluteUnitCircle, "revolute_unit_circle", 2, 1, true},
    {JointType::Prismatic, "prismatic", 1, 1, false},
    {JointType::Spherical, "spherical", 9, 3, true},
    {JointType::SphericalQuaternion, "spherical_quaternion", 4, 3, true},
    {JointType::SphericalEulerZYX, "spherical_euler_zyx", 3, 3, false},
    {JointType::SphericalAbsolute, "spherical_absolute", 9, 3, true},
    {JointType::Free, "free", 12, 6, true},
    {JointType::FreeQuaternion, "free_quaternion", 7, 6, true},
    {JointType::Planar, "planar", 3, 3, false},
    {JointType::Universal, "universal", 2, 2, false},
}};

const TypeInfo& info(JointType type) {
  for (const auto& t : kTypes)
    if (t.type == type) return t;
  return kTypes[0];
}

using ConstMat3Map = Eigen::Map<const Mat3>;  // column-stacked R: [R_x; R_y; R_z] (thesis §0)
using Mat3Map = Eigen::Map<Mat3>;

/// (A.12) for R: Ṙ += −λ R (RᵀR − I). With λ > 0 the orthogonality error decays like e^{−2λt}.
void addRotationStabilization(const double* R_data, double gain, double* Rdot_data) {
  if (gain == 0.0) return;
  const ConstMat3Map R(R_data);
  Mat3Map Rdot(Rdot_data);
  Rdot -= gain * R * (R.transpose() * R - Mat3::Identity());
}

/// (A.10) for a vector with constraint |q|² = 1: q̇ += −λ (qᵀq − 1)/(2 qᵀq) q, so φ̇ = −λφ exactly.
template <int N>
void addNormStabilization(const double* q_data, double gain, double* qdot_data) {
  if (gain == 0.0) return;
  const Eigen::Map<const Eigen::Matrix<double, N, 1>> q(q_data);
  Eigen::Map<Eigen::Matrix<double, N, 1>> qdot(qdot_data);
  const double n2 = q.squaredNorm();
  qdot -= gain * (n2 - 1.0) / (2.0 * n2) * q;
}

/// q̇ = ½ q ⊗ [0; ω] (Hamilton, scalar first).
void quaternionRate(const double* q_data, const Vec3& w, double* qdot) {
  const Vec4 q(q_data[0], q_data[1], q_data[2], q_data[3]);
  const Vec4 rate = 0.5 * quaternionMultiply(q, Vec4(0.0, w.x(), w.y(), w.z()));
  for (int i = 0; i < 4; ++i) qdot[i] = rate(i);
}

/// Y of (1.6b): body angular velocity ω = Y(α, β) (α̇, β̇, φ̇).
Mat3 eulerRateMatrix(double roll, double pitch) {
  const double sa = std::sin(roll), ca = std::cos(roll), sb = std::sin(pitch), cb = std::cos(pitch);
  Mat3 Y;
  Y << 1, 0, -sb, 0, ca, cb * sa, 0, -sa, cb * ca;
  return Y;
}

/// The joint's motion pose (between T_p and T_c). Always inlined: jointTransform, called per body
/// in every kinematics pass, spends 15 % more instructions on the quadcopter with a call here
/// (callgrind), and GCC stops inlining it on its own once there is a second caller.
[[gnu::always_inline]] inline Pose motionPose(const Joint& j, const double* x) {
  switch (j.type) {
    case JointType::Fixed:
      return Pose::identity();
    case JointType::Revolute:
      return Pose::rotation(axisAngleRotation(j.axis, x[0]));
    case JointType::RevoluteUnitCircle:
      return Pose::rotation(axisCosSinRotation(j.axis, x[0], x[1]));
    case JointType::Prismatic:
      return Pose::translation(j.axis * x[0]);
    case JointType::Spherical:
    case JointType::SphericalAbsolute:
      return Pose::rotation(ConstMat3Map(x));
    case JointType::SphericalQuaternion:
      return Pose::rotation(quaternionToRotation(Vec4(x[0], x[1], x[2], x[3])));
    case JointType::SphericalEulerZYX:
      return Pose::rotation(rotationZYX(x[0], x[1], x[2]));
    case JointType::Free:
      return Pose{ConstMat3Map(x + 3), Vec3(x[0], x[1], x[2])};
    case JointType::FreeQuaternion:
      return Pose{quaternionToRotation(Vec4(x[3], x[4], x[5], x[6])), Vec3(x[0], x[1], x[2])};
    case JointType::Planar:
      return Pose{axisAngleRotation(Vec3::UnitZ(), x[2]), Vec3(x[0], x[1], 0.0)};
    case JointType::Universal:
      return Pose::rotation(axisAngleRotation(j.axis, x[0]) * axisAngleRotation(j.axis2, x[1]));
  }
  return Pose::identity();
}

Vec6 angular(const Vec3& w) {
  Vec6 out;
  out << Vec3::Zero(), w;
  return out;
}

}  // namespace

namespace {

// Coordinate names per joint type (the layouts of the joint table above).
constexpr CoordinateInfo kAngle[] = {{"angle", "rad", "joint angle about the axis"}};
constexpr CoordinateInfo kUnitCircle[] = {{"c", "1", "cosine of the joint angle (unit-circle coordinate)"},
                                          {"s", "1", "sine of the joint angle (unit-circle coordinate)"}};
constexpr CoordinateInfo kDisplacement[] = {{"position", "m", "displacement along the axis"}};
constexpr CoordinateInfo kRate[] = {{"rate", "rad/s", "joint rate about the axis"}};
constexpr CoordinateInfo kLinearRate[] = {{"rate", "m/s", "joint rate along the axis"}};
#define RBS_R_ENTRY(i, j) {"R" #i #j, "1", "rotation matrix entry (" #i ", " #j ") of the joint's rotation"}
constexpr CoordinateInfo kRotation[] = {RBS_R_ENTRY(1, 1), RBS_R_ENTRY(2, 1), RBS_R_ENTRY(3, 1),
                                        RBS_R_ENTRY(1, 2), RBS_R_ENTRY(2, 2), RBS_R_ENTRY(3, 2),
                                        RBS_R_ENTRY(1, 3), RBS_R_ENTRY(2, 3), RBS_R_ENTRY(3, 3)};
constexpr CoordinateInfo kPositionRotation[] = {
    {"x", "m", "position x in the joint frame"}, {"y", "m", "position y in the joint frame"},
    {"z", "m", "position z in the joint frame"}, RBS_R_ENTRY(1, 1), RBS_R_ENTRY(2, 1), RBS_R_ENTRY(3, 1),
    RBS_R_ENTRY(1, 2), RBS_R_ENTRY(2, 2), RBS_R_ENTRY(3, 2), RBS_R_ENTRY(1, 3), RBS_R_ENTRY(2, 3), RBS_R_ENTRY(3, 3)};
#undef RBS_R_ENTRY
constexpr CoordinateInfo kQuaternion[] = {{"qw", "1", "quaternion w of the joint's rotation"},
                                          {"qx", "1", "quaternion x of the joint's rotation"},
                                          {"qy", "1", "quaternion y of the joint's rotation"},
                                          {"qz", "1", "quaternion z of the joint's rotation"}};
constexpr CoordinateInfo kPositionQuaternion[] = {
    {"x", "m", "position x in the joint frame"}, {"y", "m", "position y in the joint frame"},
    {"z", "m", "position z in the joint frame"}, {"qw", "1", "quaternion w of the joint's rotation"},
    {"qx", "1", "quaternion x of the joint's rotation"}, {"qy", "1", "quaternion y of the joint's rotation"},
    {"qz", "1", "quaternion z of the joint's rotation"}};
constexpr CoordinateInfo kEuler[] = {{"roll", "rad", "roll angle (about x, applied first)"},
                                     {"pitch", "rad", "pitch angle (about y)"},
                                     {"yaw", "rad", "yaw angle (about z, applied last)"}};
constexpr CoordinateInfo kEulerRates[] = {{"roll_rate", "rad/s", "roll rate"},
                                          {"pitch_rate", "rad/s", "pitch rate"},
                                          {"yaw_rate", "rad/s", "yaw rate"}};
constexpr CoordinateInfo kRelativeOmega[] = {{"wx", "rad/s", "angular velocity x relative to the parent (joint's moving frame)"},
                                             {"wy", "rad/s", "angular velocity y relative to the parent (joint's moving frame)"},
                                             {"wz", "rad/s", "angular velocity z relative to the parent (joint's moving frame)"}};
constexpr CoordinateInfo kAbsoluteOmega[] = {{"wx", "rad/s", "absolute angular velocity x of the child (child frame)"},
                                             {"wy", "rad/s", "absolute angular velocity y of the child (child frame)"},
                                             {"wz", "rad/s", "absolute angular velocity z of the child (child frame)"}};
constexpr CoordinateInfo kBodyTwist[] = {{"vx", "m/s", "velocity x relative to the parent (joint's moving frame)"},
                                         {"vy", "m/s", "velocity y relative to the parent (joint's moving frame)"},
                                         {"vz", "m/s", "velocity z relative to the parent (joint's moving frame)"},
                                         {"wx", "rad/s", "angular velocity x relative to the parent (joint's moving frame)"},
                                         {"wy", "rad/s", "angular velocity y relative to the parent (joint's moving frame)"},
                                         {"wz", "rad/s", "angular velocity z relative to the parent (joint's moving frame)"}};
constexpr CoordinateInfo kPlanar[] = {{"x", "m", "position x in the joint frame's plane"},
                                      {"y", "m", "position y in the joint frame's plane"},
                                      {"angle", "rad", "rotation angle about the plane's normal"}};
constexpr CoordinateInfo kPlanarTwist[] = {{"vx", "m/s", "velocity x in the moving frame"},
                                           {"vy", "m/s", "velocity y in the moving frame"},
                                           {"wz", "rad/s", "angular velocity about the plane's normal"}};
constexpr CoordinateInfo kUniversal[] = {{"angle1", "rad", "angle about the first axis"},
                                         {"angle2", "rad", "angle about the second axis"}};
constexpr CoordinateInfo kUniversalRates[] = {{"rate1", "rad/s", "rate about the first axis"},
                                              {"rate2", "rad/s", "rate about the second axis"}};

}  // namespace

std::span<const CoordinateInfo> configurationCoordinates(JointType type) {
  switch (type) {
    case JointType::Fixed: return {};
    case JointType::Revolute: return kAngle;
    case JointType::RevoluteUnitCircle: return kUnitCircle;
    case JointType::Prismatic: return kDisplacement;
    case JointType::Spherical:
    case JointType::SphericalAbsolute: return kRotation;
    case JointType::SphericalQuaternion: return kQuaternion;
    case JointType::SphericalEulerZYX: return kEuler;
    case JointType::Free: return kPositionRotation;
    case JointType::FreeQuaternion: return kPositionQuaternion;
    case JointType::Planar: return kPlanar;
    case JointType::Universal: return kUniversal;
  }
  return {};
}

std::span<const CoordinateInfo> velocityCoordinates(JointType type) {
  switch (type) {
    case JointType::Fixed: return {};
    case JointType::Revolute:
    case JointType::RevoluteUnitCircle: return kRate;
    case JointType::Prismatic: return kLinearRate;
    case JointType::Spherical:
    case JointType::SphericalQuaternion: return kRelativeOmega;
    case JointType::SphericalAbsolute: return kAbsoluteOmega;
    case JointType::SphericalEulerZYX: return kEulerRates;
    case JointType::Free:
    case JointType::FreeQuaternion: return kBodyTwist;
    case JointType::Planar: return kPlanarTwist;
    case JointType::Universal: return kUniversalRates;
  }
  return {};
}

int configurationSize(JointType type) { return info(type).nx; }
int velocitySize(JointType type) { return info(type).nxi; }
std::string_view jointTypeName(JointType type) { return info(type).name; }
bool hasCoordinateConstraint(JointType type) { return info(type).constrained; }

bool hasConstantMotionSubspace(JointType type) {
  return type != JointType::SphericalEulerZYX && type != JointType::Universal;
}

bool isSphericalType(JointType type) {
  return type == JointType::Spherical || type == JointType::SphericalQuaternion ||
         type == JointType::SphericalEulerZYX || type == JointType::SphericalAbsolute;
}

bool isRevoluteType(JointType type) {
  return type == JointType::Revolute || type == JointType::RevoluteUnitCircle;
}

bool hasScalarPosition(JointType type) { return isRevoluteType(type) || type == JointType::Prismatic; }

bool usesAxis(JointType type) { return hasScalarPosition(type) || type == JointType::Universal; }

std::optional<JointType> jointTypeFromName(std::string_view name) {
  for (const auto& t : kTypes)
    if (t.name == name) return t.type;
  return std::nullopt;
}

Pose jointMotionPose(const Joint& joint, const double* x_e) {
  return motionPose(joint, x_e);
}

Pose jointTransform(const Joint& joint, const double* x_e) {
  const Pose motion = motionPose(joint, x_e);
  const Pose placed = joint.has_parent_placement ? joint.parent_placement * motion : motion;
  return joint.has_child_placement ? placed * joint.child_placement : placed;
}

void formRevoluteRotationTerms(Joint& j) {
  const Mat3 R_p = j.has_parent_placement ? j.parent_placement.R : Mat3::Identity();
  const Mat3 a_hat = wed(j.axis);
  j.rotation_sin = R_p * a_hat;
  j.rotation_cos = -j.rotation_sin * a_hat;
  j.rotation_constant = R_p - j.rotation_cos;
}

void evaluateJoint(const Joint& j, const double* x, const double* xi, const Vec6& parent_twist,
                   const Vec6& parent_bias, JointMotion& out) {
  if (isPlainRevolute(j)) {
    // The joint of imported robots, in one piece (the general path below gives the same numbers
    // with two type switches and a dynamic-size S): G_e = T_p Rot(a, θ), S_e = [0; a], σ_e = 0.
    const double s = std::sin(x[0]), c = std::cos(x[0]);
    out.transform = Pose{j.rotation_constant + s * j.rotation_sin + c * j.rotation_cos,
                         j.has_parent_placement ? j.parent_placement.r : Vec3::Zero()};
    out.drops_parent_rotation = false;
    out.bias.setZero();
    out.S.resize(6, 1);
    out.S.col(0) << 0.0, 0.0, 0.0, j.axis;
    out.relative_twist << 0.0, 0.0, 0.0, j.axis * xi[0];
    return;
  }
  out.transform = jointTransform(j, x);
  out.drops_parent_rotation = false;
  out.bias.setZero();
  out.S.resize(6, j.nxi);

  switch (j.type) {
    case JointType::Fixed:
      break;
    case JointType::Revolute:  // one column, written whole (no setZero of the dynamic block first)
    case JointType::RevoluteUnitCircle:
      out.S.col(0) << 0.0, 0.0, 0.0, j.axis;
      break;
    case JointType::Prismatic:
      out.S.col(0) << j.axis, 0.0, 0.0, 0.0;
      break;
    default:
      out.S.setZero();
      break;
  }
  switch (j.type) {
    case JointType::Fixed:
    case JointType::Revolute:
    case JointType::RevoluteUnitCircle:
    case JointType::Prismatic:
      break;
    case JointType::Spherical:
    case JointType::SphericalQuaternion:
      out.S.bottomRows<3>().setIdentity();
      break;
    case JointType::SphericalEulerZYX: {
      // S_e = [0; Y(x)], σ_e = [0; Ẏ ẋ_e] with ẋ_e = ξ_e (konz-modeling §10, Euler notes).
      out.S.bottomRows<3>() = eulerRateMatrix(x[0], x[1]);
      const double sa = std::sin(x[0]), ca = std::cos(x[0]);
      const double sb = std::sin(x[1]), cb = std::cos(x[1]);
      const double da = xi[0], db = xi[1], dp = xi[2];
      out.bias.tail<3>() << -cb * db * dp, -sa * da * db + ca * cb * da * dp - sa * sb * db * dp,
          -ca * da * db - sa * cb * da * dp - ca * sb * db * dp;
      break;
    }
    case JointType::SphericalAbsolute: {
      // Thesis Example 7 with the placement rotation R_p (konz-modeling §10, corrected row):
      // R̄ = R_p R, ^λ_b ω = ω_b − R̄ᵀ ω_λ, σ_e = [0; wed(^λ_b ω) R̄ᵀ ω_λ − R̄ᵀ (κ_λ)_ω].
      // T_c = I is required (checked by the builder).
      out.S.bottomRows<3>().setIdentity();
      const Mat3 Rbar_t = out.transform.R.transpose();
      const Vec3 w_parent = parent_twist.tail<3>();
      const Vec3 w_rel = Vec3(xi[0], xi[1], xi[2]) - Rbar_t * w_parent;
      out.relative_twist = angular(w_rel);
      out.bias = angular(w_rel.cross(Rbar_t * w_parent) - Rbar_t * parent_bias.tail<3>());
      out.drops_parent_rotation = true;
      return;  // T_c = I: nothing to map
    }
    case JointType::Free:
    case JointType::FreeQuaternion:
      out.S.setIdentity();
      break;
    case JointType::Planar:
      out.S(0, 0) = 1.0;
      out.S(1, 1) = 1.0;
      out.S(5, 2) = 1.0;
      break;
    case JointType::Universal: {
      // S_e = [0 0; u a₂], u = Rot(a₂, θ₂)ᵀ a₁; σ_e = [0; θ̇₁ θ̇₂ u × a₂].
      const Vec3 u = axisAngleRotation(j.axis2, x[1]).transpose() * j.axis;
      out.S.col(0).tail<3>() = u;
      out.S.col(1).tail<3>() = j.axis2;
      out.bias.tail<3>() = xi[0] * xi[1] * u.cross(j.axis2);
      break;
    }
  }

  if (j.has_child_placement) {
    // With a constant offset T_c after the motion: S_e → Ad_{T_c⁻¹} S_e, σ_e → Ad_{T_c⁻¹} σ_e.
    for (int c = 0; c < j.nxi; ++c) out.S.col(c) = adjointInvTimes(j.child_placement, out.S.col(c));
    out.bias = adjointInvTimes(j.child_placement, out.bias);
  }
  if (hasIdentityMotionSubspace(j)) {
    out.relative_twist = Eigen::Map<const Vec6>(xi);  // S_e = I
    return;
  }
  if (j.nxi == 1) {
    out.relative_twist = out.S.col(0) * xi[0];
    return;
  }
  out.relative_twist.setZero();
  for (int c = 0; c < j.nxi; ++c) out.relative_twist += out.S.col(c) * xi[c];
}

void jointConfigurationRate(const Joint& j, const double* x, const double* xi,
                            const Vec6& parent_twist, double gain, double* xdot) {
  switch (j.type) {
    case JointType::Fixed:
      return;
    case JointType::Revolute:
    case JointType::Prismatic:
      xdot[0] = xi[0];
      return;
    case JointType::RevoluteUnitCircle:
      xdot[0] = -x[1] * xi[0];
      xdot[1] = x[0] * xi[0];
      addNormStabilization<2>(x, gain, xdot);
      return;
    case JointType::Spherical: {
      Mat3Map{xdot} = ConstMat3Map(x) * wed(Vec3(xi[0], xi[1], xi[2]));
      addRotationStabilization(x, gain, xdot);
      return;
    }
    case JointType::SphericalAbsolute: {
      // Ṙ = R wed(ω_b) − wed(R_pᵀ ω_λ) R
      const ConstMat3Map R(x);
      const Vec3 w_parent = j.parent_placement.R.transpose() * parent_twist.tail<3>();
      Mat3Map{xdot} = R * wed(Vec3(xi[0], xi[1], xi[2])) - wed(w_parent) * R;
      addRotationStabilization(x, gain, xdot);
      return;
    }
    case JointType::SphericalQuaternion:
      quaternionRate(x, Vec3(xi[0], xi[1], xi[2]), xdot);
      addNormStabilization<4>(x, gain, xdot);
      return;
    case JointType::SphericalEulerZYX:
    case JointType::Universal:
      for (int i = 0; i < j.nxi; ++i) xdot[i] = xi[i];
      return;
    case JointType::Free: {
      const ConstMat3Map R(x + 3);
      Eigen::Map<Vec3>{xdot} = R * Vec3(xi[0], xi[1], xi[2]);
      Mat3Map{xdot + 3} = R * wed(Vec3(xi[3], xi[4], xi[5]));
      addRotationStabilization(x + 3, gain, xdot + 3);
      return;
    }
    case JointType::FreeQuaternion: {
      const Mat3 R = quaternionToRotation(Vec4(x[3], x[4], x[5], x[6]));
      Eigen::Map<Vec3>{xdot} = R * Vec3(xi[0], xi[1], xi[2]);
      quaternionRate(x + 3, Vec3(xi[3], xi[4], xi[5]), xdot + 3);
      addNormStabilization<4>(x + 3, gain, xdot + 3);
      return;
    }
    case JointType::Planar: {
      const double c = std::cos(x[2]), s = std::sin(x[2]);
      xdot[0] = c * xi[0] - s * xi[1];
      xdot[1] = s * xi[0] + c * xi[1];
      xdot[2] = xi[2];
      return;
    }
  }
}

double jointCoordinateDrift(const Joint& j, const double* x) {
  switch (j.type) {
    case JointType::RevoluteUnitCircle:
      return std::abs(x[0] * x[0] + x[1] * x[1] - 1.0);
    case JointType::Spherical:
    case JointType::SphericalAbsolute:
      return orthogonalityError(ConstMat3Map(x));
    case JointType::Free:
      return orthogonalityError(ConstMat3Map(x + 3));
    case JointType::SphericalQuaternion:
      return std::abs(Eigen::Map<const Vec4>(x).squaredNorm() - 1.0);
    case JointType::FreeQuaternion:
      return std::abs(Eigen::Map<const Vec4>(x + 3).squaredNorm() - 1.0);
    default:
      return 0.0;
  }
}

void projectJointCoordinates(const Joint& j, double* x) {
  switch (j.type) {
    case JointType::RevoluteUnitCircle: {
      const double rho = std::hypot(x[0], x[1]);
      x[0] /= rho;
      x[1] /= rho;
      return;
    }
    case JointType::Spherical:
    case JointType::SphericalAbsolute:
      Mat3Map{x} = projectToSO3(Mat3Map(x));
      return;
    case JointType::Free:
      Mat3Map{x + 3} = projectToSO3(Mat3Map(x + 3));
      return;
    case JointType::SphericalQuaternion:
      Eigen::Map<Vec4>(x).normalize();
      return;
    case JointType::FreeQuaternion:
      Eigen::Map<Vec4>(x + 3).normalize();
      return;
    default:
      return;
  }
}

void jointCoordinatesFromMotion(const Joint& j, const Pose& m, double* x) {
  switch (j.type) {
    case JointType::Fixed:
      return;
    case JointType::Revolute:
    case JointType::RevoluteUnitCircle: {
      // Angle of the rotation about the axis: sin θ = ½ aᵀ vee2(R), cos θ from the trace.
      const double s = 0.5 * j.axis.dot(vee2(m.R));
      // For a rotation about a: tr R = 1 + 2 cos θ and aᵀRa = 1, so cos θ = ½(tr R − aᵀRa).
      const double c = 0.5 * (m.R.trace() - j.axis.dot(m.R * j.axis));
      const double angle = std::atan2(s, c);
      if (j.type == JointType::Revolute) {
        x[0] = angle;
      } else {
        x[0] = std::cos(angle);
        x[1] = std::sin(angle);
      }
      return;
    }
    case JointType::Prismatic:
      x[0] = j.axis.dot(m.r);
      return;
    case JointType::Spherical:
    case JointType::SphericalAbsolute:
      Mat3Map{x} = m.R;
      return;
    case JointType::SphericalQuaternion:
      Eigen::Map<Vec4>{x} = rotationToQuaternion(m.R);
      return;
    case JointType::SphericalEulerZYX:
      Eigen::Map<Vec3>{x} = eulerZYXFromRotation(m.R);
      return;
    case JointType::Free:
      Eigen::Map<Vec3>{x} = m.r;
      Mat3Map{x + 3} = m.R;
      return;
    case JointType::FreeQuaternion:
      Eigen::Map<Vec3>{x} = m.r;
      Eigen::Map<Vec4>{x + 3} = rotationToQuaternion(m.R);
      return;
    case JointType::Planar:
      x[0] = m.r.x();
      x[1] = m.r.y();
      x[2] = std::atan2(m.R(1, 0), m.R(0, 0));
      return;
    case JointType::Universal: {
      // R = Rot(a₁, θ₁) Rot(a₂, θ₂): with a₁ ⊥ a₂, θ₂ rotates a₁-orthogonal directions; solve by
      // the images of the axes: Rᵀ a₁ = Rot(a₂,θ₂)ᵀ a₁ gives θ₂, R a₂ = Rot(a₁,θ₁) a₂ gives θ₁.
      const Vec3 a1 = j.axis, a2 = j.axis2;
      const Vec3 u = m.R.transpose() * a1;  // = Rot(a₂, −θ₂) a₁
      const Vec3 w = m.R * a2;              // = Rot(a₁, θ₁) a₂
      const Vec3 a1p = (a1 - a1.dot(a2) * a2).normalized();
      const Vec3 a2p = (a2 - a2.dot(a1) * a1).normalized();
      x[1] = std::atan2(-u.dot(a2.cross(a1p)), u.dot(a1p));
      x[0] = std::atan2(w.dot(a1.cross(a2p)), w.dot(a2p));
      return;
    }
  }
}

void neutralJointCoordinates(const Joint& j, double* x) {
  jointCoordinatesFromMotion(j, Pose::identity(), x);
}

bool isFreeType(JointType type) {
  return type == JointType::Free || type == JointType::FreeQuaternion;
}

bool hasIdentityMotionSubspace(const Joint& j) { return isFreeType(j.type) && !j.has_child_placement; }

bool hasAmbiguousCoordinates(JointType type) {
  switch (type) {
    case JointType::Revolute:
    case JointType::Universal:
    case JointType::Planar:
    case JointType::SphericalEulerZYX:
    case JointType::SphericalQuaternion:
    case JointType::FreeQuaternion:
      return true;
    default:
      return false;
  }
}

void alignJointCoordinates(const Joint& j, double* x, const double* near) {
  constexpr double kTwoPi = 2.0 * std::numbers::pi;
  auto unwrap = [&](int i) { x[i] += kTwoPi * std::round((near[i] - x[i]) / kTwoPi); };
  auto alignSign = [&](int first) {
    double d = 0.0;
    for (int i = first; i < first + 4; ++i) d += x[i] * near[i];
    if (d < 0.0)
      for (int i = first; i < first + 4; ++i) x[i] = -x[i];
  };
  switch (j.type) {
    case JointType::Revolute:
      unwrap(0);
      break;
    case JointType::Universal:
      unwrap(0);
      unwrap(1);
      break;
    case JointType::Planar:
      unwrap(2);
      break;
    case JointType::SphericalEulerZYX:  // (roll, pitch, yaw): pitch lies in [−π/2, π/2]
      unwrap(0);
      unwrap(2);
      break;
    case JointType::SphericalQuaternion:
      alignSign(0);
      break;
    case JointType::FreeQuaternion:
      alignSign(3);
      break;
    default:
      break;
  }
}

double jointScalarPosition(const Joint& joint, const double* x_e) {
  return joint.type == JointType::RevoluteUnitCircle ? std::atan2(x_e[1], x_e[0]) : x_e[0];
}

double jointSpringPotential(const Joint& joint, const double* x_e, double stiffness, double rest) {
  if (joint.type == JointType::RevoluteUnitCircle) {
    const double rho = std::hypot(x_e[0], x_e[1]);
    const double cos_diff = (x_e[0] * std::cos(rest) + x_e[1] * std::sin(rest)) / rho;
    return stiffness * (1.0 - cos_diff);
  }
  return 0.5 * stiffness * (x_e[0] - rest) * (x_e[0] - rest);
}

double jointSpringForce(const Joint& joint, const double* x_e, double stiffness, double rest) {
  if (joint.type == JointType::RevoluteUnitCircle) {
    // V = k (1 − cos(θ − θ₀)) ⇒ ∂V/∂θ = k sin(θ − θ₀), with (cos θ, sin θ) = (c, s)/ρ.
    const double rho = std::hypot(x_e[0], x_e[1]);
    return stiffness * (x_e[1] * std::cos(rest) - x_e[0] * std::sin(rest)) / rho;
  }
  return stiffness * (x_e[0] - rest);
}

void setJointScalarPosition(const Joint& joint, double q, double* x_e) {
  if (joint.type == JointType::RevoluteUnitCircle) {
    x_e[0] = std::cos(q);
    x_e[1] = std::sin(q);
  } else {
    x_e[0] = q;
  }
}

}  // namespace rbs
