#include "render/offscreen.h"

#include <cstdlib>
#include <cstring>

#include <osg/GL>
#include <osg/GraphicsContext>
#include <osg/Image>
#include <osgDB/WriteFile>
#include <osgViewer/Viewer>

#include "render/pose_conversion.h"

namespace rbs::render {

namespace {

constexpr int kMinSize = 16;
constexpr int kMaxSize = 8192;

/// Keeps GL_RENDERER of the current context (read once, inside a draw).
struct RendererQuery : osg::Camera::DrawCallback {
  mutable std::string name;
  void operator()(osg::RenderInfo&) const override {
    if (!name.empty()) return;
    const GLubyte* s = glGetString(GL_RENDERER);
    name = s ? reinterpret_cast<const char*>(s) : "unknown";
  }
};

/// Swapping a single-buffered pbuffer is pointless.
struct NoSwap : osg::GraphicsContext::SwapCallback {
  void swapBuffersImplementation(osg::GraphicsContext*) override {}
};

}  // namespace

std::pair<int, int> parseSize(const std::string& text) {
  const auto x = text.find('x');
  auto number = [&](const std::string& part) {
    if (part.empty() || part.size() > 5 || part.find_first_not_of("0123456789") != std::string::npos)
      return -1;
    return std::atoi(part.c_str());
  };
  const int w = x == std::string::npos ? -1 : number(text.substr(0, x));
  const int h = x == std::string::npos ? -1 : number(text.substr(x + 1));
  if (w < kMinSize || h < kMinSize || w > kMaxSize || h > kMaxSize)
    throw std::invalid_argument("size '" + text + "' is not WIDTHxHEIGHT with both in " +
                                std::to_string(kMinSize) + "…" + std::to_string(kMaxSize) +
                                " pixels, e.g. 1280x720");
  return {w, h};
}

void writePng(const Image& image, const std::filesystem::path& file) {
  // osg::Image rows run from the bottom, as OpenGL's
  osg::ref_ptr<osg::Image> img = new osg::Image;
  img->allocateImage(image.width, image.height, 1, GL_RGB, GL_UNSIGNED_BYTE, 1);
  const std::size_t row = 3 * static_cast<std::size_t>(image.width);
  for (int y = 0; y < image.height; ++y)
    std::memcpy(img->data(0, image.height - 1 - y), &image.rgb[row * y], row);
  if (!osgDB::writeImageFile(*img, file.string()))
    throw RenderError("cannot write the image '" + file.string() + "'");
}

namespace {

/// The renderer that last made its context current on this thread (null: unknown, e.g. after a
/// context was created or destroyed). osgViewer remembers which context it made current and skips
/// makeCurrent while it believes it still is; with two renderers on one thread (the live view and
/// a video export) each would then draw into the other's context, or into none after the other was
/// destroyed. render() makes its own context current whenever this is not itself.
thread_local const void* current_renderer = nullptr;

/// A single-buffered RGB pbuffer with depth, multisampled when samples > 0; null if the display
/// cannot make one.
osg::ref_ptr<osg::GraphicsContext> makePbuffer(int width, int height, int samples) {
  osg::ref_ptr<osg::GraphicsContext::Traits> traits = new osg::GraphicsContext::Traits;
  traits->readDISPLAY();
  traits->setUndefinedScreenDetailsToDefaultScreen();
  traits->x = 0;
  traits->y = 0;
  traits->width = width;
  traits->height = height;
  traits->red = traits->green = traits->blue = 8;
  traits->alpha = 0;  // with alpha, Mesa's GLX on Xvfb answers BadMatch (no such visual)
  traits->depth = 24;
  traits->sampleBuffers = samples > 0 ? 1 : 0;
  traits->samples = static_cast<unsigned>(samples);
  traits->windowDecoration = false;
  traits->doubleBuffer = false;
  traits->pbuffer = true;
  traits->sharedContext = nullptr;
  osg::ref_ptr<osg::GraphicsContext> gc = osg::GraphicsContext::createGraphicsContext(traits.get());
  return gc && gc->valid() ? gc : nullptr;
}

}  // namespace

struct OffscreenRenderer::Impl {
  int samples = 0;
  osg::ref_ptr<osg::GraphicsContext> context;
  osg::ref_ptr<osgViewer::Viewer> viewer;
  osg::ref_ptr<osg::Image> image;
  osg::ref_ptr<RendererQuery> query;
  Image out;
};

OffscreenRenderer::OffscreenRenderer(int width, int height, int samples) : impl_(new Impl) {
  if (width < kMinSize || height < kMinSize || width > kMaxSize || height > kMaxSize)
    throw RenderError("image size " + std::to_string(width) + "x" + std::to_string(height) +
                      " is out of range");
  const char* display = std::getenv("DISPLAY");
  if (!display || !*display)
    throw RenderError("no X display for OpenGL (DISPLAY is not set); run under 'xvfb-run -a' or "
                      "install the Debian package 'xvfb'");

  // multisampling in the pbuffer itself where the GLX offers it (Mesa does), else none: OSG's
  // multisample framebuffer objects come out incomplete with Mesa
  osg::ref_ptr<osg::GraphicsContext> gc;
  if (samples > 0) gc = makePbuffer(width, height, samples);
  const bool multisampled = gc.valid();
  if (!gc) gc = makePbuffer(width, height, 0);
  if (!gc)
    throw RenderError(std::string("cannot create an OpenGL pbuffer on display '") + display +
                      "' (no GLX? install the Debian package 'libgl1-mesa-dri')");

  impl_->context = gc;
  current_renderer = nullptr;  // creating a context may have changed the current one
  impl_->viewer = new osgViewer::Viewer;
  osgViewer::Viewer& v = *impl_->viewer;
  v.setThreadingModel(osgViewer::Viewer::SingleThreaded);
  v.setLightingMode(osg::View::NO_LIGHT);  // the scene brings its own lights
  // one context, always current: no release (an X round trip) after every frame
  v.setReleaseContextAtEndOfFrameHint(false);
  osg::Camera* cam = v.getCamera();
  cam->setGraphicsContext(gc.get());
  cam->setViewport(0, 0, width, height);
  cam->setClearColor(osg::Vec4(0.9f, 0.92f, 0.94f, 1.0f));
  cam->setClearMask(GL_COLOR_BUFFER_BIT | GL_DEPTH_BUFFER_BIT);
  cam->setComputeNearFarMode(osg::CullSettings::DO_NOT_COMPUTE_NEAR_FAR);
  // the pbuffer itself is the frame buffer; the image is read back from it after each frame
  cam->setRenderTargetImplementation(osg::Camera::FRAME_BUFFER);
  cam->setDrawBuffer(GL_FRONT);
  cam->setReadBuffer(GL_FRONT);
  impl_->image = new osg::Image;
  impl_->image->allocateImage(width, height, 1, GL_RGB, GL_UNSIGNED_BYTE, 1);
  cam->attach(osg::Camera::COLOR_BUFFER, impl_->image.get());
  impl_->samples = multisampled ? samples : 0;
  // nothing to swap: single-buffered, the pixels are read back from the front buffer
  gc->setSwapCallback(new NoSwap);
  impl_->query = new RendererQuery;
  cam->setFinalDrawCallback(impl_->query.get());
  impl_->out.width = width;
  impl_->out.height = height;
  impl_->out.rgb.resize(3 * static_cast<std::size_t>(width) * height);
  setCamera(CameraPose{Vec3(3, 0, 1), Vec3::Zero(), Vec3::UnitZ()}, 0.61);
}

OffscreenRenderer::~OffscreenRenderer() {
  // closing the context makes it current to release its GL objects, then releases it
  impl_->viewer = nullptr;
  impl_->context = nullptr;
  current_renderer = nullptr;
}

int OffscreenRenderer::width() const { return impl_->out.width; }
int OffscreenRenderer::height() const { return impl_->out.height; }
int OffscreenRenderer::samples() const { return impl_->samples; }

void OffscreenRenderer::setScene(osg::Node* scene) { impl_->viewer->setSceneData(scene); }

void OffscreenRenderer::setCamera(const CameraPose& pose, double fov_y) {
  osg::Camera* cam = impl_->viewer->getCamera();
  cam->setViewMatrixAsLookAt(toOsg(pose.eye), toOsg(pose.center), toOsg(pose.up));
  const double d = std::max((pose.eye - pose.center).norm(), 1e-3);
  const double near_plane = std::max(0.02 * d, 1e-3);
  const double far_plane = 100.0 * d + 60.0;
  const double aspect = static_cast<double>(width()) / height();
  cam->setProjectionMatrixAsPerspective(fov_y * 180.0 / M_PI, aspect, near_plane, far_plane);
}

osg::Matrixd OffscreenRenderer::worldToWindow() const {
  const osg::Camera* cam = impl_->viewer->getCamera();
  return cam->getViewMatrix() * cam->getProjectionMatrix() *
         cam->getViewport()->computeWindowMatrix();
}

const Image& OffscreenRenderer::render() {
  if (current_renderer != impl_.get()) {
    if (impl_->viewer->isRealized() && !impl_->context->makeCurrent())
      throw RenderError("cannot make the OpenGL context current");
    current_renderer = impl_.get();
  }
  impl_->viewer->frame();
  const std::size_t row = 3 * static_cast<std::size_t>(width());
  for (int y = 0; y < height(); ++y)
    std::memcpy(&impl_->out.rgb[row * y], impl_->image->data(0, height() - 1 - y), row);
  return impl_->out;
}

std::string OffscreenRenderer::glRenderer() {
  if (impl_->query->name.empty()) render();
  return impl_->query->name;
}

}  // namespace rbs::render
