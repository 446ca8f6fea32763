#include "ui/gain_panel.h"

#include <algorithm>
#include <cmath>

#include <QDoubleSpinBox>
#include <QGridLayout>
#include <QLabel>
#include <QPushButton>
#include <QScrollArea>
#include <QSignalBlocker>
#include <QSlider>
#include <QVBoxLayout>

namespace rbs::ui {

GainPanel::GainPanel(QWidget* parent) : QWidget(parent) {
  auto* outer = new QVBoxLayout(this);
  auto* scroll = new QScrollArea(this);
  scroll->setWidgetResizable(true);
  body_ = new QWidget(scroll);
  layout_ = new QVBoxLayout(body_);
  scroll->setWidget(body_);
  outer->addWidget(scroll);
  auto* reset = new QPushButton(tr("Reset all to defaults"), this);
  connect(reset, &QPushButton::clicked, this, [this] {
    for (int i = 0; i < rows(); ++i) setValue(i, rows_[i].spec.default_value, false);
    Q_EMIT resetAll();
  });
  outer->addWidget(reset);
}

double GainPanel::valueOf(const Row& row, int position) const {
  const double f = static_cast<double>(position) / kSliderSteps;
  if (row.spec.scale == ParameterScale::Log)
    return row.spec.min * std::pow(row.spec.max / row.spec.min, f);
  return row.spec.min + f * (row.spec.max - row.spec.min);
}

int GainPanel::positionOf(const Row& row, double value) const {
  double f = 0.0;
  if (row.spec.scale == ParameterScale::Log)
    f = std::log(value / row.spec.min) / std::log(row.spec.max / row.spec.min);
  else if (row.spec.max > row.spec.min)
    f = (value - row.spec.min) / (row.spec.max - row.spec.min);
  return static_cast<int>(std::lround(std::clamp(f, 0.0, 1.0) * kSliderSteps));
}

void GainPanel::setValue(int i, double value, bool from_slider) {
  Row& row = rows_[i];
  const QSignalBlocker block_slider(row.slider), block_field(row.field);
  if (!from_slider) row.slider->setValue(positionOf(row, value));
  row.field->setValue(value);
}

void GainPanel::setParameters(const ParameterSet& parameters) {
  while (QLayoutItem* item = layout_->takeAt(0)) {
    delete item->widget();
    delete item;
  }
  rows_.clear();
  if (parameters.size() == 0) {
    layout_->addWidget(new QLabel(tr("No controller parameters."), body_));
    layout_->addStretch();
    return;
  }
  for (int i = 0; i < parameters.size(); ++i) {
    Row row;
    row.spec = parameters.spec(i);
    auto* box = new QWidget(body_);
    auto* grid = new QGridLayout(box);
    grid->setContentsMargins(2, 2, 2, 2);
    const QString unit = row.spec.unit == "1" ? QString() : QString::fromStdString(row.spec.unit);
    auto* name = new QLabel(QStringLiteral("<b>%1</b> %2%3")
                                .arg(QString::fromStdString(row.spec.name), unit.isEmpty() ? "" : "[" + unit + "]",
                                     row.spec.scale == ParameterScale::Log ? tr(" (log)") : ""),
                            box);
    name->setToolTip(QString::fromStdString(row.spec.description));
    row.slider = new QSlider(Qt::Horizontal, box);
    row.slider->setRange(0, kSliderSteps);
    row.slider->setToolTip(QString::fromStdString(row.spec.description));
    row.field = new QDoubleSpinBox(box);
    // four significant digits of the default value (of the range's end when the default is 0)
    const double typical = row.spec.default_value != 0.0 ? std::abs(row.spec.default_value) : std::abs(row.spec.max);
    row.field->setDecimals(std::clamp(3 - static_cast<int>(std::floor(std::log10(std::max(typical, 1e-6)))), 1, 7));
    row.field->setMaximumWidth(110);
    row.field->setRange(row.spec.min, row.spec.max);
    row.field->setSingleStep((row.spec.max - row.spec.min) / 100.0);
    row.field->setKeyboardTracking(false);
    row.applied = new QLabel(box);
    auto* reset = new QPushButton(tr("↺"), box);
    reset->setToolTip(tr("reset to the default %1").arg(row.spec.default_value));
    reset->setFixedWidth(28);
    grid->addWidget(name, 0, 0, 1, 2);
    grid->addWidget(row.applied, 0, 2, 1, 2, Qt::AlignRight);
    grid->addWidget(row.slider, 1, 0);
    grid->addWidget(row.field, 1, 1, 1, 2);
    grid->addWidget(reset, 1, 3);
    layout_->addWidget(box);
    rows_.push_back(row);
    const int index = i;
    connect(row.slider, &QSlider::valueChanged, this, [this, index](int position) {
      const double v = valueOf(rows_[index], position);
      setValue(index, v, true);
      Q_EMIT parameterChanged(index, v);
    });
    connect(row.field, &QDoubleSpinBox::valueChanged, this, [this, index](double v) {
      setValue(index, v, false);
      Q_EMIT parameterChanged(index, v);
    });
    connect(reset, &QPushButton::clicked, this, [this, index] {
      const double v = rows_[index].spec.default_value;
      setValue(index, v, false);
      Q_EMIT parameterChanged(index, v);
    });
    setValue(i, parameters.value(i), false);
  }
  layout_->addStretch();
}

void GainPanel::showApplied(const std::vector<double>& values) {
  for (std::size_t i = 0; i < rows_.size() && i < values.size(); ++i)
    rows_[i].applied->setText(tr("used: %1").arg(values[i], 0, 'g', 6));
}

}  // namespace rbs::ui
