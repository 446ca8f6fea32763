// The scene library (scenes/*.yaml) against independent truth: the models written in C++ for
// earlier tests (the same M, c, f_G at random states), the linearized zero dynamics of Seifried's
// underactuated manipulators (digest seifried-underactuated §11.3, table 4), and the physics each
// passive scene is meant to show (loop stays closed, T-handle flips, top conserves energy and
// vertical angular momentum and precesses at the steady-precession rate).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <complex>
#include <filesystem>
#include <numbers>
#include <string>
#include <vector>

#include "core/dynamics/dynamics.h"
#include "core/dynamics/energy.h"
#include "core/dynamics/kinematics.h"
#include "core/scene/scene.h"
#include "sim/simulator.h"
#include "tests/support/benchmark_models.h"
#include "tests/support/example_models.h"
#include "tests/support/linear_algebra.h"
#include "tests/support/matrix_compare.h"
#include "tests/support/report.h"
#include "tests/support/test_models.h"

namespace rbs {
namespace {

constexpr double kPi = std::numbers::pi;

std::filesystem::path scenePath(const std::string& file) {
  return std::filesystem::path(RBS_SOURCE_DIR) / "scenes" / file;
}

Scene load(const std::string& file) {
  try {
    return loadScene(scenePath(file));
  } catch (const std::exception& e) {
    ADD_FAILURE() << file << ": " << e.what();
    throw;
  }
}

/// The scene's integrator section as simulator options.
IntegrationOptions optionsFrom(const IntegratorSettings& s) {
  IntegrationOptions o;
  bool found = false;
  for (StepperKind k : {StepperKind::Euler, StepperKind::Rk4, StepperKind::RkCashKarp54,
                        StepperKind::RkDopri5, StepperKind::RkFehlberg78}) {
    if (stepperName(k) == s.stepper) {
      o.stepper = k;
      found = true;
    }
  }
  EXPECT_TRUE(found) << "stepper " << s.stepper;
  o.dt = s.dt;
  o.rtol = s.rtol;
  o.atol = s.atol;
  o.drift = s.drift == "stabilize" ? DriftPolicy::Stabilize
            : s.drift == "none"    ? DriftPolicy::None
                                   : DriftPolicy::Project;
  o.stabilization_gain = s.stabilization_gain;
  return o;
}

// ---- Same equations as the C++ models -----------------------------------------------------

/// Asserts that the two models have the same coordinates (joint order, types, slices).
void expectSameCoordinates(const Model& scene, const Model& ref) {
  ASSERT_EQ(scene.nx, ref.nx);
  ASSERT_EQ(scene.nxi, ref.nxi);
  ASSERT_EQ(scene.joints.size(), ref.joints.size());
  for (const Joint& j : ref.joints) {
    const int i = scene.jointIndex(j.name);
    ASSERT_GE(i, 0) << "joint " << j.name << " missing in the scene";
    EXPECT_EQ(scene.joints[i].type, j.type) << j.name;
    EXPECT_EQ(scene.joints[i].x_offset, j.x_offset) << j.name;
    EXPECT_EQ(scene.joints[i].xi_offset, j.xi_offset) << j.name;
  }
}

struct Equations {
  MatX M, B;
  VecX c, fG;
};

Equations equationsAt(const Model& m, Workspace& ws, const State& s) {
  computeKinematics(m, s.x, s.xi, ws);
  computeBodyJacobians(m, ws);
  computeMassMatrix(m, ws);
  computeInertialForces(m, ws);
  computeGravityForces(m, ws);
  computeInputMatrix(m, ws);
  return {ws.mass_matrix, ws.input_matrix, ws.inertial_forces, ws.gravity_forces};
}

/// M, c, f_G (and B when both have inputs) of `scene` and `ref` at 25 random states of ref's
/// coordinates. Returns the largest difference relative to the largest entry of ref's term.
double compareEquations(const Model& scene, const Model& ref, std::uint64_t seed,
                        bool compare_inputs) {
  Workspace ws_scene(scene), ws_ref(ref);
  test::Rng rng(seed);
  double worst = 0.0;
  for (int trial = 0; trial < 25; ++trial) {
    const State s = test::randomState(ref, rng, 2.0);
    const Equations a = equationsAt(scene, ws_scene, s);
    const Equations b = equationsAt(ref, ws_ref, s);
    // The scenes write the C++ models' numbers as decimal literals (e.g. 0.02250225 for
    // ρ l w² (l² + w²)/12): rounding differences ~1e-16 relative; 1e-11 of the largest entry
    // catches any wrong parameter, frame or term (those are O(1e-3) and more).
    const double sM = std::max(b.M.cwiseAbs().maxCoeff(), 1.0);
    const double sc = std::max(b.c.cwiseAbs().maxCoeff(), 1.0);
    const double sG = std::max(b.fG.cwiseAbs().maxCoeff(), 1.0);
    EXPECT_MATRIX_NEAR(a.M, b.M, 1e-11 * sM);
    EXPECT_MATRIX_NEAR(a.c, b.c, 1e-11 * sc);
    EXPECT_MATRIX_NEAR(a.fG, b.fG, 1e-11 * sG);
    worst = std::max({worst, (a.M - b.M).cwiseAbs().maxCoeff() / sM,
                      (a.c - b.c).cwiseAbs().maxCoeff() / sc,
                      (a.fG - b.fG).cwiseAbs().maxCoeff() / sG});
    if (compare_inputs) {
      const double sB = std::max(b.B.cwiseAbs().maxCoeff(), 1.0);
      EXPECT_MATRIX_NEAR(a.B, b.B, 1e-11 * sB);
      worst = std::max(worst, (a.B - b.B).cwiseAbs().maxCoeff() / sB);
    }
  }
  return worst;
}

TEST(SceneModels, SeifriedCartTwoLinkArmEqualsTheCxxModel) {
  const Scene scene = load("seifried_cart_two_link_arm.yaml");
  const Model ref = test::seifriedCartTwoLinkArm();
  expectSameCoordinates(scene.model, ref);
  // The scene maps the book's plane to world xz (gravity −z), the C++ model keeps the book's
  // frames (gravity −y): M, c, f_G in q = [x, α, β] must nevertheless agree.
  const double worst = compareEquations(scene.model, ref, 11, false);
  ASSERT_EQ(scene.model.numInputs(), 3);  // F, T1, T2 with B̄ = I
  Workspace ws(scene.model);
  test::Rng rng(12);
  const Equations e = equationsAt(scene.model, ws, test::randomState(scene.model, rng));
  EXPECT_MATRIX_NEAR(e.B, MatX::Identity(3, 3), 1e-14);
  test::recordError("seifried_cart_max_rel_difference", worst);
}

TEST(SceneModels, KremerQuadcopterArm3EqualsTheCxxModel) {
  const Scene scene = load("kremer_quadcopter_arm3.yaml");
  test::AerialManipulatorParameters p;
  p.base_joint = JointType::FreeQuaternion;  // the scene uses Kremer's quaternion coordinates
  const Model ref = test::kremerAerialManipulator(3, p);
  expectSameCoordinates(scene.model, ref);
  ASSERT_EQ(scene.model.numInputs(), ref.numInputs());
  for (const Actuator& a : ref.actuators) {
    const int i = scene.model.actuatorIndex(a.name);
    ASSERT_GE(i, 0) << a.name;
    EXPECT_EQ(i, ref.actuatorIndex(a.name)) << a.name;
    EXPECT_DOUBLE_EQ(scene.model.actuators[i].lower, a.lower) << a.name;
    EXPECT_DOUBLE_EQ(scene.model.actuators[i].upper, a.upper) << a.name;
  }
  const double worst = compareEquations(scene.model, ref, 21, true);
  test::recordError("kremer_arm3_max_rel_difference", worst);
}

TEST(SceneModels, KremerSeriesHasTheRightSize) {
  for (int k = 0; k <= 3; ++k) {
    const Scene scene = load("kremer_quadcopter_arm" + std::to_string(k) + ".yaml");
    EXPECT_EQ(scene.model.numBodies(), 1 + k);
    EXPECT_EQ(scene.model.nx, 7 + k);   // r, q, θ
    EXPECT_EQ(scene.model.nxi, 6 + k);  // body twist, θ̇
    EXPECT_EQ(scene.model.numInputs(), 4 + k);
  }
}

TEST(SceneModels, DoublePendulumEqualsTheCxxModel) {
  const Scene scene = load("double_pendulum.yaml");
  const Model ref = test::doublePendulum(1.0, 0.5, 1.0, 0.7);
  expectSameCoordinates(scene.model, ref);
  const double worst = compareEquations(scene.model, ref, 31, false);
  test::recordError("double_pendulum_max_rel_difference", worst);
}

// ---- Seifried's underactuated manipulators: linearized zero dynamics ------------------------

/// Eigenvalues of the linearized zero dynamics at q = 0 for the linearly combined output
/// y = q_a + Γ q_u (Seifried (4.93)): on y ≡ 0, q = T q_u with T = [−Γ; I] in the rows of q_a,
/// q_u, and the unactuated rows of the equations of motion (no input) give
/// (M_u T) q̈_u + (D_u T) q̇_u + (K_u T) q_u = 0. D and K are read from the model (joint dampers
/// and springs, exact finite differences of the linear force laws).
std::vector<std::complex<double>> zeroDynamicsEigenvalues(const Model& m,
                                                          const std::vector<std::string>& passive,
                                                          const std::string& output_joint,
                                                          const std::vector<double>& gamma) {
  const int n = m.nxi, nu = static_cast<int>(passive.size());
  Workspace ws(m);
  const VecX x0 = m.neutralState().x, xi0 = VecX::Zero(n);
  computeKinematics(m, x0, xi0, ws);
  computeMassMatrix(m, ws);
  const MatX M = ws.mass_matrix;
  MatX K(n, n), D(n, n);
  computeElasticForces(m, x0, ws);
  const VecX fK0 = ws.elastic_forces;
  for (int j = 0; j < n; ++j) {  // revolute/prismatic only: x = q, ξ = q̇
    VecX x = x0, xi = xi0;
    x(j) += 1e-6;
    computeElasticForces(m, x, ws);
    K.col(j) = (ws.elastic_forces - fK0) / 1e-6;
    xi(j) = 1.0;
    computeDampingForces(m, xi, ws);
    D.col(j) = ws.damping_forces;
  }
  MatX T = MatX::Zero(n, nu);
  std::vector<int> u;
  for (int k = 0; k < nu; ++k) {
    u.push_back(m.joints[m.jointIndex(passive[k])].xi_offset);
    T(u.back(), k) = 1.0;
    T(m.joints[m.jointIndex(output_joint)].xi_offset, k) = -gamma[k];
  }
  MatX A(nu, nu), Dz(nu, nu), Kz(nu, nu);
  for (int r = 0; r < nu; ++r) {
    A.row(r) = M.row(u[r]) * T;
    Dz.row(r) = D.row(u[r]) * T;
    Kz.row(r) = K.row(u[r]) * T;
  }
  MatX companion = MatX::Zero(2 * nu, 2 * nu);
  companion.topRightCorner(nu, nu).setIdentity();
  companion.bottomLeftCorner(nu, nu) = -A.inverse() * Kz;
  companion.bottomRightCorner(nu, nu) = -A.inverse() * Dz;
  return test::sortedEigenvalues(companion);
}

/// Each expected eigenvalue has a computed one within `rel` of its modulus (matched greedily).
void expectEigenvalues(const std::vector<std::complex<double>>& got,
                       const std::vector<std::complex<double>>& expected, double rel,
                       const std::string& what) {
  ASSERT_EQ(got.size(), expected.size()) << what;
  std::vector<bool> used(got.size(), false);
  double worst = 0.0;
  for (const auto& e : expected) {
    int best = -1;
    double dist = 1e300;
    for (size_t i = 0; i < got.size(); ++i)
      if (!used[i] && std::abs(got[i] - e) < dist) dist = std::abs(got[i] - e), best = int(i);
    used[best] = true;
    worst = std::max(worst, dist / std::abs(e));
    EXPECT_LT(dist, rel * std::abs(e)) << what << ": expected " << e << ", nearest " << got[best];
  }
  test::recordError(what + "_max_rel_eigenvalue_difference", worst);
}

// The digest prints its eigenvalues with 3–4 digits and the tables carry 4 digits: 1 % of the
// modulus covers the rounding; a wrong mass, CoM distance, inertia, spring or chain order moves
// them by far more (e.g. the min/non-min phase designs differ in sign).
constexpr double kEigenRel = 0.01;

TEST(SceneModels, SeifriedExampleAZeroDynamicsAreASaddle) {
  const Scene scene = load("seifried_cart_three_links_passive_spring.yaml");
  EXPECT_EQ(scene.model.nxi, 4);
  EXPECT_EQ(scene.model.numInputs(), 3);
  const auto ev = zeroDynamicsEigenvalues(scene.model, {"beta"}, "alpha2", {0.5});
  // Digest §4.7: a_2 β̈ + d β̇ + c β = 0 with a_2 = −0.0713 kg m²: λ ≈ −24.8, +28.3 1/s.
  expectEigenvalues(ev, {{-24.8, 0.0}, {28.3, 0.0}}, kEigenRel, "example_A");
}

TEST(SceneModels, SeifriedExampleBMinimumPhaseDesignHasStableZeroDynamics) {
  const Scene scene = load("seifried_cart_four_links_min_phase.yaml");
  EXPECT_EQ(scene.model.nxi, 5);
  const auto ev = zeroDynamicsEigenvalues(scene.model, {"beta1", "beta2"}, "alpha2",
                                          {2.0 / 3.0, 1.0 / 3.0});
  for (const auto& e : ev) EXPECT_LT(e.real(), 0.0) << e;
  // Digest §5.3: −34.5 ± 330.4i, −0.64 ± 45.2i.
  expectEigenvalues(ev, {{-34.5, 330.4}, {-34.5, -330.4}, {-0.64, 45.2}, {-0.64, -45.2}},
                    kEigenRel, "example_B_min_phase");
}

TEST(SceneModels, SeifriedExampleBNonMinimumPhaseDesignHasTwoUnstableZeros) {
  const Scene scene = load("seifried_cart_four_links_nonmin_phase.yaml");
  EXPECT_EQ(scene.model.nxi, 5);
  const auto ev = zeroDynamicsEigenvalues(scene.model, {"beta1", "beta2"}, "alpha2",
                                          {2.0 / 3.0, 1.0 / 3.0});
  EXPECT_EQ(std::count_if(ev.begin(), ev.end(), [](auto e) { return e.real() > 0.0; }), 2);
  // Digest §5.3: −322.7, −56.1, +58.1, +404.2.
  expectEigenvalues(ev, {{-322.7, 0.0}, {-56.1, 0.0}, {58.1, 0.0}, {404.2, 0.0}}, kEigenRel,
                    "example_B_nonmin_phase");
}

// ---- Passive scenes: the physics they show ------------------------------------------------

TEST(SceneModels, FourBarLinkageStaysClosed) {
  const Scene scene = load("four_bar_linkage.yaml");
  const Model& m = scene.model;
  ASSERT_EQ(m.constraint_rows, 3);
  Workspace ws(m);
  State s = m.initial_state;
  const int crank = m.joints[m.jointIndex("crank_pivot")].x_offset;
  const double crank0 = s.x(crank);
  double max_closure = 0.0, initial_closure = -1.0, initial_velocity = 0.0;
  const IntegrationResult r =
      integrate(m, s, 0.0, 2.0, optionsFrom(scene.integrator), {}, 0.005,
                [&](double, const State& st) {
                  EXPECT_EQ(computeForwardDynamics(m, st.x, st.xi, VecX(), ws), DynamicsStatus::Ok);
                  if (initial_closure < 0) {
                    initial_closure = ws.constraint_error.norm();
                    initial_velocity = ws.constraint_velocity.norm();
                  }
                  max_closure = std::max(max_closure, ws.constraint_error.norm());
                });
  ASSERT_TRUE(r.ok) << r.message;
  // The scene's initial state is the closed-form assembly written with 17 digits: closed and
  // consistent to rounding.
  EXPECT_LT(initial_closure, 1e-12);
  EXPECT_LT(initial_velocity, 1e-12);
  // Baumgarte (ω = 20 rad/s, ζ = 1) keeps ψ at the level of the per-step RK4 error (core test:
  // ≤ 5e-10 m at dt = 1 ms); the brief's bound is 1e-6 m.
  EXPECT_LT(max_closure, 1e-6);
  // Grashof crank-rocker: the crank turns over (8 rad/s initially) within the 2 s.
  EXPECT_GT(std::abs(s.x(crank) - crank0), 2 * kPi);
  test::recordError("four_bar_max_closure_error_m", max_closure);
}

TEST(SceneModels, DzhanibekovTHandleFlips) {
  const Scene scene = load("dzhanibekov_t_handle.yaml");
  const Model& m = scene.model;
  ASSERT_EQ(m.gravity.norm(), 0.0);
  const int b = m.bodyIndex("handle");
  const Mat3& I = m.bodies[b].inertia_com;
  // The spin axis z is the intermediate principal axis.
  EXPECT_GT(I(0, 0), I(2, 2));
  EXPECT_GT(I(2, 2), I(1, 1));
  ASSERT_LT(m.bodies[b].com.norm(), 1e-15);  // body frame at the CoM: L = R Θ ω
  Workspace ws(m);
  State s = m.initial_state;
  computeKinematics(m, s.x, s.xi, ws);
  const Vec3 axis0 = ws.pose[b].R.col(2);
  const Vec3 L0 = ws.pose[b].R * (I * s.xi.tail<3>());
  const double T0 = 0.5 * s.xi.tail<3>().dot(I * s.xi.tail<3>());
  double min_alignment = 1.0, first_flip = -1.0, early_min = 1.0, max_dL = 0.0, max_dT = 0.0;
  const IntegrationResult r =
      integrate(m, s, 0.0, 8.0, optionsFrom(scene.integrator), {}, 0.005,
                [&](double t, const State& st) {
                  computeKinematics(m, st.x, st.xi, ws);
                  const double a = ws.pose[b].R.col(2).dot(axis0);
                  min_alignment = std::min(min_alignment, a);
                  if (t < 0.5) early_min = std::min(early_min, a);
                  if (a < -0.99 && first_flip < 0) first_flip = t;
                  const Vec3 w = st.xi.tail<3>();
                  max_dL = std::max(max_dL, (ws.pose[b].R * (I * w) - L0).norm() / L0.norm());
                  max_dT = std::max(max_dT, std::abs(0.5 * w.dot(I * w) - T0) / T0);
                });
  ASSERT_TRUE(r.ok) << r.message;
  // At first the spin looks stable (the perturbation is 1e-3 rad/s against 6 rad/s) ...
  EXPECT_GT(early_min, 0.999);
  // ... then the stem axis reverses: growth rate 4.5 1/s, first flip after ~2 s.
  EXPECT_LT(min_alignment, -0.99);
  EXPECT_GT(first_flip, 0.5);
  EXPECT_LT(first_flip, 5.0);
  // Free body: energy and angular momentum are invariants; dopri5 at rtol 1e-10 keeps them to
  // ~1e-9 over 8 s; 1e-6 catches a wrong gyroscopic term at once.
  EXPECT_LT(max_dT, 1e-6);
  EXPECT_LT(max_dL, 1e-6);
  test::recordError("t_handle_first_flip_s", first_flip);
  test::recordError("t_handle_max_rel_energy_error", max_dT);
  test::recordError("t_handle_max_rel_momentum_error", max_dL);
}

TEST(SceneModels, HeavySymmetricTopConservesEnergyAndVerticalMomentumAndPrecesses) {
  const Scene scene = load("heavy_symmetric_top.yaml");
  const Model& m = scene.model;
  const int b = m.bodyIndex("top");
  // The solid (disc r = 0.05, length 0.01, 0.2 kg, centre 0.06 above the tip) as the loader
  // computed it, against the textbook cylinder formulas.
  const double mass = 0.2, rad = 0.05, len = 0.01, h = 0.06;
  EXPECT_NEAR(m.bodies[b].mass, mass, 1e-15);
  EXPECT_MATRIX_NEAR(m.bodies[b].com, Vec3(0, 0, h), 1e-15);
  const double I1 = mass * (3 * rad * rad + len * len) / 12, I3 = mass * rad * rad / 2;
  EXPECT_MATRIX_NEAR(m.bodies[b].inertia_com, Vec3(I1, I1, I3).asDiagonal().toDenseMatrix(),
                     1e-15);

  const Mat3 Theta = m.bodies[b].inertia_origin;  // about the tip (the body-frame origin)
  Workspace ws(m);
  State s = m.initial_state;
  const double spin = s.xi(2);
  ASSERT_NEAR(spin, 150.0, 1e-12);
  auto momentum = [&](const State& st) {  // L about the fixed tip, world axes
    computeKinematics(m, st.x, st.xi, ws);
    return Vec3(ws.pose[b].R * (Theta * st.xi));
  };
  auto energy = [&](const State& st) {
    computeForwardDynamics(m, st.x, st.xi, VecX(), ws);
    return computeEnergies(m, st.x, st.xi, ws).total();
  };
  const double W0 = energy(s), Lz0 = momentum(s).z(), L0 = momentum(s).norm();
  const double L3_0 = spin * I3;  // spin component along the symmetry axis
  double max_dW = 0.0, max_dLz = 0.0, max_dL3 = 0.0, precession = 0.0, last_azimuth = 0.0;
  bool first = true;
  constexpr double kDuration = 3.0;
  const IntegrationResult r =
      integrate(m, s, 0.0, kDuration, optionsFrom(scene.integrator), {}, 0.005,
                [&](double, const State& st) {
                  max_dW = std::max(max_dW, std::abs(energy(st) - W0));
                  max_dLz = std::max(max_dLz, std::abs(momentum(st).z() - Lz0));
                  max_dL3 = std::max(max_dL3, std::abs(I3 * st.xi(2) - L3_0));
                  const Vec3 axis = ws.pose[b].R.col(2);
                  const double az = std::atan2(axis.y(), axis.x());
                  if (!first) precession += std::remainder(az - last_azimuth, 2 * kPi);
                  first = false;
                  last_azimuth = az;
                });
  ASSERT_TRUE(r.ok) << r.message;
  // RK4 at dt = 0.1 ms with ω dt = 0.015 and projection of R after each step: energy error
  // ~(ω dt)⁴ per unit time; 1e-6 relative to W ≈ 2.8 J catches a wrong gyroscopic term at once.
  EXPECT_LT(max_dW / std::abs(W0), 1e-6);
  EXPECT_LT(max_dLz / L0, 1e-6);
  EXPECT_LT(max_dL3 / L3_0, 1e-6);
  // Precession about +z at the slow steady-precession rate of the tilt θ₀ = 0.3 rad, the smaller
  // root of m g h = Ω (I₃ ω₃ − I₁ Ω cos θ₀) with I₁ about the tip (Goldstein 5.7): 3.387 rad/s
  // (the gyroscopic limit m g h / (I₃ ω₃) = 3.139 rad/s is 7 % lower). Released without
  // precession the top nutates between θ₀ and θ₀ + 0.04 rad and precesses at this rate on average;
  // the mean tilt and the 3 s window (21 nutation periods) make up for ~1 %. Bound 2 %.
  const double rate = precession / kDuration;
  const double mgh = mass * 9.81 * h, I1_tip = Theta(0, 0), c0 = std::cos(0.3);
  const double steady = (I3 * spin - std::sqrt(I3 * spin * I3 * spin - 4 * I1_tip * c0 * mgh)) /
                        (2 * I1_tip * c0);
  const double gyroscopic = mgh / (I3 * spin);
  EXPECT_NEAR(rate, steady, 0.02 * steady);
  test::recordError("top_max_rel_energy_error", max_dW / std::abs(W0));
  test::recordError("top_max_rel_vertical_momentum_error", max_dLz / L0);
  test::recordError("top_precession_rate_rad_s", rate);
  test::recordError("top_steady_precession_rate_rad_s", steady);
  test::recordError("top_gyroscopic_rate_rad_s", gyroscopic);
}

// ---- Every scene of the library loads and runs -------------------------------------------

class LibraryScene : public ::testing::TestWithParam<const char*> {};

TEST_P(LibraryScene, LoadsAndRunsWithoutInputs) {
  const Scene scene = load(GetParam());
  EXPECT_FALSE(scene.name.empty());
  EXPECT_FALSE(scene.description.empty());
  const Model& m = scene.model;
  for (int b = 0; b < m.numBodies(); ++b)
    EXPECT_TRUE(std::any_of(m.visuals.begin(), m.visuals.end(),
                            [&](const Visual& v) { return v.body == b; }))
        << GetParam() << ": body " << m.bodies[b].name << " has no visual";
  State s = m.initial_state;
  Workspace ws(m);
  ASSERT_EQ(computeForwardDynamics(m, s.x, s.xi, VecX::Zero(m.numInputs()), ws),
            DynamicsStatus::Ok);
  const double W0 = computeEnergies(m, s.x, s.xi, ws).total();
  const bool conservative = m.joint_spring_dampers.empty() && m.dampers.empty();
  const IntegrationResult r = integrate(m, s, 0.0, 0.5, optionsFrom(scene.integrator),
                                        [](double, const State&, VecX& u) { u.setZero(); });
  ASSERT_TRUE(r.ok) << GetParam() << ": " << r.message;
  ASSERT_EQ(computeForwardDynamics(m, s.x, s.xi, VecX::Zero(m.numInputs()), ws),
            DynamicsStatus::Ok);
  // No inputs, no dampers: the scene's own integrator settings keep the energy (loose bound:
  // this is a smoke test; the physics tests above are the precise ones).
  const double W = computeEnergies(m, s.x, s.xi, ws).total();
  if (conservative)
    EXPECT_NEAR(W, W0, 1e-5 * std::max(1.0, std::abs(W0))) << GetParam();
  else
    EXPECT_LE(W, W0 + 1e-9) << GetParam();
}

INSTANTIATE_TEST_SUITE_P(
    SceneModels, LibraryScene,
    ::testing::Values("seifried_cart_two_link_arm.yaml",
                      "seifried_cart_three_links_passive_spring.yaml",
                      "seifried_cart_four_links_min_phase.yaml",
                      "seifried_cart_four_links_nonmin_phase.yaml", "kremer_quadcopter_arm0.yaml",
                      "kremer_quadcopter_arm1.yaml", "kremer_quadcopter_arm2.yaml",
                      "kremer_quadcopter_arm3.yaml", "double_pendulum.yaml",
                      "dzhanibekov_t_handle.yaml", "heavy_symmetric_top.yaml",
                      "four_bar_linkage.yaml", "arm7_urdf.yaml"),
    [](const ::testing::TestParamInfo<const char*>& param_info) {
      std::string n = param_info.param;
      n = n.substr(0, n.find('.'));
      return n;
    });

}  // namespace
}  // namespace rbs
