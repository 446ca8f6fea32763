// A person at the window, for the user-level GUI tests. Every action is an input event that goes
// through the platform like a real one (QTest with QTEST_QPA_MOUSE_HANDLING: mouse events enter
// at the window and Qt routes them, double clicks and popups included; keys go to the focused
// window, through the shortcut map). Widgets are found the way a person aims at them: by their
// object names (what a person reads as their labels). Every check reads what is on screen: widget
// text and state, the status bar, the 3D view's pixels, files written. Waits are for a condition
// with a generous timeout, never for an amount of wall time, so a loaded machine is only slower.
//
// Modal dialogs (file dialogs, the video length, message boxes) run their own event loop inside
// the click that opens them; the answers are queued before that click (answerFileDialog …) and
// given by a timer as soon as the dialog is on screen.
#pragma once

#define QTEST_QPA_MOUSE_HANDLING 1

#include <deque>
#include <filesystem>
#include <functional>
#include <set>
#include <string>

#include <QAbstractButton>
#include <QAbstractItemView>
#include <QApplication>
#include <QCheckBox>
#include <QComboBox>
#include <QDialogButtonBox>
#include <QDoubleSpinBox>
#include <QFileDialog>
#include <QImage>
#include <QScrollArea>
#include <QScrollBar>
#include <QWheelEvent>
#include <QInputDialog>
#include <QLabel>
#include <QLineEdit>
#include <QListWidget>
#include <QMenu>
#include <QMenuBar>
#include <QMessageBox>
#include <QPushButton>
#include <QSlider>
#include <QStatusBar>
#include <QStyleOptionButton>
#include <QStyleOptionSlider>
#include <QTest>
#include <QTimer>
#include <QWindow>
#include <gtest/gtest.h>

#include "ui/elided_label.h"
#include "ui/main_window.h"
#include "ui/view3d.h"

namespace rbs::ui::test {

/// Long enough for the slowest library scene on a loaded 2-core machine; a pass never waits it out.
constexpr int kPatienceMs = 120000;

class UserSession {
 public:
  explicit UserSession(QSize size = {1400, 900}) {
    window_.setPersistent(false);
    window_.resize(size);
    window_.show();
    window_.activateWindow();  // what the window manager does for a newly shown window
    EXPECT_TRUE(QTest::qWaitForWindowExposed(&window_));
    EXPECT_TRUE(QTest::qWaitForWindowActive(&window_));
    dialog_timer_.setInterval(20);
    QObject::connect(&dialog_timer_, &QTimer::timeout, [this] { answerDialogs(); });
    dialog_timer_.start();
  }
  ~UserSession() { dialog_timer_.stop(); }

  MainWindow& window() { return window_; }

  /// The widget named `name` (object name); fails the test when there is none.
  template <class T>
  T* find(const QString& name) {
    T* w = window_.findChild<T*>(name);
    EXPECT_NE(w, nullptr) << "no " << T::staticMetaObject.className() << " named " << name.toStdString();
    return w;
  }

  // ---- mouse --------------------------------------------------------------------------------

  void click(QWidget* w, QPoint at = {}) {
    ASSERT_NE(w, nullptr);
    if (at.isNull()) at = w->rect().center();
    // what a person cannot see they cannot click: not hidden, not scrolled or clipped away
    ASSERT_TRUE(w->isVisible()) << w->objectName().toStdString() << " is not on screen";
    ASSERT_TRUE(w->visibleRegion().contains(at))
        << w->objectName().toStdString() << " is covered or clipped where it would be clicked";
    QTest::mouseClick(w, Qt::LeftButton, {}, at);
  }
  void click(const QString& name) { click(find<QWidget>(name)); }
  /// Clicks a check box where it reacts: its box and label, not the empty rest of its row.
  void click(QCheckBox* box) {
    ASSERT_NE(box, nullptr);
    QStyleOptionButton option;
    option.initFrom(box);
    option.text = box->text();
    click(static_cast<QWidget*>(box), box->style()->subElementRect(QStyle::SE_CheckBoxClickRect, &option, box).center());
  }
  void doubleClick(QWidget* w, QPoint at) { QTest::mouseDClick(w, Qt::LeftButton, {}, at); }
  void hover(QWidget* w, QPoint at) { QTest::mouseMove(w, at); }

