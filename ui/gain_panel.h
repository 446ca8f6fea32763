// The gain panel: one row per controller parameter, generated from its metadata (ParameterSpec).
// A real parameter has a slider (logarithmic where the parameter says so) and a number field that
// takes any notation (0.0001, 1e-4, 2.5e3); a switch is a check box; a choice is a combo box. Each
// row shows the value the simulation used (reported back by the worker) and a reset button that
// restores the scene's value (the controller default where the scene is silent). Typed input that
// is clamped to the range or refused is never silent: the field turns orange or red, its tooltip
// says what happened, and inputNotice() carries the same sentence to the status bar.
#pragma once

#include <vector>

#include <QString>
#include <QWidget>

#include "core/control/parameters.h"

class QCheckBox;
class QComboBox;
class QLabel;
class QLineEdit;
class QSlider;
class QToolButton;
class QVBoxLayout;

namespace rbs::ui {

/// The outcome of reading a typed value for a parameter.
struct ParsedInput {
  enum class Status { Accepted, Clamped, Refused };
  Status status = Status::Refused;
  double value = 0.0;  ///< what is applied (Accepted, Clamped)
  QString message;     ///< what happened, for the user (Clamped, Refused)
};

/// Reads `text` as a value of `spec`: a number in any C notation (a decimal comma is taken as a
/// point); outside [min, max] it is clamped to the nearer end; not a finite number is refused.
/// `current` is the value kept on refusal (named in the message).
ParsedInput parseParameterInput(const ParameterSpec& spec, const QString& text, double current);

/// A value as the field shows it: six significant digits, exponent only where needed.
QString formatParameterValue(double value);

class GainPanel : public QWidget {
  Q_OBJECT
 public:
  explicit GainPanel(QWidget* parent = nullptr);

  /// Rebuilds the rows for `parameters`; their current values are the scene's (what reset restores).
  void setParameters(const ParameterSet& parameters);
  /// The values the simulation used (one per parameter).
  void showApplied(const std::vector<double>& values);
  int rows() const { return static_cast<int>(rows_.size()); }
  static constexpr int kSliderSteps = 1000;

 Q_SIGNALS:
  void parameterChanged(int index, double value);
  /// Every parameter back to the scene's value.
  void resetAll();
  /// A typed value was clamped or refused: the sentence for the status bar (empty: a value was
  /// accepted as typed, so an earlier sentence no longer applies).
  void inputNotice(const QString& message);

 private:
  struct Row {
    ParameterSpec spec;
    double scene_value = 0.0;
    double value = 0.0;  ///< what the panel last sent
    QSlider* slider = nullptr;      ///< Real
    QLineEdit* field = nullptr;     ///< Real
    QCheckBox* check = nullptr;     ///< Toggle
    QComboBox* combo = nullptr;     ///< Choice
    QLabel* applied = nullptr;
  };
  std::vector<Row> rows_;
  QWidget* body_ = nullptr;
  QVBoxLayout* layout_ = nullptr;

  double valueOf(const Row& row, int position) const;
  int positionOf(const Row& row, double value) const;
  /// Shows `value` in row i's widgets (no signals) and remembers it.
  void display(int i, double value);
  /// Shows `value` and sends it to the simulation.
  void apply(int i, double value);
  void commitField(int i);
  /// Field colour and tooltip: normal, clamped (orange) or refused (red).
  void mark(int i, ParsedInput::Status status, const QString& message);
  QString valueText(const Row& row, double value) const;
};

}  // namespace rbs::ui
