// The single free rigid body (thesis 3.3, konz-modeling §8 and §16.3 item 6(d)) with the `free`
// (r + R) and `free_quaternion` (r + q) joints:
//  (a) ξ̇ against Euler's rotation equations Θ ω̇ + ω × Θ ω = 0 (frame at the CoM) and against the
//      explicit Newton–Euler form (3.52) for a body frame away from the CoM;
//  (b) conservation of energy, linear momentum and the angular momentum about the CoM over 20 s;
//  (c) the intermediate-axis (Dzhanibekov) flip, with its flip interval from the closed-form
//      Jacobi-elliptic solution (Landau–Lifshitz §37), and stable spins about the other axes;
//  (d) identical body poses from the R and the quaternion version.
#include <gtest/gtest.h>

#include <cmath>
#include <numbers>
#include <sstream>
#include <vector>

#include "core/dynamics/dynamics.h"
#include "core/dynamics/kinematics.h"
#include "sim/simulator.h"
#include "tests/support/matrix_compare.h"
#include "tests/support/report.h"
#include "tests/support/test_models.h"

namespace rbs {
namespace {

constexpr double kPi = std::numbers::pi;

Model freeBody(const BodySpec& body, JointType type, const Vec3& gravity) {
  ModelBuilder b;
  b.setGravity(gravity);
  b.addBody(body);
  b.addJoint({.name = "free", .type = type, .parent = rbs::kWorld, .child = body.name});
  return b.build();
}

/// State of a one-body model with world pose G and body twist ξ = [v; ω].
State freeState(const Model& m, const Pose& G, const Vec6& twist) {
  State s = m.neutralState();
  jointCoordinatesFromMotion(m.joints[0], G, s.x.data());
  s.xi = twist;
  return s;
}

Pose bodyPose(const Model& m, const State& s) {
  Workspace ws(m);
  computeKinematics(m, s.x, s.xi, ws);
  return ws.pose[0];
}

class FreeJoint : public testing::TestWithParam<JointType> {};

std::string jointName(const testing::TestParamInfo<JointType>& info) {
  return std::string(jointTypeName(info.param));
}

// ---- (a) accelerations
// ---------------------------------------------------------------------------

// ξ̇ and the Newton–Euler residuals are O(1–100) here; the evaluation is a few 6×6 products and a
// Cholesky solve of a well-conditioned 6×6 M, so rounding leaves ≲ 1e-13. 1e-10 is far below any
// missing gyroscopic or coupling term (O(0.1–10)).
constexpr double kAccTol = 1e-10;

TEST_P(FreeJoint, BodyAtTheCentreOfMassFollowsEulersEquations) {
  test::Rng rng(301);
  double worst = 0.0;
  for (int trial = 0; trial < 20; ++trial) {
    // Principal moments satisfying the triangle inequality, principal axes rotated against the body
    // frame (Θ full).
    const Vec3 principal(test::uniform(rng, 0.5, 0.7), test::uniform(rng, 0.7, 0.9),
                         test::uniform(rng, 0.9, 1.1));
    const Mat3 Q = test::randomRotation(rng);
    const Mat3 Theta = Q * principal.asDiagonal() * Q.transpose();
    const double mass = test::uniform(rng, 0.5, 3.0);
    const Model m = freeBody({"body", mass, Vec3::Zero(), Theta}, GetParam(), Vec3::Zero());
    Vec6 twist;
    twist << test::randomVector(rng, 2.0), test::randomVector(rng, 3.0);
    const State s = freeState(m, test::randomPose(rng, 1.0), twist);
    Workspace ws(m);
    ASSERT_EQ(computeForwardDynamics(m, s.x, s.xi, VecX(), ws), DynamicsStatus::Ok);

    // Euler: Θ ω̇ = −ω × Θ ω (1.8b with τ = 0). Newton in the body frame: m (v̇ + ω × v) = 0 (3.52, s
    // = 0).
    const Vec3 v = twist.head<3>(), w = twist.tail<3>();
    Vec6 expected;
    expected << -w.cross(v), Theta.ldlt().solve(Vec3(-w.cross(Theta * w)));
    EXPECT_MATRIX_NEAR(ws.xidot, expected, kAccTol) << "trial " << trial;
    worst = std::max(worst, (ws.xidot - expected).cwiseAbs().maxCoeff());
  }
  test::recordError("max_acceleration_error", worst);
}

TEST_P(FreeJoint, OffCentreBodyFrameFollowsTheNewtonEulerForm) {
  // (3.52) written out (konz-modeling §8.2): with p = m (v + ω × s), L = m s × v + Θ ω (Θ about
  // the body-frame origin = Θ_c + m wed(s)ᵀ wed(s)),
  //   f_M = [m (v̇ + ω̇ × s) + ω × p;  m s × v̇ + Θ ω̇ + v × p + ω × L]
  // must equal the applied wrench at the body origin: gravity m Rᵀa_G at the CoM s (3.60).
  test::Rng rng(302);
  double worst = 0.0;
  for (const Vec3& gravity : {Vec3(0, 0, 0), Vec3(0.4, -0.7, -9.81)}) {
    for (int trial = 0; trial < 20; ++trial) {
      const BodySpec body = test::randomBody(rng, "body");
      const Model m = freeBody(body, GetParam(), gravity);
      Vec6 twist;
      twist << test::randomVector(rng, 2.0), test::randomVector(rng, 3.0);
      const Pose G = test::randomPose(rng, 1.0);
      const State s = freeState(m, G, twist);
      Workspace ws(m);
      ASSERT_EQ(computeForwardDynamics(m, s.x, s.xi, VecX(), ws), DynamicsStatus::Ok);

      const double mass = body.mass;
      const Vec3 sc = body.com;
      const Mat3 Theta = body.inertia + mass * wed(sc).transpose() * wed(sc);  // parallel axes
      const Vec3 v = twist.head<3>(), w = twist.tail<3>();
      const Vec3 vd = ws.xidot.head<3>(), wd = ws.xidot.tail<3>();
      const Vec3 p = mass * (v + w.cross(sc));
      const Vec3 L = mass * sc.cross(v) + Theta * w;
      Vec6 f_M;
      f_M << mass * (vd + wd.cross(sc)) + w.cross(p),
          mass * sc.cross(vd) + Theta * wd + v.cross(p) + w.cross(L);
      const Vec3 F = mass * (G.R.transpose() * gravity);
      Vec6 applied;
      applied << F, sc.cross(F);
      EXPECT_MATRIX_NEAR(f_M, applied, kAccTol)
          << "trial " << trial << ", gravity " << gravity.transpose();
      worst = std::max(worst, (f_M - applied).cwiseAbs().maxCoeff());
    }
  }
  test::recordError("max_newton_euler_residual", worst);
}

// ---- (b) conservation
// ------------------------------------------------------------------------------

TEST_P(FreeJoint, TorqueFreeMotionConservesEnergyAndMomenta) {
  test::Rng rng(303);
  const BodySpec body = test::randomBody(rng, "body");  // frame away from the CoM, full Θ
  const Model m = freeBody(body, GetParam(), Vec3::Zero());
  Vec6 twist;
  twist << 0.3, -0.2, 0.5, 1.5, -2.5, 3.0;
  State s = freeState(m, test::randomPose(rng, 1.0), twist);

  // Independent of the simulator's energy code: T = ½ m |v + ω × s|² + ½ ωᵀ Θ_c ω (König),
  // world linear momentum m R (v + ω × s), world angular momentum about the CoM R Θ_c ω.
  struct Invariants {
    double T;
    Vec3 p, L;
  };
  auto invariants = [&](const State& st) {
    const Pose G = bodyPose(m, st);
    const Vec3 v = st.xi.head<3>(), w = st.xi.tail<3>();
    const Vec3 vc = v + w.cross(body.com);
    return Invariants{0.5 * body.mass * vc.squaredNorm() + 0.5 * w.dot(body.inertia * w),
                      body.mass * (G.R * vc), G.R * (body.inertia * w)};
  };
  const Invariants I0 = invariants(s);
  double dT = 0.0, dp = 0.0, dL = 0.0;
  IntegrationOptions opt;
  opt.stepper = StepperKind::RkDopri5;
  opt.rtol = opt.atol = 1e-11;
  const IntegrationResult r =
      integrate(m, s, 0.0, 20.0, opt, {}, 0.05, [&](double, const State& st) {
        const Invariants I = invariants(st);
        dT = std::max(dT, std::abs(I.T - I0.T) / I0.T);
        dp = std::max(dp, (I.p - I0.p).norm() / I0.p.norm());
        dL = std::max(dL, (I.L - I0.L).norm() / I0.L.norm());
      });
  ASSERT_TRUE(r.ok) << r.message;
  // Over 20 s (~30 revolutions) Dopri5 at rtol = 1e-11 accumulates ~1e-10; a missing gyroscopic
  // term or a wrong sign in c changes T or L by O(1) within a revolution.
  constexpr double kConservationTol = 1e-8;  // relative; 25× the worst measured drift (3.8e-10)
  EXPECT_LT(dT, kConservationTol);
  EXPECT_LT(dp, kConservationTol);
  EXPECT_LT(dL, kConservationTol);
  test::recordError("relative_energy_drift", dT);
  test::recordError("relative_linear_momentum_drift", dp);
  test::recordError("relative_angular_momentum_drift", dL);
}

// ---- (c) intermediate-axis theorem
// -----------------------------------------------------------------

/// Complete elliptic integral of the first kind from the complementary modulus k' = √(1 − k²):
/// K = π / (2 AGM(1, k')). Taking k' directly keeps K accurate near the separatrix (k → 1).
double ellipticKFromComplement(double k_prime) {
  double a = 1.0, b = k_prime;
  for (int i = 0; i < 60 && std::abs(a - b) > 1e-16 * a; ++i) {
    const double an = 0.5 * (a + b);
    b = std::sqrt(a * b);
    a = an;
  }
  return kPi / (2.0 * a);
}

/// Time between two reversals of the intermediate axis for principal moments I₁ < I₂ < I₃ and body
/// angular velocity ω (principal axes), from the Jacobi-elliptic solution (Landau–Lifshitz §37):
/// for L² > 2E I₂, ω₂ ∝ sn(τ, k) with τ = t √((I₃ − I₂)(L² − 2E I₁)/(I₁I₂I₃)),
/// k'² = 1 − k² = (I₃ − I₁)(L² − 2E I₂) / ((I₃ − I₂)(L² − 2E I₁)); sn changes sign every 2K(k).
/// For L² < 2E I₂ the roles of axes 1 and 3 swap.
double flipInterval(Vec3 I, Vec3 w) {
  auto excess =
      [&](double Iref) {  // L² − 2E I_ref = Σ I_i (I_i − I_ref) ω_i², without cancellation
        double e = 0.0;
        for (int i = 0; i < 3; ++i) e += I(i) * (I(i) - Iref) * w(i) * w(i);
        return e;
      };
  if (excess(I(1)) < 0.0) {
    std::swap(I(0), I(2));
    std::swap(w(0), w(2));
  }
  const double lambda = std::sqrt((I(2) - I(1)) * excess(I(0)) / (I(0) * I(1) * I(2)));
  const double k_prime2 = (I(2) - I(0)) * excess(I(1)) / ((I(2) - I(1)) * excess(I(0)));
  return 2.0 * ellipticKFromComplement(std::sqrt(k_prime2)) / lambda;
}

struct SpinRun {
  std::vector<double> t;
  std::vector<double> alignment;  // (R e_axis) · L̂: +1 = spin axis along the angular momentum
};

/// Torque-free spin with ω₀ = Ω e_axis + perturbation (body axes = principal axes, frame at the
/// CoM).
SpinRun spin(JointType type, const Vec3& principal, int axis, const Vec3& omega0, double duration) {
  const Model m =
      freeBody({"handle", 0.5, Vec3::Zero(), principal.asDiagonal()}, type, Vec3::Zero());
  Vec6 twist;
  twist << Vec3::Zero(), omega0;
  State s = freeState(m, Pose::identity(), twist);
  const Vec3 L_hat = (principal.asDiagonal() * omega0).normalized();  // world L = R₀ Θ ω₀, R₀ = I
  SpinRun run;
  IntegrationOptions opt;
  opt.stepper = StepperKind::RkDopri5;
  opt.rtol = opt.atol = 1e-12;
  const IntegrationResult r =
      integrate(m, s, 0.0, duration, opt, {}, 1e-3, [&](double t, const State& st) {
        run.t.push_back(t);
        run.alignment.push_back(bodyPose(m, st).R.col(axis).dot(L_hat));
      });
  EXPECT_TRUE(r.ok) << r.message;
  return run;
}

// A T-handle-like body: principal moments I₁ < I₂ < I₃ (I₁ + I₂ ≥ I₃), spun at 10 rad/s about
// the intermediate axis with a 1e-3 relative perturbation about the major axis.
const Vec3 kHandleInertia(0.010, 0.020, 0.026);
constexpr double kSpin = 10.0;
constexpr double kPerturbation = 1e-3 * kSpin;

TEST_P(FreeJoint, IntermediateAxisSpinFlipsWithTheEllipticPeriod) {
  const Vec3 omega0(0.0, kSpin, kPerturbation);
  const double interval = flipInterval(kHandleInertia, omega0);  // ≈ 3.30 s
  const SpinRun run = spin(GetParam(), kHandleInertia, 1, omega0, 20.0);

  // The y axis reverses in the world: alignment with L̂ swings between ≈ +1 and ≈ −1.
  constexpr double kFullReversal = 0.999;  // |cos| of the axis–L angle at the extremes (≤ 2.6°)
  double lo = 1.0, hi = -1.0;
  for (double a : run.alignment) lo = std::min(lo, a), hi = std::max(hi, a);
  EXPECT_LT(lo, -kFullReversal);
  EXPECT_GT(hi, kFullReversal);

  // Reversal times: zero crossings of the alignment (= I₂ω₂/|L|, so exactly the zeros of sn),
  // linearly interpolated between 1 ms samples (error ≪ 1e-4 s, the flip itself takes ~0.2 s).
  std::vector<double> crossings;
  for (size_t k = 0; k + 1 < run.t.size(); ++k) {
    const double a0 = run.alignment[k], a1 = run.alignment[k + 1];
    if ((a0 > 0.0) != (a1 > 0.0))
      crossings.push_back(run.t[k] + a0 / (a0 - a1) * (run.t[k + 1] - run.t[k]));
  }
  ASSERT_GE(crossings.size(), 5u) << "expected a reversal every " << interval << " s";
  // The interval depends on L² − 2E I₂ ≈ I₃(I₃ − I₂)ε² ≈ 2e-8 against L² ≈ 0.04; the integration
  // (rtol 1e-12) keeps E and L² to ~1e-12 relative, i.e. the excess to ~3e-6, and K(k) depends on
  // it only logarithmically (δK ≈ ½ δ ln k'² ≈ 2e-6 of K ≈ 8). A wrong gyroscopic term changes the
  // interval by O(1); counting every second flip by a factor 2.
  constexpr double kIntervalTol = 1e-5;  // relative; bound on the propagated invariant drift
  double worst = 0.0;
  for (size_t i = 1; i < crossings.size(); ++i) {
    const double rel = std::abs((crossings[i] - crossings[i - 1]) / interval - 1.0);
    worst = std::max(worst, rel);
    EXPECT_NEAR((crossings[i] - crossings[i - 1]) / interval, 1.0, kIntervalTol)
        << "reversal " << i;
  }
  test::recordError("predicted_flip_interval_s", interval);
  test::recordError("max_relative_interval_error", worst);
}

TEST_P(FreeJoint, MinorAndMajorAxisSpinsAreStable) {
  for (int axis : {0, 2}) {
    Vec3 omega0 = Vec3::Constant(kPerturbation);
    omega0(axis) = kSpin;
    const SpinRun run = spin(GetParam(), kHandleInertia, axis, omega0, 20.0);
    double lo = 1.0;
    for (double a : run.alignment) lo = std::min(lo, a);
    // The spin axis precesses on a cone of half-angle ~ perturbation × inertia ratios ≈ 2e-3 rad
    // (cos ≈ 1 − 2e-6); the unstable intermediate axis leaves any such cone within seconds.
    constexpr double kConeAngle = 0.01;  // rad; 5× the expected precession cone
    EXPECT_GT(lo, std::cos(kConeAngle)) << "spin about principal axis " << axis;
  }
}

// ---- (d) R versus quaternion
// ------------------------------------------------------------------------

TEST(FreeBodyCoordinates, RotationMatrixAndQuaternionGiveTheSamePoses) {
  test::Rng rng(304);
  const BodySpec body = test::randomBody(rng, "body");
  const Pose G0 = test::randomPose(rng, 1.0);
  Vec6 twist;
  twist << 0.4, 0.1, -0.3, 2.0, -1.0, 2.5;
  std::vector<Pose> poses[2];
  int version = 0;
  for (JointType type : {JointType::Free, JointType::FreeQuaternion}) {
    const Model m = freeBody(body, type, Vec3(0, 0, -9.81));
    State s = freeState(m, G0, twist);
    IntegrationOptions opt;
    opt.stepper = StepperKind::Rk4;
    opt.dt = 1e-3;
    const IntegrationResult r =
        integrate(m, s, 0.0, 2.0, opt, {}, 0.01,
                  [&](double, const State& st) { poses[version].push_back(bodyPose(m, st)); });
    ASSERT_TRUE(r.ok) << r.message;
    ++version;
  }
  ASSERT_EQ(poses[0].size(), poses[1].size());
  double worst = 0.0;
  for (size_t k = 0; k < poses[0].size(); ++k) {
    worst = std::max({worst, (poses[0][k].R - poses[1][k].R).cwiseAbs().maxCoeff(),
                      (poses[0][k].r - poses[1][k].r).cwiseAbs().maxCoeff()});
  }
  // Both are RK4 discretizations (dt = 1 ms) of the same flow on SE(3); they differ only by O(dt⁴)
  // truncation terms and the projections, which move nothing but the norm/orthogonality. A wrong
  // quaternion rate (e.g. ω in world instead of body axes) gives O(1).
  constexpr double kPoseTol = 1e-8;  // 100× the measured difference (1e-10)
  EXPECT_LT(worst, kPoseTol);
  test::recordError("max_pose_difference", worst);
}

INSTANTIATE_TEST_SUITE_P(FreeTypes, FreeJoint,
                         testing::Values(JointType::Free, JointType::FreeQuaternion), jointName);

// The single-rigid-body shortcut (Model::single_rigid_body) takes the generalized forces as the
// body wrenches; the recursive backward pass must give the same numbers, with
// external wrenches, body forces and torques, at random states, for both coordinate choices;
// likewise the input matrix.
TEST(FreeBody, SingleRigidBodyShortcutEqualsTheRecursivePasses) {
  for (JointType type : {JointType::Free, JointType::FreeQuaternion}) {
    test::Rng rng(41);
    ModelBuilder b;
    b.addBody(test::randomBody(rng, "vehicle"));
    b.addJoint({.name = "flight", .type = type, .child = "vehicle", .parent_placement = test::randomPose(rng)});
    b.addActuator({.name = "f", .kind = ActuatorKind::BodyForce, .body = "vehicle", .point = Vec3(0.2, -0.1, 0.05),
                   .direction = Vec3(0.1, 0.2, 1.0).normalized(), .torque_ratio = 0.017});
    b.addActuator({.name = "t", .kind = ActuatorKind::BodyTorque, .body = "vehicle", .direction = Vec3::UnitX()});
    b.addExternalWrench({.body = "vehicle", .point = Vec3(0.1, 0, 0), .force = Vec3(0.3, -0.2, 0.1),
                         .torque = Vec3(0.01, 0.02, -0.03), .world_axes = true});
    const Model fast = b.build();
    ASSERT_TRUE(fast.single_rigid_body) << jointTypeName(type);
    Model recursive = fast;
    recursive.single_rigid_body = false;
    Workspace ws_fast(fast), ws_recursive(recursive);
    for (int k = 0; k < 5; ++k) {
      const State s = test::randomState(fast, rng, 3.0);
      const VecX u = VecX::Random(2);
      ASSERT_EQ(computeForwardDynamics(fast, s.x, s.xi, u, ws_fast), DynamicsStatus::Ok);
      ASSERT_EQ(computeForwardDynamics(recursive, s.x, s.xi, u, ws_recursive), DynamicsStatus::Ok);
      EXPECT_MATRIX_NEAR(ws_fast.inertial_forces, ws_recursive.inertial_forces, 1e-14);
      EXPECT_MATRIX_NEAR(ws_fast.gravity_forces, ws_recursive.gravity_forces, 1e-14);
      EXPECT_MATRIX_NEAR(ws_fast.input_forces, ws_recursive.input_forces, 1e-14);
      EXPECT_MATRIX_NEAR(ws_fast.xidot, ws_recursive.xidot, 1e-13);
      EXPECT_MATRIX_NEAR(ws_fast.xdot, ws_recursive.xdot, 0.0);
      // B: the unit wrenches themselves, exactly what Jᵀ (J = I) makes of them.
      computeBodyJacobians(fast, ws_fast);
      computeInputMatrix(fast, ws_fast);
      computeBodyJacobians(recursive, ws_recursive);
      computeInputMatrix(recursive, ws_recursive);
      EXPECT_MATRIX_NEAR(ws_fast.input_matrix, ws_recursive.input_matrix, 0.0);
    }
  }
  // Anything beyond body wrenches takes the recursive passes.
  test::Rng rng(42);
  ModelBuilder b;
  b.addBody(test::randomBody(rng, "vehicle"));
  b.addJoint({.name = "flight", .type = JointType::Free, .child = "vehicle"});
  b.addDamper({.name = "air", .a = {kWorld, {}}, .b = {"vehicle", {}}, .damping = 0.1});
  EXPECT_FALSE(b.build().single_rigid_body);
  EXPECT_FALSE(test::randomTreeWith(JointType::Revolute, false, 3).single_rigid_body);
}

}  // namespace
}  // namespace rbs
