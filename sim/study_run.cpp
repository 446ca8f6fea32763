#include "sim/study_run.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <iterator>
#include <limits>
#include <map>
#include <numbers>
#include <sstream>
#include <stdexcept>

#include "core/io/scene_error.h"
#include "core/scene/scene.h"
#include "sim/scene_run.h"

#ifndef RBS_VERSION
#define RBS_VERSION "unknown"
#endif

namespace rbs {
namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

/// SplitMix64 (Steele, Lea, Flood 2014): a small generator whose output is fixed by its seed.
class SplitMix64 {
 public:
  explicit SplitMix64(std::uint64_t seed) : state_(seed) {}
  std::uint64_t next() {
    std::uint64_t z = (state_ += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
  }
  /// Uniform in [0, 1) with 53 random bits.
  double uniform() { return static_cast<double>(next() >> 11) * 0x1.0p-53; }

 private:
  std::uint64_t state_;
};

double draw(SplitMix64& rng, const StudyRandomParameter& p) {
  switch (p.distribution) {
    case Distribution::Uniform:
      return p.a + (p.b - p.a) * rng.uniform();
    case Distribution::LogUniform:
      return std::exp(std::log(p.a) + (std::log(p.b) - std::log(p.a)) * rng.uniform());
    case Distribution::Normal: {
      // Box–Muller with u1 in (0, 1]: one normal value per two uniforms.
      const double u1 = 1.0 - rng.uniform(), u2 = rng.uniform();
      return p.a + p.b * std::sqrt(-2.0 * std::log(u1)) * std::cos(2.0 * std::numbers::pi * u2);
    }
  }
  return kNaN;
}

std::string number(double v) {
  char buffer[32];
  std::snprintf(buffer, sizeof buffer, "%.17g", v);
  return buffer;
}

std::string csvField(std::string text) {
  std::replace(text.begin(), text.end(), '\n', ' ');
  std::replace(text.begin(), text.end(), '\r', ' ');
  if (text.find_first_of(",\"") == std::string::npos) return text;
  std::string out = "\"";
  for (char c : text) out += c == '"' ? std::string("\"\"") : std::string(1, c);
  return out + "\"";
}

const char* statusName(RunStatus s) {
  return s == RunStatus::Ok ? "ok" : s == RunStatus::Diverged ? "diverged" : "error";
}

/// Running statistics of one metric over its window.
struct Accumulator {
  double sum = 0.0, sum_sq = 0.0, max = -std::numeric_limits<double>::infinity(),
         min = std::numeric_limits<double>::infinity(), last = kNaN;
  double threshold = 0.0;  ///< Settle's band
  double settled_since = kNaN;  ///< Settle: the first sample of the last run within the band
  long n = 0;
  bool nan = false;
  void add(double t, double v) {
    // Settle: within the band (a NaN is not) since the first sample after the last one outside.
    if (std::abs(v) <= threshold) {
      if (std::isnan(settled_since)) settled_since = t;
    } else {
      settled_since = kNaN;
    }
    if (std::isnan(v)) nan = true;
    sum += v;
    sum_sq += v * v;
    max = std::max(max, v);
    min = std::min(min, v);
    last = v;
    ++n;
  }
  double value(MetricStat stat) const {
    if (n == 0) return kNaN;
    if (nan && stat != MetricStat::Final && stat != MetricStat::Settle) return kNaN;
    switch (stat) {
      case MetricStat::Rms: return std::sqrt(sum_sq / static_cast<double>(n));
      case MetricStat::Mean: return sum / static_cast<double>(n);
      case MetricStat::Max: return max;
      case MetricStat::Min: return min;
      case MetricStat::MaxAbs: return std::max(std::abs(max), std::abs(min));
      case MetricStat::Final: return last;
      case MetricStat::Settle: return settled_since;
    }
    return kNaN;
  }
};

std::uint64_t fnv1a(std::uint64_t h, const std::string& bytes) {
  for (unsigned char c : bytes) {
    h ^= c;
    h *= 0x100000001B3ull;
  }
  return h;
}

constexpr std::uint64_t kFnvOffset = 0xCBF29CE484222325ull;

std::string fileBytes(const std::filesystem::path& file) {
  std::ifstream in(file, std::ios::binary);
  return std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
}

std::string hex16(std::uint64_t h) {
  char buffer[20];
  std::snprintf(buffer, sizeof buffer, "%016llx", static_cast<unsigned long long>(h));
  return buffer;
}

}  // namespace

std::string rbsimVersion() { return RBS_VERSION; }

LoadOptions studyRunLoadOptions(const Study& study, const StudyRunSpec& run) {
  LoadOptions options;
  options.overrides = study.fixed;
  for (const auto& [path, value] : run.settings) options.overrides.push_back(path + "=" + number(value));
  if (!study.seed_path.empty() && run.seed >= 0) options.overrides.push_back(study.seed_path + "=" + std::to_string(run.seed));
  return options;
}

RunOverrides studyRunOverrides(const Study& study) {
  RunOverrides o;
  o.t_end = study.t_end;
  o.dt_out = study.dt_out;
  o.stepper = study.integrator;
  o.controller = study.controller;
  return o;
}

std::vector<std::string> studyParameterColumns(const Study& study) {
  std::vector<std::string> out;
  const auto add = [&](const std::string& path) {
    if (std::find(out.begin(), out.end(), path) == out.end()) out.push_back(path);
  };
  for (const auto& axis : study.grid) add(axis.first);
  for (const auto& point : study.list)
    for (const auto& s : point) add(s.first);
  for (const auto& p : study.random) add(p.path);
  return out;
}

std::vector<StudyRunSpec> expandStudy(const Study& study) {
  // Points as settings in file order; later kinds override a path an earlier one set.
  std::vector<std::vector<StudySetting>> points{{}};
  for (const auto& [path, values] : study.grid) {
    std::vector<std::vector<StudySetting>> next;
    for (const auto& p : points)
      for (double v : values) {
        next.push_back(p);
        next.back().emplace_back(path, v);
      }
    points = std::move(next);
  }
  if (!study.list.empty()) {
    std::vector<std::vector<StudySetting>> next;
    for (const auto& p : points)
      for (const auto& item : study.list) {
        next.push_back(p);
        next.back().insert(next.back().end(), item.begin(), item.end());
      }
    points = std::move(next);
  }
  if (study.random_count > 0) {
    SplitMix64 rng(study.random_seed);
    std::vector<std::vector<StudySetting>> samples;
    for (int k = 0; k < study.random_count; ++k) {
      std::vector<StudySetting> s;
      for (const StudyRandomParameter& p : study.random) s.emplace_back(p.path, draw(rng, p));
      samples.push_back(std::move(s));
    }
    std::vector<std::vector<StudySetting>> next;
    for (const auto& p : points)
      for (const auto& s : samples) {
        next.push_back(p);
        next.back().insert(next.back().end(), s.begin(), s.end());
      }
    points = std::move(next);
  }
  const std::vector<std::string> columns = studyParameterColumns(study);
  std::vector<StudyRunSpec> runs;
  runs.reserve(points.size() * static_cast<std::size_t>(study.repetitions));
  for (std::size_t p = 0; p < points.size(); ++p) {
    // One value per column (the last setting of a path wins), in column order.
    std::vector<StudySetting> settings;
    std::vector<std::optional<double>> values(columns.size());
    for (std::size_t c = 0; c < columns.size(); ++c) {
      for (auto it = points[p].rbegin(); it != points[p].rend(); ++it)
        if (it->first == columns[c]) {
          settings.push_back(*it);
          values[c] = it->second;
          break;
        }
    }
    for (int r = 0; r < study.repetitions; ++r) {
      StudyRunSpec run;
      run.index = static_cast<long>(runs.size());
      run.point = static_cast<long>(p);
      run.repetition = r;
      run.seed = study.seed_path.empty() ? -1 : study.first_seed + r;
      run.settings = settings;
      run.columns = values;
      runs.push_back(std::move(run));
    }
  }
  return runs;
}

namespace {
/// A study's run settings for a run that keeps no samples: its metrics are computed as they come.
RunOverrides metricRunOverrides(const Study& study) {
  RunOverrides o = studyRunOverrides(study);
  o.keep_samples = 2;
  return o;
}
}  // namespace

StudyRunResult evaluateStudyRun(const Study& study, const StudyRunSpec& run) {
  const auto start = std::chrono::steady_clock::now();
  StudyRunResult result;
  result.metrics.assign(study.metrics.size(), kNaN);
  try {
    const Scene scene = loadScene(study.scene, studyRunLoadOptions(study, run));
    SceneRun scene_run(scene, metricRunOverrides(study));
    Simulator& sim = scene_run.simulator();
    std::vector<int> channel(study.metrics.size());
    for (std::size_t m = 0; m < study.metrics.size(); ++m) {
      channel[m] = sim.channels().find(study.metrics[m].channel);
      if (channel[m] < 0) throw std::invalid_argument("metric '" + study.metrics[m].name + "': no channel '" + study.metrics[m].channel + "' in this run");
    }
    std::vector<Accumulator> acc(study.metrics.size());
    for (std::size_t m = 0; m < acc.size(); ++m) acc[m].threshold = study.metrics[m].threshold;
    const double tolerance = 1e-9 * scene_run.settings().dt_out;
    sim.on_sample = [&](double t, std::span<const double> values) {
      for (std::size_t m = 0; m < acc.size(); ++m) {
        const StudyMetric& metric = study.metrics[m];
        if (t >= metric.from - tolerance && t <= metric.to + tolerance) acc[m].add(t, values[static_cast<std::size_t>(channel[m])]);
      }
    };
    const bool ok = scene_run.runToEnd();
    result.t_reached = sim.time();
    for (std::size_t m = 0; m < acc.size(); ++m) result.metrics[m] = acc[m].value(study.metrics[m].stat);
    if (!ok) {
      result.status = RunStatus::Diverged;
      result.message = sim.message();
    }
  } catch (const std::exception& e) {  // SceneError, a setting out of range, a missing channel
    result.status = RunStatus::Error;
    result.message = e.what();
  }
  result.wall_time = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return result;
}

void checkStudy(const Study& study) {
  // The fixed settings only: a point's value that a run cannot use is that run's error row.
  const Scene scene = loadScene(study.scene, studyRunLoadOptions(study, StudyRunSpec{}));
  SceneRun run(scene, metricRunOverrides(study));
  for (const StudyMetric& m : study.metrics)
    if (run.simulator().channels().find(m.channel) < 0) {
      std::vector<std::string> names;
      const ChannelSet& c = run.simulator().channels();
      for (int i = 0; i < c.size(); ++i)
        if (c[i].name.rfind(m.channel.substr(0, m.channel.find('.')), 0) == 0) names.push_back(c[i].name);
      std::string hint;
      for (std::size_t i = 0; i < names.size() && i < 8; ++i) hint += (i ? ", " : "; channels like it: ") + names[i];
      throw SceneError(study.file.string(), m.line, m.column,
                       "metric '" + m.name + "': the scene has no channel '" + m.channel + "'" + hint);
    }
}

std::string studyHashes(const Study& study) {
  std::uint64_t scene = fnv1a(kFnvOffset, fileBytes(study.scene));
  for (const std::string& s : study.fixed) scene = fnv1a(scene, "\n" + s);
  return hex16(scene) + "," + studyFileHash(study.file);
}

std::string studyFileHash(const std::filesystem::path& study_file) { return hex16(fnv1a(kFnvOffset, fileBytes(study_file))); }

std::string studyCsvHeader(const Study& study) {
  std::string h = "run,point,repetition,seed";
  for (const std::string& c : studyParameterColumns(study)) h += "," + csvField(c);
  h += ",status,message,t_reached,wall_time";
  for (const StudyMetric& m : study.metrics) h += "," + csvField(m.name);
  return h + ",rbsim_version,scene_hash,study_hash";
}

std::string studyCsvRow(const StudyRunSpec& run, const StudyRunResult& result, const std::string& hashes) {
  std::string r = std::to_string(run.index) + "," + std::to_string(run.point) + "," + std::to_string(run.repetition) + "," +
                  (run.seed >= 0 ? std::to_string(run.seed) : std::string());
  for (const std::optional<double>& v : run.columns) r += "," + (v ? number(*v) : std::string());
  r += std::string(",") + statusName(result.status) + "," + csvField(result.message) + "," + number(result.t_reached) +
       "," + number(result.wall_time);
  for (double m : result.metrics) r += "," + number(m);
  return r + "," + rbsimVersion() + "," + hashes;
}

/// The fields of one CSV line (studyCsvRow quotes a field with a comma or quote, doubling quotes;
/// rows never span lines).
std::vector<std::string> studyCsvFields(const std::string& line) {
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


namespace {
/// Where the status column is among a results file's columns (their number when it has none).
std::size_t statusColumn(const std::vector<std::string>& columns) {
  return static_cast<std::size_t>(std::find(columns.begin(), columns.end(), "status") - columns.begin());
}
}  // namespace

std::set<long> completedStudyRuns(const Study& study, const std::filesystem::path& results,
                                  const std::string& hashes, const std::set<std::string>& retry) {
  std::set<long> done;
  std::error_code ec;
  if (!std::filesystem::exists(results, ec)) return done;
  std::ifstream in(results, std::ios::binary);
  const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  in.close();
  if (text.empty()) return done;
  const std::string header = studyCsvHeader(study);
  const std::size_t header_end = text.find('\n');
  if (header_end == std::string::npos) {
    // Only a header cut short by an interruption may be replaced; anything else is not ours.
    if (header.compare(0, text.size(), text) != 0)
      throw std::runtime_error("'" + results.string() + "' is not a results file of this study; choose another --out");
    std::filesystem::resize_file(results, 0);
    return done;
  }
  if (text.compare(0, header_end, header) != 0 || header_end != header.size())
    throw std::runtime_error("'" + results.string() + "' holds results of another study (its columns differ); "
                             "choose another --out or remove it");
  const std::size_t complete = text.rfind('\n') + 1;
  if (complete < text.size()) std::filesystem::resize_file(results, complete);  // a row cut short
  std::istringstream lines(text.substr(header_end + 1, complete - header_end - 1));
  const std::string scene_hash = hashes.substr(0, hashes.find(','));
  const std::vector<std::string> columns = studyCsvFields(header);
  const std::size_t status = statusColumn(columns);
  std::string line, kept = text.substr(0, header_end + 1);
  long row = 1, dropped = 0;
  while (std::getline(lines, line)) {
    ++row;
    const std::size_t second = line.rfind(','), first = second == std::string::npos ? second : line.rfind(',', second - 1);
    const std::string found = first == std::string::npos ? std::string("missing") : line.substr(first + 1);
    if (found != hashes) {
      const bool scene_changed = found.substr(0, found.find(',')) != scene_hash;
      throw std::runtime_error("'" + results.string() + "' line " + std::to_string(row) + ": results of another version of the " +
                               (scene_changed ? "scene" : "study file") + " (hashes " + found + ", now " + hashes +
                               "); choose another --out or remove it");
    }
    const std::vector<std::string> fields = studyCsvFields(line);
    if (status < fields.size() && retry.count(fields[status])) {
      ++dropped;
      continue;
    }
    kept += line + "\n";
    done.insert(std::stol(line.substr(0, line.find(','))));
  }
  if (dropped > 0) {  // the runs to make again leave the file
    const std::filesystem::path temp = results.string() + ".retrying";
    {
      std::ofstream out(temp, std::ios::binary | std::ios::trunc);
      out << kept;
      if (!out.flush()) throw std::runtime_error("cannot write '" + temp.string() + "'");
    }
    std::filesystem::rename(temp, results);
  }
  return done;
}

std::map<std::string, long> studyStatusCounts(const std::filesystem::path& results) {
  std::map<std::string, long> counts;
  std::ifstream in(results, std::ios::binary);
  std::string line;
  if (!std::getline(in, line)) return counts;
  const std::vector<std::string> columns = studyCsvFields(line);
  const std::size_t status = statusColumn(columns);
  while (std::getline(in, line)) {
    const std::vector<std::string> fields = studyCsvFields(line);
    if (status < fields.size()) ++counts[fields[status]];
  }
  return counts;
}

void sortStudyResults(const std::filesystem::path& results) {
  std::ifstream in(results, std::ios::binary);
  std::string header, line;
  std::getline(in, header);
  std::map<long, std::string> rows;
  while (std::getline(in, line))
    if (!line.empty()) rows.emplace(std::stol(line.substr(0, line.find(','))), line);
  in.close();
  const std::filesystem::path temp = results.string() + ".sorting";
  {
    std::ofstream out(temp, std::ios::binary | std::ios::trunc);
    out << header << "\n";
    for (const auto& [index, text] : rows) out << text << "\n";
    if (!out.flush()) throw std::runtime_error("cannot write '" + temp.string() + "'");
  }
  std::filesystem::rename(temp, results);
}

}  // namespace rbs
