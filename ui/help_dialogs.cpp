#include "ui/help_dialogs.h"

#include <algorithm>

#include <osg/Version>

#include <Eigen/Core>
#include <QAction>
#include <QDialog>
#include <QDialogButtonBox>
#include <QGuiApplication>
#include <QHeaderView>
#include <QLabel>
#include <QMenu>
#include <QScreen>
#include <QStandardPaths>
#include <QTableWidget>
#include <QVBoxLayout>
#include <boost/version.hpp>
#include <qcustomplot.h>

// The project and library versions CMake knows (ui/CMakeLists.txt, this file only).
#ifndef RBS_VERSION
#define RBS_VERSION "unknown"
#endif
#ifndef RBS_YAML_CPP_VERSION
#define RBS_YAML_CPP_VERSION "unknown"
#endif
#ifndef RBS_URDFDOM_VERSION
#define RBS_URDFDOM_VERSION "unknown"
#endif

namespace rbs::ui {
namespace {

/// "&Open…" → "Open…".
QString plainText(const QAction* action) {
  QString text = action->text();
  text.remove('&');
  return text;
}

void addRow(QTableWidget* table, const QString& key, const QString& what, const QString& where) {
  const int row = table->rowCount();
  table->insertRow(row);
  table->setItem(row, 0, new QTableWidgetItem(key));
  table->setItem(row, 1, new QTableWidgetItem(what));
  table->setItem(row, 2, new QTableWidgetItem(where));
}

}  // namespace

QDialog* makeShortcutsDialog(QWidget* parent, const QList<QMenu*>& menus) {
  auto* dialog = new QDialog(parent);
  dialog->setObjectName("help.shortcuts");
  dialog->setWindowTitle(QObject::tr("Keyboard shortcuts and mouse"));
  dialog->setAttribute(Qt::WA_DeleteOnClose);
  auto* table = new QTableWidget(0, 3, dialog);
  table->setObjectName("help.shortcuts.table");
  table->setHorizontalHeaderLabels({QObject::tr("Key or gesture"), QObject::tr("Does"), QObject::tr("Where")});
  table->setEditTriggers(QAbstractItemView::NoEditTriggers);
  table->verticalHeader()->hide();
  for (const QMenu* menu : menus) {
    QString where = menu->title();
    where.remove('&');
    for (const QAction* action : menu->actions())
      for (const QKeySequence& key : action->shortcuts())
        addRow(table, key.toString(QKeySequence::NativeText), plainText(action), QObject::tr("menu %1").arg(where));
  }
  const QString view = QObject::tr("3D view");
  addRow(table, QObject::tr("left drag"), QObject::tr("orbit the camera about its target"), view);
  addRow(table, QObject::tr("Shift + left drag"), QObject::tr("pan (move the camera's target with the picture)"), view);
  addRow(table, QObject::tr("middle drag"), QObject::tr("pan (move the camera's target with the picture)"), view);
  addRow(table, QObject::tr("wheel"), QObject::tr("zoom (move the camera closer or farther)"), view);
  addRow(table, QObject::tr("double click on a body, Ctrl + click"),
         QObject::tr("select the body (outlined; its state in the Inspect panel; the follow camera follows it)"), view);
  addRow(table, QObject::tr("double click elsewhere"), QObject::tr("clear the selection, back to the scene's camera"), view);
  addRow(table, QObject::tr("Ctrl + right drag"),
         QObject::tr("pull the body under the cursor with a spring towards the cursor, while the button is held"), view);
  addRow(table, QObject::tr("Ctrl + left drag"),
         QObject::tr("turn the body under the cursor with a torsion spring (a vehicle's for 1 s after the grab)"),
         view);
  addRow(table, QObject::tr("Shift while pulling or turning"),
         QObject::tr("push harder than the body's weight and largest control torque (up to four times), and turn a "
                     "vehicle for as long as the button is held"),
         view);
  addRow(table, QObject::tr("Esc"), QObject::tr("clear the selection (and let go of a pushed body)"), view);
  table->resizeColumnsToContents();
  table->horizontalHeader()->setStretchLastSection(true);
  auto* buttons = new QDialogButtonBox(QDialogButtonBox::Close, dialog);
  QObject::connect(buttons, &QDialogButtonBox::rejected, dialog, &QDialog::close);
  auto* layout = new QVBoxLayout(dialog);
  layout->addWidget(table);
  layout->addWidget(buttons);
  // Every row and the whole of each column at once where the screen has the room (the list was
  // cut at 780 × 560 and needed both scroll bars); a smaller screen scrolls.
  int width = 2 * table->frameWidth() + 8, height = 2 * table->frameWidth() + table->horizontalHeader()->height() + 8;
  for (int c = 0; c < table->columnCount(); ++c) width += table->columnWidth(c);
  for (int r = 0; r < table->rowCount(); ++r) height += table->rowHeight(r);
  const QMargins margins = layout->contentsMargins();
  width += margins.left() + margins.right();
  height += margins.top() + margins.bottom() + layout->spacing() + buttons->sizeHint().height();
  const QScreen* screen = parent && parent->screen() ? parent->screen() : QGuiApplication::primaryScreen();
  const QSize room = screen ? screen->availableGeometry().size() * 0.9 : QSize(1200, 900);
  dialog->resize(std::min(width, room.width()), std::min(height, room.height()));
  return dialog;
}

QString aboutText() {
  const QString ffmpeg = QStandardPaths::findExecutable("ffmpeg");
  struct Library {
    QString name, version, license, use;
  };
  const QString boost = QString(BOOST_LIB_VERSION).replace('_', '.');
  const QList<Library> libraries = {
      {"Qt", qVersion(), "LGPL-3.0", QObject::tr("the window (Widgets, PrintSupport)")},
      {"OpenSceneGraph", osgGetVersion(), "OpenSceneGraph Public License (LGPL-2.1 with exceptions)",
       QObject::tr("the 3D view, screenshots and videos; mesh files through osgDB")},
      {"QCustomPlot",
       QString("%1.%2.%3").arg(QCUSTOMPLOT_VERSION >> 16).arg((QCUSTOMPLOT_VERSION >> 8) & 0xff).arg(QCUSTOMPLOT_VERSION & 0xff),
       "GPL-3.0", QObject::tr("the plots and their PNG/PDF export")},
      {"Eigen",
       QString("%1.%2.%3").arg(EIGEN_WORLD_VERSION).arg(EIGEN_MAJOR_VERSION).arg(EIGEN_MINOR_VERSION),
       "MPL-2.0", QObject::tr("linear algebra")},
      {"Boost (Odeint)", boost, "BSL-1.0", QObject::tr("the integrators")},
      {"yaml-cpp", RBS_YAML_CPP_VERSION, "MIT", QObject::tr("scene files")},
      {"urdfdom", RBS_URDFDOM_VERSION, "BSD-3-Clause", QObject::tr("robot (URDF) files")},
      {"FFmpeg", ffmpeg.isEmpty() ? QObject::tr("not found") : QObject::tr("program %1").arg(ffmpeg),
       "LGPL-2.1+ / GPL-2+ (as built by the distribution)", QObject::tr("video encoding, run as a separate program")},
  };
  QString rows;
  for (const Library& l : libraries)
    rows += QString("<tr><td><b>%1</b></td><td>%2</td><td>%3</td><td>%4</td></tr>")
                .arg(l.name.toHtmlEscaped(), l.version.toHtmlEscaped(), l.license.toHtmlEscaped(), l.use.toHtmlEscaped());
  return QObject::tr("<h3>rbsim %1</h3>"
                     "<p>A simulator for rigid body systems: globally valid equations of motion with redundant "
                     "coordinates and energy-based tracking control (Konz), live plots, and plot and video export.</p>"
                     "<p>Built with:</p><table cellspacing=\"6\">"
                     "<tr><th align=\"left\">library</th><th align=\"left\">version</th><th align=\"left\">license</th>"
                     "<th align=\"left\">used for</th></tr>%2</table>")
      .arg(RBS_VERSION, rows);
}

}  // namespace rbs::ui
