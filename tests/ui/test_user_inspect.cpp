// Inspecting a body and finding channels, the way a person does (input events only): a double
// click on the quadcopter shows its state in the Inspect panel — pose, velocities, its free
// joint's own coordinates (position and rotation matrix) beside the reference — updating while
// the run goes on; one click on a row's Plot button puts the value and its reference on the
// Custom plot; the plots' channel list is grouped by body and kind (issue 19 items 2 and 4).
#include <QDockWidget>
#include <QScrollArea>
#include <QRegularExpression>
#include <QStandardItemModel>
#include <QToolButton>
#include <gtest/gtest.h>
#include <qcustomplot.h>

#include "ui/inspect_panel.h"
#include "ui/plot_panel.h"
#include "user_session.h"

namespace rbs::ui {
namespace {

using test::UserSession;

/// Row of `channel` in the panel, −1 if it is not shown.
int rowOf(const InspectPanel* panel, const std::string& channel) {
  for (int r = 0; r < panel->rowCount(); ++r)
    if (panel->rowChannel(r) == channel) return r;
  return -1;
}

/// The newest sample of `channel` in the window's run log.
double newest(UserSession& user, const std::string& channel) {
  const RunLog& log = user.window().runLog();
  return log.values.back()[log.channels.find(channel)];
}

TEST(UserInspect, ADoubleClickedBodyShowsItsStateLiveAndPlotsItInOneClick) {
  UserSession user;
  user.openLibraryScene("quadcopter_looping");
  ASSERT_TRUE(user.waitFor([&] { return user.window().windowTitle().contains("looping", Qt::CaseInsensitive); }));
  InspectPanel* panel = user.window().inspector();
  EXPECT_EQ(panel->rowCount(), 0) << "nothing selected yet";
  EXPECT_TRUE(user.find<QLabel>("inspect.title")->text().contains("Double-click a body"));
  user.typeInto(user.find<QLineEdit>("run.until"), "2");
  ASSERT_TRUE(user.waitFor([&] { return user.shownTime() == 2.0 && user.rateText() == "paused"; }));

  View3D* view = user.view();
  user.click(view);
  QTest::mouseDClick(view, Qt::LeftButton, {}, user.bodyOnScreen(0));
  ASSERT_TRUE(user.waitFor([&] { return view->selectedBody() == 0; }));
  EXPECT_TRUE(user.waitFor([&] { return panel->isVisible(); })) << "selecting raises the Inspect tab";
  EXPECT_TRUE(user.find<QLabel>("inspect.title")->text().contains("flight")) << "names the joint that moves it";
  // every quantity of the body (pose, velocities) and of its free joint (r, R column-stacked; body
  // twist), each with the value of the newest sample and the reference the controller tracks there
  for (const char* c : {"body.base.px", "body.base.qw", "body.base.vx", "body.base.wz", "joint.flight.x",
                        "joint.flight.R11", "joint.flight.R23", "joint.flight.vx", "joint.flight.wz"}) {
    const int r = rowOf(panel, c);
    ASSERT_GE(r, 0) << c;
    EXPECT_EQ(panel->valueText(r), QString::number(newest(user, c), 'g', 6)) << c;
    EXPECT_EQ(panel->referenceText(r), QString::number(newest(user, std::string("reference.") + c), 'g', 6)) << c;
  }
  EXPECT_EQ(panel->rowCount(), 13 + 18);
  const int pz = rowOf(panel, "body.base.pz");
  const QString at_2s = panel->valueText(pz);

  // one click: the value and its reference on the Custom plot, which scrolls into sight
  user.click(user.find<QToolButton>("inspect.plot.body.base.pz"));
  PlotPanel* plots = user.window().plots();
  const int custom = plots->plotCount() - 1;
  ASSERT_EQ(plots->title(custom), "Custom");
  ASSERT_EQ(plots->curveCount(custom), 2);
  EXPECT_EQ(plots->plot(custom)->graph(0)->name(), "body.base.pz [m]");
  EXPECT_EQ(plots->plot(custom)->graph(1)->name(), "reference.body.base.pz [m]");
  // scrolled into sight: the plot's middle is inside the scroll area's viewport
  auto* area = user.window().findChild<PlotPanel*>()->findChild<QScrollArea*>();
  ASSERT_NE(area, nullptr);
  EXPECT_TRUE(user.waitFor([&] {
    const QPoint middle = plots->plot(custom)->mapTo(area->viewport(), plots->plot(custom)->rect().center());
    return area->viewport()->rect().contains(middle);
  })) << "the new Custom plot is out of sight";
  EXPECT_TRUE(user.transientMessage().contains("reference.body.base.pz")) << user.transientMessage().toStdString();
  user.click(user.find<QToolButton>("inspect.plot.body.base.pz"));
  EXPECT_EQ(plots->curveCount(custom), 2) << "a second click adds nothing twice";

  // live: the numbers follow the run
  user.typeInto(user.find<QLineEdit>("run.until"), "2.5");
  ASSERT_TRUE(user.waitFor([&] { return user.shownTime() == 2.5 && user.rateText() == "paused"; }));
  const RunLog& log = user.window().runLog();
  ASSERT_TRUE(user.waitFor([&] {  // the plot timer brings the samples up to 2.5 s, then the panel shows the newest
    return !log.time.empty() && log.time.back() > 2.5 - 1e-9 &&
           panel->valueText(pz) == QString::number(newest(user, "body.base.pz"), 'g', 6);
  }));
  EXPECT_NE(panel->valueText(pz), at_2s);
  EXPECT_GT(plots->plot(custom)->graph(0)->dataCount(), 400);

  // Esc clears the selection and the panel
  user.click(view);
  user.key(Qt::Key_Escape);
  EXPECT_EQ(view->selectedBody(), -1);
  EXPECT_EQ(panel->rowCount(), 0);
}

TEST(UserInspect, ThePlotsChannelListIsGroupedByBodyAndKind) {
  UserSession user;
  user.openLibraryScene("tricopter_load_transport");
  ASSERT_TRUE(user.waitFor([&] { return user.window().windowTitle().contains("load, controlled", Qt::CaseInsensitive); }));
  auto* box = user.find<QComboBox>("plots.channel");
  auto* model = qobject_cast<QStandardItemModel*>(box->model());
  ASSERT_NE(model, nullptr);
  // headings: bold, not choosable; every channel of the run once, under one heading
  QStringList headings;
  int channels = 0;
  for (int i = 0; i < model->rowCount(); ++i) {
    const QStandardItem* item = model->item(i);
    if (item->data(Qt::UserRole).isValid()) {
      ++channels;
      EXPECT_TRUE(item->flags() & Qt::ItemIsSelectable);
      EXPECT_FALSE(item->toolTip().isEmpty()) << item->text().toStdString();
    } else {
      headings << item->text();
      EXPECT_FALSE(item->flags() & Qt::ItemIsSelectable) << item->text().toStdString();
    }
  }
  EXPECT_EQ(channels, user.window().runLog().channels.size());
  ASSERT_GE(headings.size(), 6) << headings.join(" | ").toStdString();
  EXPECT_TRUE(headings.front().startsWith("Body ")) << headings.front().toStdString();
  EXPECT_TRUE(headings.contains("Inputs")) << headings.join(" | ").toStdString();
  EXPECT_TRUE(headings.contains("Tracking errors")) << headings.join(" | ").toStdString();
  EXPECT_TRUE(headings.contains("Energies and powers")) << headings.join(" | ").toStdString();
  // a body's group holds its velocities, its joint and the reference of both
  const int load = headings.indexOf(QRegularExpression("^Body load: joint .*"));
  ASSERT_GE(load, 0) << headings.join(" | ").toStdString();

  // choosing a heading picks no channel; choosing a velocity and Add puts it on the Custom plot
  PlotPanel* plots = user.window().plots();
  const int before = plots->plotCount();
  const QString chosen = box->currentData().toString();
  user.click(box);
  QAbstractItemView* list = box->view();
  ASSERT_TRUE(user.waitFor([&] { return list->isVisible(); }));
  const QModelIndex heading = list->model()->index(box->findText(headings[load]), 0);
  list->scrollTo(heading);
  user.click(list->viewport(), list->visualRect(heading).center());
  if (list->isVisible()) user.key(Qt::Key_Escape);  // (the style may keep it open or close it)
  ASSERT_TRUE(user.waitFor([&] { return !list->isVisible(); }));
  EXPECT_EQ(box->currentData().toString(), chosen) << "a heading is not a choice";
  // the keyboard steps over headings: Down from a group's last channel lands on the next group's first
  const int last_of_first_group = box->findText(headings[1]) - 1;
  box->setCurrentIndex(last_of_first_group);
  QTest::keyClick(box, Qt::Key_Down);
  EXPECT_EQ(box->currentIndex(), last_of_first_group + 2) << "landed on a heading";
  EXPECT_TRUE(box->currentData().isValid());
  user.choose(box, "    body.load.vz");
  EXPECT_EQ(box->currentData().toString(), "body.load.vz");
  user.click(user.find<QPushButton>("plots.add"));
  ASSERT_EQ(plots->plotCount(), before + 1);
  EXPECT_EQ(plots->curveCount(before), 1);
  EXPECT_EQ(plots->plot(before)->graph(0)->name(), "body.load.vz [m/s]");
}

}  // namespace
}  // namespace rbs::ui
