// SceneError: an input file's error with its place. Below core/scene and core/urdf, which both
// throw it (the loader for YAML, the importer for URDF), so that neither includes the other's
// folder to report one.
#pragma once

#include <stdexcept>
#include <string>
#include <vector>

namespace rbs {

/// An error in a scene or URDF file. what() reads "file:line:column: message" (line and column
/// 1-based; omitted where the source has none, e.g. URDF semantics).
class SceneError : public std::runtime_error {
 public:
  SceneError(std::string file, int line, int column, std::string message);
  const std::string& file() const { return file_; }
  int line() const { return line_; }
  int column() const { return column_; }
  const std::string& message() const { return message_; }

 private:
  std::string file_;
  int line_;
  int column_;
  std::string message_;
};

/// Something in an input file that rbsim accepts but does not simulate as written (a URDF's joint
/// friction, a mimic joint): the user is told once, with the place, and the scene still loads.
struct SceneWarning {
  std::string file;
  int line = 0;    ///< 1-based; 0 if unknown
  int column = 0;  ///< 1-based; 0 if unknown
  std::string message;
  /// "file:line:column: warning: message" (the place as in SceneError::what()).
  std::string text() const;
};

/// The first five names, quoted and separated by commas, and how many more: for a warning that
/// names the elements it is about ("'a', 'b', 'c', 'd', 'e' and 7 more").
std::string quotedNames(const std::vector<std::string>& names);

}  // namespace rbs
