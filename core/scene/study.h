// Parameter studies (docs/STUDIES.md): a study file names a scene, the settings to vary (a grid,
// a list of points, random samples), repetitions with different noise seeds and the metrics kept
// per run. This header is the file's content, checked; sim/study_run.h expands and runs it.
#pragma once

#include <cstdint>
#include <filesystem>
#include <limits>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace rbs {

/// One setting of a point: a scene path as --set spells it and its value.
using StudySetting = std::pair<std::string, double>;

/// Settle: the time from which on |value| ≤ threshold to the window's end (its first sample if
/// always; NaN if the last sample exceeds it or is NaN) — a settling or recovery time.
enum class MetricStat { Rms, Max, Min, MaxAbs, Mean, Final, Settle };

struct StudyMetric {
  std::string name;     ///< the results column
  std::string channel;  ///< a channel of the run
  MetricStat stat = MetricStat::Rms;
  double from = -std::numeric_limits<double>::infinity();  ///< window [s], inclusive
  double to = std::numeric_limits<double>::infinity();
  double threshold = 0.0;  ///< Settle only: the band |value| ≤ threshold (≥ 0)
  int line = 0, column = 0;  ///< where the metric is in the study file (for errors)
};

enum class Distribution { Uniform, Normal, LogUniform };

struct StudyRandomParameter {
  std::string path;
  Distribution distribution = Distribution::Uniform;
  double a = 0.0, b = 1.0;  ///< uniform/log-uniform: [a, b]; normal: mean a, standard deviation b
};

struct Study {
  std::filesystem::path file;   ///< the study file
  std::string name;
  std::filesystem::path scene;  ///< resolved against the study file's folder
  std::vector<std::string> fixed;  ///< "PATH=VALUE" for every run (the study's `set`)
  // Run settings (unset: the scene's).
  std::optional<double> t_end, dt_out;
  std::optional<std::string> integrator, controller;
  /// grid: the product of the axes, in file order, the last axis fastest.
  std::vector<std::pair<std::string, std::vector<double>>> grid;
  /// list: explicit points.
  std::vector<std::vector<StudySetting>> list;
  /// random: `random_count` samples of the parameters from a generator seeded with random_seed.
  std::vector<StudyRandomParameter> random;
  int random_count = 0;
  std::uint64_t random_seed = 1;
  /// repetitions per point; repetition r sets `seed_path` to first_seed + r (if seed_path is set).
  int repetitions = 1;
  std::string seed_path;
  long first_seed = 1;
  std::vector<StudyMetric> metrics;
};

/// Loads and checks a study file. Throws SceneError at the offending element (file:line:column).
Study loadStudy(const std::filesystem::path& file);

}  // namespace rbs
