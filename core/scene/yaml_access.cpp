#include "core/scene/yaml_access.h"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cstdint>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <optional>
#include <set>
#include <utility>

namespace rbs::scene_detail {
namespace {

std::string quote(std::string_view s) {
  constexpr std::size_t kMax = 40;
  std::string out = "'";
  out += s.size() > kMax ? std::string(s.substr(0, kMax)) + "…" : std::string(s);
  out += "'";
  return out;
}

enum class NumberParse { Ok, NotANumber, NaN, Infinite, OutOfRange };

/// YAML 1.2 core-schema floats and decimal integers; .nan/.inf are recognized to be rejected.
NumberParse parseNumber(std::string_view t, double& out) {
  while (!t.empty() && (t.front() == ' ' || t.front() == '\t')) t.remove_prefix(1);
  while (!t.empty() && (t.back() == ' ' || t.back() == '\t')) t.remove_suffix(1);
  if (t.empty()) return NumberParse::NotANumber;
  std::string lower(t);
  std::transform(lower.begin(), lower.end(), lower.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  if (lower == ".nan" || lower == "nan" || lower == "+nan" || lower == "-nan") return NumberParse::NaN;
  for (const char* inf : {".inf", "inf", "infinity"})
    if (lower == inf || lower == std::string("+") + inf || lower == std::string("-") + inf)
      return NumberParse::Infinite;
  std::string_view body = t;
  if (body.front() == '+') body.remove_prefix(1);
  if (body.empty() || body.front() == '+') return NumberParse::NotANumber;
  // from_chars accepts what YAML calls a float except a leading '+'; it rejects hex and words.
  const char* first = body.data();
  const char* last = body.data() + body.size();
  auto [ptr, ec] = std::from_chars(first, last, out, std::chars_format::general);
  if (ec == std::errc::result_out_of_range) return ptr == last ? NumberParse::OutOfRange : NumberParse::NotANumber;
  if (ec != std::errc() || ptr != last) return NumberParse::NotANumber;
  if (std::isnan(out)) return NumberParse::NaN;
  if (std::isinf(out)) return NumberParse::Infinite;
  return NumberParse::Ok;
}

bool isQuoted(const YAML::Node& n) { return n.Tag() == "!"; }

/// Scalar text for messages.
std::string scalarText(const YAML::Node& n) { return n.Scalar(); }

void collect(const YAML::Node& n, std::vector<YAML::Node>& out, int depth) {
  out.push_back(n);
  if (depth > kMaxNesting) return;
  if (n.IsSequence())
    for (const auto& e : n) collect(e, out, depth + 1);
  if (n.IsMap())
    for (const auto& kv : n) {
      out.push_back(kv.first);
      collect(kv.second, out, depth + 1);
    }
}

}  // namespace

// ---- words ----------------------------------------------------------------------------------

std::size_t editDistance(std::string_view a, std::string_view b) {
  const std::size_t n = a.size(), m = b.size();
  std::vector<std::vector<std::size_t>> d(n + 1, std::vector<std::size_t>(m + 1));
  for (std::size_t i = 0; i <= n; ++i) d[i][0] = i;
  for (std::size_t j = 0; j <= m; ++j) d[0][j] = j;
  for (std::size_t i = 1; i <= n; ++i)
    for (std::size_t j = 1; j <= m; ++j) {
      const std::size_t cost = a[i - 1] == b[j - 1] ? 0 : 1;
      d[i][j] = std::min({d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + cost});
      if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1])
        d[i][j] = std::min(d[i][j], d[i - 2][j - 2] + 1);
    }
  return d[n][m];
}

