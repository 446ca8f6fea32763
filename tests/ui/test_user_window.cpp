// The window used as a person uses it (tests/ui/user_session.h): only mouse clicks, drags, key
// presses, typing and menu entries; checks of what is on screen and of the files written. Each
// test names the failure it guards against (issue 16: reload crashed, recording broke the live
// view, gain fields changed input silently, pausing the plots leaked data, …).
#include <cmath>
#include <cstdio>
#include <fstream>
#include <sstream>
#include <string>

#include <QCheckBox>
#include <QComboBox>
#include <QLabel>
#include <QListWidget>
#include <QToolButton>
#include <QWheelEvent>
#include <gtest/gtest.h>
#include <qcustomplot.h>

#include "gl_messages.h"
#include "ui/scene_browser.h"
#include "ui/simulation_worker.h"
#include "ui_test_support.h"
#include "user_session.h"

namespace rbs::ui {
namespace {

using test::UserSession;

using test::shell;
using test::slurp;

/// "codec,frames" of an MP4 (ffprobe), e.g. "h264,6".
std::string probeVideo(const std::filesystem::path& file) {
  std::string out = shell("ffprobe -v error -select_streams v:0 -count_frames -show_entries "
                          "stream=codec_name,nb_read_frames -of csv=p=0 '" + file.string() + "' 2>&1");
  while (!out.empty() && (out.back() == '\n' || out.back() == ',')) out.pop_back();
  return out;
}

void expectNoGlErrors() {
  const auto errors = test::GlMessages::installed().errors();
  EXPECT_TRUE(errors.empty()) << errors.size() << " OpenGL errors, the first: " << errors.front();
}

/// The scene that stops on purpose (the Euler-angle body at its singularity, t ≈ 1.31 s).
const std::string kDivergesByDesign = "motivation_gimbal_lock";

std::vector<std::string> libraryNames() {
  std::vector<std::string> names;
  for (const auto& f : libraryScenes()) names.push_back(f.stem().string());
  return names;
}

std::string testName(const ::testing::TestParamInfo<std::string>& param) { return param.param; }

// ---- every library scene: open from the browser, play, record a video, play on ----------------

class EveryLibraryScene : public ::testing::TestWithParam<std::string> {};

// Was: recording from the window left the live view frozen or garbled (OpenGL errors), and
// segfaulted for the Seifried cart: the progress dialog let the live view draw in the middle of
// the recording, and each renderer drew into the other's context.
TEST_P(EveryLibraryScene, OpensPlaysRecordsAVideoAndPlaysOn) {
  UserSession user;
  user.openLibraryScene(GetParam());
  ASSERT_TRUE(user.waitFor([&] { return user.window().windowTitle().contains("rbsim — "); }));
  ASSERT_TRUE(user.waitFor([&] { return UserSession::distinctColors(user.viewPicture()) > 30; }))
      << "the 3D view shows no scene";
  EXPECT_TRUE(user.window().lastError().isEmpty()) << user.window().lastError().toStdString();

  user.click("run.play");
  if (GetParam() == kDivergesByDesign) {
    // the Euler-angle body breaks down at β = 90°: the run stops and says where and why
    ASSERT_TRUE(user.waitFor([&] { return user.warningText().contains("stopped"); })) << user.warningText().toStdString();
    EXPECT_TRUE(user.warningText().contains("t = 1.3")) << user.warningText().toStdString();
    // every plotted sample is still the body's motion (the blown-up step is not data)
    for (QCustomPlot* plot : user.window().findChildren<QCustomPlot*>())
      EXPECT_LT(plot->yAxis->range().upper, 1.0) << plot->objectName().toStdString();
    return;
  }
  ASSERT_TRUE(user.waitFor([&] { return user.shownTime() >= 0.05; })) << "the run does not advance";
  user.click("run.pause");
  ASSERT_TRUE(user.waitFor([&] { return user.rateText().startsWith("paused"); }));

  const std::filesystem::path video = test::freshDir("record_" + GetParam()) / "clip.mp4";
  user.answerFileDialog(video);
  user.answerNumberDialog("0.2");
  user.menu("File", "Record video");
  ASSERT_TRUE(user.allDialogsAnswered());
  EXPECT_EQ(probeVideo(video), "h264,6");
  EXPECT_TRUE(user.transientMessage().contains("Wrote 6 frames")) << user.transientMessage().toStdString();

  // the live view draws again: the motion goes on in the picture
  const double t0 = user.shownTime();
  const QImage before = user.viewPicture();
  user.click("run.play");
  ASSERT_TRUE(user.waitFor([&] { return user.shownTime() >= t0 + 0.2; }));
  ASSERT_TRUE(user.waitFor([&] { return user.viewPicture() != before; })) << "the 3D view is frozen after the recording";
  EXPECT_GT(UserSession::distinctColors(user.viewPicture()), 30u);
  EXPECT_TRUE(user.window().lastError().isEmpty()) << user.window().lastError().toStdString();
  expectNoGlErrors();
}

INSTANTIATE_TEST_SUITE_P(Library, EveryLibraryScene, ::testing::ValuesIn(libraryNames()), testName);

// ---- run controls ----------------------------------------------------------------------------

TEST(UserRunControls, ButtonsAndKeysPlayPauseStepAndReset) {
  UserSession user;
  user.openLibraryScene("double_pendulum");
  ASSERT_TRUE(user.waitFor([&] { return user.window().windowTitle().contains("ouble"); }));
  EXPECT_EQ(user.shownTime(), 0.0);
  // Step: exactly one output sample (dt_out = 0.01 s in this scene)
  user.click("run.step");
  ASSERT_TRUE(user.waitFor([&] { return user.shownTime() == 0.01; })) << user.shownTime();
  user.key(Qt::Key_S);
  ASSERT_TRUE(user.waitFor([&] { return user.shownTime() == 0.02; })) << user.shownTime();
  // Space plays and pauses (whatever button was clicked last)
  user.key(Qt::Key_Space);
  ASSERT_TRUE(user.waitFor([&] { return user.rateText().startsWith("real time"); }));
  ASSERT_TRUE(user.waitFor([&] { return user.shownTime() > 0.1; }));
  user.key(Qt::Key_Space);
  ASSERT_TRUE(user.waitFor([&] { return user.rateText() == "paused"; })) << user.rateText().toStdString();
  const double paused_at = user.shownTime();
  QTest::qWait(200);
  EXPECT_EQ(user.shownTime(), paused_at);
  // R resets to t = 0; the Reset button too
  user.key(Qt::Key_R);
  ASSERT_TRUE(user.waitFor([&] { return user.shownTime() == 0.0; }));
  user.click("run.play");
  ASSERT_TRUE(user.waitFor([&] { return user.shownTime() > 0.05; }));
  user.key(Qt::Key_P);
  ASSERT_TRUE(user.waitFor([&] { return user.rateText() == "paused"; }));
  user.click("run.reset");
  ASSERT_TRUE(user.waitFor([&] { return user.shownTime() == 0.0; }));
}

// Was: Space pressed the button that had the focus; after Open… (cancelled) it reopened the file
// dialog instead of playing.
TEST(UserRunControls, SpacePlaysAfterTheOpenDialogWasCancelled) {
  UserSession user;
  user.openLibraryScene("double_pendulum");
  ASSERT_TRUE(user.waitFor([&] { return user.window().windowTitle().contains("ouble"); }));
  user.cancelFileDialog();
  user.click("scenes.open");
  ASSERT_TRUE(user.allDialogsAnswered());
  user.cancelFileDialog();  // were the dialog to open again, this closes it (and is used up)
  user.key(Qt::Key_Space);
  EXPECT_FALSE(user.allDialogsAnswered()) << "Space opened the file dialog again";
  ASSERT_TRUE(user.waitFor([&] { return user.shownTime() > 0.05; })) << "Space did not play";
}

// Runs end where the scene says: paused at integrator.t_end with a message; Play goes on past it.
TEST(UserRunControls, StopsAtTheScenesEndAndPlayContinues) {
  UserSession user;
  user.openLibraryScene("tricopter_suspended_load");  // t_end = 3 s
  ASSERT_TRUE(user.waitFor([&] { return user.window().windowTitle().contains("load", Qt::CaseInsensitive); }));
  user.choose(user.find<QComboBox>("run.speed"), "as fast as possible");
  user.click("run.play");
  ASSERT_TRUE(user.waitFor([&] { return user.rateText() == "paused at the end"; })) << user.rateText().toStdString();
  EXPECT_DOUBLE_EQ(user.shownTime(), 3.0);
  EXPECT_TRUE(user.warningText().contains("end t = 3 s")) << user.warningText().toStdString();
  user.click("run.play");
  ASSERT_TRUE(user.waitFor([&] { return user.shownTime() > 3.2; })) << "Play did not continue past the end";
  user.click("run.reset");
  ASSERT_TRUE(user.waitFor([&] { return user.shownTime() == 0.0; }));
  user.click("run.play");  // after a reset the end stops the run again
  ASSERT_TRUE(user.waitFor([&] { return user.rateText() == "paused at the end"; }));
}

// Was: "running to t = … s" stayed after the run had paused there, and "Reached the scene's end…
// paused" while the run played on past it; and a gain's "kept …" notice stayed after ↺ restored the
// scene's value (issue 49). The status line says what is so now.
TEST(UserRunControls, StatusNoticesDoNotOutliveWhatTheySay) {
  UserSession user;
  user.openLibraryScene("quadcopter_looping");
  ASSERT_TRUE(user.waitFor([&] { return user.window().windowTitle().contains("ooping"); }));
  user.typeInto(user.find<QLineEdit>("run.until"), "0.5");
  ASSERT_TRUE(user.waitFor([&] { return user.shownTime() == 0.5 && user.rateText() == "paused"; }));
  EXPECT_TRUE(user.waitFor([&] { return user.transientMessage() == "ran to t = 0.5 s: paused"; }))
      << user.transientMessage().toStdString();

  user.showTab("Gains");
  auto* pole = user.find<QLineEdit>("gain.pole.field");
  user.typeInto(pole, "abc");
  EXPECT_TRUE(user.transientMessage().contains("kept")) << user.transientMessage().toStdString();
  user.click("gain.pole.reset");
  EXPECT_EQ(user.transientMessage(), "pole: back to 8 rad/s");

  user.choose(user.find<QComboBox>("run.speed"), "as fast as possible");
  user.click("run.play");  // to the end at 10 s: paused there
  ASSERT_TRUE(user.waitFor([&] { return user.rateText() == "paused at the end"; }, 60000));
  EXPECT_TRUE(user.transientMessage().startsWith("Reached the scene's end")) << user.transientMessage().toStdString();
  user.click("run.play");
  EXPECT_TRUE(user.waitFor([&] { return user.transientMessage().isEmpty(); })) << user.transientMessage().toStdString();
}

// ---- gains -----------------------------------------------------------------------------------

// Was: "0" reverted to 5, "-5" became 5, "1e9" became 19, "abc" was ignored, values above 1000
// were clamped, 0.0001 could not be typed — none of it reported; reset restored the controller's
// default 5, not the scene's pole 8.
TEST(UserGains, TypedValuesInAnyNotationAndEveryChangeIsReported) {
  UserSession user;
  user.openLibraryScene("quadcopter_looping");
  ASSERT_TRUE(user.waitFor([&] { return user.window().windowTitle().contains("ooping"); }));
  user.showTab("Gains");
  auto* pole = user.find<QLineEdit>("gain.pole.field");
  auto* used = user.find<QLabel>("gain.pole.applied");
  ASSERT_NE(pole, nullptr);
  EXPECT_EQ(pole->text(), "8");  // the scene's value, not the controller default 5
  const auto usedIs = [&](const QString& v) { return user.waitFor([&] { return used->text() == "used: " + v; }, 30000); };
  user.click("run.step");  // the worker reports the values it used
  ASSERT_TRUE(usedIs("8 rad/s")) << used->text().toStdString();

  user.typeInto(pole, "2.5e1");
  EXPECT_EQ(pole->text(), "25");
  user.click("run.step");
  EXPECT_TRUE(usedIs("25 rad/s")) << used->text().toStdString();
  EXPECT_TRUE(pole->styleSheet().isEmpty());

  user.typeInto(pole, "abc");  // refused: red, said, value kept
  EXPECT_EQ(pole->text(), "25");
  EXPECT_TRUE(pole->styleSheet().contains("background")) << "no colour for a refused value";
  EXPECT_TRUE(pole->toolTip().contains("'abc' is not a number")) << pole->toolTip().toStdString();
  EXPECT_TRUE(user.transientMessage().contains("'abc' is not a number")) << user.transientMessage().toStdString();

  user.typeInto(pole, "1e9");  // above the range [0.01, 1000]: clamped, and said so
  EXPECT_EQ(pole->text(), "1000");
  EXPECT_TRUE(user.transientMessage().contains("1e+09 is above the maximum 1000")) << user.transientMessage().toStdString();
  user.click("run.step");
  EXPECT_TRUE(usedIs("1000 rad/s")) << used->text().toStdString();

  user.typeInto(pole, "0");  // below: clamped to the minimum
  EXPECT_EQ(pole->text(), "0.01");
  EXPECT_TRUE(user.transientMessage().contains("below the minimum 0.01")) << user.transientMessage().toStdString();
  user.typeInto(pole, "-5");
  EXPECT_EQ(pole->text(), "0.01");
  EXPECT_TRUE(pole->toolTip().contains("-5 is below the minimum")) << pole->toolTip().toStdString();

  // four decimals and more: the heading inertia takes 1e-4 as typed
  user.typeInto(pole, "");
  EXPECT_TRUE(user.transientMessage().contains("no value typed; kept 0.01")) << user.transientMessage().toStdString();
  auto* theta = user.find<QLineEdit>("gain.thetabar_z.field");
  user.typeInto(theta, "0.0001");
  EXPECT_EQ(theta->text(), "0.0001");
  EXPECT_TRUE(user.transientMessage().isEmpty()) << "a notice that no longer applies: " << user.transientMessage().toStdString();
  user.typeInto(theta, "1e-4");
  EXPECT_EQ(theta->text(), "0.0001");
  user.click("run.step");
  EXPECT_TRUE(user.waitFor([&] { return user.find<QLabel>("gain.thetabar_z.applied")->text() == "used: 0.0001 kg m^2"; }, 30000))
      << user.find<QLabel>("gain.thetabar_z.applied")->text().toStdString();

  // reset: the scene's value, with the controller default in the tooltip
  auto* reset = user.find<QToolButton>("gain.pole.reset");
  EXPECT_TRUE(reset->toolTip().contains("scene's value 8")) << reset->toolTip().toStdString();
  EXPECT_TRUE(reset->toolTip().contains("default is 5")) << reset->toolTip().toStdString();
  user.click(reset);
  EXPECT_EQ(pole->text(), "8");
  EXPECT_TRUE(pole->styleSheet().isEmpty());
  user.click("run.step");
  EXPECT_TRUE(usedIs("8 rad/s")) << used->text().toStdString();
  user.typeInto(theta, "0.002");
  user.click("gains.reset_all");
  user.click("run.step");
  EXPECT_TRUE(user.waitFor([&] { return user.find<QLabel>("gain.thetabar_z.applied")->text() != "used: 0.002 kg m^2"; }, 30000));
  EXPECT_NE(theta->text(), "0.002");
}

TEST(UserGains, DraggingTheSliderChangesTheValueTheSimulationUses) {
  UserSession user;
  user.openLibraryScene("quadcopter_looping");
  ASSERT_TRUE(user.waitFor([&] { return user.window().windowTitle().contains("ooping"); }));
  user.showTab("Gains");
  auto* slider = user.find<QSlider>("gain.pole.slider");
  auto* field = user.find<QLineEdit>("gain.pole.field");
  user.dragSlider(slider, -40);
  const double dragged = field->text().toDouble();
  EXPECT_LT(dragged, 8.0) << "the handle moved left on a log scale";
  EXPECT_GT(dragged, 0.01);
  user.click("run.step");
  auto* used = user.find<QLabel>("gain.pole.applied");
  EXPECT_TRUE(user.waitFor([&] { return used->text() == "used: " + field->text() + " rad/s"; }, 30000))
      << used->text().toStdString() << " vs " << field->text().toStdString();
}

// Turning the wheel over the gain panel scrolls it: the slider or choice under the cursor keeps its
// value (scrolling through the gains changed every one it passed). Once clicked, a slider takes
// the wheel as usual.
TEST(UserGains, TheWheelScrollsThePanelAndChangesNoGainOnTheWay) {
  UserSession user;
  user.openLibraryScene("bicopter_servos");  // 26 gains: more than the panel shows
  ASSERT_TRUE(user.waitFor([&] { return user.window().windowTitle().contains("servos"); }));
  user.showTab("Gains");
  auto* slider = user.find<QSlider>("gain.mbar.slider");
  auto* field = user.find<QLineEdit>("gain.mbar.field");
  auto* allocation = user.find<QComboBox>("gain.allocation.combo");
  ASSERT_TRUE(slider && field && allocation);
  const QString mbar = field->text(), choice = allocation->currentText();
  // A wheel event the widget leaves unaccepted goes on to its parents, the scroll area among them
  // (for the platform's events; an event sent here reaches the widget only, hence the flag).
  const auto turn = [](QWidget* w, int notches) {
    const QPointF centre = QRectF(w->rect()).center();
    QWheelEvent wheel(centre, w->mapToGlobal(centre), {}, QPoint(0, 120 * notches), Qt::NoButton, {},
                      Qt::NoScrollPhase, false);
    QApplication::sendEvent(w, &wheel);
    return wheel.isAccepted();
  };
  EXPECT_FALSE(turn(slider, -3)) << "left for the scroll area";
  EXPECT_EQ(field->text(), mbar);
  EXPECT_FALSE(turn(allocation, -3));
  EXPECT_EQ(allocation->currentText(), choice);
  // Clicked (on its handle, which leaves the value), the slider is the wheel's.
  user.click(slider, UserSession::sliderHandle(slider));
  EXPECT_TRUE(slider->hasFocus());
  EXPECT_EQ(field->text(), mbar);
  EXPECT_TRUE(turn(slider, 3));
  EXPECT_NE(field->text(), mbar);
}

// On/off parameters are check boxes, choices combo boxes; both reach the simulation.
TEST(UserGains, SwitchesAreCheckBoxesAndChoicesComboBoxes) {
  UserSession user;
  user.openLibraryScene("quadcopter_looping");
  ASSERT_TRUE(user.waitFor([&] { return user.window().windowTitle().contains("ooping"); }));
  user.showTab("Gains");
  auto* allocation = user.find<QComboBox>("gain.allocation.combo");
  ASSERT_NE(allocation, nullptr);
  EXPECT_EQ(allocation->currentText(), "constrained");
  user.scrollIntoView(allocation);  // below the recovery's parameters
  user.choose(allocation, "least_squares");
  user.click("run.step");
  EXPECT_TRUE(user.waitFor([&] { return user.find<QLabel>("gain.allocation.applied")->text() == "used: least_squares"; }, 30000));

  user.choose(user.find<QComboBox>("run.controller"), "joint_pd");  // no scalar joint here: refused
  EXPECT_TRUE(user.window().lastError().contains("joint_pd")) << user.window().lastError().toStdString();
  user.openLibraryScene("robot_arm_6r");
  ASSERT_TRUE(user.waitFor([&] { return user.window().windowTitle().contains("6R", Qt::CaseInsensitive); }));
  user.choose(user.find<QComboBox>("run.controller"), "joint_pd");
  user.showTab("Gains");
  auto* gravity = user.find<QCheckBox>("gain.gravity_compensation.check");
  ASSERT_NE(gravity, nullptr);
  EXPECT_TRUE(gravity->isChecked());
  user.click(gravity);
  EXPECT_FALSE(gravity->isChecked());
  user.click("run.step");
  EXPECT_TRUE(user.waitFor([&] { return user.find<QLabel>("gain.gravity_compensation.applied")->text() == "used: off"; }, 30000));
}

// ---- controller, integrator, reload, open --------------------------------------------------

TEST(UserScenes, SwitchingControllerAndIntegratorStartsANewRun) {
  UserSession user;
  user.openLibraryScene("quadcopter_looping");
  ASSERT_TRUE(user.waitFor([&] { return user.window().windowTitle().contains("ooping"); }));
  user.click("run.play");
  ASSERT_TRUE(user.waitFor([&] { return user.shownTime() > 0.05; }));
  user.choose(user.find<QComboBox>("run.controller"), "geometric_se3");
  ASSERT_TRUE(user.waitFor([&] { return user.shownTime() == 0.0; }));
  EXPECT_TRUE(user.window().lastError().isEmpty()) << user.window().lastError().toStdString();
  EXPECT_EQ(user.find<QComboBox>("run.controller")->currentText(), "geometric_se3");
  user.choose(user.find<QComboBox>("run.integrator"), "rk_dopri5");
  EXPECT_EQ(user.find<QComboBox>("run.integrator")->currentText(), "rk_dopri5");
  user.click("run.play");
  ASSERT_TRUE(user.waitFor([&] { return user.shownTime() > 0.05; }));
  EXPECT_TRUE(user.warningText().isEmpty()) << user.warningText().toStdString();
}

// Was: after opening a library scene, F5 or the Reload button segfaulted (3 of 3): the path was
// read from the scene that the reload had just replaced.
TEST(UserScenes, ReloadWithF5AndTheButtonReadsTheFileAgain) {
  UserSession user;
  user.openLibraryScene("double_pendulum");
  ASSERT_TRUE(user.waitFor([&] { return user.window().windowTitle().contains("ouble"); }));
  user.click("run.play");
  ASSERT_TRUE(user.waitFor([&] { return user.shownTime() > 0.05; }));
  user.key(Qt::Key_F5);
  ASSERT_TRUE(user.waitFor([&] { return user.transientMessage().startsWith("Reloaded"); }));
  EXPECT_EQ(user.shownTime(), 0.0);
  user.showTab("Scenes");
  user.click("scenes.reload");
  ASSERT_TRUE(user.waitFor([&] { return user.shownTime() == 0.0 && user.transientMessage().startsWith("Reloaded"); }));

  // a scene edited on disk: the reload shows the change, and a broken edit keeps the scene running
  const std::filesystem::path copy = test::freshDir("reload") / "pendulum.yaml";
  std::string text = slurp(test::sceneFile("double_pendulum"));
  std::ofstream(copy) << text;
  user.answerFileDialog(copy);
  user.menu("File", "Open");
  ASSERT_TRUE(user.allDialogsAnswered());
  ASSERT_TRUE(user.waitFor([&] { return user.window().windowTitle().contains("ouble"); }));
  text.replace(text.find("t_end: 20"), 9, "t_end: 0.3");
  std::ofstream(copy) << text;
  user.key(Qt::Key_F5);
  user.choose(user.find<QComboBox>("run.speed"), "as fast as possible");
  user.click("run.play");
  ASSERT_TRUE(user.waitFor([&] { return user.rateText() == "paused at the end"; }));
  EXPECT_DOUBLE_EQ(user.shownTime(), 0.3);
  std::ofstream(copy) << "name: broken\nbodies: [\n";
  user.key(Qt::Key_F5);
  EXPECT_TRUE(user.warningText().contains("pendulum.yaml:")) << user.warningText().toStdString();
  user.click("run.reset");
  user.click("run.play");
  ASSERT_TRUE(user.waitFor([&] { return user.rateText() == "paused at the end"; })) << "the scene before the broken edit runs on";
  EXPECT_TRUE(user.warningText().contains("pendulum.yaml:")) << "the load error is gone while the old scene runs: "
                                                            << user.warningText().toStdString();
}

// Was: after Open… of a URDF the library still highlighted the previous scene.
TEST(UserScenes, OpeningAUrdfShowsTheRobotAndNoLibraryEntry) {
  UserSession user;
  user.openLibraryScene("scara");
  ASSERT_TRUE(user.waitFor([&] { return user.window().windowTitle().contains("SCARA", Qt::CaseInsensitive); }));
  auto* list = user.find<QListWidget>("scenes.list");
  EXPECT_EQ(list->selectedItems().size(), 1);
  user.answerFileDialog(std::filesystem::path(RBS_SOURCE_DIR) / "assets" / "urdf" / "double_pendulum.urdf");
  user.click("scenes.open");
  ASSERT_TRUE(user.allDialogsAnswered());
  ASSERT_TRUE(user.waitFor([&] { return user.window().windowTitle().contains("double_pendulum"); }))
      << user.window().windowTitle().toStdString() << " " << user.window().lastError().toStdString();
  EXPECT_TRUE(list->selectedItems().isEmpty()) << "the library still highlights "
                                               << list->selectedItems().front()->text().toStdString();
  user.click("run.play");
  ASSERT_TRUE(user.waitFor([&] { return user.shownTime() > 0.05; }));
  EXPECT_GT(UserSession::distinctColors(user.viewPicture()), 30u);
}

// Was: a robot file opened with its base fixed in mid-air, nothing said so, and --floating
// existed on the command line only (issue 49). The warning line says so, Simulation > Floating base
// reloads it on a free joint (it falls: no gravity compensation), and again fixes it.
TEST(UserScenes, ARobotsFixedBaseIsSaidAndFloatingBaseFreesIt) {
  UserSession user;
  user.openLibraryScene("scara");  // a YAML scene: the entry does not apply
  ASSERT_TRUE(user.waitFor([&] { return user.window().windowTitle().contains("SCARA", Qt::CaseInsensitive); }));
  auto* floating = user.window().findChild<QAction*>("simulation.floating_base");
  ASSERT_NE(floating, nullptr);
  EXPECT_FALSE(floating->isEnabled());
  // two links with mass (the library's robots have a massless root, which cannot float: that is
  // said where the file is loaded with --floating)
  const std::filesystem::path urdf = test::freshDir("floating_base") / "column.urdf";
  const char* link = R"(<inertial><mass value="1"/><inertia ixx="0.01" iyy="0.01" izz="0.01" ixy="0" ixz="0" iyz="0"/></inertial>
    <visual><geometry><box size="0.1 0.1 0.1"/></geometry></visual>)";
  std::ofstream(urdf) << "<robot name=\"column\">\n  <link name=\"base\">" << link << "</link>\n  <link name=\"top\">" << link
                      << R"(</link>
  <joint name="j" type="revolute"><parent link="base"/><child link="top"/><origin xyz="0 0 0.1"/>
    <axis xyz="0 1 0"/><limit lower="-1" upper="1" effort="10" velocity="1"/></joint>
</robot>)";
  user.answerFileDialog(urdf);
  user.click("scenes.open");
  ASSERT_TRUE(user.allDialogsAnswered());
  ASSERT_TRUE(user.waitFor([&] { return user.window().windowTitle().contains("column"); }));
  EXPECT_TRUE(floating->isEnabled());
  EXPECT_FALSE(floating->isChecked());
  EXPECT_TRUE(user.warningText().contains("root link is fixed to the world")) << user.warningText().toStdString();
  const auto rootIsFree = [&] {
    for (const Joint& j : user.window().worker()->scene().model.joints)
      if (j.parent < 0 && (j.type == JointType::Free || j.type == JointType::FreeQuaternion)) return true;
    return false;
  };
  EXPECT_FALSE(rootIsFree());
  user.menu("Simulation", "Floating base");
  ASSERT_TRUE(user.waitFor([&] { return rootIsFree(); }));
  EXPECT_TRUE(floating->isChecked());
  EXPECT_FALSE(user.warningText().contains("root link is fixed")) << user.warningText().toStdString();
  user.click("run.play");
  ASSERT_TRUE(user.waitFor([&] { return user.shownTime() > 0.2; }));
  user.menu("Simulation", "Floating base");  // and fixed again
  ASSERT_TRUE(user.waitFor([&] { return !rootIsFree(); }));
  EXPECT_FALSE(floating->isChecked());
}

