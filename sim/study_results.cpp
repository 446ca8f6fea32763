#include "sim/study_results.h"

#include <algorithm>
#include <fstream>
#include <stdexcept>
#include <system_error>

namespace rbs {
namespace {

/// The fields of one CSV line (studyCsvRow quotes a field with a comma or quote, doubling quotes;
/// rows never span lines).
std::vector<std::string> csvFields(const std::string& line) {
  std::vector<std::string> out(1);
  bool quoted = false;
  for (std::size_t i = 0; i < line.size(); ++i) {
    const char c = line[i];
    if (quoted) {
      if (c == '"' && i + 1 < line.size() && line[i + 1] == '"') {
        out.back() += '"';
        ++i;
      } else if (c == '"') {
        quoted = false;
      } else {
        out.back() += c;
      }
    } else if (c == '"') {
      quoted = true;
    } else if (c == ',') {
      out.emplace_back();
    } else if (c != '\r') {
      out.back() += c;
    }
  }
  return out;
}

}  // namespace

int StudyResultsTable::column(const std::string& name) const {
  const auto it = std::find(columns.begin(), columns.end(), name);
  return it == columns.end() ? -1 : static_cast<int>(it - columns.begin());
}

StudyResultsTable readStudyResults(const std::filesystem::path& file) {
  std::ifstream in(file, std::ios::binary);
  if (!in) throw std::runtime_error("cannot read '" + file.string() + "'");
  const auto fail = [&](long line, const std::string& what) {
    return std::runtime_error(file.string() + (line > 0 ? ":" + std::to_string(line) : std::string()) + ": " + what);
  };
  StudyResultsTable table;
  table.file = file;
  std::string line;
  if (!std::getline(in, line)) throw fail(0, "empty; expected a study's results (rbsim-cli study … --out FILE)");
  table.columns = csvFields(line);
  for (const char* required : {"run", "status", "scene_hash", "study_hash"})
    if (table.column(required) < 0)
      throw fail(1, std::string("not a study's results: no column '") + required + "' (rbsim-cli study … --out FILE writes them)");
  const int scene_column = table.column("scene_hash"), study_column = table.column("study_hash");
  long number = 1;
  while (std::getline(in, line)) {
    ++number;
    if (line.empty() || line == "\r") continue;
    std::vector<std::string> fields = csvFields(line);
    if (fields.size() != table.columns.size()) {
      // an interrupted study may leave its last row cut short: that run is not finished
      if (in.peek() == std::char_traits<char>::eof() && fields.size() < table.columns.size()) break;
      throw fail(number, std::to_string(fields.size()) + " fields where the header has " + std::to_string(table.columns.size()));
    }
    if (table.rows.empty()) {
      table.scene_hash = fields[static_cast<std::size_t>(scene_column)];
      table.study_hash = fields[static_cast<std::size_t>(study_column)];
    } else if (fields[static_cast<std::size_t>(scene_column)] != table.scene_hash ||
               fields[static_cast<std::size_t>(study_column)] != table.study_hash) {
      throw fail(number, "a row of another version of the study or scene (hashes " + fields[static_cast<std::size_t>(scene_column)] +
                             "," + fields[static_cast<std::size_t>(study_column)] + ", the first row has " + table.scene_hash +
                             "," + table.study_hash + ")");
    }
    table.rows.push_back(std::move(fields));
  }
  if (table.rows.empty()) throw fail(0, "no finished runs yet");
  return table;
}

std::optional<std::filesystem::path> findStudyFile(const std::filesystem::path& results, const std::string& study_hash) {
  namespace fs = std::filesystem;
  std::error_code ec;
  fs::path folder = fs::absolute(results, ec).parent_path();
  constexpr std::uintmax_t kLargestStudy = 1 << 20;  // a study file is a page of YAML
  for (int up = 0; up <= 3 && !folder.empty(); ++up) {
    for (const fs::path& dir : {folder, folder / "studies"}) {
      std::vector<fs::path> candidates;
      for (fs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) {
        const fs::path& p = it->path();
        if ((p.extension() == ".yaml" || p.extension() == ".yml") && it->is_regular_file(ec) &&
            it->file_size(ec) <= kLargestStudy)
          candidates.push_back(p);
      }
      ec.clear();
      std::sort(candidates.begin(), candidates.end());  // the same answer on every file system
      for (const fs::path& p : candidates)
        if (studyFileHash(p) == study_hash) return p;
    }
    if (folder == folder.root_path()) break;
    folder = folder.parent_path();
  }
  return std::nullopt;
}

StudyRunSpec studyRun(const Study& study, long run) {
  std::vector<StudyRunSpec> runs = expandStudy(study);
  if (run < 0 || run >= static_cast<long>(runs.size()))
    throw std::out_of_range("the study '" + study.name + "' has runs 0 … " + std::to_string(runs.size() - 1) + ", not " +
                            std::to_string(run));
  return std::move(runs[static_cast<std::size_t>(run)]);
}

}  // namespace rbs
