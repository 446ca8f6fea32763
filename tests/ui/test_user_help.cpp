// The Help menu and the tooltips, used the way a person does (input events only): F1 lists every
// shortcut the menus have and the 3D view's mouse gestures, About names the version and every
// library with its license, and every control says what it does when the mouse rests on it.
#include <QAbstractSlider>
#include <QAbstractSpinBox>
#include <QDialog>
#include <QRegularExpression>
#include <QScrollBar>
#include <QTabBar>
#include <QTableWidget>
#include <gtest/gtest.h>

#include "user_session.h"

namespace rbs::ui {
namespace {

using test::UserSession;

QString plain(QString text) {
  text.remove('&');
  return text;
}

/// The menus of the window's menu bar.
QList<QMenu*> menus(MainWindow& window) {
  QList<QMenu*> out;
  for (QAction* a : window.findChild<QMenuBar*>()->actions())
    if (a->menu()) out.push_back(a->menu());
  return out;
}

TEST(UserHelp, F1ListsEveryShortcutOfTheMenusAndTheMouseGestures) {
  UserSession user;
  user.openLibraryScene("double_pendulum");
  user.key(Qt::Key_F1);
  QDialog* dialog = nullptr;
  ASSERT_TRUE(user.waitFor([&] {
    dialog = user.window().findChild<QDialog*>("help.shortcuts");
    return dialog && dialog->isVisible();
  }));
  auto* table = dialog->findChild<QTableWidget*>("help.shortcuts.table");
  ASSERT_NE(table, nullptr);
  QStringList rows;
  for (int r = 0; r < table->rowCount(); ++r) rows << table->item(r, 0)->text() + " | " + table->item(r, 1)->text();
  const QString all = rows.join("\n");
  // every shortcut of every menu, with what it does
  int shortcuts = 0;
  for (QMenu* menu : menus(user.window()))
    for (QAction* a : menu->actions())
      for (const QKeySequence& key : a->shortcuts()) {
        ++shortcuts;
        EXPECT_TRUE(rows.contains(key.toString(QKeySequence::NativeText) + " | " + plain(a->text())))
            << key.toString().toStdString() << " " << plain(a->text()).toStdString() << " missing in\n"
            << all.toStdString();
      }
  EXPECT_GE(shortcuts, 7);  // Ctrl+O, F5, Space, P, S, R, F1 (and Quit where the platform has a key for it)
  for (const char* expected : {"F1 | Keyboard shortcuts and mouse", "Space | Play / pause", "F5 | Reload from disk"})
    EXPECT_TRUE(rows.contains(expected)) << expected;
  EXPECT_TRUE(all.contains("left drag | orbit")) << all.toStdString();
  EXPECT_TRUE(all.contains("wheel | zoom")) << all.toStdString();
  EXPECT_TRUE(all.contains("Shift + left drag | pan")) << all.toStdString();
  EXPECT_TRUE(all.contains("middle drag | pan")) << all.toStdString();
  // asked again (from the menu: the open list has the keyboard) it raises the same list rather
  // than opening a second one; Escape closes it
  user.menu("Help", "Keyboard shortcuts and mouse");
  QTest::qWait(100);
  EXPECT_EQ(user.window().findChildren<QDialog*>("help.shortcuts").size(), 1);
  user.key(Qt::Key_Escape);
  ASSERT_TRUE(user.waitFor([&] { return user.window().findChild<QDialog*>("help.shortcuts") == nullptr; }));
}

TEST(UserHelp, AboutNamesTheVersionAndEveryLibraryWithItsLicense) {
  UserSession user;
  user.menu("Help", "About rbsim");
  QMessageBox* box = nullptr;
  ASSERT_TRUE(user.waitFor([&] {
    box = user.window().findChild<QMessageBox*>("help.about");
    return box && box->isVisible();
  }));
  const QString text = box->text();
  for (const QString& expected :
       {QString("rbsim 0.1.0"), QString("Qt</b></td><td>") + qVersion(), QString("LGPL-3.0"), QString("OpenSceneGraph"),
        QString("QCustomPlot</b></td><td>2.1"), QString("GPL-3.0"), QString("Eigen</b></td><td>3."), QString("MPL-2.0"),
        QString("Boost"), QString("BSL-1.0"), QString("yaml-cpp</b></td><td>0."), QString("MIT"),
        QString("BSD-3-Clause"), QString("FFmpeg")})
    EXPECT_TRUE(text.contains(expected)) << "missing: " << expected.toStdString() << "\n" << text.toStdString();
  // every library with a version number (CMake found them all)
  for (const char* library : {"Qt", "OpenSceneGraph", "QCustomPlot", "Eigen", "Boost (Odeint)", "yaml-cpp", "urdfdom"})
    EXPECT_TRUE(text.contains(QRegularExpression(QString("<b>%1</b></td><td>\\d").arg(QRegularExpression::escape(library)))))
        << library << " has no version in\n" << text.toStdString();
  EXPECT_FALSE(text.contains("unknown")) << text.toStdString();  // CMake gave every version
  user.click(box->button(QMessageBox::Close));
  ASSERT_TRUE(user.waitFor([&] { return user.window().findChild<QMessageBox*>("help.about") == nullptr; }));
}

// Was: after any dialog (About, Open, the study results) Space, R and P did nothing until the user
// clicked into the window: without a window manager to hand it back (an X server without one, as
// here the offscreen platform), no window had the keyboard. The window takes it back itself.
TEST(UserHelp, TheWindowTakesTheKeyboardBackWhenADialogCloses) {
  UserSession user;
  user.openLibraryScene("double_pendulum");
  ASSERT_TRUE(user.waitFor([&] { return user.window().windowTitle().contains("ouble"); }));
  user.menu("Help", "About rbsim");
  QMessageBox* box = nullptr;
  ASSERT_TRUE(user.waitFor([&] {
    box = user.window().findChild<QMessageBox*>("help.about");
    return box && box->isVisible();
  }));
  user.click(box->button(QMessageBox::Close));
  // by itself, before any key: the harness would otherwise play the window manager
  EXPECT_TRUE(QTest::qWaitFor([&] { return QApplication::activeWindow() == &user.window(); }, 3000));
  user.key(Qt::Key_Space);
  EXPECT_TRUE(user.waitFor([&] { return user.shownTime() > 0.05; })) << "Space did not play";
}

TEST(UserHelp, EveryControlAndMenuEntrySaysWhatItDoes) {
  UserSession user;
  user.openLibraryScene("quadcopter_looping");  // a scene with gains: sliders, fields, reset buttons
  ASSERT_TRUE(user.waitFor([&] { return user.window().windowTitle().contains("oop"); }));
  int checked = 0;
  for (QWidget* w : user.window().findChildren<QWidget*>()) {
    const bool control = qobject_cast<QAbstractButton*>(w) || qobject_cast<QComboBox*>(w) ||
                         qobject_cast<QAbstractSpinBox*>(w) || qobject_cast<QAbstractItemView*>(w) ||
                         (qobject_cast<QAbstractSlider*>(w) && !qobject_cast<QScrollBar*>(w)) ||
                         (qobject_cast<QLineEdit*>(w) && !qobject_cast<QAbstractSpinBox*>(w->parentWidget()) &&
                          !qobject_cast<QComboBox*>(w->parentWidget()));
    // Qt's own parts: a dock's float and close buttons, a combo box's popup list, a tab bar's
    // scroll arrows
    const QString cls = w->metaObject()->className();
    if (!control || cls.startsWith("QDockWidget") || w->objectName().startsWith("qt_") ||
        qobject_cast<QComboBox*>(w->parentWidget()) || qobject_cast<QTabBar*>(w->parentWidget()) ||
        w->window() != &user.window())
      continue;
    ++checked;
    EXPECT_FALSE(w->toolTip().trimmed().isEmpty())
        << cls.toStdString() << " '" << w->objectName().toStdString() << "' has no tooltip";
  }
  EXPECT_GE(checked, 25);  // run buttons and boxes, gains, plots, scenes
  for (QMenu* menu : menus(user.window())) {
    EXPECT_TRUE(menu->toolTipsVisible()) << plain(menu->title()).toStdString();
    for (QAction* a : menu->actions()) {
      if (a->isSeparator()) continue;
      // an action without its own tooltip shows its text: that says nothing more
      EXPECT_NE(a->toolTip(), plain(a->text())) << plain(a->text()).toStdString() << " has no tooltip of its own";
    }
  }
}

}  // namespace
}  // namespace rbs::ui
