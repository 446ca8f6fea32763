// Rendering a scene to memory without a window: an OpenGL context on a tiny pbuffer and a
// framebuffer object of the requested size, read back after every frame. Needs an X display
// (a real one or Xvfb, render/virtual_display.h); Mesa's software GL (llvmpipe) is enough.
// Usable by the GUI (export) and the CLI (video, screenshots).
#pragma once

#include <cstdint>
#include <filesystem>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include <osg/Node>

#include "render/camera.h"

namespace rbs::render {

/// OpenGL or image trouble: no display, no context, a file that cannot be written.
class RenderError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

/// 8-bit RGB pixels, rows from the top of the picture, no padding (size 3·width·height).
struct Image {
  int width = 0;
  int height = 0;
  std::vector<std::uint8_t> rgb;
  const std::uint8_t* pixel(int x, int y) const { return &rgb[3 * (std::size_t(y) * width + x)]; }
};

/// Writes a PNG (through osgDB). Throws RenderError when it cannot.
void writePng(const Image& image, const std::filesystem::path& file);

/// Accepts "WxH" with 16 ≤ W, H ≤ 8192. Throws std::invalid_argument otherwise.
std::pair<int, int> parseSize(const std::string& text);

class OffscreenRenderer {
 public:
  /// A width × height colour buffer (plus depth) with `samples` multisampling (0: none; when the
  /// display offers no multisampled pbuffer, none either: see samples()).
  /// Throws RenderError when no OpenGL context can be made (no X display, no GLX).
  OffscreenRenderer(int width, int height, int samples = 4);
  ~OffscreenRenderer();
  OffscreenRenderer(const OffscreenRenderer&) = delete;
  OffscreenRenderer& operator=(const OffscreenRenderer&) = delete;

  void setScene(osg::Node* scene);
  /// Look-at camera and vertical field of view [rad]; near and far planes follow the distance.
  void setCamera(const CameraPose& pose, double fov_y);
  /// Draws one frame and returns its pixels (valid until the next call).
  const Image& render();

  int width() const;
  /// The multisampling in effect (0 when none was asked for or none is available).
  int samples() const;
  int height() const;
  /// The combined view-projection-window matrix of the last setCamera (OSG row-vector form),
  /// for tests that check where a point lands: pixel = world · M (y up from the bottom).
  osg::Matrixd worldToWindow() const;
  /// GL_RENDERER of the context ("llvmpipe (LLVM 15.0.6, 256 bits)" for Mesa software GL).
  std::string glRenderer();

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace rbs::render
