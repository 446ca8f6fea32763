// rbsim-cli render SCENE (--out FILE.mp4 | --frames DIR | --screenshot FILE.png) [options]:
// simulates a scene and draws it offscreen (render/), one frame per 1/fps of simulation time
// (lockstep: frame k shows t = k/fps, nothing dropped), into an H.264 video through an ffmpeg child
// process, a folder of PNG frames, or a single image at --at S (docs/CLI.md, docs/RENDER.md).
#include <unistd.h>

#include <chrono>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iomanip>
#include <memory>
#include <optional>
#include <sstream>
#include <stdexcept>

#include "app/cli_args.h"
#include "app/cli_scene_options.h"
#include "app/cli_commands.h"
#include "app/cli_progress.h"
#include "app/cli_sim_common.h"
#include "core/control/reference.h"
#include "core/dynamics/snapshot.h"
#include "core/scene/scene.h"
#include "render/camera.h"
#include "render/frame_snapshot.h"
#include "render/offscreen.h"
#include "render/scene_graph.h"
#include "render/video_encoder.h"
#include "render/virtual_display.h"
#include "sim/settings.h"
#include "sim/simulator.h"

namespace rbs::cli {
namespace {

constexpr long kMaxFps = 240;
constexpr int kDefaultFps = 30;
constexpr const char* kDefaultSize = "1280x720";

const std::vector<OptionSpec>& renderOptions() {
  static const std::vector<OptionSpec> options = withSceneLoadOptions({
      {"out", true, "FILE.mp4", "write an H.264 video (.mp4, .mkv or .mov) through ffmpeg"},
      {"frames", true, "DIR", "write the frames as DIR/frame_000000.png, … instead"},
      {"screenshot", true, "FILE.png", "write one image at --at S instead"},
      {"at", true, "S", "simulation time of the screenshot [s] (default 0)"},
      {"t-end", true, "S", "simulated (= video) time [s] (default: the scene's integrator.t_end)"},
      {"fps", true, "N", "frames per second of simulation time (default 30, at most 240)"},
      {"size", true, "WxH", "image size in pixels (default 1280x720; even for videos)"},
      {"camera", true, "NAME", "scene, fit, follow, follow:BODY, front, side, top, iso (default scene)"},
      {"show", true, "LIST", "overlays to switch on, comma separated (see below)"},
      {"hide", true, "LIST", "overlays to switch off, comma separated"},
      {"trail", true, "BODY", "draw the path of BODY's centre of mass (repeatable; default: free bodies)"},
      {"msaa", true, "N", "multisampling: 0 (off; default for videos), 2, 4 (default for images) or 8 samples per pixel"},
      {"crf", true, "Q", "x264 quality, 0 (lossless) … 51 (default 20)"},
      {"controller", true, "NAME", "controller computing the inputs (default: the scene's; none: zero)"},
      {"quiet", false, "", "no progress bar and no summary on stderr (errors are still printed)"},
      {"help", false, "", "show this help"},
  });
  return options;
}

std::vector<std::string> splitList(const std::string& text) {
  std::vector<std::string> out;
  std::stringstream in(text);
  std::string item;
  while (std::getline(in, item, ','))
    if (!item.empty()) out.push_back(item);
  return out;
}

std::string overlayList() {
  std::string s;
  for (render::Overlay o : render::allOverlays()) s += (s.empty() ? "" : ", ") + render::overlayName(o);
  return s;
}

/// The overlays after --show/--hide (in that order); UsageError for unknown names.
std::vector<std::pair<render::Overlay, bool>> overlaySwitches(const ParsedArgs& parsed) {
  std::vector<std::pair<render::Overlay, bool>> out;
  for (const char* option : {"show", "hide"})
    for (const std::string& list : parsed.all(option))
      for (const std::string& name : splitList(list)) {
        const std::optional<render::Overlay> o = render::overlayFromName(name);
        if (!o) throw UsageError("unknown overlay '" + name + "' in --" + option + "; overlays: " + overlayList());
        out.emplace_back(*o, std::string(option) == "show");
      }
  return out;
}

std::string seconds(double s) {
  std::ostringstream o;
  o << std::setprecision(6) << s;
  return o.str();
}

/// Can `file` be created (or overwritten)? Leaves no file behind that was not there before.
bool writable(const std::filesystem::path& file) {
  std::error_code ec;
  const bool existed = std::filesystem::exists(file, ec);
  { std::ofstream probe(file, std::ios::binary | std::ios::app); if (!probe) return false; }
  if (!existed) std::filesystem::remove(file, ec);
  return true;
}

std::string lower(std::string s) {
  for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

enum class Output { Video, Frames, Screenshot };

}  // namespace

std::vector<std::string> drawingWarnings(const Model& model) {
  // building the scene graph reads every mesh (no GL context needed)
  return render::SceneGraph(model, render::SceneOptions{}).warnings();
}

std::string renderUsage() {
  return "usage: rbsim-cli render SCENE --out FILE.mp4 [--t-end S] [--fps N] [--size WxH] [--camera NAME]\n"
         "       rbsim-cli render SCENE --frames DIR [same options]\n"
         "       rbsim-cli render SCENE --screenshot FILE.png [--at S] [--size WxH] [--camera NAME]\n"
         "\n"
         "Simulates SCENE (as 'rbsim-cli run') and draws it offscreen with OpenGL: the bodies, the\n"
         "ground grid, the reference pose as a translucent ghost (with a controller), trails of the\n"
         "free bodies, thrust arrows and a HUD (scene name, time). Frame k shows simulation time\n"
         "k/fps (lockstep: a 10 s simulation is a 10 s video, no frame is dropped); --t-end S gives\n"
         "round(S*fps) frames. The video is H.264 (yuv420p) written by an ffmpeg child process fed\n"
         "raw RGB frames (Debian package 'ffmpeg'). Without an X display, a private Xvfb is started\n"
         "(Debian package 'xvfb'); Mesa's software OpenGL is enough.\n"
         "\n"
         "A simulation that diverges stops the video there: the frames so far are kept, exit 1.\n"
         "\n"
         "Cameras: scene (the scene file's camera section), fit (frames every body at t = 0),\n"
         "follow (the scene camera's body or the first free body), follow:BODY, and the fixed\n"
         "directions front (from +x), side (from -y), top, iso, about the scene camera's target.\n"
         "Overlays for --show/--hide: " + overlayList() + " (frames is off by default).\n"
         "\n"
         "exit codes: 0 success; 1 the simulation stopped early (the frames so far are written),\n"
         "ffmpeg, OpenGL or the display failed, or a file could not be written; 2 bad command\n"
         "line, scene, camera, size or output path; 130 interrupted (the video is finished with\n"
         "the frames so far).\n"
         "\n"
         "options:\n" +
         formatOptions(renderOptions());
}

int runRender(const std::vector<std::string>& args, std::ostream& out, std::ostream& err) {
  const ParsedArgs parsed = parseArgs(args, renderOptions());
  if (parsed.has("help")) {
    out << renderUsage();
    return 0;
  }
  const std::string& scene_file = sceneArgument(parsed, "render");
  const int outputs = parsed.has("out") + parsed.has("frames") + parsed.has("screenshot");
  if (outputs != 1) throw UsageError("render needs exactly one of --out FILE.mp4, --frames DIR, --screenshot FILE.png");
  const Output mode = parsed.has("out") ? Output::Video : parsed.has("frames") ? Output::Frames : Output::Screenshot;
  const std::string target = parsed.all(mode == Output::Video ? "out" : mode == Output::Frames ? "frames" : "screenshot").back();
  if (target.empty()) throw UsageError("the output path is empty");
  if (parsed.has("at") && mode != Output::Screenshot) throw UsageError("--at goes with --screenshot");

  // every number and name before the scene is loaded
  const double t_end_opt = positiveOption(parsed, "t-end", 0.0);
  const double at = nonNegativeOption(parsed, "at", 0.0);
  const long fps = countOption(parsed, "fps", kDefaultFps);
  if (fps > kMaxFps) throw UsageError("option '--fps' is at most " + std::to_string(kMaxFps));
  // Videos default to no multisampling: with software GL that is what keeps the export faster than
  // real time (docs/BENCHMARKS.md, "Offscreen rendering"); stills can afford 4×.
  int samples = mode == Output::Video ? 0 : 4;
  if (parsed.has("msaa")) {
    const std::string& m = parsed.all("msaa").back();
    if (m != "0" && m != "2" && m != "4" && m != "8") throw UsageError("option '--msaa' is 0, 2, 4 or 8, got '" + m + "'");
    samples = std::stoi(m);
  }
  long crf = 20;
  if (parsed.has("crf")) {
    const std::string& c = parsed.all("crf").back();
    if (c.empty() || c.size() > 2 || c.find_first_not_of("0123456789") != std::string::npos || std::stoi(c) > 51)
      throw UsageError("option '--crf' needs an integer 0…51, got '" + c + "'");
    crf = std::stoi(c);
  }
  std::pair<int, int> size;
  try {
    size = render::parseSize(parsed.has("size") ? parsed.all("size").back() : kDefaultSize);
  } catch (const std::invalid_argument& e) {
    throw UsageError(std::string("--size: ") + e.what());
  }
  const auto [width, height] = size;
  if (mode == Output::Video && (width % 2 != 0 || height % 2 != 0))
    throw UsageError("--size: a video needs an even width and height (H.264, 4:2:0), got " +
                     std::to_string(width) + "x" + std::to_string(height));
  const auto switches = overlaySwitches(parsed);
  if (const std::string e = checkControllerName(parsed); !e.empty()) {
    err << "rbsim-cli render: " << e << "\n";
    return 2;
  }
  const std::filesystem::path out_path(target);
  const std::string ext = lower(out_path.extension().string());
  if (mode == Output::Video && ext != ".mp4" && ext != ".mkv" && ext != ".mov")
    throw UsageError("--out needs a .mp4, .mkv or .mov file, got '" + target + "'");
  if (mode == Output::Screenshot && ext != ".png")
    throw UsageError("--screenshot needs a .png file, got '" + target + "'");

  const std::optional<Scene> loaded = loadSceneArgument(parsed, scene_file, err);
  if (!loaded) return 2;
  const Scene& scene = *loaded;
  const Model& model = scene.model;

  const std::string camera_name = parsed.has("camera") ? parsed.all("camera").back() : "scene";
  render::CameraSpec camera;
  try {  // the name checked before anything heavy starts; framed again once the meshes are read
    camera = render::makeCamera(camera_name, model, scene.camera, static_cast<double>(width) / height);
  } catch (const std::invalid_argument& e) {
    err << "rbsim-cli render: " << e.what() << "\n";
    return 2;
  }
  render::SceneOptions scene_options;
  scene_options.scene_name = scene.name.empty() ? scene.file.stem().string() : scene.name;
  for (const std::string& name : parsed.all("trail")) {
    const int b = model.bodyIndex(name);
    if (b < 0) {
      err << "rbsim-cli render: --trail: no body named '" << name << "'\n";
      return 2;
    }
    scene_options.trails.push_back({b, model.bodies[b].com});
  }

  // the simulation: one output sample per frame
  IntegratorSettings settings = scene.integrator;
  if (t_end_opt > 0.0) settings.t_end = t_end_opt;
  const double frame_dt = 1.0 / static_cast<double>(fps);
  if (mode != Output::Screenshot) settings.dt_out = frame_dt;
  const std::optional<SimulationOptions> options = simulationOptionsOrReport(settings, "render", err);
  if (!options) return 2;
  std::optional<SceneLoop> loop = sceneLoopOrReport(scene, parsed, err);
  if (!loop) return 2;

  // the output must be writable before anything slow starts
  if (mode == Output::Frames) {
    std::error_code ec;
    std::filesystem::create_directories(out_path, ec);
    if (ec || !std::filesystem::is_directory(out_path) || !writable(out_path / "frame_000000.png")) {
      err << "rbsim-cli render: cannot write frames into '" << target << "'" << (ec ? ": " + ec.message() : "") << "\n";
      return 2;
    }
  } else if (!writable(out_path)) {
    err << "rbsim-cli render: cannot write '" << target << "'\n";
    return 2;
  }

  const bool quiet = parsed.has("quiet");
  const auto wall_start = std::chrono::steady_clock::now();
  std::unique_ptr<render::VirtualDisplay> display;
  std::unique_ptr<render::OffscreenRenderer> renderer;
  std::unique_ptr<render::VideoEncoder> video;
  std::unique_ptr<render::SceneGraph> graph;
  try {
    if (mode == Output::Video) {
      render::VideoOptions vo;
      vo.file = out_path;
      vo.width = width;
      vo.height = height;
      vo.fps = static_cast<int>(fps);
      vo.crf = static_cast<int>(crf);
      video = std::make_unique<render::VideoEncoder>(vo);
    }
    display = render::VirtualDisplay::startIfNeeded();
    renderer = std::make_unique<render::OffscreenRenderer>(width, height, samples);
    graph = std::make_unique<render::SceneGraph>(model, scene_options);
  } catch (const render::RenderError& e) {
    err << "rbsim-cli render: " << e.what() << "\n";
    return 1;
  }
  for (const std::string& w : graph->warnings()) err << "rbsim-cli render: warning: " << w << "\n";
  camera = render::makeCamera(camera_name, model, scene.camera, static_cast<double>(width) / height,
                              &graph->visualExtents());
  for (const auto& [overlay, on] : switches) graph->setOverlay(overlay, on);
  graph->setViewportSize(width, height);
  renderer->setScene(graph->root());

  Simulator sim(model, *options, loop->source);
  sim.reset(model.initial_state, 0.0);
  const LoopChannels read = findLoopChannels(model, sim.channels());

  render::FrameSnapshot frame(model, std::move(loop->ghost_reference));
  Workspace ws(model);
  VecX u = VecX::Zero(model.numInputs());
  render::HudInfo hud;
  hud.scene_name = scene_options.scene_name;
  hud.status = loop->source ? "controller " + loop->controller_name : "";
  if (mode == Output::Video) hud.real_time_factor = 1.0;  // the video plays in real time

  // draws the state at sim.time()
  double render_seconds = 0.0, output_seconds = 0.0;
  auto drawFrame = [&](double t) -> const render::Image& {
    const auto start = std::chrono::steady_clock::now();
    if (!sim.recording().values.empty()) read.readInputs(sim.recording().values.back(), u);
    const Snapshot& snapshot = frame.make(t, sim.state(), u, sim.pushWrenches());
    graph->apply(snapshot);
    hud.time = t;
    graph->setHud(hud);
    renderer->setCamera(render::cameraPose(model, camera, snapshot.body_poses), camera.fov_y);
    const render::Image& image = renderer->render();
    render_seconds += std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    return image;
  };

  if (mode == Output::Screenshot) {
    // the trails up to --at: every output sample adds to them
    Snapshot path;
    sim.on_sample = [&](double t, std::span<const double>) {
      fillBodyPoses(model, sim.state().x, t, ws, path);
      graph->apply(path);
    };
    if (at > 0.0 && !sim.advanceTo(at)) {
      err << "rbsim-cli render: " << sim.message() << "\nrbsim-cli render: the simulation stopped before --at "
          << seconds(at) << " s; no image written\n";
      return 1;
    }
    try {
      render::writePng(drawFrame(at), out_path);
    } catch (const render::RenderError& e) {
      err << "rbsim-cli render: " << e.what() << "\n";
      return 1;
    }
    if (!quiet) err << "wrote " << target << " (" << width << "x" << height << ", t = " << seconds(at) << " s, camera "
                    << camera.name << ")\n";
    return 0;
  }

  // lockstep: frame k at t = k/fps, k = 0 … round(t_end·fps) − 1
  const long frames = std::max(1L, std::lround(settings.t_end * static_cast<double>(fps)));
  const InterruptGuard interrupt;
  ProgressBar progress(err, !quiet && ::isatty(STDERR_FILENO) != 0, 0.0, settings.t_end);
  bool sim_ok = true;
  std::string failure;
  long written = 0;
  for (long k = 0; k < frames && !interrupt.requested(); ++k) {
    const double t = static_cast<double>(k) * frame_dt;
    if (k > 0 && !sim.advanceTo(t)) {
      sim_ok = false;
      break;
    }
    const render::Image& image = drawFrame(t);
    const auto start = std::chrono::steady_clock::now();
    if (mode == Output::Video) {
      if (!video->write(image)) {
        failure = video->error();
        break;
      }
    } else {
      char name[32];
      std::snprintf(name, sizeof name, "frame_%06ld.png", k);
      try {
        render::writePng(image, out_path / name);
      } catch (const render::RenderError& e) {
        failure = e.what();
        break;
      }
    }
    output_seconds += std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    ++written;
    progress.update(t);
  }
  const auto finish_start = std::chrono::steady_clock::now();
  if (video && !video->finish() && failure.empty()) failure = video->error();
  output_seconds += std::chrono::duration<double>(std::chrono::steady_clock::now() - finish_start).count();
  progress.finish();
  const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - wall_start).count();

