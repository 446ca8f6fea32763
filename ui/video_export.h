// Video of the 3D view in lockstep with simulation time: a fresh run of the scene (same
// controller, stepper and gains as the window's), frame k drawn at t = k/fps offscreen and piped
// to ffmpeg (render/video_encoder.h), so no frame is ever dropped whatever the machine's speed.
// Runs on the calling thread; `progress` is called after every frame and may cancel.
#pragma once

#include <filesystem>
#include <functional>
#include <string>
#include <vector>

#include "core/scene/scene.h"
#include "render/camera.h"

namespace rbs::ui {

struct VideoRequest {
  std::filesystem::path file;           ///< .mp4
  double t_end = 10.0;                  ///< [s] of simulation = of video
  int fps = 30;
  int width = 1280, height = 720;       ///< even
  std::string controller;               ///< "" : the scene's
  std::string stepper;                  ///< "" : the scene's
  std::vector<std::pair<int, double>> parameters;  ///< controller parameter index, value
  render::CameraSpec camera;            ///< for a 16:9 image (View3D::camera()), fitted to width/height
};

struct VideoResult {
  bool ok = false;
  bool cancelled = false;
  long frames = 0;
  std::string message;  ///< what went wrong (ffmpeg, OpenGL, a diverging simulation)
};

/// `progress(t, t_end)` returns false to cancel (the video is then finished with the frames so
/// far). Needs an X display (the GUI has one; the scripted mode starts Xvfb).
VideoResult recordVideo(const Scene& scene, const VideoRequest& request,
                        const std::function<bool(double, double)>& progress);

}  // namespace rbs::ui
