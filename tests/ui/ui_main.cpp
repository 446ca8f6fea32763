// main() of the GUI tests: a private Xvfb when there is no display (the 3D view renders through
// GLX, render/offscreen.h), Qt's offscreen platform for the widgets (no window appears), settings
// in Qt's test locations (the user's QSettings stay untouched). They run in CI, never skipped.
#include <cstdlib>
#include <cstring>
#include <memory>

#include <QApplication>
#include <QStandardPaths>
#include <gtest/gtest.h>

#include "render/virtual_display.h"

int main(int argc, char** argv) {
  ::testing::InitGoogleTest(&argc, argv);
  std::unique_ptr<rbs::render::VirtualDisplay> display;
  const bool listing = ::testing::GTEST_FLAG(list_tests);
  if (!listing) display = rbs::render::VirtualDisplay::startIfNeeded();
  ::setenv("QT_QPA_PLATFORM", "offscreen", 1);
  QStandardPaths::setTestModeEnabled(true);
  QApplication app(argc, argv);
  QApplication::setOrganizationName("rbsim-tests");
  QApplication::setApplicationName("rbsim-tests");
  return RUN_ALL_TESTS();
}
