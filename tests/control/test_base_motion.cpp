// The units a reference's base is composed of (core/control/base_motion.h,
// core/control/base_coordinates.h), each on its own: every rate a unit reports is checked against
// a central difference of what it reports as the value, plus each unit's defining property (the
// heading's axis, the flat thrust direction, the constant twist, continuity).
// tests/control/test_reference.cpp checks them composed, through makeReference.
#include <gtest/gtest.h>

#include <cmath>
#include <functional>
#include <numbers>

#include "core/control/base_coordinates.h"
#include "core/control/base_motion.h"
#include "tests/support/matrix_compare.h"

namespace rbs {
namespace {

constexpr double kPi = std::numbers::pi;
// Central differences with step δ = 1e-5: truncation δ²/6 |f⁽³⁾| ≲ 1e-8 on these paths, rounding
// ≲ 1e-16/δ ≈ 1e-11; 1e-6 relative to 1 + |ḟ| still catches a wrong factor or sign.
constexpr double kFdStep = 1e-5;
constexpr double kFdTol = 1e-6;

using traj::Jet;

std::shared_ptr<const traj::Path> sinusoid(std::vector<double> offset, std::vector<double> amplitude,
                                           double period) {
  const std::size_t n = offset.size();
  return std::make_shared<traj::SinusoidPath>(std::move(offset), std::move(amplitude),
                                              std::vector<double>(n, period), std::vector<double>(n, 0.3));
}

/// A circle of radius 0.8 about (0.5, −0.2, 1.5) in a tilted plane, with a smooth start.
std::shared_ptr<const traj::CirclePath> tiltedCircle(const Vec3& normal) {
  Vec3 a = Vec3::UnitX() - normal.x() * normal;
  a.normalize();
  const Vec3 b = normal.cross(a);
  return std::make_shared<traj::CirclePath>(std::vector<double>{0.5, -0.2, 1.5},
                                            std::vector<double>{a.x(), a.y(), a.z()},
                                            std::vector<double>{b.x(), b.y(), b.z()}, 0.8,
                                            traj::ArcProfile(0.4, 2.0, 0.0, 0.5, 0.0));
}

/// ω = vee(RᵀṘ) and ω̇ against central differences of R and ω.
void expectConsistentAttitude(const std::function<flat::AttitudeJet(double)>& at, double t) {
  const flat::AttitudeJet a = at(t), plus = at(t + kFdStep), minus = at(t - kFdStep);
  const Vec3 omega_fd = 0.5 * vee2(Mat3(a.R.transpose() * (plus.R - minus.R) / (2 * kFdStep)));
  const Vec3 omega_dot_fd = (plus.omega - minus.omega) / (2 * kFdStep);
  EXPECT_LT((a.omega - omega_fd).norm(), kFdTol * (1 + a.omega.norm())) << "t = " << t;
  EXPECT_LT((a.omega_dot - omega_dot_fd).norm(), kFdTol * (1 + a.omega_dot.norm())) << "t = " << t;
  EXPECT_LT(orthogonalityError(a.R), 1e-13);
}

/// V = [Rᵀṙ; vee(RᵀṘ)] and V̇ against central differences of G and V.
void expectConsistentBodyMotion(const BodyMotionLaw& law, double t) {
  const BodyMotion m = law.at(t), plus = law.at(t + kFdStep), minus = law.at(t - kFdStep);
  Vec6 V_fd;
  V_fd << m.G.R.transpose() * (plus.G.r - minus.G.r) / (2 * kFdStep),
      0.5 * vee2(Mat3(m.G.R.transpose() * (plus.G.R - minus.G.R) / (2 * kFdStep)));
  const Vec6 V_dot_fd = (plus.V - minus.V) / (2 * kFdStep);
  EXPECT_LT((m.V - V_fd).norm(), kFdTol * (1 + m.V.norm())) << "t = " << t;
  EXPECT_LT((m.V_dot - V_dot_fd).norm(), kFdTol * (1 + m.V_dot.norm())) << "t = " << t;
}

void expectConsistentPlanarMotion(const PlanarMotionLaw& law, double t) {
  const PlanarMotion m = law.at(t), plus = law.at(t + kFdStep), minus = law.at(t - kFdStep);
  const double h2 = 2 * kFdStep;
  EXPECT_LT((m.p_dot - (plus.p - minus.p) / h2).norm(), kFdTol * (1 + m.p_dot.norm())) << "t = " << t;
  EXPECT_LT((m.p_ddot - (plus.p_dot - minus.p_dot) / h2).norm(), kFdTol * (1 + m.p_ddot.norm()));
  EXPECT_NEAR(m.angle_dot, (plus.angle - minus.angle) / h2, kFdTol * (1 + std::abs(m.angle_dot)));
  EXPECT_NEAR(m.angle_ddot, (plus.angle_dot - minus.angle_dot) / h2, kFdTol * (1 + std::abs(m.angle_ddot)));
}

TEST(BasePosition, ComponentsThePathLacksHoldTheirFixedValues) {
  const auto path = sinusoid({0.1, 0.2}, {0.5, 0.7}, 2.0);
  const BasePosition position(path, Vec3(1.0, 2.0, 3.0));
  Jet y[3];
  position.jets(0.7, y);
  EXPECT_EQ(y[0], path->component(0.7, 0));
  EXPECT_EQ(y[1], path->component(0.7, 1));
  EXPECT_EQ(y[2], traj::constantJet(3.0));
  BasePosition fixed(nullptr, Vec3(1.0, 2.0, 3.0));
  fixed.jets(0.7, y);
  for (int i = 0; i < 3; ++i) EXPECT_EQ(y[i], traj::constantJet(i + 1.0));
}

TEST(BasePosition, ACircleGivesAllComponentsAtOnceWithTheNumbersOfEachComponent) {
  // CirclePath::jets shares the arc angle and its cos/sin between the components (the looping's
  // reference samples it three times per call); it must give each component's own bits, on the
  // ramp, in the cruise, and at rest before the start.
  const auto circle = tiltedCircle(Vec3(0.0, 0.6, 0.8));
  const BasePosition position(circle, Vec3::Zero());
  for (const double t : {-0.1, 0.0, 0.23, 0.5, 1.7, 12.0}) {
    Jet y[3];
    position.jets(t, y);
    for (int i = 0; i < 3; ++i) EXPECT_EQ(y[i], circle->component(t, i)) << "t = " << t << ", component " << i;
  }
}

TEST(AttitudeLaws, RatesMatchFiniteDifferences) {
  const Mat3 R0 = rotationZYX(0.3, -0.5, 1.1);
  const FixedAttitude fixed(R0);
  const HeadingAttitude heading(sinusoid({0.2}, {1.5}, 1.7));
  const Vec3 normal = Vec3(0.2, -0.4, 1.0).normalized();
  const CircleFollowingAttitude follow(std::make_shared<traj::ArcAnglePath>(tiltedCircle(normal)), normal, 0.4, R0);
  for (double t : {0.0, 0.2, 0.45, 1.3, 3.7}) {
    expectConsistentAttitude([&](double s) { return fixed.at(s); }, t);
    expectConsistentAttitude([&](double s) { return heading.at(s); }, t);
    expectConsistentAttitude([&](double s) { return follow.at(s); }, t);
  }
  EXPECT_EQ(fixed.at(2.0).R, R0);
  EXPECT_EQ(fixed.at(2.0).omega, Vec3::Zero());
  // The heading turns about world z by ψ; the follower about the normal by φ − φ₀ from R₀.
  const Jet psi = sinusoid({0.2}, {1.5}, 1.7)->component(0.9, 0);
  EXPECT_MATRIX_NEAR(heading.at(0.9).R, axisAngleRotation(Vec3::UnitZ(), psi[0]), 1e-15);
  EXPECT_MATRIX_NEAR(follow.at(0.0).R, R0, 1e-15);  // φ(0) = φ₀ at the start of the ramp
  const Jet phi = tiltedCircle(normal)->arc().angle(1.3);
  EXPECT_MATRIX_NEAR(follow.at(1.3).R * R0.transpose(), axisAngleRotation(normal, phi[0] - 0.4), 1e-14);
}

TEST(CircleFollowingAngle, IsThePlanarCaseOfTheFollowingAttitude) {
  const auto circle = tiltedCircle(Vec3::UnitZ());
  const double theta0 = 0.7;
  const CircleFollowingAngle angle(std::make_shared<traj::ArcAnglePath>(circle), theta0, 0.4);
  const CircleFollowingAttitude attitude(std::make_shared<traj::ArcAnglePath>(circle), Vec3::UnitZ(), 0.4,
                                         axisAngleRotation(Vec3::UnitZ(), theta0));
  for (double t : {0.0, 0.3, 1.1, 2.9}) {
    const Jet a = angle.component(t, 0);
    const flat::AttitudeJet att = attitude.at(t);
    EXPECT_MATRIX_NEAR(att.R, axisAngleRotation(Vec3::UnitZ(), a[0]), 1e-14) << "t = " << t;
    EXPECT_NEAR(att.omega.z(), a[1], 1e-14);
    EXPECT_NEAR(att.omega_dot.z(), a[2], 1e-13);
  }
}

TEST(FlatHeadings, TheBodyZAxisIsTheThrustAxisAndTheHeadingIsAsAsked) {
  const Vec3 g(0, 0, -9.81);
  const ThrustAxis axis(BasePosition(tiltedCircle(Vec3(0, 1, 0)), Vec3::Zero()), g, 0.2);
  const auto yaw_path = sinusoid({0.3}, {0.6}, 2.5);
  const YawHeading yaw(yaw_path);
  const IntegratedHeading integrated(axis, 0.8, 0.3);
  for (double t : {0.0, 0.35, 1.2, 2.6}) {
    const flat::Vec3Jet z = axis.at(t);
    const flat::AttitudeJet a = yaw.attitude(t, z), b = integrated.attitude(t, z);
    EXPECT_LT((a.R.col(2) - z.v).norm(), 1e-14) << "t = " << t;
    EXPECT_LT((b.R.col(2) - z.v).norm(), 1e-14) << "t = " << t;
    // ZYX heading ψ (5.69): the body x axis is orthogonal to R_z(ψ) e_y.
    EXPECT_NEAR(a.R.col(0).dot(axisAngleRotation(Vec3::UnitZ(), yaw_path->component(t, 0)[0]).col(1)), 0.0, 1e-14);
    // (5.70): the body turns about its z axis at the prescribed rate.
    EXPECT_DOUBLE_EQ(b.omega.z(), 0.8);
    expectConsistentAttitude([&](double s) { return yaw.attitude(s, axis.at(s)); }, t);
    expectConsistentAttitude([&](double s) { return integrated.attitude(s, axis.at(s)); }, t + 0.001);
  }
  // At t = 0 the integrated heading starts from the ZYX heading `initial_yaw`.
  const flat::AttitudeJet start = integrated.attitude(0.0, axis.at(0.0));
  EXPECT_LT((start.R.col(0) - flat::attitudeFromYaw(axis.at(0.0), traj::constantJet(0.3)).R.col(0)).norm(), 1e-14);
}

TEST(FlatHeadings, TheIntegratedHeadingDependsOnTheTimeAloneWithBoundedMemory) {
  const ThrustAxis axis(BasePosition(tiltedCircle(Vec3(0, 1, 0)), Vec3::Zero()), Vec3(0, 0, -9.81), 0.0);
  const IntegratedHeading jumped(axis, 1.3, 0.0), fresh(axis, 1.3, 0.0);
  jumped.attitude(40.0, axis.at(40.0));  // far ahead first, then back
  for (double t : {0.5, 7.3, 39.9}) {
    const flat::AttitudeJet a = jumped.attitude(t, axis.at(t)), b = fresh.attitude(t, axis.at(t));
    EXPECT_EQ(a.R, b.R) << "t = " << t;
    EXPECT_EQ(a.omega, b.omega) << "t = " << t;
  }
  EXPECT_LE(jumped.storedKnots(), 2 * (KnotTable<Vec3>::kDefaultWindow + KnotTable<Vec3>::kDefaultMaxCheckpoints));
}

TEST(BodyMotions, TwistsMatchFiniteDifferencesOfThePose) {
  const Vec3 g(0, 0, -9.81);
  const PrescribedBodyMotion prescribed(BasePosition(sinusoid({0.1, 0.2, 1.0}, {0.5, -0.3, 0.2}, 1.9), Vec3::Zero()),
                                        std::make_shared<HeadingAttitude>(sinusoid({0.4}, {1.0}, 2.3)));
  const Vec3 flat_point(0.01, -0.02, 0.05);
  const ThrustAxis axis(BasePosition(tiltedCircle(Vec3(0, 1, 0)), Vec3::Zero()), g, 0.1);
  const FlatBodyMotion flat_motion(axis, std::make_shared<YawHeading>(sinusoid({0.3}, {0.6}, 2.5)), flat_point);
  Vec6 V;
  V << 0.4, -0.2, 0.1, 0.7, -1.1, 2.0;
  const Pose G0{rotationZYX(0.2, 0.1, -0.4), Vec3(1, 2, 3)};
  const ConstantBodyTwist twist(G0, V);
  for (double t : {0.0, 0.3, 1.4, 2.2}) {
    expectConsistentBodyMotion(prescribed, t);
    expectConsistentBodyMotion(flat_motion, t);
    expectConsistentBodyMotion(twist, t);
    // The flat body's point s is on the path, and its z axis along the thrust.
    const BodyMotion m = flat_motion.at(t);
    Jet y[3];
    axis.position().jets(t, y);
    EXPECT_LT((m.G * flat_point - Vec3(y[0][0], y[1][0], y[2][0])).norm(), 1e-14) << "t = " << t;
    EXPECT_LT((m.G.R.col(2) - axis.at(t).v).norm(), 1e-14);
    EXPECT_EQ(twist.at(t).V, V);
    EXPECT_EQ(twist.at(t).V_dot, Vec6::Zero());
  }
  EXPECT_MATRIX_NEAR(twist.at(0.0).G.R, G0.R, 1e-15);
}

TEST(PlanarMotions, RatesMatchFiniteDifferences) {
  const flat::Vec2 g(0.0, -9.81);
  const auto circle = std::make_shared<traj::CirclePath>(std::vector<double>{0.0, 1.0}, std::vector<double>{0.0, -1.0},
                                                         std::vector<double>{1.0, 0.0}, 0.6,
                                                         traj::ArcProfile(0.0, 2.0, 0.0, 0.5, 0.0));
  const PrescribedPlanarMotion prescribed(BasePosition(circle, Vec3::Zero()),
                                          std::make_shared<CircleFollowingAngle>(std::make_shared<traj::ArcAnglePath>(circle), 0.2, 0.0));
  const FlatPlanarMotion flat_motion(BasePosition(circle, Vec3::Zero()), g, 0.05);
  Vec6 V;
  V << 0.4, -0.3, 0, 0, 0, 1.7;
  const ConstantPlanarTwist twist(flat::Vec2(1.0, -0.5), 0.3, V);
  for (double t : {0.0, 0.3, 1.2, 2.7}) {
    expectConsistentPlanarMotion(prescribed, t);
    expectConsistentPlanarMotion(flat_motion, t);
    expectConsistentPlanarMotion(twist, t);
    // The constant twist's body velocity R(θ)ᵀṗ is v at all times.
    const PlanarMotion m = twist.at(t);
    const flat::Vec2 v = Eigen::Rotation2Dd(m.angle).toRotationMatrix().transpose() * m.p_dot;
    EXPECT_NEAR(v.x(), 0.4, 1e-14);
    EXPECT_NEAR(v.y(), -0.3, 1e-14);
    // The PVTOL's thrust (body y) points along ÿ − g.
    const PlanarMotion f = flat_motion.at(t);
    const traj::Jet cx = circle->component(t, 0), cy = circle->component(t, 1);
    const flat::Vec2 thrust = (flat::Vec2(cx[2], cy[2]) - g).normalized();
    EXPECT_NEAR(-std::sin(f.angle), thrust.x(), 1e-14);
    EXPECT_NEAR(std::cos(f.angle), thrust.y(), 1e-14);
  }
  EXPECT_EQ(twist.at(0.0).p, flat::Vec2(1.0, -0.5));
}

// ---- base coordinates -----------------------------------------------------------------------------

Joint rootJoint(JointType type) {
  Joint j;
  j.name = "base";
  j.type = type;
  j.nx = configurationSize(type);
  j.nxi = velocitySize(type);
  return j;
}

/// A planar motion whose angle wraps into (−π, π] as atan2 would: a spin at 2 rad/s.
class WrappingSpin final : public PlanarMotionLaw {
 public:
  PlanarMotion at(double t) const override {
    PlanarMotion m;
    m.angle = std::remainder(2.0 * t, 2 * kPi);
    m.angle_dot = 2.0;
    return m;
  }
};

/// Largest jump of any coordinate between samples 5 ms apart over [0, 6] s.
double largestJump(const BaseCoordinates& c, int nx) {
  double x[12], xi[6], xidot[6], previous[12], jump = 0.0;
  for (int k = 0; k <= 1200; ++k) {
    c.sample(0.005 * k, x, xi, xidot);
    if (k > 0)
      for (int i = 0; i < nx; ++i) jump = std::max(jump, std::abs(x[i] - previous[i]));
    std::copy(x, x + 12, previous);
  }
  return jump;
}

TEST(ContinuousCoordinates, KeepAnglesAndQuaternionSignsContinuousThroughManyTurns) {
  // A heading spinning at 2 rad/s for 6 s (≈ 2 turns): Euler angles wrap at ±π and the
  // quaternion's sign flips after each turn when taken from the rotation alone.
  const auto spin = std::make_shared<PrescribedBodyMotion>(
      BasePosition(nullptr, Vec3(1, 2, 3)),
      std::make_shared<HeadingAttitude>(std::make_shared<traj::PolynomialPath>(
          std::vector<double>{0.0}, std::vector<double>{12.0}, 0.0, 6.0, 5)));
  for (JointType type : {JointType::FreeQuaternion, JointType::SphericalEulerZYX, JointType::SphericalQuaternion}) {
    const Joint j = rootJoint(type);
    SCOPED_TRACE(std::string(jointTypeName(type)));
    auto raw = std::make_unique<SpatialBaseCoordinates>(j, Pose::identity(), spin);
    EXPECT_GT(largestJump(*raw, j.nx), 1.0);  // the raw coordinates do jump
    const ContinuousCoordinates continuous(j, std::make_unique<SpatialBaseCoordinates>(j, Pose::identity(), spin));
    EXPECT_LT(largestJump(continuous, j.nx), 0.05);
    // Same motion, same velocities: only the representative differs.
    double x[12], xi[6], xidot[6], x_raw[12], xi_raw[6], xidot_raw[6];
    continuous.sample(4.1, x, xi, xidot);
    raw->sample(4.1, x_raw, xi_raw, xidot_raw);
    EXPECT_MATRIX_NEAR(jointTransform(j, x).R, jointTransform(j, x_raw).R, 1e-13);
    for (int i = 0; i < j.nxi; ++i) EXPECT_NEAR(xi[i], xi_raw[i], 1e-13);
  }
  const Joint planar = rootJoint(JointType::Planar);
  const PlanarBaseCoordinates raw(std::make_shared<WrappingSpin>());
  EXPECT_GT(largestJump(raw, 3), 6.0);
  const ContinuousCoordinates continuous(planar, std::make_unique<PlanarBaseCoordinates>(std::make_shared<WrappingSpin>()));
  EXPECT_LT(largestJump(continuous, 3), 0.011);
  double x[12], xi[6], xidot[6];
  continuous.sample(5.0, x, xi, xidot);
  EXPECT_NEAR(x[2], 10.0, 1e-12);  // unwrapped: θ = 2 t
}

TEST(BaseJointStep, WritesTheBaseJointsSlotsOnly) {
  Joint j = rootJoint(JointType::Planar);
  j.x_offset = 2;
  j.xi_offset = 1;
  Vec6 V;
  V << 0.4, -0.3, 0, 0, 0, 1.7;
  const BaseJointStep step(j, std::make_unique<PlanarBaseCoordinates>(
                                  std::make_shared<ConstantPlanarTwist>(flat::Vec2(1.0, -0.5), 0.3, V)));
  ReferenceSample out{VecX::Constant(7, 9.0), VecX::Constant(5, 9.0), VecX::Constant(5, 9.0)};
  step.apply(0.5, out);
  for (int i : {0, 1, 5, 6}) EXPECT_EQ(out.x(i), 9.0);
  for (int i : {0, 4}) {
    EXPECT_EQ(out.xi(i), 9.0);
    EXPECT_EQ(out.xidot(i), 9.0);
  }
  EXPECT_NEAR(out.x(4), 0.3 + 1.7 * 0.5, 1e-15);
  EXPECT_NEAR(out.xi(1), 0.4, 1e-14);  // ξ = the body twist (v_x, v_y, ω)
  EXPECT_NEAR(out.xi(3), 1.7, 1e-15);
}

}  // namespace
}  // namespace rbs
