// Seifried's rigid manipulator (cart + two-link arm in a vertical plane, Seifried 2014 §2.3,
// Fig. 2.10; seifried-underactuated §2.7): rbsim's M, c and f_G against the closed form printed by
// Neweul-M². The digest and the book (seeds/002, "Rigid Manipulator") print the same M, k and g.
//
// Sign conventions: Seifried writes M q̈ + k = g + B̄ u (2.22) with the applied forces g on the
// right; rbsim uses the left-hand side form M ξ̇ + c + f_D + f_K + f_G = f_E of (3.124). With
// ξ = q̇ (minimal coordinates, A = I) this gives c = k and f_G = −g.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <iomanip>
#include <numbers>
#include <sstream>
#include <string>

#include "core/dynamics/dynamics.h"
#include "tests/support/example_models.h"
#include "tests/support/matrix_compare.h"
#include "tests/support/report.h"
#include "tests/support/test_models.h"

namespace rbs {
namespace {

struct ClosedForm {
  Mat3 M;
  Vec3 k, g;
};

/// The printed closed form (Seifried 2014, §2.3), q = [x, α, β], transcribed term by term.
ClosedForm seifriedClosedForm(const test::SeifriedCartParameters& p, const Vec3& q,
                              const Vec3& qd) {
  const double Mc = p.cart_mass, M = p.linkMass(), I3 = p.linkInertia(), l = p.link_length,
               g = p.gravity;
  const double a = q(1), b = q(2), ad = qd(1), bd = qd(2);
  const double ca = std::cos(a), sa = std::sin(a), cb = std::cos(b), sb = std::sin(b);
  const double cab = std::cos(a + b), sab = std::sin(a + b);
  ClosedForm f;
  f.M(0, 0) = 2 * M + Mc;
  f.M(0, 1) = 0.5 * l * M * (3 * ca + cab);
  f.M(0, 2) = 0.5 * l * M * cab;
  f.M(1, 1) = 2 * I3 + 1.5 * l * l * M + l * l * M * cb;
  f.M(1, 2) = I3 + 0.25 * l * l * M * (1 + 2 * cb);
  f.M(2, 2) = I3 + 0.25 * l * l * M;
  f.M(1, 0) = f.M(0, 1);  // "sym."
  f.M(2, 0) = f.M(0, 2);
  f.M(2, 1) = f.M(1, 2);
  f.k(0) = -0.5 * l * M * (2 * ad * bd * sab + bd * bd * sab + ad * ad * (3 * sa + sab));
  f.k(1) = -0.5 * bd * (2 * ad + bd) * l * l * M * sb;
  f.k(2) = 0.5 * ad * ad * l * l * M * sb;
  f.g(0) = 0.0;
  f.g(1) = -0.5 * g * l * M * (3 * sa + sab);
  f.g(2) = -0.5 * g * l * M * sab;
  return f;
}

/// max |a − b| / max |b|, with max |b| floored at 1e-300.
template <class A, class B>
double relativeError(const Eigen::MatrixBase<A>& a, const Eigen::MatrixBase<B>& b) {
  return (a - b).cwiseAbs().maxCoeff() / std::max(b.cwiseAbs().maxCoeff(), 1e-300);
}

void compareAtRandomStates(const test::SeifriedCartParameters& p, std::uint64_t seed,
                           const char* what) {
  const Model m = test::seifriedCartTwoLinkArm(p);
  ASSERT_EQ(m.nx, 3);
  ASSERT_EQ(m.nxi, 3);
  Workspace ws(m);
  test::Rng rng(seed);
  // Every entry is a handful of products of O(1) numbers: rounding ~1e-15 relative. 1e-10 leaves
  // a wide margin and still catches any wrong term (all are O(1) relative to the largest entry).
  constexpr double kRelTol = 1e-10;
  double worst_M = 0.0, worst_c = 0.0, worst_g = 0.0;
  for (int trial = 0; trial < 25; ++trial) {
    const Vec3 q(test::uniform(rng, -1.0, 1.0),
                 test::uniform(rng, -std::numbers::pi, std::numbers::pi),
                 test::uniform(rng, -std::numbers::pi, std::numbers::pi));
    const Vec3 qd = test::randomVector(rng, 3.0);
    const VecX x = q, xi = qd;  // revolute and prismatic: x = q, ξ = q̇
    computeKinematics(m, x, xi, ws);
    computeMassMatrix(m, ws);
    computeInertialForces(m, ws);
    computeGravityForces(m, ws);
    const ClosedForm ref = seifriedClosedForm(p, q, qd);
    const double eM = relativeError(ws.mass_matrix, ref.M);
    const double ec = relativeError(ws.inertial_forces, ref.k);  // c = k
    const double eg = relativeError(ws.gravity_forces, -ref.g);  // f_G = −g
    worst_M = std::max(worst_M, eM);
    worst_c = std::max(worst_c, ec);
    worst_g = std::max(worst_g, eg);
    EXPECT_LT(eM, kRelTol) << what << ", trial " << trial << "\nrbsim M =\n"
                           << ws.mass_matrix << "\nprinted M =\n"
                           << ref.M;
    EXPECT_LT(ec, kRelTol) << what << ", trial " << trial
                           << "\nrbsim c = " << ws.inertial_forces.transpose()
                           << "\nprinted k = " << ref.k.transpose();
    EXPECT_LT(eg, kRelTol) << what << ", trial " << trial
                           << "\nrbsim f_G = " << ws.gravity_forces.transpose()
                           << "\nprinted −g = " << -ref.g.transpose();
  }
  test::recordError(std::string(what) + "_M", worst_M);
  test::recordError(std::string(what) + "_c", worst_c);
  test::recordError(std::string(what) + "_fG", worst_g);
}

TEST(SeifriedCart, MassCoriolisAndGravityMatchThePrintedClosedForm) {
  // The book's parameters (flexible-variant data, link mass from ρ = 2700 kg/m³).
  compareAtRandomStates(test::SeifriedCartParameters{}, 71, "book");
}

TEST(SeifriedCart, ClosedFormAlsoHoldsForOtherParameters) {
  // A second, unrelated set, so that a model which only matches the book's numbers by accident
  // (e.g. M_c ≈ M, I_3 ≈ M l²/12 with the section term dropped) is caught.
  test::SeifriedCartParameters p;
  p.cart_mass = 2.3;
  p.link_length = 0.7;
  p.link_width = 0.08;
  p.link_density = 1700;
  p.gravity = 9.80665;
  compareAtRandomStates(p, 72, "other");
}

TEST(SeifriedCart, CartAndArmHangingAtRestFeelNoGeneralizedForce) {
  // Equilibrium (Seifried §2.3): q̇ = 0 and the arm hanging down (α = β = 0) give g = 0 and k = 0.
  const Model m = test::seifriedCartTwoLinkArm();
  Workspace ws(m);
  const VecX x = Vec3(0.4, 0.0, 0.0), xi = Vec3::Zero();
  computeKinematics(m, x, xi, ws);
  computeInertialForces(m, ws);
  computeGravityForces(m, ws);
  // Gravity ~3 N times rounding of sin(0) = 0 exactly: only floating-point noise remains.
  constexpr double kTol = 1e-14;
  EXPECT_MATRIX_NEAR(ws.gravity_forces, Vec3::Zero(), kTol);
  EXPECT_MATRIX_NEAR(ws.inertial_forces, Vec3::Zero(), kTol);
}

}  // namespace
}  // namespace rbs