// The Recent box shows the file open now and lists the ones before it (issue 49: it said "(recent
// files)" after 15 opens): after scara, then double_pendulum, it shows double_pendulum.yaml, and
// choosing scara.yaml in it opens SCARA again, which it then shows.
TEST(UserScenes, TheRecentBoxShowsTheOpenFileAndReopensAnEarlierOne) {
  UserSession user;
  user.openLibraryScene("scara");
  ASSERT_TRUE(user.waitFor([&] { return user.window().windowTitle().contains("SCARA", Qt::CaseInsensitive); }));
  user.openLibraryScene("double_pendulum");
  ASSERT_TRUE(user.waitFor([&] { return user.window().windowTitle().contains("pendulum", Qt::CaseInsensitive); }));
  auto* recent = user.find<QComboBox>("scenes.recent");
  ASSERT_NE(recent, nullptr);
  EXPECT_EQ(recent->currentText(), "double_pendulum.yaml");
  user.choose(recent, "scara.yaml");
  ASSERT_TRUE(user.waitFor([&] { return user.window().windowTitle().contains("SCARA", Qt::CaseInsensitive); }))
      << user.window().windowTitle().toStdString();
  EXPECT_EQ(recent->currentText(), "scara.yaml");
  EXPECT_EQ(recent->itemText(1), "double_pendulum.yaml");
}

