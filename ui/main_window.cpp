#include "ui/main_window.h"

#include <cmath>
#include <fstream>
#include <iostream>
#include <stdexcept>
#include <utility>

#include <QAction>
#include <QActionGroup>
#include <QApplication>
#include <QTimer>
#include <QDialog>
#include <QCloseEvent>
#include <QCheckBox>
#include <QComboBox>
#include <QDir>
#include <QDockWidget>
#include <QFileDialog>
#include <QFileInfo>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QInputDialog>
#include <QLabel>
#include <QLineEdit>
#include <QMenuBar>
#include <QMessageBox>
#include <QProgressDialog>
#include <QPushButton>
#include <QSettings>
#include <QShowEvent>
#include <QSpinBox>
#include <QScopedValueRollback>
#include <QToolBar>
#include <QUrl>
#include <QStatusBar>
#include <QVBoxLayout>

#include "core/control/registry.h"
#include "render/offscreen.h"
#include "sim/integrator.h"
#include "sim/push_forces.h"
#include "sim/scene_run.h"
#include "sim/study_results.h"
#include "ui/elided_label.h"
#include "ui/gain_panel.h"
#include "ui/help_dialogs.h"
#include "ui/scene_browser.h"
#include "ui/study_results_dialog.h"
#include "ui/video_export.h"
#include "ui/view3d.h"

