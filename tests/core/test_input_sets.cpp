// Convex input sets (core/model/input_sets.h, Model::input_sets): the sector's inner polygon lies
// in the annular sector and gives up only the documented slivers; the builder refuses what cannot
// be a set, naming the set and the reason; the projection is the nearest point of the set.
#include <gtest/gtest.h>

#include <cmath>
#include <numbers>
#include <string>
#include <utility>

#include "core/model/input_sets.h"
#include "core/model/model_builder.h"
#include "tests/support/test_models.h"

namespace rbs {
namespace {

constexpr double kDeg = std::numbers::pi / 180.0;
using Vec2 = Eigen::Vector2d;

bool inPolygon(const MatX& A, const VecX& c, const Vec2& u) { return ((A * u - c).array() <= 1e-12).all(); }

// The bicopter's set (§4.8.4): 2 N ≤ F ≤ 14 N, |θ| ≤ 30°, u = (F sin θ, F cos θ).
TEST(InputSets, TheSectorPolygonLiesInTheSectorAndMissesOnlyItsSlivers) {
  const double r_min = 2, r_max = 14;
  // The bicopter's symmetric range and an asymmetric one (the tangent's middle angle is not 0).
  for (const auto& [angle_min, angle_max] : {std::pair{-30 * kDeg, 30 * kDeg}, std::pair{10 * kDeg, 70 * kDeg}})
    for (const int chords : {1, 2, 4, 7}) {
      MatX A;
      VecX c;
      annularSectorPolygon(r_min, r_max, angle_min, angle_max, chords, A, c);
      ASSERT_EQ(A.rows(), 3 + chords);
      const double half = 0.5 * (angle_max - angle_min), middle = 0.5 * (angle_max + angle_min);
      const double sliver = r_max * (1 - std::cos(half / chords));  // chord sag, Δ/2 = width/(2 chords)
      const double inner_loss = r_min * (1 - std::cos(half)) / std::cos(half);  // tangent vs arc at the sides
      int inside = 0, sector_points = 0, missed = 0;
      for (double r = 0; r <= 16; r += 0.05)
        for (double a = -100 * kDeg; a <= 100 * kDeg; a += 0.25 * kDeg) {
          const Vec2 u(r * std::sin(a), r * std::cos(a));
          const bool in_sector = r >= r_min && r <= r_max && a >= angle_min && a <= angle_max;
          const bool in_poly = inPolygon(A, c, u);
          // Inner approximation: every polygon point is feasible (to rounding at the edges).
          if (in_poly) {
            ++inside;
            EXPECT_TRUE(r >= r_min - 1e-9 && r <= r_max + 1e-9 && a >= angle_min - 1e-9 && a <= angle_max + 1e-9)
                << "chords " << chords << ": r " << r << " angle " << a / kDeg;
          }
          if (in_sector) {
            ++sector_points;
            if (!in_poly) {
              ++missed;
              // What is given up lies within the slivers: near the outer arc or below the tangent.
              const bool near_outer = r >= r_max - sliver - 1e-9;
              const bool below_tangent = r * std::cos(a - middle) < r_min + 1e-9 && r <= r_min + inner_loss + 1e-9;
              EXPECT_TRUE(near_outer || below_tangent) << "chords " << chords << ": r " << r << " angle " << a / kDeg;
            }
          }
        }
      EXPECT_GT(inside, 1000);
      if (chords >= 4) {
        EXPECT_LT(missed, sector_points / 20) << chords;  // at most 5 % of the sector lost
      }
    }
}

TEST(InputSets, ASectorWithoutAnInnerPolygonIsRefusedWithTheReason) {
  MatX A;
  VecX c;
  auto message = [&](double r_min, double r_max, double a_min, double a_max, int chords) {
    try {
      annularSectorPolygon(r_min, r_max, a_min, a_max, chords, A, c);
    } catch (const std::invalid_argument& e) {
      return std::string(e.what());
    }
    return std::string();
  };
  EXPECT_NE(message(2, 14, 0.5, -0.5, 4).find("angle range"), std::string::npos);
  EXPECT_NE(message(2, 14, -2, 2, 4).find("angle range"), std::string::npos);  // wider than 180°
  EXPECT_NE(message(2, 14, -0.5, 0.5, 0).find("chords"), std::string::npos);
  EXPECT_NE(message(2, 14, -0.5, 0.5, 65).find("chords"), std::string::npos);  // bounded rows
  EXPECT_NE(message(2, 14, -30, 30, 4).find("radians"), std::string::npos);  // degrees by mistake
  EXPECT_NE(message(14, 14, -0.5, 0.5, 4).find("r_min"), std::string::npos);
  EXPECT_NE(message(-1, 14, -0.5, 0.5, 4).find("r_min"), std::string::npos);
  EXPECT_NE(message(2, NAN, -0.5, 0.5, 4).find("finite"), std::string::npos);
  EXPECT_EQ(message(2, 14, -0.5, 0.5, 4), "");
}

/// One body with three force inputs a, b, c (limits [-5, 5]) and the input sets given.
ModelBuilder threeInputs() {
  ModelBuilder b;
  b.addBody({.name = "body", .mass = 1.0, .inertia = Mat3::Identity()});
  b.addJoint({.name = "free", .type = JointType::Free, .parent = kWorld, .child = "body"});
  for (const char* name : {"a", "b", "c"})
    b.addActuator({.name = name, .kind = ActuatorKind::BodyForce, .body = "body", .direction = Vec3::UnitX(),
                   .lower = -5, .upper = 5});
  return b;
}

std::string buildError(const ModelBuilder& b, ModelField expected_field) {
  try {
    b.build();
  } catch (const ModelError& e) {
    EXPECT_EQ(e.kind(), ModelElement::InputSet);
    EXPECT_EQ(e.field(), expected_field) << e.what();
    return e.what();
  }
  ADD_FAILURE() << "build() accepted the set";
  return {};
}

TEST(InputSets, TheBuilderRefusesWhatCannotBeASetAndSaysWhichAndWhy) {
  const MatX one_row = (MatX(1, 2) << 1, 1).finished();
  const VecX one_bound = VecX::Constant(1, 3.0);
  {
    ModelBuilder b = threeInputs();
    b.addInputSet({"pair", {"a", "ghost"}, one_row, one_bound});
    EXPECT_NE(buildError(b, ModelField::Inputs).find("input set 'pair': no actuator is named 'ghost'"), std::string::npos);
  }
  {
    ModelBuilder b = threeInputs();
    b.addInputSet({"pair", {"a", "a"}, one_row, one_bound});
    EXPECT_NE(buildError(b, ModelField::Inputs).find("listed twice"), std::string::npos);
  }
  {
    ModelBuilder b = threeInputs();
    b.addInputSet({"pair", {"a", "b", "c"}, one_row, one_bound});
    EXPECT_NE(buildError(b, ModelField::Rows).find("one per input"), std::string::npos);
  }
  {
    ModelBuilder b = threeInputs();
    b.addInputSet({"pair", {"a", "b"}, MatX::Zero(1, 2), one_bound});
    EXPECT_NE(buildError(b, ModelField::Rows).find("all coefficients 0"), std::string::npos);
  }
  {
    ModelBuilder b = threeInputs();
    b.addInputSet({"pair", {"a", "b"}, (MatX(1, 2) << NAN, 1).finished(), one_bound});
    EXPECT_NE(buildError(b, ModelField::Rows).find("NaN"), std::string::npos);
  }
  {  // two sets over one input could be empty only together: refused
    ModelBuilder b = threeInputs();
    b.addInputSet({"first", {"a", "b"}, one_row, one_bound});
    b.addInputSet({"second", {"c", "b"}, one_row, one_bound});
    EXPECT_NE(buildError(b, ModelField::Inputs).find("input 'b' is already in input set 'first'"), std::string::npos);
  }
  {  // a + b ≤ −11 cannot hold with a, b ≥ −5: empty together with the limits
    ModelBuilder b = threeInputs();
    b.addInputSet({"pair", {"a", "b"}, one_row, VecX::Constant(1, -11.0)});
    EXPECT_NE(buildError(b, ModelField::Rows).find("the set is empty"), std::string::npos);
  }
  {  // a + b ≤ −9 can: accepted, stored over the actuator indices
    ModelBuilder b = threeInputs();
    b.addInputSet({"pair", {"c", "a"}, one_row, VecX::Constant(1, -9.0)});
    const Model m = b.build();
    ASSERT_EQ(m.input_sets.size(), 1u);
    EXPECT_EQ(m.input_sets[0].inputs, (std::vector<int>{2, 0}));
    MatX W;
    VecX l;
    stackInputSetRows(m, W, l);
    EXPECT_EQ(W, (MatX(1, 3) << 1, 0, 1).finished());
    EXPECT_EQ(l(0), -9.0);
  }
}

// The projection is the nearest point: against a fine search over the set's boundary and inside.
TEST(InputSets, TheProjectionIsTheNearestPointOfTheSetAndLeavesFeasibleInputsAlone) {
  ModelBuilder b = threeInputs();
  MatX A;
  VecX c;
  annularSectorPolygon(1, 4, -30 * kDeg, 30 * kDeg, 3, A, c);
  b.addInputSet({"sector", {"a", "b"}, A, c});
  const Model m = b.build();
  InputSetProjection projection(m);
  test::Rng rng(7);
  for (int trial = 0; trial < 40; ++trial) {
    const VecX u0 = VecX::NullaryExpr(3, [&] { return test::uniform(rng, -6, 6); });
    VecX u = u0;
    ASSERT_TRUE(projection.project(u));
    EXPECT_TRUE(((A * u.head<2>() - c).array() <= 1e-9).all()) << u.transpose();
    EXPECT_TRUE((u.array().abs() <= 5 + 1e-9).all());
    // Brute force over a grid of the (a, b) plane: no feasible point is nearer (c is free within
    // its limits, so its nearest value is the clamp).
    double best = 1e300;
    for (double x = -5; x <= 5; x += 0.01)
      for (double y = -5; y <= 5; y += 0.01)
        if (inPolygon(A, c, Vec2(x, y))) best = std::min(best, std::hypot(x - u0(0), y - u0(1)));
    EXPECT_LE(std::hypot(u(0) - u0(0), u(1) - u0(1)), best + 1e-9);
    EXPECT_GE(std::hypot(u(0) - u0(0), u(1) - u0(1)), best - 0.015);  // the grid's resolution
    EXPECT_DOUBLE_EQ(u(2), std::clamp(u0(2), -5.0, 5.0));
  }
  VecX inside(3);
  inside << 0.2, 2.0, -1.0;
  const VecX before = inside;
  const long moved = projection.projections();
  ASSERT_TRUE(projection.project(inside));
  EXPECT_EQ(inside, before);
  EXPECT_EQ(projection.projections(), moved);
}

}  // namespace
}  // namespace rbs