// A robot file with joint friction (off), a mimic joint and a mesh that is not there loads and
// runs; what rbsim does not simulate or show as written is in the warning label with the file and
// line, for the whole run; the mimic is enforced.
TEST(UserScenes, ARobotsUnmodelledFrictionAndMissingMeshAreShownAsWarnings) {
  const std::filesystem::path urdf = test::freshDir("urdf_warnings") / "gripper.urdf";
  std::ofstream(urdf) << R"(<robot name="gripper">
  <link name="world"/>
  <link name="palm"><inertial><mass value="1"/><inertia ixx="0.01" iyy="0.01" izz="0.01" ixy="0" ixz="0" iyz="0"/></inertial></link>
  <link name="finger"><inertial><origin xyz="0 0 -0.1"/><mass value="0.1"/><inertia ixx="0.001" iyy="0.001" izz="0.001" ixy="0" ixz="0" iyz="0"/></inertial>
    <visual><geometry><mesh filename="package://gripper_description/meshes/finger.stl"/></geometry></visual></link>
  <joint name="wrist" type="continuous"><parent link="world"/><child link="palm"/><axis xyz="0 1 0"/>
    <dynamics damping="0.1" friction="0.2"/></joint>
  <joint name="finger_joint" type="continuous"><parent link="palm"/><child link="finger"/><axis xyz="0 1 0"/>
    <mimic joint="wrist" multiplier="-1"/></joint>
</robot>)";
  UserSession user;
  user.answerFileDialog(urdf);
  user.menu("File", "Open");
  ASSERT_TRUE(user.allDialogsAnswered());
  ASSERT_TRUE(user.waitFor([&] { return user.window().windowTitle().contains("gripper"); }))
      << user.window().lastError().toStdString();
  const std::string warning = user.warningText().toStdString();
  EXPECT_NE(warning.find("gripper.urdf:6:3: warning: joint friction"), std::string::npos) << warning;
  EXPECT_NE(warning.find("'wrist'"), std::string::npos) << warning;
  EXPECT_NE(warning.find("gripper.urdf:4:3: warning: link 'finger': mesh 'package://gripper_description/meshes/finger.stl' "
                         "not found"),
            std::string::npos)
      << warning;
  EXPECT_EQ(warning.find("mimic"), std::string::npos) << warning;
  ASSERT_EQ(user.window().scene()->model.loop_closures.size(), 1u);  // the mimic, enforced
  user.click("run.play");
  ASSERT_TRUE(user.waitFor([&] { return user.shownTime() > 0.05; }));
  EXPECT_NE(user.warningText().toStdString().find("friction"), std::string::npos) << "the warning stays while it runs";
}