  if (!quiet) {
    err << "wrote " << target << ": " << written << " frames " << width << "x" << height << " at " << fps
        << " fps (" << seconds(static_cast<double>(written) / fps) << " s of video) in " << std::setprecision(3)
        << wall << " s wall time (" << std::setprecision(4) << written / std::max(wall, 1e-9)
        << " frames/s; render " << std::setprecision(3) << render_seconds << " s, "
        << (mode == Output::Video ? "encode wait " : "png ") << output_seconds << " s, simulation "
        << sim.stats().wall_time << " s), camera " << camera.name << "\n";
  }
  if (!failure.empty()) {
    err << "rbsim-cli render: " << failure << "\n";
    return 1;
  }
  if (!sim_ok) {
    err << "rbsim-cli render: " << sim.message() << "\n"
        << "rbsim-cli render: the simulation stopped early; wrote the " << written << " frames up to t = "
        << seconds(written > 0 ? static_cast<double>(written - 1) * frame_dt : 0.0) << " s to " << target << "\n";
    return 1;
  }
  if (interrupt.requested() && written < frames) {
    err << "rbsim-cli render: interrupted; wrote the " << written << " frames rendered so far to " << target << "\n";
    return kExitInterrupted;
  }
  return 0;
}

}  // namespace rbs::cli
