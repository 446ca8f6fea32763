#include "ui/scripted.h"

#include <chrono>
#include <filesystem>
#include <ostream>
#include <thread>

#include <QApplication>
#include <QEventLoop>
#include <QTimer>

#include "render/offscreen.h"
#include "ui/main_window.h"
#include "ui/view3d.h"

namespace rbs::ui {

bool simulateTo(MainWindow& window, double t) {
  SimulationWorker* worker = window.worker();
  if (!worker) return false;
  const double tolerance = 0.5 * worker->outputStep();
  worker->runUntil(t);
  const std::uint64_t sent = worker->commandsSent();
  for (;;) {
    QApplication::processEvents();
    const WorkerSnapshot s = worker->snapshot();
    if (s.commands >= sent) {  // else an older snapshot: runUntil (and what came before) not seen yet
      if (s.failed) break;
      if (!s.running && s.time >= t - tolerance) break;
    }
    window.plotTick();
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  window.plotTick();
  window.frameTick();
  return !worker->snapshot().failed;
}

int runScript(MainWindow& window, const ScriptOptions& options, std::ostream& err) {
  const Scene* scene = window.scene();
  if (!scene) return 1;
  const double t_end = options.t_end.value_or(scene->integrator.t_end);
  const auto stopped = [&](double t) {
    err << "rbsim: " << window.worker()->snapshot().message << "\nrbsim: the simulation stopped before t = " << t
        << " s\n";
    return 1;
  };
  try {
    if (options.screenshot) {
      if (!simulateTo(window, options.at)) return stopped(options.at);
      window.writeScreenshot(*options.screenshot, options.width, options.height);
      err << "wrote " << *options.screenshot << "\n";
    }
    if (options.export_plots) {
      if (!simulateTo(window, t_end)) return stopped(t_end);
      std::filesystem::create_directories(*options.export_plots);
      PlotPanel& plots = *window.plots();
      for (int i = 0; i < plots.plotCount(); ++i)
        for (const auto& f : plots.exportPlot(i, *options.export_plots, true)) err << "wrote " << f.string() << "\n";
      const std::filesystem::path run = std::filesystem::path(*options.export_plots) / "run.csv";
      window.writeRunCsv(run);
      err << "wrote " << run.string() << "\n";
    }
    if (options.measure) {
      PlotPanel& plots = *window.plots();
      plots.setWindowLength(60.0);
      long channels = 0;
      for (int i = 0; i < plots.plotCount(); ++i) channels += plots.curveCount(i);
      const long frames0 = window.view()->framesShown(), replots0 = plots.replotCount();
      window.worker()->setSpeed(1.0);
      window.worker()->play();
      QEventLoop loop;
      QTimer::singleShot(static_cast<int>(1000 * *options.measure), &loop, &QEventLoop::quit);
      const auto start = std::chrono::steady_clock::now();
      loop.exec();
      const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
      const WorkerSnapshot s = window.worker()->snapshot();
      window.plotTick();
      const std::size_t samples = window.runLog().time.size();
      err << "measure: " << wall << " s wall, sim t = " << s.time << " s, 3D view "
          << (window.view()->framesShown() - frames0) / wall << " fps (" << window.view()->width() << "x"
          << window.view()->height() << "), plots " << (plots.replotCount() - replots0) / wall << " Hz ("
          << channels << " channels, " << plots.pointCount() << " points, window 60 s), real-time factor "
          << s.time / wall << ", samples " << samples << " of " << std::lround(s.time / window.worker()->outputStep()) + 1
          << ", dropped " << s.dropped_samples << (s.failed ? ", FAILED: " + s.message : "") << "\n";
    }
    if (options.window_shot) {
      if (!options.export_plots && !options.screenshot && !simulateTo(window, t_end)) return stopped(t_end);
      for (int i = 0; i < 5; ++i) {  // let the plots and the view catch up
        window.plotTick();
        window.frameTick();
        QApplication::processEvents();
      }
      if (!window.grab().save(QString::fromStdString(*options.window_shot))) {
        err << "rbsim: cannot write '" << *options.window_shot << "'\n";
        return 1;
      }
      err << "wrote " << *options.window_shot << "\n";
    }
    if (options.record) {
      if (!window.recordVideo(*options.record, t_end, false)) {
        err << "rbsim: " << window.lastError().toStdString() << "\n";
        return 1;
      }
      err << "wrote " << *options.record << "\n";
    }
  } catch (const std::exception& e) {  // RenderError, a file that cannot be written
    err << "rbsim: " << e.what() << "\n";
    return 1;
  }
  return 0;
}

}  // namespace rbs::ui
