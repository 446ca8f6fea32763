// Reading the plots with the mouse, the way a person does (input events only): the wheel zooms and
// a drag pans a plot, which then stays put while the run goes on; a double click sends it back to
// scrolling; the context menu removes a curve and fits the plot to its data; the legend never
// covers the curves (issue 19 item 4). And the fit's arithmetic on data with non-finite values and
// outliers, on the panel itself.
#include <QDoubleSpinBox>
#include <QScrollArea>
#include <QScrollBar>
#include <gtest/gtest.h>
#include <qcustomplot.h>

#include <cmath>
#include <limits>

#include "ui/plot_panel.h"
#include "user_session.h"

namespace rbs::ui {
namespace {

using test::UserSession;

/// Entries in the legend (its grid counts empty cells too).
int legendEntries(QCustomPlot* plot) {
  int n = 0;
  for (int i = 0; i < plot->legend->elementCount(); ++i) n += plot->legend->elementAt(i) != nullptr;
  return n;
}

/// Right-clicks `plot` at `at` and chooses the context-menu entry that starts with `entry`.
void contextMenu(UserSession& user, QWidget* plot, QPoint at, const QString& entry) {
  QTest::mouseClick(plot, Qt::RightButton, {}, at);
  QMenu* menu = nullptr;
  ASSERT_TRUE(user.waitFor([&] {
    menu = qobject_cast<QMenu*>(QApplication::activePopupWidget());
    return menu && menu->isVisible();
  }, 5000)) << "no context menu";
  QAction* item = nullptr;
  for (QAction* a : menu->actions())
    if (a->text().startsWith(entry)) item = a;
  ASSERT_NE(item, nullptr) << "no entry " << entry.toStdString();
  ASSERT_TRUE(item->isEnabled()) << entry.toStdString();
  user.click(menu, menu->actionGeometry(item).center());
}

TEST(UserPlots, WheelAndDragHoldAPlotDoubleClickScrollsAgainAndTheMenuRemovesAndFits) {
  UserSession user;
  user.openLibraryScene("double_pendulum");
  ASSERT_TRUE(user.waitFor([&] { return user.window().windowTitle().contains("ouble"); }));
  auto* window_box = user.find<QDoubleSpinBox>("plots.window");
  user.typeInto(window_box->findChild<QLineEdit*>(), "1");
  ASSERT_EQ(window_box->value(), 1.0);
  user.typeInto(user.find<QLineEdit>("run.until"), "2");
  ASSERT_TRUE(user.waitFor([&] { return user.shownTime() == 2.0 && user.rateText() == "paused"; }));
  auto* plot = user.find<QCustomPlot>("plot.Energies");
  ASSERT_NE(plot, nullptr);
  PlotPanel* panel = user.window().findChild<PlotPanel*>();
  const int index = 1;  // Elbow position, Energies
  ASSERT_EQ(panel->title(index), "Energies");
  ASSERT_TRUE(user.waitFor([&] { return std::abs(plot->xAxis->range().upper - 2.0) < 1e-9; }));

  // the legend sits below the axes: it covers no curve
  EXPECT_FALSE(plot->legend->outerRect().intersects(plot->axisRect()->rect()));
  const int curves = panel->curveCount(index);
  ASSERT_GE(curves, 2);
  EXPECT_EQ(legendEntries(plot), curves);

  // the wheel zooms in: the plot holds its time range while the run goes on
  const QPoint centre = plot->axisRect()->rect().center();
  QTest::mouseMove(plot, centre);
  QWheelEvent wheel(QPointF(centre), QPointF(plot->mapToGlobal(centre)), {}, QPoint(0, 120), Qt::NoButton, {},
                    Qt::NoScrollPhase, false);
  QApplication::sendEvent(plot, &wheel);
  EXPECT_FALSE(panel->autoScrolls(index));
  const QCPRange zoomed = plot->xAxis->range();
  EXPECT_LT(zoomed.size(), 0.99);
  // a drag pans it
  QTest::mousePress(plot, Qt::LeftButton, {}, centre);
  for (int i = 1; i <= 5; ++i) QTest::mouseMove(plot, centre + QPoint(10 * i, 0));
  QTest::mouseRelease(plot, Qt::LeftButton, {}, centre + QPoint(50, 0));
  const QCPRange panned = plot->xAxis->range();
  EXPECT_LT(panned.upper, zoomed.upper - 1e-6) << "dragging right shows earlier times";
  user.typeInto(user.find<QLineEdit>("run.until"), "3");
  ASSERT_TRUE(user.waitFor([&] { return user.shownTime() == 3.0 && user.rateText() == "paused"; }));
  QTest::qWait(200);  // a few plot refreshes
  EXPECT_DOUBLE_EQ(plot->xAxis->range().upper, panned.upper) << "a held plot does not scroll";
  // the other plot scrolled on
  EXPECT_NEAR(panel->plot(0)->xAxis->range().upper, 3.0, 1e-9);

  // double click: back to scrolling with the run
  QTest::mouseDClick(plot, Qt::LeftButton, {}, centre);
  EXPECT_TRUE(panel->autoScrolls(index));
  EXPECT_NEAR(plot->xAxis->range().upper, 3.0, 1e-9);

  // the menu removes a curve, and fits the plot to all its data
  contextMenu(user, plot, centre, "Remove energy.kinetic");
  ASSERT_TRUE(user.waitFor([&] { return panel->curveCount(index) == curves - 1; }));
  EXPECT_EQ(legendEntries(plot), curves - 1);
  for (int g = 0; g < plot->graphCount(); ++g) EXPECT_NE(plot->graph(g)->name().toStdString().rfind("energy.kinetic", 0), 0u);
  contextMenu(user, plot, centre, "Fit to data");
  ASSERT_TRUE(user.waitFor([&] { return !panel->autoScrolls(index); }));
  EXPECT_NEAR(plot->xAxis->range().lower, 0.0, 1e-9);
  EXPECT_NEAR(plot->xAxis->range().upper, 3.0, 1e-9);
}

// Plots with long channel names in a column that needs a vertical scroll bar (issue 49: the x
// axis' end, titles and legends were cut on the right behind a horizontal scroll bar): every plot
// lies within the visible column, its whole axis and legend inside it.
TEST(UserPlots, PlotsFitTheColumnWithLongNamesAndAScrollBar) {
  UserSession user;
  user.openLibraryScene("bicopter_servos");
  ASSERT_TRUE(user.waitFor([&] { return user.window().windowTitle().contains("servos"); }));
  auto* plot = user.find<QCustomPlot>("plot.Tilt commanded and reached");
  ASSERT_NE(plot, nullptr);
  QScrollArea* area = nullptr;
  for (QWidget* w = plot->parentWidget(); w && !area; w = w->parentWidget()) area = qobject_cast<QScrollArea*>(w);
  ASSERT_NE(area, nullptr);
  ASSERT_TRUE(user.waitFor([&] { return area->verticalScrollBar()->isVisible(); })) << "the column should scroll";
  EXPECT_FALSE(area->horizontalScrollBar()->isVisible());
  for (QCustomPlot* each : area->widget()->findChildren<QCustomPlot*>()) {
    SCOPED_TRACE(each->objectName().toStdString());
    const QRect shown(each->mapTo(area->viewport(), QPoint(0, 0)), each->size());
    EXPECT_LE(shown.right(), area->viewport()->width());
    each->replot();
    EXPECT_LE(each->legend->outerRect().right(), each->width());
    EXPECT_LE(each->axisRect()->outerRect().right(), each->width());
  }
}

TEST(PlotPanel, FitToDataIgnoresNonFiniteValuesAndClipsOutliersWhenAsked) {
  // 1000 samples of sin t with a NaN, an infinity and one spike of 1e6
  RunLog log;
  log.channels.add("signal", "m", "a test signal");
  for (int k = 0; k < 1000; ++k) {
    log.time.push_back(0.01 * k);
    double v = std::sin(0.01 * k);
    if (k == 100) v = std::numeric_limits<double>::quiet_NaN();
    if (k == 200) v = std::numeric_limits<double>::infinity();
    if (k == 300) v = 1e6;
    log.values.push_back({v});
  }
  PlotPanel panel;
  panel.setup(&log, {PlotGroup{"Signal", {"signal"}}}, Model{});
  panel.refresh();
  QCustomPlot* plot = panel.plot(0);
  panel.fitToData(0, false);
  EXPECT_FALSE(panel.autoScrolls(0));
  EXPECT_DOUBLE_EQ(plot->xAxis->range().lower, 0.0);
  EXPECT_DOUBLE_EQ(plot->xAxis->range().upper, 9.99);
  EXPECT_GT(plot->yAxis->range().upper, 1e6);  // the spike is data: shown
  EXPECT_TRUE(std::isfinite(plot->yAxis->range().upper));
  panel.fitToData(0, true);
  EXPECT_LT(plot->yAxis->range().upper, 1.2);  // clipped: the sine fills the plot
  EXPECT_GT(plot->yAxis->range().upper, 0.9);
  EXPECT_LT(plot->yAxis->range().lower, -0.4);  // sin over [0, 10] reaches −1
  panel.resumeScrolling(0);
  EXPECT_TRUE(panel.autoScrolls(0));
  panel.removeCurve(0, 0);
  EXPECT_EQ(panel.curveCount(0), 0);
  panel.fitToData(0, true);  // no curves: nothing to fit, no crash
}

}  // namespace
}  // namespace rbs::ui