// ---- plots and exports -----------------------------------------------------------------------

TEST(UserPlots, ExportPlotsAndTheRunAsFiles) {
  UserSession user;
  user.openLibraryScene("double_pendulum");
  ASSERT_TRUE(user.waitFor([&] { return user.window().windowTitle().contains("ouble"); }));
  user.click("run.play");
  ASSERT_TRUE(user.waitFor([&] { return user.shownTime() >= 0.5; }));
  user.click("run.pause");
  ASSERT_TRUE(user.waitFor([&] { return user.rateText() == "paused"; }));

  const std::filesystem::path dir = test::freshDir("user_export");
  // one dialog: folder, formats, time range; the status bar says where the files went
  user.answerExportDialog(dir / "plots", true);
  user.click("plots.export");
  ASSERT_TRUE(user.allDialogsAnswered());
  EXPECT_TRUE(user.transientMessage().startsWith("Wrote 6 files into ")) << user.transientMessage().toStdString();
  EXPECT_TRUE(user.transientMessage().contains(QString::fromStdString((dir / "plots").string())));
  for (const char* ext : {".png", ".pdf", ".csv"})
    EXPECT_GT(std::filesystem::file_size(dir / "plots" / (std::string("energies") + ext)), 100u) << ext;
  // the next export proposes the same folder
  QString proposed;
  user.answerExportDialog({}, false, &proposed);
  user.click("plots.export");
  ASSERT_TRUE(user.allDialogsAnswered());
  EXPECT_EQ(proposed.toStdString(), (dir / "plots").string());
  const std::string energies = slurp(dir / "plots" / "energies.csv");
  EXPECT_EQ(energies.rfind("t,energy.", 0), 0u) << energies.substr(0, 80);

  user.answerFileDialog(dir / "run.csv");
  user.menu("File", "Export run as CSV");
  ASSERT_TRUE(user.allDialogsAnswered());
  EXPECT_TRUE(user.transientMessage().contains("run.csv")) << user.transientMessage().toStdString();
  const std::string run = slurp(dir / "run.csv");
  EXPECT_EQ(run.rfind("t,body.", 0), 0u) << run.substr(0, 80);
  const long rows = std::count(run.begin(), run.end(), '\n') - 1;
  EXPECT_EQ(rows, std::lround(user.shownTime() / 0.01) + 1) << "one row per sample from t = 0";

  user.answerFileDialog(dir / "view.png");
  user.menu("File", "Screenshot");
  ASSERT_TRUE(user.allDialogsAnswered());
  EXPECT_TRUE(user.transientMessage().contains("view.png")) << user.transientMessage().toStdString();
  const QImage shot(QString::fromStdString((dir / "view.png").string()));
  ASSERT_FALSE(shot.isNull());
  EXPECT_GT(UserSession::distinctColors(shot), 30u);
}

