#include "ui/plot_panel.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <fstream>
#include <iomanip>
#include <limits>
#include <stdexcept>

#include <QCheckBox>
#include <QDialog>
#include <QDialogButtonBox>
#include <QDir>
#include <QFormLayout>
#include <QLineEdit>
#include <QRadioButton>
#include <QComboBox>
#include <QDateTime>
#include <QDoubleSpinBox>
#include <QFileDialog>
#include <QHBoxLayout>
#include <QLabel>
#include <QMenu>
#include <QMessageBox>
#include <QMouseEvent>
#include <QPushButton>
#include <QPointer>
#include <QTimer>
#include <QScrollArea>
#include <QScrollBar>
#include <QStandardItemModel>
#include <QVBoxLayout>
#include <qcustomplot.h>

#include "ui/channel_groups.h"

namespace rbs::ui {
namespace {

constexpr double kDefaultWindow = 10.0;  ///< [s] of simulation time visible
constexpr int kPlotHeight = 220;         ///< [px] per plot

/// Distinct colours for up to 10 curves per plot (tab10), then repeating.
QColor curveColor(int i) {
  static const QColor colors[] = {{31, 119, 180}, {255, 127, 14}, {44, 160, 44},  {214, 39, 40},
                                  {148, 103, 189}, {140, 86, 75}, {227, 119, 194}, {127, 127, 127},
                                  {188, 189, 34}, {23, 190, 207}};
  return colors[i % 10];
}

}  // namespace

PlotPanel::PlotPanel(QWidget* parent) : QWidget(parent) {
  auto* outer = new QVBoxLayout(this);
  auto* bar = new QHBoxLayout;
  bar->addWidget(new QLabel(tr("Window"), this));
  window_box_ = new QDoubleSpinBox(this);
  window_box_->setObjectName("plots.window");
  window_box_->setRange(0.5, 3600.0);
  window_box_->setValue(kDefaultWindow);
  window_box_->setSuffix(" s");
  window_box_->setToolTip(tr("length of the scrolling time window"));
  bar->addWidget(window_box_);
  pause_box_ = new QCheckBox(tr("Pause plots"), this);
  pause_box_->setObjectName("plots.pause");
  pause_box_->setToolTip(tr("freeze the plots (the simulation and its log go on; unpausing shows everything)"));
  pause_box_->setFocusPolicy(Qt::TabFocus);
  bar->addWidget(pause_box_);
  auto* export_button = new QPushButton(tr("Export…"), this);
  export_button->setObjectName("plots.export");
  export_button->setToolTip(tr("save every plot as PNG and PDF pictures and its data as CSV, into a folder you choose"));
  export_button->setFocusPolicy(Qt::TabFocus);
  bar->addStretch();
  bar->addWidget(export_button);
  outer->addLayout(bar);
  // the channel picker on a row of its own: the panel stays narrow enough to leave the 3D view
  // half of the window
  auto* channels = new QHBoxLayout;
  channel_box_ = new QComboBox(this);
  channel_box_->setObjectName("plots.channel");
  channel_box_->setToolTip(tr("add any channel to the Custom plot"));
  channel_box_->setSizeAdjustPolicy(QComboBox::AdjustToMinimumContentsLengthWithIcon);
  channel_box_->setMinimumContentsLength(12);
  channels->addWidget(channel_box_, 1);
  auto* add = new QPushButton(tr("Add to plot"), this);
  add->setObjectName("plots.add");
  add->setToolTip(tr("add the channel chosen on the left to the Custom plot"));
  add->setFocusPolicy(Qt::TabFocus);
  channels->addWidget(add);
  outer->addLayout(channels);
  scroll_ = new QScrollArea(this);
  scroll_->setWidgetResizable(true);
  // The plots take the column's width: no horizontal scrolling, which cut their right edge (the
  // x axis' end, titles, legends, the read-out) once a vertical scroll bar took its room.
  scroll_->setHorizontalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
  auto* body = new QWidget(scroll_);
  plots_layout_ = new QVBoxLayout(body);
  scroll_->setWidget(body);
  outer->addWidget(scroll_, 1);

  connect(pause_box_, &QCheckBox::toggled, this, [this](bool on) {
    paused_ = on;
    if (!paused_) refresh();  // catch up at once
  });
  connect(window_box_, &QDoubleSpinBox::valueChanged, this, [this] {
    for (Plot& p : plots_) scrollPlot(p);
  });
  connect(add, &QPushButton::clicked, this, [this] { addChannel(channel_box_->currentData().toString().toStdString()); });
  connect(export_button, &QPushButton::clicked, this, [this] { exportDialog(); });
}

void PlotPanel::fillChannelBox(const Model& model) {
  // A header row per group (bold, not selectable), then its channels, indented; the channel's
  // name is the item's data, its description and unit the tooltip.
  auto* items = new QStandardItemModel(channel_box_);
  QFont bold = channel_box_->font();
  bold.setBold(true);
  int first_channel = -1;
  for (const ChannelGroup& g : groupChannels(log_->channels, model)) {
    // disabled, so that arrow keys, the wheel and typing skip it too; drawn in the text colour
    auto* header = new QStandardItem(QString::fromStdString(g.title));
    header->setFlags(Qt::NoItemFlags);
    header->setFont(bold);
    header->setData(channel_box_->palette().color(QPalette::Active, QPalette::Text), Qt::ForegroundRole);
    items->appendRow(header);
    for (int c : g.channels) {
      const ChannelInfo& info = log_->channels[c];
      auto* item = new QStandardItem(QStringLiteral("    ") + QString::fromStdString(info.name));
      item->setData(QString::fromStdString(info.name), Qt::UserRole);
      item->setToolTip(QString::fromStdString(info.description + " [" + info.unit + "]"));
      items->appendRow(item);
      if (first_channel < 0) first_channel = items->rowCount() - 1;
    }
  }
  channel_box_->setModel(items);  // the box owns the model through its parent
  channel_box_->setCurrentIndex(first_channel);
}

double PlotPanel::windowLength() const { return window_box_->value(); }
void PlotPanel::setWindowLength(double seconds) { window_box_->setValue(seconds); }
void PlotPanel::setPaused(bool paused) { pause_box_->setChecked(paused); }

void PlotPanel::setup(const RunLog* log, const std::vector<PlotGroup>& groups, const Model& model) {
  for (Plot& p : plots_) delete p.widget;
  plots_.clear();
  log_ = log;
  added_ = 0;
  fillChannelBox(model);
  for (const PlotGroup& g : groups) {
    std::vector<int> channels;
    std::string missing;
    for (const std::string& name : g.channels) {
      const int c = log->channels.find(name);
      if (c >= 0) channels.push_back(c);
      else missing += (missing.empty() ? "" : ", ") + name;
    }
    makePlot(missing.empty() ? g.title : g.title + " (not in this run: " + missing + ")", channels);
  }
  if (groups.empty()) {  // a scene without plots: the energies
    std::vector<int> channels;
    for (const char* name : {"energy.kinetic", "energy.potential", "energy.total"})
      if (const int c = log->channels.find(name); c >= 0) channels.push_back(c);
    makePlot("Energies", channels);
  }
}

PlotPanel::Plot& PlotPanel::makePlot(const std::string& title, const std::vector<int>& channels) {
  Plot p;
  p.title = title;
  p.widget = new QCustomPlot(this);
  p.widget->setObjectName(QString::fromStdString("plot." + title));
  p.widget->setMinimumHeight(kPlotHeight);
  // the width is the column's (fitLegend wraps the legend to it), not the legend's
  p.widget->setSizePolicy(QSizePolicy::Ignored, QSizePolicy::Preferred);
  p.widget->setNoAntialiasingOnDrag(true);
  p.widget->setNotAntialiasedElements(QCP::aeAll);
  p.widget->plotLayout()->insertRow(0);
  p.widget->plotLayout()->addElement(0, 0, new QCPTextElement(p.widget, QString::fromStdString(title)));
  p.widget->xAxis->setLabel("t [s]");
  // the legend in a row of its own below the axes, so that it never covers a curve
  p.widget->legend->setVisible(true);
  p.widget->legend->setFont(QFont(font().family(), 8));
  p.widget->axisRect()->insetLayout()->take(p.widget->legend);
  p.widget->plotLayout()->addElement(2, 0, p.widget->legend);
  p.widget->legend->setFillOrder(QCPLayoutGrid::foColumnsFirst);
  p.widget->legend->setWrap(2);
  p.widget->legend->setBorderPen(Qt::NoPen);
  p.widget->plotLayout()->setRowStretchFactor(2, 0.001);
  p.widget->plotLayout()->setRowSpacing(0);
  // wheel zooms, drag pans (both stop the scrolling); double click resumes it; right click: menu
  p.widget->setInteractions(QCP::iRangeDrag | QCP::iRangeZoom);
  p.widget->setContextMenuPolicy(Qt::CustomContextMenu);
  QCustomPlot* widget = p.widget;
  const auto stopScrolling = [this, widget] {
    if (const int i = indexOf(widget); i >= 0) plots_[i].auto_scroll = false;
  };
  connect(widget, &QCustomPlot::mouseWheel, this, stopScrolling);
  connect(widget, &QCustomPlot::mousePress, this, [stopScrolling](QMouseEvent* e) {
    if (e->button() == Qt::LeftButton) stopScrolling();
  });
  connect(widget, &QCustomPlot::mouseDoubleClick, this, [this, widget](QMouseEvent* e) {
    if (const int i = indexOf(widget); i >= 0 && e->button() == Qt::LeftButton) resumeScrolling(i);
  });
  connect(widget, &QWidget::customContextMenuRequested, this, [this, widget](const QPoint& at) {
    if (const int i = indexOf(widget); i >= 0) showContextMenu(i, at);
  });
  p.cursor = new QCPItemStraightLine(p.widget);
  p.cursor->setPen(QPen(QColor(120, 120, 120), 1, Qt::DashLine));
  p.cursor->setVisible(false);
  p.readout = new QCPItemText(p.widget);
  p.readout->setPositionAlignment(Qt::AlignBottom | Qt::AlignRight);
  p.readout->position->setType(QCPItemPosition::ptAxisRectRatio);
  p.readout->position->setCoords(0.99, 0.98);
  p.readout->setTextAlignment(Qt::AlignRight);
  p.readout->setBrush(QBrush(QColor(255, 255, 255, 220)));
  p.readout->setPadding(QMargins(4, 2, 4, 2));
  p.readout->setVisible(false);
  p.widget->setMouseTracking(true);
  p.widget->installEventFilter(this);
  plots_layout_->addWidget(p.widget);
  plots_.push_back(p);
  for (int c : channels) addCurve(plots_.back(), c);
  return plots_.back();
}

void PlotPanel::addCurve(Plot& plot, int channel) {
  QCPGraph* graph = plot.widget->addGraph();
  const ChannelInfo& info = log_->channels[channel];
  graph->setName(QString::fromStdString(info.name + (info.unit.empty() || info.unit == "1" ? "" : " [" + info.unit + "]")));
  graph->setPen(QPen(curveColor(plot.widget->graphCount() - 1), 1));
  graph->setAdaptiveSampling(true);  // draws at most a few points per pixel column
  plot.channels.push_back(channel);
  // the samples already received
  QVector<double> keys, values;
  for (std::size_t k = 0; k < added_; ++k) {
    keys.push_back(log_->time[k]);
    values.push_back(log_->values[k][channel]);
  }
  graph->addData(keys, values, true);
  fitLegend(*plot.widget);
}

void PlotPanel::addChannel(const std::string& name) {
  if (!log_) return;
  const int c = log_->channels.find(name);
  if (c < 0) return;
  auto custom = std::find_if(plots_.begin(), plots_.end(), [](const Plot& p) { return p.title == "Custom"; });
  if (custom == plots_.end()) {
    makePlot("Custom", {c});
    custom = plots_.end() - 1;
  } else if (std::find(custom->channels.begin(), custom->channels.end(), c) == custom->channels.end()) {
    addCurve(*custom, c);
  }
  scrollPlot(*custom);
  custom->widget->replot();
  // added from elsewhere (the Inspect panel): scroll down to it, keeping the axes' left edge in
  // sight; once the layout has placed it (a new plot has no geometry yet)
  QTimer::singleShot(0, this, [this, widget = QPointer<QCustomPlot>(custom->widget)] {
    if (!widget) return;
    scroll_->ensureWidgetVisible(widget);
    scroll_->horizontalScrollBar()->setValue(0);
  });
}

void PlotPanel::clearData() {
  added_ = 0;
  for (Plot& p : plots_)
    for (int g = 0; g < p.widget->graphCount(); ++g) p.widget->graph(g)->data()->clear();
}

void PlotPanel::dropOldest(std::size_t n) {
  added_ = added_ > n ? added_ - n : 0;
  if (!log_ || log_->time.empty()) return;
  const double first = log_->time.front();
  for (Plot& p : plots_)
    for (int g = 0; g < p.widget->graphCount(); ++g) p.widget->graph(g)->data()->removeBefore(first);
}

long PlotPanel::pointCount() const {
  long n = 0;
  for (const Plot& p : plots_)
    for (int g = 0; g < p.widget->graphCount(); ++g) n += p.widget->graph(g)->dataCount();
  return n;
}

void PlotPanel::scrollPlot(Plot& plot) {
  if (!plot.auto_scroll) return;  // the user put it where it is
  // the newest sample in the curves (not in the log: a paused plot has not taken the newer ones)
  const double t = log_ && added_ > 0 ? log_->time[added_ - 1] : 0.0;
  const double w = windowLength();
  plot.widget->xAxis->setRange(std::max(0.0, t - w), std::max(w, t));
  bool first = true;
  double lower = 0.0, upper = 0.0;  // the value range of every curve in the window
  for (int g = 0; g < plot.widget->graphCount(); ++g) {
    bool found = false;
    QCPRange r = plot.widget->graph(g)->getValueRange(found, QCP::sdBoth, plot.widget->xAxis->range());
    if (!found) continue;
    if (!first) r = QCPRange(std::min(r.lower, lower), std::max(r.upper, upper));
    lower = r.lower;
    upper = r.upper;
    first = false;
  }
  if (!first) {
    const QCPRange r(lower, upper);  // QCPAxis::setRange would refuse an empty range
    const double c = r.center();
    // a flat curve (e.g. the first sample only): a band around it instead of an empty range
    const double pad = r.size() > 1e-12 * std::max(1.0, std::abs(c)) ? 0.05 * r.size() : c != 0.0 ? 0.05 * std::abs(c) : 1.0;
    plot.widget->yAxis->setRange(r.lower - pad, r.upper + pad);
  }
}

void PlotPanel::refresh() {
  if (!log_) return;
  // Paused: the curves take nothing new, so nothing newer can appear on a redraw (a crosshair
  // on mouse-over, an export); the log keeps everything and unpausing adds it.
  if (paused_) return;
  const std::size_t n = log_->time.size();
  if (n > added_) {
    QVector<double> keys(static_cast<qsizetype>(n - added_));
    for (std::size_t k = added_; k < n; ++k) keys[static_cast<qsizetype>(k - added_)] = log_->time[k];
    QVector<double> values(keys.size());
    for (Plot& p : plots_)
      for (std::size_t g = 0; g < p.channels.size(); ++g) {
        for (std::size_t k = added_; k < n; ++k) values[static_cast<qsizetype>(k - added_)] = log_->values[k][p.channels[g]];
        p.widget->graph(static_cast<int>(g))->addData(keys, values, true);
      }
    added_ = n;
  }
  const qint64 now = QDateTime::currentMSecsSinceEpoch();
  if (rate_start_ms_ == 0) rate_start_ms_ = now;
  for (Plot& p : plots_) {
    scrollPlot(p);
    p.widget->replot(QCustomPlot::rpQueuedReplot);
  }
  ++replots_;
  ++replots_total_;
  if (now - rate_start_ms_ >= 1000) {
    replot_rate_ = 1000.0 * replots_ / static_cast<double>(now - rate_start_ms_);
    replots_ = 0;
    rate_start_ms_ = now;
  }
}

void PlotPanel::fitLegend(QCustomPlot& plot) {
  // as many columns (at most two) as the widest entry allows
  QCPLegend& legend = *plot.legend;
  int widest = 1;
  for (int i = 0; i < legend.elementCount(); ++i)  // the grid's cells, some of them empty
    if (const QCPLayoutElement* entry = legend.elementAt(i))
      widest = std::max(widest, entry->minimumOuterSizeHint().width());
  const int columns = std::clamp((plot.width() - 10) / (widest + legend.columnSpacing()), 1, 2);
  if (legend.wrap() == columns) return;
  legend.setWrap(columns);
  legend.setFillOrder(legend.fillOrder(), true);  // places the entries again
  plot.replot(QCustomPlot::rpQueuedReplot);
}

bool PlotPanel::eventFilter(QObject* watched, QEvent* event) {
  if (event->type() == QEvent::Resize) {
    if (auto* plot = qobject_cast<QCustomPlot*>(watched)) fitLegend(*plot);
    return QWidget::eventFilter(watched, event);
  }
  if (event->type() != QEvent::MouseMove && event->type() != QEvent::Leave) return QWidget::eventFilter(watched, event);
  for (Plot& p : plots_) {
    if (p.widget != watched) continue;
    if (event->type() == QEvent::Leave) {
      p.cursor->setVisible(false);
      p.readout->setVisible(false);
    } else {
      const double key = p.widget->xAxis->pixelToCoord(static_cast<QMouseEvent*>(event)->position().x());
      p.cursor->point1->setCoords(key, 0);
      p.cursor->point2->setCoords(key, 1);
      QString text = QStringLiteral("t = %1 s").arg(key, 0, 'f', 3);
      for (int g = 0; g < p.widget->graphCount(); ++g) {
        const QString name = p.widget->graph(g)->name();
        const auto points = p.widget->graph(g)->data();
        // outside the curve's data there is no value to read (not the last one, not the first)
        if (points->isEmpty() || key < points->constBegin()->key || key > (points->constEnd() - 1)->key) {
          text += QStringLiteral("\n%1: —").arg(name);
          continue;
        }
        auto after = points->findBegin(key, false);  // first sample with key ≥ cursor
        auto nearest = after;
        if (after != points->constBegin() && (after == points->constEnd() || key - (after - 1)->key < after->key - key))
          nearest = after - 1;
        text += QStringLiteral("\n%1: %2").arg(name).arg(nearest->value, 0, 'g', 6);
      }
      p.readout->setText(text);
      p.cursor->setVisible(true);
      p.readout->setVisible(true);
    }
    p.widget->replot(QCustomPlot::rpQueuedReplot);
  }
  return QWidget::eventFilter(watched, event);
}

int PlotPanel::indexOf(const QObject* widget) const {
  for (std::size_t i = 0; i < plots_.size(); ++i)
    if (plots_[i].widget == widget) return static_cast<int>(i);
  return -1;
}

void PlotPanel::resumeScrolling(int i) {
  plots_[i].auto_scroll = true;
  scrollPlot(plots_[i]);
  plots_[i].widget->replot(QCustomPlot::rpQueuedReplot);
}

void PlotPanel::fitToData(int i, bool clip_outliers) {
  Plot& p = plots_[i];
  double t0 = std::numeric_limits<double>::infinity(), t1 = -t0;
  std::vector<double> values;
  for (int g = 0; g < p.widget->graphCount(); ++g)
    for (const QCPGraphData& d : *p.widget->graph(g)->data()) {
      if (!std::isfinite(d.key)) continue;
      t0 = std::min(t0, d.key);
      t1 = std::max(t1, d.key);
      if (std::isfinite(d.value)) values.push_back(d.value);
    }
  p.auto_scroll = false;
  if (!(t1 >= t0)) return;  // no data yet
  p.widget->xAxis->setRange(t0, std::max(t1, t0 + 1e-9));
  if (!values.empty()) {
    std::sort(values.begin(), values.end());
    const std::size_t n = values.size();
    // the 1st and 99th percentile (nearest rank) when clipping, else the extremes
    const std::size_t lo = clip_outliers ? static_cast<std::size_t>(0.01 * static_cast<double>(n - 1) + 0.5) : 0;
    const std::size_t hi = clip_outliers ? static_cast<std::size_t>(0.99 * static_cast<double>(n - 1) + 0.5) : n - 1;
    const double a = values[lo], b = values[hi];
    const double pad = b - a > 1e-12 * std::max(1.0, std::abs(a)) ? 0.05 * (b - a) : std::max(1e-3, 0.05 * std::abs(a));
    p.widget->yAxis->setRange(a - pad, b + pad);
  }
  p.widget->replot(QCustomPlot::rpQueuedReplot);
}

void PlotPanel::removeCurve(int i, int g) {
  Plot& p = plots_[i];
  if (g < 0 || g >= static_cast<int>(p.channels.size())) return;
  p.widget->removeGraph(g);
  p.channels.erase(p.channels.begin() + g);
  // the remaining curves keep their colours; the legend loses the entry
  scrollPlot(p);
  p.widget->replot(QCustomPlot::rpQueuedReplot);
}

void PlotPanel::showContextMenu(int i, const QPoint& at) {
  auto* menu = new QMenu(this);
  menu->setObjectName("plots.menu");
  menu->setAttribute(Qt::WA_DeleteOnClose);
  QCustomPlot* widget = plots_[i].widget;
  // by widget, not index: the plots may be rebuilt (a new run) while the menu is open
  const auto withPlot = [this, widget](auto&& f) {
    return [this, widget, f] {
      if (const int k = indexOf(widget); k >= 0) f(k);
    };
  };
  menu->addAction(tr("Scroll with the run (double click)"), this, withPlot([this](int k) { resumeScrolling(k); }))
      ->setEnabled(!plots_[i].auto_scroll);
  menu->addAction(tr("Fit to data"), this, withPlot([this](int k) { fitToData(k, false); }));
  menu->addAction(tr("Fit to data, clipping outliers (1 % on each side)"), this,
                  withPlot([this](int k) { fitToData(k, true); }));
  if (!plots_[i].channels.empty()) menu->addSeparator();
  for (std::size_t g = 0; g < plots_[i].channels.size(); ++g) {
    const int channel = plots_[i].channels[g];
    menu->addAction(tr("Remove %1").arg(QString::fromStdString(log_->channels[channel].name)), this,
                    withPlot([this, channel](int k) {
                      const auto& c = plots_[k].channels;
                      const auto it = std::find(c.begin(), c.end(), channel);
                      if (it != c.end()) removeCurve(k, static_cast<int>(it - c.begin()));
                    }));
  }
  menu->popup(widget->mapToGlobal(at));
}

std::string PlotPanel::fileStem(int i) const {
  std::string stem;
  for (char c : plots_[i].title) {
    if (c == '(') break;
    const unsigned char u = static_cast<unsigned char>(c);
    stem += std::isalnum(u) ? static_cast<char>(std::tolower(u)) : '_';
  }
  while (!stem.empty() && stem.back() == '_') stem.pop_back();
  return stem.empty() ? "plot" + std::to_string(i + 1) : stem;
}

std::vector<std::filesystem::path> PlotPanel::exportPlot(int i, const std::filesystem::path& dir, bool whole_run,
                                                         const PlotExportFormats& formats) {
  Plot& p = plots_[i];
  const std::filesystem::path stem = dir / fileStem(i);
  const QCPRange visible = p.widget->xAxis->range();
  const QCPRange visible_y = p.widget->yAxis->range();
  QCPRange range = visible;
  if (whole_run && log_ && !log_->time.empty()) {
    range = QCPRange(log_->time.front(), std::max(log_->time.back(), log_->time.front() + 1e-9));
    p.widget->xAxis->setRange(range);
    bool first = true;
    for (int g = 0; g < p.widget->graphCount(); ++g) {
      p.widget->graph(g)->rescaleValueAxis(!first, true);
      first = false;
    }
  }
  p.cursor->setVisible(false);
  p.readout->setVisible(false);
  std::vector<std::filesystem::path> written;
  const auto check = [&](bool ok, const std::filesystem::path& file) {
    if (!ok) throw std::runtime_error("cannot write '" + file.string() + "'");
    written.push_back(file);
  };
  const int w = std::max(p.widget->width(), 800), h = std::max(p.widget->height(), 400);
  const std::filesystem::path png = stem.string() + ".png", pdf = stem.string() + ".pdf", csv = stem.string() + ".csv";
  if (formats.png) check(p.widget->savePng(QString::fromStdString(png.string()), w, h), png);
  if (formats.pdf) check(p.widget->savePdf(QString::fromStdString(pdf.string()), w, h), pdf);
  if (formats.csv) {
    std::ofstream out(csv);
    out << "t";
    for (int c : p.channels) out << ',' << log_->channels[c].name;
    out << '\n' << std::setprecision(17);
    if (log_)
      for (std::size_t k = 0; k < log_->time.size(); ++k) {
        const double t = log_->time[k];
        if (t < range.lower - 1e-12 || t > range.upper + 1e-12) continue;
        out << t;
        for (int c : p.channels) out << ',' << log_->values[k][c];
        out << '\n';
      }
    check(static_cast<bool>(out.flush()), csv);
  }
  p.widget->xAxis->setRange(visible);
  p.widget->yAxis->setRange(visible_y);
  p.widget->replot(QCustomPlot::rpQueuedReplot);
  return written;
}

void PlotPanel::exportDialog() {
  if (plots_.empty()) return;
  // one dialog with everything an export needs; the choices stay for the next export
  QDialog dialog(this);
  dialog.setObjectName("plots.export_dialog");
  dialog.setWindowTitle(tr("Export plots"));
  auto* form = new QFormLayout(&dialog);
  auto* folder = new QLineEdit(export_folder_.isEmpty() ? QDir::homePath() : export_folder_, &dialog);
  folder->setObjectName("export.folder");
  folder->setToolTip(tr("the folder the files go into (created if it does not exist)"));
  auto* browse = new QPushButton(tr("Browse…"), &dialog);
  browse->setObjectName("export.browse");
  browse->setToolTip(tr("choose the folder"));
  auto* folder_row = new QHBoxLayout;
  folder_row->addWidget(folder, 1);
  folder_row->addWidget(browse);
  form->addRow(tr("Folder"), folder_row);
  auto* png = new QCheckBox(tr("PNG picture"), &dialog);
  auto* pdf = new QCheckBox(tr("PDF (vector)"), &dialog);
  auto* csv = new QCheckBox(tr("CSV data"), &dialog);
  png->setObjectName("export.png");
  pdf->setObjectName("export.pdf");
  csv->setObjectName("export.csv");
  png->setToolTip(tr("a picture of each plot as shown"));
  pdf->setToolTip(tr("each plot as a vector drawing, for papers"));
  csv->setToolTip(tr("the numbers behind each plot: time and one column per curve"));
  png->setChecked(export_formats_.png);
  pdf->setChecked(export_formats_.pdf);
  csv->setChecked(export_formats_.csv);
  auto* formats = new QHBoxLayout;
  for (QCheckBox* box : {png, pdf, csv}) formats->addWidget(box);
  form->addRow(tr("Files per plot"), formats);
  auto* visible = new QRadioButton(tr("the visible window"), &dialog);
  auto* whole = new QRadioButton(tr("the whole run"), &dialog);
  visible->setObjectName("export.visible");
  whole->setObjectName("export.whole");
  visible->setToolTip(tr("the time range each plot shows now"));
  whole->setToolTip(tr("every sample of the run"));
  (export_whole_run_ ? whole : visible)->setChecked(true);
  auto* range = new QHBoxLayout;
  range->addWidget(visible);
  range->addWidget(whole);
  form->addRow(tr("Time range"), range);
  auto* buttons = new QDialogButtonBox(QDialogButtonBox::Ok | QDialogButtonBox::Cancel, &dialog);
  buttons->button(QDialogButtonBox::Ok)->setText(tr("Export"));
  form->addRow(buttons);
  connect(buttons, &QDialogButtonBox::accepted, &dialog, &QDialog::accept);
  connect(buttons, &QDialogButtonBox::rejected, &dialog, &QDialog::reject);
  connect(browse, &QPushButton::clicked, &dialog, [&] {
    const QString d = QFileDialog::getExistingDirectory(&dialog, tr("Export plots into folder"), folder->text());
    if (!d.isEmpty()) folder->setText(d);
  });
  const auto update = [&] {
    buttons->button(QDialogButtonBox::Ok)->setEnabled(!folder->text().trimmed().isEmpty() &&
                                                      (png->isChecked() || pdf->isChecked() || csv->isChecked()));
  };
  for (QCheckBox* box : {png, pdf, csv}) connect(box, &QCheckBox::toggled, &dialog, update);
  connect(folder, &QLineEdit::textChanged, &dialog, update);
  update();
  if (dialog.exec() != QDialog::Accepted) return;

  export_formats_ = PlotExportFormats{png->isChecked(), pdf->isChecked(), csv->isChecked()};
  export_whole_run_ = whole->isChecked();
  const QString dir = QDir::cleanPath(folder->text().trimmed());
  try {
    std::error_code ec;
    std::filesystem::create_directories(dir.toStdString(), ec);
    if (ec) throw std::runtime_error("cannot create the folder '" + dir.toStdString() + "': " + ec.message());
    int files = 0;
    for (int i = 0; i < plotCount(); ++i)
      files += static_cast<int>(exportPlot(i, dir.toStdString(), export_whole_run_, export_formats_).size());
    export_folder_ = dir;
    Q_EMIT exported(tr("Wrote %1 files into %2").arg(files).arg(dir), dir);
  } catch (const std::exception& e) {
    QMessageBox::warning(this, tr("Export plots"), QString::fromStdString(e.what()));
  }
}

}  // namespace rbs::ui
