// main() of the GUI tests: a private Xvfb when there is no display (the 3D view renders through
// GLX, render/offscreen.h), Qt's offscreen platform for the widgets (no window appears), settings
// in Qt's test locations (the user's QSettings stay untouched), OpenSceneGraph's warnings kept for
// the tests (gl_messages.h). They run in CI, never skipped.
#include <cstdlib>
#include <cstring>
#include <memory>

#include <QApplication>
#include <QStandardPaths>
#include <gtest/gtest.h>

#include "gl_messages.h"
#include "render/virtual_display.h"

namespace rbs::ui::test {
GlMessages& GlMessages::installed() {
  static osg::ref_ptr<GlMessages> handler = new GlMessages;
  return *handler;
}
}  // namespace rbs::ui::test

int main(int argc, char** argv) {
  ::testing::InitGoogleTest(&argc, argv);
  std::unique_ptr<rbs::render::VirtualDisplay> display;
  const bool listing = ::testing::GTEST_FLAG(list_tests);
  if (!listing) display = rbs::render::VirtualDisplay::startIfNeeded();
  ::setenv("QT_QPA_PLATFORM", "offscreen", 1);
  QStandardPaths::setTestModeEnabled(true);
  osg::setNotifyHandler(&rbs::ui::test::GlMessages::installed());
  QApplication app(argc, argv);
  QApplication::setOrganizationName("rbsim-tests");
  QApplication::setApplicationName("rbsim-tests");
  return RUN_ALL_TESTS();
}
