// The gain panel: one row per controller parameter, generated from its metadata (ParameterSpec:
// name, unit, range, linear or logarithmic scale): a slider, a numeric field, the unit, the value
// the simulation used (reported back by the worker) and a reset-to-default button.
#pragma once

#include <vector>

#include <QWidget>

#include "core/control/parameters.h"

class QSlider;
class QDoubleSpinBox;
class QLabel;
class QVBoxLayout;

namespace rbs::ui {

class GainPanel : public QWidget {
  Q_OBJECT
 public:
  explicit GainPanel(QWidget* parent = nullptr);

  /// Rebuilds the rows for `parameters` (values shown: their current values).
  void setParameters(const ParameterSet& parameters);
  /// The values the simulation used (one per parameter).
  void showApplied(const std::vector<double>& values);
  int rows() const { return static_cast<int>(rows_.size()); }
  /// For tests and scripts: moves row i's slider to `position` (0 … kSliderSteps).
  QSlider* slider(int i) const { return rows_[i].slider; }
  static constexpr int kSliderSteps = 1000;

 Q_SIGNALS:
  void parameterChanged(int index, double value);
  void resetAll();

 private:
  struct Row {
    ParameterSpec spec;
    QSlider* slider = nullptr;
    QDoubleSpinBox* field = nullptr;
    QLabel* applied = nullptr;
  };
  std::vector<Row> rows_;
  QWidget* body_ = nullptr;
  QVBoxLayout* layout_ = nullptr;

  double valueOf(const Row& row, int position) const;
  int positionOf(const Row& row, double value) const;
  void setValue(int i, double value, bool from_slider);
};

}  // namespace rbs::ui
