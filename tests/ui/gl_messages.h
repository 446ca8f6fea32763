// OpenSceneGraph's warnings during a GUI test: ui_main.cpp routes OSG's notifications here, and the
// user-level tests check that no OpenGL error was reported ("detected OpenGL error 'invalid value'",
// "Unable to create osg::Program contextID=0": a renderer that drew in another renderer's context).
#pragma once

#include <mutex>
#include <string>
#include <vector>

#include <osg/Notify>
#include <osg/ref_ptr>

namespace rbs::ui::test {

class GlMessages : public osg::NotifyHandler {
 public:
  void notify(osg::NotifySeverity severity, const char* message) override {
    if (severity > osg::WARN) return;
    std::lock_guard lock(mutex_);
    messages_.emplace_back(message);
  }
  /// The OpenGL errors reported so far (empty: none).
  std::vector<std::string> errors() const {
    std::lock_guard lock(mutex_);
    std::vector<std::string> out;
    for (const std::string& m : messages_)
      if (m.find("OpenGL error") != std::string::npos || m.find("Unable to create") != std::string::npos ||
          m.find("GL_INVALID") != std::string::npos)
        out.push_back(m);
    return out;
  }
  /// The handler ui_main.cpp installed.
  static GlMessages& installed();

 private:
  mutable std::mutex mutex_;
  std::vector<std::string> messages_;
};

}  // namespace rbs::ui::test