  /// Where a slider's handle is drawn, in the slider's coordinates.
  static QPoint sliderHandle(QSlider* slider) {
    QStyleOptionSlider option;
    option.initFrom(slider);
    option.orientation = slider->orientation();
    option.minimum = slider->minimum();
    option.maximum = slider->maximum();
    option.sliderPosition = slider->sliderPosition();
    option.sliderValue = slider->value();
    return slider->style()->subControlRect(QStyle::CC_Slider, &option, QStyle::SC_SliderHandle, slider).center();
  }
  /// Drags the slider's handle by dx pixels.
  void dragSlider(QSlider* slider, int dx) {
    const QPoint from = sliderHandle(slider);
    const QPoint to = from + QPoint(dx, 0);
    QTest::mousePress(slider, Qt::LeftButton, {}, from);
    for (int i = 1; i <= 5; ++i) QTest::mouseMove(slider, from + QPoint(dx * i / 5, 0));
    QTest::mouseRelease(slider, Qt::LeftButton, {}, to);
  }

  /// Opens the library tab and double-clicks the scene `stem` in the list.
  void openLibraryScene(const std::string& stem) {
    showTab("Scenes");
    auto* list = find<QListWidget>("scenes.list");
    ASSERT_NE(list, nullptr);
    const auto items = list->findItems(QString::fromStdString(stem), Qt::MatchExactly);
    ASSERT_EQ(items.size(), 1) << stem;
    list->scrollToItem(items.front());
    const QRect r = list->visualItemRect(items.front());
    doubleClick(list->viewport(), r.center());
  }

  /// Clicks the tab of a tabified dock ("Scenes", "Gains").
  void showTab(const QString& title) {
    for (QTabBar* bar : window_.findChildren<QTabBar*>())
      for (int i = 0; i < bar->count(); ++i)
        if (bar->tabText(i) == title && bar->isVisible()) {
          click(bar, bar->tabRect(i).center());
          return;
        }
  }

  /// Turns the mouse wheel over the scroll area that holds `w` until `w` is in view from top to bottom (as a
  /// person scrolls down a long panel to a control below the fold).
  void scrollIntoView(QWidget* w) {
    ASSERT_NE(w, nullptr);
    QScrollArea* area = nullptr;
    for (QWidget* p = w->parentWidget(); p && !area; p = p->parentWidget()) area = qobject_cast<QScrollArea*>(p);
    ASSERT_NE(area, nullptr) << w->objectName().toStdString() << " is not in a scroll area";
    QWidget* viewport = area->viewport();
    for (int turn = 0; turn < 200; ++turn) {
      const QRect in_viewport(w->mapTo(viewport, QPoint(0, 0)), w->size());
      if (in_viewport.top() >= 0 && in_viewport.bottom() < viewport->height()) return;
      const int notches = in_viewport.top() < 0 ? 1 : -1;  // wheel up shows what lies above
      const QPoint at = viewport->rect().center();
      QWheelEvent wheel(QPointF(at), QPointF(viewport->mapToGlobal(at)), QPoint(), QPoint(0, 120 * notches),
                        Qt::NoButton, Qt::NoModifier, Qt::NoScrollPhase, false);
      QApplication::sendEvent(viewport, &wheel);
      QApplication::processEvents();
    }
    ADD_FAILURE() << "the wheel did not bring " << w->objectName().toStdString() << " into view (at "
                  << w->mapTo(viewport, QPoint(0, 0)).y() << " in a viewport of height " << viewport->height()
                  << ", scroll bar at " << area->verticalScrollBar()->value() << " of " << area->verticalScrollBar()->maximum() << ")";
  }

  /// Picks `text` in a combo box: click to open its list, click the entry.
  void choose(QComboBox* box, const QString& text) {
    ASSERT_NE(box, nullptr);
    const int index = box->findText(text);
    ASSERT_GE(index, 0) << "no entry '" << text.toStdString() << "' in " << box->objectName().toStdString();
    click(box);
    QAbstractItemView* view = box->view();
    ASSERT_TRUE(QTest::qWaitFor([&] { return view->isVisible(); }, 5000)) << "the list did not open";
    const QModelIndex item = view->model()->index(index, box->modelColumn(), view->rootIndex());
    view->scrollTo(item);
    click(view->viewport(), view->visualRect(item).center());
    EXPECT_TRUE(QTest::qWaitFor([&] { return !view->isVisible(); }, 5000));
  }

