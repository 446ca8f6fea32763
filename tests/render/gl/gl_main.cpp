// main() of the OpenGL tests: a private Xvfb (render/virtual_display.h) when there is no display,
// started only when tests run (not for --gtest_list_tests, i.e. ctest's test discovery).
#include <gtest/gtest.h>

#include "render/virtual_display.h"

namespace {

class DisplayEnvironment : public ::testing::Environment {
 public:
  void SetUp() override { display_ = rbs::render::VirtualDisplay::startIfNeeded(); }
  void TearDown() override { display_.reset(); }

 private:
  std::unique_ptr<rbs::render::VirtualDisplay> display_;
};

}  // namespace

int main(int argc, char** argv) {
  ::testing::InitGoogleTest(&argc, argv);
  ::testing::AddGlobalTestEnvironment(new DisplayEnvironment);
  return RUN_ALL_TESTS();
}
