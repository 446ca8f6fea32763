// SceneError (core/io/scene_error.h).
#include <algorithm>
#include <string>
#include <utility>

#include "core/io/scene_error.h"

namespace rbs {
namespace {

/// "file:line:column: message"; ":line:column" omitted when the source has no location
/// (line ≤ 0), ":column" omitted when only the line is known (column ≤ 0).
std::string formatSceneError(const std::string& file, int line, int column,
                             const std::string& message) {
  std::string out = file;
  if (line > 0) {
    out += ':' + std::to_string(line);
    if (column > 0) out += ':' + std::to_string(column);
  }
  out += ": ";
  out += message;
  return out;
}

}  // namespace

std::string quotedNames(const std::vector<std::string>& names) {
  constexpr std::size_t kShown = 5;
  std::string out;
  for (std::size_t i = 0; i < std::min(names.size(), kShown); ++i) out += (i ? ", '" : "'") + names[i] + "'";
  if (names.size() > kShown) out += " and " + std::to_string(names.size() - kShown) + " more";
  return out;
}

std::string SceneWarning::text() const {
  return formatSceneError(file, line, column, "warning: " + message);
}

SceneError::SceneError(std::string file, int line, int column, std::string message)
    : std::runtime_error(formatSceneError(file, line, column, message)),
      file_(std::move(file)),
      line_(line),
      column_(column),
      message_(std::move(message)) {}

}  // namespace rbs