  /// The menu bar's `menu` (its title without &), then its entry `entry` (text without & and …).
  void menu(const QString& menu, const QString& entry) {
    auto* bar = window_.findChild<QMenuBar*>();
    ASSERT_NE(bar, nullptr);
    QAction* top = nullptr;
    for (QAction* a : bar->actions())
      if (plain(a->text()) == menu) top = a;
    ASSERT_NE(top, nullptr) << "no menu " << menu.toStdString();
    click(bar, bar->actionGeometry(top).center());
    QMenu* popup = top->menu();
    ASSERT_TRUE(QTest::qWaitFor([&] { return popup->isVisible(); }, 5000)) << "menu " << menu.toStdString() << " did not open";
    QAction* item = nullptr;
    for (QAction* a : popup->actions())
      if (plain(a->text()) == entry) item = a;
    ASSERT_NE(item, nullptr) << "no entry " << entry.toStdString() << " in " << menu.toStdString();
    ASSERT_TRUE(item->isEnabled()) << entry.toStdString() << " is disabled";
    click(popup, popup->actionGeometry(item).center());
  }

  // ---- keyboard -----------------------------------------------------------------------------

  /// The window that takes the keyboard: the active one (a dialog while it is open). When a dialog
  /// has closed and nothing is active, the main window gets the focus back, as a window manager
  /// gives it (Qt's offscreen platform has none).
  QWindow* keyboardWindow() {
    if (!QApplication::activeWindow()) {
      window_.activateWindow();
      (void)QTest::qWaitFor([&] { return QApplication::activeWindow() != nullptr; }, 5000);
    }
    QWidget* active = QApplication::activeWindow();
    return active ? active->windowHandle() : QGuiApplication::focusWindow();
  }

  /// A key press on whatever window has the focus (as a person types), through the shortcut map.
  void key(Qt::Key k, Qt::KeyboardModifiers modifiers = {}) {
    QWindow* w = keyboardWindow();
    ASSERT_NE(w, nullptr) << "no window has the keyboard focus";
    QTest::keyClick(w, k, modifiers);
  }

  /// Clicks into the field, selects what is there, types `text` and presses Return.
  void typeInto(QLineEdit* field, const QString& text) {
    ASSERT_NE(field, nullptr);
    click(field);
    ASSERT_TRUE(QTest::qWaitFor([&] { return field->hasFocus(); }, 5000)) << "the field did not take the focus";
    key(Qt::Key_A, Qt::ControlModifier);
    if (text.isEmpty()) key(Qt::Key_Backspace);  // typing nothing: the old text is deleted
    typeText(text);
    key(Qt::Key_Return);
  }

  void typeText(const QString& text) {
    for (const QChar c : text) {
      QWindow* w = keyboardWindow();
      ASSERT_NE(w, nullptr);
      QTest::keyClick(w, c.toLatin1());
    }
  }

  // ---- modal dialogs ------------------------------------------------------------------------

