// The task-space reference `tool_path` (core/control/tool_path_reference.h) on random revolute
// chains with general axes and placements:
//  - the point of the body is on the path and the body keeps its attitude, at every sample;
//  - ξ_R is the time derivative of x_R and ξ̇_R that of ξ_R (central differences);
//  - a sample depends on t alone (any order of evaluation gives the same bits);
//  - a redundant chain needs the joints to hold; a path out of reach is refused at load, with the
//    time; wrong names are refused with the names there are; a mimic gripper off the chain holds.
#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <string>
#include <vector>

#include "core/control/parameters.h"
#include "core/control/reference.h"
#include "core/dynamics/kinematics.h"
#include "core/model/model_builder.h"
#include "tests/support/test_models.h"

namespace rbs {
namespace {

// Newton stops at a residual of 1e-12 (tool_path_reference.cpp); what we compare against is
// composed from the same placements, so 1e-10 leaves room for the composition's rounding.
constexpr double kPathTol = 1e-10;
// Central differences with δ = 1e-5 on motions whose third derivatives are ≲ 10: truncation
// ≲ 1e-9, rounding ≲ 1e-11 / δ = 1e-6 of ξ (the Newton residual divided by δ dominates).
constexpr double kFdStep = 1e-5;
constexpr double kFdTol = 2e-6;

ReferenceSettings toolPath(std::map<std::string, std::vector<double>> parameters,
                           std::map<std::string, std::string> options) {
  return ReferenceSettings{"tool_path", std::move(parameters), std::move(options)};
}

struct ToolPose {
  Vec3 point;
  Mat3 R;
};

ToolPose toolPose(const Model& model, const VecX& x, const std::string& body, const Vec3& p) {
  Workspace ws(model);
  computeKinematics(model, x, VecX::Zero(model.nxi), ws);
  const Pose& G = ws.pose[model.bodyIndex(body)];
  return {G.r + G.R * p, G.R};
}

ReferenceSample at(const Reference& ref, double t) {
  ReferenceSample s;
  ref.sample(t, s);
  return s;
}

void expectDerivativesConsistent(const Reference& ref, double t) {
  const ReferenceSample s = at(ref, t), plus = at(ref, t + kFdStep), minus = at(ref, t - kFdStep);
  const VecX dx = (plus.x - minus.x) / (2 * kFdStep);  // revolute angles: ẋ = ξ
  const VecX dxi = (plus.xi - minus.xi) / (2 * kFdStep);
  EXPECT_LT((dx - s.xi).norm(), kFdTol * (1.0 + s.xi.norm())) << "t = " << t;
  EXPECT_LT((dxi - s.xidot).norm(), kFdTol * (1.0 + s.xidot.norm())) << "t = " << t;
}

TEST(ToolPathReference, APolynomialMoveOfTheToolKeepsItsAttitudeAndHasConsistentRates) {
  const Model model = test::randomChain(6, 11);
  const Vec3 p(0.05, -0.02, 0.1);
  const ToolPose start = toolPose(model, model.initial_state.x, "link5", p);
  const Vec3 goal = start.point + Vec3(0.04, -0.03, 0.05);
  const auto ref = makeReference(
      model, toolPath({{"point", {p.x(), p.y(), p.z()}}, {"goal", {goal.x(), goal.y(), goal.z()}},
                       {"start_time", {0.2}}, {"duration", {1.0}}},
                      {{"body", "link5"}}));
  for (double t : {0.0, 0.2, 0.45, 0.7, 0.95, 1.2, 2.0}) {
    const double s = std::clamp((t - 0.2) / 1.0, 0.0, 1.0);
    const double blend = s * s * s * (10 - 15 * s + 6 * s * s);  // the degree-5 rest-to-rest profile
    const ToolPose now = toolPose(model, at(*ref, t).x, "link5", p);
    EXPECT_LT((now.point - (start.point + blend * (goal - start.point))).norm(), kPathTol) << "t = " << t;
    EXPECT_LT((now.R - start.R).norm(), kPathTol) << "t = " << t;
  }
  EXPECT_LT(at(*ref, 0.0).xi.norm(), 1e-14);  // at rest before the move
  for (double t : {0.3, 0.7, 1.1}) expectDerivativesConsistent(*ref, t);
}

TEST(ToolPathReference, ACircleThroughTheStartWithAFreeOrientationOnAThreeJointArm) {
  // Position only: three joints for three coordinates; the circle (no centre given) starts at the
  // point's initial position and at rest (ramp). The point is off the last joint's axis (a link
  // frame's origin is on it: the last joint could not move it).
  const Model model = test::randomChain(3, 5);
  const Vec3 p(0.1, 0.05, 0.2);
  const Vec3 start = toolPose(model, model.initial_state.x, "link2", p).point;
  const auto ref = makeReference(model, toolPath({{"point", {p.x(), p.y(), p.z()}}, {"radius", {0.05}}, {"period", {2.0}}, {"ramp", {0.5}},
                                                  {"loops", {1}}, {"normal", {0, 1, 0}}},
                                                 {{"body", "link2"}, {"path", "circle"}, {"orientation", "free"}}));
  // Gravity −z lies in the plane: the circle starts "down" from its centre, so the centre is 5 cm above.
  const Vec3 centre = start + Vec3(0, 0, 0.05);
  for (double t : {0.0, 0.3, 0.8, 1.4, 2.1, 2.5, 3.0}) {
    const Vec3 point = toolPose(model, at(*ref, t).x, "link2", p).point;
    EXPECT_NEAR((point - centre).norm(), 0.05, kPathTol) << "t = " << t;
    EXPECT_NEAR(point.y(), centre.y(), kPathTol) << "t = " << t;
  }
  EXPECT_LT((toolPose(model, at(*ref, 2.5).x, "link2", p).point - start).norm(), kPathTol);  // one loop
  for (double t : {0.25, 0.9, 1.7, 2.3}) expectDerivativesConsistent(*ref, t);
}

TEST(ToolPathReference, ASampleDependsOnTheTimeAloneWhateverWasAskedBefore) {
  const Model model = test::randomChain(6, 11);
  const ReferenceSettings settings =
      toolPath({{"radius", {0.04}}, {"period", {1.5}}}, {{"body", "link5"}, {"path", "circle"}});
  const auto fresh = makeReference(model, settings);
  const auto used = makeReference(model, settings);
  for (double t = 0.0; t < 3.0; t += 0.013) at(*used, t);
  at(*used, 7.9);  // far ahead, then back
  for (double t : {1.3, 0.4, 5.2}) {
    const ReferenceSample a = at(*fresh, t), b = at(*used, t);
    EXPECT_EQ(a.x, b.x) << "t = " << t;
    EXPECT_EQ(a.xi, b.xi) << "t = " << t;
    EXPECT_EQ(a.xidot, b.xidot) << "t = " << t;
  }
}

void expectControlError(const Model& model, const ReferenceSettings& settings,
                        const std::vector<std::string>& fragments) {
  try {
    makeReference(model, settings);
    ADD_FAILURE() << "expected an error";
  } catch (const ControlError& e) {
    const std::string what = e.what();
    for (const auto& f : fragments) EXPECT_NE(what.find(f), std::string::npos) << what << "\n  missing: " << f;
  }
}

TEST(ToolPathReference, RedundancyUnreachablePathsAndWrongNamesAreExplained) {
  const Model arm7 = test::randomChain(7, 3);
  const std::map<std::string, std::vector<double>> small{{"radius", {0.02}}, {"period", {2.0}}};
  // Seven joints for six task coordinates: name one to hold.
  expectControlError(arm7, toolPath(small, {{"body", "link6"}, {"path", "circle"}}),
                     {"tool_path", "7 joints move body 'link6'", "hold 1 of them"});
  EXPECT_NO_THROW(makeReference(arm7, toolPath(small, {{"body", "link6"}, {"path", "circle"}, {"hold", "joint2"}})));
  // Three joints cannot hold an orientation and a position.
  expectControlError(test::randomChain(3, 5), toolPath(small, {{"body", "link2"}, {"path", "circle"}}),
                     {"only 3 joints move body 'link2'", "orientation: free"});
  // A joint that does not move the body is not something to hold.
  expectControlError(arm7, toolPath(small, {{"body", "link3"}, {"path", "circle"}, {"hold", "joint5"}}),
                     {"'joint5' does not move body 'link3'"});
  expectControlError(arm7, toolPath(small, {{"body", "link9"}}), {"no body or frame named 'link9'", "link6"});
  expectControlError(arm7, toolPath(small, {{"body", "link6"}, {"hold", "joint2,jiont3"}, {"path", "circle"}}),
                     {"no joint named 'jiont3'"});
  // Out of reach (a chain of seven 0.3 m placements cannot reach 10 m): refused when made, with the time.
  expectControlError(arm7,
                     toolPath({{"goal", {10, 0, 0}}, {"duration", {1.0}}},
                              {{"body", "link6"}, {"hold", "joint2"}}),
                     {"at t = "});
}

// A six-joint arm with a mimic gripper on its last link: fingers off the path's chain hold, a
// coupling on a joint the path moves is refused, a closed chain is refused.
TEST(ToolPathReference, MimicGrippersHoldAndClosedChainsAreRefused) {
  auto arm = [](bool closed) {
    test::Rng rng(11);
    ModelBuilder b;
    std::string parent = kWorld;
    for (int i = 0; i < 6; ++i) {
      const std::string name = "link" + std::to_string(i);
      b.addBody(test::randomBody(rng, name));
      JointSpec j{.name = "joint" + std::to_string(i), .type = JointType::Revolute, .parent = parent, .child = name};
      j.parent_placement = test::randomPose(rng, 0.3);
      j.axis = test::randomVector(rng, 1.0).normalized();
      b.addJoint(j);
      parent = name;
    }
    for (const char* finger : {"finger_a", "finger_b"}) {
      b.addBody(test::randomBody(rng, finger));
      b.addJoint(JointSpec{.name = std::string(finger) + "_slide", .type = JointType::Prismatic, .parent = "link5",
                           .child = finger, .axis = Vec3::UnitY()});
    }
    b.addLoopClosure({.name = "gripper_mimic", .kind = LoopClosure::Kind::JointCoupling, .follower = "finger_b_slide",
                      .leader = "finger_a_slide", .multiplier = -1.0});
    if (closed) b.addLoopClosure({.name = "strut", .kind = LoopClosure::Kind::Ball, .a = {"link1", {}}, .b = {"link3", {}}});
    return b.build();
  };
  const Model gripper = arm(false);
  const std::map<std::string, std::vector<double>> small{{"point", {0.05, -0.02, 0.1}}, {"radius", {0.03}}, {"period", {2.0}}};
  const auto ref = makeReference(gripper, toolPath(small, {{"body", "link5"}, {"path", "circle"}}));
  const ReferenceSample s = at(*ref, 0.8);
  for (const char* slide : {"finger_a_slide", "finger_b_slide"}) {
    const Joint& j = gripper.joints[gripper.jointIndex(slide)];
    EXPECT_EQ(s.x(j.x_offset), gripper.initial_state.x(j.x_offset)) << slide;
    EXPECT_EQ(s.xi(j.xi_offset), 0.0) << slide;
  }
  expectControlError(gripper, toolPath(small, {{"body", "finger_a"}, {"path", "circle"}, {"hold", "joint2"}}),
                     {"mimic coupling 'gripper_mimic'", "hold both"});
  expectControlError(arm(true), toolPath(small, {{"body", "link5"}, {"path", "circle"}}),
                     {"loop closure 'strut'", "open chains"});
}

}  // namespace
}  // namespace rbs
