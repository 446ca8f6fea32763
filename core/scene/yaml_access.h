// Checked access to a yaml-cpp tree for the scene loader (private to core/scene): every value is
// read through a function that names its path ("body.link1.mass", the same spelling --set uses)
// and throws SceneError at the node's file:line:column with what was expected. Maps are read
// through MapView, which rejects unknown and duplicate keys with a did-you-mean suggestion.
#pragma once

#include <yaml-cpp/depthguard.h>
#include <yaml-cpp/yaml.h>

#include <cstddef>
#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

#include "core/math/se3.h"
#include "core/scene/scene.h"

namespace rbs::scene_detail {

inline constexpr int kMaxNesting = 64;                     ///< maps/lists inside each other
inline constexpr std::size_t kMaxFileBytes = 16u << 20;    ///< 16 MiB
inline constexpr long kMaxNodes = 1'000'000;               ///< nodes after alias expansion
inline constexpr std::size_t kMaxListItems = 10'000;       ///< elements of one list section

/// Optimal-string-alignment distance (insertions, deletions, substitutions, transpositions).
std::size_t editDistance(std::string_view a, std::string_view b);
/// "; did you mean 'x'?" for the closest candidate within a few edits, else "".
std::string didYouMean(std::string_view word, const std::vector<std::string>& candidates);
/// "a, b, c"
std::string joinList(const std::vector<std::string>& words, std::string_view separator = ", ");

/// The bytes of a text file; SceneError (at the file, no line) when it is missing, a directory,
/// unreadable or over kMaxFileBytes. `what` names the kind of file in messages ("scene", "study").
std::string readTextFile(const std::filesystem::path& file, const std::string& what);

/// Rejects what is not YAML text before yaml-cpp sees it: files over kMaxFileBytes, NUL and other
/// control bytes, invalid UTF-8, flow nesting deeper than kMaxNesting. Throws SceneError.
void checkText(const std::string& file, const std::string& text);

/// The file a tree came from, and the --set assignments that replaced parts of it: an error at a
/// node that came from an assignment names the assignment instead of a file position.
class Source {
 public:
  explicit Source(std::string file) : file_(std::move(file)) {}
  const std::string& file() const { return file_; }
  /// Nodes without a position in the file (a scene synthesized for a .urdf): errors carry no line.
  void setSynthetic(bool synthetic) { synthetic_ = synthetic; }
  void addOverride(std::string assignment, std::vector<YAML::Node> nodes);

  SceneError error(const YAML::Node& at, const std::string& message) const;
  [[noreturn]] void fail(const YAML::Node& at, const std::string& message) const;
  SceneError errorAtMark(const YAML::Mark& mark, const std::string& message) const;

 private:
  struct Override {
    std::string assignment;
    std::vector<YAML::Node> nodes;
  };
  std::string file_;
  bool synthetic_ = false;
  std::vector<Override> overrides_;
};

/// "a string 'abc'", "a number", "a list of 2 elements", "a map", "nothing".
std::string describe(const YAML::Node& node);
/// Depth and size of the tree (aliases expanded): at most kMaxNesting levels and kMaxNodes nodes.
void checkTree(const Source& src, const YAML::Node& root);

/// "path: message" (or just the message for an empty path).
std::string at(const std::string& path, const std::string& message);

double readNumber(const Source& src, const YAML::Node& node, const std::string& path);
int readInteger(const Source& src, const YAML::Node& node, const std::string& path);
bool readBool(const Source& src, const YAML::Node& node, const std::string& path);
std::string readString(const Source& src, const YAML::Node& node, const std::string& path);
/// A non-empty string.
std::string readName(const Source& src, const YAML::Node& node, const std::string& path);
/// One of `choices`, with a did-you-mean suggestion otherwise.
std::string readChoice(const Source& src, const YAML::Node& node, const std::string& path,
                       const std::vector<std::string>& choices);
/// A list of numbers; `count` < 0: any length.
std::vector<double> readNumbers(const Source& src, const YAML::Node& node, const std::string& path,
                                int count);
Vec3 readVec3(const Source& src, const YAML::Node& node, const std::string& path);
/// A list of strings.
std::vector<std::string> readStrings(const Source& src, const YAML::Node& node, const std::string& path);
/// The elements of a list (null: none); at most kMaxListItems.
std::vector<YAML::Node> readList(const Source& src, const YAML::Node& node, const std::string& path);

/// A map whose keys are checked against `allowed` (null counts as an empty map).
class MapView {
 public:
  MapView(const Source& src, const YAML::Node& node, std::string path,
          std::vector<std::string> allowed);

  const Source& source() const { return *src_; }
  const YAML::Node& node() const { return node_; }
  const std::string& path() const { return path_; }
  /// The path of a key: "path.key".
  std::string at(std::string_view key) const;

  bool has(std::string_view key) const { return find(key) != nullptr; }
  /// The value node of `key`, nullptr if absent.
  const YAML::Node* find(std::string_view key) const;
  /// The value node of `key`; throws "missing required key".
  const YAML::Node& require(std::string_view key) const;
  /// Keys present, in file order.
  std::vector<std::string> keys() const;
  /// Exactly one of `keys` present (throws otherwise); returns it.
  std::string exactlyOne(const std::vector<std::string>& keys, std::string_view what) const;
  /// Throws if both keys are present.
  void exclusive(std::string_view a, std::string_view b) const;

  double number(std::string_view key, double fallback) const;
  double number(std::string_view key) const;  ///< required
  std::string string(std::string_view key, const std::string& fallback) const;
  std::string name(std::string_view key) const;  ///< required, non-empty
  Vec3 vec3(std::string_view key, const Vec3& fallback) const;

 private:
  struct Entry {
    std::string key;
    YAML::Node key_node;
    YAML::Node value;
  };
  const Source* src_;
  YAML::Node node_;
  std::string path_;
  std::vector<Entry> entries_;
};

}  // namespace rbs::scene_detail
