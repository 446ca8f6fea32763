// The tricopter with suspended load of the Konz dissertation, Examples 6 and 7 (konz-modeling
// §9.2, §9.5): its coordinate layout (3.98)–(3.100), its relative transforms (3.97), energy
// conservation of the passive motion (§13), the independence of the motion from the choice of the
// load's velocity coordinates (relative ω, Example 6, vs absolute ω, Example 7; §16.3 item 6e), and
// the meaning of Example 7's coordinates, ξ_load = ^0_2ω.
#include <gtest/gtest.h>

#include <cmath>
#include <iomanip>
#include <sstream>
#include <string>
#include <vector>

#include "core/dynamics/dynamics.h"
#include "core/dynamics/energy.h"
#include "sim/simulator.h"
#include "tests/support/example_models.h"
#include "tests/support/flow.h"
#include "tests/support/matrix_compare.h"
#include "tests/support/report.h"
#include "tests/support/test_models.h"

namespace rbs {
namespace {

// Slices of x and ξ as laid out in (3.98) and Example 7.
constexpr int kLoadRotation = 12;  // ^1_2 R in x (9 entries, column-stacked)
constexpr int kCentralOmega = 3;   // ^0_1 ω in ξ
constexpr int kLoadOmega = 6;      // ω_load in ξ

// Spin directions ε = [−1, +1, +1] of the tricopter's propellers (5.10).
constexpr double kSpin[3] = {-1.0, 1.0, 1.0};

Mat3 loadRotation(const VecX& x) {
  return Eigen::Map<const Mat3>(x.data() + kLoadRotation);
}

/// A physical state of the Example 6 model (relative load ω): random attitude and position, load
/// swinging in a random direction, random tilts, propellers at 60–100 rad/s in their spin
/// directions, body twist ~1–2 (m/s, rad/s).
State randomFlightState(const Model& m, test::Rng& rng) {
  State s = m.neutralState();
  const Pose central{test::randomRotation(rng), test::randomVector(rng, 1.0)};
  const Joint& flight = m.joints[m.jointIndex("flight")];
  jointCoordinatesFromMotion(flight, central, s.x.data() + flight.x_offset);
  Eigen::Map<Mat3>(s.x.data() + kLoadRotation) = test::randomRotation(rng);
  s.xi.head<3>() = test::randomVector(rng, 1.0);
  s.xi.segment<3>(kCentralOmega) = test::randomVector(rng, 2.0);
  s.xi.segment<3>(kLoadOmega) = test::randomVector(rng, 2.0);
  for (int k = 1; k <= 3; ++k) {
    const Joint& tilt = m.joints[m.jointIndex("tilt" + std::to_string(k))];
    s.x(tilt.x_offset) = test::uniform(rng, -1.0, 1.0);
    s.xi(tilt.xi_offset) = test::uniform(rng, -1.0, 1.0);
    const Joint& spin = m.joints[m.jointIndex("spin" + std::to_string(k))];
    const double psi = test::uniform(rng, -3.0, 3.0);
    s.x(spin.x_offset) = std::cos(psi);
    s.x(spin.x_offset + 1) = std::sin(psi);
    s.xi(spin.xi_offset) = kSpin[k - 1] * test::uniform(rng, 60.0, 100.0);
  }
  return s;
}

/// The same physical state in Example 7's coordinates: only the load slice of ξ changes, to the
/// load's absolute body angular velocity ^0_2ω = ^1_2Rᵀ ^0_1ω + ^1_2ω — the rotational rows of
/// ^0_2J ξ = Ad_{^2_1G} ^0_1ξ + ^1_2ξ (3.102a), checked against the spherical-absolute row of
/// konz-modeling §10 with R_p = I: ^λ_bω = ω_b − R̄ᵀ ω_λ.
State toAbsoluteLoadVelocity(const State& relative) {
  State s = relative;
  s.xi.segment<3>(kLoadOmega) =
      loadRotation(relative.x).transpose() * relative.xi.segment<3>(kCentralOmega) +
      relative.xi.segment<3>(kLoadOmega);
  return s;
}

std::vector<Pose> worldPoses(const Model& m, const State& s) {
  Workspace ws(m);
  computeKinematics(m, s.x, s.xi, ws);
  return ws.pose;
}

// ---- (a) sizes and layout ---------------------------------------------------------------------

TEST(Tricopter, SizesAndCoordinateLayoutAreThoseOfExamples6And7) {
  for (bool absolute : {false, true}) {
    const Model m = test::tricopterWithLoad(absolute);
    EXPECT_EQ(m.numBodies(), 8);
    EXPECT_EQ(m.nx, 30);   // ν of (3.98)
    EXPECT_EQ(m.nxi, 15);  // n = 6 + 3 + 3 + 3 (3.100)
    // x = [r (0–2), R (3–11), ^1_2R (12–20), θ_1..3 (21–23), c_1, s_1, …, c_3, s_3 (24–29)];
    // ξ = [v, ω (0–5), ω_load (6–8), θ̇_1..3 (9–11), ϖ_1..3 (12–14)].
    EXPECT_EQ(m.joints[m.jointIndex("flight")].x_offset, 0);
    EXPECT_EQ(m.joints[m.jointIndex("flight")].xi_offset, 0);
    EXPECT_EQ(m.joints[m.jointIndex("suspension")].x_offset, kLoadRotation);
    EXPECT_EQ(m.joints[m.jointIndex("suspension")].xi_offset, kLoadOmega);
    for (int k = 1; k <= 3; ++k) {
      const Joint& tilt = m.joints[m.jointIndex("tilt" + std::to_string(k))];
      const Joint& spin = m.joints[m.jointIndex("spin" + std::to_string(k))];
      EXPECT_EQ(tilt.x_offset, 20 + k);
      EXPECT_EQ(tilt.xi_offset, 8 + k);
      EXPECT_EQ(spin.x_offset, 22 + 2 * k);
      EXPECT_EQ(spin.xi_offset, 11 + k);
    }
    EXPECT_EQ(m.joints[m.jointIndex("suspension")].type,
              absolute ? JointType::SphericalAbsolute : JointType::Spherical);
  }
}

TEST(Tricopter, RelativeTransformsAreThoseOfEquation397) {
  // The printed matrices of (3.97), entry by entry, with the parameters of the model.
  const test::TricopterParameters p;
  const Model m = test::tricopterWithLoad(false, p);
  test::Rng rng(61);
  // Products of numbers of size ≤ 1 and a few rotations: rounding ~1e-16 per entry.
  constexpr double kTol = 1e-14;
  for (int trial = 0; trial < 5; ++trial) {
    const State s = randomFlightState(m, rng);
    const std::vector<Pose> G = worldPoses(m, s);
    const Pose& G1 = G[m.bodyIndex("central")];
    // ^0_1G = [R, r]: the free joint's coordinates.
    EXPECT_MATRIX_NEAR(G1.R, Eigen::Map<const Mat3>(s.x.data() + 3), kTol);
    EXPECT_MATRIX_NEAR(G1.r, s.x.head<3>(), kTol);
    // ^1_2G = [^1_2R, [0, 0, h_L]].
    const Pose G12 = G1.inverse() * G[m.bodyIndex("load")];
    EXPECT_MATRIX_NEAR(G12.R, loadRotation(s.x), kTol);
    EXPECT_MATRIX_NEAR(G12.r, Vec3(0, 0, p.load_joint_height), kTol);
    for (int k = 1; k <= 3; ++k) {
      const int arm = m.bodyIndex("arm" + std::to_string(k));
      const int prop = m.bodyIndex("propeller" + std::to_string(k));
      const double phi = p.arm_angle[k - 1];
      const double cp = std::cos(phi), sp = std::sin(phi);
      const double th = s.x(20 + k), ct = std::cos(th), st = std::sin(th);
      // (3.97c), explicit form
      Mat4 arm_expected;
      arm_expected << cp, -sp * ct, sp * st, p.arm_length * cp,  //
          sp, cp * ct, -cp * st, p.arm_length * sp,              //
          0, st, ct, 0,                                          //
          0, 0, 0, 1;
      EXPECT_MATRIX_NEAR((G1.inverse() * G[arm]).matrix(), arm_expected, kTol) << "arm " << k;
      // (3.97d)
      const double c = s.x(22 + 2 * k), sn = s.x(23 + 2 * k);
      Mat4 prop_expected;
      prop_expected << c, -sn, 0, 0,    //
          sn, c, 0, 0,                  //
          0, 0, 1, p.propeller_height,  //
          0, 0, 0, 1;
      EXPECT_MATRIX_NEAR((G[arm].inverse() * G[prop]).matrix(), prop_expected, kTol)
          << "propeller " << k;
    }
  }
}

// ---- (b) energy conservation of the passive motion ---------------------------------------------

class TricopterVariant : public testing::TestWithParam<bool> {};

TEST_P(TricopterVariant, PassiveMotionConservesEnergyAndCoordinateConstraints) {
  // Gravity only, no inputs, no dampers: Ẇ = ξᵀ f_E − ξᵀ D ξ = 0 (konz-modeling §13), so W stays
  // constant up to the integrator's error. No projection: the constraints RᵀR = I and c² + s² = 1
  // are invariant under the exact flow (A ξ is tangent to the manifold, (2.3)), so the drift
  // measures the integration error only.
  const Model m = test::tricopterWithLoad(GetParam());
  test::Rng rng(62);
  State s = randomFlightState(m, rng);
  if (GetParam()) s = toAbsoluteLoadVelocity(s);

  Workspace ws(m);
  const VecX no_inputs(0);
  auto energies = [&](const State& st) {
    EXPECT_EQ(computeForwardDynamics(m, st.x, st.xi, no_inputs, ws), DynamicsStatus::Ok);
    return computeEnergies(m, st.x, st.xi, ws);
  };
  const Energies e0 = energies(s);
  ASSERT_GT(e0.kinetic, 1.0);  // propellers and swinging load really move (T(0) ≈ 1.4 J)

  IntegrationOptions opt;
  opt.stepper = StepperKind::RkFehlberg78;
  opt.rtol = opt.atol = 1e-12;
  opt.drift = DriftPolicy::None;
  double max_energy_error = 0.0, max_drift = 0.0;
  const IntegrationResult r =
      integrate(m, s, 0.0, 3.0, opt, {}, 0.05, [&](double, const State& st) {
        max_energy_error = std::max(max_energy_error, std::abs(energies(st).total() - e0.total()));
        max_drift = std::max(max_drift, m.coordinateDrift(st.x));
      });
  ASSERT_TRUE(r.ok) << r.message;
  test::recordError("relative_energy_error", max_energy_error / e0.kinetic);
  test::recordError("max_drift", max_drift);
  // RK78 at rtol = atol = 1e-12 over ~2500 steps leaves ~1e-12 T(0) (measured 2e-12, although
  // the body falls ~45 m and V_G changes by ~700 J ≈ 500 T(0); rtol = 1e-8 gives 3e-9). A
  // missing or wrong term in c or f_G (e.g. the absolute-ω bias σ_e) drifts W by O(T) within a
  // second (konz-modeling §10.1).
  constexpr double kEnergyTol = 1e-10;
  EXPECT_LT(max_energy_error / e0.kinetic, kEnergyTol) << "T(0) = " << e0.kinetic;
  // The same integration error on the O(1) entries of R and (c, s) (measured 2e-12).
  constexpr double kDriftTol = 1e-10;
  EXPECT_LT(max_drift, kDriftTol);
}

std::string variantName(const testing::TestParamInfo<bool>& param_info) {
  return param_info.param ? "AbsoluteOmega_Example7" : "RelativeOmega_Example6";
}

INSTANTIATE_TEST_SUITE_P(LoadVelocity, TricopterVariant, testing::Bool(), variantName);

// ---- (c) the choice of velocity coordinates does not change the motion --------------------------

TEST(Tricopter, RelativeAndAbsoluteLoadVelocityGiveTheSameMotion) {
  const Model rel = test::tricopterWithLoad(false);
  const Model abs = test::tricopterWithLoad(true);
  test::Rng rng(63);
  State s_rel = randomFlightState(rel, rng);
  State s_abs = toAbsoluteLoadVelocity(s_rel);

  // Same physical state: every body twist agrees at t = 0 (checks the conversion itself).
  {
    Workspace w_rel(rel), w_abs(abs);
    computeKinematics(rel, s_rel.x, s_rel.xi, w_rel);
    computeKinematics(abs, s_abs.x, s_abs.xi, w_abs);
    // Twists of size ≤ 100 (spinning propellers) from a few products: rounding ~1e-14.
    constexpr double kTwistTol = 1e-12;
    for (int b = 0; b < rel.numBodies(); ++b)
      EXPECT_MATRIX_NEAR(w_rel.twist[b], w_abs.twist[b], kTwistTol) << rel.bodies[b].name;
  }

  IntegrationOptions opt;
  opt.stepper = StepperKind::RkFehlberg78;
  opt.rtol = opt.atol = 1e-12;
  std::vector<std::vector<Pose>> poses_rel, poses_abs;
  auto record = [](const Model& m, std::vector<std::vector<Pose>>& out) {
    return [&m, &out](double, const State& st) { out.push_back(worldPoses(m, st)); };
  };
  const IntegrationResult r_rel =
      integrate(rel, s_rel, 0.0, 2.5, opt, {}, 0.05, record(rel, poses_rel));
  const IntegrationResult r_abs =
      integrate(abs, s_abs, 0.0, 2.5, opt, {}, 0.05, record(abs, poses_abs));
  ASSERT_TRUE(r_rel.ok) << r_rel.message;
  ASSERT_TRUE(r_abs.ok) << r_abs.message;
  ASSERT_EQ(poses_rel.size(), poses_abs.size());
  ASSERT_EQ(poses_rel.size(), 51u);

  // Two different ODEs for the same motion, each integrated to rtol = atol = 1e-12: their poses
  // (entries ≤ ~40 m) agree to the accumulated integration error, ~1e-11 (measured 4e-12). A
  // wrong sign in the conversion or in the absolute-ω row (an O(1) angular velocity error)
  // separates them by O(0.1) within 0.1 s.
  constexpr double kPoseTol = 1e-9;
  double max_error = 0.0;
  std::string worst;
  for (size_t i = 0; i < poses_rel.size(); ++i)
    for (int b = 0; b < rel.numBodies(); ++b) {
      const double e = (poses_rel[i][b].matrix() - poses_abs[i][b].matrix()).cwiseAbs().maxCoeff();
      if (e > max_error) {
        max_error = e;
        worst = rel.bodies[b].name + " at t = " + std::to_string(0.05 * i) + " s";
      }
    }
  EXPECT_LT(max_error, kPoseTol) << "largest pose difference: " << worst;
  test::recordError("max_pose_difference", max_error);
}

// ---- (d) Example 7's load coordinates are the load's absolute angular velocity -----------------

TEST(Tricopter, AbsoluteVariantLoadCoordinatesAreTheLoadsAbsoluteAngularVelocity) {
  const Model m = test::tricopterWithLoad(true);
  const int load = m.bodyIndex("load");
  test::Rng rng(64);
  Workspace ws(m);
  for (int trial = 0; trial < 5; ++trial) {
    const State s = toAbsoluteLoadVelocity(randomFlightState(m, rng));
    computeKinematics(m, s.x, s.xi, ws);
    // ^0_2ω, the rotational rows of η_load = ^0_2J ξ (3.107 check line): equal to ξ_load up to
    // rounding of ^1_2Rᵀ ^0_1ω − ^1_2Rᵀ ^0_1ω (entries ≤ 4).
    constexpr double kRoundingTol = 1e-13;
    EXPECT_MATRIX_NEAR(ws.twist[load].tail<3>(), s.xi.segment<3>(kLoadOmega), kRoundingTol);

    // Independent of the Jacobian: ω = vee(R_2ᵀ Ṙ_2) with R_2 = ^0_1R ^1_2R along the flow of the
    // kinematics ẋ = A(x) ξ (3.105) at constant ξ.
    const double h = 5e-4;
    const Mat3 dR = test::centralDifference(
        [&](double t) {
          Workspace w(m);
          computeKinematics(m, test::flowConfiguration(m, s.x, s.xi, t), s.xi, w);
          return Mat3(w.pose[load].R);
        },
        h);
    const Vec3 omega_fd = vee(Mat3(ws.pose[load].R.transpose() * dR));
    // Fourth-order differences with h = 5e-4 s: truncation ~h⁴ |R⁽⁵⁾| ≈ 1e-12 for angular rates
    // ≤ 4 rad/s, rounding ~1e-16/h ≈ 1e-12; an O(1) wrong term is caught by far.
    constexpr double kFdTol = 1e-8;
    EXPECT_MATRIX_NEAR(omega_fd, s.xi.segment<3>(kLoadOmega), kFdTol) << "trial " << trial;
  }
}

}  // namespace
}  // namespace rbs
