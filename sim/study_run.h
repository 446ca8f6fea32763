// One run of a parameter study, defined once (docs/STUDIES.md): the study's runs in a fixed
// order, the evaluation of one run into its metrics, and its row in the results CSV.
// `rbsim-cli study` (a local process pool) and `python3 -m rbsim.study` (Dask tasks) both call
// evaluateStudyRun, so a run and its metrics mean the same everywhere, bit for bit.
#pragma once

#include <cstdint>
#include <filesystem>
#include <optional>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "core/scene/study.h"
#include "core/scene/scene.h"
#include "sim/run_overrides.h"

namespace rbs {

/// One run: its point's settings and its repetition.
struct StudyRunSpec {
  long index = 0;       ///< 0 … runs−1: point · repetitions + repetition
  long point = 0;
  int repetition = 0;
  long seed = -1;       ///< the value given to Study::seed_path (−1: none)
  std::vector<StudySetting> settings;  ///< grid, list and random values the point sets, in column order
  /// One entry per studyParameterColumns() column: the point's value, or none where the point
  /// does not set that path (list points may set different paths; the scene's value applies).
  std::vector<std::optional<double>> columns;
};

/// The study's parameter columns (grid axes, list keys, random parameters; each path once).
std::vector<std::string> studyParameterColumns(const Study& study);

/// Every run in order (points: grid product, last axis fastest, × list × random samples; each
/// point `repetitions` times). The random samples come from a SplitMix64 stream seeded with
/// Study::random_seed and transformed here (not by <random>'s distributions, whose output differs
/// between standard libraries), so the same file gives the same values everywhere.
std::vector<StudyRunSpec> expandStudy(const Study& study);

enum class RunStatus { Ok, Diverged, Error };

struct StudyRunResult {
  RunStatus status = RunStatus::Ok;
  std::string message;        ///< why it diverged or could not run ("" when ok)
  double t_reached = 0.0;     ///< simulated time at the end [s]
  double wall_time = 0.0;     ///< [s], the run alone (load, simulate, metrics)
  std::vector<double> metrics;  ///< Study::metrics order; NaN where undefined (empty window, error)
};

/// Loads the scene with the study's and the run's settings, runs it and computes the metrics over
/// the samples as they come (nothing is stored). Never throws for a problem of the run itself
/// (a setting out of range, a missing channel, divergence): that is the result's status.
StudyRunResult evaluateStudyRun(const Study& study, const StudyRunSpec& run);

/// What one run of a study loads and runs: the scene's options (the study's fixed settings, the
/// run's values with 17 digits, its seed) and the run settings (t_end, dt_out, integrator,
/// controller; keep_samples is the caller's). evaluateStudyRun runs exactly these; the window
/// loads them to show one run of a study.
LoadOptions studyRunLoadOptions(const Study& study, const StudyRunSpec& run);
RunOverrides studyRunOverrides(const Study& study);

/// Checks what every run shares before a study starts: the scene loads with the study's fixed
/// settings, the run settings are valid and every metric's channel exists. Throws SceneError at
/// the scene's or the study file's place (std::invalid_argument for a run setting).
void checkStudy(const Study& study);

/// The last two columns of every row, "SCENE_HASH,STUDY_HASH" (16 hex digits each, FNV-1a 64): of
/// the scene file's bytes with the study's fixed settings, and of the study file's bytes. Results
/// of a changed scene or study are not mixed with old ones on resume.
std::string studyHashes(const Study& study);
/// The second of them: the study file's hash.
std::string studyFileHash(const std::filesystem::path& study_file);

/// The results CSV: header and rows. Columns: run, point, repetition, seed, the parameters,
/// status, message, t_reached, wall_time, the metrics, rbsim_version, scene_hash, study_hash. Numbers with 17
/// significant digits.
std::string studyCsvHeader(const Study& study);
std::string studyCsvRow(const StudyRunSpec& run, const StudyRunResult& result, const std::string& hashes);
/// The fields of one line of it (a field with a comma or quote is quoted, quotes doubled; rows
/// never span lines).
std::vector<std::string> studyCsvFields(const std::string& line);

/// The runs already in a results file (for resuming): their indices. An absent file gives none;
/// a file with another header or other hashes throws std::runtime_error saying so. A truncated
/// last line (a run interrupted while it was written) is removed, once the header matched. Rows
/// whose status is in `retry` ("error", "diverged": --retry-errors, --retry-diverged) are removed
/// from the file (rewritten atomically) and not counted, so that those runs are made again.
std::set<long> completedStudyRuns(const Study& study, const std::filesystem::path& results,
                                  const std::string& hashes, const std::set<std::string>& retry = {});

/// How many rows of a results file have each status (ok, diverged, error): what a study's summary
/// reports, whichever run made them. An absent file counts nothing.
std::map<std::string, long> studyStatusCounts(const std::filesystem::path& results);

/// Rewrites a complete results file with its rows in run order (atomically: temporary + rename).
void sortStudyResults(const std::filesystem::path& results);

/// rbsim's version, as the results record it.
std::string rbsimVersion();

}  // namespace rbs
