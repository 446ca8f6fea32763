// The motivation example of the thesis (1.2), konz-modeling §2.2 and the Euler-angle notes of §10:
// a body rotating about its fixed centre of mass (principal inertias Θx, Θy, Θz), modelled with a
// spherical joint as rotation matrix, unit quaternion and ZYX Euler angles.
//  - The Euler version reproduces the printed mass matrix (1.7), det M = ΘxΘyΘz cos²β, the
//    Christoffel form of its bias b and the torque map Yᵀτ.
//  - Away from β = ±90° all three versions give the same body poses.
//  - Through (or within δ of) β = 90° the redundant versions follow the closed-form rotation and
//    conserve energy, while the Euler version breaks down; what exactly happens (measured, see the
//    tests below) depends on the stepper and on how close the passage comes to the lock.
#include <gtest/gtest.h>

#include <Eigen/Eigenvalues>
#include <cmath>
#include <numbers>
#include <sstream>
#include <string>
#include <vector>

#include "core/dynamics/dynamics.h"
#include "core/dynamics/energy.h"
#include "sim/simulator.h"
#include "tests/support/matrix_compare.h"
#include "tests/support/test_models.h"

namespace rbs {
namespace {

constexpr double kPi = std::numbers::pi;

std::string sci(double value) {
  std::ostringstream os;
  os.precision(3);
  os << std::scientific << value;
  return os.str();
}

void recordValue(const std::string& name, double value) {
  testing::Test::RecordProperty(name, sci(value));
}

// Principal inertias with Θy the largest, so that a spin about the body y axis (the pitch axis at
// α = φ = 0) is a stable steady rotation; I₁ + I₂ ≥ I₃ holds.
constexpr double kThx = 0.8, kThy = 1.6, kThz = 1.2;

/// The body about its fixed CoM on a spherical joint of `type`; optional constant body torque.
Model rotatingBody(JointType type, const Vec3& body_torque = Vec3::Zero()) {
  ModelBuilder b;
  b.addBody({"body", 2.0, Vec3::Zero(), Vec3(kThx, kThy, kThz).asDiagonal()});
  b.addJoint({.name = "ball", .type = type, .parent = rbs::kWorld, .child = "body"});
  if (!body_torque.isZero()) b.addExternalWrench({.body = "body", .torque = body_torque});
  return b.build();
}

/// Y(α, β) of (1.6b): ω = Y q̇ (body angular velocity from the Euler rates).
Mat3 eulerY(double a, double be) {
  const double sa = std::sin(a), ca = std::cos(a), sb = std::sin(be), cb = std::cos(be);
  Mat3 Y;
  Y << 1, 0, -sb, 0, ca, cb * sa, 0, -sa, cb * ca;
  return Y;
}

/// The printed mass matrix (1.7), M = YᵀΘY written out.
Mat3 printedMassMatrix(double a, double be) {
  const double sa = std::sin(a), ca = std::cos(a), sb = std::sin(be), cb = std::cos(be);
  Mat3 M;
  M << kThx, 0, -kThx * sb,                                              //
      0, kThy * ca * ca + kThz * sa * sa, (kThy - kThz) * ca * sa * cb,  //
      -kThx * sb, (kThy - kThz) * ca * sa * cb,
      kThx * sb * sb + (kThy * sa * sa + kThz * ca * ca) * cb * cb;
  return M;
}

/// State of the body with rotation R and body angular velocity ω in the coordinates of `type`
/// (Euler rates ξ = Y⁻¹ ω for the Euler version, konz-modeling §10 notes).
State bodyState(const Model& m, const Mat3& R, const Vec3& omega) {
  State s = m.neutralState();
  jointCoordinatesFromMotion(m.joints[0], Pose::rotation(R), s.x.data());
  if (m.joints[0].type == JointType::SphericalEulerZYX) {
    s.xi = eulerY(s.x(0), s.x(1)).inverse() * omega;
  } else {
    s.xi = omega;
  }
  return s;
}

// ---- The Euler-angle model against the printed equations ---------------------------------------

TEST(MotivationExample, EulerMassMatrixIsThePrintedOneWithDeterminantCosSquaredBeta) {
  const Model m = rotatingBody(JointType::SphericalEulerZYX);
  Workspace ws(m);
  test::Rng rng(401);
  const double scale = kThx * kThy * kThz;
  constexpr double kMassTol = 1e-13;  // O(1) entries from three-term sums: rounding ~1e-16
  // Absolute in units of ΘxΘyΘz: near β = ±π/2 det M itself is tiny and only the absolute
  // rounding (~1e-16 |M|³) is meaningful.
  constexpr double kDetTol = 1e-13;
  double worst_M = 0.0, worst_det = 0.0;
  for (int trial = 0; trial < 200; ++trial) {
    const Vec3 q(test::uniform(rng, -kPi, kPi), test::uniform(rng, -kPi / 2, kPi / 2),
                 test::uniform(rng, -kPi, kPi));
    const VecX xi = test::randomVector(rng, 2.0);
    computeKinematics(m, q, xi, ws);
    computeMassMatrix(m, ws);
    const Mat3 M = ws.mass_matrix;
    EXPECT_MATRIX_NEAR(M, printedMassMatrix(q(0), q(1)), kMassTol) << "q = " << q.transpose();
    // det M = ΘxΘyΘz cos²β (§2.2).
    const double expected_det = scale * std::cos(q(1)) * std::cos(q(1));
    EXPECT_NEAR(M.determinant(), expected_det, kDetTol * scale) << "q = " << q.transpose();
    worst_M = std::max(worst_M, (M - printedMassMatrix(q(0), q(1))).cwiseAbs().maxCoeff());
    worst_det = std::max(worst_det, std::abs(M.determinant() - expected_det) / scale);
  }
  recordValue("max_mass_matrix_error", worst_M);
  recordValue("max_relative_det_error", worst_det);
}

TEST(MotivationExample, EulerBiasIsTheChristoffelFormOfThePrintedMassMatrix) {
  // Lagrange (1.2) with T = ½ q̇ᵀ M(q) q̇: b_i = Σ_jk (∂_k M_ij − ½ ∂_i M_jk) q̇_j q̇_k, here with
  // ∂M from 4th-order central differences of the printed closed form (1.7) (h = 1e-3: truncation
  // ~h⁴ = 1e-12, rounding ~1e-16/h = 1e-13), independent of the simulator's κ recursion.
  const Model m = rotatingBody(JointType::SphericalEulerZYX);
  Workspace ws(m);
  test::Rng rng(402);
  constexpr double h = 1e-3;
  constexpr double kBiasTol = 1e-9;  // b = O(1–10); difference error ~1e-12, leading terms O(1)
  double worst = 0.0;
  for (int trial = 0; trial < 50; ++trial) {
    const Vec3 q(test::uniform(rng, -kPi, kPi), test::uniform(rng, -1.3, 1.3),
                 test::uniform(rng, -kPi, kPi));
    const Vec3 qd = test::randomVector(rng, 2.0);
    Mat3 dM[3];
    for (int k = 0; k < 3; ++k) {
      auto Mk = [&](double t) {
        Vec3 qq = q;
        qq(k) += t;
        return printedMassMatrix(qq(0), qq(1));
      };
      dM[k] = (Mk(-2 * h) - 8 * Mk(-h) + 8 * Mk(h) - Mk(2 * h)) / (12 * h);
    }
    Vec3 b = Vec3::Zero();
    for (int i = 0; i < 3; ++i)
      for (int j = 0; j < 3; ++j)
        for (int k = 0; k < 3; ++k) b(i) += (dM[k](i, j) - 0.5 * dM[i](j, k)) * qd(j) * qd(k);
    computeKinematics(m, q, qd, ws);
    computeInertialForces(m, ws);
    EXPECT_MATRIX_NEAR(ws.inertial_forces, b, kBiasTol)
        << "q = " << q.transpose() << ", q̇ = " << qd.transpose();
    worst = std::max(worst, (ws.inertial_forces - b).cwiseAbs().maxCoeff());
  }
  recordValue("max_bias_error", worst);
}

TEST(MotivationExample, BodyTorqueMapsThroughYTransposed) {
  // (1.7): M q̈ + b = Yᵀ(q) τ for a body torque τ (body axes).
  const Vec3 tau(0.7, -1.1, 0.4);
  const Model m = rotatingBody(JointType::SphericalEulerZYX, tau);
  Workspace ws(m);
  test::Rng rng(403);
  constexpr double kTorqueTol = 1e-14;  // O(1) entries, one 3×3 product: rounding ~1e-16
  for (int trial = 0; trial < 20; ++trial) {
    const Vec3 q(test::uniform(rng, -kPi, kPi), test::uniform(rng, -1.5, 1.5),
                 test::uniform(rng, -kPi, kPi));
    ASSERT_EQ(computeForwardDynamics(m, q, test::randomVector(rng, 1.0), VecX(), ws),
              DynamicsStatus::Ok);
    EXPECT_MATRIX_NEAR(ws.input_forces, Vec3(eulerY(q(0), q(1)).transpose() * tau), kTorqueTol)
        << "q = " << q.transpose();
  }
}

TEST(MotivationExample, MassMatrixIsSingularAtGimbalLock) {
  // At β = π/2 the Euler mass matrix has the null vector (α̇, β̇, φ̇) ∝ (1, 0, 1) (konz-modeling §10
  // notes): those rates move nothing. The rotation-matrix version at the same pose is regular.
  const Model euler = rotatingBody(JointType::SphericalEulerZYX);
  const Model matrix = rotatingBody(JointType::Spherical);
  Workspace ws(euler), ws_R(matrix);
  const Vec3 q(0.3, kPi / 2, -0.2);
  const Vec3 rates(0.4, 0.5, -0.3);
  computeKinematics(euler, q, rates, ws);
  computeMassMatrix(euler, ws);
  const Eigen::SelfAdjointEigenSolver<Mat3> eig(Mat3(ws.mass_matrix));
  constexpr double kZeroEigenvalue =
      1e-14;  // exact value ~cos²(π/2) ≈ 4e-33; rounding of O(1) entries
  constexpr double kNullVectorTol = 1e-8;  // eigenvector error ~rounding / spectral gap (≈ 0.8)
  EXPECT_LT(eig.eigenvalues()(0), kZeroEigenvalue);
  const Vec3 null_vector = eig.eigenvectors().col(0) * (eig.eigenvectors()(0, 0) > 0 ? 1.0 : -1.0);
  EXPECT_MATRIX_NEAR(null_vector, Vec3(1, 0, 1).normalized(), kNullVectorTol);

  // What the forward dynamics does there (measured): the articulated-body recursion rejects the
  // joint's 3×3 block D = Yᵀ I^A Y (SingularMassMatrix) or, if rounding leaves a positive pivot, the accelerations are
  // non-finite or astronomically large. Either way no usable ξ̇ exists.
  const DynamicsStatus status = computeForwardDynamics(euler, q, rates, VecX(), ws);
  constexpr double kAstronomical = 1e6;  // rad/s² for rates ~0.5 rad/s and Θ ~ 1 kg m²
  const bool unusable = status != DynamicsStatus::Ok || ws.xidot.norm() > kAstronomical;
  EXPECT_TRUE(unusable) << "status " << toString(status) << ", |ξ̇| = " << ws.xidot.norm();
  RecordProperty("status_at_gimbal_lock", std::string(toString(status)));

  const State s = bodyState(matrix, rotationZYX(q(0), q(1), q(2)), eulerY(q(0), q(1)) * rates);
  EXPECT_EQ(computeForwardDynamics(matrix, s.x, s.xi, VecX(), ws_R), DynamicsStatus::Ok);
  EXPECT_LT(ws_R.xidot.norm(), 10.0);  // Euler's equations: |ω̇| ~ |ω|² ≈ 0.5 here
}

// ---- Simulations
// ----------------------------------------------------------------------------------

struct SimRun {
  IntegrationResult result;
  std::vector<double> t;
  std::vector<Mat3> R;
  std::vector<double> kinetic;
  std::vector<double> pitch;  // Euler version: β(t)
};

SimRun simulate(const Model& m, State s, double duration, const IntegrationOptions& opt) {
  SimRun run;
  Workspace ws(m);
  run.result = integrate(m, s, 0.0, duration, opt, {}, 1e-3, [&](double t, const State& st) {
    computeKinematics(m, st.x, st.xi, ws);
    run.t.push_back(t);
    run.R.push_back(ws.pose[0].R);
    run.kinetic.push_back(computeEnergies(m, st.x, st.xi, ws).kinetic);
    if (m.joints[0].type == JointType::SphericalEulerZYX) run.pitch.push_back(st.x(1));
  });
  return run;
}

TEST(MotivationExample, AllThreeVersionsAgreeAwayFromGimbalLock) {
  test::Rng rng(404);
  double worst = 0.0;
  for (int trial = 0; trial < 4; ++trial) {
    // Start near level with the spin mostly about the body z axis: the angular momentum stays
    // near vertical and |β| well below 90° (checked below).
    const Mat3 R0 = rotationZYX(test::uniform(rng, -0.3, 0.3), test::uniform(rng, -0.3, 0.3),
                                test::uniform(rng, -kPi, kPi));
    const Vec3 omega0(test::uniform(rng, -0.4, 0.4), test::uniform(rng, -0.4, 0.4),
                      test::uniform(rng, 1.0, 2.0));
    IntegrationOptions opt;
    opt.stepper = StepperKind::Rk4;
    opt.dt = 1e-3;
    std::vector<SimRun> runs;
    for (JointType type :
         {JointType::Spherical, JointType::SphericalQuaternion, JointType::SphericalEulerZYX}) {
      const Model m = rotatingBody(type);
      runs.push_back(simulate(m, bodyState(m, R0, omega0), 2.0, opt));
      ASSERT_TRUE(runs.back().result.ok)
          << jointTypeName(type) << ": " << runs.back().result.message;
    }
    double max_pitch = 0.0;
    for (double b : runs[2].pitch) max_pitch = std::max(max_pitch, std::abs(b));
    ASSERT_LT(max_pitch, 1.2) << "precondition: the motion stays away from gimbal lock";
    for (size_t k = 0; k < runs[0].R.size(); ++k) {
      worst = std::max({worst, (runs[1].R[k] - runs[0].R[k]).cwiseAbs().maxCoeff(),
                        (runs[2].R[k] - runs[0].R[k]).cwiseAbs().maxCoeff()});
    }
  }
  // Three RK4 discretizations (dt = 1 ms) of one flow on SO(3) differ by O(dt⁴) truncation terms
  // (~1e-12 for rates ~2 rad/s); a wrong Euler bias term shows up as O(0.1) within 2 s
  // (konz-modeling §10.1 "sensitivity").
  constexpr double kPoseTol = 1e-8;  // > 1000× the measured difference (6e-13)
  EXPECT_LT(worst, kPoseTol);
  recordValue("max_pose_difference", worst);
}

// Passages through pitch 90°: the body starts at roll δ (R₀ = R_x(δ)) and turns about its body y
// axis, which is the stable major axis, either spinning freely at Ω or driven from rest by a
// constant body torque τ about y. Closed form (rotation about a fixed principal axis, no gyroscopic
// torque): R(t) = R₀ R_y(θ(t)) with θ = Ω t + τ t²/(2Θy), T = ½ Θy θ̇². The body x axis passes the
// world −z direction at distance δ, where the Euler rates grow like θ̇/δ (the chart's singular set).
struct Passage {
  const char* name;
  double spin;    // Ω [rad/s]
  double torque;  // τ [N m]
  double theta(double t) const { return spin * t + 0.5 * torque / kThy * t * t; }
  double rate(double t) const { return spin + torque / kThy * t; }
  /// Time of the passage, θ(t) = π/2.
  double passageTime() const {
    const double acc = torque / kThy;
    return acc == 0.0 ? kPi / (2 * spin) : (-spin + std::sqrt(spin * spin + acc * kPi)) / acc;
  }
};

constexpr Passage kPassages[] = {{"free_spin", 2.0, 0.0}, {"constant_torque", 0.0, 2.0}};

struct PassageErrors {
  double pose = 0.0;    ///< max |R − R_closed form|
  double energy = 0.0;  ///< max |T − T_closed form| / T_closed form(end)
};

PassageErrors compareWithClosedForm(const SimRun& run, const Passage& p, const Mat3& R0) {
  PassageErrors e;
  const double T_end = 0.5 * kThy * p.rate(run.t.back()) * p.rate(run.t.back());
  for (size_t k = 0; k < run.t.size(); ++k) {
    const double t = run.t[k];
    const Mat3 R = R0 * axisAngleRotation(Vec3::UnitY(), p.theta(t));
    e.pose = std::max(e.pose, (run.R[k] - R).cwiseAbs().maxCoeff());
    e.energy =
        std::max(e.energy, std::abs(run.kinetic[k] - 0.5 * kThy * p.rate(t) * p.rate(t)) / T_end);
  }
  return e;
}

SimRun passageRun(JointType type, const Passage& p, double delta, const IntegrationOptions& opt) {
  const Model m = rotatingBody(type, Vec3(0, p.torque, 0));
  const Mat3 R0 = axisAngleRotation(Vec3::UnitX(), delta);
  return simulate(m, bodyState(m, R0, Vec3(0, p.spin, 0)), 2.0, opt);
}

// The redundant versions: closed form to 1e-10 in R and in T. RK4 / Dopri5 on a rotation about a
// fixed axis are exact up to the O(dt⁴) phase error of θ(t) (measured ≤ 2e-13); a spurious
// gyroscopic term or a chart problem would show up as O(1).
constexpr double kClosedFormTol = 1e-10;

TEST(MotivationExample, FixedStepRk4BreaksDownOnlyForEulerAnglesNearGimbalLock) {
  // Measured with RK4, dt = 1 ms (the real-time setting), passage at t ≈ 0.79 s (spin) / 1.59 s
  // (torque): for δ = 1e-3 … 1e-5 the Euler version stops with NonFinite a step after the
  // passage (rates ~θ̇/δ overflow); for δ = 1e-6 it runs through with an O(0.2–2) pose error and
  // a wrong energy. (For δ ≲ 1e-7 the steps jump over the singular window and land in the
  // equivalent chart branch (φ + π, π − β, α + π), error → 0 as δ → 0: not asserted.)
  IntegrationOptions opt;
  opt.stepper = StepperKind::Rk4;
  opt.dt = 1e-3;
  for (const Passage& p : kPassages) {
    for (double delta : {1e-3, 1e-4, 1e-5, 1e-6}) {
      const Mat3 R0 = axisAngleRotation(Vec3::UnitX(), delta);
      const std::string label = std::string(p.name) + ", delta " + sci(delta);
      for (JointType type : {JointType::Spherical, JointType::SphericalQuaternion}) {
        const SimRun run = passageRun(type, p, delta, opt);
        ASSERT_TRUE(run.result.ok) << label << ": " << run.result.message;
        const PassageErrors e = compareWithClosedForm(run, p, R0);
        EXPECT_LT(e.pose, kClosedFormTol) << label << ", " << jointTypeName(type);
        EXPECT_LT(e.energy, kClosedFormTol) << label << ", " << jointTypeName(type);
      }
      const SimRun euler = passageRun(JointType::SphericalEulerZYX, p, delta, opt);
      const PassageErrors e = compareWithClosedForm(euler, p, R0);
      // "Deviates strongly": 0.05 in the entries of R ≈ 3°, over 1000× the Euler version's error
      // for a passage at δ = 1e-2 (≈ 1e-5, measured).
      constexpr double kStrongDeviation = 0.05;
      EXPECT_TRUE(!euler.result.ok || e.pose > kStrongDeviation)
          << label << ": the Euler version ran through with pose error " << e.pose;
      recordValue(label + (euler.result.ok ? ": euler pose error" : ": euler stopped at t"),
                  euler.result.ok ? e.pose : euler.result.t);
    }
  }
}

TEST(MotivationExample, AdaptiveDopri5StallsOnlyForEulerAnglesAtGimbalLock) {
  // Measured with Dopri5, rtol = atol = 1e-10: the error control resolves passages down to
  // δ ≈ 1e-5 (pose error ≤ 1e-6) at growing cost; δ = 1e-6 costs 30× the right-hand-side
  // evaluations of the rotation-matrix version (and leaves a 5e-5 pose error); for δ ≤ 1e-7 it
  // stops with "step size underflow" exactly at the passage (β → 90°). The redundant versions
  // need the same 14 000 evaluations for every δ.
  IntegrationOptions opt;
  opt.stepper = StepperKind::RkDopri5;
  opt.rtol = opt.atol = 1e-10;
  // The samples come from Dopri5's dense output (a 4th-order interpolant between steps), which is
  // less accurate than the step end points: at rtol = 1e-10 the redundant versions stay within
  // 8e-10 of the closed form (measured); 1e-8 bounds that and is still 1e4× below the Euler
  // version's failures.
  constexpr double kDenseOutputTol = 1e-8;
  for (const Passage& p : kPassages) {
    for (double delta : {1e-6, 1e-7, 1e-8}) {
      const Mat3 R0 = axisAngleRotation(Vec3::UnitX(), delta);
      const std::string label = std::string(p.name) + ", delta " + sci(delta);
      long redundant_evaluations = 0;
      for (JointType type : {JointType::Spherical, JointType::SphericalQuaternion}) {
        const SimRun run = passageRun(type, p, delta, opt);
        ASSERT_TRUE(run.result.ok) << label << ": " << run.result.message;
        const PassageErrors e = compareWithClosedForm(run, p, R0);
        EXPECT_LT(e.pose, kDenseOutputTol) << label << ", " << jointTypeName(type);
        EXPECT_LT(e.energy, kDenseOutputTol) << label << ", " << jointTypeName(type);
        redundant_evaluations = std::max(redundant_evaluations, run.result.rhs_evaluations);
      }
      const SimRun euler = passageRun(JointType::SphericalEulerZYX, p, delta, opt);
      const double cost = static_cast<double>(euler.result.rhs_evaluations) /
                          static_cast<double>(redundant_evaluations);
      constexpr double kCostBlowUp = 10.0;  // measured ≈ 30× at δ = 1e-6 (where it still finishes)
      EXPECT_TRUE(!euler.result.ok || cost > kCostBlowUp)
          << label << ": the Euler version finished with " << cost << "× the evaluations";
      if (!euler.result.ok) {
        // It stalls at the passage, not somewhere else.
        constexpr double kAtPassage = 0.01;  // s; the singular window lasts ~δ/θ̇ ≪ 1 ms
        EXPECT_NEAR(euler.result.t, p.passageTime(), kAtPassage)
            << label << ": " << euler.result.message;
      }
      recordValue(label + ": euler cost ratio", cost);
      recordValue(label + (euler.result.ok ? ": euler finished at t" : ": euler stopped at t"),
                  euler.result.t);
    }
  }
}

}  // namespace
}  // namespace rbs
