#include "ui/inspect_panel.h"

#include <cmath>

#include <QHeaderView>
#include <QLabel>
#include <QToolButton>
#include <QTreeWidget>
#include <QVBoxLayout>

namespace rbs::ui {
namespace {

enum Column { kPlot, kQuantity, kValue, kReference, kUnit, kColumns };  // the button first: always in sight

QString number(double v) { return std::isfinite(v) ? QString::number(v, 'g', 6) : QStringLiteral("—"); }

std::vector<std::string> names(std::span<const CoordinateInfo> coordinates) {
  std::vector<std::string> out;
  for (const CoordinateInfo& c : coordinates) out.emplace_back(c.name);
  return out;
}

}  // namespace

InspectPanel::InspectPanel(QWidget* parent) : QWidget(parent) {
  auto* layout = new QVBoxLayout(this);
  title_ = new QLabel(this);
  title_->setObjectName("inspect.title");
  title_->setWordWrap(true);
  layout->addWidget(title_);
  tree_ = new QTreeWidget(this);
  tree_->setObjectName("inspect.tree");
  tree_->setColumnCount(kColumns);
  tree_->setHeaderLabels({QString(), tr("Quantity"), tr("Value"), tr("Reference"), tr("Unit")});
  tree_->setToolTip(tr("the selected body's state at the newest sample; + puts a quantity and its reference on the "
                       "Custom plot"));
  tree_->header()->setToolTip(tree_->toolTip());
  tree_->headerItem()->setToolTip(kPlot, tr("add the row to the Custom plot"));
  tree_->headerItem()->setToolTip(kReference, tr("the reference the controller tracks at this time (— without one)"));
  tree_->header()->setSectionResizeMode(QHeaderView::ResizeToContents);
  tree_->setRootIsDecorated(false);
  tree_->setSelectionMode(QAbstractItemView::NoSelection);
  tree_->setFocusPolicy(Qt::NoFocus);
  layout->addWidget(tree_, 1);
  setBody(-1);
}

void InspectPanel::setup(const RunLog* log, const Model& model) {
  log_ = log;
  bodies_.assign(model.bodies.size(), {});
  for (std::size_t b = 0; b < model.bodies.size(); ++b) bodies_[b].name = model.bodies[b].name;
  for (const Joint& j : model.joints)
    if (j.child >= 0 && j.child < static_cast<int>(bodies_.size()) && j.type != JointType::Fixed) {
      bodies_[j.child].joint = j.name;
      bodies_[j.child].joint_type = j.type;
    }
  setBody(-1);
}

void InspectPanel::setBody(int body) {
  tree_->clear();
  rows_.clear();
  body_ = log_ && body >= 0 && body < static_cast<int>(bodies_.size()) ? body : -1;
  if (body_ < 0) {
    title_->setText(tr("Double-click a body in the 3D view (or Ctrl+click it) to inspect it here."));
    return;
  }
  const BodyEntry& b = bodies_[body_];
  title_->setText(b.joint.empty() ? tr("Body <b>%1</b>").arg(QString::fromStdString(b.name))
                                  : tr("Body <b>%1</b>, moved by joint <b>%2</b> (%3)")
                                        .arg(QString::fromStdString(b.name), QString::fromStdString(b.joint),
                                             QString::fromStdString(std::string(jointTypeName(b.joint_type)))));
  const std::string p = "body." + b.name + ".";
  addGroup(tr("Position (world)"), p, {"px", "py", "pz"});
  addGroup(tr("Attitude quaternion (world)"), p, {"qw", "qx", "qy", "qz"});
  addGroup(tr("Velocity of the origin (world)"), p, {"vx", "vy", "vz"});
  addGroup(tr("Angular velocity (world)"), p, {"wx", "wy", "wz"});
  if (!b.joint.empty()) {
    const std::string j = "joint." + b.joint + ".";
    addGroup(tr("Joint %1: coordinates").arg(QString::fromStdString(b.joint)), j,
             names(configurationCoordinates(b.joint_type)));
    addGroup(tr("Joint %1: velocities").arg(QString::fromStdString(b.joint)), j,
             names(velocityCoordinates(b.joint_type)));
  }
  refresh();
}

void InspectPanel::addGroup(const QString& heading, const std::string& prefix, const std::vector<std::string>& suffixes) {
  auto* group = new QTreeWidgetItem(tree_, {heading});
  group->setFirstColumnSpanned(true);
  QFont bold = font();
  bold.setBold(true);
  group->setFont(0, bold);  // the heading spans the row from column 0
  const std::size_t rows_before = rows_.size();
  for (const std::string& suffix : suffixes) {
    const int c = log_->channels.find(prefix + suffix);
    if (c < 0) continue;
    const ChannelInfo& info = log_->channels[c];
    Row row{c, log_->channels.find("reference." + info.name), nullptr};
    row.item = new QTreeWidgetItem(tree_, {QString(), QString::fromStdString(suffix), QString(), QString(),
                                           QString::fromStdString(info.unit == "1" ? "" : info.unit)});
    row.item->setToolTip(kQuantity, QString::fromStdString(info.name + ": " + info.description));
    row.item->setTextAlignment(kValue, Qt::AlignRight | Qt::AlignVCenter);
    row.item->setTextAlignment(kReference, Qt::AlignRight | Qt::AlignVCenter);
    auto* plot = new QToolButton(tree_);
    plot->setObjectName(QString::fromStdString("inspect.plot." + info.name));
    plot->setText(QStringLiteral("+"));
    plot->setAutoRaise(true);
    plot->setFocusPolicy(Qt::NoFocus);
    std::vector<std::string> channels{info.name};
    if (row.reference >= 0) channels.push_back(log_->channels[row.reference].name);
    plot->setToolTip(row.reference >= 0 ? tr("add %1 and its reference to the Custom plot").arg(QString::fromStdString(info.name))
                                        : tr("add %1 to the Custom plot").arg(QString::fromStdString(info.name)));
    connect(plot, &QToolButton::clicked, this, [this, channels] { Q_EMIT plotRequested(channels); });
    tree_->setItemWidget(row.item, kPlot, plot);
    rows_.push_back(row);
  }
  if (rows_.size() == rows_before) delete group;  // the run has none of them
}

void InspectPanel::showEvent(QShowEvent* event) {
  QWidget::showEvent(event);
  refresh();  // refresh() skips a hidden panel (a tab behind Gains): catch up when it shows
}

void InspectPanel::refresh() {
  if (!log_ || rows_.empty() || !isVisible()) return;
  const bool any = !log_->values.empty();
  const std::span<const double> v = any ? log_->values.back() : std::span<const double>();
  for (const Row& r : rows_) {
    r.item->setText(kValue, any ? number(v[r.channel]) : QStringLiteral("—"));
    r.item->setText(kReference, any && r.reference >= 0 ? number(v[r.reference]) : QStringLiteral("—"));
  }
}

QString InspectPanel::valueText(int r) const { return rows_[r].item->text(kValue); }
QString InspectPanel::referenceText(int r) const { return rows_[r].item->text(kReference); }

}  // namespace rbs::ui
