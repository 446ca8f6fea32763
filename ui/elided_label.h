// A one-line label that shows as much of its text as fits, ending in "…", and the whole text as its
// tooltip. The status bar's warnings can be long (a divergence message with its cause); a plain
// QLabel would either widen the window or cut the text off with no way to read the rest.
#pragma once

#include <QString>
#include <QWidget>

namespace rbs::ui {

class ElidedLabel : public QWidget {
  Q_OBJECT
 public:
  explicit ElidedLabel(QWidget* parent = nullptr);
  void setText(const QString& text);
  /// The whole text (what the tooltip shows).
  const QString& text() const { return text_; }
  /// The text as drawn at the current width.
  QString shownText() const;
  QSize sizeHint() const override;
  QSize minimumSizeHint() const override;

 protected:
  void paintEvent(QPaintEvent* event) override;

 private:
  QString text_;
};

}  // namespace rbs::ui
