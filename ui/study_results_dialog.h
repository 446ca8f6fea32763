// File → Open study results (docs/GUI.md, docs/STUDIES.md): the runs of a study's results file in
// a sortable table (parameter values, status, metrics), and a button that loads the selected run
// into the window exactly as the study ran it. Non-modal: a person sorts by a metric, loads the
// worst run, watches it and loads the next one.
#pragma once

#include <QDialog>

#include "core/scene/study.h"
#include "sim/study_results.h"

class QLabel;
class QPushButton;
class QTableWidget;

namespace rbs::ui {

class StudyResultsDialog : public QDialog {
  Q_OBJECT
 public:
  /// `scene_changed`: the scene file differs from the one the results were computed with (said in
  /// the summary; a loaded run may then differ from its row).
  StudyResultsDialog(StudyResultsTable results, Study study, bool scene_changed, QWidget* parent);

  const Study& study() const { return study_; }
  const StudyResultsTable& results() const { return results_; }
  /// The run (index) of the selected row, −1 when none is selected.
  long selectedRun() const;
  /// The row of run `run` as "column = value" text for the status bar: its parameters, status and
  /// metrics.
  QString describeRun(long run) const;

 Q_SIGNALS:
  /// Load run `run` of study() into the window (Load run, Return or a double click on a row).
  void loadRequested(long run);

 private:
  StudyResultsTable results_;
  Study study_;
  QTableWidget* table_ = nullptr;
  QPushButton* load_ = nullptr;
  std::vector<int> shown_columns_;  ///< results column of each table column
  void fillTable();
  void requestLoad();
};

}  // namespace rbs::ui
