// The scene browser: the built-in library (scenes/*.yaml, with each file's name and description),
// Open… for any scene or URDF file, the recent files, and reload from disk.
#pragma once

#include <filesystem>
#include <vector>

#include <QWidget>

class QListWidget;
class QComboBox;
class QLabel;

namespace rbs::ui {

/// The built-in library folder: $RBSIM_SCENES_DIR, else the source tree's scenes/.
std::filesystem::path libraryDir();
/// The library's scene files, sorted by name.
std::vector<std::filesystem::path> libraryScenes();
/// The `description:` of a scene file read as text (no model is built), one paragraph.
QString sceneDescription(const std::filesystem::path& file);

class SceneBrowser : public QWidget {
  Q_OBJECT
 public:
  explicit SceneBrowser(QWidget* parent = nullptr);
  /// Marks `file` as the current scene and puts it first in the recent files.
  void setCurrent(const std::filesystem::path& file);
  QStringList recentFiles() const { return recent_; }
  void setRecentFiles(const QStringList& files);

 Q_SIGNALS:
  void openRequested(const QString& file);
  /// Open…: the window asks for a file (one file dialog for the button and File ▸ Open).
  void openDialogRequested();
  void reloadRequested();

 private:
  QListWidget* list_ = nullptr;
  QComboBox* recent_box_ = nullptr;
  QLabel* description_ = nullptr;
  QStringList recent_;
  void fillRecent();
};

}  // namespace rbs::ui
