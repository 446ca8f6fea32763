// A private X display for offscreen OpenGL where there is none (CI, servers, ssh sessions): starts
// `Xvfb -displayfd` (Debian package 'xvfb'), which picks a free display number itself, so that
// parallel tests do not collide, and points $DISPLAY at it for the life of the object.
#pragma once

#include <sys/types.h>

#include <memory>
#include <string>

namespace rbs::render {

class VirtualDisplay {
 public:
  /// Nothing when $DISPLAY is already set; else a started Xvfb. Throws RenderError
  /// (render/offscreen.h) when Xvfb is missing or does not come up within a few seconds.
  static std::unique_ptr<VirtualDisplay> startIfNeeded();
  /// Stops Xvfb and restores the previous $DISPLAY (unset).
  ~VirtualDisplay();
  VirtualDisplay(const VirtualDisplay&) = delete;
  VirtualDisplay& operator=(const VirtualDisplay&) = delete;

  const std::string& name() const { return name_; }  ///< e.g. ":99"

 private:
  VirtualDisplay() = default;
  pid_t pid_ = -1;
  std::string name_;
};

}  // namespace rbs::render
