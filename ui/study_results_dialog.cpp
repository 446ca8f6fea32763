#include "ui/study_results_dialog.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <limits>

#include <QDialogButtonBox>
#include <QHeaderView>
#include <QKeyEvent>
#include <QLabel>
#include <QPushButton>
#include <QTableWidget>
#include <QVBoxLayout>

namespace rbs::ui {
namespace {

constexpr int kRunRole = Qt::UserRole + 1;  ///< every cell knows its row's run

/// A cell that sorts by its number: numbers first (in order), then NaN (a metric of a run that
/// diverged or failed), then text and empty cells. Integers (runs, seeds) are shown as written,
/// other numbers with 6 digits; the tooltip has the field as the file has it (17 digits).
class ResultCell : public QTableWidgetItem {
 public:
  explicit ResultCell(const std::string& field) {
    const QString text = QString::fromStdString(field);
    char* end = nullptr;
    const double v = field.empty() ? 0.0 : std::strtod(field.c_str(), &end);  // also reads glibc's "-nan"
    const bool numeric = !field.empty() && end == field.c_str() + field.size();
    const bool integer = numeric && field.find_first_not_of("-0123456789") == std::string::npos;
    rank_ = !numeric ? 2 : std::isnan(v) ? 1 : 0;
    value_ = v;
    setText(integer || !numeric ? text : QString::number(v, 'g', 6));
    setToolTip(text);
    setFlags(Qt::ItemIsSelectable | Qt::ItemIsEnabled);
  }
  bool operator<(const QTableWidgetItem& other) const override {
    const auto* o = dynamic_cast<const ResultCell*>(&other);
    if (!o) return text() < other.text();
    if (rank_ != o->rank_) return rank_ < o->rank_;
    return rank_ == 0 ? value_ < o->value_ : text() < o->text();
  }