namespace rbs::ui {
namespace {

constexpr int kFrameIntervalMs = 25;  ///< 3D view: 40 fps asked (≥ 30 required), as the renderer gives
constexpr int kPlotIntervalMs = 40;   ///< plots: 25 Hz asked (≥ 20 Hz required)
constexpr int kDefaultSpeedIndex = 3;  ///< ×1

QString speedText(double speed) {
  return speed == SimulationWorker::kMaxSpeed ? QObject::tr("as fast as possible") : QStringLiteral("×%1").arg(speed);
}

}  // namespace

const std::vector<double>& MainWindow::speeds() {
  static const std::vector<double> values = {0.1, 0.25, 0.5, 1.0, 2.0, 5.0, 10.0, SimulationWorker::kMaxSpeed};
  return values;
}

MainWindow::MainWindow(QWidget* parent) : QMainWindow(parent) {
  // When a dialog of this window (Open, About, the study results, F1, …) closes, the window takes
  // the keyboard back: without a window manager that does it (X servers without one, remote
  // desktops), Space, R and P reached no window until the user clicked into it (issue 49).
  qApp->installEventFilter(this);
  setWindowTitle("rbsim");
  view_ = new View3D(this);
  setCentralWidget(view_);
  // selecting and pushing bodies (issue 19): the view says where, the worker applies the spring
  connect(view_, &View3D::hint, this, [this](const QString& text) { statusBar()->showMessage(text, 6000); });
  connect(view_, &View3D::bodySelected, this, [this](int body) {
    inspect_->setBody(worker_ ? body : -1);
    if (!worker_ || body < 0) {
      statusBar()->showMessage(tr("No body selected"), 3000);
      return;
    }
    const Body& b = worker_->scene().model.bodies[body];
    inspect_dock_->raise();  // its state, live
    statusBar()->showMessage(tr("Selected body '%1' (%2 kg), its state in the Inspect panel: Ctrl+right-drag pulls it, "
                                "Ctrl+left-drag turns it, Esc clears the selection")
                                 .arg(QString::fromStdString(b.name))
                                 .arg(b.mass, 0, 'g', 4));
  });
  connect(view_, &View3D::pushChanged, this, [this](const std::optional<SpringPush>& push) {
    if (!worker_) return;
    const bool changed = push.has_value() != pushing_ || (push && push->harder != push_harder_);
    pushing_ = push.has_value();
    push_harder_ = push && push->harder;
    worker_->setPush(push);
    if (push && changed) {
      // How hard the mouse may push (sim/push_forces.h, PushLimits): shown while dragging.
      const Model& model = worker_->scene().model;
      const PushLimits limit = PushForces(model).limits(push->body);
      const double scale = push->harder ? PushForces::kHarderFactor : 1.0;
      const QString name = QString::fromStdString(model.bodies[push->body].name);
      const QString times = push->harder ? tr("%1 × ").arg(PushForces::kHarderFactor) : QString();
      const QString spare =
          limit.spare_share < 1.0 ? tr(" × %1: half its spare thrust").arg(limit.spare_share, 0, 'f', 2) : QString();
      const QString scene_cap = tr("the scene's mouse limit, its recovery envelope");
      const QString bound =
          push->mode == SpringPush::Mode::Force
              ? (limit.force_capped ? tr("up to %1 N (%2%3)").arg(scale * limit.force, 0, 'g', 3).arg(times, scene_cap)
                                    : tr("up to %1 N (%2its weight%3)").arg(scale * limit.force, 0, 'g', 3).arg(times, spare))
              : tr("up to %1 N m (%2%3%4)")
                    .arg(scale * limit.torque, 0, 'g', 3)
                    .arg(times)
                    .arg(limit.torque_capped           ? scene_cap
                         : limit.torque_from_joint     ? tr("half its joint's effort limit")
                         : limit.torque_from_actuators ? tr("its largest control torque")
                                                       : tr("%1 rad/s² of its inertia").arg(PushForces::kMaxAngularAcceleration))
                    .arg(limit.torque_capped ? QString() : spare) +
                    (push->mode == SpringPush::Mode::Torque && !push->harder && std::isfinite(limit.twist_duration)
                         ? tr(" for %1 s, as long as its recovery is guaranteed").arg(limit.twist_duration)
                         : QString());
      statusBar()->showMessage((push->mode == SpringPush::Mode::Force ? tr("Pulling '%1' %2") : tr("Turning '%1' %2"))
                                   .arg(name, bound) +
                               (push->harder ? tr(": release Shift to stay within what it can answer")
                                             : tr(": hold Shift to push harder or longer, release the mouse to "
                                                  "let go")));
    } else if (!push) {
      statusBar()->showMessage(tr("Released"), 3000);
    }
  });
  buildDocks();
  buildMenus();
  time_label_ = new QLabel(this);
  time_label_->setObjectName("status.time");
  rate_label_ = new QLabel(this);
  rate_label_->setObjectName("status.rate");
  drift_label_ = new QLabel(this);
  drift_label_->setObjectName("status.drift");
  recovery_label_ = new QLabel(this);
  recovery_label_->setObjectName("status.recovery");
  recovery_label_->setToolTip(tr("The controller left the manoeuvre after a push: it stabilizes the vehicle, flies it back "
                                 "to where the manoeuvre was left and rejoins it later (docs/CONTROL.md \"Recovery\")"));
  warning_label_ = new ElidedLabel(this);
  warning_label_->setObjectName("status.warning");
  QPalette warning_palette = warning_label_->palette();
  warning_palette.setColor(QPalette::WindowText, QColor(0xb0, 0x00, 0x20));
  warning_label_->setPalette(warning_palette);
  statusBar()->addWidget(time_label_);
  statusBar()->addWidget(rate_label_);
  statusBar()->addWidget(drift_label_);
  statusBar()->addWidget(recovery_label_);
  statusBar()->addWidget(warning_label_, 1);
  frame_timer_.setTimerType(Qt::PreciseTimer);
  plot_timer_.setTimerType(Qt::PreciseTimer);
  connect(&frame_timer_, &QTimer::timeout, this, &MainWindow::frameTick);
  connect(&plot_timer_, &QTimer::timeout, this, &MainWindow::plotTick);
  frame_timer_.start(kFrameIntervalMs);
  plot_timer_.start(kPlotIntervalMs);

  QSettings settings;
  restoreGeometry(settings.value("window/geometry").toByteArray());
  layout_restored_ = restoreState(settings.value("window/state").toByteArray());
  browser_->setRecentFiles(settings.value("scenes/recent").toStringList());
  export_folder_ = settings.value("export/folder").toString();  // where exports went last
  plots_->setExportFolder(export_folder_);
  connect(plots_, &PlotPanel::exported, this, [this](const QString& message, const QString& folder) {
    statusBar()->showMessage(message, 15000);
    rememberExportFolder(folder);
  });
  connect(gains_, &GainPanel::inputNotice, this, [this](const QString& m) {
    if (!m.isEmpty()) statusBar()->showMessage(m, 10000);
    else if (statusBar()->currentMessage() == last_gain_notice_) statusBar()->clearMessage();
    last_gain_notice_ = m;
  });
}

void MainWindow::showEvent(QShowEvent* event) {
  QMainWindow::showEvent(event);
  // after the first layout (the docks have no geometry before it); once: later the user's own
  // resizing stands
  if (!layout_restored_) QTimer::singleShot(0, this, [this] { applyDefaultDockWidths(); });
  layout_restored_ = true;
}

void MainWindow::applyDefaultDockWidths() {
  // left column ≤ 21 %, plots ≤ 26 % of the window: the 3D view keeps more than half of it (the
  // panels' minimum widths win on a narrow window)
  const int w = width();
  QList<QDockWidget*> left, right;
  for (QDockWidget* d : findChildren<QDockWidget*>())
    (dockWidgetArea(d) == Qt::RightDockWidgetArea ? right : left).push_back(d);
  if (!left.empty()) resizeDocks({left.front()}, {std::min(360, w * 21 / 100)}, Qt::Horizontal);
  if (!right.empty()) resizeDocks({right.front()}, {std::min(700, w * 26 / 100)}, Qt::Horizontal);
}

MainWindow::~MainWindow() { worker_.reset(); }

void MainWindow::buildDocks() {
  setDockNestingEnabled(true);
  const auto dock = [this](const QString& title, const char* name, QWidget* widget, Qt::DockWidgetArea area) {
    auto* d = new QDockWidget(title, this);
    d->setObjectName(name);
    d->setWidget(widget);
    addDockWidget(area, d);
    return d;
  };

  // run controls, controller and integrator
  auto* run = new QWidget(this);
  auto* run_layout = new QVBoxLayout(run);
  auto* buttons = new QHBoxLayout;
  play_button_ = new QPushButton(tr("Play"), run);
  auto* pause = new QPushButton(tr("Pause"), run);
  auto* step = new QPushButton(tr("Step"), run);
  auto* reset = new QPushButton(tr("Reset"), run);
  play_button_->setObjectName("run.play");
  pause->setObjectName("run.pause");
  step->setObjectName("run.step");
  reset->setObjectName("run.reset");
  play_button_->setToolTip(tr("play (Space toggles play and pause); at the scene's end, Play continues past it"));
  pause->setToolTip(tr("pause (P)"));
  step->setToolTip(tr("advance by the output samples set in Step by (S)"));
  reset->setToolTip(tr("back to t = 0 (R)"));
  for (QPushButton* b : {play_button_, pause, step, reset}) {
    // a click does not take the keyboard focus: Space stays Play/Pause rather than "press the
    // button clicked last" (Tab still reaches them)
    b->setFocusPolicy(Qt::TabFocus);
    b->setMinimumWidth(40);  // the left column may be narrow; the text still fits at its default width
    buttons->addWidget(b);
  }
  run_layout->addLayout(buttons);
  auto* form = new QFormLayout;
  speed_box_ = new QComboBox(run);
  speed_box_->setObjectName("run.speed");
  for (double s : speeds()) speed_box_->addItem(speedText(s), s);
  speed_box_->setCurrentIndex(kDefaultSpeedIndex);
  controller_box_ = new QComboBox(run);
  controller_box_->setObjectName("run.controller");
  stepper_box_ = new QComboBox(run);
  stepper_box_->setObjectName("run.integrator");
  speed_box_->setToolTip(tr("how fast simulated time runs against the clock; the simulation itself is the same"));
  controller_box_->setToolTip(tr("the controller computing the inputs; choosing one restarts at t = 0 (the scene's is marked)"));
  stepper_box_->setToolTip(tr("the numerical integrator; choosing one restarts at t = 0"));
  for (QComboBox* box : {speed_box_, controller_box_, stepper_box_}) {
    box->setSizeAdjustPolicy(QComboBox::AdjustToMinimumContentsLengthWithIcon);
    box->setMinimumContentsLength(10);
  }
  // time control: steps of several samples, a run to a typed time, looping at the scene's end
  step_box_ = new QSpinBox(run);
  step_box_->setObjectName("run.step_samples");
  step_box_->setRange(1, 1000000);
  step_box_->setToolTip(tr("how many output samples Step (S) advances"));
  until_field_ = new QLineEdit(run);
  until_field_->setObjectName("run.until");
  until_field_->setPlaceholderText(tr("t [s], Return"));
  until_field_->setToolTip(tr("type a time and press Return: runs as fast as possible to it, then pauses"));
  loop_box_ = new QCheckBox(tr("loop"), run);
  loop_box_->setObjectName("run.loop");
  loop_box_->setFocusPolicy(Qt::TabFocus);  // a click leaves Space to Play/Pause
  loop_box_->setToolTip(tr("at the scene's end time, start over at t = 0 and play on instead of pausing"));
  // two rows, so that the gains below keep their room: "Step [n] Run to [t]", "Speed [..] [x] loop"
  auto* time_row = new QHBoxLayout;
  time_row->addWidget(step_box_);
  time_row->addWidget(new QLabel(tr("Run to"), run));
  time_row->addWidget(until_field_, 1);
  form->addRow(tr("Step by"), time_row);
  auto* speed_row = new QHBoxLayout;
  speed_row->addWidget(speed_box_, 1);
  speed_row->addWidget(loop_box_);
  form->addRow(tr("Speed"), speed_row);
  form->addRow(tr("Controller"), controller_box_);
  form->addRow(tr("Integrator"), stepper_box_);
  run_layout->addLayout(form);
  run_layout->addStretch();
  dock(tr("Run"), "dock.run", run, Qt::LeftDockWidgetArea)->setMaximumWidth(480);
  connect(play_button_, &QPushButton::clicked, this, [this] { if (worker_) worker_->play(); });
  connect(pause, &QPushButton::clicked, this, [this] { if (worker_) worker_->pause(); });
  connect(step, &QPushButton::clicked, this, [this] { stepSamples(); });
  connect(until_field_, &QLineEdit::returnPressed, this, [this] { runToTypedTime(); });
  connect(loop_box_, &QCheckBox::toggled, this, [this](bool on) { if (worker_) worker_->setLoop(on); });
  connect(reset, &QPushButton::clicked, this, [this] { if (worker_) worker_->reset(); });
  connect(speed_box_, &QComboBox::currentIndexChanged, this, [this] {
    if (worker_) worker_->setSpeed(speed_box_->currentData().toDouble());
  });
  connect(controller_box_, &QComboBox::activated, this, [this] {
    restart(controller_box_->currentData().toString().toStdString(), worker_ ? worker_->stepperName() : "");
  });
  connect(stepper_box_, &QComboBox::activated, this, [this] {
    restart(worker_ ? worker_->controllerName() : "", stepper_box_->currentText().toStdString());
  });

  browser_ = new SceneBrowser(this);
  QDockWidget* scenes = dock(tr("Scenes"), "dock.scenes", browser_, Qt::LeftDockWidgetArea);
  scenes->setMaximumWidth(480);
  connect(browser_, &SceneBrowser::openRequested, this,
          [this](const QString& f) { openScene(f.toStdString(), LoadOptions{.package_paths = package_paths_}); });
  connect(browser_, &SceneBrowser::reloadRequested, this, [this] { reloadScene(); });
  connect(browser_, &SceneBrowser::openDialogRequested, this, [this] { openDialog(); });

  gains_ = new GainPanel(this);
  QDockWidget* gains = dock(tr("Gains"), "dock.gains", gains_, Qt::LeftDockWidgetArea);
  gains->setMaximumWidth(480);
  // scenes and gains share the left column's lower part as tabs, gains in front: both need height
  tabifyDockWidget(scenes, gains);
  gains->raise();
  connect(gains_, &GainPanel::parameterChanged, this, [this](int i, double v) { if (worker_) worker_->setParameter(i, v); });
  connect(gains_, &GainPanel::resetAll, this, [this] { if (worker_) worker_->resetParameters(); });

  // the selected body's state, a tab beside the scenes and gains
  inspect_ = new InspectPanel(this);
  inspect_dock_ = dock(tr("Inspect"), "dock.inspect", inspect_, Qt::LeftDockWidgetArea);
  inspect_dock_->setMaximumWidth(480);
  tabifyDockWidget(gains, inspect_dock_);
  gains->raise();

  plots_ = new PlotPanel(this);
  dock(tr("Plots"), "dock.plots", plots_, Qt::RightDockWidgetArea)->setMaximumWidth(1000);
  connect(inspect_, &InspectPanel::plotRequested, this, [this](const std::vector<std::string>& channels) {
    QStringList names;
    for (const std::string& c : channels) {
      plots_->addChannel(c);
      names << QString::fromStdString(c);
    }
    statusBar()->showMessage(tr("On the Custom plot: %1").arg(names.join(", ")), 5000);
  });
}

void MainWindow::buildMenus() {
  // Every entry says what it does in a tooltip (shown in the menus) and the status bar.
  auto add = [this](QMenu* menu, const QString& text, const QKeySequence& key, const QString& tip, auto&& slot) {
    QAction* a = menu->addAction(text, key, this, std::forward<decltype(slot)>(slot));
    a->setToolTip(tip);
    a->setStatusTip(tip);
    return a;
  };
  QMenu* file = menuBar()->addMenu(tr("&File"));
  file->setObjectName("menu.file");
  add(file, tr("&Open…"), QKeySequence::Open, tr("open a scene (YAML) or robot (URDF) file"), [this] { openDialog(); });
  add(file, tr("&Reload from disk"), QKeySequence(Qt::Key_F5), tr("read the current scene file again and start over"),
      [this] { reloadScene(); });
  add(file, tr("Open study &results…"), {},
      tr("a study's results file (rbsim-cli study … --out FILE): its runs in a table, and any run loaded into the window"),
      [this] { openStudyResultsDialog(); });
  add(file, tr("&Package folders…"), {}, tr("where package://… meshes of robot (URDF) files are looked up"),
      [this] { packagePathsDialog(); });
  file->addSeparator();
  add(file, tr("Export run as &CSV…"), {}, tr("write every channel of the run so far to a CSV file"),
      [this] { exportRunCsvDialog(); });
  add(file, tr("&Screenshot…"), {}, tr("save the 3D view as a PNG picture"), [this] { screenshotDialog(); });
  add(file, tr("Record &video…"), {}, tr("simulate from t = 0 and write an MP4 video of the 3D view"),
      [this] { videoDialog(); });
  file->addSeparator();
  add(file, tr("&Quit"), QKeySequence::Quit, tr("close rbsim"), [this] { close(); });
  QMenu* sim = menuBar()->addMenu(tr("&Simulation"));
  sim->setObjectName("menu.simulation");
  add(sim, tr("Play / pause"), QKeySequence(Qt::Key_Space), tr("run the simulation, or pause it when it runs"),
      [this] { togglePlay(); });
  add(sim, tr("Pause"), QKeySequence(Qt::Key_P), tr("stop at the current time"), [this] { if (worker_) worker_->pause(); });
  add(sim, tr("Step"), QKeySequence(Qt::Key_S), tr("advance by the output samples set in Step by (one by default)"),
      [this] { stepSamples(); });
  add(sim, tr("Reset"), QKeySequence(Qt::Key_R), tr("back to t = 0 with the scene's initial state"),
      [this] { if (worker_) worker_->reset(); });
  sim->addSeparator();
  // A robot file (URDF) has no joint to the world: its root link is fixed there unless asked
  // (issue 49: --floating existed on the command line only, and nothing said the base was fixed).
  floating_action_ = add(sim, tr("&Floating base"), {},
                         tr("a robot file's root link on a free joint (it flies or falls) instead of fixed to the world; "
                            "reloads the robot"),
                         [this] { setFloatingBase(floating_action_->isChecked()); });
  floating_action_->setObjectName("simulation.floating_base");
  floating_action_->setCheckable(true);
  floating_action_->setEnabled(false);
  QMenu* view = menuBar()->addMenu(tr("&View"));
  view->setObjectName("menu.view");
  for (QDockWidget* d : findChildren<QDockWidget*>()) {
    QAction* a = d->toggleViewAction();
    a->setToolTip(tr("show or hide the %1 panel").arg(d->windowTitle()));
    view->addAction(a);
  }
  buildViewControls(view);
  QMenu* help = menuBar()->addMenu(tr("&Help"));
  help->setObjectName("menu.help");
  add(help, tr("&Keyboard shortcuts and mouse"), QKeySequence(Qt::Key_F1),
      tr("list every shortcut and mouse gesture"), [this] { showShortcuts(); });
  add(help, tr("&About rbsim"), {}, tr("version, and the libraries rbsim is built on with their licenses"),
      [this] { showAbout(); });
  for (QMenu* m : {file, sim, view, help}) m->setToolTipsVisible(true);
}

void MainWindow::buildViewControls(QMenu* view) {
  // The overlays of render/ and the camera presets, in the View menu and on a toolbar; the
  // choices are kept per scene file (restoreViewChoices).
  auto* toolbar = addToolBar(tr("View"));
  toolbar->setObjectName("view.toolbar");
  toolbar->setToolTip(tr("what the 3D view shows and from where"));
  view->addSeparator();
  struct OverlayText {
    render::Overlay overlay;
    QString label, tip;
  };
  const OverlayText overlays[] = {
      {render::Overlay::Ground, tr("Ground"), tr("the ground grid")},
      {render::Overlay::BodyFrames, tr("Body frames"), tr("each body's frame as red, green, blue axes")},
      {render::Overlay::ReferenceGhost, tr("Reference ghost"), tr("the bodies at the reference pose, translucent")},
      {render::Overlay::Trails, tr("Trails"), tr("the recent path of the free bodies' centres of mass")},
      {render::Overlay::ForceArrows, tr("Force arrows"), tr("thrusts and body forces of the actuators as arrows")},
      {render::Overlay::Hud, tr("HUD"), tr("scene name, time and state written over the view")},
  };
  for (const OverlayText& o : overlays) {
    QAction* a = view->addAction(o.label);
    a->setObjectName(QString::fromStdString("view.overlay." + render::overlayName(o.overlay)));
    a->setCheckable(true);
    a->setChecked(view_->overlay(o.overlay));
    a->setToolTip(tr("show or hide %1").arg(o.tip));
    a->setStatusTip(a->toolTip());
    connect(a, &QAction::toggled, this, [this, overlay = o.overlay](bool on) {
      view_->setOverlay(overlay, on);
      saveViewChoices();
    });
    toolbar->addAction(a);
    overlay_actions_.push_back({o.overlay, a});
  }
  view->addSeparator();
  toolbar->addSeparator();
  struct CameraText {
    const char* name;
    QString label, tip;
  };
  const CameraText cameras[] = {
      {"scene", tr("Scene camera"), tr("the camera the scene file sets")},
      {"fit", tr("Fit all"), tr("frame every body, seen from the scene camera's direction")},
      {"follow", tr("Follow"), tr("orbit about the selected body, else the scene camera's body or the first free body, as it moves")},
      {"front", tr("Front"), tr("look along −x at the scene camera's target")},
      {"side", tr("Side"), tr("look along +y at the scene camera's target")},
      {"top", tr("Top"), tr("look down at the scene camera's target")},
      {"iso", tr("Iso"), tr("look from +x, −y and above at the scene camera's target")},
  };
  // the preset last chosen is marked (issue 49: nothing said which one was active)
  auto* presets = new QActionGroup(this);
  presets->setExclusive(true);
  for (const CameraText& c : cameras) {
    QAction* a = view->addAction(c.label);
    a->setObjectName(QString("view.camera.") + c.name);
    a->setCheckable(true);
    presets->addAction(a);
    camera_actions_[c.name] = a;
    a->setToolTip(tr("camera: %1").arg(c.tip));
    a->setStatusTip(a->toolTip());
    connect(a, &QAction::triggered, this, [this, name = std::string(c.name)] { applyCameraPreset(name, true); });
    toolbar->addAction(a);
  }
}

void MainWindow::applyCameraPreset(const std::string& name, bool remember) {
  try {
    view_->setCameraPreset(name);
  } catch (const std::invalid_argument& e) {  // follow without a body to follow
    statusBar()->showMessage(tr("camera %1: %2").arg(QString::fromStdString(name), QString::fromStdString(e.what())), 8000);
    markCameraPreset();  // the one still in effect
    return;
  }
  if (remember) {
    camera_preset_ = name;
    saveViewChoices();
  }
  markCameraPreset();
}

void MainWindow::markCameraPreset() {
  for (const auto& [name, action] : camera_actions_) action->setChecked(name == camera_preset_);
}

/// QSettings group of the view choices for a scene file: its absolute path, percent-encoded (no
/// '/' or '\\', which QSettings reads as group separators, and no two paths alike).
static QString viewKey(const std::filesystem::path& file) {
  const QString path = QString::fromStdString(std::filesystem::absolute(file).lexically_normal().string());
  return "view_per_scene/" + QString::fromLatin1(QUrl::toPercentEncoding(path));
}

void MainWindow::saveViewChoices() {
  if (restoring_view_ || !persistent_ || !scene_ || scene_->file.empty()) return;
  QSettings settings;
  settings.beginGroup(viewKey(scene_->file));
  for (const auto& [overlay, action] : overlay_actions_)
    settings.setValue(QString::fromStdString(render::overlayName(overlay)), action->isChecked());
  settings.setValue("camera", QString::fromStdString(camera_preset_));
  settings.endGroup();
}

void MainWindow::restoreViewChoices() {
  const QScopedValueRollback<bool> restoring(restoring_view_, true);
  if (scene_->file == view_file_) {  // the same file again (a new run): the choices of this session
    if (camera_preset_ != "scene") applyCameraPreset(camera_preset_, false);
    for (const auto& [overlay, action] : overlay_actions_) action->setChecked(view_->overlay(overlay));
    return;
  }
  view_file_ = scene_->file;
  camera_preset_ = "scene";
  if (persistent_ && !scene_->file.empty()) {
    QSettings settings;
    settings.beginGroup(viewKey(scene_->file));
    for (const auto& [overlay, action] : overlay_actions_) {
      const QString key = QString::fromStdString(render::overlayName(overlay));
      if (settings.contains(key)) view_->setOverlay(overlay, settings.value(key).toBool());
    }
    camera_preset_ = settings.value("camera", "scene").toString().toStdString();
    settings.endGroup();
    if (camera_preset_ != "scene") applyCameraPreset(camera_preset_, false);
  }
  for (const auto& [overlay, action] : overlay_actions_) action->setChecked(view_->overlay(overlay));
  markCameraPreset();
}

void MainWindow::stepSamples() {
  if (worker_) worker_->step(step_box_->value());
}

void MainWindow::runToTypedTime() {
  if (!worker_) return;
  ParameterSpec spec;
  spec.name = "run to";
  spec.unit = "s";
  spec.min = 0.0;
  spec.max = 1e9;
  const double now = worker_->snapshot().time;
  const ParsedInput in = parseParameterInput(spec, until_field_->text(), now);
  if (in.status == ParsedInput::Status::Refused) {
    statusBar()->showMessage(tr("run to: '%1' is not a number; type a time in seconds, e.g. 2.5").arg(until_field_->text()),
                             8000);
    return;
  }
  if (in.value <= now) {
    statusBar()->showMessage(tr("run to: t = %1 s is not after the current time %2 s")
                                 .arg(formatParameterValue(in.value), formatParameterValue(now)),
                             8000);
    return;
  }
  worker_->runUntil(in.value);
  run_to_notice_ = tr("running to t = %1 s").arg(formatParameterValue(in.value));
  run_to_target_ = in.value;
  statusBar()->showMessage(run_to_notice_, 4000);
}

void MainWindow::showShortcuts() {
  if (shortcuts_dialog_) {
    shortcuts_dialog_->raise();
    shortcuts_dialog_->activateWindow();
    return;
  }
  QList<QMenu*> menus;
  for (QAction* a : menuBar()->actions())
    if (a->menu()) menus.push_back(a->menu());
  shortcuts_dialog_ = makeShortcutsDialog(this, menus);
  shortcuts_dialog_->show();
}

void MainWindow::showAbout() {
  // not modal, like the error messages: scripted use and tests must not block on it
  auto* box = new QMessageBox(QMessageBox::NoIcon, tr("About rbsim"), aboutText(), QMessageBox::Close, this);
  box->setObjectName("help.about");
  box->setTextFormat(Qt::RichText);
  box->setAttribute(Qt::WA_DeleteOnClose);
  box->setModal(false);
  box->show();
}

void MainWindow::showError(const QString& title, const QString& message) {
  last_error_ = message;
  warning_label_->setText(message);
  // not modal: scripted use and tests must not block on it
  auto* box = new QMessageBox(QMessageBox::Warning, title, message, QMessageBox::Ok, this);
  box->setAttribute(Qt::WA_DeleteOnClose);
  box->setModal(false);
  box->show();
}

LoadOptions MainWindow::withPackageFolders(LoadOptions options) const {
  for (const QString& dir : QSettings().value("resources/package_paths").toStringList())
    if (!dir.trimmed().isEmpty()) options.package_paths.emplace_back(dir.trimmed().toStdString());
  return options;
}

void MainWindow::packagePathsDialog() {
  bool ok = false;
  const QString current = QSettings().value("resources/package_paths").toStringList().join('\n');
  const QString text = QInputDialog::getMultiLineText(
      this, tr("Package folders"),
      tr("Folders where package://PACKAGE/… meshes of robot files are looked up, one per line: a package\n"
         "folder or a folder holding packages. Searched before ROS_PACKAGE_PATH, AMENT_PREFIX_PATH and the\n"
         "folders above the robot file. Applies to scenes opened or reloaded from now on."),
      current, &ok);
  if (!ok) return;
  QStringList dirs;
  for (const QString& line : text.split('\n'))
    if (!line.trimmed().isEmpty()) dirs << line.trimmed();
  QSettings().setValue("resources/package_paths", dirs);
  statusBar()->showMessage(tr("%n package folder(s) set; F5 reloads the scene with them", "", static_cast<int>(dirs.size())), 5000);
}

std::shared_ptr<const Scene> MainWindow::loadForRun(const std::filesystem::path& file, const LoadOptions& options,
                                                    const RunOverrides& run, const QString& error_title) {
  try {
    Scene scene = loadScene(file, withPackageFolders(options));
    if (run.stepper || run.t_end || run.dt_out || run.dt || run.rtol || run.atol) scene.integrator = runSettings(scene.integrator, run);
    return std::make_shared<const Scene>(std::move(scene));
  } catch (const std::exception& e) {  // SceneError: file:line:column: what; invalid_argument: a run setting
    showError(error_title, QString::fromStdString(e.what()));
    return nullptr;
  }
}

bool MainWindow::openScene(std::filesystem::path file, LoadOptions options, RunOverrides run) {
  if (package_paths_.empty()) package_paths_ = options.package_paths;  // the command line's, for the session
  const std::shared_ptr<const Scene> scene = loadForRun(file, options, run, tr("Cannot load scene"));
  if (!scene) return false;
  const QString kept_note = std::exchange(title_note_, QString());  // a plain scene's title, unless start fails
  if (!start(scene, run.controller.value_or(""), "")) {
    title_note_ = kept_note;
    return false;
  }
  load_options_ = std::move(options);
  run_overrides_ = std::move(run);
  browser_->setCurrent(file);
  if (!persistent_) return true;
  QSettings settings;
  settings.setValue("scenes/last", QString::fromStdString(std::filesystem::absolute(file).string()));
  settings.setValue("scenes/recent", browser_->recentFiles());
  return true;
}

bool MainWindow::hasFreeRoot(const Model& model) {
  return std::any_of(model.joints.begin(), model.joints.end(), [](const Joint& j) {
    return j.parent < 0 && (j.type == JointType::Free || j.type == JointType::FreeQuaternion);
  });
}

void MainWindow::setFloatingBase(bool on) {
  if (!scene_ || !isRobotFile(scene_->file)) return;
  const bool before = load_options_.floating_base;
  load_options_.floating_base = on;
  if (reloadScene()) {
    statusBar()->showMessage(on ? tr("The robot's root link is on a free joint: it flies or falls")
                                : tr("The robot's root link is fixed to the world"),
                             6000);
    return;
  }
  load_options_.floating_base = before;  // the robot as it was
  const QSignalBlocker quiet(floating_action_);
  floating_action_->setChecked(before);
}

bool MainWindow::reloadScene() {
  if (!scene_ || !worker_) return false;
  // the user's choices, where they differ from the scene's ("" = the scene's)
  const std::string controller = worker_->controllerName() == scene_->controller.name ? "" : worker_->controllerName();
  const std::string stepper = worker_->stepperName() == scene_->integrator.stepper ? "" : worker_->stepperName();
  const std::filesystem::path file = scene_->file;  // copies: start() replaces the scene that owns them
  const std::shared_ptr<const Scene> scene = loadForRun(file, load_options_, run_overrides_, tr("Cannot reload the scene"));
  if (!scene) return false;
  bool ok = start(scene, controller, stepper);
  if (!ok && !(controller.empty() && stepper.empty())) ok = start(scene, "", "");  // the file no longer allows them
  if (!ok) return false;
  statusBar()->showMessage(tr("Reloaded %1").arg(QString::fromStdString(file.string())), 5000);
  return true;
}

void MainWindow::openDialog() {
  // start where the current scene is (else the library)
  const QString dir = QString::fromStdString(
      (scene_ && !scene_->file.empty() ? scene_->file.parent_path() : libraryDir()).string());
  const QString f = QFileDialog::getOpenFileName(this, tr("Open scene"), dir, tr("Scenes and robots (*.yaml *.yml *.urdf);;All files (*)"));
  if (!f.isEmpty()) openScene(f.toStdString(), LoadOptions{.package_paths = package_paths_});
}

void MainWindow::updateWindowTitle() {
  if (!scene_) return;
  setWindowTitle(QStringLiteral("rbsim — %1%2")
                     .arg(QString::fromStdString(scene_->name.empty() ? scene_->file.stem().string() : scene_->name),
                          title_note_.isEmpty() ? QString() : " (" + title_note_ + ")"));
}

std::optional<std::filesystem::path> MainWindow::studyFileOf(const StudyResultsTable& results) {
  // Beside the results (by its content's hash), where the user showed it last time, else the user
  // shows it now.
  const QString located_key = "studies/located/" + QString::fromStdString(results.study_hash);
  if (auto found = findStudyFile(results.file, results.scene_hash, results.study_hash)) return found;
  if (persistent_) {
    const std::string remembered = QSettings().value(located_key).toString().toStdString();
    std::error_code ec;
    if (!remembered.empty() && std::filesystem::exists(remembered, ec) && studyFileHash(remembered) == results.study_hash)
      return remembered;
  }
  const QString name = QString::fromStdString(results.file.filename().string());
  // (a dialog of our own: its field says what is asked for, where a window manager shows no title)
  QFileDialog locate(this, tr("Where is the study file of %1?").arg(name), QString::fromStdString(results.file.parent_path().string()),
                     tr("Study files (*.yaml *.yml);;All files (*)"));
  locate.setFileMode(QFileDialog::ExistingFile);
  locate.setLabelText(QFileDialog::FileName, tr("Study file of %1:").arg(name));
  const QString s = locate.exec() == QDialog::Accepted && !locate.selectedFiles().isEmpty() ? locate.selectedFiles().front() : QString();
  if (s.isEmpty()) {
    statusBar()->showMessage(tr("No study file given: the runs of ") + name + tr(" cannot be loaded"), 8000);
    return std::nullopt;
  }
  const std::string hash = studyFileHash(s.toStdString());
  if (hash != results.study_hash) {
    showError(tr("Not the study of these results"),
              tr("%1 is not the study file that wrote %2, or it changed since: its content differs (hash %3; the results "
                 "were written by %4). Choose the file the study ran with, or run the study again.")
                  .arg(s, name, QString::fromStdString(hash), QString::fromStdString(results.study_hash)));
    return std::nullopt;
  }
  if (persistent_) QSettings().setValue(located_key, s);
  return s.toStdString();
}

void MainWindow::openStudyResultsDialog() {
  const QString f = QFileDialog::getOpenFileName(this, tr("Open study results"), study_folder_.isEmpty() ? QDir::currentPath() : study_folder_,
                                                 tr("Study results (*.csv);;All files (*)"));
  if (f.isEmpty()) return;
  study_folder_ = QFileInfo(f).absolutePath();
  StudyResultsTable results;
  try {
    results = readStudyResults(f.toStdString());
  } catch (const std::exception& e) {
    showError(tr("Cannot open study results"), QString::fromStdString(e.what()));
    return;
  }
  const std::optional<std::filesystem::path> study_file = studyFileOf(results);
  if (!study_file) return;
  Study study;
  try {
    study = loadStudy(*study_file);
  } catch (const std::exception& e) {
    showError(tr("Cannot read the study file"), QString::fromStdString(e.what()));
    return;
  }
  const std::string hashes = studyHashes(study);
  std::error_code ec;
  using SceneState = StudyResultsDialog::SceneState;
  const SceneState scene_state = !std::filesystem::is_regular_file(study.scene, ec)              ? SceneState::Missing
                                 : hashes.substr(0, hashes.find(',')) != results.scene_hash ? SceneState::Changed
                                                                                              : SceneState::Same;
  if (study_dialog_) study_dialog_->close();
  study_dialog_ = new StudyResultsDialog(std::move(results), std::move(study), scene_state, this);
  study_dialog_->setAttribute(Qt::WA_DeleteOnClose);
  connect(study_dialog_, &StudyResultsDialog::loadRequested, this, [this](long run) { openStudyRun(run); });
  study_dialog_->show();
  statusBar()->showMessage(tr("Study results of ") + QString::fromStdString(study_dialog_->study().name) +
                               tr(": select a run and Load run"), 8000);
}

bool MainWindow::openStudyRun(long run) {
  if (!study_dialog_) return false;
  // copies: loading may take a while, and the dialog is the user's to close meanwhile
  const Study study = study_dialog_->study();
  const StudyRunSpec* found = study_dialog_->runSpec(run);
  if (!found) {  // a row of a run the study file does not have
    showError(tr("Cannot load the run"), tr("The study '") + QString::fromStdString(study.name) + tr("' has no run ") +
                                             QString::number(run));
    return false;
  }
  const StudyRunSpec spec = *found;
  const QString description = study_dialog_->describeRun(run);
  LoadOptions options = studyRunLoadOptions(study, spec);
  options.package_paths = package_paths_;
  if (!openScene(study.scene.lexically_normal(), std::move(options), studyRunOverrides(study))) return false;
  title_note_ = tr("study ") + QString::fromStdString(study.name) + tr(", run ") + QString::number(run);
  updateWindowTitle();
  statusBar()->showMessage(tr("Run %1 loaded, paused at t = 0: ").arg(run) + description, 20000);
  return true;
}

void MainWindow::togglePlay() {
  if (!worker_) return;
  if (worker_->snapshot().running) worker_->pause();
  else worker_->play();
}

bool MainWindow::restart(const std::string& controller, const std::string& stepper) {
  if (!scene_) return false;
  return start(scene_, controller, stepper);
}

bool MainWindow::start(std::shared_ptr<const Scene> scene, const std::string& controller, const std::string& stepper) {
  std::unique_ptr<SimulationWorker> worker;
  try {
    worker = std::make_unique<SimulationWorker>(scene, controller, stepper);
  } catch (const std::exception& e) {  // SceneError (controller, reference), invalid_argument (integrator)
    showError(tr("Cannot start the simulation"), QString::fromStdString(e.what()));
    fillSelectors();  // back to what runs
    return false;
  }
  worker_ = std::move(worker);  // the old worker's thread stops here
  worker_->setLoop(loop_box_->isChecked());
  scene_ = std::move(scene);
  last_error_.clear();
  warning_.clear();
  failure_shown_ = false;
  end_shown_ = false;
  shown_serial_ = 0;
  shown_log_dropped_ = 0;
  run_ = 0;
  log_.channels = worker_->channels();
  log_.clear();
  recovery_channel_ = log_.channels.find("control.recovery");
  delay_channel_ = log_.channels.find("control.delay");
  // What the scene file says but rbsim does not simulate as written (SceneWarning), then what the
  // 3D view could not show: in the warning label for the whole run, all of it in its tooltip.
  std::string warnings;
  const auto add = [&](const std::string& w) { warnings += (warnings.empty() ? "" : "; ") + w; };
  for (const SceneWarning& w : scene_->warnings) add(w.text());
  if (const bool urdf = isRobotFile(scene_->file); floating_action_) {
    const QSignalBlocker quiet(floating_action_);
    floating_action_->setEnabled(urdf);
    floating_action_->setChecked(urdf && hasFreeRoot(scene_->model));
    if (urdf && !hasFreeRoot(scene_->model))
      add(tr("the robot's root link is fixed to the world (Simulation > Floating base lets it move)").toStdString());
  }
  try {
    for (const std::string& w : view_->setScene(*scene_)) add(w);
    restoreViewChoices();
  } catch (const std::exception& e) {
    add(e.what());
  }
  warning_ = QString::fromStdString(warnings);
  plots_->setup(&log_, scene_->plots, worker_->scene().model);
  inspect_->setup(&log_, worker_->scene().model);
  inspect_->setBody(view_->selectedBody());  // a reload of the same file keeps the selection
  gains_->setParameters(worker_->parameterSpecs());
  worker_->setSpeed(speed_box_->currentData().toDouble());
  fillSelectors();
  updateWindowTitle();
  frameTick();
  plotTick();
  return true;
}

void MainWindow::fillSelectors() {
  if (!worker_) return;
  {
    const QSignalBlocker block(controller_box_);
    controller_box_->clear();
    const std::string& own = scene_->controller.name;
    if (!own.empty()) controller_box_->addItem(tr("%1 (scene)").arg(QString::fromStdString(own)), QString::fromStdString(own));
    for (const ControllerInfo& c : controllerCatalog()) {
      if (c.name == own) continue;
      controller_box_->addItem(QString::fromStdString(c.name), QString::fromStdString(c.name));
      controller_box_->setItemData(controller_box_->count() - 1, QString::fromStdString(c.description), Qt::ToolTipRole);
    }
    controller_box_->addItem(tr("none (zero inputs)"), QStringLiteral("none"));
    controller_box_->setCurrentIndex(std::max(0, controller_box_->findData(QString::fromStdString(worker_->controllerName()))));
  }
  const QSignalBlocker block(stepper_box_);
  stepper_box_->clear();
  for (StepperKind k : kAllSteppers) stepper_box_->addItem(QString::fromStdString(std::string(stepperName(k))));
  stepper_box_->setCurrentText(QString::fromStdString(worker_->stepperName()));
}

QString MainWindow::warning() const { return warning_label_->text(); }

QString MainWindow::recoveryPhase() const {
  if (recovery_channel_ < 0 || log_.values.empty()) return {};
  const double phase = log_.values.back()[static_cast<std::size_t>(recovery_channel_)];
  if (!std::isfinite(phase)) return {};  // a failed compute writes NaN into the controller's channels
  switch (static_cast<int>(phase)) {
    case 1: return tr("stabilizing");
    case 2: return tr("returning");
    case 3: return tr("rejoining");
    default: return {};
  }
}

void MainWindow::frameTick() {
  if (!worker_) return;
  const WorkerSnapshot s = worker_->takeSnapshot(path_);
  render::HudInfo hud;
  hud.scene_name = scene_->name.empty() ? scene_->file.stem().string() : scene_->name;
  hud.time = s.time;
  hud.real_time_factor = s.running && !recording_ ? s.real_time_factor : std::nan("");
  hud.status = recording_ ? "recording video" : s.failed ? "stopped" : s.running ? "running" : s.at_end ? "end" : "paused";
  const QString phase = recoveryPhase();
  if (!phase.isEmpty()) hud.status += " · recovery: " + phase.toStdString();
  view_->showFrame(s.frame, hud, path_);
  // The status line also depends on the run log, which plotTick trims between snapshots.
  if (s.serial == shown_serial_ && log_.dropped == shown_log_dropped_) return;
  shown_serial_ = s.serial;
  shown_log_dropped_ = log_.dropped;
  time_label_->setText(tr("t = %1 s").arg(s.time, 0, 'f', 3));
  rate_label_->setText(s.running  ? tr("real time ×%1").arg(s.real_time_factor, 0, 'f', 2)
                       : s.at_end ? tr("paused at the end")
                                  : tr("paused"));
  drift_label_->setText(tr("drift %1").arg(s.drift, 0, 'e', 1));
  if (phase.isEmpty()) {
    recovery_label_->clear();
  } else {
    const double late = delay_channel_ >= 0 ? log_.values.back()[static_cast<std::size_t>(delay_channel_)] : 0.0;
    recovery_label_->setText(tr("recovery: %1, manoeuvre %2 s late").arg(phase).arg(late, 0, 'f', 1));
  }
  play_button_->setEnabled(!s.running && !s.failed);
  gains_->showApplied(s.parameters);
  QString warning = warning_;
  const auto add = [&](const QString& w) { warning += (warning.isEmpty() ? "" : "  |  ") + w; };
  if (!last_error_.isEmpty()) add(last_error_);  // a failed open or switch, until the next start
  if (s.failed) add(tr("stopped: %1").arg(QString::fromStdString(s.message)));
  if (!s.parameter_error.empty()) add(QString::fromStdString(s.parameter_error));
  if (s.dropped_samples > 0) add(tr("%1 samples dropped").arg(s.dropped_samples));
  if (log_.dropped > 0 && !log_.time.empty())
    add(tr("run log and plots keep t ≥ %1 s (memory bound)").arg(log_.time.front(), 0, 'f', 2));
  if (!view_->error().empty()) add(tr("3D view: %1").arg(QString::fromStdString(view_->error())));
  if (s.at_end) add(tr("paused at the scene's end t = %1 s; Play continues").arg(worker_->endTime()));
  warning_label_->setText(warning);
  if (s.failed && !failure_shown_) {
    failure_shown_ = true;
    statusBar()->showMessage(tr("Simulation paused: %1").arg(QString::fromStdString(s.message)), 10000);
  }
  if (s.at_end && !end_shown_) {
    end_shown_ = true;
    end_notice_ = tr("Reached the scene's end t = %1 s: paused. Play continues past it.").arg(worker_->endTime());
    statusBar()->showMessage(end_notice_, 10000);
  }
  // notices that the run has outlived: "running to …" once it paused there, "… end: paused" once
  // it plays on (issue 49: both stayed for their whole timeout)
  const QString shown = statusBar()->currentMessage();
  const bool at_target = s.time >= run_to_target_ - 0.5 * worker_->outputStep();
  if (!s.running && !shown.isEmpty() && shown == run_to_notice_ && at_target)
    statusBar()->showMessage(tr("ran to t = %1 s: paused").arg(s.time, 0, 'g', 6), 4000);
  if (s.running && !shown.isEmpty() && shown == end_notice_) statusBar()->clearMessage();
  if (!s.at_end) end_shown_ = false;
}

void MainWindow::plotTick() {
  if (!worker_) return;
  worker_->drainSamples(batch_);
  if (batch_.run != run_) {  // a reset: the plots start over
    run_ = batch_.run;
    log_.clear();
    plots_->clearData();
  }
  log_.time.insert(log_.time.end(), batch_.time.begin(), batch_.time.end());
  log_.values.append(batch_.values);
  if (const std::size_t capacity = runLogCapacity(); log_.time.size() > capacity) {
    // a quarter at once: O(1) per sample on average
    const std::size_t drop = log_.time.size() - capacity + capacity / 4;
    log_.dropOldest(drop);
    plots_->dropOldest(drop);
  }
  plots_->refresh();
  inspect_->refresh();
}

std::size_t MainWindow::runLogCapacity() const {
  if (run_log_fixed_capacity_ > 0) return run_log_fixed_capacity_;
  // a sample: its time and channels in the log (SampleTable, 8 bytes each), and a (key, value)
  // point of 16 bytes in every curve shown (QCPGraphData)
  const std::size_t bytes = sizeof(double) * (static_cast<std::size_t>(log_.channels.size()) + 1) +
                            2 * sizeof(double) * static_cast<std::size_t>(plots_->totalCurveCount());
  return std::max<std::size_t>(kRunLogBytes / bytes, 4);
}

double MainWindow::framesPerSecond() const { return view_->framesPerSecond(); }
double MainWindow::replotsPerSecond() const { return plots_->replotsPerSecond(); }

void MainWindow::writeRunCsv(const std::filesystem::path& file) const {
  Recording recording;
  recording.channels = log_.channels;
  recording.time = log_.time;
  recording.values = log_.values;
  std::ofstream out(file);
  writeCsv(out, recording);
  if (!out.flush()) throw std::runtime_error("cannot write '" + file.string() + "'");
}

void MainWindow::writeScreenshot(const std::filesystem::path& file, int width, int height) {
  frameTick();
  const render::Image& image = view_->renderAt(width, height);
  if (image.width == 0) throw render::RenderError("no 3D view: " + view_->error());
  render::writePng(image, file);
}

bool MainWindow::recordVideo(const std::filesystem::path& file, double t_end, bool interactive) {
  if (!scene_ || !worker_ || recording_) return false;
  // The scene stays alive whatever the progress dialog's event processing does.
  const std::shared_ptr<const Scene> scene = scene_;
  VideoRequest request;
  request.file = file;
  request.t_end = t_end;
  request.controller = worker_->controllerName();
  request.stepper = worker_->stepperName();
  const WorkerSnapshot s = worker_->snapshot();
  for (std::size_t i = 0; i < s.parameters.size(); ++i) request.parameters.emplace_back(static_cast<int>(i), s.parameters[i]);
  request.camera = view_->camera();
  const bool was_running = s.running;
  worker_->pause();
  // One renderer at a time: the live view stops drawing until the video is written, and the
  // window takes no other command meanwhile (the dialog is modal; menus and docks are disabled).
  recording_ = true;
  frameTick();  // the live view's last picture says "recording video" while it waits
  view_->setDrawingSuspended(true);
  menuBar()->setEnabled(false);
  for (QDockWidget* d : findChildren<QDockWidget*>()) d->widget()->setEnabled(false);
  std::unique_ptr<QProgressDialog> dialog;
  if (interactive) {
    dialog = std::make_unique<QProgressDialog>(tr("Recording %1").arg(QString::fromStdString(file.string())),
                                               tr("Cancel"), 0, 1000, this);
    dialog->setWindowModality(Qt::WindowModal);
    dialog->setMinimumDuration(0);
  }
  int last_percent = -1;
  const VideoResult result = ui::recordVideo(*scene, request, [&](double t, double end) {
    const int permille = static_cast<int>(1000.0 * t / std::max(end, 1e-9));
    if (dialog) {
      dialog->setValue(permille);
      QApplication::processEvents();
      return !dialog->wasCanceled() && !close_requested_;
    }
    if (permille / 100 != last_percent) {
      last_percent = permille / 100;
      std::cerr << "\rrecording " << file.string() << ": " << last_percent * 10 << " %" << std::flush;
    }
    return true;
  });
  if (!dialog) std::cerr << "\n";
  dialog.reset();
  for (QDockWidget* d : findChildren<QDockWidget*>()) d->widget()->setEnabled(true);
  menuBar()->setEnabled(true);
  view_->setDrawingSuspended(false);
  recording_ = false;
  if (close_requested_) {
    QTimer::singleShot(0, this, &QWidget::close);
    return result.ok;
  }
  if (was_running && worker_) worker_->play();
  frameTick();
  if (!result.ok && !result.cancelled)
    showError(tr("Video"), tr("The video stopped after %1 frames: %2").arg(result.frames).arg(QString::fromStdString(result.message)));
  else if (interactive)
    statusBar()->showMessage(tr("Wrote %1 frames to %2%3").arg(result.frames).arg(QString::fromStdString(file.string()))
                                 .arg(result.cancelled ? tr(" (cancelled)") : ""), 10000);
  return result.ok;
}

void MainWindow::rememberExportFolder(const QString& folder) {
  export_folder_ = folder;
  plots_->setExportFolder(folder);
  if (persistent_) QSettings().setValue("export/folder", folder);
}

QString MainWindow::exportPath(const QString& file_name) const {
  return export_folder_.isEmpty() ? file_name : QDir(export_folder_).filePath(file_name);
}

void MainWindow::exportRunCsvDialog() {
  const QString f = QFileDialog::getSaveFileName(this, tr("Export run as CSV"), exportPath("run.csv"), tr("CSV (*.csv)"));
  if (f.isEmpty()) return;
  try {
    writeRunCsv(f.toStdString());
    statusBar()->showMessage(tr("Wrote the run (%1 samples) to %2").arg(log_.time.size()).arg(f), 15000);
    rememberExportFolder(QFileInfo(f).absolutePath());
  } catch (const std::exception& e) {
    showError(tr("Export"), QString::fromStdString(e.what()));
  }
}

void MainWindow::screenshotDialog() {
  const QString f =
      QFileDialog::getSaveFileName(this, tr("Screenshot of the 3D view"), exportPath("screenshot.png"), tr("PNG (*.png)"));
  if (f.isEmpty()) return;
  try {
    writeScreenshot(f.toStdString(), view_->width() & ~1, view_->height() & ~1);
    statusBar()->showMessage(tr("Saved the 3D view to %1").arg(f), 15000);
    rememberExportFolder(QFileInfo(f).absolutePath());
  } catch (const std::exception& e) {
    showError(tr("Screenshot"), QString::fromStdString(e.what()));
  }
}

void MainWindow::videoDialog() {
  if (!scene_) return;
  const QString f = QFileDialog::getSaveFileName(this, tr("Record video"), exportPath("rbsim.mp4"), tr("MP4 video (*.mp4)"));
  if (f.isEmpty()) return;
  bool ok = false;
  const double t_end = QInputDialog::getDouble(this, tr("Record video"), tr("Simulated time [s]"),
                                               scene_->integrator.t_end, 0.1, 3600.0, 2, &ok);
  if (!ok) return;
  rememberExportFolder(QFileInfo(f).absolutePath());
  recordVideo(f.toStdString(), t_end, true);
}

bool MainWindow::eventFilter(QObject* watched, QEvent* event) {
  if (event->type() == QEvent::Hide) {
    const auto* dialog = qobject_cast<QDialog*>(watched);
    bool ours = false;
    for (const QObject* p = dialog ? dialog->parent() : nullptr; p && !ours; p = p->parent()) ours = p == this;
    if (ours && dialog->isWindow())
      QTimer::singleShot(0, this, [this] {
        if (!QApplication::activeModalWidget() && isVisible()) activateWindow();
      });
  }
  return QMainWindow::eventFilter(watched, event);
}

void MainWindow::closeEvent(QCloseEvent* event) {
  if (recording_) {  // the video is finished with the frames so far, then the window closes
    close_requested_ = true;
    event->ignore();
    return;
  }
  if (persistent_) {
    QSettings settings;
    settings.setValue("window/geometry", saveGeometry());
    settings.setValue("window/state", saveState());
  }
  worker_.reset();
  QMainWindow::closeEvent(event);
}

}  // namespace rbs::ui
