// The Help menu's windows (docs/GUI.md, "Help"): the list of keyboard shortcuts and mouse
// gestures, made from the window's own menus so that it cannot drift from them, and the About box
// with rbsim's version and the libraries it is built on, with their versions and licenses.
#pragma once

#include <QList>
#include <QString>

class QDialog;
class QMenu;
class QWidget;

namespace rbs::ui {

/// A non-modal dialog (object name "help.shortcuts") with a table (object name
/// "help.shortcuts.table") of every action in `menus` that has a shortcut (key, what it does,
/// menu), followed by the mouse gestures of the 3D view. Deletes itself when closed.
QDialog* makeShortcutsDialog(QWidget* parent, const QList<QMenu*>& menus);

/// The About box's text (HTML): version, what rbsim is, and per library the version this build
/// uses (run time where the library reports it) and its license.
QString aboutText();

}  // namespace rbs::ui
