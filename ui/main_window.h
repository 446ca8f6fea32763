// The main window of rbsim (docs/GUI.md): the 3D view in the centre; docks for the scene browser,
// run controls (with controller and integrator selection), gains and plots; a status bar with
// simulation time, real-time factor, drift and warnings. A thin composition root: the work is in
// SimulationWorker (thread), View3D, GainPanel, PlotPanel, SceneBrowser and recordVideo.
#pragma once

#include <algorithm>
#include <filesystem>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <QCheckBox>
#include <QDialog>
#include <QLineEdit>
#include <QSpinBox>
#include <QMainWindow>
#include <QPointer>
#include <QTimer>

#include "core/scene/scene.h"
#include "sim/run_overrides.h"

class QAction;
class QMenu;
namespace rbs::render {
enum class Overlay;  // render/scene_graph.h
}
namespace rbs {
struct StudyResultsTable;  // sim/study_results.h
}
#include "ui/inspect_panel.h"
#include "ui/plot_panel.h"
#include "ui/simulation_worker.h"

class QComboBox;
class QDockWidget;
class QLabel;
class QPushButton;

namespace rbs::ui {

class View3D;
class ElidedLabel;
class GainPanel;
class SceneBrowser;
class StudyResultsDialog;

class MainWindow : public QMainWindow {
  Q_OBJECT
 public:
  /// The speeds of the speed box; SimulationWorker::kMaxSpeed is "as fast as possible".
  static const std::vector<double>& speeds();

  explicit MainWindow(QWidget* parent = nullptr);
  ~MainWindow() override;

  /// Loads `file` with `options` (the command line's --set, --floating, --balance-inertia and
  /// --package-path; the package folders of File → Package folders are searched after the given
  /// ones) and starts it paused at t = 0. On a loader error the message (file:line:column: what)
  /// is shown, lastError() returns it, the current scene stays and the result is false. Arguments
  /// by value: a caller may pass the current scene's own path, which dies with the scene this
  /// replaces. Reload uses the same options; scenes opened from the window use none but the
  /// package paths given here.
  /// `run`: integrator settings and controller instead of the scene's (a study's run; kept by
  /// Reload, dropped by the next scene opened).
  bool openScene(std::filesystem::path file, LoadOptions options = {}, RunOverrides run = {});
  /// Reads the current scene's file again (same overrides), keeping the controller and integrator
  /// the user chose where the new file still allows them.
  bool reloadScene();
  /// A new run of the current scene with another controller ("" the scene's, "none") or stepper.
  bool restart(const std::string& controller, const std::string& stepper);

  SimulationWorker* worker() const { return worker_.get(); }
  const Scene* scene() const { return scene_.get(); }
  View3D* view() const { return view_; }
  GainPanel* gains() const { return gains_; }
  PlotPanel* plots() const { return plots_; }
  InspectPanel* inspector() const { return inspect_; }
  const RunLog& runLog() const { return log_; }
  /// Most samples the run log (and the plots) keep; the oldest quarter goes when it is full.
  /// Set from a memory budget when a scene is opened; tests make it small.
  /// Samples the run log keeps: kRunLogBytes over what one sample costs — its row of channels and
  /// a point per curve shown — so more curves keep a shorter history; or the number set.
  std::size_t runLogCapacity() const;
  void setRunLogCapacity(std::size_t samples) { run_log_fixed_capacity_ = std::max<std::size_t>(samples, 4); }
  /// The run log's and the curves' memory budget [bytes].
  static constexpr std::size_t kRunLogBytes = std::size_t{256} << 20;
  const QString& lastError() const { return last_error_; }
  /// false: nothing is written to QSettings (scripted runs leave the user's layout and last
  /// scene alone). Default true.
  void setPersistent(bool persistent) { persistent_ = persistent; }
  /// The status line's warning (divergence, dropped samples, rejected gains), empty if none.
  QString warning() const;

