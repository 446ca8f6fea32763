// Time control used the way a person does (input events only): run to a typed time, step by a
// chosen number of output samples, loop the scene at its end (issue 19 item 5).
#include <QCheckBox>
#include <QLineEdit>
#include <QSpinBox>
#include <gtest/gtest.h>

#include "user_session.h"

namespace rbs::ui {
namespace {

using test::UserSession;

TEST(UserTimeControl, RunToATypedTimeAndStepBySeveralSamples) {
  UserSession user;
  user.openLibraryScene("double_pendulum");  // dt_out = 0.01 s
  ASSERT_TRUE(user.waitFor([&] { return user.window().windowTitle().contains("ouble"); }));
  auto* until = user.find<QLineEdit>("run.until");
  user.typeInto(until, "0.5");
  ASSERT_TRUE(user.waitFor([&] { return user.shownTime() == 0.5 && user.rateText() == "paused"; }))
      << user.shownTime() << " " << user.rateText().toStdString();
  // not a number, and a time already passed: said, nothing runs
  user.typeInto(until, "abc");
  EXPECT_TRUE(user.transientMessage().contains("not a number")) << user.transientMessage().toStdString();
  user.typeInto(until, "0.2");
  EXPECT_TRUE(user.transientMessage().contains("not after the current time")) << user.transientMessage().toStdString();
  QTest::qWait(100);
  EXPECT_EQ(user.shownTime(), 0.5);
  // a decimal comma is a point
  user.typeInto(until, "0,75");
  ASSERT_TRUE(user.waitFor([&] { return user.shownTime() == 0.75 && user.rateText() == "paused"; }));
  // Step by 5 samples: the button and S
  auto* samples = user.find<QSpinBox>("run.step_samples");
  user.typeInto(samples->findChild<QLineEdit*>(), "5");
  EXPECT_EQ(samples->value(), 5);
  user.click("run.step");
  ASSERT_TRUE(user.waitFor([&] { return std::abs(user.shownTime() - 0.80) < 1e-9; })) << user.shownTime();
  user.click(user.view());  // out of the field, which takes the keys typed into it
  user.key(Qt::Key_S);
  ASSERT_TRUE(user.waitFor([&] { return std::abs(user.shownTime() - 0.85) < 1e-9; })) << user.shownTime();
  // past the scene's end (20 s): runs there and pauses at the typed time
  user.typeInto(until, "20.5");
  ASSERT_TRUE(user.waitFor([&] { return user.shownTime() == 20.5 && user.rateText() == "paused"; }))
      << user.shownTime();
}

TEST(UserTimeControl, LoopStartsOverAtTheEndAndPlaysOn) {
  UserSession user;
  user.openLibraryScene("tricopter_suspended_load");  // t_end = 3 s
  ASSERT_TRUE(user.waitFor([&] { return user.window().windowTitle().contains("load", Qt::CaseInsensitive); }));
  user.choose(user.find<QComboBox>("run.speed"), "as fast as possible");
  user.click(user.find<QCheckBox>("run.loop"));
  ASSERT_TRUE(user.find<QCheckBox>("run.loop")->isChecked());
  user.click("run.play");
  // it gets near the end, then shows an early time again while still running
  ASSERT_TRUE(user.waitFor([&] { return user.shownTime() > 2.0; }));
  ASSERT_TRUE(user.waitFor([&] { return user.shownTime() < 1.0 && user.rateText() != "paused at the end"; }))
      << user.shownTime() << " " << user.rateText().toStdString();
  EXPECT_NE(user.rateText(), "paused");
  // loop off: the next end pauses
  user.click(user.find<QCheckBox>("run.loop"));
  ASSERT_TRUE(user.waitFor([&] { return user.rateText() == "paused at the end"; })) << user.rateText().toStdString();
  EXPECT_DOUBLE_EQ(user.shownTime(), 3.0);
  // loop on while paused at the end: Play starts over
  user.click(user.find<QCheckBox>("run.loop"));
  user.click("run.play");
  ASSERT_TRUE(user.waitFor([&] { return user.shownTime() < 1.0 && user.rateText() != "paused"; }))
      << user.shownTime() << " " << user.rateText().toStdString();
  // a step across the end stops there, even looping
  user.click("run.pause");
  user.click("run.reset");
  ASSERT_TRUE(user.waitFor([&] { return user.shownTime() == 0.0; }));
  user.typeInto(user.find<QSpinBox>("run.step_samples")->findChild<QLineEdit*>(), "1000");  // 5 s in 5 ms samples
  user.click("run.step");
  ASSERT_TRUE(user.waitFor([&] { return user.rateText() == "paused at the end"; })) << user.rateText().toStdString();
  EXPECT_DOUBLE_EQ(user.shownTime(), 3.0);
}

}  // namespace
}  // namespace rbs::ui
