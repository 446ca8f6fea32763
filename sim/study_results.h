// A study's results file read back (docs/STUDIES.md): its rows and the study file that wrote it, so
// that the window can show the results and load a run exactly as the study ran it (with
// expandStudy, studyRunLoadOptions and studyRunOverrides, as evaluateStudyRun does).
#pragma once

#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "core/scene/study.h"
#include "sim/study_run.h"

namespace rbs {

/// The columns and rows of a results CSV (studyCsvHeader's layout), as text.
struct StudyResultsTable {
  std::filesystem::path file;
  std::vector<std::string> columns;
  std::vector<std::vector<std::string>> rows;  ///< one field per column each
  /// The column named `name`, −1 when there is none.
  int column(const std::string& name) const;
  /// The scene and study hashes the rows carry (all rows carry the same; checked on reading).
  std::string scene_hash, study_hash;
};

/// Reads a results file. Throws std::runtime_error naming the file and line when it is not one: no
/// run/status/scene_hash/study_hash columns, a row with another number of fields or no run number,
/// rows of different study or scene versions (a resumed file never has them), or no rows at all.
/// A last line without its newline (a study still running, or interrupted while writing) is not
/// a finished run and is left out.
StudyResultsTable readStudyResults(const std::filesystem::path& file);

/// The study file whose content has `study_hash`, looked for where studies are kept relative to
/// the results: the results' folder and up to three folders above it, each with its `studies`
/// subfolder (*.yaml, *.yml). One whose scene also has `scene_hash` comes first (a copy of the
/// study elsewhere may name another scene through its relative path). Empty when none matches.
std::optional<std::filesystem::path> findStudyFile(const std::filesystem::path& results, const std::string& scene_hash,
                                                   const std::string& study_hash);

}  // namespace rbs