// Was: with "Pause plots" on, hovering a plot drew the newer data into it; the crosshair read
// values past the end of the data.
TEST(UserPlots, PausedPlotsStayFrozenUnderTheMouse) {
  UserSession user;
  user.openLibraryScene("double_pendulum");
  ASSERT_TRUE(user.waitFor([&] { return user.window().windowTitle().contains("ouble"); }));
  user.click("run.play");
  ASSERT_TRUE(user.waitFor([&] { return user.shownTime() >= 0.5; }));
  user.click(user.find<QCheckBox>("plots.pause"));
  ASSERT_TRUE(user.find<QCheckBox>("plots.pause")->isChecked());
  QCustomPlot* plot = user.window().findChildren<QCustomPlot*>().front();
  const double t_frozen = user.shownTime();
  // the mouse over the plot, inside the data: a crosshair with values
  const QPoint inside(plot->xAxis->coordToPixel(0.3), plot->height() / 2);
  user.hover(plot, inside);
  QTest::qWait(100);
  const QImage frozen = plot->grab().toImage();
  ASSERT_TRUE(user.waitFor([&] { return user.shownTime() >= t_frozen + 0.5; }));
  user.hover(plot, inside + QPoint(1, 0));
  user.hover(plot, inside);
  QTest::qWait(100);
  EXPECT_EQ(plot->grab().toImage(), frozen) << "the paused plot changed under the mouse";
  EXPECT_LE(plot->graph(0)->data()->constEnd()[-1].key, t_frozen + 0.1);
  // the read-out on screen: a value inside the data, none past its end
  const auto readout = [&] {
    for (int i = 0; i < plot->itemCount(); ++i)
      if (auto* text = qobject_cast<QCPItemText*>(plot->item(i)); text && text->visible()) return text->text();
    return QString();
  };
  EXPECT_NEAR(readout().section(' ', 2, 2).toDouble(), 0.3, 0.02) << readout().toStdString();  // "t = 0.297 s" (a pixel)
  EXPECT_FALSE(readout().contains(QStringLiteral("—"))) << readout().toStdString();
  user.hover(plot, QPoint(plot->xAxis->coordToPixel(8.0), plot->height() / 2));  // 8 s: no data yet
  EXPECT_TRUE(user.waitFor([&] { return readout().contains(QStringLiteral(": —")); }, 5000)) << readout().toStdString();

  user.click(user.find<QCheckBox>("plots.pause"));  // unpaused: the curves catch up at once
  ASSERT_TRUE(user.waitFor([&] { return plot->graph(0)->data()->constEnd()[-1].key > t_frozen + 0.4; }));
  user.click("run.pause");
}

