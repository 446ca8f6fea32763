// The plot panel: one QCustomPlot per plot group of the scene (energies, tracking errors, inputs,
// constraint drift), plus a "custom" plot any channel can be added to (the picker groups the
// channels by body and kind, ui/channel_groups.h). Data arrive in batches on
// a timer (never per simulation step); the key axis scrolls with an adjustable window; pause
// freezes the view (data keep coming); a crosshair reads out every curve; legends below the
// curves. The mouse zooms (wheel) and pans (drag) a plot, which then stays where it was put until
// a double click sends it back to scrolling; its context menu fits it to the data (non-finite
// values ignored, optionally the outer 1 % on each side clipped) and removes curves.
// Export: one dialog (folder, formats PNG/PDF/CSV, visible window or whole run) for every plot;
// the status bar says where the files went.
#pragma once

#include <filesystem>
#include <string>
#include <vector>

#include <QWidget>

#include "core/scene/scene.h"
#include "sim/channels.h"
#include "ui/run_log.h"

class QCustomPlot;
class QCPItemStraightLine;
class QCPItemText;
class QComboBox;
class QDoubleSpinBox;
class QCheckBox;
class QVBoxLayout;
class QScrollArea;

namespace rbs::ui {

/// Which files a plot export writes per plot.
struct PlotExportFormats {
  bool png = true, pdf = true, csv = true;
};

class PlotPanel : public QWidget {
  Q_OBJECT
 public:
  explicit PlotPanel(QWidget* parent = nullptr);

  /// One plot per group (channels the run does not have are left out with a note in the title);
  /// the log is read on every refresh() and must outlive the panel's use of it.
  /// The channel picker lists the log's channels grouped by body and kind (groupChannels).
  void setup(const RunLog* log, const std::vector<PlotGroup>& groups, const Model& model);
  /// Adds samples log.time[from…] to the curves and, unless paused, scrolls and replots.
  void refresh();
  /// Starts the curves over (the run was reset).
  void clearData();
  /// The log dropped its n oldest samples: the curves forget them too.
  void dropOldest(std::size_t n);
  /// Adds the channel to the Custom plot (made on first use) and scrolls the panel to it.
  void addChannel(const std::string& name);

  double windowLength() const;
  void setWindowLength(double seconds);
  void setPaused(bool paused);
  int plotCount() const { return static_cast<int>(plots_.size()); }
  QCustomPlot* plot(int i) const { return plots_[i].widget; }
  const std::string& title(int i) const { return plots_[i].title; }
  /// Replots per second of wall time (over the last second).
  double replotsPerSecond() const { return replot_rate_; }
  long replotCount() const { return replots_total_; }
  int curveCount(int i) const { return static_cast<int>(plots_[i].channels.size()); }
  /// Curves over all plots.
  int totalCurveCount() const {
    int n = 0;
    for (const Plot& p : plots_) n += static_cast<int>(p.channels.size());
    return n;
  }
  /// Whether plot i scrolls with the newest samples (false after the user zoomed, panned or fit it).
  bool autoScrolls(int i) const { return plots_[i].auto_scroll; }
  /// Plot i back to scrolling with the newest samples (what a double click does).
  void resumeScrolling(int i);
  /// Fits plot i to its curves' data: every sample in time; in value the finite samples, or with
  /// `clip_outliers` the 1st to 99th percentile of them. The plot then stops scrolling.
  void fitToData(int i, bool clip_outliers);
  /// Removes curve g of plot i.
  void removeCurve(int i, int g);
  /// Points the curves hold in total.
  long pointCount() const;

  /// Writes DIR/STEM.png, .pdf, .csv (those in `formats`) for plot i (STEM from the title).
  /// `whole_run`: the full time range, else the visible window. Returns the files written; throws
  /// std::runtime_error naming the file that could not be written.
  std::vector<std::filesystem::path> exportPlot(int i, const std::filesystem::path& dir, bool whole_run,
                                                const PlotExportFormats& formats = {});
  /// The folder the Export dialog proposes (the window remembers the last one used).
  void setExportFolder(const QString& folder) { export_folder_ = folder; }
  const QString& exportFolder() const { return export_folder_; }

 Q_SIGNALS:
  /// An export wrote its files: `message` for the status bar, `folder` where they went.
  void exported(const QString& message, const QString& folder);

 public:
  /// File-name stem of plot i ("Energies" -> "energies").
  std::string fileStem(int i) const;

 protected:
  bool eventFilter(QObject* watched, QEvent* event) override;

 private:
  /// The legend in as many columns (one or two) as the plot's width holds its widest entry.
  void fitLegend(QCustomPlot& plot);
  struct Plot {
    std::string title;
    std::vector<int> channels;  ///< indices into the log's channels
    QCustomPlot* widget = nullptr;
    QCPItemStraightLine* cursor = nullptr;
    QCPItemText* readout = nullptr;
    bool auto_scroll = true;  ///< false once the user zoomed, panned or fit the plot
  };
  const RunLog* log_ = nullptr;
  std::vector<Plot> plots_;
  std::size_t added_ = 0;  ///< samples of the log already in the curves
  bool paused_ = false;
  QVBoxLayout* plots_layout_ = nullptr;
  QScrollArea* scroll_ = nullptr;
  QComboBox* channel_box_ = nullptr;
  QDoubleSpinBox* window_box_ = nullptr;
  QCheckBox* pause_box_ = nullptr;
  int replots_ = 0;
  long replots_total_ = 0;
  double replot_rate_ = 0.0;
  qint64 rate_start_ms_ = 0;
  QString export_folder_;
  PlotExportFormats export_formats_;  ///< the dialog's last choices (this session)
  bool export_whole_run_ = true;

  void fillChannelBox(const Model& model);
  Plot& makePlot(const std::string& title, const std::vector<int>& channels);
  void addCurve(Plot& plot, int channel);
  void scrollPlot(Plot& plot);
  /// The index of the plot drawn by `widget`, −1 if none.
  int indexOf(const QObject* widget) const;
  void showContextMenu(int i, const QPoint& at);
  void exportDialog();
};

}  // namespace rbs::ui
