#include "core/io/resource_path.h"

#include <algorithm>
#include <cctype>
#include <cstdint>
#include <cstdlib>
#include <fstream>
#include <regex>
#include <string_view>

#ifndef RBS_DEFAULT_ASSETS_DIR
#define RBS_DEFAULT_ASSETS_DIR "assets"
#endif

namespace rbs {

namespace fs = std::filesystem;

namespace {

constexpr int kMaxCrawlDepth = 3;         // levels below a package path searched for a package
constexpr int kMaxEntriesPerFolder = 2000; // a crawl never lists more of one folder
constexpr int kMaxUpwardLevels = 64;       // folders above the naming file
constexpr int kMaxCrawlFolders = 20000;    // folders one package look-up visits at most

std::vector<fs::path> splitPathList(const char* value) {
  std::vector<fs::path> out;
  if (!value) return out;
  std::string_view rest(value);
  while (!rest.empty()) {
    const std::size_t colon = rest.find(':');
    const std::string_view part = rest.substr(0, colon);
    if (!part.empty()) out.emplace_back(std::string(part));
    if (colon == std::string_view::npos) break;
    rest.remove_prefix(colon + 1);
  }
  return out;
}

std::string readHead(const fs::path& file, std::size_t bytes) {
  std::ifstream in(file, std::ios::binary);
  std::string text(bytes, '\0');
  in.read(text.data(), static_cast<std::streamsize>(bytes));
  text.resize(static_cast<std::size_t>(std::max<std::streamsize>(in.gcount(), 0)));
  return text;
}

/// The <name> of the folder's package.xml, empty if it has none.
std::string packageXmlName(const fs::path& folder) {
  std::error_code ec;
  const fs::path xml = folder / "package.xml";
  if (!fs::is_regular_file(xml, ec)) return {};
  static const std::regex name(R"(<name>\s*([^<\s]+)\s*</name>)");
  const std::string head = readHead(xml, 64 * 1024);
  std::smatch m;
  return std::regex_search(head, m, name) ? m[1].str() : std::string();
}

bool isPackage(const fs::path& folder, const std::string& name) {
  return folder.filename() == name || packageXmlName(folder) == name;
}

/// Folders at most `depth` levels below `folder` (itself included) that are package `name`.
void crawl(const fs::path& folder, const std::string& name, int depth, int& budget, std::vector<fs::path>& out) {
  std::error_code ec;
  if (--budget < 0 || !fs::is_directory(folder, ec)) return;
  if (isPackage(folder, name)) {
    out.push_back(folder);
    return;  // packages do not nest
  }
  if (depth >= kMaxCrawlDepth) return;
  fs::directory_iterator it(folder, fs::directory_options::skip_permission_denied, ec);
  std::vector<fs::path> children;
  for (int n = 0; !ec && it != fs::directory_iterator() && n < kMaxEntriesPerFolder; it.increment(ec), ++n) {
    const fs::path& p = it->path();
    if (p.filename().string().starts_with('.')) continue;
    if (it->is_directory(ec)) children.push_back(p);
  }
  std::sort(children.begin(), children.end());  // directory order is arbitrary: be deterministic
  for (const fs::path& child : children) crawl(child, name, depth + 1, budget, out);
}

std::string lowerExtension(const fs::path& file) {
  std::string ext = file.extension().string();
  std::transform(ext.begin(), ext.end(), ext.begin(), [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return ext;
}

}  // namespace

fs::path installedDataDir() {
  std::error_code ec;
  const fs::path program = fs::read_symlink("/proc/self/exe", ec);
  // rbsim's own programs only: a Python interpreter in /usr/bin running the module from a build
  // tree must not take an installed rbsim's (other version's) assets
  if (ec || program.filename().string().rfind("rbsim", 0) != 0) return {};
  const fs::path data = program.parent_path().parent_path() / "share" / "rbsim";
  return fs::is_directory(data, ec) ? data : fs::path();
}

fs::path defaultAssetsDir() {
  if (const char* env = std::getenv("RBSIM_ASSETS_DIR"); env && *env) return env;
  if (const fs::path installed = installedDataDir(); !installed.empty()) return installed / "assets";
  return RBS_DEFAULT_ASSETS_DIR;
}

ResourceResolver::ResourceResolver(ResourceSearch search) : search_(std::move(search)) {
  if (search_.assets_dir.empty()) search_.assets_dir = defaultAssetsDir();
  if (search_.use_environment) {
    ros_package_path_ = splitPathList(std::getenv("ROS_PACKAGE_PATH"));
    ament_prefixes_ = splitPathList(std::getenv("AMENT_PREFIX_PATH"));
  }
}

const std::vector<fs::path>& ResourceResolver::packageRoots(const std::string& name) {
  if (auto it = package_cache_.find(name); it != package_cache_.end()) return it->second;
  std::vector<fs::path> roots;
  int budget = kMaxCrawlFolders;
  for (const fs::path& dir : search_.package_paths) crawl(dir, name, 0, budget, roots);
  for (const fs::path& dir : ros_package_path_) crawl(dir, name, 0, budget, roots);
  std::error_code ec;
  for (const fs::path& prefix : ament_prefixes_)
    if (fs::is_directory(prefix / "share" / name, ec)) roots.push_back(prefix / "share" / name);
  return package_cache_[name] = std::move(roots);
}

ResolvedResource ResourceResolver::resolve(const std::string& uri, const fs::path& naming_file) {
  ResolvedResource out;
  std::error_code ec;
  // Candidates are made absolute here: relative search folders (--package-path ., ROS_PACKAGE_PATH=.)
  // are relative to the working directory, as in ROS, and the file must not be read as relative to
  // anything else later (the renderer joins relative mesh paths to assets/).
  auto tryFile = [&](const fs::path& candidate) {
    if (out.found()) return;
    const fs::path absolute = fs::absolute(candidate, ec).lexically_normal();
    out.searched.push_back(absolute);
    if (fs::is_regular_file(absolute, ec)) out.file = absolute;
  };
  const fs::path naming_dir = fs::absolute(naming_file, ec).parent_path();

  constexpr std::string_view kPackage = "package://", kFile = "file://";
  if (uri.starts_with(kPackage)) {
    // package:///name/… (an empty host, seen in exported files) is package://name/….
    std::size_t start = kPackage.size();
    while (start < uri.size() && uri[start] == '/') ++start;
    const std::string spec = uri.substr(start);
    const std::size_t slash = spec.find('/');
    const std::string name = spec.substr(0, slash);
    const fs::path rest = slash == std::string::npos ? fs::path() : fs::path(spec.substr(slash + 1));
    if (name.empty() || rest.empty()) return out;  // nothing to search: the caller reports the URI
    for (const fs::path& root : packageRoots(name)) tryFile(root / rest);
    // Upward from the naming file: the package the robot description usually lives in.
    fs::path dir = naming_dir;
    for (int level = 0; level < kMaxUpwardLevels && !out.found(); ++level) {
      if (dir.filename() == name || packageXmlName(dir) == name) tryFile(dir / rest);
      if (fs::is_directory(dir / name, ec) && isPackage(dir / name, name)) tryFile(dir / name / rest);
      if (dir == dir.parent_path()) break;
      dir = dir.parent_path();
    }
    tryFile(search_.assets_dir / name / rest);
    return out;
  }
  if (uri.starts_with(kFile)) {
    tryFile(fs::path(uri.substr(kFile.size())));
    return out;
  }
  const fs::path path(uri);
  if (path.is_absolute()) {
    tryFile(path);
    return out;
  }
  tryFile(naming_dir / path);
  tryFile(search_.assets_dir / path);
  return out;
}

ResourceResolver::Mesh ResourceResolver::resolveMesh(const std::string& uri, const fs::path& naming_file) {
  const ResolvedResource r = resolve(uri, naming_file);
  if (r.searched.empty()) return {{}, "is not a resource path rbsim can resolve (expected package://PACKAGE/PATH, file:///PATH or a path)"};
  if (!r.found()) return {{}, "not found; searched " + listSearched(r.searched)};
  if (std::string problem = meshFileProblem(r.file); !problem.empty()) return {{}, "(" + r.file.string() + ") " + problem};
  return {r.file, {}};
}

std::string meshFileProblem(const fs::path& file) {
  std::error_code ec;
  const auto size = fs::file_size(file, ec);
  if (ec) return "cannot be read";
  if (size == 0) return "is empty";
  const std::string ext = lowerExtension(file);
  const std::string head = readHead(file, 4096);
  auto startsWithWord = [&](std::string_view word) {
    std::size_t i = 0;
    while (i < head.size() && std::isspace(static_cast<unsigned char>(head[i]))) ++i;
    return head.compare(i, word.size(), word) == 0;
  };
  const bool binary = head.find('\0') != std::string::npos;
  if (ext == ".stl") {
    // Binary: an 80-byte header, a 32-bit little-endian triangle count n, 50 bytes per triangle.
    if (size >= 84) {
      const std::string count = readHead(file, 84).substr(80);
      std::uint64_t n = 0;
      for (int i = 3; i >= 0; --i) n = (n << 8) | static_cast<unsigned char>(count[static_cast<std::size_t>(i)]);
      if (size == 84 + 50 * n) return {};
    }
    if (!binary && startsWithWord("solid")) return {};
    return "is not an STL file (neither ASCII starting with 'solid' nor binary with 84 + 50·n bytes)";
  }
  if (ext == ".dae") {
    if (!binary && head.find("<COLLADA") != std::string::npos) return {};
    return "is not a COLLADA file (no <COLLADA> element at its start)";
  }
  if (ext == ".ply") return startsWithWord("ply") ? std::string() : "is not a PLY file (it does not start with 'ply')";
  if (ext == ".obj") return binary ? "is not an OBJ file (OBJ is text; this file has binary content)" : std::string();
  return "has the extension '" + file.extension().string() +
         "'; meshes are read from STL, COLLADA (.dae), OBJ and PLY files";
}

std::string listSearched(const std::vector<fs::path>& searched, std::size_t limit) {
  std::string out;
  const std::size_t shown = std::min(limit, searched.size());
  for (std::size_t i = 0; i < shown; ++i) out += (i ? ", " : "") + searched[i].string();
  if (searched.size() > shown) out += " and " + std::to_string(searched.size() - shown) + " more";
  return out;
}

}  // namespace rbs