  /// One frame of the GUI: the latest snapshot into the 3D view and the status bar.
  void frameTick();
  /// Drains the worker's samples into the run log and refreshes the plots.
  void plotTick();
  /// Frames shown and replots per second over the last second.
  double framesPerSecond() const;
  double replotsPerSecond() const;

  /// Writes the whole run (every channel) as CSV. Throws std::runtime_error when it cannot.
  void writeRunCsv(const std::filesystem::path& file) const;
  /// The 3D view at width × height as PNG. Throws render::RenderError.
  void writeScreenshot(const std::filesystem::path& file, int width, int height);
  /// Records a video of `t_end` s with a progress dialog (interactive) or progress on stderr.
  /// The live view does not draw meanwhile (one renderer at a time); the run pauses and, if it
  /// was playing, plays on afterwards.
  bool recordVideo(const std::filesystem::path& file, double t_end, bool interactive);
  bool recording() const { return recording_; }

 protected:
  void closeEvent(QCloseEvent* event) override;
  /// A dialog of this window closing hands the keyboard back to the window (see the constructor).
  bool eventFilter(QObject* watched, QEvent* event) override;
  void showEvent(QShowEvent* event) override;

 private:
  std::shared_ptr<const Scene> scene_;
  LoadOptions load_options_;  ///< of the current scene (without the persisted package folders)
  QAction* floating_action_ = nullptr;  ///< Simulation > Floating base (robot files only)
  /// A body on a free joint to the world.
  static bool hasFreeRoot(const Model& model);
  /// Reloads the robot file with its root link floating or fixed (the menu entry).
  void setFloatingBase(bool on);
  RunOverrides run_overrides_;  ///< of the current scene: a study run's integrator and controller
  QString title_note_;  ///< after the scene's name in the title: the study run shown, if any
  /// `file` with `options` and the persisted package folders, the integrator settings of `run`
  /// applied; null (after showing why under `error_title`) when it cannot be loaded.
  std::shared_ptr<const Scene> loadForRun(const std::filesystem::path& file, const LoadOptions& options,
                                          const RunOverrides& run, const QString& error_title);
  std::vector<std::filesystem::path> package_paths_;  ///< from the command line (not persisted)
  /// `options` with the persisted package folders after its own.
  LoadOptions withPackageFolders(LoadOptions options) const;
  std::unique_ptr<SimulationWorker> worker_;
  RunLog log_;
  std::size_t run_log_fixed_capacity_ = 0;  ///< setRunLogCapacity (0: from kRunLogBytes)
  SampleBatch batch_;
  std::uint64_t run_ = 0;
  std::uint64_t shown_serial_ = 0;
  std::vector<PathSample> path_;        ///< frameTick: the samples since the last frame (for the trails)
  QString run_to_notice_, end_notice_;  ///< the status messages frameTick retires
  double run_to_target_ = 0.0;          ///< [s] of run_to_notice_
  std::size_t shown_log_dropped_ = 0;
  bool failure_shown_ = false;
  bool end_shown_ = false;
  bool persistent_ = true;
  bool recording_ = false;
  bool close_requested_ = false;  ///< the window was closed during a recording
  bool layout_restored_ = false;  ///< the user's saved dock layout was restored (no default sizes)
  QString last_error_;
  QString warning_;
  QString last_gain_notice_;  ///< the gain panel's last status-bar sentence