  /// The next file dialog gets `path` typed into its name field and is accepted.
  void answerFileDialog(const std::filesystem::path& path) {
    const QString text = QString::fromStdString(path.string());
    answers_.push_back([this, text] {
      auto* dialog = focusedDialog<QFileDialog>();
      if (!dialog) return false;
      auto* name = dialog->findChild<QLineEdit*>("fileNameEdit");
      EXPECT_NE(name, nullptr);
      if (!name) return true;
      typeInto(name, text);  // Return accepts, as a person does
      return true;
    });
  }
  /// The next Export plots dialog: `folder` typed into its folder field (empty: the proposed
  /// folder is kept; it is written to *proposed), the time range chosen, and Export clicked.
  void answerExportDialog(const std::filesystem::path& folder, bool whole_run, QString* proposed = nullptr) {
    const QString text = QString::fromStdString(folder.string());
    answers_.push_back([this, text, whole_run, proposed] {
      auto* dialog = focusedDialog<QDialog>();
      if (!dialog || dialog->objectName() != "plots.export_dialog") return false;
      auto* field = dialog->findChild<QLineEdit*>("export.folder");
      EXPECT_NE(field, nullptr);
      if (!field) return true;
      if (proposed) *proposed = field->text();
      if (!text.isEmpty()) {
        click(field);
        key(Qt::Key_A, Qt::ControlModifier);
        typeText(text);
      }
      click(dialog->findChild<QWidget*>(whole_run ? "export.whole" : "export.visible"));
      auto* buttons = dialog->findChild<QDialogButtonBox*>();
      EXPECT_NE(buttons, nullptr);
      if (buttons) click(buttons->button(QDialogButtonBox::Ok));
      return true;
    });
  }
  /// The next file dialog is closed with Escape.
  void cancelFileDialog() {
    answers_.push_back([this] {
      if (!focusedDialog<QFileDialog>()) return false;
      key(Qt::Key_Escape);
      return true;
    });
  }
  /// The next number dialog (video length) gets `text` and OK.
  void answerNumberDialog(const QString& text) {
    answers_.push_back([this, text] {
      auto* dialog = focusedDialog<QInputDialog>();
      if (!dialog) return false;
      auto* spin = dialog->findChild<QDoubleSpinBox*>();
      EXPECT_NE(spin, nullptr);
      if (!spin) return true;
      click(spin);
      key(Qt::Key_A, Qt::ControlModifier);
      typeText(text);
      key(Qt::Key_Return);
      return true;
    });
  }
  /// The next message box: click its button with role/standard button `button`.
  void answerMessageBox(QMessageBox::StandardButton button, QString* text_out = nullptr) {
    answers_.push_back([this, button, text_out] {
      auto* box = visible<QMessageBox>();
      if (!box || !box->isModal() || !focusedDialog<QMessageBox>()) return false;
      if (text_out) *text_out = box->text();
      click(box->button(button));
      return true;
    });
  }
  bool allDialogsAnswered() const { return answers_.empty(); }
  /// A visible top-level widget of type T, or null.
  template <class T>
  T* visible() const {
    for (QWidget* w : QApplication::topLevelWidgets())
      if (auto* t = qobject_cast<T*>(w); t && t->isVisible()) return t;
    return nullptr;
  }
  /// A visible dialog of type T, given the keyboard focus as a window manager gives it to a new
  /// dialog; null when there is none (yet).
  template <class T>
  T* focusedDialog() const {
    T* dialog = visible<T>();
    if (!dialog) return nullptr;
    // (not QTest::qWaitForWindowActive: a dialog counts as active while its parent window is)
    if (QApplication::activeWindow() != dialog) {
      dialog->activateWindow();
      if (!QTest::qWaitFor([&] { return QApplication::activeWindow() == dialog; }, 5000)) return nullptr;
    }
    return dialog;
  }

  // ---- what is on screen --------------------------------------------------------------------

  bool waitFor(const std::function<bool()>& condition, int timeout_ms = kPatienceMs) {
    return QTest::qWaitFor(condition, timeout_ms);
  }
  /// The simulation time the status bar shows ("t = 1.234 s"), NaN when it shows none.
  double shownTime() {
    auto* label = find<QLabel>("status.time");
    if (!label) return std::nan("");
    QString t = label->text();
    t.remove("t = ").remove(" s");
    bool ok = false;
    const double v = t.toDouble(&ok);
    return ok ? v : std::nan("");
  }
  QString rateText() { return find<QLabel>("status.rate")->text(); }
  /// The warnings of the status line (whole text: the label shows an elided form, the tooltip all).
  QString warningText() { return find<ElidedLabel>("status.warning")->text(); }
  QString transientMessage() { return window_.statusBar()->currentMessage(); }
  View3D* view() { return window_.findChild<View3D*>(); }
  /// Where body b is drawn in the view now (its frame origin), in view coordinates.
  QPoint bodyOnScreen(int b) {
    const osg::Vec3d p = view()->sceneGraph()->bodyTransform(b)->getMatrix().getTrans();
    return view()->widgetPoint(Vec3(p.x(), p.y(), p.z())).toPoint();
  }
  /// The 3D view as a person sees it.
  QImage viewPicture() { return view()->grab().toImage(); }
  static std::size_t distinctColors(const QImage& image, int step = 3) {
    std::set<QRgb> colors;
    for (int y = 0; y < image.height(); y += step)
      for (int x = 0; x < image.width(); x += step) colors.insert(image.pixel(x, y));
    return colors.size();
  }

 private:
  MainWindow window_;
  QTimer dialog_timer_;
  std::deque<std::function<bool()>> answers_;

  static QString plain(QString text) { return text.remove('&').remove(QStringLiteral("…")).remove("...").trimmed(); }

  /// Gives the first queued answer when its dialog is on screen. Taken off the queue before it
  /// runs: an answer may open the next dialog, whose event loop calls this again for the next one.
  void answerDialogs() {
    if (answers_.empty()) return;
    auto answer = std::move(answers_.front());
    answers_.pop_front();
    if (!answer()) answers_.push_front(std::move(answer));
  }
};

}  // namespace rbs::ui::test
