// Pushing bodies with the mouse, the way a person does (input events only): select a body,
// Ctrl+right-drag the looping quadcopter for 0.3 s of simulated time and watch the position error
// jump and decay under the controller; the push channels are non-zero exactly while the button is
// held. And the timed-push scene gives the same CSV in the window as in rbsim-cli run (issue 19
// item 1).
#include <QLineEdit>
#include <QToolBar>
#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>
#include <sstream>

#include "sim/channels.h"
#include "ui_test_support.h"
#include "user_session.h"

namespace rbs::ui {
namespace {

using test::UserSession;

/// The channel named `name` of a CSV header line; -1 if it has none.
int column(const std::string& header, const std::string& name) {
  std::stringstream s(header);
  std::string cell;
  for (int i = 0; std::getline(s, cell, ','); ++i)
    if (cell == name) return i;
  return -1;
}

/// The rows of a CSV file as numbers (the header in `header`).
std::vector<std::vector<double>> readCsv(const std::filesystem::path& file, std::string& header) {
  std::stringstream in(test::slurp(file));
  std::getline(in, header);
  std::vector<std::vector<double>> rows;
  for (std::string line; std::getline(in, line);) {
    std::stringstream cells(line);
    std::vector<double> row;
    for (std::string cell; std::getline(cells, cell, ',');) row.push_back(std::strtod(cell.c_str(), nullptr));
    rows.push_back(row);
  }
  return rows;
}

/// What the window holds, exported by the user through File → Export run as CSV into a fresh
/// folder `folder`: the rows and the columns of the push force.
struct ExportedRun {
  bool answered = false;  ///< the file dialog was answered
  std::string header;
  std::vector<std::vector<double>> rows;
  int fx = -1, fy = -1, fz = -1;
  double force(const std::vector<double>& row) const { return std::hypot(row[fx], row[fy], row[fz]); }
};

ExportedRun exportRun(UserSession& user, const std::string& folder) {
  const std::filesystem::path dir = test::freshDir(folder);
  user.answerFileDialog(dir / "run.csv");
  user.menu("File", "Export run as CSV");
  ExportedRun run;
  run.answered = user.allDialogsAnswered();
  if (!run.answered) return run;
  run.rows = readCsv(dir / "run.csv", run.header);
  run.fx = column(run.header, "perturbation.force.x");
  run.fy = column(run.header, "perturbation.force.y");
  run.fz = column(run.header, "perturbation.force.z");
  return run;
}

TEST(UserPush, PullingTheLoopingQuadcopterRaisesTheErrorAndTheControllerRecovers) {
  UserSession user;
  user.openLibraryScene("quadcopter_looping");
  ASSERT_TRUE(user.waitFor([&] { return user.window().windowTitle().contains("looping", Qt::CaseInsensitive); }));
  View3D* view = user.view();
  user.typeInto(user.find<QLineEdit>("run.until"), "2.5");  // in the first loop, at 4 m/s
  ASSERT_TRUE(user.waitFor([&] { return user.shownTime() == 2.5 && user.rateText() == "paused"; }));
  user.click(view);
  QTest::mouseDClick(view, Qt::LeftButton, {}, user.bodyOnScreen(0));
  ASSERT_TRUE(user.waitFor([&] { return view->selectedBody() == 0; })) << "double click on the quadcopter selects it";
  EXPECT_TRUE(user.transientMessage().contains("Selected body 'base'")) << user.transientMessage().toStdString();
  EXPECT_EQ(view->sceneGraph()->highlight(), 0);
  // the view follows the selected vehicle; the pull then moves with it
  user.click(user.window().findChild<QToolBar*>("view.toolbar")->widgetForAction(user.window().findChild<QAction*>("view.camera.follow")));
  EXPECT_EQ(view->camera().follow_body, 0);

  // A Ctrl+right-drag from the quadcopter 30 px to the right, held for 0.3 s of simulated time in
  // mid-loop. With the view following it, the pull is by the dragged offset (a few newtons), not a
  // hold on a point in the world that would brake the vehicle from 4 m/s.
  user.choose(user.find<QComboBox>("run.speed"), "×0.25");
  user.click("run.play");
  ASSERT_TRUE(user.waitFor([&] { return user.shownTime() >= 2.6; }));
  const QPoint at = user.bodyOnScreen(0);
  QTest::mousePress(view, Qt::RightButton, Qt::ControlModifier, at);
  const double t_press = user.shownTime();
  ASSERT_TRUE(view->push().has_value()) << "the press on the quadcopter grabs it";
  for (int i = 1; i <= 6; ++i) QTest::mouseMove(view, at + QPoint(5 * i, 0));
  EXPECT_TRUE(user.transientMessage().contains("Pulling 'base'")) << user.transientMessage().toStdString();
  EXPECT_TRUE(view->sceneGraph()->pushLineVisible());
  ASSERT_TRUE(user.waitFor([&] { return user.shownTime() >= t_press + 0.3; }));
  const double t_before_release = user.shownTime();
  QTest::mouseRelease(view, Qt::RightButton, Qt::ControlModifier, at + QPoint(30, 0));
  const double t_after_release = user.shownTime();
  EXPECT_FALSE(view->push().has_value());
  EXPECT_FALSE(view->sceneGraph()->pushLineVisible());
  user.typeInto(user.find<QLineEdit>("run.until"), "9.5");  // the loops end at 8.5 s
  ASSERT_TRUE(user.waitFor([&] { return user.shownTime() == 9.5 && user.rateText() == "paused"; }))
      << user.shownTime() << " " << user.rateText().toStdString();

  const ExportedRun run = exportRun(user, "user_push");
  ASSERT_TRUE(run.answered);
  const auto& rows = run.rows;
  const int err = column(run.header, "error.position");
  ASSERT_GE(run.fx, 0);
  ASSERT_GE(err, 0);
  // the push: one unbroken stretch of non-zero force, inside the time the button was down
  double first = NAN, last = NAN, before = 0.0, peak = 0.0;
  for (const auto& r : rows) {
    const double f = run.force(r);
    if (f > 0.0) {
      if (std::isnan(first)) first = r[0];
      EXPECT_TRUE(std::isnan(last) || r[0] - last < 0.011) << "the push stopped and started again at t = " << r[0];
      last = r[0];
    }
    if (r[0] < t_press) before = std::max(before, r[err]);
    if (r[0] >= t_press && r[0] <= t_after_release + 0.5) peak = std::max(peak, r[err]);
  }
  ASSERT_FALSE(std::isnan(first)) << "no push recorded";
  EXPECT_GE(first, t_press - 1e-9);
  // The worker can be one output sample (10 ms) ahead of the time the window shows when the release
  // reaches it (seen once in CI: the last pushed sample at 2.91 s, shown 2.905 s at the release).
  EXPECT_LE(last, t_after_release + 0.011);
  EXPECT_GE(last, t_before_release - 0.011);
  EXPECT_GT(last - first, 0.25);
  // the error jumps well above what tracking alone shows, then the controller brings it back
  EXPECT_GT(peak, 0.05) << "tracking before the push: " << before << " m";
  EXPECT_GT(peak, 10.0 * before);
  // (while looping at the thrust limits the vehicle catches up only partly: 0.1–0.4 m per loop)
  EXPECT_LT(rows.back()[err], 0.2 * peak) << "after the loops";
  RecordProperty("push_peak_position_error_m", std::to_string(peak));
  RecordProperty("push_seconds", std::to_string(last - first));
}

TEST(UserPush, CtrlDragBesideTheBodiesSaysSoAndEscClearsTheSelection) {
  UserSession user;
  user.openLibraryScene("double_pendulum");
  ASSERT_TRUE(user.waitFor([&] { return user.window().windowTitle().contains("ouble"); }));
  View3D* view = user.view();
  user.click(view);
  QTest::mousePress(view, Qt::RightButton, Qt::ControlModifier, QPoint(5, 5));  // the sky
  EXPECT_FALSE(view->push().has_value());
  EXPECT_TRUE(user.transientMessage().contains("No body under the cursor")) << user.transientMessage().toStdString();
  QTest::mouseRelease(view, Qt::RightButton, Qt::ControlModifier, QPoint(5, 5));
  // Ctrl+click selects, and pushes nothing (no spring without a drag); Esc clears
  QTest::mouseClick(view, Qt::LeftButton, Qt::ControlModifier, user.bodyOnScreen(1));
  EXPECT_EQ(view->selectedBody(), 1);
  EXPECT_FALSE(view->push().has_value());
  EXPECT_FALSE(user.transientMessage().contains("Turning")) << user.transientMessage().toStdString();
  user.key(Qt::Key_Escape);
  EXPECT_EQ(view->selectedBody(), -1);
  EXPECT_EQ(view->sceneGraph()->highlight(), -1);
}

TEST(UserPush, TheTimedPushSceneGivesTheSameCsvInTheWindowAsInRbsimCliRun) {
  UserSession user;
  user.openLibraryScene("quadcopter_looping_push");
  ASSERT_TRUE(user.waitFor([&] { return user.window().windowTitle().contains("push", Qt::CaseInsensitive); }));
  user.typeInto(user.find<QLineEdit>("run.until"), "5");
  ASSERT_TRUE(user.waitFor([&] { return user.shownTime() == 5.0 && user.rateText() == "paused"; }));
  const std::filesystem::path dir = test::freshDir("user_push_csv");
  user.answerFileDialog(dir / "gui.csv");
  user.menu("File", "Export run as CSV");
  ASSERT_TRUE(user.allDialogsAnswered());
  const std::string cmd = std::string("'") + RBSIM_CLI + "' run '" + test::sceneFile("quadcopter_looping_push").string() +
                          "' --t-end 5 --quiet --out '" + (dir / "cli.csv").string() + "'";
  ASSERT_EQ(std::system(cmd.c_str()), 0) << cmd;
  const std::string gui = test::slurp(dir / "gui.csv"), cli = test::slurp(dir / "cli.csv");
  EXPECT_EQ(gui.size(), cli.size());
  EXPECT_TRUE(gui == cli) << "the window's CSV differs from rbsim-cli run's";
  // and the push is in it: 4 N along y from t = 4 s for 0.3 s
  std::string header;
  const auto rows = readCsv(dir / "cli.csv", header);
  const int fy = column(header, "perturbation.force.y");
  ASSERT_GE(fy, 0);
  int pushed = 0;
  for (const auto& r : rows) {
    const bool on = r[0] >= 4.0 - 1e-9 && r[0] < 4.3 - 1e-9;
    EXPECT_EQ(r[fy], on ? 4.0 : 0.0) << "t = " << r[0];
    pushed += on;
  }
  EXPECT_EQ(pushed, 60);  // 0.3 s of 5 ms samples
}

// The mouse stays within what the vehicle can answer (issue 46): a long Ctrl+right-drag pulls with
// at most the quadcopter's weight (1.001 kg × 9.81 m/s² = 9.82 N), and the status bar says so; with
// Shift held it pulls harder, up to four times that, and says that too.
TEST(UserPush, ThePullIsBoundedByTheWeightUnlessShiftIsHeld) {
  UserSession user;
  user.openLibraryScene("quadcopter_looping");
  ASSERT_TRUE(user.waitFor([&] { return user.window().windowTitle().contains("looping", Qt::CaseInsensitive); }));
  View3D* view = user.view();
  user.choose(user.find<QComboBox>("run.speed"), "×0.25");
  user.click("run.play");
  ASSERT_TRUE(user.waitFor([&] { return user.shownTime() >= 0.2; }));
  const QPoint at = user.bodyOnScreen(0);
  QTest::mousePress(view, Qt::RightButton, Qt::ControlModifier, at);
  for (int i = 1; i <= 6; ++i) QTest::mouseMove(view, at + QPoint(0, -40 * i));  // far above: the bound holds
  EXPECT_TRUE(user.transientMessage().contains("up to 9.82 N (its weight)")) << user.transientMessage().toStdString();
  ASSERT_TRUE(user.waitFor([&] { return user.shownTime() >= 0.4; }));
  const double t_shift = user.shownTime();
  QTest::keyPress(view, Qt::Key_Shift, Qt::ControlModifier);
  EXPECT_TRUE(user.transientMessage().contains("up to 39.3 N (4 × its weight)")) << user.transientMessage().toStdString();
  ASSERT_TRUE(user.waitFor([&] { return user.shownTime() >= t_shift + 0.2; }));
  QTest::keyRelease(view, Qt::Key_Shift, Qt::ControlModifier);
  QTest::mouseRelease(view, Qt::RightButton, Qt::ControlModifier, at + QPoint(0, -240));
  user.click("run.pause");
  ASSERT_TRUE(user.waitFor([&] { return user.rateText() == "paused"; }));

  const ExportedRun run = exportRun(user, "user_push_bound");
  ASSERT_TRUE(run.answered);
  const auto& rows = run.rows;
  ASSERT_GE(run.fx, 0);
  const double weight = 1.001 * 9.81;
  double before_shift = 0.0, largest = 0.0;
  for (const auto& r : rows) {
    const double f = run.force(r);
    if (r[0] < t_shift - 0.05) before_shift = std::max(before_shift, f);
    largest = std::max(largest, f);
  }
  EXPECT_NEAR(before_shift, weight, 1e-6) << "a far pull is held at the weight";
  EXPECT_GT(largest, 1.5 * weight) << "Shift pulls harder";
  EXPECT_LE(largest, 4.0 * weight * (1.0 + 1e-9));
}

}  // namespace
}  // namespace rbs::ui
