// The state channels every run records (sim/sample_recorder.h): body velocities in the world,
// checked against differences of the recorded poses, and every joint's own coordinates and
// velocities, checked against the simulator's state; the names of the joint coordinates for
// every joint type.
#include <gtest/gtest.h>

#include <cmath>
#include <set>
#include <string>

#include "sim/simulator.h"
#include "tests/sim/sim_test_models.h"

namespace rbs {
namespace {

using simtest::movingTricopter;

constexpr JointType kAllTypes[] = {
    JointType::Fixed,     JointType::Revolute,           JointType::RevoluteUnitCircle, JointType::Prismatic,
    JointType::Spherical, JointType::SphericalQuaternion, JointType::SphericalEulerZYX, JointType::SphericalAbsolute,
    JointType::Free,      JointType::FreeQuaternion,     JointType::Planar,             JointType::Universal};

TEST(StateChannels, EveryJointTypeNamesEachOfItsCoordinatesOnce) {
  for (JointType type : kAllTypes) {
    const auto x = configurationCoordinates(type), xi = velocityCoordinates(type);
    EXPECT_EQ(static_cast<int>(x.size()), configurationSize(type)) << jointTypeName(type);
    EXPECT_EQ(static_cast<int>(xi.size()), velocitySize(type)) << jointTypeName(type);
    std::set<std::string_view> names;
    for (const CoordinateInfo& c : x) names.insert(c.name);
    for (const CoordinateInfo& c : xi) names.insert(c.name);
    EXPECT_EQ(names.size(), x.size() + xi.size()) << jointTypeName(type) << ": a name twice";
    for (const CoordinateInfo& c : xi) EXPECT_NE(std::string(c.unit).find("/s"), std::string::npos) << c.name;
  }
}

/// A run of the moving tricopter (free base with R, spherical load, revolute arms, unit-circle
/// rotors) sampled every `dt_out`, to t_end, with tight tolerances.
Simulator runTricopter(const Model& m, double dt_out, double t_end) {
  Simulator sim(m, simtest::options(StepperKind::RkDopri5, 1e-4, dt_out, 1e-12));
  sim.reset(m.initial_state);
  sim.advanceTo(t_end);
  return sim;
}

TEST(StateChannels, BodyVelocitiesAreTheRatesOfTheRecordedPoses) {
  // v = ṗ and ω = 2 vec(q̇ ⊗ q̄) (world), by central differences of the pose channels: the
  // velocity channels come from the body twists η_b = J_b ξ, the poses from G_b(x).
  const Model m = movingTricopter();
  constexpr double h = 1e-4;
  const Simulator sim = runTricopter(m, h, 0.01);
  const Recording& rec = sim.recording();
  const ChannelSet& ch = rec.channels;
  ASSERT_GE(rec.time.size(), 100u);
  double worst = 0.0;
  for (const Body& b : m.bodies) {
    const std::string p = "body." + b.name + ".";
    const int pos = ch.find(p + "px"), quat = ch.find(p + "qw"), vel = ch.find(p + "vx"), ang = ch.find(p + "wx");
    ASSERT_TRUE(pos >= 0 && quat >= 0 && vel >= 0 && ang >= 0) << b.name;
    EXPECT_EQ(ch[vel].unit, "m/s");
    EXPECT_EQ(ch[ang + 2].name, p + "wz");
    for (std::size_t k = 10; k + 10 < rec.time.size(); k += 20) {
      const auto& before = rec.values[k - 1];
      const auto& now = rec.values[k];
      const auto& after = rec.values[k + 1];
      for (int i = 0; i < 3; ++i) {
        const double rate = (after[pos + i] - before[pos + i]) / (2 * h);
        EXPECT_NEAR(now[vel + i], rate, 1e-5 * (1.0 + std::abs(rate))) << b.name << " v" << i << " at " << rec.time[k];
        worst = std::max(worst, std::abs(now[vel + i] - rate));
      }
      const Vec4 q0(before[quat], before[quat + 1], before[quat + 2], before[quat + 3]);
      const Vec4 q1(after[quat], after[quat + 1], after[quat + 2], after[quat + 3]);
      const Vec4 q(now[quat], now[quat + 1], now[quat + 2], now[quat + 3]);
      const Vec4 q_dot = (q1 - q0) / (2 * h);
      const Vec4 w = 2.0 * quaternionMultiply(q_dot, Vec4(q(0), -q(1), -q(2), -q(3)));
      for (int i = 0; i < 3; ++i) {
        EXPECT_NEAR(now[ang + i], w(i + 1), 1e-4 * (1.0 + std::abs(w(i + 1)))) << b.name << " w" << i << " at " << rec.time[k];
        worst = std::max(worst, std::abs(now[ang + i] - w(i + 1)));
      }
    }
  }
  std::printf("[ measured ] body velocities vs pose differences: largest gap %.2e\n", worst);
}

TEST(StateChannels, JointChannelsAreTheStateInTheJointsOwnCoordinates) {
  const Model m = movingTricopter();
  const Simulator sim = runTricopter(m, 0.01, 0.2);
  const ChannelSet& ch = sim.recording().channels;
  const std::span<const double> last = sim.recording().values.back();
  ASSERT_DOUBLE_EQ(sim.recording().time.back(), 0.2);
  const State& s = sim.state();
  int checked = 0;
  for (const Joint& j : m.joints) {
    const auto x = configurationCoordinates(j.type), xi = velocityCoordinates(j.type);
    for (std::size_t i = 0; i < x.size(); ++i, ++checked) {
      const int c = ch.find("joint." + j.name + "." + std::string(x[i].name));
      ASSERT_GE(c, 0) << j.name << " " << x[i].name;
      EXPECT_EQ(ch[c].unit, x[i].unit);
      EXPECT_EQ(last[c], s.x[j.x_offset + static_cast<int>(i)]) << ch[c].name;
    }
    for (std::size_t i = 0; i < xi.size(); ++i, ++checked) {
      const int c = ch.find("joint." + j.name + "." + std::string(xi[i].name));
      ASSERT_GE(c, 0) << j.name << " " << xi[i].name;
      EXPECT_EQ(last[c], s.xi[j.xi_offset + static_cast<int>(i)]) << ch[c].name;
    }
  }
  EXPECT_EQ(checked, m.nx + m.nxi);
  // The free base's rotation matrix entries, column-stacked like x: R21 is row 2, column 1.
  const int r21 = ch.find("joint.flight.R21");
  ASSERT_GE(r21, 0);
  EXPECT_EQ(last[r21], s.x[m.joints[m.jointIndex("flight")].x_offset + 3 + 1]);  // after r (3): R(2,1) is entry 1 of column 1
  // Without a controller there is no reference to record.
  EXPECT_LT(ch.find("reference.joint.flight.x"), 0);
}

}  // namespace
}  // namespace rbs
