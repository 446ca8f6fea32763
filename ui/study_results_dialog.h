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
  /// The study's scene against the one the results were computed with (said in the summary: a
  /// changed scene's runs may differ from their rows; a missing one cannot load).
  enum class SceneState { Same, Changed, Missing };
  StudyResultsDialog(StudyResultsTable results, Study study, SceneState scene, QWidget* parent);

  const Study& study() const { return study_; }
  const StudyResultsTable& results() const { return results_; }
  /// Run `run` of the study as it ran (expandStudy's order), null when the study has no such run.
  const StudyRunSpec* runSpec(long run) const;
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
  std::vector<StudyRunSpec> runs_;  ///< expanded once: a large study is not expanded per load
  QTableWidget* table_ = nullptr;
  QPushButton* load_ = nullptr;
  std::vector<int> shown_columns_;  ///< results column of each table column
  void fillTable();
  void requestLoad();
};

}  // namespace rbs::ui
