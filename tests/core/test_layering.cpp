// The source folders depend on each other in one direction (docs: ARCHITECTURE §2, "Nothing
// points upward": core ← sim ← ui ← app, core ← render ← ui) and the folders inside core form no
// cycle. Read from the #include lines of the sources themselves.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <functional>
#include <map>
#include <regex>
#include <set>
#include <string>
#include <vector>

namespace rbs {
namespace {

namespace fs = std::filesystem;

/// "core/model" for files under core/, else the top-level folder ("sim", "ui", …).
std::string folderOf(const std::string& relative_path) {
  const auto first = relative_path.find('/');
  if (first == std::string::npos) return {};
  const std::string top = relative_path.substr(0, first);
  if (top != "core") return top;
  const auto second = relative_path.find('/', first + 1);
  return second == std::string::npos ? std::string() : relative_path.substr(0, second);
}

std::string topOf(const std::string& folder) { return folder.substr(0, folder.find('/')); }

struct Edge {
  std::string from, to, file;  ///< folders, and one file that includes across
};

/// One edge per (from, to) folder pair, from the project's own includes ("core/…", "sim/…").
std::vector<Edge> includeEdges() {
  const fs::path root(RBS_SOURCE_DIR);
  const std::regex include_line(R"re(^\s*#\s*include\s+"([a-z_]+/[^"]+)")re");
  std::map<std::pair<std::string, std::string>, std::string> edges;
  for (const char* top : {"core", "sim", "render", "ui", "app"}) {
    if (!fs::exists(root / top)) continue;
    for (const auto& entry : fs::recursive_directory_iterator(root / top)) {
      const std::string ext = entry.path().extension().string();
      if (!entry.is_regular_file() || (ext != ".h" && ext != ".cpp")) continue;
      const std::string file = fs::relative(entry.path(), root).generic_string();
      const std::string from = folderOf(file);
      std::ifstream in(entry.path());
      std::string line;
      std::smatch m;
      while (std::getline(in, line))
        if (std::regex_search(line, m, include_line)) {
          const std::string to = folderOf(m[1].str());
          if (!to.empty() && to != from) edges.emplace(std::make_pair(from, to), file);
        }
    }
  }
  std::vector<Edge> out;
  for (const auto& [pair, file] : edges) out.push_back({pair.first, pair.second, file});
  return out;
}

TEST(Layering, TheSourcesAreReadable) {
  // A guard for the tests below: they pass vacuously if nothing is found.
  const auto edges = includeEdges();
  EXPECT_GT(edges.size(), 10u);
  bool sim_uses_core = false;
  for (const Edge& e : edges) sim_uses_core = sim_uses_core || (e.from == "sim" && topOf(e.to) == "core");
  EXPECT_TRUE(sim_uses_core);
}

TEST(Layering, NothingPointsUpward) {
  const std::map<std::string, std::set<std::string>> allowed = {
      {"core", {"core"}},
      {"sim", {"core"}},
      {"render", {"core"}},
      {"ui", {"core", "sim", "render"}},
      {"app", {"core", "sim", "render", "ui"}},
  };
  for (const Edge& e : includeEdges()) {
    const auto& ok = allowed.at(topOf(e.from));
    EXPECT_TRUE(ok.count(topOf(e.to))) << e.file << " (" << e.from << ") includes " << e.to;
  }
}

TEST(Layering, NoCycleBetweenFolders) {
  std::map<std::string, std::vector<const Edge*>> out;
  const auto edges = includeEdges();
  for (const Edge& e : edges) out[e.from].push_back(&e);
  // Depth-first search; a folder met again while still on the path closes a cycle.
  std::map<std::string, int> state;  // 0 new, 1 on the path, 2 done
  std::vector<const Edge*> path;
  std::function<void(const std::string&)> visit = [&](const std::string& folder) {
    state[folder] = 1;
    for (const Edge* e : out[folder]) {
      path.push_back(e);
      if (state[e->to] == 1) {
        std::string cycle;
        bool in_cycle = false;
        for (const Edge* p : path) {
          in_cycle = in_cycle || p->from == e->to;
          if (in_cycle) cycle += "\n  " + p->from + " -> " + p->to + " (" + p->file + ")";
        }
        ADD_FAILURE() << "include cycle:" << cycle;
      } else if (state[e->to] == 0) {
        visit(e->to);
      }
      path.pop_back();
    }
    state[folder] = 2;
  };
  for (const Edge& e : edges)
    if (state[e.from] == 0) visit(e.from);
}

}  // namespace
}  // namespace rbs
