#include "sim/study_results.h"

#include <algorithm>
#include <fstream>
#include <iterator>
#include <stdexcept>
#include <system_error>

namespace rbs {

int StudyResultsTable::column(const std::string& name) const {
  const auto it = std::find(columns.begin(), columns.end(), name);
  return it == columns.end() ? -1 : static_cast<int>(it - columns.begin());
}

StudyResultsTable readStudyResults(const std::filesystem::path& file) {
  std::ifstream in(file, std::ios::binary);
  if (!in) throw std::runtime_error("cannot read '" + file.string() + "'");
  const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  const auto fail = [&](long line, const std::string& what) {
    return std::runtime_error(file.string() + (line > 0 ? ":" + std::to_string(line) : std::string()) + ": " + what);
  };
  // Complete lines only: a study that is still running, or was interrupted while it wrote, may
  // leave its last row without its '\n' (completedStudyRuns cuts it off the same way on resume).
  std::vector<std::string> lines;
  for (std::size_t start = 0, end; (end = text.find('\n', start)) != std::string::npos; start = end + 1)
    lines.push_back(text.substr(start, end - start));
  StudyResultsTable table;
  table.file = file;
  if (lines.empty()) throw fail(0, "no complete header line; expected a study's results (rbsim-cli study … --out FILE)");
  table.columns = studyCsvFields(lines.front());
  for (const char* required : {"run", "status", "scene_hash", "study_hash"})
    if (table.column(required) < 0)
      throw fail(1, std::string("not a study's results: no column '") + required + "' (rbsim-cli study … --out FILE writes them)");
  const auto at = [](const std::vector<std::string>& fields, int column) { return fields[static_cast<std::size_t>(column)]; };
  const int run_column = table.column("run"), scene_column = table.column("scene_hash"), study_column = table.column("study_hash");
  for (std::size_t k = 1; k < lines.size(); ++k) {
    const long number = static_cast<long>(k) + 1;
    if (lines[k].empty() || lines[k] == "\r") continue;
    std::vector<std::string> fields = studyCsvFields(lines[k]);
    if (fields.size() != table.columns.size())
      throw fail(number, std::to_string(fields.size()) + " fields where the header has " + std::to_string(table.columns.size()));
    const std::string& run = at(fields, run_column);
    if (run.empty() || run.size() > 12 || run.find_first_not_of("0123456789") != std::string::npos)
      throw fail(number, "the run is '" + run + "', expected a run number");
    if (table.rows.empty()) {
      table.scene_hash = at(fields, scene_column);
      table.study_hash = at(fields, study_column);
    } else if (at(fields, scene_column) != table.scene_hash || at(fields, study_column) != table.study_hash) {
      throw fail(number, "a row of another version of the study or scene (hashes " + at(fields, scene_column) + "," +
                             at(fields, study_column) + ", the first row has " + table.scene_hash + "," + table.study_hash + ")");
    }
    table.rows.push_back(std::move(fields));
  }
  if (table.rows.empty()) throw fail(0, "no finished runs yet");
  return table;
}

std::optional<std::filesystem::path> findStudyFile(const std::filesystem::path& results, const std::string& scene_hash,
                                                   const std::string& study_hash) {
  namespace fs = std::filesystem;
  std::error_code ec;
  fs::path folder = fs::absolute(results, ec).parent_path();
  constexpr std::uintmax_t kLargestStudy = 1 << 20;  // a study file is a page of YAML
  std::optional<fs::path> same_file;  // the study file's bytes match, its scene does not (edited or moved)
  for (int up = 0; up <= 3 && !folder.empty(); ++up) {
    for (const fs::path& dir : {folder, folder / "studies"}) {
      std::vector<fs::path> candidates;
      std::error_code dir_error;
      for (fs::directory_iterator it(dir, dir_error), end; !dir_error && it != end; it.increment(dir_error)) {
        std::error_code entry_error;  // one broken entry (a dangling link) does not end the scan
        const fs::path& p = it->path();
        if ((p.extension() == ".yaml" || p.extension() == ".yml") && it->is_regular_file(entry_error) &&
            it->file_size(entry_error) <= kLargestStudy && !entry_error)
          candidates.push_back(p);
      }
      std::sort(candidates.begin(), candidates.end());  // the same answer on every file system
      for (const fs::path& p : candidates) {
        if (studyFileHash(p) != study_hash) continue;
        try {  // a copy whose relative scene path leads to the results' scene beats one whose does not
          if (studyHashes(loadStudy(p)) == scene_hash + "," + study_hash) return p;
        } catch (const std::exception&) {  // the caller loads it again and says what is wrong
        }
        if (!same_file) same_file = p;
      }
    }
    if (folder == folder.root_path()) break;
    folder = folder.parent_path();
  }
  return same_file;
}

}  // namespace rbs
