// Simple (physical) pendulum and planar double pendulum against their textbook minimal-coordinate
// equations of motion (konz-modeling §16.3 item 6(b), §2.1 (1.2)–(1.3)): M, c and f_G at seeded
// random states for the angle and the unit-circle (c, s) revolute joints, a trajectory comparison
// with the minimal equations integrated by hand, and the pendulum period against the small-angle
// formula and the exact elliptic-integral formula.
#include <gtest/gtest.h>

#include <array>
#include <cmath>
#include <numbers>
#include <sstream>
#include <vector>

#include "core/dynamics/dynamics.h"
#include "core/dynamics/energy.h"
#include "sim/simulator.h"
#include "tests/support/matrix_compare.h"
#include "tests/support/report.h"
#include "tests/support/test_models.h"

namespace rbs {
namespace {

constexpr double kPi = std::numbers::pi;

constexpr double kG = 9.81;

// M, c, f_G are O(0.1–30) here; the algorithm evaluates them with a handful of 3×3 products, so
// rounding leaves ~1e-15 relative. 1e-11 absolute is far below any wrong term (a missing
// parallel-axis or Coriolis term is O(0.1–10)).
constexpr double kTermTol = 1e-11;

/// Configuration coordinates of a revolute joint with angle θ: θ itself, or (cos θ, sin θ).
void setAngle(const Joint& j, double angle, VecX& x) {
  if (j.type == JointType::Revolute) {
    x(j.x_offset) = angle;
  } else {
    x(j.x_offset) = std::cos(angle);
    x(j.x_offset + 1) = std::sin(angle);
  }
}

/// The angle of a revolute joint from its coordinates (atan2 for the (c, s) pair).
double getAngle(const Joint& j, const VecX& x) {
  return j.type == JointType::Revolute ? x(j.x_offset)
                                       : std::atan2(x(j.x_offset + 1), x(j.x_offset));
}

// ---- Simple (physical) pendulum ---------------------------------------------------------------
// A rigid body hanging from a horizontal axis (world y) through the pivot; its CoM lies a distance
// d below the pivot at θ = 0. Minimal equation: I_p θ̈ + m g d sin θ = 0 with the pivot inertia
// I_p = I_yy,c + m d² (Steiner), V = −m g d cos θ.
struct PhysicalPendulum {
  double m = 1.3;
  double d = 0.4;
  Vec3 inertia_com = Vec3(0.03, 0.05, 0.04);  // principal, body axes
  double pivotInertia() const { return inertia_com.y() + m * d * d; }
};

Model physicalPendulum(const PhysicalPendulum& p, JointType type) {
  ModelBuilder b;
  b.addBody({"bob", p.m, Vec3(0, 0, -p.d), p.inertia_com.asDiagonal()});
  JointSpec j{.name = "pivot", .type = type, .parent = rbs::kWorld, .child = "bob"};
  j.axis = Vec3::UnitY();
  j.parent_placement = Pose::translation(Vec3(0.1, -0.2, 1.5));  // pivot position: irrelevant
  b.addJoint(j);
  return b.build();
}

class PendulumJoint : public testing::TestWithParam<JointType> {};

std::string jointName(const testing::TestParamInfo<JointType>& info) {
  return std::string(jointTypeName(info.param));
}

TEST_P(PendulumJoint, SimplePendulumTermsMatchTheMinimalEquation) {
  const PhysicalPendulum p;
  const Model m = physicalPendulum(p, GetParam());
  ASSERT_EQ(m.nxi, 1);
  Workspace ws(m);
  test::Rng rng(101);
  double max_err = 0.0;
  for (int trial = 0; trial < 25; ++trial) {
    const double theta = test::uniform(rng, -kPi, kPi);
    const double rate = test::uniform(rng, -4, 4);
    VecX x = m.neutralState().x;
    setAngle(m.joints[0], theta, x);
    const VecX xi = VecX::Constant(1, rate);
    ASSERT_EQ(computeForwardDynamics(m, x, xi, VecX(), ws), DynamicsStatus::Ok);
    // I_p θ̈ + m g d sin θ = 0: M = I_p, c = 0 (one degree of freedom), f_G = m g d sin θ.
    EXPECT_NEAR(ws.mass_matrix(0, 0), p.pivotInertia(), kTermTol) << "θ = " << theta;
    EXPECT_NEAR(ws.inertial_forces(0), 0.0, kTermTol) << "θ = " << theta;
    EXPECT_NEAR(ws.gravity_forces(0), p.m * kG * p.d * std::sin(theta), kTermTol)
        << "θ = " << theta;
    EXPECT_NEAR(ws.xidot(0), -p.m * kG * p.d * std::sin(theta) / p.pivotInertia(), kTermTol);
    // Energies: T = ½ I_p θ̇², V_G = −m g d cos θ + const (pivot height 1.5 m).
    const Energies e = computeEnergies(m, x, xi, ws);
    EXPECT_NEAR(e.kinetic, 0.5 * p.pivotInertia() * rate * rate, kTermTol);
    EXPECT_NEAR(e.gravitational, p.m * kG * (1.5 - p.d * std::cos(theta)), kTermTol);
    max_err = std::max({max_err, std::abs(ws.mass_matrix(0, 0) - p.pivotInertia()),
                        std::abs(ws.inertial_forces(0)),
                        std::abs(ws.gravity_forces(0) - p.m * kG * p.d * std::sin(theta))});
  }
  test::recordError("max_term_error", max_err);
}

// ---- Double pendulum --------------------------------------------------------------------------
// test::doublePendulum: uniform rods (CoM at l/2, I = m l²/12 about the CoM), both axes along world
// y, θ₁ of the upper rod from the downward vertical, θ₂ of the lower rod relative to the upper one.
// Lagrange with the absolute angles φ₁ = θ₁, φ₂ = θ₁ + θ₂:
//   T = ½ (m₁l₁²/3 + m₂l₁²) φ̇₁² + ½ m₂l₂²/3 φ̇₂² + ½ m₂l₁l₂ cos(φ₁ − φ₂) φ̇₁φ̇₂,
//   V = −g ((m₁/2 + m₂) l₁ cos φ₁ + m₂ l₂/2 cos φ₂).
// In (θ₁, θ₂), with a = m₁l₁²/3 + m₂l₁², b = m₂l₁l₂/2, d = m₂l₂²/3, C = cos θ₂, S = sin θ₂:
//   M = [a + 2bC + d, bC + d; bC + d, d],
//   c = [−bS(2θ̇₁θ̇₂ + θ̇₂²); bS θ̇₁²]   (Christoffel symbols of M(θ₂)),
//   f_G = ∇V = g [(m₁/2 + m₂) l₁ sin θ₁ + m₂l₂/2 sin(θ₁+θ₂); m₂l₂/2 sin(θ₁+θ₂)].
struct DoublePendulumTerms {
  Eigen::Matrix2d M;
  Eigen::Vector2d c, fG;
};

struct DoublePendulum {
  double m1 = 1.2, m2 = 0.7, l1 = 0.9, l2 = 0.6;

