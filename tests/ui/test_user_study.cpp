// A study's results opened in the window the way a person does it (input events only, issue 20
// item 3): File → Open study results, sort the runs by a metric, load the worst one, play it, and
// see the run the row describes. The study file is found beside the results by its hash, or asked
// for; a wrong study file and a file that is not a study's results are refused with a message.
#include <cmath>
#include <fstream>

#include <unistd.h>

#include <QHeaderView>
#include <QSignalSpy>
#include <QTableWidget>
#include <gtest/gtest.h>

#include "core/scene/study.h"
#include "sim/study_run.h"
#include "ui/study_results_dialog.h"
#include "user_session.h"

namespace rbs::ui {
namespace {

using test::UserSession;
namespace fs = std::filesystem;

/// A small study of the looping (2 poles × 2 noise seeds, 2 s) in DIR/studies, of a copy of the
/// scene in DIR, and its results,
/// computed with the function the study runners use, in DIR/results/results.csv.
struct SmallStudy {
  fs::path dir, study_file, scene_file, results, elsewhere;
  Study study;
  std::vector<StudyRunResult> outcomes;

  SmallStudy() {
    dir = fs::temp_directory_path() / ("rbs_ui_study_" + std::to_string(::getpid()));
    fs::remove_all(dir);
    fs::create_directories(dir / "studies");
    fs::create_directories(dir / "results");
    study_file = dir / "studies" / "small.yaml";
    scene_file = dir / "looping.yaml";
    fs::copy_file(fs::path(RBS_SOURCE_DIR) / "scenes/quadcopter_looping.yaml", scene_file);
    std::ofstream(study_file) << "name: small looping study\n"
                                 "scene: " << scene_file.string() << "\n"
                                 "set: {integrator.control_rate: 200, perturbation.noise.position: 0.002}\n"
                                 "run: {t_end: 2, dt_out: 0.01, integrator: rk4}\n"
                                 "grid: {controller.pole: [4, 9]}\n"
                                 "repetitions: {count: 2, seed: perturbation.seed, first: 3}\n"
                                 "metrics:\n"
                                 "  - {name: rms_position, channel: error.position, stat: rms, from: 0.5, to: 2}\n"
                                 "  - {name: final_energy, channel: energy.total, stat: final}\n";
    study = loadStudy(study_file);
    results = dir / "results" / "results.csv";
    std::ofstream out(results);
    out << studyCsvHeader(study) << "\n";
    for (const StudyRunSpec& run : expandStudy(study)) {
      outcomes.push_back(evaluateStudyRun(study, run));
      out << studyCsvRow(run, outcomes.back(), studyHashes(study)) << "\n";
    }
  }
  ~SmallStudy() {
    fs::remove_all(dir);
    if (!elsewhere.empty()) fs::remove_all(elsewhere);
  }
};

/// The RMS of `channel` over [from, to] in the window's run log (what the plots show).
double rmsInWindow(const MainWindow& window, const std::string& channel, double from, double to) {
  const RunLog& log = window.runLog();
  const int c = log.channels.find(channel);
  EXPECT_GE(c, 0) << channel;
  double sum_sq = 0.0;
  long n = 0;
  for (std::size_t k = 0; k < log.time.size(); ++k)
    if (log.time[k] >= from - 1e-11 && log.time[k] <= to + 1e-11) {
      const double v = log.values[k][static_cast<std::size_t>(c)];
      sum_sq += v * v;
      ++n;
    }
  return n > 0 ? std::sqrt(sum_sq / static_cast<double>(n)) : std::nan("");
}

StudyResultsDialog* openResults(UserSession& user, const fs::path& results) {
  user.answerFileDialog(results);
  user.menu("File", "Open study results");
  StudyResultsDialog* dialog = nullptr;
  EXPECT_TRUE(user.waitFor([&] { return (dialog = user.visible<StudyResultsDialog>()) != nullptr; }, 20000));
  return dialog;
}

/// The text of the error box the window shows (not modal), closed with its OK button.
QString errorShown(UserSession& user) {
  QMessageBox* box = nullptr;
  EXPECT_TRUE(user.waitFor([&] { return (box = user.visible<QMessageBox>()) != nullptr; }, 20000)) << "no message shown";
  if (!box) return {};
  const QString text = box->text();
  user.click(box->button(QMessageBox::Ok));
  EXPECT_TRUE(user.waitFor([&] { return user.visible<QMessageBox>() == nullptr; }, 5000));
  return text;
}

TEST(UserStudy, SortTheRunsLoadTheWorstAndPlayItAsTheStudyRanIt) {
  SmallStudy s;
  // the worst run by RMS position error
  std::size_t worst = 0;
  for (std::size_t r = 1; r < s.outcomes.size(); ++r)
    if (s.outcomes[r].metrics[0] > s.outcomes[worst].metrics[0]) worst = r;
  ASSERT_TRUE(std::isfinite(s.outcomes[worst].metrics[0]));

  UserSession user;
  user.openLibraryScene("double_pendulum");  // something else is open before
  ASSERT_TRUE(user.waitFor([&] { return user.window().windowTitle().contains("ouble"); }));
  StudyResultsDialog* dialog = openResults(user, s.results);
  ASSERT_NE(dialog, nullptr);
  EXPECT_TRUE(user.allDialogsAnswered());
  auto* summary = dialog->findChild<QLabel*>("study.summary");
  ASSERT_NE(summary, nullptr);
  EXPECT_TRUE(summary->text().contains("4 of 4 runs")) << summary->text().toStdString();
  EXPECT_TRUE(summary->text().contains("small.yaml")) << summary->text().toStdString();  // found beside the results
  EXPECT_FALSE(summary->text().contains("changed"));
  auto* table = dialog->findChild<QTableWidget*>("study.table");
  ASSERT_NE(table, nullptr);
  ASSERT_EQ(table->rowCount(), 4);
  auto* load = dialog->findChild<QPushButton*>("study.load");
  EXPECT_FALSE(load->isEnabled());  // nothing selected yet

  // sort by rms_position, largest first (two clicks on its header)
  int metric = -1;
  for (int k = 0; k < table->columnCount(); ++k)
    if (table->horizontalHeaderItem(k)->text() == "rms_position") metric = k;
  ASSERT_GE(metric, 0);
  QHeaderView* header = table->horizontalHeader();
  const QPoint on_header(header->sectionViewportPosition(metric) + header->sectionSize(metric) / 2, header->height() / 2);
  user.click(header->viewport(), on_header);
  user.click(header->viewport(), on_header);
  ASSERT_EQ(header->sortIndicatorSection(), metric);
  EXPECT_EQ(table->item(0, 0)->text().toStdString(), std::to_string(worst));

  // double click the top row: that run is in the window, paused at t = 0
  const QRect top = table->visualItemRect(table->item(0, 0));
  user.doubleClick(table->viewport(), top.center());
  ASSERT_TRUE(user.waitFor([&] { return user.window().windowTitle().contains("run " + QString::number(worst)); }))
      << user.window().windowTitle().toStdString();
  EXPECT_TRUE(user.window().windowTitle().contains("looping", Qt::CaseInsensitive));
  const QString said = user.transientMessage();
  EXPECT_TRUE(said.contains(QString("Run %1").arg(worst))) << said.toStdString();
  EXPECT_TRUE(said.contains("controller.pole = ")) << said.toStdString();
  EXPECT_EQ(user.shownTime(), 0.0);

  // play it to the study's end (2 s, not the scene's 10 s): the window's samples give the row's metric
  user.click(user.window().findChild<QWidget*>("run.play"));
  ASSERT_TRUE(user.waitFor([&] { return user.rateText() == "paused at the end"; })) << user.rateText().toStdString();
  EXPECT_DOUBLE_EQ(user.shownTime(), 2.0);
  user.window().plotTick();  // the last samples into the run log, as the plot timer does
  const double shown = rmsInWindow(user.window(), "error.position", 0.5, 2.0);
  EXPECT_NEAR(shown, s.outcomes[worst].metrics[0], 1e-12 * s.outcomes[worst].metrics[0])
      << "the window's run is not the study's run " << worst;

  // another run with Return on a selected row; Reload keeps the study's settings
  const QRect second = table->visualItemRect(table->item(1, 0));
  const long second_run = table->item(1, 0)->text().toLong();
  user.click(table->viewport(), second.center());
  EXPECT_TRUE(load->isEnabled());
  ASSERT_EQ(user.focusedDialog<StudyResultsDialog>(), dialog);  // the window manager's focus after the click
  QSignalSpy loads(dialog, &StudyResultsDialog::loadRequested);
  user.key(Qt::Key_Return);
  EXPECT_EQ(loads.count(), 1);  // once, not by the table's activation and the default button both
  ASSERT_TRUE(user.waitFor([&] { return user.window().windowTitle().contains("run " + QString::number(second_run)); }))
      << user.window().windowTitle().toStdString();
  user.click(dialog->findChild<QPushButton*>("study.close"));
  ASSERT_TRUE(user.waitFor([&] { return user.visible<StudyResultsDialog>() == nullptr; }));
  user.click(user.view());
  user.key(Qt::Key_F5);
  ASSERT_TRUE(user.waitFor([&] { return user.transientMessage().startsWith("Reloaded"); }));
  user.click(user.window().findChild<QWidget*>("run.play"));
  ASSERT_TRUE(user.waitFor([&] { return user.rateText() == "paused at the end"; })) << user.rateText().toStdString();
  EXPECT_DOUBLE_EQ(user.shownTime(), 2.0);  // still the study's t_end
  user.window().plotTick();
  EXPECT_NEAR(rmsInWindow(user.window(), "error.position", 0.5, 2.0), s.outcomes[static_cast<std::size_t>(second_run)].metrics[0],
              1e-12 * s.outcomes[static_cast<std::size_t>(second_run)].metrics[0]);
}

TEST(UserStudy, AStudyFileElsewhereIsAskedForAndAWrongOneRefused) {
  SmallStudy s;
  const fs::path elsewhere = s.elsewhere = fs::temp_directory_path() / ("rbs_ui_study_elsewhere_" + std::to_string(::getpid()));
  fs::create_directories(elsewhere);
  fs::rename(s.study_file, elsewhere / "moved.yaml");
  std::ofstream(elsewhere / "other.yaml") << "scene: x.yaml\nmetrics: []\n";

  UserSession user;
  // a wrong study file: refused with both hashes
  user.answerFileDialog(s.results);
  user.answerFileDialog(elsewhere / "other.yaml");
  user.menu("File", "Open study results");
  const QString text = errorShown(user);
  EXPECT_TRUE(text.contains("not the study file that wrote results.csv")) << text.toStdString();
  EXPECT_EQ(user.visible<StudyResultsDialog>(), nullptr);
  // the moved one: accepted, and its runs load; the scene edited since the results: said
  std::ofstream(s.scene_file, std::ios::app) << "# edited after the study\n";
  user.answerFileDialog(s.results);
  user.answerFileDialog(elsewhere / "moved.yaml");
  user.menu("File", "Open study results");
  StudyResultsDialog* dialog = nullptr;
  ASSERT_TRUE(user.waitFor([&] { return (dialog = user.visible<StudyResultsDialog>()) != nullptr; }, 20000));
  const QString summary = dialog->findChild<QLabel*>("study.summary")->text();
  EXPECT_TRUE(summary.contains("moved.yaml")) << summary.toStdString();
  EXPECT_TRUE(summary.contains("The scene file changed after these results were computed")) << summary.toStdString();
  auto* table = dialog->findChild<QTableWidget*>("study.table");
  user.doubleClick(table->viewport(), table->visualItemRect(table->item(0, 0)).center());
  ASSERT_TRUE(user.waitFor([&] { return user.window().windowTitle().contains("run 0"); })) << user.window().windowTitle().toStdString();
  user.click(dialog->findChild<QPushButton*>("study.close"));
  ASSERT_TRUE(user.waitFor([&] { return user.visible<StudyResultsDialog>() == nullptr; }));

  // the scene gone: said in the summary, and a run's load says which file is missing; the run shown stays
  fs::rename(s.scene_file, s.dir / "gone.yaml");
  user.answerFileDialog(s.results);
  user.answerFileDialog(elsewhere / "moved.yaml");  // asked again: a session that is not persistent remembers no place
  user.menu("File", "Open study results");
  ASSERT_TRUE(user.waitFor([&] { return (dialog = user.visible<StudyResultsDialog>()) != nullptr; }, 20000));
  EXPECT_TRUE(dialog->findChild<QLabel*>("study.summary")->text().contains("The scene file is not there"));
  table = dialog->findChild<QTableWidget*>("study.table");
  user.doubleClick(table->viewport(), table->visualItemRect(table->item(1, 0)).center());
  const QString missing = errorShown(user);
  EXPECT_TRUE(missing.contains(QString::fromStdString(s.scene_file.filename().string()))) << missing.toStdString();
  EXPECT_TRUE(user.window().windowTitle().contains("run 0")) << user.window().windowTitle().toStdString();
}

TEST(UserStudy, NotAStudysResultsIsSaidWithTheFileAndLine) {
  const fs::path file = fs::temp_directory_path() / ("rbs_ui_not_results_" + std::to_string(::getpid()) + ".csv");
  std::ofstream(file) << "t,x\n0,1\n";
  UserSession user;
  user.openLibraryScene("double_pendulum");
  ASSERT_TRUE(user.waitFor([&] { return user.window().windowTitle().contains("ouble"); }));
  user.answerFileDialog(file);
  user.menu("File", "Open study results");
  const QString text = errorShown(user);
  EXPECT_TRUE(text.contains(QString::fromStdString(file.string()) + ":1: not a study's results: no column 'run'")) << text.toStdString();
  EXPECT_TRUE(user.window().windowTitle().contains("ouble"));  // the scene stays
  fs::remove(file);
}

}  // namespace
}  // namespace rbs::ui
