// rbsim-cli render in a build without the rendering module (-DRBS_BUILD_GUI=OFF): says so.
#include <ostream>

#include "app/cli_commands.h"

namespace rbs::cli {

std::string renderUsage() {
  return "usage: rbsim-cli render SCENE --out FILE.mp4 [options]\n"
         "\n"
         "Not available: this rbsim-cli was built without the rendering module\n"
         "(-DRBS_BUILD_GUI=OFF). Configure with -DRBS_BUILD_GUI=ON (needs OpenSceneGraph).\n";
}

int runRender(const std::vector<std::string>&, std::ostream&, std::ostream& err) {
  err << "rbsim-cli render: not available in this build (configured with -DRBS_BUILD_GUI=OFF, without "
         "OpenSceneGraph); rebuild with -DRBS_BUILD_GUI=ON\n";
  return 2;
}

std::vector<std::string> drawingWarnings(const Model&) { return {}; }

}  // namespace rbs::cli