std::string didYouMean(std::string_view word, const std::vector<std::string>& candidates) {
  if (word.size() > 200) return "";
  std::string lower(word);
  std::transform(lower.begin(), lower.end(), lower.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  std::string best;
  std::size_t best_d = 0;
  for (const auto& c : candidates) {
    const std::size_t d = editDistance(lower, c);
    if (best.empty() || d < best_d) {
      best = c;
      best_d = d;
    }
  }
  if (best.empty()) return "";
  // Allow about one edit per three characters (at least one, at most three).
  const std::size_t allowed = std::clamp<std::size_t>(best.size() / 3, 1, 3);
  if (best_d == 0 || best_d > allowed) return best_d == 0 && lower != word ? "; did you mean '" + best + "'?" : "";
  return "; did you mean '" + best + "'?";
}

std::string joinList(const std::vector<std::string>& words, std::string_view separator) {
  std::string out;
  for (std::size_t i = 0; i < words.size(); ++i) {
    if (i) out += separator;
    out += words[i];
  }
  return out;
}

// ---- raw text -------------------------------------------------------------------------------

void checkText(const std::string& file, const std::string& text) {
  if (text.size() > kMaxFileBytes)
    throw SceneError(file, 0, 0,
                     "the file has " + std::to_string(text.size()) +
                         " bytes; scene files are limited to 16 MiB");
  int line = 1, column = 1;
  // Flow nesting ([ and {) outside quotes and comments; block nesting is checked on the tree.
  int depth = 0;
  enum class Mode { Plain, Single, Double, Comment } mode = Mode::Plain;
  char previous_significant = '\n';  // last non-blank character on this line ('\n' at line start)
  const std::size_t n = text.size();
  for (std::size_t i = 0; i < n;) {
    const auto c = static_cast<unsigned char>(text[i]);
    std::size_t len = 1;
    if (c < 0x80) {
      if ((c < 0x20 && c != '\t' && c != '\n' && c != '\r') || c == 0x7f) {
        char hex[8];
        std::snprintf(hex, sizeof hex, "0x%02X", c);
        throw SceneError(file, line, column,
                         std::string("unexpected control byte ") + hex +
                             " (is this a binary file?); expected YAML text (UTF-8)");
      }
    } else {
      // UTF-8 sequence: lead byte, continuation bytes 10xxxxxx, no overlong forms or surrogates.
      std::uint32_t cp = 0;
      if (c >= 0xC2 && c <= 0xDF) {
        len = 2;
        cp = c & 0x1F;
      } else if (c >= 0xE0 && c <= 0xEF) {
        len = 3;
        cp = c & 0x0F;
      } else if (c >= 0xF0 && c <= 0xF4) {
        len = 4;
        cp = c & 0x07;
      } else {
        len = 0;
      }
      bool ok = len != 0 && i + len <= n;
      for (std::size_t k = 1; ok && k < len; ++k) {
        const auto cc = static_cast<unsigned char>(text[i + k]);
        if ((cc & 0xC0) != 0x80) ok = false;
        cp = (cp << 6) | (cc & 0x3F);
      }
      if (ok && ((len == 3 && (cp < 0x800 || (cp >= 0xD800 && cp <= 0xDFFF))) ||
                 (len == 4 && (cp < 0x10000 || cp > 0x10FFFF))))
        ok = false;
      if (!ok) {
        char hex[8];
        std::snprintf(hex, sizeof hex, "0x%02X", c);
        throw SceneError(file, line, column,
                         std::string("invalid UTF-8 (byte ") + hex +
                             "; is this a binary file?); expected YAML text (UTF-8)");
      }
    }
    const char ch = text[i];
    switch (mode) {
      case Mode::Comment:
        if (ch == '\n') mode = Mode::Plain;
        break;
      case Mode::Single:
        if (ch == '\'') {
          if (i + 1 < n && text[i + 1] == '\'') {
            ++i;  // '' is an escaped quote inside the string
            ++column;
          } else {
            mode = Mode::Plain;
          }
        }
        break;
      case Mode::Double:
        if (ch == '\\' && i + 1 < n && text[i + 1] != '\n' && static_cast<unsigned char>(text[i + 1]) < 0x80) {
          ++i;  // skip the escaped character (ASCII in every valid escape)
          ++column;
        } else if (ch == '"') {
          mode = Mode::Plain;
        }
        break;
      case Mode::Plain: {
        const bool starts_token = previous_significant == '\n' || previous_significant == ':' ||
                                  previous_significant == '[' || previous_significant == '{' ||
                                  previous_significant == ',' || previous_significant == '-' ||
                                  previous_significant == '?';
        const bool after_blank = i == 0 || text[i - 1] == ' ' || text[i - 1] == '\t' || text[i - 1] == '\n';
        if (ch == '#' && after_blank) {
          mode = Mode::Comment;
        } else if ((ch == '\'' || ch == '"') && starts_token) {
          mode = ch == '\'' ? Mode::Single : Mode::Double;
        } else if (ch == '[' || ch == '{') {
          if (++depth > kMaxNesting)
            throw SceneError(file, line, column,
                             "lists and maps are nested more than " + std::to_string(kMaxNesting) +
                                 " levels deep; expected a flatter document");
        } else if (ch == ']' || ch == '}') {
          depth = std::max(0, depth - 1);
        }
        break;
      }
    }
    if (ch == '\n') {
      ++line;
      column = 1;
      previous_significant = '\n';
      if (mode == Mode::Comment) mode = Mode::Plain;
    } else {
      ++column;
      if (ch != ' ' && ch != '\t' && ch != '\r') previous_significant = ch;
    }
    i += len == 0 ? 1 : len;
  }
}

// ---- Source ---------------------------------------------------------------------------------

void Source::addOverride(std::string assignment, std::vector<YAML::Node> nodes) {
  std::vector<YAML::Node> all;
  for (const auto& n : nodes) collect(n, all, 0);
  overrides_.push_back({std::move(assignment), std::move(all)});
}

SceneError Source::errorAtMark(const YAML::Mark& mark, const std::string& message) const {
  if (synthetic_ || mark.is_null() || mark.line < 0) return SceneError(file_, 0, 0, message);
  return SceneError(file_, mark.line + 1, mark.column + 1, message);
}

SceneError Source::error(const YAML::Node& at, const std::string& message) const {
  for (const auto& o : overrides_)
    for (const auto& n : o.nodes)
      if (n.is(at)) return SceneError(file_, 0, 0, "--set " + o.assignment + ": " + message);
  if (!at.IsDefined()) return SceneError(file_, 0, 0, message);
  return errorAtMark(at.Mark(), message);
}

void Source::fail(const YAML::Node& at, const std::string& message) const { throw error(at, message); }

// ---- values ---------------------------------------------------------------------------------

std::string describe(const YAML::Node& n) {
  if (!n.IsDefined() || n.IsNull()) return "nothing";
  if (n.IsSequence()) return "a list of " + std::to_string(n.size()) + (n.size() == 1 ? " element" : " elements");
  if (n.IsMap()) return "a map";
  const std::string& s = n.Scalar();
  if (isQuoted(n)) return "a string " + quote(s);
  double v = 0.0;
  switch (parseNumber(s, v)) {
    case NumberParse::Ok:
      return "a number (" + s + ")";
    case NumberParse::NaN:
      return "NaN";
    case NumberParse::Infinite:
      return "infinity";
    default:
      break;
  }
  if (s == "true" || s == "false") return "a boolean (" + s + ")";
  return "a string " + quote(s);
}

void checkTree(const Source& src, const YAML::Node& root) {
  long count = 0;
  // Recursion is bounded by kMaxNesting + 1 frames.
  struct Walker {
    const Source& src;
    long& count;
    void operator()(const YAML::Node& n, int depth) {
      if (++count > kMaxNodes)
        src.fail(n, "the document has more than " + std::to_string(kMaxNodes) +
                        " values (counting each use of an alias); expected a smaller scene");
      if (depth > kMaxNesting)
        src.fail(n, "lists and maps are nested more than " + std::to_string(kMaxNesting) +
                        " levels deep; expected a flatter document");
      if (n.IsSequence())
        for (const auto& e : n) (*this)(e, depth + 1);
      else if (n.IsMap())
        for (const auto& kv : n) {
          (*this)(kv.first, depth + 1);
          (*this)(kv.second, depth + 1);
        }
    }
  } walk{src, count};
  walk(root, 0);
}

std::string at(const std::string& path, const std::string& message) {
  return path.empty() ? message : path + ": " + message;
}

double readNumber(const Source& src, const YAML::Node& node, const std::string& path) {
  if (!node.IsDefined() || !node.IsScalar() || isQuoted(node))
    src.fail(node, at(path, "expected a number, got " + describe(node)));
  double v = 0.0;
  switch (parseNumber(scalarText(node), v)) {
    case NumberParse::Ok:
      return v;
    case NumberParse::NaN:
      src.fail(node, at(path, "expected a finite number, got NaN (" + scalarText(node) + ")"));
    case NumberParse::Infinite:
      src.fail(node, at(path, "expected a finite number, got infinity (" + scalarText(node) + ")"));
    case NumberParse::OutOfRange:
      src.fail(node, at(path, "the number " + quote(scalarText(node)) +
                                   " is out of the range of double precision; expected a finite number"));
    case NumberParse::NotANumber:
      break;
  }
  src.fail(node, at(path, "expected a number, got " + describe(node)));
}

int readInteger(const Source& src, const YAML::Node& node, const std::string& path) {
  const double v = readNumber(src, node, path);
  if (v != std::floor(v) || std::abs(v) > 1e9)
    src.fail(node, at(path, "expected an integer, got " + scalarText(node)));
  return static_cast<int>(v);
}

bool readBool(const Source& src, const YAML::Node& node, const std::string& path) {
  if (node.IsDefined() && node.IsScalar() && !isQuoted(node)) {
    const std::string& s = node.Scalar();
    if (s == "true" || s == "True" || s == "TRUE") return true;
    if (s == "false" || s == "False" || s == "FALSE") return false;
  }
  src.fail(node, at(path, "expected true or false, got " + describe(node)));
}

std::string readString(const Source& src, const YAML::Node& node, const std::string& path) {
  if (!node.IsDefined() || !node.IsScalar())
    src.fail(node, at(path, "expected a string, got " + describe(node)));
  return node.Scalar();
}

std::string readName(const Source& src, const YAML::Node& node, const std::string& path) {
  std::string s = readString(src, node, path);
  if (s.empty()) src.fail(node, at(path, "expected a non-empty name"));
  return s;
}

std::string readChoice(const Source& src, const YAML::Node& node, const std::string& path,
                       const std::vector<std::string>& choices) {
  if (!node.IsDefined() || !node.IsScalar())
    src.fail(node, at(path, "expected one of " + joinList(choices, " | ") + ", got " + describe(node)));
  const std::string& s = node.Scalar();
  if (std::find(choices.begin(), choices.end(), s) != choices.end()) return s;
  src.fail(node, at(path, "expected one of " + joinList(choices, " | ") + ", got " + quote(s) +
                              didYouMean(s, choices)));
}

std::vector<double> readNumbers(const Source& src, const YAML::Node& node, const std::string& path,
                                int count) {
  const std::string expected =
      count < 0 ? "a list of numbers"
                : "a list of " + std::to_string(count) + (count == 1 ? " number" : " numbers");
  if (!node.IsDefined() || !node.IsSequence())
    src.fail(node, at(path, "expected " + expected + ", got " + describe(node)));
  if (count >= 0 && node.size() != static_cast<std::size_t>(count))
    src.fail(node, at(path, "expected " + expected + ", got " + describe(node)));
  if (node.size() > kMaxListItems) src.fail(node, at(path, "the list is too long"));
  std::vector<double> out;
  out.reserve(node.size());
  std::size_t i = 0;
  for (const auto& e : node) out.push_back(readNumber(src, e, path + "[" + std::to_string(i++) + "]"));
  return out;
}

Vec3 readVec3(const Source& src, const YAML::Node& node, const std::string& path) {
  const auto v = readNumbers(src, node, path, 3);
  return Vec3(v[0], v[1], v[2]);
}

std::vector<std::string> readStrings(const Source& src, const YAML::Node& node, const std::string& path) {
  std::vector<std::string> out;
  std::size_t i = 0;
  for (const auto& e : readList(src, node, path)) out.push_back(readString(src, e, path + "[" + std::to_string(i++) + "]"));
  return out;
}

std::vector<YAML::Node> readList(const Source& src, const YAML::Node& node, const std::string& path) {
  if (!node.IsDefined() || node.IsNull()) return {};
  if (!node.IsSequence()) src.fail(node, at(path, "expected a list, got " + describe(node)));
  if (node.size() > kMaxListItems)
    src.fail(node, at(path, "has " + std::to_string(node.size()) + " elements; at most " +
                                std::to_string(kMaxListItems) + " are supported"));
  std::vector<YAML::Node> out;
  out.reserve(node.size());
  for (const auto& e : node) out.push_back(e);
  return out;
}

// ---- MapView --------------------------------------------------------------------------------

MapView::MapView(const Source& src, const YAML::Node& node, std::string path,
                 std::vector<std::string> allowed)
    : src_(&src), node_(node), path_(std::move(path)) {
  const bool any_key = allowed.size() == 1 && allowed[0] == "*";
  if (!node.IsDefined() || node.IsNull()) return;
  if (!node.IsMap()) {
    std::string expected = any_key ? "expected a map" : "expected a map with the keys " + joinList(allowed);
    src.fail(node, scene_detail::at(path_, expected + ", got " + describe(node)));
  }
  for (const auto& kv : node) {
    const YAML::Node& k = kv.first;
    if (!k.IsScalar()) src.fail(k, scene_detail::at(path_, "expected a plain key, got " + describe(k) + " as a key"));
    const std::string key = k.Scalar();
    for (const auto& e : entries_)
      if (e.key == key) {
        const YAML::Mark m = e.key_node.Mark();
        src.fail(k, scene_detail::at(path_, "duplicate key '" + key + "'" +
                                  (m.is_null() ? "" : " (first given on line " + std::to_string(m.line + 1) + ")")));
      }
    if (!any_key && std::find(allowed.begin(), allowed.end(), key) == allowed.end()) {
      std::string hint = didYouMean(key, allowed);
      if (hint.empty()) hint = "; expected one of: " + joinList(allowed);
      src.fail(k, scene_detail::at(path_, "unknown key " + quote(key) + hint));
    }
    entries_.push_back({key, k, kv.second});
  }
}

std::string MapView::at(std::string_view key) const {
  return path_.empty() ? std::string(key) : path_ + "." + std::string(key);
}

const YAML::Node* MapView::find(std::string_view key) const {
  for (const auto& e : entries_)
    if (e.key == key) return &e.value;
  return nullptr;
}

const YAML::Node& MapView::require(std::string_view key) const {
  if (const YAML::Node* n = find(key)) return *n;
  src_->fail(node_, scene_detail::at(path_, "missing required key '" + std::string(key) + "'"));
}

std::vector<std::string> MapView::keys() const {
  std::vector<std::string> out;
  for (const auto& e : entries_) out.push_back(e.key);
  return out;
}

std::string MapView::exactlyOne(const std::vector<std::string>& keys, std::string_view what) const {
  std::string found;
  for (const auto& e : entries_)
    if (std::find(keys.begin(), keys.end(), e.key) != keys.end()) {
      if (!found.empty())
        src_->fail(e.key_node, scene_detail::at(path_, "both '" + found + "' and '" + e.key + "' given; expected exactly one " +
                                                           std::string(what) + " (" + joinList(keys, " | ") + ")"));
      found = e.key;
    }
  if (found.empty())
    src_->fail(node_, scene_detail::at(path_, "expected one " + std::string(what) + " key (" + joinList(keys, " | ") +
                                                  "), got " + (entries_.empty() ? std::string("none") : "only " + joinList(this->keys()))));
  return found;
}

void MapView::exclusive(std::string_view a, std::string_view b) const {
  if (!has(a) || !has(b)) return;
  for (const auto& e : entries_)
    if (e.key == b)
      src_->fail(e.key_node, scene_detail::at(path_, "'" + std::string(a) + "' and '" + std::string(b) +
                                                         "' exclude each other; give one of them"));
}

double MapView::number(std::string_view key, double fallback) const {
  const YAML::Node* n = find(key);
  return n ? readNumber(*src_, *n, at(key)) : fallback;
}

double MapView::number(std::string_view key) const { return readNumber(*src_, require(key), at(key)); }

std::string MapView::string(std::string_view key, const std::string& fallback) const {
  const YAML::Node* n = find(key);
  return n ? readString(*src_, *n, at(key)) : fallback;
}

std::string MapView::name(std::string_view key) const { return readName(*src_, require(key), at(key)); }

Vec3 MapView::vec3(std::string_view key, const Vec3& fallback) const {
  const YAML::Node* n = find(key);
  return n ? readVec3(*src_, *n, at(key)) : fallback;
}

std::string readTextFile(const std::filesystem::path& file, const std::string& what) {
  const std::string label = file.string();
  namespace fs = std::filesystem;
  std::error_code ec;
  if (!fs::exists(file, ec)) throw SceneError(label, 0, 0, "no such file");
  if (fs::is_directory(file, ec)) throw SceneError(label, 0, 0, "is a directory; expected a " + what + " file");
  const auto size = fs::file_size(file, ec);
  if (!ec && size > kMaxFileBytes)
    throw SceneError(label, 0, 0, "the file has " + std::to_string(size) + " bytes; " + what + " files are limited to 16 MiB");
  std::ifstream in(file, std::ios::binary);
  if (!in) throw SceneError(label, 0, 0, "cannot open the file for reading");
  std::string text;
  char buffer[1 << 16];
  while (in.read(buffer, sizeof buffer) || in.gcount() > 0) {
    text.append(buffer, static_cast<std::size_t>(in.gcount()));
    if (text.size() > kMaxFileBytes)
      throw SceneError(label, 0, 0, "the file is larger than 16 MiB, the limit for " + what + " files");
  }
  if (in.bad()) throw SceneError(label, 0, 0, "error while reading the file");
  return text;
}

}  // namespace rbs::scene_detail
