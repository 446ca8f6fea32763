#include "ui/gain_panel.h"

#include <algorithm>
#include <cmath>

#include <QCheckBox>
#include <QComboBox>
#include <QGridLayout>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QScrollArea>
#include <QSignalBlocker>
#include <QSlider>
#include <QToolButton>
#include <QVBoxLayout>
#include <QWheelEvent>

namespace rbs::ui {
namespace {

/// Field backgrounds: a clamped value (applied, but not what was typed) and a refused one.
const char* const kClampedStyle = "QLineEdit { background: #ffe0a0; }";
const char* const kRefusedStyle = "QLineEdit { background: #ffb4b4; }";

/// A slider or combo box of the scrolled panel takes the wheel only once it has the focus (clicked
/// or tabbed into): a wheel turned to scroll the panel must not change the gain under the cursor.
template <class Widget>
class WheelWhenFocused : public Widget {
 public:
  explicit WheelWhenFocused(QWidget* parent) : Widget(parent) { this->setFocusPolicy(Qt::StrongFocus); }

 protected:
  void wheelEvent(QWheelEvent* event) override {
    if (this->hasFocus())
      Widget::wheelEvent(event);
    else
      event->ignore();  // on to the scroll area
  }
};

QString unitSuffix(const ParameterSpec& spec) {
  return spec.unit.empty() || spec.unit == "1" ? QString() : " " + QString::fromStdString(spec.unit);
}

}  // namespace

QString formatParameterValue(double value) { return QString::number(value, 'g', 6); }

ParsedInput parseParameterInput(const ParameterSpec& spec, const QString& text, double current) {
  ParsedInput out;
  const QString name = QString::fromStdString(spec.name);
  QString t = text.trimmed();
  if (!t.contains('.') && t.count(',') == 1) t.replace(',', '.');  // 0,5: a decimal comma
  bool ok = false;
  const double v = t.toDouble(&ok);  // C notation: 0.0001, 1e-4, 2.5E3, +5
  if (!ok || !std::isfinite(v)) {
    out.status = ParsedInput::Status::Refused;
    out.value = current;
    out.message = t.isEmpty() ? QObject::tr("%1: no value typed; kept %2%3").arg(name, formatParameterValue(current), unitSuffix(spec))
                              : QObject::tr("%1: '%2' is not a number; kept %3%4")
                                    .arg(name, text.trimmed(), formatParameterValue(current), unitSuffix(spec));
    return out;
  }
  out.value = std::clamp(v, spec.min, spec.max);
  if (out.value == v) {
    out.status = ParsedInput::Status::Accepted;
    return out;
  }
  out.status = ParsedInput::Status::Clamped;
  out.message = v < spec.min ? QObject::tr("%1: %2 is below the minimum %3%4; set to %3%4")
                                   .arg(name, formatParameterValue(v), formatParameterValue(spec.min), unitSuffix(spec))
                             : QObject::tr("%1: %2 is above the maximum %3%4; set to %3%4")
                                   .arg(name, formatParameterValue(v), formatParameterValue(spec.max), unitSuffix(spec));
  return out;
}

GainPanel::GainPanel(QWidget* parent) : QWidget(parent) {
  auto* outer = new QVBoxLayout(this);
  auto* scroll = new QScrollArea(this);
  scroll->setWidgetResizable(true);
  scroll->setHorizontalScrollBarPolicy(Qt::ScrollBarAlwaysOff);  // rows fit the column's width
  body_ = new QWidget(scroll);
  layout_ = new QVBoxLayout(body_);
  scroll->setWidget(body_);
  outer->addWidget(scroll);
  auto* reset = new QPushButton(tr("Reset all to the scene's values"), this);
  reset->setObjectName("gains.reset_all");
  reset->setToolTip(tr("every gain back to the value the scene file gives it"));
  reset->setFocusPolicy(Qt::TabFocus);
  connect(reset, &QPushButton::clicked, this, [this] {
    for (int i = 0; i < rows(); ++i) {
      display(i, rows_[i].scene_value);
      mark(i, ParsedInput::Status::Accepted, {});
    }
    Q_EMIT inputNotice(tr("every gain back to the scene's value"));  // replaces an earlier notice
    Q_EMIT resetAll();
  });
  outer->addWidget(reset);
}

double GainPanel::valueOf(const Row& row, int position) const {
  const double f = static_cast<double>(position) / kSliderSteps;
  if (row.spec.scale == ParameterScale::Log) return row.spec.min * std::pow(row.spec.max / row.spec.min, f);
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

QString GainPanel::valueText(const Row& row, double value) const {
  switch (row.spec.kind) {
    case ParameterKind::Toggle: return value != 0.0 ? tr("on") : tr("off");
    case ParameterKind::Choice: {
      const auto c = static_cast<std::size_t>(value);
      return c < row.spec.choices.size() ? QString::fromStdString(row.spec.choices[c]) : formatParameterValue(value);
    }
    case ParameterKind::Real: break;
  }
  return formatParameterValue(value) + unitSuffix(row.spec);
}

void GainPanel::display(int i, double value) {
  Row& row = rows_[i];
  row.value = value;
  if (row.slider) {
    const QSignalBlocker block(row.slider);
    row.slider->setValue(positionOf(row, value));
  }
  if (row.field) row.field->setText(formatParameterValue(value));
  if (row.check) {
    const QSignalBlocker block(row.check);
    row.check->setChecked(value != 0.0);
  }
  if (row.combo) {
    const QSignalBlocker block(row.combo);
    row.combo->setCurrentIndex(static_cast<int>(value));
  }
}

void GainPanel::apply(int i, double value) {
  display(i, value);
  Q_EMIT parameterChanged(i, value);
}

void GainPanel::mark(int i, ParsedInput::Status status, const QString& message) {
  Row& row = rows_[i];
  if (!row.field) return;
  const QString about = QString::fromStdString(row.spec.description) +
                        tr("\nrange %1 … %2%3").arg(formatParameterValue(row.spec.min), formatParameterValue(row.spec.max),
                                                    unitSuffix(row.spec));
  switch (status) {
    case ParsedInput::Status::Accepted:
      row.field->setStyleSheet({});
      row.field->setToolTip(about);
      break;
    case ParsedInput::Status::Clamped:
      row.field->setStyleSheet(kClampedStyle);
      row.field->setToolTip(message + "\n\n" + about);
      break;
    case ParsedInput::Status::Refused:
      row.field->setStyleSheet(kRefusedStyle);
      row.field->setToolTip(message + "\n\n" + about);
      break;
  }
}

void GainPanel::commitField(int i) {
  Row& row = rows_[i];
  if (row.field->text() == formatParameterValue(row.value)) return;  // the shown value, not retyped
  const ParsedInput in = parseParameterInput(row.spec, row.field->text(), row.value);
  mark(i, in.status, in.message);
  Q_EMIT inputNotice(in.message);  // empty: an earlier notice no longer applies
  if (in.status == ParsedInput::Status::Refused) {
    display(i, row.value);  // the field shows the value in use again
    return;
  }
  if (in.value == row.value) {
    display(i, in.value);  // normalizes the text ("8.0" -> "8"), nothing to send
    return;
  }
  apply(i, in.value);
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
  rows_.resize(static_cast<std::size_t>(parameters.size()));
  for (int i = 0; i < parameters.size(); ++i) {
    Row& row = rows_[i];
    row.spec = parameters.spec(i);
    row.scene_value = parameters.value(i);
    const QString key = "gain." + QString::fromStdString(row.spec.name);
    auto* box = new QWidget(body_);
    box->setObjectName(key);
    auto* grid = new QGridLayout(box);
    grid->setContentsMargins(2, 2, 2, 2);
    const QString unit = row.spec.unit == "1" ? QString() : QString::fromStdString(row.spec.unit);
    auto* name = new QLabel(QStringLiteral("<b>%1</b> %2%3")
                                .arg(QString::fromStdString(row.spec.name), unit.isEmpty() ? "" : "[" + unit + "]",
                                     row.spec.scale == ParameterScale::Log ? tr(" (log)") : ""),
                            box);
    name->setToolTip(QString::fromStdString(row.spec.description));
    row.applied = new QLabel(box);
    row.applied->setObjectName(key + ".applied");
    auto* reset = new QToolButton(box);
    reset->setObjectName(key + ".reset");
    reset->setText(QStringLiteral("↺"));
    reset->setFocusPolicy(Qt::TabFocus);
    const QString scene_text = valueText(row, row.scene_value);
    reset->setToolTip(row.scene_value == row.spec.default_value
                          ? tr("reset to %1 (the controller's default)").arg(scene_text)
                          : tr("reset to the scene's value %1 (the controller's default is %2)")
                                .arg(scene_text, valueText(row, row.spec.default_value)));
    // three lines, so that a row fits a narrow column: name and reset; the input; the value used
    grid->addWidget(name, 0, 0, 1, 2);
    grid->addWidget(reset, 0, 2, Qt::AlignRight);
    grid->addWidget(row.applied, 2, 0, 1, 3, Qt::AlignRight);
    QFont small = row.applied->font();
    small.setPointSizeF(small.pointSizeF() * 0.9);
    row.applied->setFont(small);
    row.applied->setForegroundRole(QPalette::PlaceholderText);
    switch (row.spec.kind) {
      case ParameterKind::Real: {
        row.slider = new WheelWhenFocused<QSlider>(box);
        row.slider->setOrientation(Qt::Horizontal);
        row.slider->setObjectName(key + ".slider");
        row.slider->setRange(0, kSliderSteps);
        row.slider->setToolTip(QString::fromStdString(row.spec.description));
        row.slider->setMinimumWidth(60);
        row.field = new QLineEdit(box);
        row.field->setObjectName(key + ".field");
        row.field->setMaximumWidth(110);
        row.field->setMinimumWidth(70);
        grid->addWidget(row.slider, 1, 0);
        grid->addWidget(row.field, 1, 1, 1, 2);
        connect(row.slider, &QSlider::valueChanged, this, [this, i](int position) {
          mark(i, ParsedInput::Status::Accepted, {});
          apply(i, valueOf(rows_[i], position));
        });
        connect(row.field, &QLineEdit::editingFinished, this, [this, i] { commitField(i); });
        connect(row.field, &QLineEdit::textEdited, this, [this, i] { mark(i, ParsedInput::Status::Accepted, {}); });
        break;
      }
      case ParameterKind::Toggle:
        row.check = new QCheckBox(tr("on"), box);
        row.check->setObjectName(key + ".check");
        row.check->setToolTip(QString::fromStdString(row.spec.description));
        grid->addWidget(row.check, 1, 0, 1, 3);
        connect(row.check, &QCheckBox::toggled, this, [this, i](bool on) { apply(i, on ? 1.0 : 0.0); });
        break;
      case ParameterKind::Choice:
        row.combo = new WheelWhenFocused<QComboBox>(box);
        row.combo->setObjectName(key + ".combo");
        row.combo->setToolTip(QString::fromStdString(row.spec.description));
        for (const std::string& c : row.spec.choices) row.combo->addItem(QString::fromStdString(c));
        grid->addWidget(row.combo, 1, 0, 1, 3);
        connect(row.combo, &QComboBox::activated, this, [this, i](int index) { apply(i, index); });
        break;
    }
    layout_->addWidget(box);
    connect(reset, &QToolButton::clicked, this, [this, i] {
      mark(i, ParsedInput::Status::Accepted, {});
      apply(i, rows_[i].scene_value);
      // replaces an earlier notice about this gain ("kept 0.01 rad/s" stayed after ↺ restored 8)
      Q_EMIT inputNotice(tr("%1: back to %2").arg(QString::fromStdString(rows_[i].spec.name),
                                                  valueText(rows_[i], rows_[i].scene_value)));
    });
    display(i, row.scene_value);
    mark(i, ParsedInput::Status::Accepted, {});
  }
  layout_->addStretch();
}

void GainPanel::showApplied(const std::vector<double>& values) {
  for (std::size_t i = 0; i < rows_.size() && i < values.size(); ++i)
    rows_[i].applied->setText(tr("used: %1").arg(valueText(rows_[i], values[i])));
}

}  // namespace rbs::ui
