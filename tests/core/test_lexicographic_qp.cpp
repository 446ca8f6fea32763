// Strict priorities over linear inequalities (core/math/lexicographic_qp.h): without levels the
// solver is InequalityQp; with levels, no feasible point does better on a higher level (checked
// against independent solves of each level), and on the saturated quadcopter's allocation the
// priorities give the answer worked out by hand, which one weighted objective does not.
#include <gtest/gtest.h>

#include <array>
#include <cmath>
#include <optional>
#include <vector>

#include "core/math/inequality_qp.h"
#include "core/math/lexicographic_qp.h"
#include "tests/support/linear_algebra.h"
#include "tests/support/test_models.h"

namespace rbs {
namespace {

using Problem = test::RandomQp;

/// A box lower ≤ u ≤ upper around a point, plus `extra` random rows that the point satisfies, with
/// u₀ usually outside.
Problem randomProblem(test::Rng& rng, int p, int extra) {
  Problem P = test::randomQpObjective(rng, p);
  const VecX lower = VecX::Constant(p, -1.0), upper = VecX::Constant(p, 1.0);
  const MatX W = MatX::NullaryExpr(extra, p, [&] { return test::uniform(rng, -1, 1); });
  const VecX u_f = VecX::NullaryExpr(p, [&] { return test::uniform(rng, -0.5, 0.5); });
  const VecX l = W * u_f + VecX::NullaryExpr(extra, [&] { return test::uniform(rng, 0.0, 0.5); });
  stackWithBounds(W, l, lower, upper, P.A, P.c);
  return P;
}

TEST(LexicographicQp, WithoutLevelsItIsTheInequalityQp) {
  test::Rng rng(31);
  for (int trial = 0; trial < 100; ++trial) {
    const int p = 2 + trial % 5;
    const Problem P = randomProblem(rng, p, trial % 4);
    InequalityQp plain(p, static_cast<int>(P.c.size()));
    LexicographicQp lex(p, static_cast<int>(P.c.size()), 0);
    const InequalityQpResult& a = plain.solve(P.H, P.u0, P.A, P.c);
    const InequalityQpResult& b = lex.solve(P.H, P.u0, std::span<const LexicographicQp::Level>{}, P.A, P.c);
    ASSERT_EQ(a.status, InequalityQpStatus::Optimal);
    ASSERT_EQ(b.status, InequalityQpStatus::Optimal);
    EXPECT_LT((a.u - b.u).norm(), 1e-12) << "trial " << trial;
  }
}

// Level by level against brute force (tests/support: every active set's KKT point): level 1
// reaches the minimum of its objective over the whole set; level 2 the minimum over the points that
// keep level 1's value (a point with a better level 2 but a worse level 1 does not count); the last
// level the minimum in H over the rest. The earlier levels' values are kept by equality rows
// (two opposite inequalities, widened by 1e-6), and the levels carry the solver's tie-breaking
// regularization in the brute force, so both answer the same question.
TEST(LexicographicQp, NoFeasiblePointDoesBetterOnAHigherLevel) {
  test::Rng rng(32);
  int constrained = 0;
  for (int trial = 0; trial < 120; ++trial) {
    const int p = 3 + trial % 3;
    const Problem P = randomProblem(rng, p, trial % 3);
    // Targets of their own (not C u₀): the levels pull away from the last one's u₀.
    std::vector<LexicographicQp::Level> levels(2);
    levels[0].C = MatX::NullaryExpr(1 + trial % 2, p, [&] { return test::uniform(rng, -1, 1); });
    levels[1].C = MatX::NullaryExpr(1, p, [&] { return test::uniform(rng, -1, 1); });
    for (auto& level : levels) level.d = VecX::NullaryExpr(level.C.rows(), [&] { return test::uniform(rng, -3, 3); });
    const int m = static_cast<int>(P.c.size());
    LexicographicQp lex(p, m, 2);
    const InequalityQpResult r = lex.solve(P.H, P.u0, levels, P.A, P.c);
    ASSERT_EQ(r.status, InequalityQpStatus::Optimal) << "trial " << trial;
    // Feasible to the accuracy of the reduced levels (their regularization makes them stiff in some
    // directions and soft in others, cond ~ 1/kLevelRegularization); the allocator clamps to the
    // bounds, and the plant projects onto the input sets.
    EXPECT_LE((P.A * r.u - P.c).maxCoeff(), 1e-6) << "trial " << trial;

    MatX A = P.A;
    VecX c = P.c;
    for (std::size_t k = 0; k <= levels.size(); ++k) {
      const bool last = k == levels.size();
      // ½ ‖C u − d‖² + ε ½ ‖u − u₀‖²_H as ½ (u − u_c)ᵀ Q (u − u_c) + const
      MatX Q = P.H;
      VecX u_c = P.u0;
      if (!last) {
        const MatX& C = levels[k].C;
        Q = C.transpose() * C;
        const double epsilon = LexicographicQp::kLevelRegularization * Q.trace() / P.H.trace();
        Q += epsilon * P.H;
        u_c = Q.llt().solve(C.transpose() * levels[k].d + epsilon * P.H * P.u0);
      }
      const std::optional<test::KktPoint> best = test::bruteForceQp(Q, u_c, A, c);
      ASSERT_TRUE(best) << "trial " << trial << " level " << k;
      // the level's own objective (the regularization only breaks ties; later levels move u
      // along the ties)
      auto value = [&](const VecX& u) {
        return last ? 0.5 * (u - P.u0).dot(P.H * (u - P.u0)) : 0.5 * (levels[k].C * u - levels[k].d).squaredNorm();
      };
      const double ours = value(r.u), theirs = value(best->u);
      // 1e-3: the window buys ~1e-5, and each level is strict up to kLevelRegularization, which
      // shifts the values the later levels start from by a few hundred times that. A level that
      // traded priority would be off by O(1).
      EXPECT_LE(ours, theirs + 1e-3 * (1.0 + theirs)) << "trial " << trial << " level " << k;
      if (last) break;
      // keep this level's value: C u = C u_lex, as two inequalities
      const MatX& C = levels[k].C;
      const Eigen::Index rows = A.rows();
      A.conservativeResize(rows + 2 * C.rows(), p);
      c.conservativeResize(rows + 2 * C.rows());
      A.middleRows(rows, C.rows()) = C;
      A.bottomRows(C.rows()) = -C;
      c.segment(rows, C.rows()) = (C * r.u).array() + 1e-6;
      c.tail(C.rows()) = (-(C * r.u)).array() + 1e-6;
    }
    constrained += !satisfiesInequalities(P.A, P.c, P.u0);
  }
  EXPECT_GT(constrained, 90);  // u₀ left the set in most trials: the levels did work
}

/// The saturated quadcopter of issue 46 in the form the allocator hands over: four rotor thrusts
/// in [0, 8.19] N at ±0.24 m, drag torque ratio ±0.017, rows (F_z, τ_x, τ_y, τ_z) of the body
/// accelerations for m = 1.001 kg, Θ = diag(0.0179, 0.018, 0.0307). Asked for: hover thrust, no
/// tilt, and a yaw acceleration far beyond what the rotors give (a user spinning the vehicle).
struct Quadcopter {
  MatX a_of_u = MatX::Zero(4, 4);  ///< (v̇_z, ω̇_x, ω̇_y, ω̇_z) per unit thrust
  VecX lower = VecX::Zero(4), upper = VecX::Constant(4, 8.19);
  Quadcopter() {
    const double m = 1.001, arm = 0.24, kappa = 0.017;
    const std::array<double, 3> theta{0.0179, 0.018, 0.0307};
    const std::array<std::array<double, 2>, 4> at{{{arm, 0}, {0, arm}, {-arm, 0}, {0, -arm}}};
    const std::array<double, 4> spin{-kappa, kappa, -kappa, kappa};
    for (int i = 0; i < 4; ++i) {
      a_of_u(0, i) = 1.0 / m;
      a_of_u(1, i) = at[i][1] / theta[0];   // τ_x = y F
      a_of_u(2, i) = -at[i][0] / theta[1];  // τ_y = −x F
      a_of_u(3, i) = spin[i] / theta[2];
    }
  }
};

TEST(LexicographicQp, TheSaturatedQuadcopterKeepsItsTiltAndThrustAndGivesUpHeading) {
  const Quadcopter q;
  const double g = 9.81;
  Vec4 a_des(0.0, 0.0, 0.0, -400.0);  // (v̇_z beyond hover, ω̇_x, ω̇_y, ω̇_z): a yaw brake
  // u₀: the thrusts that realize a_des + gravity exactly (4 inputs, 4 rows), far outside the box.
  Vec4 target = a_des;
  target(0) += g;
  const VecX u0 = q.a_of_u.lu().solve(target);
  ASSERT_FALSE((u0.array() >= 0.0).all() && (u0.array() <= 8.19).all());
  // The weight of the allocation's own objective: the template metric (m̄, Θ̄) with the heading
  // inertia a tenth of the tilt's (konz-control: heading yields to tilt).
  const Vec4 metric(1.001, 0.0038, 0.0038, 0.00038);
  const MatX H = q.a_of_u.transpose() * metric.asDiagonal() * q.a_of_u;
  MatX A;
  VecX c;
  stackWithBounds(MatX(0, 4), VecX(0), q.lower, q.upper, A, c);

  // One weighted objective: the yaw demand is large enough to buy some tilt and thrust.
  InequalityQp weighted(4, 8);
  const VecX u_w = weighted.solve(H, u0, A, c).u;
  const Vec4 a_w = q.a_of_u * u_w;
  EXPECT_GT(std::abs(a_w(0) - g) + std::abs(a_w(1)) + std::abs(a_w(2)), 1e-3);

  // Tilt first, then thrust, then the metric: zero roll and pitch, exact hover thrust, and every
  // rotor on the pair whose drag torques brake the yaw: F₁ = F₃ = m g / 2, F₂ = F₄ = 0.
  const std::vector<LexicographicQp::Level> levels{{q.a_of_u.middleRows(1, 2), target.segment(1, 2)},
                                                   {q.a_of_u.topRows(1), target.head(1)}};
  LexicographicQp lex(4, 8, 2);
  const InequalityQpResult& r = lex.solve(H, u0, levels, A, c);
  ASSERT_EQ(r.status, InequalityQpStatus::Optimal);
  const Vec4 a = q.a_of_u * r.u;
  EXPECT_NEAR(a(1), 0.0, 1e-6);
  EXPECT_NEAR(a(2), 0.0, 1e-6);
  EXPECT_NEAR(a(0), g, 1e-6);
  const Vec4 expected(1.001 * g / 2, 0.0, 1.001 * g / 2, 0.0);
  EXPECT_LT((r.u - expected).norm(), 1e-6) << r.u.transpose();
  EXPECT_TRUE(r.active[4 + 1] && r.active[4 + 3]);  // F₂, F₄ on their lower bounds (rows p + i)
}

TEST(LexicographicQp, AnEmptySetIsReportedAndLevelsThatFixEverythingEndIt) {
  // 0 ≤ u₁ ≤ 1 and u₁ ≥ 2: empty.
  MatX A(3, 2);
  A << 1, 0, -1, 0, -1, 0;
  VecX c(3);
  c << 1, 0, -2;
  LexicographicQp lex(2, 3, 2);
  const MatX H = MatX::Identity(2, 2);
  const VecX u0 = VecX::Zero(2);
  const std::vector<LexicographicQp::Level> one{{MatX::Identity(1, 2), VecX::Zero(1)}};
  EXPECT_EQ(lex.solve(H, u0, one, A, c).status, InequalityQpStatus::Infeasible);

  // A first level of full rank decides u: the later ones change nothing.
  MatX box(4, 2);
  box << 1, 0, 0, 1, -1, 0, 0, -1;
  VecX bounds = VecX::Ones(4);
  VecX far(2);
  far << 3, -0.5;
  const std::vector<LexicographicQp::Level> levels{{MatX::Identity(2, 2), far}, {MatX::Ones(1, 2), VecX::Zero(1)}};
  LexicographicQp lex4(2, 4, 2);
  const InequalityQpResult& r4 = lex4.solve(2.0 * H, far, levels, box, bounds);
  ASSERT_EQ(r4.status, InequalityQpStatus::Optimal);
  EXPECT_NEAR(r4.u(0), 1.0, 1e-9);
  EXPECT_NEAR(r4.u(1), -0.5, 1e-9);
}

// The saturated allocation of the Kremer backflip under a push (recorded from a run, issue 46):
// four thrusts in [0, 43.84] N and an arm torque in ±12 N m, u₀ far outside, a first level (the
// tilt) whose objective with ε = 1e-6 has a condition number of about 1e7. The dual method
// misjudged a dependency there and reported an empty set; with the regularization raised it
// solves, inside the box to 1e-5 of it, and the tilt level is met at least as well as without
// priorities.
TEST(LexicographicQp, AnIllConditionedFirstLevelStillSolves) {
  MatX H(5, 5);
  H << 1.23494644198795, 0.307173388875113, -0.942183573862576, -0.0144105249586427, 2.33021046418045,
      0.307173388875113, 1.23494644198795, -0.0144105249586427, -0.942183573862576, 2.33021046418045,
      -0.942183573862576, -0.0144105249586427, 1.1908464091053, 0.263073355992456, -1.65672364206998,
      -0.0144105249586427, -0.942183573862576, 0.263073355992456, 1.1908464091053, -1.65672364206998,
      2.33021046418045, 2.33021046418045, -1.65672364206998, -1.65672364206998, 16.1929573336432;
  VecX u0(5), lower(5), upper(5);
  u0 << 57.5294853064788, 57.4107989376853, -51.8009748749471, -51.6822849730929, -3.01590946972593;
  lower << 0, 0, 0, 0, -12;
  upper << 43.84, 43.84, 43.84, 43.84, 12;
  std::vector<LexicographicQp::Level> levels(2);
  levels[0].C.resize(2, 5);
  levels[0].C << -0.975318468908022, 0.975318468908022, 0.975318468908022, -0.975318468908022, 0,
      -1.11591335249595, -1.11591335249595, 1.10159008568326, 1.10159008568326, -2.86784746600296;
  levels[0].d.resize(2);
  levels[0].d << -0.236298699237001, -234.516891385308;
  levels[1].C.resize(1, 5);
  levels[1].C << 0.153542244116608, 0.153542244116608, 0.145895544402153, 0.145895544402153, 0.253055625920407;
  levels[1].d.resize(1);
  levels[1].d << 1.78724980978654;
  MatX A;
  VecX c;
  stackWithBounds(MatX(0, 5), VecX(0), lower, upper, A, c);
  LexicographicQp lex(5, 10, 2);
  const InequalityQpResult& r = lex.solve(H, u0, levels, A, c);
  ASSERT_EQ(r.status, InequalityQpStatus::Optimal);
  // Within the box to 1e-5 of its 43.84 N (the dual steps on the ill-conditioned objective leave
  // active rows off by ~4e-4 N; the allocator clamps the applied input to the bounds).
  const double slack = 1e-5 * 43.84;
  EXPECT_TRUE(((r.u - lower).array() >= -slack).all() && ((upper - r.u).array() >= -slack).all()) << r.u.transpose();
  InequalityQp plain(5, 10);
  const VecX plain_u = plain.solve(H, u0, A, c).u;
  const double tilt = (levels[0].C * r.u - levels[0].d).norm(), tilt_plain = (levels[0].C * plain_u - levels[0].d).norm();
  EXPECT_LE(tilt, tilt_plain * (1.0 + 1e-9));
}

}  // namespace
}  // namespace rbs