 private:
  int rank_ = 2;
  double value_ = 0.0;
};

}  // namespace

StudyResultsDialog::StudyResultsDialog(StudyResultsTable results, Study study, SceneState scene, QWidget* parent)
    : QDialog(parent), results_(std::move(results)), study_(std::move(study)), runs_(expandStudy(study_)) {
  setObjectName("study.dialog");
  setWindowTitle(tr("Study results — ") + QString::fromStdString(study_.name));
  auto* layout = new QVBoxLayout(this);

  const int status = results_.column("status");
  int ok = 0, diverged = 0, failed = 0;
  for (const auto& row : results_.rows) {
    const std::string& s = row[static_cast<std::size_t>(status)];
    (s == "ok" ? ok : s == "diverged" ? diverged : failed) += 1;
  }
  // (one arg() call: a study name with "%2" in it stays as it is)
  QString summary = tr("<b>%1</b>: %2 of %3 runs in <i>%4</i> (%5 ok, %6 diverged, %7 error)<br>study <i>%8</i>, scene <i>%9</i>")
                        .arg(QString::fromStdString(study_.name).toHtmlEscaped(), QString::number(results_.rows.size()),
                             QString::number(runs_.size()),
                             QString::fromStdString(results_.file.filename().string()).toHtmlEscaped(), QString::number(ok),
                             QString::number(diverged), QString::number(failed),
                             QString::fromStdString(study_.file.string()).toHtmlEscaped(),
                             QString::fromStdString(study_.scene.lexically_normal().string()).toHtmlEscaped());  // without "studies/../"
  if (scene == SceneState::Changed)
    summary += tr("<br><font color='#b35900'>The scene file changed after these results were computed: a loaded run "
                  "may differ from its row.</font>");
  if (scene == SceneState::Missing)
    summary += tr("<br><font color='#c00000'>The scene file is not there: no run can be loaded.</font>");
  auto* label = new QLabel(summary, this);
  label->setObjectName("study.summary");
  label->setWordWrap(true);
  label->setTextInteractionFlags(Qt::TextSelectableByMouse);
  layout->addWidget(label);

  table_ = new QTableWidget(this);
  table_->setObjectName("study.table");
  table_->setSelectionBehavior(QAbstractItemView::SelectRows);
  table_->setSelectionMode(QAbstractItemView::SingleSelection);
  table_->setEditTriggers(QAbstractItemView::NoEditTriggers);
  table_->verticalHeader()->hide();
  table_->verticalHeader()->setDefaultSectionSize(table_->fontMetrics().height() + 6);
  table_->setToolTip(tr("one row per finished run; click a header to sort by it, double-click a row to load that run"));
  layout->addWidget(table_, 1);
  fillTable();

  auto* buttons = new QDialogButtonBox(this);
  load_ = buttons->addButton(tr("&Load run"), QDialogButtonBox::ActionRole);
  load_->setObjectName("study.load");
  load_->setToolTip(tr("start the selected run in the window: the study's scene with this run's settings, paused at t = 0"));
  load_->setEnabled(false);
  load_->setDefault(true);
  QPushButton* close = buttons->addButton(QDialogButtonBox::Close);
  close->setObjectName("study.close");
  connect(load_, &QPushButton::clicked, this, &StudyResultsDialog::requestLoad);
  connect(close, &QPushButton::clicked, this, &QDialog::close);
  connect(table_, &QTableWidget::itemSelectionChanged, this, [this] { load_->setEnabled(selectedRun() >= 0); });
  // A double click on a row. Return reaches Load run as the default button (the table passes it on
  // after its own `activated`, so connecting that as well would load twice).
  connect(table_, &QTableWidget::cellDoubleClicked, this, [this] { requestLoad(); });
  layout->addWidget(buttons);
  resize(1000, 560);
}

void StudyResultsDialog::fillTable() {
  // What a person compares first: run, point, repetition, seed and the parameters, the status, the
  // metrics; then the time reached, the wall time and the message. Not the version and hashes (the
  // same on every row; the summary names the files).
  const std::vector<std::string> tail = {"t_reached", "wall_time", "message"};
  const std::vector<std::string> hidden = {"rbsim_version", "scene_hash", "study_hash"};
  const auto listed = [](const std::vector<std::string>& names, const std::string& n) {
    return std::find(names.begin(), names.end(), n) != names.end();
  };
  for (int c = 0; c < static_cast<int>(results_.columns.size()); ++c) {
    const std::string& name = results_.columns[static_cast<std::size_t>(c)];
    if (!listed(tail, name) && !listed(hidden, name)) shown_columns_.push_back(c);
  }
  for (const std::string& name : tail)
    if (const int c = results_.column(name); c >= 0) shown_columns_.push_back(c);
  table_->setColumnCount(static_cast<int>(shown_columns_.size()));
  QStringList headers;
  for (int c : shown_columns_) headers << QString::fromStdString(results_.columns[static_cast<std::size_t>(c)]);
  table_->setHorizontalHeaderLabels(headers);
  table_->setRowCount(static_cast<int>(results_.rows.size()));
  const int status = results_.column("status"), run_column = results_.column("run");
  for (int r = 0; r < static_cast<int>(results_.rows.size()); ++r) {
    const auto& row = results_.rows[static_cast<std::size_t>(r)];
    for (int k = 0; k < static_cast<int>(shown_columns_.size()); ++k) {
      const int c = shown_columns_[static_cast<std::size_t>(k)];
      auto* cell = new ResultCell(row[static_cast<std::size_t>(c)]);
      cell->setData(kRunRole, QString::fromStdString(row[static_cast<std::size_t>(run_column)]).toLongLong());
      if (c == status && cell->text() != "ok") cell->setForeground(cell->text() == "diverged" ? QColor("#b35900") : QColor("#c00000"));
      table_->setItem(r, k, cell);
    }
  }
  table_->setSortingEnabled(true);
  table_->sortByColumn(0, Qt::AscendingOrder);
  table_->resizeColumnsToContents();
  for (int k = 0; k < table_->columnCount(); ++k) table_->setColumnWidth(k, std::min(table_->columnWidth(k), 260));
}

long StudyResultsDialog::selectedRun() const {
  const QList<QTableWidgetItem*> selected = table_->selectedItems();
  if (selected.isEmpty()) return -1;
  return static_cast<long>(selected.front()->data(kRunRole).toLongLong());
}

QString StudyResultsDialog::describeRun(long run) const {
  const int run_column = results_.column("run");
  for (const auto& row : results_.rows) {
    if (row[static_cast<std::size_t>(run_column)] != std::to_string(run)) continue;
    QStringList parts;
    const int message = results_.column("message");
    for (int c : shown_columns_) {
      const std::string& name = results_.columns[static_cast<std::size_t>(c)];
      const std::string& field = row[static_cast<std::size_t>(c)];
      if (c == run_column || c == message || name == "point" || name == "repetition" || name == "wall_time" || field.empty()) continue;
      parts << QString::fromStdString(name) + " = " + ResultCell(field).text();
    }
    return parts.join(", ");
  }
  return {};
}

const StudyRunSpec* StudyResultsDialog::runSpec(long run) const {
  return run >= 0 && run < static_cast<long>(runs_.size()) ? &runs_[static_cast<std::size_t>(run)] : nullptr;
}

void StudyResultsDialog::requestLoad() {
  const long run = selectedRun();
  if (run >= 0) Q_EMIT loadRequested(run);
}

}  // namespace rbs::ui
