// The Inspect panel (issue 19 item 2): the state of the body selected in the 3D view, live — its
// world position, attitude quaternion, velocity and angular velocity, then the joint that moves
// it in the joint's own coordinates (angle, unit circle, quaternion, rotation matrix, …) and
// velocities — each beside its reference value when the controller tracks one. Every row has a
// + button that adds the value and its reference to the Custom plot in one click.
#pragma once

#include <string>
#include <vector>

#include <QWidget>

#include "core/model/model.h"
#include "sim/channels.h"
#include "ui/run_log.h"

class QLabel;
class QTreeWidget;
class QTreeWidgetItem;

namespace rbs::ui {

class InspectPanel : public QWidget {
  Q_OBJECT
 public:
  explicit InspectPanel(QWidget* parent = nullptr);

  /// A new run layout: `log` (read on every refresh(), must outlive the panel's use of it) and
  /// the model its channels were made for. Clears the selection.
  void setup(const RunLog* log, const Model& model);
  /// Shows body b (−1: none) and fills the values at once.
  void setBody(int body);
  int body() const { return body_; }
  /// Reads the newest sample of the log into the rows (nothing while the panel is hidden).
  void refresh();

  /// The rows shown (tests): the channel of each, and what its Value / Reference columns say.
  int rowCount() const { return static_cast<int>(rows_.size()); }
  const std::string& rowChannel(int r) const { return log_->channels[rows_[r].channel].name; }
  QString valueText(int r) const;
  QString referenceText(int r) const;

 Q_SIGNALS:
  /// The + button of a row: these channels (the value, then its reference if any) to plot.
  void plotRequested(const std::vector<std::string>& channels);

 protected:
  void showEvent(QShowEvent* event) override;

 private:
  struct Row {
    int channel = -1;    ///< index into the log's channels
    int reference = -1;  ///< its reference.* channel, −1 if none
    QTreeWidgetItem* item = nullptr;
  };
  /// What the panel needs of a body of the run's model (the worker owns the model itself).
  struct BodyEntry {
    std::string name;
    std::string joint;  ///< the joint that moves it ("" for none)
    JointType joint_type = JointType::Fixed;
  };
  const RunLog* log_ = nullptr;
  std::vector<BodyEntry> bodies_;
  int body_ = -1;
  QLabel* title_ = nullptr;
  QTreeWidget* tree_ = nullptr;
  std::vector<Row> rows_;

  /// A group of rows under a heading: channels PREFIX + each suffix that the run has.
  void addGroup(const QString& heading, const std::string& prefix, const std::vector<std::string>& suffixes);
};

}  // namespace rbs::ui
