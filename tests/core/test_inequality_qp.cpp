// The dense QP with general linear inequalities (core/math/inequality_qp.h) against brute
// force: on random strictly convex problems the optimum is the one KKT point of all active sets,
// and the solver must find it and its active set; empty sets, vertex solutions, redundant rows and
// invalid data give the documented statuses.
#include <gtest/gtest.h>

#include <cmath>
#include <optional>
#include <vector>

#include "core/control/allocation.h"
#include "core/math/inequality_qp.h"
#include "tests/support/linear_algebra.h"
#include "tests/support/test_models.h"

namespace rbs {
namespace {

using Problem = test::RandomQp;

/// A random problem whose set is not empty (it holds u_f) and whose u₀ is usually outside it.
Problem randomProblem(test::Rng& rng, int p, int m) {
  Problem P = test::randomQpObjective(rng, p);
  P.A = MatX::NullaryExpr(m, p, [&] { return test::uniform(rng, -1, 1); });
  const VecX u_f = VecX::NullaryExpr(p, [&] { return test::uniform(rng, -0.5, 0.5); });
  P.c = P.A * u_f + VecX::NullaryExpr(m, [&] { return test::uniform(rng, 0.0, 1.0); });
  return P;
}

TEST(InequalityQp, RandomProblemsGiveTheBruteForceOptimumAndActiveSet) {
  test::Rng rng(21);
  int with_active_rows = 0, vertices = 0;
  for (int trial = 0; trial < 400; ++trial) {
    const int p = 1 + trial % 4, m = 1 + (trial / 4) % 8;
    const Problem P = randomProblem(rng, p, m);
    const std::optional<test::KktPoint> truth = test::bruteForceQp(P.H, P.u0, P.A, P.c);
    ASSERT_TRUE(truth) << "trial " << trial;
    InequalityQp qp(p, m);
    const InequalityQpResult& r = qp.solve(P.H, P.u0, P.A, P.c);
    ASSERT_EQ(r.status, InequalityQpStatus::Optimal) << "trial " << trial;
    EXPECT_LE((r.u - truth->u).norm(), 1e-9 * (1.0 + truth->u.norm())) << "trial " << trial;
    // Stationarity H (u − u₀) + Aᵀ λ = 0 with λ ≥ 0 only on active rows.
    EXPECT_LE((P.H * (r.u - P.u0) + P.A.transpose() * r.multipliers).norm(), 1e-9) << "trial " << trial;
    EXPECT_GE(r.multipliers.minCoeff(), 0.0) << "trial " << trial;
    int active = 0;
    for (int j = 0; j < m; ++j) {
      const bool strictly = r.active[j] && r.multipliers(j) > 1e-9;
      EXPECT_EQ(strictly, static_cast<bool>(truth->active[j])) << "trial " << trial << " row " << j;
      active += truth->active[j];
    }
    with_active_rows += active > 0;
    vertices += active == p;
  }
  // The random problems exercise interior optima, edges and vertices.
  EXPECT_GT(with_active_rows, 200);
  EXPECT_GT(vertices, 50);
}

TEST(InequalityQp, AnEmptySetIsReportedAsInfeasible) {
  InequalityQp qp(2, 3);
  const MatX H = MatX::Identity(2, 2);
  // u₁ ≤ −1 and u₁ ≥ 1.
  MatX A(2, 2);
  A << 1, 0, -1, 0;
  VecX c(2);
  c << -1, -1;
  EXPECT_EQ(qp.solve(H, VecX::Zero(2), A, c).status, InequalityQpStatus::Infeasible);
  // Three half-planes without a common point: u₁ ≥ 1, u₂ ≥ 1, u₁ + u₂ ≤ 1.
  MatX A3(3, 2);
  A3 << -1, 0, 0, -1, 1, 1;
  VecX c3(3);
  c3 << -1, -1, 1;
  const InequalityQpResult& r = qp.solve(H, VecX::Zero(2), A3, c3);
  EXPECT_EQ(r.status, InequalityQpStatus::Infeasible);
  EXPECT_NE(std::string(toString(r.status)).find("no u"), std::string::npos);
  // The same three with the last one moved out to u₁ + u₂ ≤ 2: a single point, (1, 1).
  c3(2) = 2;
  const InequalityQpResult& point = qp.solve(H, VecX::Zero(2), A3, c3);
  ASSERT_EQ(point.status, InequalityQpStatus::Optimal);
  EXPECT_LE((point.u - Eigen::Vector2d(1, 1)).norm(), 1e-12);
}

TEST(InequalityQp, AVertexSolutionIsExact) {
  // The square |u_i| ≤ 1 as four rows; u₀ = (3, 2) beyond its corner: with H = I the minimizer is
  // the corner (1, 1), both rows active with multipliers u₀ − u = (2, 1).
  MatX A(4, 2);
  A << 1, 0, -1, 0, 0, 1, 0, -1;
  const VecX c = VecX::Ones(4);
  InequalityQp qp(2, 4);
  const InequalityQpResult& r = qp.solve(MatX::Identity(2, 2), Eigen::Vector2d(3, 2), A, c);
  ASSERT_EQ(r.status, InequalityQpStatus::Optimal);
  EXPECT_EQ(r.u, Eigen::Vector2d(1, 1));
  EXPECT_EQ(r.active, (std::vector<char>{1, 0, 1, 0}));
  EXPECT_NEAR(r.multipliers(0), 2.0, 1e-14);
  EXPECT_NEAR(r.multipliers(2), 1.0, 1e-14);
  // Inside: u₀ itself, nothing active.
  const InequalityQpResult& inside = qp.solve(MatX::Identity(2, 2), Eigen::Vector2d(0.3, -0.2), A, c);
  EXPECT_EQ(inside.u, Eigen::Vector2d(0.3, -0.2));
  EXPECT_EQ(inside.iterations, 0);
}

TEST(InequalityQp, RedundantRowsThroughTheSameEdgeAreHandled) {
  // u₁ ≤ 1 three times (scaled) and u₁ + u₂ ≤ 2 through the same point as u₂ ≤ 1.
  MatX A(5, 2);
  A << 1, 0, 2, 0, 0.5, 0, 1, 1, 0, 1;
  VecX c(5);
  c << 1, 2, 0.5, 2, 1;
  InequalityQp qp(2, 5);
  const MatX H = (MatX(2, 2) << 2, 0.5, 0.5, 1).finished();
  const InequalityQpResult& r = qp.solve(H, Eigen::Vector2d(4, 5), A, c);
  ASSERT_EQ(r.status, InequalityQpStatus::Optimal);
  EXPECT_LE((r.u - Eigen::Vector2d(1, 1)).norm(), 1e-12);
  EXPECT_LE((H * (r.u - Eigen::Vector2d(4, 5)) + A.transpose() * r.multipliers).norm(), 1e-12);
  EXPECT_GE(r.multipliers.minCoeff(), 0.0);
}

// Boxes are a special case: the same optimum as the box QP the allocation uses today.
TEST(InequalityQp, BoxesWrittenAsRowsGiveTheBoxQpOptimum) {
  test::Rng rng(4);
  for (int trial = 0; trial < 100; ++trial) {
    const int p = 1 + trial % 6;
    const Problem P = randomProblem(rng, p, 1);
    const VecX lower = VecX::NullaryExpr(p, [&] { return test::uniform(rng, -1.5, 0.0); });
    const VecX upper = VecX::NullaryExpr(p, [&] { return test::uniform(rng, 0.0, 1.5); });
    MatX A(2 * p, p);
    VecX c(2 * p);
    A << MatX::Identity(p, p), -MatX::Identity(p, p);
    c << upper, -lower;
    VecX u_box;
    std::vector<signed char> saturated;
    ASSERT_GE(solveBoxQp(P.H, P.u0, lower, upper, u_box, saturated), 0);
    InequalityQp qp(p, 2 * p);
    const InequalityQpResult& r = qp.solve(P.H, P.u0, A, c);
    ASSERT_EQ(r.status, InequalityQpStatus::Optimal);
    EXPECT_LE((r.u - u_box).norm(), 1e-10) << "trial " << trial;
  }
}

TEST(InequalityQp, InvalidDataIsAStatusAndWrongSizesThrow) {
  InequalityQp qp(2, 2);
  const MatX A = MatX::Identity(2, 2);
  const VecX c = VecX::Ones(2);
  const MatX indefinite = (MatX(2, 2) << 1, 0, 0, -1).finished();
  EXPECT_EQ(qp.solve(indefinite, Eigen::Vector2d(3, 3), A, c).status, InequalityQpStatus::InvalidData);
  EXPECT_EQ(qp.solve(MatX::Identity(2, 2), Eigen::Vector2d(NAN, 0), A, c).status, InequalityQpStatus::InvalidData);
  EXPECT_EQ(qp.solve(MatX::Identity(2, 2), Eigen::Vector2d(0, 0), A, Eigen::Vector2d(1, INFINITY)).status, InequalityQpStatus::InvalidData);
  EXPECT_THROW(qp.solve(MatX::Identity(3, 3), VecX::Zero(3), MatX::Zero(2, 3), c), std::invalid_argument);
  EXPECT_THROW(qp.solve(MatX::Identity(2, 2), Eigen::Vector2d(0, 0), MatX::Zero(3, 2), VecX::Ones(3)), std::invalid_argument);
  EXPECT_THROW(qp.solve(MatX::Identity(2, 2), Eigen::Vector2d(0, 0), MatX::Zero(2, 3), c), std::invalid_argument);
  EXPECT_THROW(InequalityQp(0, 1), std::invalid_argument);
  // No rows: u₀.
  EXPECT_EQ(qp.solve(MatX::Identity(2, 2), Eigen::Vector2d(5, 6), MatX(0, 2), VecX(0)).u, Eigen::Vector2d(5, 6));
}

}  // namespace
}  // namespace rbs
