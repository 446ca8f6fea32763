// SceneError: an input file's error with its place. Below core/scene and core/urdf, which both
// throw it (the loader for YAML, the importer for URDF), so that neither includes the other's
// folder to report one.
#pragma once

#include <stdexcept>
#include <string>

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

}  // namespace rbs
