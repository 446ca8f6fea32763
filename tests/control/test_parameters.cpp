#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

#include "core/control/parameters.h"

namespace rbs {
namespace {

ParameterSet twoParameters() {
  ParameterSet p;
  p.add({"omega", "rad/s", "bandwidth", 4.0, 0.1, 100.0, ParameterScale::Log});
  p.add({"zeta", "1", "damping ratio", 1.0, 0.0, 5.0});
  return p;
}

TEST(ParameterSet, StartsAtDefaultsAndSetsByName) {
  ParameterSet p = twoParameters();
  EXPECT_EQ(p.value(0), 4.0);
  const auto v0 = p.version();
  p.set("zeta", 0.7);
  EXPECT_EQ(p.value(p.find("zeta")), 0.7);
  EXPECT_GT(p.version(), v0);
  p.resetToDefaults();
  EXPECT_EQ(p.value(1), 1.0);
}

TEST(ParameterSet, RejectsOutOfRangeNonFiniteAndUnknownWithNames) {
  ParameterSet p = twoParameters();
  try {
    p.set("omega", 1000.0);
    FAIL();
  } catch (const ControlError& e) {
    EXPECT_NE(std::string(e.what()).find("omega"), std::string::npos);
    EXPECT_NE(std::string(e.what()).find("[0.1, 100]"), std::string::npos);
  }
  EXPECT_THROW(p.set("zeta", std::nan("")), ControlError);
  try {
    p.set("kp", 1.0);
    FAIL();
  } catch (const ControlError& e) {
    EXPECT_NE(std::string(e.what()).find("known: omega, zeta"), std::string::npos);
  }
}

TEST(ParameterSet, SetAllIsAllOrNothing) {
  ParameterSet p = twoParameters();
  EXPECT_THROW(p.setAll({{"omega", 2.0}, {"zeta", -1.0}}), ControlError);
  EXPECT_EQ(p.value(0), 4.0);  // nothing applied
  p.setAll({{"omega", 2.0}, {"zeta", 0.5}});
  EXPECT_EQ(p.value(0), 2.0);
  EXPECT_EQ(p.value(1), 0.5);
}

TEST(ParameterSet, InconsistentSpecIsAProgrammingError) {
  ParameterSet p;
  EXPECT_THROW(p.add({"a", "1", "", 5.0, 0.0, 1.0}), std::logic_error);
  EXPECT_THROW(p.add({"b", "1", "", 1.0, 0.0, 2.0, ParameterScale::Log}), std::logic_error);
  p.add({"c", "1", "", 0.5, 0.0, 1.0});
  EXPECT_THROW(p.add({"c", "1", "", 0.5, 0.0, 1.0}), std::logic_error);
}

// Switches and choices hold whole numbers: 0/1, or the index of a named choice.
TEST(ParameterSet, TogglesAndChoicesTakeOnlyTheirValues) {
  ParameterSet p;
  const int g = p.add(ParameterSpec::toggle("gravity_compensation", "add g(q)", true)).index();
  const int a =
      p.add(ParameterSpec::choice("allocation", "how u is found", {"least_squares", "constrained"}, "constrained")).index();
  EXPECT_EQ(p.spec(g).kind, ParameterKind::Toggle);
  EXPECT_EQ(p.value(g), 1.0);
  EXPECT_EQ(p.spec(a).kind, ParameterKind::Choice);
  EXPECT_EQ(p.value(a), 1.0);
  EXPECT_EQ(p.spec(a).max, 1.0);
  p.set(g, 0.0);
  p.set(a, 0.0);
  EXPECT_EQ(p.value(a), 0.0);
  for (const double bad : {0.5, 2.0, -1.0}) {
    EXPECT_THROW(p.set(g, bad), ControlError) << bad;
    EXPECT_THROW(p.set(a, bad), ControlError) << bad;
  }
  try {
    p.set(a, 0.5);
    FAIL();
  } catch (const ControlError& e) {
    EXPECT_NE(std::string(e.what()).find("0 (least_squares), 1 (constrained)"), std::string::npos) << e.what();
  }
  EXPECT_THROW(ParameterSpec::choice("x", "", {"a", "b"}, "c"), std::logic_error);
  EXPECT_THROW(ParameterSpec::choice("x", "", {"a"}, "a"), std::logic_error);
  ParameterSpec fractional = ParameterSpec::toggle("y", "", false);
  fractional.default_value = 0.5;
  EXPECT_THROW(p.add(fractional), std::logic_error);
}

// A controller reads its parameters by the handle add() returned; what it never reads is listed.
TEST(ParameterSet, HandlesReadTheirValueAndWhatWasNeverReadIsListed) {
  ParameterSet p;
  const Parameter omega = p.add({"omega", "rad/s", "bandwidth", 4.0, 0.1, 100.0, ParameterScale::Log});
  const Parameter zeta = p.add({"zeta", "1", "damping ratio", 1.0, 0.0, 5.0});
  EXPECT_TRUE(omega.declared());
  EXPECT_EQ(zeta.index(), 1);
  EXPECT_EQ(p.unread(), (std::vector<std::string>{"omega", "zeta"}));
  p.set(zeta.index(), 0.3);  // what a front end does: not a read by the controller
  EXPECT_EQ(p[zeta], 0.3);
  EXPECT_EQ(p.unread(), std::vector<std::string>{"omega"});
  EXPECT_EQ(p[omega], 4.0);
  EXPECT_TRUE(p.unread().empty());
  const ParameterSet copy = p;  // setAll works on a copy: the marks travel with it
  EXPECT_TRUE(copy.unread().empty());

  EXPECT_FALSE(Parameter{}.declared());  // reading it: EntryChecksOfParameters (tests/core)
}

}  // namespace
}  // namespace rbs
