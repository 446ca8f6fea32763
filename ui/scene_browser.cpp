#include "ui/scene_browser.h"

#include <algorithm>
#include <cstdlib>
#include <fstream>
#include <string>

#include <QComboBox>
#include <QFileInfo>
#include <QHBoxLayout>
#include <QLabel>
#include <QListWidget>
#include <QPushButton>
#include <QSignalBlocker>
#include <QVBoxLayout>

#include "core/io/resource_path.h"

namespace rbs::ui {
namespace {
constexpr int kMaxRecent = 10;
}

std::filesystem::path libraryDir() {
  if (const char* dir = std::getenv("RBSIM_SCENES_DIR"); dir && *dir) return dir;
  if (const std::filesystem::path installed = installedDataDir(); !installed.empty()) return installed / "scenes";
  return RBS_DEFAULT_SCENES_DIR;
}

std::vector<std::filesystem::path> libraryScenes() {
  std::vector<std::filesystem::path> files;
  std::error_code ec;
  for (const auto& entry : std::filesystem::directory_iterator(libraryDir(), ec))
    if (entry.path().extension() == ".yaml") files.push_back(entry.path());
  std::sort(files.begin(), files.end());
  return files;
}

QString sceneDescription(const std::filesystem::path& file) {
  std::ifstream in(file);
  std::string line, text;
  bool inside = false;
  while (std::getline(in, line)) {
    if (!inside) {
      if (line.rfind("description:", 0) != 0) continue;
      std::string rest = line.substr(12);
      rest.erase(0, rest.find_first_not_of(" "));
      if (rest.empty() || rest[0] == '>' || rest[0] == '|') {
        inside = true;
        continue;
      }
      return QString::fromStdString(rest).remove('"');
    }
    if (!line.empty() && line[0] != ' ') break;  // the block ends at the next top-level key
    const auto start = line.find_first_not_of(' ');
    if (start != std::string::npos) text += (text.empty() ? "" : " ") + line.substr(start);
  }
  return QString::fromStdString(text);
}

SceneBrowser::SceneBrowser(QWidget* parent) : QWidget(parent) {
  auto* layout = new QVBoxLayout(this);
  list_ = new QListWidget(this);
  list_->setObjectName("scenes.list");
  list_->setToolTip(tr("the scenes shipped with rbsim: double click one to open it"));
  for (const auto& file : libraryScenes()) {
    auto* item = new QListWidgetItem(QString::fromStdString(file.stem().string()), list_);
    item->setData(Qt::UserRole, QString::fromStdString(file.string()));
    const QString description = sceneDescription(file);
    item->setToolTip("<p>" + description.toHtmlEscaped() + "</p>");
    item->setData(Qt::UserRole + 1, description);
  }
  layout->addWidget(new QLabel(tr("Library (double click to open)"), this));
  layout->addWidget(list_, 1);
  description_ = new QLabel(this);
  description_->setWordWrap(true);
  description_->setMinimumHeight(60);
  description_->setAlignment(Qt::AlignTop | Qt::AlignLeft);
  layout->addWidget(description_);
  auto* buttons = new QHBoxLayout;
  auto* open = new QPushButton(tr("Open…"), this);
  auto* reload = new QPushButton(tr("Reload"), this);
  open->setObjectName("scenes.open");
  reload->setObjectName("scenes.reload");
  open->setToolTip(tr("open a scene (YAML) or robot (URDF) file (Ctrl+O)"));
  reload->setToolTip(tr("read the current scene file again from disk (F5)"));
  // a click does not take the keyboard focus, so Space stays Play/Pause (Tab still reaches them)
  open->setFocusPolicy(Qt::TabFocus);
  reload->setFocusPolicy(Qt::TabFocus);
  buttons->addWidget(open);
  buttons->addWidget(reload);
  layout->addLayout(buttons);
  layout->addWidget(new QLabel(tr("Recent"), this));
  recent_box_ = new QComboBox(this);
  recent_box_->setObjectName("scenes.recent");
  recent_box_->setToolTip(tr("the file open now, and the scene and robot files opened before it: choose one to "
                             "open it again"));
  layout->addWidget(recent_box_);

  connect(list_, &QListWidget::currentItemChanged, this, [this](QListWidgetItem* item) {
    if (item) description_->setText(item->data(Qt::UserRole + 1).toString());
  });
  connect(list_, &QListWidget::itemActivated, this,
          [this](QListWidgetItem* item) { Q_EMIT openRequested(item->data(Qt::UserRole).toString()); });
  connect(open, &QPushButton::clicked, this, [this] { Q_EMIT openDialogRequested(); });
  connect(reload, &QPushButton::clicked, this, [this] { Q_EMIT reloadRequested(); });
  connect(recent_box_, &QComboBox::activated, this, [this](int i) {
    // entry 0 is the file open now (F5 reads it again)
    if (i > 0 && i < recent_.size()) Q_EMIT openRequested(recent_[i]);
  });
}

void SceneBrowser::setCurrent(const std::filesystem::path& file) {
  const QString path = QString::fromStdString(std::filesystem::absolute(file).lexically_normal().string());
  recent_.removeAll(path);
  recent_.prepend(path);
  while (recent_.size() > kMaxRecent) recent_.removeLast();
  fillRecent();
  const QSignalBlocker block(list_);
  for (int i = 0; i < list_->count(); ++i) {
    const std::filesystem::path item = list_->item(i)->data(Qt::UserRole).toString().toStdString();
    if (std::filesystem::absolute(item).lexically_normal() == std::filesystem::absolute(file).lexically_normal()) {
      list_->setCurrentRow(i);
      description_->setText(list_->item(i)->data(Qt::UserRole + 1).toString());
      return;
    }
  }
  // not a library scene (Open…, a URDF): no library entry stays highlighted
  list_->setCurrentRow(-1);
  list_->clearSelection();
  description_->setText(tr("%1 (not in the library)").arg(path));
}

void SceneBrowser::setRecentFiles(const QStringList& files) {
  recent_ = files;
  fillRecent();
}

void SceneBrowser::fillRecent() {
  // The box shows the file open now (setCurrent puts it first), and lists those opened before; it
  // said "(recent files)" whatever was open.
  const QSignalBlocker block(recent_box_);
  recent_box_->clear();
  for (const QString& f : recent_) {
    recent_box_->addItem(QFileInfo(f).fileName(), f);
    recent_box_->setItemData(recent_box_->count() - 1, f, Qt::ToolTipRole);
  }
  if (recent_.isEmpty()) recent_box_->addItem(tr("(no recent files)"));
  recent_box_->setEnabled(!recent_.isEmpty());
  recent_box_->setCurrentIndex(0);
}

}  // namespace rbs::ui
