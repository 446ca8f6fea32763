// The 3D view's controls used the way a person does (input events only): overlay toggles and
// camera presets from the toolbar and the View menu, panning with Shift + drag and the middle
// button; what is checked is the picture (pixels change) and the menu's state (issue 19 item 3).
#include <QToolBar>
#include <QToolButton>
#include <gtest/gtest.h>

#include "user_session.h"

namespace rbs::ui {
namespace {

using test::UserSession;

/// Pixels that differ between two pictures of the same size.
int differingPixels(const QImage& a, const QImage& b) {
  if (a.size() != b.size()) return a.width() * a.height();
  const QImage x = a.convertToFormat(QImage::Format_RGB32), y = b.convertToFormat(QImage::Format_RGB32);
  int n = 0;
  for (int r = 0; r < x.height(); ++r)
    for (int c = 0; c < x.width(); ++c) n += x.pixel(c, r) != y.pixel(c, r);
  return n;
}

/// The toolbar button of the View menu's action `name`.
QWidget* toolbarButton(UserSession& user, const QString& name) {
  auto* toolbar = user.find<QToolBar>("view.toolbar");
  auto* action = user.window().findChild<QAction*>(name);
  EXPECT_NE(action, nullptr) << name.toStdString();
  return toolbar && action ? toolbar->widgetForAction(action) : nullptr;
}

/// Waits until the view shows something else than `before` (at least 1 % of its pixels).
bool pictureChanges(UserSession& user, const QImage& before) {
  return user.waitFor([&] {
    const QImage now = user.viewPicture();
    return differingPixels(before, now) > now.width() * now.height() / 100;
  }, 20000);
}

TEST(UserView, OverlaysAndCameraPresetsFromTheToolbarAndTheMenu) {
  UserSession user;
  user.openLibraryScene("quadcopter_looping");
  ASSERT_TRUE(user.waitFor([&] { return user.window().windowTitle().contains("oop"); }));
  ASSERT_TRUE(user.waitFor([&] { return !user.viewPicture().isNull() && user.view()->framesShown() > 0; }));
  auto* ground = user.window().findChild<QAction*>("view.overlay.ground");
  ASSERT_NE(ground, nullptr);
  EXPECT_TRUE(ground->isChecked());
  // the ground grid off from the toolbar: the picture changes, the menu entry is unchecked
  QImage before = user.viewPicture();
  user.click(toolbarButton(user, "view.overlay.ground"));
  EXPECT_FALSE(ground->isChecked());
  ASSERT_TRUE(pictureChanges(user, before));
  // and on again from the View menu
  before = user.viewPicture();
  user.menu("View", "Ground");
  EXPECT_TRUE(ground->isChecked());
  ASSERT_TRUE(pictureChanges(user, before));
  // body frames: off by default, on from the toolbar
  auto* frames = user.window().findChild<QAction*>("view.overlay.frames");
  EXPECT_FALSE(frames->isChecked());
  user.click(toolbarButton(user, "view.overlay.frames"));
  EXPECT_TRUE(frames->isChecked());
  // camera presets: top from the menu, then front from the toolbar, each a new picture
  before = user.viewPicture();
  user.menu("View", "Top");
  ASSERT_TRUE(pictureChanges(user, before));
  EXPECT_GT(user.window().findChild<View3D*>()->camera().elevation, 1.5);  // looking down
  before = user.viewPicture();
  user.click(toolbarButton(user, "view.camera.front"));
  ASSERT_TRUE(pictureChanges(user, before));
  EXPECT_NEAR(user.window().findChild<View3D*>()->camera().azimuth, 0.0, 1e-9);  // from +x
}

TEST(UserView, ShiftDragAndMiddleDragPanAndFollowKeepsItsBody) {
  UserSession user;
  user.openLibraryScene("double_pendulum");
  ASSERT_TRUE(user.waitFor([&] { return user.window().windowTitle().contains("ouble"); }));
  View3D* view = user.view();
  ASSERT_TRUE(user.waitFor([&] { return user.view()->framesShown() > 0; }));
  const Vec3 target = view->camera().target;
  const double azimuth = view->camera().azimuth;
  const QPoint from = view->rect().center();
  QImage before = user.viewPicture();
  QTest::mousePress(view, Qt::LeftButton, Qt::ShiftModifier, from);
  for (int i = 1; i <= 5; ++i) QTest::mouseMove(view, from + QPoint(16 * i, 8 * i));
  QTest::mouseRelease(view, Qt::LeftButton, Qt::ShiftModifier, from + QPoint(80, 40));
  EXPECT_GT((view->camera().target - target).norm(), 1e-3);  // moved, and did not orbit
  EXPECT_EQ(view->camera().azimuth, azimuth);
  ASSERT_TRUE(pictureChanges(user, before));
  const Vec3 panned = view->camera().target;
  before = user.viewPicture();
  QTest::mousePress(view, Qt::MiddleButton, {}, from);
  for (int i = 1; i <= 5; ++i) QTest::mouseMove(view, from - QPoint(10 * i, 0));
  QTest::mouseRelease(view, Qt::MiddleButton, {}, from - QPoint(50, 0));
  EXPECT_GT((view->camera().target - panned).norm(), 1e-3);
  ASSERT_TRUE(pictureChanges(user, before));
  // Follow: the camera moves with a body; a pan does not take it off its body
  user.menu("View", "Follow");
  ASSERT_GE(view->camera().follow_body, 0);
  const Vec3 followed = view->camera().target;
  QTest::mousePress(view, Qt::MiddleButton, {}, from);
  for (int i = 1; i <= 5; ++i) QTest::mouseMove(view, from + QPoint(10 * i, 0));
  QTest::mouseRelease(view, Qt::MiddleButton, {}, from + QPoint(50, 0));
  EXPECT_EQ(view->camera().target, followed);
  // the scene camera again, as the scene file sets it
  user.menu("View", "Scene camera");
  EXPECT_EQ(view->camera().target, target);
  EXPECT_LT(view->camera().follow_body, 0);
}

}  // namespace
}  // namespace rbs::ui
