#include "render/collada_text.h"

#include <algorithm>
#include <array>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <stdexcept>

namespace rbs::render {

namespace {

bool isAscii(char c) { return static_cast<unsigned char>(c) < 0x80; }

/// The UTF-8 byte-order mark some exporters put before `<?xml` (not part of the document's text).
const std::string kByteOrderMark = "\xEF\xBB\xBF";

std::size_t textStart(const std::string& document) {
  return document.compare(0, kByteOrderMark.size(), kByteOrderMark) == 0 ? kByteOrderMark.size() : 0;
}

std::string lowercase(std::string s) {
  std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return s;
}

/// `<init_from>` names either an image file (in <image>) or an image's id (in a <surface>): a
/// file name ends in an image extension.
bool isImageFileName(const std::string& text) {
  static const std::array<const char*, 9> kExtensions = {".png", ".jpg", ".jpeg", ".tga", ".bmp",
                                                         ".tif", ".tiff", ".dds", ".gif"};
  const std::string lower = lowercase(text);
  return std::any_of(kExtensions.begin(), kExtensions.end(), [&](const char* e) {
    const std::string ext(e);
    return lower.size() > ext.size() && lower.compare(lower.size() - ext.size(), ext.size(), ext) == 0;
  });
}

/// A URI reference with a scheme (file:, http:) or an absolute path needs no base.
bool isRelativeReference(const std::string& ref) {
  if (ref.empty() || ref.front() == '/') return false;
  const std::size_t colon = ref.find(':'), slash = ref.find('/');
  return colon == std::string::npos || (slash != std::string::npos && slash < colon);
}

/// `directory` as a URI path: bytes outside the unreserved set and '/' percent-encoded.
std::string uriPath(const std::filesystem::path& directory) {
  std::string out;
  for (const char c : directory.string()) {
    const unsigned char u = static_cast<unsigned char>(c);
    if (std::isalnum(u) || c == '/' || c == '-' || c == '_' || c == '.' || c == '~') {
      out += c;
    } else {
      char escaped[4];
      std::snprintf(escaped, sizeof escaped, "%%%02X", u);
      out += escaped;
    }
  }
  return out;
}

void appendEscaped(std::string& out, const std::string& text) {
  for (const char c : text) {
    if (isAscii(c)) {
      out += c;
    } else {
      char escaped[5];
      std::snprintf(escaped, sizeof escaped, "_x%02X", static_cast<unsigned char>(c));
      out += escaped;
    }
  }
}

}  // namespace

std::string colladaUpAxis(const std::string& document) {
  const std::size_t asset_end = document.find("</asset>");
  const std::size_t open = document.find("<up_axis>");
  if (open == std::string::npos || (asset_end != std::string::npos && open > asset_end)) return {};
  const std::size_t begin = open + 9, end = document.find("</up_axis>", begin);
  if (end == std::string::npos) return {};
  std::string axis = document.substr(begin, end - begin);
  axis.erase(std::remove_if(axis.begin(), axis.end(), [](unsigned char c) { return std::isspace(c); }), axis.end());
  return axis;
}

double colladaUnitMeter(const std::string& document) {
  const std::size_t asset_end = document.find("</asset>");
  const std::size_t unit = document.find("<unit");
  if (unit == std::string::npos || (asset_end != std::string::npos && unit > asset_end)) return 1.0;
  const std::size_t tag_end = document.find('>', unit);
  const std::size_t key = document.find("meter=", unit);
  if (key == std::string::npos || key > tag_end || key + 7 > document.size()) return 1.0;
  const char quote = document[key + 6];
  const std::size_t end = document.find(quote, key + 7);
  if (end == std::string::npos) return 1.0;
  try {
    const double meter = std::stod(document.substr(key + 7, end - key - 7));
    return std::isfinite(meter) && meter > 0.0 ? meter : 1.0;
  } catch (const std::exception&) {
    return 1.0;
  }
}

bool hasNonAsciiBytes(const std::string& document) {
  const auto start = document.begin() + static_cast<std::ptrdiff_t>(textStart(document));
  return std::any_of(start, document.end(), [](char c) { return !isAscii(c); });
}

std::string withAsciiIds(const std::string& document, const std::filesystem::path& directory) {
  static const std::string kOpen = "<init_from>", kClose = "</init_from>";
  std::string out;
  out.reserve(document.size() + document.size() / 8);
  std::size_t at = textStart(document);
  out += document.substr(0, at);
  while (at < document.size()) {
    const std::size_t open = document.find(kOpen, at);
    const std::size_t content = open == std::string::npos ? std::string::npos : open + kOpen.size();
    const std::size_t close = content == std::string::npos ? std::string::npos : document.find(kClose, content);
    if (close == std::string::npos) {
      appendEscaped(out, document.substr(at));
      break;
    }
    appendEscaped(out, document.substr(at, content - at));
    const std::string text = document.substr(content, close - content);
    const std::size_t first = text.find_first_not_of(" \t\r\n");
    const std::string name =
        first == std::string::npos ? "" : text.substr(first, text.find_last_not_of(" \t\r\n") + 1 - first);
    if (!isImageFileName(name)) {
      appendEscaped(out, text);
    } else {
      if (isRelativeReference(name)) out += uriPath(directory) + '/';
      out += name;
    }
    at = close;
  }
  return out;
}

}  // namespace rbs::render
