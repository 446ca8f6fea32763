// The prototype-template controllers against the numbers of the sources (konz-control §10.5,
// §7, §12.5): the planar-body table of thesis 4.7.5, the template poles at a constant reference,
// perfect tracking without initial error, and the energy identities.
#include <gtest/gtest.h>

#include <complex>
#include <numbers>
#include <random>
#include <tuple>

#include "core/control/prototype.h"
#include "core/control/registry.h"
#include "core/control/tracking.h"
#include "core/dynamics/dynamics.h"
#include "core/model/model_builder.h"
#include "tests/support/closed_loop_rk4.h"
#include "tests/support/example_models.h"
#include "tests/support/linear_algebra.h"
#include "tests/support/test_models.h"

namespace rbs {
namespace {

Model planarBody() { return test::actuatedPlanarBody(); }

/// A free body (r, q) with six body-frame inputs: forces along x, y, z through the origin and
/// torques about x, y, z.
Model actuatedFreeBody() {
  ModelBuilder b;
  Mat3 inertia;
  inertia << 0.3, 0.02, -0.01, 0.02, 0.5, 0.03, -0.01, 0.03, 0.6;
  b.addBody({"body", 1.5, Vec3(0.05, 0.02, -0.03), inertia});
  b.addJoint({.name = "free", .type = JointType::FreeQuaternion, .child = "body"});
  const char* axes[3] = {"x", "y", "z"};
  for (int i = 0; i < 3; ++i)
    b.addActuator({.name = std::string("force_") + axes[i], .kind = ActuatorKind::BodyForce, .body = "body",
                   .direction = Vec3::Unit(i)});
  for (int i = 0; i < 3; ++i)
    b.addActuator({.name = std::string("torque_") + axes[i], .kind = ActuatorKind::BodyTorque, .body = "body",
                   .direction = Vec3::Unit(i)});
  return b.build();
}

ControllerSettings settings(const std::string& name, std::map<std::string, double> parameters,
                            std::map<std::string, std::string> options = {}) {
  return ControllerSettings{name, std::move(parameters), std::move(options)};
}

// ---- thesis 4.7.5: the planar body, m̄ = 1, d̄ = 4, k̄ = 4, α_R = π t -----------------------------

struct PlanarRow {
  double t, particle_e, particle_w, body_e, body_w, energy_e, energy_w;
};
// konz-control §10.5 table (reproduced there by integrating (4.98); ‖e‖ and W̄_r, 4 decimals).
constexpr PlanarRow kPlanarTable[] = {
    {0.5, 0.7358, 1.3534, 0.9356, 2.0212, 0.6266, 1.2121},
    {1.0, 0.4060, 0.4762, 0.5879, 0.9281, 0.3743, 0.3513},
    {2.0, 0.0916, 0.0275, 0.1471, 0.0689, 0.2315, 0.1242},
    {3.0, 0.0174, 0.0010, 0.0291, 0.0029, 0.1351, 0.0421},
};

class PlanarTable : public ::testing::TestWithParam<const char*> {};

TEST_P(PlanarTable, ErrorNormAndTranslationalEnergyMatchTheThesis) {
  const std::string name = GetParam();
  const Model model = planarBody();
  // Rotational gains (1, 8, 16): the translational table does not depend on them, and they keep
  // the particle-based rotation stable at ω_R = π (konz-control §10.5: Π̄/Θ̄ > π²).
  auto controller = makeController(model, settings(name, {{"mbar", 1}, {"dbar", 4}, {"kbar", 4},
                                                           {"thetabar_z", 1}, {"upsilonbar_z", 8}, {"pibar_z", 16}}));
  const double w = std::numbers::pi;
  auto reference = [&](double t, ReferenceSample& r) {
    r.x = Eigen::Vector3d(0, 0, w * t);
    r.xi = Eigen::Vector3d(0, 0, w);
    r.xidot = Eigen::Vector3d::Zero();
  };
  State s{Eigen::Vector3d(0, 1, 0), Eigen::Vector3d::Zero()};
  std::size_t row = 0;
  // RK4 at h = 1e-3 s: truncation error ~1e-12, far below the table's 5e-5 rounding.
  constexpr double kTableRounding = 6e-5;
  test::Rk4ClosedLoop loop(model, *controller, reference);
  double t_run = 0.0;
  const bool ran = loop.run(s, t_run, 3.0, 1e-3, [&](double t, const State& st) {
    if (row >= std::size(kPlanarTable) || std::abs(t - kPlanarTable[row].t) > 1e-9) return;
    const PlanarRow& expected = kPlanarTable[row++];
    const Eigen::Vector2d e = st.x.head<2>();
    const double a = st.x[2], a_R = w * t;
    const Eigen::Matrix2d R = Eigen::Rotation2Dd(a).toRotationMatrix();
    const Eigen::Matrix2d R_R = Eigen::Rotation2Dd(a_R).toRotationMatrix();
    const Eigen::Vector2d e_dot = R * st.xi.head<2>();
    double norm, energy;
    if (name == "prototype_particle") {
      norm = e.norm();
      energy = 0.5 * 4 * e.squaredNorm() + 0.5 * e_dot.squaredNorm();
      EXPECT_NEAR(norm, expected.particle_e, kTableRounding) << "t = " << t;
      EXPECT_NEAR(energy, expected.particle_w, kTableRounding) << "t = " << t;
    } else {
      const Eigen::Vector2d r_E = R_R.transpose() * e;
      const Eigen::Vector2d r_E_dot = R_R.transpose() * e_dot - w * Eigen::Vector2d(-r_E.y(), r_E.x());
      norm = r_E.norm();
      energy = 0.5 * 4 * r_E.squaredNorm() + 0.5 * r_E_dot.squaredNorm();
      const bool body = name == "prototype_body";
      EXPECT_NEAR(norm, body ? expected.body_e : expected.energy_e, kTableRounding) << "t = " << t;
      EXPECT_NEAR(energy, body ? expected.body_w : expected.energy_w, kTableRounding) << "t = " << t;
    }
    if (name == "prototype_particle") {
      // The particle-based correction runs on a straight line in the inertial frame.
      EXPECT_LT(std::abs(st.x[0]), 1e-9) << "t = " << t;
    }
  });
  ASSERT_TRUE(ran) << loop.failure();
  EXPECT_EQ(row, std::size(kPlanarTable));
}

INSTANTIATE_TEST_SUITE_P(AllVariants, PlanarTable,
                         ::testing::Values("prototype_particle", "prototype_body", "prototype_energy"));

// The poles of 4.7.5 itself: the translational error dynamics are linear and time-invariant in
// each approach's own error coordinates (e inertial for particle, r_E in the reference frame for
// body and energy; konz-control §10.5), so the transition matrix Φ(T) of (r_E, ṙ_E) over T has the
// eigenvalues exp(λ T) of the poles λ. Printed: quadruple −2 (particle, body);
// −0.537 ± 0.576i, −3.463 ± 3.718i (energy).
TEST_P(PlanarTable, TranslationalPolesOf475) {
  const std::string name = GetParam();
  const Model model = planarBody();
  auto controller = makeController(model, settings(name, {{"mbar", 1}, {"dbar", 4}, {"kbar", 4},
                                                           {"thetabar_z", 1}, {"upsilonbar_z", 8}, {"pibar_z", 16}}));
  const double w = std::numbers::pi, T = 0.5;
  auto reference = [&](double t, ReferenceSample& r) {
    r.x = Eigen::Vector3d(0, 0, w * t);
    r.xi = Eigen::Vector3d(0, 0, w);
    r.xidot = Eigen::Vector3d::Zero();
  };
  const bool particle = name == "prototype_particle";
  // Error coordinates (position, rate) of the state at time t with α = α_R (zero attitude error).
  auto errors = [&](double t, const State& st) {
    const Eigen::Matrix2d R = Eigen::Rotation2Dd(st.x[2]).toRotationMatrix();
    const Eigen::Matrix2d R_R = Eigen::Rotation2Dd(w * t).toRotationMatrix();
    const Eigen::Vector2d e = st.x.head<2>(), e_dot = R * st.xi.head<2>();
    Eigen::Vector4d out;
    if (particle) {
      out << e, e_dot;
    } else {
      const Eigen::Vector2d r_E = R_R.transpose() * e;
      out << r_E, R_R.transpose() * e_dot - w * Eigen::Vector2d(-r_E.y(), r_E.x());
    }
    return out;
  };
  Eigen::Matrix4d Phi;
  for (int i = 0; i < 4; ++i) {
    // Initial error = unit vector i; at t = 0, R = R_R = I, so e = r_E and ė = ṙ_E + ω_R × r_E.
    const Eigen::Vector4d z0 = Eigen::Vector4d::Unit(i);
    Eigen::Vector2d e_dot = z0.tail<2>();
    if (!particle) e_dot += w * Eigen::Vector2d(-z0.y(), z0.x());
    State s{Eigen::Vector3d(z0.x(), z0.y(), 0.0), Eigen::Vector3d(e_dot.x(), e_dot.y(), w)};
    test::Rk4ClosedLoop loop(model, *controller, reference);
    double t = 0.0;
    ASSERT_TRUE(loop.run(s, t, T, 1e-3)) << loop.failure();
    const State& end = s;
    Phi.col(i) = errors(T, end);
  }
  std::vector<std::complex<double>> expected;
  if (particle || name == "prototype_body") {
    expected.assign(4, std::complex<double>(-2.0, 0.0));
  } else {
    // λ² + (d̄/m̄ ± iω_R) λ + k̄/m̄ = 0 (konz-control §10.5).
    for (double sgn : {1.0, -1.0}) {
      const std::complex<double> b(4.0, sgn * w), disc = std::sqrt(b * b - 16.0);
      expected.push_back((-b + disc) / 2.0);
      expected.push_back((-b - disc) / 2.0);
    }
  }
  std::vector<std::complex<double>> actual;
  for (const std::complex<double>& mu : test::sortedEigenvalues(Phi)) actual.push_back(std::log(mu) / T);
  test::sortByRealThenImaginary(actual);
  test::sortByRealThenImaginary(expected);
  for (int i = 0; i < 4; ++i)
    // The double Jordan blocks of −2 split by ~sqrt(rounding · cond) ≈ 1e-7; RK4 error ~1e-12.
    EXPECT_LT(std::abs(actual[i] - expected[i]), 1e-5) << name << ": " << actual[i] << " vs " << expected[i];
  if (name == "prototype_energy") {
    EXPECT_NEAR(expected[0].real(), -3.463, 5e-4);  // the printed digits
    EXPECT_NEAR(std::abs(expected[0].imag()), 3.718, 5e-4);
    EXPECT_NEAR(expected[2].real(), -0.537, 5e-4);
    EXPECT_NEAR(std::abs(expected[2].imag()), 0.576, 5e-4);
  }
}

// ---- constant reference: closed-loop poles = roots of det(M̄λ² + D̄λ + K̄) (4.48) ---------------

/// Eigenvalues of the closed loop linearized at the reference (x_R, ξ_R = 0) in the error
/// coordinates ε (G = G_R exp(wed ε)) and δ = ξ, by central differences.
std::vector<std::complex<double>> closedLoopPoles(const Model& model, Controller& c, const Pose& G_R) {
  ReferenceSample ref;
  ref.x.resize(model.nx);
  jointCoordinatesFromMotion(model.joints[0], G_R, ref.x.data());
  ref.xi = VecX::Zero(6);
  ref.xidot = VecX::Zero(6);
  Workspace ws(model);
  VecX u(model.numInputs());
  auto accel = [&](const Vec6& eps, const Vec6& xi) {
    State s{VecX(model.nx), xi};
    jointCoordinatesFromMotion(model.joints[0], G_R * expSE3(eps), s.x.data());
    EXPECT_TRUE(c.compute(0.0, s, ref, u)) << c.message();
    EXPECT_EQ(computeForwardDynamics(model, s.x, s.xi, u, ws), DynamicsStatus::Ok);
    return Vec6(ws.xidot);
  };
  Eigen::Matrix<double, 12, 12> A = Eigen::Matrix<double, 12, 12>::Zero();
  A.topRightCorner<6, 6>().setIdentity();  // ε̇ = ξ to first order at ξ_R = 0
  const double h = 1e-6;
  for (int i = 0; i < 6; ++i) {
    const Vec6 d = h * Vec6::Unit(i);
    A.block<6, 1>(6, i) = (accel(d, Vec6::Zero()) - accel(-d, Vec6::Zero())) / (2 * h);
    A.block<6, 1>(6, 6 + i) = (accel(Vec6::Zero(), d) - accel(Vec6::Zero(), -d)) / (2 * h);
  }
  return test::sortedEigenvalues(A);
}

TEST(PrototypeConstantReference, PolesEqualTheTemplatePolynomialForAllVariants) {
  const Model model = actuatedFreeBody();
  // A template with offset centres and anisotropic moments, so that translation and rotation
  // couple and the check is not trivially diagonal.
  const std::map<std::string, double> gains = {
      {"mbar", 1.2},       {"thetabar_x", 0.4},   {"thetabar_y", 0.5},  {"thetabar_z", 0.7},
      {"dbar", 3.0},       {"upsilonbar_x", 1.1}, {"upsilonbar_y", 0.9}, {"upsilonbar_z", 1.4},
      {"kbar", 6.0},       {"pibar_x", 4.0},      {"pibar_y", 5.0},     {"pibar_z", 3.0},
      {"sbar_x", 0.1},     {"sbar_y", -0.05},     {"sbar_z", 0.02},     {"lbar_x", 0.05},
      {"lbar_z", 0.1},     {"hbar_y", 0.08},      {"hbar_z", -0.06}};
  const Pose G_R{rotationZYX(0.3, -0.4, 1.0), Vec3(0.5, -0.2, 1.0)};
  for (const char* name : {"prototype_particle", "prototype_body", "prototype_energy"}) {
    auto c = makeController(model, settings(name, gains));
    const auto actual = closedLoopPoles(model, *c, G_R);
    // The pair's moment matrices as the last compute() used them.
    const auto& pair = static_cast<PrototypeController&>(*c).prototype().pairs()[0];
    // Single free body: J = I, so the template polynomial is det(Vee(M̄')λ² + Vee(D̄')λ + Vee(K̄')).
    const Mat6 M = Vee(pair.inertia), D = Vee(pair.damping), K = Vee(pair.stiffness);
    Eigen::Matrix<double, 12, 12> companion = Eigen::Matrix<double, 12, 12>::Zero();
    companion.topRightCorner<6, 6>().setIdentity();
    companion.bottomLeftCorner<6, 6>() = -M.inverse() * K;
    companion.bottomRightCorner<6, 6>() = -M.inverse() * D;
    const auto expected = test::sortedEigenvalues(companion);
    for (std::size_t i = 0; i < expected.size(); ++i)
      // Central differences with h = 1e-6: error ~h² times third derivatives plus rounding ~1e-10/h.
      EXPECT_NEAR(std::abs(actual[i] - expected[i]), 0.0, 1e-5) << name << " pole " << i << ": " << actual[i]
                                                                << " vs " << expected[i];
  }
}

// ---- perfect model, zero initial error: the state stays on the reference ---------------------

TEST(PrototypeTracking, FullyActuatedStaysOnAnAggressiveReferenceWithoutInitialError) {
  const Model model = actuatedFreeBody();
  // A screw motion: constant body twist, x_R(t) = G₀ exp(t wed ξ_R), ξ̇_R = 0.
  const Pose G0{rotationZYX(0.2, 0.5, -0.3), Vec3(0.1, 0.2, 0.3)};
  Vec6 twist;
  twist << 1.0, -0.5, 2.0, 3.0, -2.0, 4.0;
  auto reference = [&](double t, ReferenceSample& r) {
    r.x.resize(model.nx);
    jointCoordinatesFromMotion(model.joints[0], G0 * expSE3(t * twist), r.x.data());
    r.xi = twist;
    r.xidot = VecX::Zero(6);
  };
  for (const char* name : {"prototype_particle", "prototype_body", "prototype_energy"}) {
    auto c = makeController(model, settings(name, {}));
    ReferenceSample r0;
    reference(0.0, r0);
    double worst = 0.0;
    ReferenceSample r;
    test::Rk4ClosedLoop loop(model, *c, reference);
    State s0{r0.x, r0.xi};
    double t_run = 0.0;
    const bool ran = loop.run(s0, t_run, 3.0, 1e-3, [&](double t, const State& s) {
      reference(t, r);
      VecX flipped = r.x;  // q and −q are the same attitude
      flipped.tail<4>() *= -1.0;
      worst = std::max(worst, std::min((s.x - r.x).norm(), (s.x - flipped).norm()) + (s.xi - r.xi).norm());
    });
    ASSERT_TRUE(ran) << name << ": " << loop.failure();
    // RK4 truncation of the plant at h = 1e-3 with |ω| ≈ 5 rad/s: ~1e-10 per step, damped by the loop.
    EXPECT_LT(worst, 1e-8) << name;
  }
}

// ---- energy identities (konz-control §12.5 item 6) --------------------------------------------

TEST(PrototypeEnergy, BodyAndEnergyVariantsDissipateExactlyTheTemplatePowerOnAMovingReference) {
  const Model model = actuatedFreeBody();
  std::mt19937 rng(7);
  std::uniform_real_distribution<double> U(-1.0, 1.0);
  for (const char* name : {"prototype_body", "prototype_energy"}) {
    auto c = makeController(model, settings(name, {{"sbar_x", 0.1}, {"hbar_y", 0.05}, {"lbar_z", -0.04}}));
    for (int trial = 0; trial < 20; ++trial) {
      ReferenceSample r;
      r.x.resize(model.nx);
      jointCoordinatesFromMotion(model.joints[0], expSE3(Vec6::NullaryExpr([&] { return 2 * U(rng); })), r.x.data());
      r.xi = Vec6::NullaryExpr([&] { return 2 * U(rng); });
      r.xidot = Vec6::NullaryExpr([&] { return 2 * U(rng); });
      State s{VecX(model.nx), Vec6::NullaryExpr([&] { return U(rng); })};
      jointCoordinatesFromMotion(model.joints[0], expSE3(Vec6::NullaryExpr([&] { return 2 * U(rng); })), s.x.data());
      VecX u;
      ASSERT_TRUE(c->compute(0.0, s, r, u)) << c->message();
      c->updateSignals();
      const auto& names = c->signals();
      auto value = [&](const std::string& n) {
        for (std::size_t i = 0; i < names.size(); ++i)
          if (names[i].name == n) return c->signalValues()[static_cast<int>(i)];
        ADD_FAILURE() << "no signal " << n;
        return 0.0;
      };
      // Single body, fully actuated, template realized: dW̄/dt = −2R̄ (4.23) resp. −‖ξ_E‖²_D̄ (4.32).
      EXPECT_NEAR(value("control.energy_rate"), value("control.template_power"),
                  1e-9 * (1.0 + std::abs(value("control.template_power"))))
          << name << " trial " << trial;
      EXPECT_NEAR(value("control.matching_residual"), 0.0, 1e-12) << name;
    }
  }
}

TEST(PrototypeEnergy, LeviCivitaFormReducesToTheBodyGyroscopicTermAtZeroReferenceVelocity) {
  // With ξ_R = 0 the error twist is ξ itself and C̄(ξ) ξ = −ad_ξᵀ M̄ ξ: body and energy agree.
  const Model model = actuatedFreeBody();
  auto body = makeController(model, settings("prototype_body", {{"sbar_x", 0.2}}));
  auto energy = makeController(model, settings("prototype_energy", {{"sbar_x", 0.2}}));
  ReferenceSample r;
  r.x = model.initial_state.x;
  r.xi = VecX::Zero(6);
  r.xidot = VecX::Zero(6);
  State s{model.initial_state.x, VecX::LinSpaced(6, -1.0, 2.0)};
  jointCoordinatesFromMotion(model.joints[0], expSE3(VecX::LinSpaced(6, 0.3, -0.2)), s.x.data());
  VecX u_body, u_energy;
  ASSERT_TRUE(body->compute(0, s, r, u_body));
  ASSERT_TRUE(energy->compute(0, s, r, u_energy));
  EXPECT_LT((u_body - u_energy).norm(), 1e-12 * (1 + u_body.norm()));
}

// ---- the 4×4 moment form ----------------------------------------------------------------------

TEST(TemplateMoments, MomentMatrixIsTheParticleSumAboutTheCentre) {
  // Two particles of 1 kg at c ± (0.3, 0, 0): total 2, centre c, inertia about c = diag(0, .18, .18).
  const Vec3 c(0.1, -0.2, 0.05), d(0.3, 0, 0);
  Mat4 expected = Mat4::Zero();
  for (const Vec3& p : {Vec3(c + d), Vec3(c - d)}) {
    Vec4 h;
    h << p, 1.0;
    expected += h * h.transpose();
  }
  const Mat4 actual = momentMatrix(2.0, c, Vec3(0.0, 0.18, 0.18).asDiagonal());
  EXPECT_LT((actual - expected).norm(), 1e-15);
}

TEST(PrototypeController, RejectsBadOptionsAndSettingsWithNames) {
  const Model model = actuatedFreeBody();
  EXPECT_THROW(makeController(model, settings("prototype_bdy", {})), ControlError);
  EXPECT_THROW(makeController(model, settings("prototype_body", {{"kbar", -1}})), ControlError);
  EXPECT_THROW(makeController(model, settings("prototype_body", {}, {{"template", "wing"}})), ControlError);
  EXPECT_THROW(makeController(model, settings("prototype_body", {}, {{"colour", "red"}})), ControlError);
  try {
    makeController(model, settings("prototype_body", {}, {{"gains", "poles"}}));
    FAIL();
  } catch (const ControlError& e) {
    EXPECT_NE(std::string(e.what()).find("matching"), std::string::npos) << e.what();
  }
}


// ---- joint pairs: the joint's own Jacobian instead of the frame-pair formula ---------------------

/// Two templates' evaluations `a` (fast) and `b` (slow) at the same state and reference agree
/// (1e-12): M̄, b̄, the three energies, and the energy rate at `xidot`.
void expectSameTemplateNumbers(const PrototypeTemplate& fast, const PrototypeTemplate& slow, const TemplateEvaluation& a,
                               const TemplateEvaluation& b, const VecX& xidot, const std::string& what) {
  constexpr double kTol = 1e-12;
  EXPECT_LE((a.Mbar - b.Mbar).norm(), kTol * b.Mbar.norm()) << what;
  EXPECT_LE((a.bbar - b.bbar).norm(), kTol * (1.0 + b.bbar.norm())) << what;
  EXPECT_NEAR(a.kinetic, b.kinetic, kTol * (1.0 + b.kinetic)) << what;
  EXPECT_NEAR(a.potential, b.potential, kTol * (1.0 + b.potential)) << what;
  EXPECT_NEAR(a.rayleigh, b.rayleigh, kTol * (1.0 + b.rayleigh)) << what;
  const double rate = slow.energyRate(xidot);
  EXPECT_NEAR(fast.energyRate(xidot), rate, kTol * (1.0 + std::abs(rate))) << what;
}

TEST(PrototypeTemplate, JointPairsGiveTheFramePairNumbersForEveryJointType) {
  // TemplatePair::joint lets the template take Ad_{T_c} S_e as the pair Jacobian; the general
  // frame-pair formula (3.121) must give the same M̄, b̄, energies and energy rate at random states
  // and references, for every joint type the shortcut takes, at the root and inside the tree.
  const JointType types[] = {JointType::Revolute,  JointType::RevoluteUnitCircle, JointType::Prismatic,
                             JointType::Spherical, JointType::SphericalQuaternion, JointType::SphericalEulerZYX,
                             JointType::Free,      JointType::FreeQuaternion,      JointType::Planar,
                             JointType::Universal};
  for (const JointType type : types) {
    for (const bool at_root : {true, false}) {
      const Model model = test::randomTreeWith(type, at_root, 11);
      std::vector<TemplatePair> shortcut, general;
      test::Rng rng(5);
      for (int j = 0; j < static_cast<int>(model.joints.size()); ++j) {
        const Joint& joint = model.joints[j];
        if (joint.nxi == 0) continue;
        TemplatePair p{joint.name, Frame{joint.parent, joint.parent_placement},
                       Frame{joint.child, joint.child_placement.inverse()}, j};
        setNaturalGains(p, test::uniform(rng, 0.5, 2.0), test::randomVector(rng, 1.0).cwiseAbs() + Vec3::Constant(0.1),
                        3.0, 0.7, 5.0, 0.9);
        p.stiffness(0, 3) = p.stiffness(3, 0) = 0.1;  // a stiffness centre off the origin
        shortcut.push_back(p);
        p.joint = -1;
        general.push_back(p);
      }
      for (const VelocityError variant : {VelocityError::Particle, VelocityError::Body, VelocityError::Energy}) {
        PrototypeTemplate fast(model, shortcut, variant), slow(model, general, variant);
        Workspace ws(model), ws_ref(model);
        for (int trial = 0; trial < 3; ++trial) {
          const State s = test::randomState(model, rng), r = test::randomState(model, rng);
          const VecX r_dot = VecX::NullaryExpr(model.nxi, [&] { return test::uniform(rng, -1.0, 1.0); });
          computeKinematics(model, s.x, s.xi, ws);
          computeBodyJacobians(model, ws);
          computeKinematics(model, r.x, r.xi, ws_ref);
          computeBodyJacobians(model, ws_ref);
          TemplateEvaluation a, b;
          fast.evaluate(ws, ws_ref, s.xi, r_dot, a);
          slow.evaluate(ws, ws_ref, s.xi, r_dot, b);
          const std::string what = std::string(jointTypeName(type)) + (at_root ? " at the root" : " inside") +
                                   ", variant " + std::to_string(static_cast<int>(variant));
          const VecX xidot = VecX::NullaryExpr(model.nxi, [&] { return test::uniform(rng, -1.0, 1.0); });
          expectSameTemplateNumbers(fast, slow, a, b, xidot, what);
        }
      }
    }
  }
}

TEST(PrototypeTemplate, ABasePairOnARootJointGivesTheFramePairNumbers) {
  // A pair from the world to the child of a root joint without placements spans that joint
  // (PrototypeTemplate::spannedJoint): the template takes S_e as its Jacobian and needs no body
  // Jacobians. The same body one weld further from the world (a massive body fixed at the
  // identity) has the same pose, twist and bias but no root joint: its pair takes the general
  // frame-pair formula (3.121). Both must agree for every root joint type and variant. So must a
  // weld at a pose P and a root joint placed at P (neither spans: the pair's pose is P · motion).
  const JointType types[] = {JointType::Free,      JointType::FreeQuaternion,      JointType::Planar,
                             JointType::Spherical, JointType::SphericalQuaternion, JointType::SphericalEulerZYX,
                             JointType::Revolute,  JointType::RevoluteUnitCircle,  JointType::Prismatic,
                             JointType::Universal};
  const Pose placement{expSO3(Vec3(0.3, -0.5, 0.2)), Vec3(0.1, 0.2, -0.3)};
  for (const JointType type : types) {
    auto build = [&](bool weld, const Pose& P) {
      test::Rng rng(23), weld_rng(31);  // the same draws for both models
      ModelBuilder b;
      b.setGravity(Vec3(0, 0, -9.81));
      if (weld) b.addBody(test::randomBody(weld_rng, "weld"));
      b.addBody(test::randomBody(rng, "base"));
      b.addBody(test::randomBody(rng, "link"));
      JointSpec j;
      if (weld) {
        j.name = "j_weld";
        j.type = JointType::Fixed;
        j.parent = rbs::kWorld;
        j.child = "weld";
        j.parent_placement = P;
        b.addJoint(j);
        j.parent_placement = Pose{};
      } else {
        j.parent_placement = P;
      }
      j.name = "j_base";
      j.type = type;
      j.parent = weld ? "weld" : rbs::kWorld;
      j.child = "base";
      j.axis = test::randomVector(rng, 1.0).normalized();
      j.axis2 = j.axis.cross(test::randomVector(rng, 1.0)).normalized();
      b.addJoint(j);
      j.name = "j_link";
      j.type = JointType::Revolute;
      j.parent = "base";
      j.child = "link";
      j.parent_placement = test::randomPose(rng);
      b.addJoint(j);
      return b.build();
    };
    for (const Pose& P : {Pose{}, placement}) {
      const Model root = build(false, P), welded = build(true, P);
      ASSERT_EQ(root.nx, welded.nx);
      ASSERT_EQ(root.nxi, welded.nxi);
      for (const VelocityError variant : {VelocityError::Particle, VelocityError::Body, VelocityError::Energy}) {
        auto pairOn = [](const Model& m) {
          TemplatePair p{"base", Frame{}, Frame{m.bodyIndex("base"), Pose{}}};
          setNaturalGains(p, 1.3, Vec3(0.2, 0.3, 0.4), 3.0, 0.7, 5.0, 0.9);
          p.stiffness(0, 3) = p.stiffness(3, 0) = 0.1;  // a stiffness centre off the origin
          return p;
        };
        PrototypeTemplate fast(root, {pairOn(root)}, variant), slow(welded, {pairOn(welded)}, variant);
        Workspace ws(root), ws_ref(root), ws_w(welded), ws_w_ref(welded);
        test::Rng rng(29);
        for (int trial = 0; trial < 3; ++trial) {
          const State s = test::randomState(root, rng), r = test::randomState(root, rng);
          const VecX r_dot = VecX::NullaryExpr(root.nxi, [&] { return test::uniform(rng, -1.0, 1.0); });
          for (auto [model, state, w] : {std::tuple{&root, &s, &ws}, std::tuple{&root, &r, &ws_ref},
                                         std::tuple{&welded, &s, &ws_w}, std::tuple{&welded, &r, &ws_w_ref}}) {
            computeKinematics(*model, state->x, state->xi, *w);
            // The spanning pair must not need body Jacobians (the workspace then has none).
            if (model == &welded || !P.isIdentity()) computeBodyJacobians(*model, *w);
          }
          TemplateEvaluation a, b;
          fast.evaluate(ws, ws_ref, s.xi, r_dot, a);
          slow.evaluate(ws_w, ws_w_ref, s.xi, r_dot, b);
          const std::string what = std::string(jointTypeName(type)) + ", variant " +
                                   std::to_string(static_cast<int>(variant)) + (P.isIdentity() ? "" : ", placed");
          const VecX xidot = VecX::NullaryExpr(root.nxi, [&] { return test::uniform(rng, -1.0, 1.0); });
          expectSameTemplateNumbers(fast, slow, a, b, xidot, what);
        }
      }
    }
  }
}

TEST(PrototypeTemplate, ABasePairOnAMovingParentSeesTheBodysAbsoluteMotion) {
  // A body without placements on a joint whose parent moves is not the child of a root joint: its
  // pair from the world must see the body's absolute pose and twist, not the joint's relative
  // motion. The pair's energies depend on those alone, so they must equal the energies of the same
  // pair on a free body put at that absolute motion.
  test::Rng rng(41);
  ModelBuilder carried, free;
  carried.addBody(test::randomBody(rng, "carrier"));
  const BodySpec base = test::randomBody(rng, "base");
  carried.addBody(base);
  free.addBody(base);
  carried.addJoint({.name = "j_carrier", .type = JointType::Free, .child = "carrier"});
  free.addJoint({.name = "j_carrier", .type = JointType::Free, .child = "base"});
  carried.addJoint({.name = "j_base", .type = JointType::Revolute, .parent = "carrier", .child = "base",
                    .axis = Vec3(0.2, -0.6, 0.7).normalized()});
  const Model on_carrier = carried.build(), alone = free.build();
  auto pairOn = [](const Model& m) {
    TemplatePair p{"base", Frame{}, Frame{m.bodyIndex("base"), Pose{}}};
    setNaturalGains(p, 1.3, Vec3(0.2, 0.3, 0.4), 3.0, 0.7, 5.0, 0.9);
    p.stiffness(0, 3) = p.stiffness(3, 0) = 0.1;
    return p;
  };
  for (const VelocityError variant : {VelocityError::Particle, VelocityError::Body, VelocityError::Energy}) {
    PrototypeTemplate moving(on_carrier, {pairOn(on_carrier)}, variant), reference(alone, {pairOn(alone)}, variant);
    Workspace ws(on_carrier), ws_ref(on_carrier), ws_a(alone), ws_a_ref(alone);
    for (int trial = 0; trial < 3; ++trial) {
      const State s = test::randomState(on_carrier, rng), r = test::randomState(on_carrier, rng);
      const int b = on_carrier.bodyIndex("base");
      auto absolute = [&](const State& st, Workspace& w, Workspace& w_alone) {
        computeKinematics(on_carrier, st.x, st.xi, w);
        computeBodyJacobians(on_carrier, w);
        State out{VecX(alone.nx), w.twist[b]};
        jointCoordinatesFromMotion(alone.joints[0], w.pose[b], out.x.data());
        computeKinematics(alone, out.x, out.xi, w_alone);
        computeBodyJacobians(alone, w_alone);
        return out;
      };
      const State s_alone = absolute(s, ws, ws_a);
      absolute(r, ws_ref, ws_a_ref);
      TemplateEvaluation a, e;
      moving.evaluate(ws, ws_ref, s.xi, VecX::Zero(on_carrier.nxi), a);
      reference.evaluate(ws_a, ws_a_ref, s_alone.xi, VecX::Zero(alone.nxi), e);
      const std::string what = "variant " + std::to_string(static_cast<int>(variant));
      EXPECT_NEAR(a.kinetic, e.kinetic, 1e-12 * (1.0 + e.kinetic)) << what;
      EXPECT_NEAR(a.potential, e.potential, 1e-12 * (1.0 + e.potential)) << what;
      EXPECT_NEAR(a.rayleigh, e.rayleigh, 1e-12 * (1.0 + e.rayleigh)) << what;
      EXPECT_GT(a.kinetic, 1e-3) << what;  // a motion to compare
    }
  }
}

TEST(PrototypeTemplate, JointPairsStayRightWhenThePairsAreLaidOutAgain) {
  // A joint pair writes its own columns of the pair Jacobian only, the rest was zeroed when the
  // pair was laid out. Replacing pairs() by pairs over other joints (as many) must not leave the
  // old columns behind: the edited template gives a fresh template's numbers, bit for bit, also
  // where the whole Jacobian is read (energyRate).
  const Model model = test::randomTreeWith(JointType::Universal, false, 11);
  std::vector<TemplatePair> pairs;
  for (int j = 0; j < static_cast<int>(model.joints.size()); ++j) {
    const Joint& joint = model.joints[j];
    if (joint.nxi == 0) continue;
    TemplatePair p{joint.name, Frame{joint.parent, joint.parent_placement},
                   Frame{joint.child, joint.child_placement.inverse()}, j};
    setNaturalGains(p, 1.0, Vec3(0.3, 0.4, 0.5), 3.0, 0.7, 5.0, 0.9);
    pairs.push_back(p);
  }
  ASSERT_GE(pairs.size(), 2u);
  std::vector<TemplatePair> reversed(pairs.rbegin(), pairs.rend());
  PrototypeTemplate edited(model, pairs, VelocityError::Body), fresh(model, reversed, VelocityError::Body);
  test::Rng rng(3);
  const State s = test::randomState(model, rng), r = test::randomState(model, rng);
  const VecX r_dot = VecX::Constant(model.nxi, 0.4);
  Workspace ws(model), ws_ref(model);
  computeKinematics(model, s.x, s.xi, ws);
  computeKinematics(model, r.x, r.xi, ws_ref);
  TemplateEvaluation before, after, expected;
  edited.evaluate(ws, ws_ref, s.xi, r_dot, before);
  edited.pairs() = reversed;
  edited.evaluate(ws, ws_ref, s.xi, r_dot, after);
  fresh.evaluate(ws, ws_ref, s.xi, r_dot, expected);
  EXPECT_EQ(after.Mbar, expected.Mbar);
  EXPECT_EQ(after.bbar, expected.bbar);
  EXPECT_EQ(after.potential, expected.potential);
  // energyRate() reads the whole pair Jacobians.
  const VecX xidot = VecX::LinSpaced(model.nxi, -1.0, 1.0);
  EXPECT_EQ(edited.energyRate(xidot), fresh.energyRate(xidot));
}

// ---- fully actuated by joint efforts: the allocation by inverse dynamics ----------------------

/// A tree of joint types with singular-free coordinates under gravity, one joint effort per velocity
/// coordinate (gains ≠ 1), armature, joint springs, dampers and friction, a spring between bodies,
/// and torque bounds of ±`bound`. `euler`: an Euler-angle joint too (M singular at gimbal lock).
/// `zero_wrench`: a constant external wrench of zero, which changes no force but keeps the controller
/// off the inverse-dynamics allocation (the general path, for comparison).
Model effortTree(double bound, bool euler, bool zero_wrench) {
  test::Rng rng(17);
  ModelBuilder b;
  b.setGravity(Vec3(0, 0, -9.81));
  for (const char* name : {"a", "b", "c", "d", "e"}) b.addBody(test::randomBody(rng, name));
  struct J {
    const char* name;
    JointType type;
    const char* parent;
    const char* child;
  };
  const J joints[] = {{"ja", JointType::Revolute, kWorld, "a"},
                      {"jb", JointType::Universal, "a", "b"},
                      {"jc", JointType::Prismatic, "b", "c"},
                      {"jd", euler ? JointType::SphericalEulerZYX : JointType::SphericalQuaternion, "a", "d"},
                      {"je", JointType::RevoluteUnitCircle, "d", "e"}};
  for (const J& j : joints) {
    JointSpec spec = test::randomJoint(rng, j.name, j.type, j.parent, j.child);
    if (j.type == JointType::Revolute || j.type == JointType::Prismatic) spec.armature = 0.05;
    b.addJoint(spec);
    for (int c = 0; c < velocitySize(j.type); ++c)
      b.addActuator({.name = std::string("u_") + j.name + std::to_string(c), .joint = j.name, .component = c,
                     .gain = 0.5 + c, .lower = -bound, .upper = bound});
  }
  b.addJointSpringDamper({.joint = "ja", .stiffness = 3.0, .rest_position = 0.2, .damping = 0.3, .friction = 0.1});
  SpringSpec spring{.name = "spring", .a = {"b", test::randomPose(rng)}, .b = {"e", test::randomPose(rng)}};
  spring.stiffness = 20.0;
  b.addSpring(spring);
  if (zero_wrench) b.addExternalWrench({.body = "c"});
  return b.build();
}

// One effort per coordinate: every allocation mode's optimum is u = B⁻¹(b − M M̄⁻¹ b̄) while it is
// inside the bounds, which the controller takes from the Newton–Euler pass without forming M, and
// from the reference's joint motions only. Against the same controller on the general path (M, b,
// B formed, the allocator's factorizations): the same u and the same signals (tracking errors,
// energies, energy rate, saturation) in every mode, inside the bounds and on them (where the
// general path takes over), and the handed-over plant rates are the dynamics'. Both read only the
// reference's joint motions in compute(), so the tracking errors are also checked against
// TrackingErrors on the full kinematics of state and reference.
TEST(PrototypeController, AllocatesByInverseDynamicsWhatTheGeneralPathGives) {
  for (const bool euler : {false, true}) {
    for (const double bound : {1e300, 20.0, 300.0}) {
      const Model model = effortTree(bound, euler, false), general_model = effortTree(bound, euler, true);
      ASSERT_EQ(model.numInputs(), model.nxi);
      Workspace ws_dyn(model), ws_s(model), ws_r(model);
      int fast = 0, at_bounds = 0, shared = 0;
      for (const char* mode : {"exact", "least_squares", "constrained"}) {
        const ControllerSettings s_settings =
            settings("prototype_body", {{"thetabar", 0.7}, {"upsilonbar", 3}, {"pibar", 5}}, {{"allocation", mode}});
        auto c = makeController(model, s_settings), g = makeController(general_model, s_settings);
        const auto& proto = dynamic_cast<const PrototypeController&>(*c);
        test::Rng rng(23);
        for (int k = 0; k < 12; ++k) {
          const State s = test::randomState(model, rng), r = test::randomState(model, rng);
          ReferenceSample ref{r.x, r.xi, VecX::NullaryExpr(model.nxi, [&] { return test::uniform(rng, -1, 1); })};
          VecX u, u_general;
          ASSERT_TRUE(c->compute(0.0, s, ref, u)) << c->message();
          ASSERT_TRUE(g->compute(0.0, s, ref, u_general)) << g->message();
          const std::string what = std::string(mode) + (euler ? ", euler" : "") + ", bound " + std::to_string(bound) +
                                   ", state " + std::to_string(k);
          EXPECT_FALSE(dynamic_cast<const PrototypeController&>(*g).allocatedByInverseDynamics());
          fast += proto.allocatedByInverseDynamics();
          at_bounds += !proto.allocatedByInverseDynamics();
          EXPECT_LE((u - u_general).cwiseAbs().maxCoeff(), 1e-12 * std::max(1.0, u_general.cwiseAbs().maxCoeff()))
              << what;
          c->updateSignals();
          g->updateSignals();
          const VecX& a = c->signalValues();
          const VecX& e = g->signalValues();
          ASSERT_EQ(a.size(), e.size());
          for (int i = 0; i < a.size(); ++i)
            EXPECT_NEAR(a(i), e(i), 1e-10 * std::max(1.0, std::abs(e(i)))) << what << ": " << c->signals()[i].name;
          TrackingErrors tracking(model, "");
          computeKinematics(model, s.x, s.xi, ws_s);
          computeKinematics(model, r.x, r.xi, ws_r);
          std::vector<double> errors(tracking.signals().size());
          tracking.evaluate(ws_s, ws_r, s.x, r.x, errors.data());
          for (std::size_t i = 0; i < errors.size(); ++i) {  // the tracking signals come first
            ASSERT_EQ(c->signals()[i].name, tracking.signals()[i].name);
            EXPECT_NEAR(a(static_cast<int>(i)), errors[i], 1e-12 * std::max(1.0, std::abs(errors[i])))
                << what << ": " << tracking.signals()[i].name;
          }
          VecX xdot(model.nx), xidot(model.nxi);
          if (!c->plantRate(model, s, u, 0.0, xdot, xidot)) continue;
          ++shared;
          ASSERT_EQ(computeForwardDynamics(model, s.x, s.xi, u, ws_dyn), DynamicsStatus::Ok);
          EXPECT_EQ(xdot, ws_dyn.xdot) << what;
          EXPECT_LE((xidot - ws_dyn.xidot).cwiseAbs().maxCoeff(), 1e-12 * std::max(1.0, ws_dyn.xidot.cwiseAbs().maxCoeff()))
              << what;
        }
      }
      // Unbounded (and in the unconstrained modes) the fast path runs at every state; bounded, the
      // constrained mode leaves it at the states that saturate (|u| reaches 175–760 here): at all
      // of them for ±20, at some for ±300.
      EXPECT_EQ(fast + at_bounds, 36);
      if (bound > 1e299) {
        EXPECT_EQ(at_bounds, 0);
      } else if (bound == 20.0) {
        EXPECT_EQ(at_bounds, 12);
      } else {
        EXPECT_GT(at_bounds, 0);
        EXPECT_LT(at_bounds, 12);
      }
      // Euler angles: M is singular at gimbal lock, which the shared a_des would hide; those rates
      // are not handed over on the inverse-dynamics path, but on the general path (on the bounds).
      EXPECT_EQ(shared, euler ? at_bounds : 36);
    }
  }
}

}  // namespace
}  // namespace rbs