// ---- window sizes ----------------------------------------------------------------------------

// Was: in a tall, narrow window the 3D view was ~400 px wide and the camera cut scenes off.
TEST(UserWindow, TheViewGetsTheRoomAtAnySize) {
  UserSession user({1400, 900});
  user.openLibraryScene("four_bar_linkage");
  ASSERT_TRUE(user.waitFor([&] { return user.window().windowTitle().contains("four", Qt::CaseInsensitive); }));
  View3D* view = user.view();
  ASSERT_TRUE(user.waitFor([&] { return view->width() >= user.window().width() / 2; }))
      << "view " << view->width() << " of " << user.window().width() << [&] {
           std::string d;
           for (QDockWidget* dock : user.window().findChildren<QDockWidget*>())
             d += "; " + dock->windowTitle().toStdString() + " " + std::to_string(dock->width()) + " (min " +
                  std::to_string(dock->minimumSizeHint().width()) + ")";
           return d;
         }();
  for (const QSize size : {QSize(320, 240), QSize(3000, 2000), QSize(700, 1400), QSize(1400, 900)}) {
    user.window().windowHandle()->resize(size);  // as the window manager resizes the frame
    QTest::qWait(200);
    user.key(Qt::Key_S);  // at 320×240 the panels are cut off: the keyboard still steps
    ASSERT_TRUE(user.waitFor([&] { return UserSession::distinctColors(user.viewPicture()) > 20; }))
        << "no picture at " << size.width() << "x" << size.height();
  }
  EXPECT_TRUE(user.window().lastError().isEmpty());
  expectNoGlErrors();
}

// Was: the status bar cut the divergence message off, with no way to read the rest.
TEST(UserWindow, TheWholeDivergenceMessageIsInTheTooltip) {
  UserSession user({700, 600});
  user.openLibraryScene(kDivergesByDesign);
  ASSERT_TRUE(user.waitFor([&] { return user.window().windowTitle().contains("imbal", Qt::CaseInsensitive); }));
  user.click("run.play");
  ASSERT_TRUE(user.waitFor([&] { return user.warningText().contains("stopped"); }));
  auto* label = user.find<ElidedLabel>("status.warning");
  EXPECT_EQ(label->toolTip(), label->text());
  EXPECT_TRUE(label->text().contains("diverged")) << label->text().toStdString();
  if (label->shownText() != label->text()) {
    EXPECT_TRUE(label->shownText().endsWith(QStringLiteral("…")));
  }
}

}  // namespace
}  // namespace rbs::ui