  DoublePendulumTerms terms(const Eigen::Vector2d& q, const Eigen::Vector2d& qd) const {
    const double a = m1 * l1 * l1 / 3 + m2 * l1 * l1, b = m2 * l1 * l2 / 2, d = m2 * l2 * l2 / 3;
    const double C = std::cos(q(1)), S = std::sin(q(1));
    DoublePendulumTerms t;
    t.M << a + 2 * b * C + d, b * C + d, b * C + d, d;
    t.c << -b * S * (2 * qd(0) * qd(1) + qd(1) * qd(1)), b * S * qd(0) * qd(0);
    t.fG << kG * ((m1 / 2 + m2) * l1 * std::sin(q(0)) + m2 * l2 / 2 * std::sin(q(0) + q(1))),
        kG * m2 * l2 / 2 * std::sin(q(0) + q(1));
    return t;
  }

  /// q̈ of the minimal equation M q̈ + c + f_G = 0.
  Eigen::Vector2d acceleration(const Eigen::Vector2d& q, const Eigen::Vector2d& qd) const {
    const DoublePendulumTerms t = terms(q, qd);
    return t.M.ldlt().solve(-t.c - t.fG);
  }
};

TEST_P(PendulumJoint, DoublePendulumTermsMatchLagrangesEquations) {
  const DoublePendulum dp;
  const Model m = test::doublePendulum(dp.m1, dp.m2, dp.l1, dp.l2, GetParam());
  ASSERT_EQ(m.nxi, 2);
  Workspace ws(m);
  test::Rng rng(202);
  double max_err = 0.0;
  for (int trial = 0; trial < 25; ++trial) {
    const Eigen::Vector2d q(test::uniform(rng, -kPi, kPi), test::uniform(rng, -kPi, kPi));
    const Eigen::Vector2d qd(test::uniform(rng, -3, 3), test::uniform(rng, -3, 3));
    VecX x = m.neutralState().x;
    setAngle(m.joints[0], q(0), x);
    setAngle(m.joints[1], q(1), x);
    const VecX xi = qd;
    ASSERT_EQ(computeForwardDynamics(m, x, xi, VecX(), ws), DynamicsStatus::Ok);
    test::computeEquationTerms(m, ws);
    const DoublePendulumTerms t = dp.terms(q, qd);
    EXPECT_MATRIX_NEAR(ws.mass_matrix, t.M, kTermTol) << "q = " << q.transpose();
    EXPECT_MATRIX_NEAR(ws.inertial_forces, t.c, kTermTol)
        << "q = " << q.transpose() << ", q̇ = " << qd.transpose();
    EXPECT_MATRIX_NEAR(ws.gravity_forces, t.fG, kTermTol) << "q = " << q.transpose();
    max_err = std::max({max_err, (ws.mass_matrix - t.M).cwiseAbs().maxCoeff(),
                        (ws.inertial_forces - t.c).cwiseAbs().maxCoeff(),
                        (ws.gravity_forces - t.fG).cwiseAbs().maxCoeff()});
  }
  test::recordError("max_term_error", max_err);
}

TEST_P(PendulumJoint, DoublePendulumFollowsTheHandIntegratedMinimalEquations) {
  // The minimal equations above integrated by a hand-written classical RK4 with the same step as
  // the simulator: both are 4th-order discretizations of the same flow, so the angles agree to
  // O(dt⁴) ≈ 1e-12 over a non-chaotic 2 s stretch (moderate energy).
  const DoublePendulum dp;
  const Model m = test::doublePendulum(dp.m1, dp.m2, dp.l1, dp.l2, GetParam());
  constexpr double kDt = 1e-3, kT = 2.0;
  Eigen::Vector2d q(1.0, -0.5), qd(0.5, 1.0);

  State s{m.neutralState().x, qd};
  setAngle(m.joints[0], q(0), s.x);
  setAngle(m.joints[1], q(1), s.x);
  IntegrationOptions opt;
  opt.stepper = StepperKind::Rk4;
  opt.dt = kDt;
  std::vector<Eigen::Vector2d> sim_q;
  const IntegrationResult r = integrate(m, s, 0.0, kT, opt, {}, 0.0, [&](double, const State& st) {
    sim_q.emplace_back(getAngle(m.joints[0], st.x), getAngle(m.joints[1], st.x));
  });
  ASSERT_TRUE(r.ok) << r.message;

  // Reference: z = (q, q̇), ż = (q̇, q̈(q, q̇)).
  using Z = Eigen::Vector4d;
  auto f = [&](const Z& z) {
    Z out;
    out << z.tail<2>(), dp.acceleration(z.head<2>(), z.tail<2>());
    return out;
  };
  Z z;
  z << q, qd;
  // Same-angle comparison modulo 2π (the (c, s) angle is reported in (−π, π]).
  auto wrap = [](double a) { return std::remainder(a, 2 * kPi); };
  double max_err = 0.0;
  const int steps = static_cast<int>(std::lround(kT / kDt));
  ASSERT_EQ(static_cast<int>(sim_q.size()), steps + 1);
  for (int k = 0; k <= steps; ++k) {
    max_err =
        std::max({max_err, std::abs(wrap(sim_q[k](0) - z(0))), std::abs(wrap(sim_q[k](1) - z(1)))});
    const Z k1 = f(z), k2 = f(z + 0.5 * kDt * k1), k3 = f(z + 0.5 * kDt * k2), k4 = f(z + kDt * k3);
    z += kDt / 6 * (k1 + 2 * k2 + 2 * k3 + k4);
  }
  // The two RK4 discretizations differ by O(dt⁴) truncation terms (~1e-12) plus the (c, s)
  // projection after each step (changes only the norm). A wrong term of O(0.1) in M, c or f_G
  // would move the angles by ≳ 1e-2 within 2 s.
  constexpr double kAngleTol = 1e-8;  // rad; 100× the worst measured difference (1.5e-10)
  EXPECT_LT(max_err, kAngleTol);
  test::recordError("max_angle_error", max_err);
}

// ---- Period of the physical pendulum
// --------------------------------------------------------------

/// Complete elliptic integral of the first kind K(k) = π / (2 AGM(1, √(1 − k²))).
double ellipticK(double k) {
  double a = 1.0, b = std::sqrt(1.0 - k * k);
  for (int i = 0; i < 60 && std::abs(a - b) > 1e-16 * a; ++i) {
    const double an = 0.5 * (a + b);
    b = std::sqrt(a * b);
    a = an;
  }
  return kPi / (2.0 * a);
}

/// Times at which θ crosses zero downwards (θ̇ < 0), located with the cubic Hermite interpolant of
/// the (θ, θ̇) samples (interpolation error ~dt⁴ θ⁽⁴⁾/384: negligible) and bisection.
std::vector<double> downwardZeroCrossings(const std::vector<double>& t,
                                          const std::vector<double>& th,
                                          const std::vector<double>& thd) {
  std::vector<double> out;
  for (size_t k = 0; k + 1 < t.size(); ++k) {
    if (!(th[k] > 0.0 && th[k + 1] <= 0.0)) continue;
    const double h = t[k + 1] - t[k];
    auto hermite = [&](double s) {  // s ∈ [0, 1]
      const double s2 = s * s, s3 = s2 * s;
      return (2 * s3 - 3 * s2 + 1) * th[k] + (s3 - 2 * s2 + s) * h * thd[k] +
             (-2 * s3 + 3 * s2) * th[k + 1] + (s3 - s2) * h * thd[k + 1];
    };
    double lo = 0.0, hi = 1.0;
    for (int i = 0; i < 60; ++i) {
      const double mid = 0.5 * (lo + hi);
      (hermite(mid) > 0.0 ? lo : hi) = mid;
    }
    out.push_back(t[k] + 0.5 * (lo + hi) * h);
  }
  return out;
}

/// Mean period over the downward zero crossings of a pendulum released from rest at θ₀.
double simulatedPeriod(const Model& m, double theta0, double duration,
                       std::vector<double>* intervals) {
  State s = m.neutralState();
  setAngle(m.joints[0], theta0, s.x);
  IntegrationOptions opt;
  opt.stepper = StepperKind::Rk4;
  opt.dt = 1e-3;
  std::vector<double> t, th, thd;
  const IntegrationResult r =
      integrate(m, s, 0.0, duration, opt, {}, 0.0, [&](double tt, const State& st) {
        t.push_back(tt);
        th.push_back(getAngle(m.joints[0], st.x));
        thd.push_back(st.xi(0));
      });
  EXPECT_TRUE(r.ok) << r.message;
  const std::vector<double> c = downwardZeroCrossings(t, th, thd);
  if (c.size() < 2) return 0.0;
  if (intervals)
    for (size_t i = 1; i < c.size(); ++i) intervals->push_back(c[i] - c[i - 1]);
  return (c.back() - c.front()) / static_cast<double>(c.size() - 1);
}

TEST_P(PendulumJoint, SmallAmplitudePeriodIsTwoPiSqrtIpOverMgd) {
  const PhysicalPendulum p;
  const Model m = physicalPendulum(p, GetParam());
  const double T0 = 2 * kPi * std::sqrt(p.pivotInertia() / (p.m * kG * p.d));  // ≈ 1.41 s
  std::vector<double> intervals;
  const double T = simulatedPeriod(m, 1e-3, 6 * T0, &intervals);
  ASSERT_GE(intervals.size(), 4u);
  // The amplitude correction θ₀²/16 = 6e-8 and the RK4 phase error (~1e-9) are below the bound;
  // the point-mass formula 2π√(d/g) differs by 13 %, a missing Steiner term by > 50 %.
  constexpr double kPeriodTol = 1e-6;  // relative; above θ₀²/16 = 6.25e-8, the measured deviation
  EXPECT_NEAR(T / T0, 1.0, kPeriodTol) << "T = " << T << " s, T0 = " << T0 << " s";
  for (double dT : intervals) EXPECT_NEAR(dT / T0, 1.0, kPeriodTol);
  test::recordError("relative_period_error", T / T0 - 1.0);
}

TEST_P(PendulumJoint, LargeAmplitudePeriodMatchesTheEllipticIntegral) {
  // T = 4 √(I_p/(m g d)) K(k), k = sin(θ₀/2) (exact for I_p θ̈ + m g d sin θ = 0).
  const PhysicalPendulum p;
  const Model m = physicalPendulum(p, GetParam());
  const double theta0 = 2.5;  // 143°: 63 % longer than the small-angle period
  const double T_exact =
      4 * std::sqrt(p.pivotInertia() / (p.m * kG * p.d)) * ellipticK(std::sin(theta0 / 2));
  std::vector<double> intervals;
  const double T = simulatedPeriod(m, theta0, 5 * T_exact, &intervals);
  ASSERT_GE(intervals.size(), 3u);
  // RK4 at dt = 1 ms has a phase error ~(ω dt)⁴ ≈ 1e-9 per radian; the small-angle formula is
  // off by 63 %, the first series correction alone (1 + θ₀²/16) by 14 %.
  constexpr double kPeriodTol = 1e-7;  // relative; RK4 phase error ~1e-9, measured 2e-12
  EXPECT_NEAR(T / T_exact, 1.0, kPeriodTol) << "T = " << T << " s, exact " << T_exact << " s";
  for (double dT : intervals) EXPECT_NEAR(dT / T_exact, 1.0, kPeriodTol);
  test::recordError("relative_period_error", T / T_exact - 1.0);
}

TEST(EllipticK, AgmMatchesKnownValues) {
  // K(0) = π/2; K(1/√2) = Γ(1/4)² / (4√π) = 1.854074677301372 (lemniscatic case).
  constexpr double kTol = 1e-14;  // the AGM converges quadratically to full double precision
  EXPECT_NEAR(ellipticK(0.0), kPi / 2, kTol);
  EXPECT_NEAR(ellipticK(std::sqrt(0.5)), 1.854074677301372, kTol);
}

INSTANTIATE_TEST_SUITE_P(RevoluteTypes, PendulumJoint,
                         testing::Values(JointType::Revolute, JointType::RevoluteUnitCircle),
                         jointName);

}  // namespace
}  // namespace rbs
