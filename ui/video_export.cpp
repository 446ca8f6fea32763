#include "ui/video_export.h"

#include <cmath>
#include <exception>
#include <memory>

#include "render/frame_snapshot.h"
#include "render/offscreen.h"
#include "render/scene_graph.h"
#include "render/video_encoder.h"
#include "sim/scene_loop.h"
#include "sim/settings.h"
#include "sim/simulator.h"

namespace rbs::ui {

VideoResult recordVideo(const Scene& scene, const VideoRequest& request,
                        const std::function<bool(double, double)>& progress) {
  VideoResult result;
  try {
    const Model& model = scene.model;
    IntegratorSettings settings = scene.integrator;
    if (!request.stepper.empty()) settings.stepper = request.stepper;
    const double frame_dt = 1.0 / request.fps;
    settings.dt_out = frame_dt;  // one output sample per frame
    const SimulationOptions options = simulationOptions(settings);
    const std::string controller = request.controller.empty() ? scene.controller.name : request.controller;
    SceneLoop loop = makeSceneLoop(scene, controller);
    if (ParameterSet* parameters = loop.parameters())
      for (const auto& [i, v] : request.parameters) parameters->set(i, v);

    render::VideoOptions vo;
    vo.file = request.file;
    vo.width = request.width;
    vo.height = request.height;
    vo.fps = request.fps;
    render::VideoEncoder video(vo);
    render::OffscreenRenderer renderer(request.width, request.height, 4);
    render::SceneOptions scene_options;
    scene_options.scene_name = scene.name.empty() ? scene.file.stem().string() : scene.name;
    render::SceneGraph graph(model, scene_options);
    graph.setViewportSize(request.width, request.height);
    renderer.setScene(graph.root());
    render::FrameSnapshot frame(model, std::move(loop.ghost_reference));

    Simulator sim(model, options, loop.source);
    sim.reset(model.initial_state, 0.0);
    const LoopChannels read = findLoopChannels(model, sim.channels());
    VecX u = VecX::Zero(model.numInputs());
    render::HudInfo hud;
    hud.scene_name = scene_options.scene_name;
    hud.real_time_factor = 1.0;  // the video plays in real time

    const render::CameraSpec camera =
        render::fitToAspect(request.camera, static_cast<double>(request.width) / request.height);
    const long frames = std::max(1L, std::lround(request.t_end * request.fps));
    for (long k = 0; k < frames; ++k) {
      const double t = static_cast<double>(k) * frame_dt;
      if (k > 0 && !sim.advanceTo(t)) {
        result.message = sim.message();
        break;
      }
      const std::span<const double> last = sim.recording().values.back();
      read.readInputs(last, u);
      const Snapshot& snapshot = frame.make(t, sim.state(), u, sim.pushWrenches());
      graph.apply(snapshot);
      hud.time = t;
      graph.setHud(hud);
      renderer.setCamera(render::cameraPose(model, camera, snapshot.body_poses), camera.fov_y);
      if (!video.write(renderer.render())) {
        result.message = video.error();
        break;
      }
      ++result.frames;
      if (progress && !progress(t, request.t_end)) {
        result.cancelled = true;
        break;
      }
    }
    if (!video.finish() && result.message.empty()) result.message = video.error();
    result.ok = result.message.empty() && !result.cancelled;
  } catch (const std::exception& e) {
    result.message = e.what();
  }
  return result;
}

}  // namespace rbs::ui