  View3D* view_ = nullptr;
  bool pushing_ = false;  ///< a Ctrl+drag on a body is in progress
  bool push_harder_ = false;  ///< … with Shift: beyond the body's limits
  QString export_folder_;  ///< where the last export went: the next one starts there
  SceneBrowser* browser_ = nullptr;
  GainPanel* gains_ = nullptr;
  PlotPanel* plots_ = nullptr;
  InspectPanel* inspect_ = nullptr;
  QDockWidget* inspect_dock_ = nullptr;  ///< raised when a body is selected
  QComboBox* speed_box_ = nullptr;
  QComboBox* controller_box_ = nullptr;
  QComboBox* stepper_box_ = nullptr;
  QPushButton* play_button_ = nullptr;
  QLabel* time_label_ = nullptr;
  QLabel* rate_label_ = nullptr;
  QLabel* drift_label_ = nullptr;
  /// The controller's recovery (docs/CONTROL.md "Recovery"): its phase and how late the manoeuvre
  /// runs, from the channels control.recovery and control.delay (−1: the controller has none).
  QLabel* recovery_label_ = nullptr;
  int recovery_channel_ = -1, delay_channel_ = -1;
  /// "stabilizing", "returning", "rejoining" from the last logged sample, or empty while tracking.
  QString recoveryPhase() const;
  ElidedLabel* warning_label_ = nullptr;
  QTimer frame_timer_, plot_timer_;

  void buildDocks();
  void buildMenus();
  /// Play when paused, pause when playing (Space).
  void togglePlay();
  /// Side panels at their default widths: the 3D view keeps at least half the window.
  void applyDefaultDockWidths();
  bool start(std::shared_ptr<const Scene> scene, const std::string& controller, const std::string& stepper);
  void showError(const QString& title, const QString& message);
  void fillSelectors();
  void openDialog();
  /// File → Open study results: a results CSV, the study file that wrote it (found by its hash
  /// beside the results, else asked for), and the runs in a StudyResultsDialog.
  void openStudyResultsDialog();
  /// The study file that wrote `results` (openStudyResultsDialog); none when the user gave none or a
  /// wrong one (said in the status bar or a message).
  std::optional<std::filesystem::path> studyFileOf(const StudyResultsTable& results);
  /// Loads run `run` of the open study results into the window (paused at t = 0).
  bool openStudyRun(long run);
  /// "rbsim — SCENE (title_note_)".
  void updateWindowTitle();
  QPointer<StudyResultsDialog> study_dialog_;
  QString study_folder_;  ///< where the last study results were opened: the next dialog starts there
  /// File → Package folders: the persisted package folders, one per line.
  void packagePathsDialog();
  void exportRunCsvDialog();
  void screenshotDialog();
  /// The folder the next export dialog starts in (persisted when the window is).
  void rememberExportFolder(const QString& folder);
  /// `file_name` in that folder.
  QString exportPath(const QString& file_name) const;
  void videoDialog();
  /// View menu and toolbar: overlay toggles and camera presets.
  void buildViewControls(QMenu* view);
  /// A camera preset of the 3D view; `remember`: kept for this scene file. An unusable one (follow
  /// without a body) is said in the status bar.
  void applyCameraPreset(const std::string& name, bool remember);
  /// Checks the camera preset in effect (camera_preset_) on the toolbar and in the View menu.
  void markCameraPreset();
  /// The overlays and the camera preset chosen for the current scene file (QSettings, when
  /// persistent), written on every change and applied when the scene starts.
  void saveViewChoices();
  void restoreViewChoices();
  std::vector<std::pair<render::Overlay, QAction*>> overlay_actions_;
  std::map<std::string, QAction*> camera_actions_;  ///< the camera presets by name
  std::string camera_preset_ = "scene";
  std::filesystem::path view_file_;  ///< the scene file the view choices were restored for
  bool restoring_view_ = false;
  /// Step button, S: the samples of the Step by box.
  void stepSamples();
  /// Run to: the typed time (any notation), as fast as possible; refused text or a time not after
  /// the current one is said in the status bar.
  void runToTypedTime();
  /// Help → Keyboard shortcuts and mouse (F1): one dialog, raised if it is open already.
  void showShortcuts();
  /// Help → About rbsim: version and libraries with their licenses (non-modal).
  void showAbout();
  QPointer<QDialog> shortcuts_dialog_;
  QSpinBox* step_box_ = nullptr;
  QLineEdit* until_field_ = nullptr;
  QCheckBox* loop_box_ = nullptr;
};

}  // namespace rbs::ui
