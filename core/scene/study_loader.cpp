// Study files (docs/STUDIES.md), read with the scene loader's checked YAML access: every error is
// a SceneError at the element's file:line:column.
#include <yaml-cpp/yaml.h>

#include <cmath>
#include <string>

#include "core/io/scene_error.h"
#include "core/scene/study.h"
#include "core/scene/yaml_access.h"

namespace rbs {
namespace {

using namespace scene_detail;
namespace fs = std::filesystem;

/// Upper bound on the runs of one study: a typo (count: 1e9) is refused, not started.
constexpr double kMaxRuns = 10'000'000;

MetricStat readStat(const Source& src, const YAML::Node& node, const std::string& path) {
  const std::string s = readChoice(src, node, path, {"rms", "max", "min", "max_abs", "mean", "final", "settle"});
  if (s == "rms") return MetricStat::Rms;
  if (s == "max") return MetricStat::Max;
  if (s == "min") return MetricStat::Min;
  if (s == "max_abs") return MetricStat::MaxAbs;
  if (s == "mean") return MetricStat::Mean;
  if (s == "settle") return MetricStat::Settle;
  return MetricStat::Final;
}

/// The values of a grid axis: a list of numbers, or {from, to, count} (count ≥ 2, evenly spaced,
/// both ends included) or {from, to, count, scale: log}.
std::vector<double> readAxis(const Source& src, const YAML::Node& node, const std::string& path) {
  if (node.IsSequence()) {
    std::vector<double> v = readNumbers(src, node, path, -1);
    if (v.empty()) src.fail(node, at(path, "an empty list; expected at least one value"));
    return v;
  }
  const MapView m(src, node, path, {"from", "to", "count", "scale"});
  const double from = m.number("from"), to = m.number("to");
  const int count = readInteger(src, m.require("count"), m.at("count"));
  if (count < 2 || count > kMaxRuns)
    src.fail(m.require("count"), at(m.at("count"), "expected an integer from 2 to 10 000 000"));
  const bool log = m.has("scale") && readChoice(src, *m.find("scale"), m.at("scale"), {"linear", "log"}) == "log";
  if (log && !(from > 0.0 && to > 0.0)) src.fail(node, at(path, "a log scale needs from > 0 and to > 0"));
  std::vector<double> v(static_cast<std::size_t>(count));
  for (int k = 0; k < count; ++k) {
    const double s = static_cast<double>(k) / (count - 1);
    v[static_cast<std::size_t>(k)] = log ? std::exp(std::log(from) + s * (std::log(to) - std::log(from)))
                                         : from + s * (to - from);
  }
  v.back() = to;  // exactly the end the file names
  return v;
}

StudyRandomParameter readDistribution(const Source& src, const YAML::Node& node, const std::string& path,
                                      const std::string& parameter) {
  const MapView m(src, node, path, {"uniform", "normal", "log_uniform"});
  const std::string kind = m.exactlyOne({"uniform", "normal", "log_uniform"}, "distribution");
  const std::vector<double> ab = readNumbers(src, m.require(kind), m.at(kind), 2);
  StudyRandomParameter p{parameter, Distribution::Uniform, ab[0], ab[1]};
  if (kind == "normal") {
    p.distribution = Distribution::Normal;
    if (!(ab[1] >= 0.0)) src.fail(m.require(kind), at(m.at(kind), "expected [mean, standard deviation >= 0]"));
  } else {
    p.distribution = kind == "uniform" ? Distribution::Uniform : Distribution::LogUniform;
    if (!(ab[0] <= ab[1])) src.fail(m.require(kind), at(m.at(kind), "expected [low, high] with low <= high"));
    if (kind == "log_uniform" && !(ab[0] > 0.0))
      src.fail(m.require(kind), at(m.at(kind), "a log-uniform distribution needs low > 0"));
  }
  return p;
}

std::string scalarText(const Source& src, const YAML::Node& node, const std::string& path) {
  if (!node.IsScalar()) {
    if (node.IsSequence()) {
      std::string s = "[";
      for (std::size_t i = 0; i < node.size(); ++i) s += (i ? "," : "") + scalarText(src, node[i], path);
      return s + "]";
    }
    src.fail(node, at(path, "expected a value or a list of values, got " + describe(node)));
  }
  return node.Scalar();
}

}  // namespace

Study loadStudy(const fs::path& file) {
  const std::string label = file.string();
  const std::string text = readTextFile(file, "study");
  checkText(label, text);
  Source src(label);
  YAML::Node root;
  try {
    root = YAML::Load(text);
  } catch (const YAML::Exception& e) {
    throw src.errorAtMark(e.mark, "YAML syntax error: " + e.msg);
  }
  if (root.IsNull()) throw SceneError(label, 0, 0, "the file is empty; expected a study (a map with 'scene' and 'metrics')");
  checkTree(src, root);
  if (!root.IsMap()) src.fail(root, "expected a study: a map with scene, parameters and metrics, got " + describe(root));
  const MapView top(src, root, "",
                    {"name", "scene", "set", "run", "grid", "list", "random", "repetitions", "metrics"});
  Study s;
  s.file = file;
  s.name = top.string("name", file.stem().string());
  s.scene = top.name("scene");
  if (s.scene.is_relative()) s.scene = file.parent_path() / s.scene;

  if (const YAML::Node* set = top.find("set")) {
    const MapView m(src, *set, "set", {"*"});
    for (const std::string& key : m.keys()) s.fixed.push_back(key + "=" + scalarText(src, *m.find(key), m.at(key)));
  }
  if (const YAML::Node* run = top.find("run")) {
    const MapView m(src, *run, "run", {"t_end", "dt_out", "integrator", "controller"});
    if (m.has("t_end")) s.t_end = m.number("t_end");
    if (m.has("dt_out")) s.dt_out = m.number("dt_out");
    if (m.has("integrator")) s.integrator = m.name("integrator");
    if (m.has("controller")) s.controller = m.name("controller");
    for (const char* key : {"t_end", "dt_out"})
      if (m.has(key) && !(m.number(key) > 0.0)) src.fail(*m.find(key), at(m.at(key), "expected a number > 0"));
  }
  double points = 1.0;
  if (const YAML::Node* grid = top.find("grid")) {
    const MapView m(src, *grid, "grid", {"*"});
    for (const std::string& key : m.keys()) {
      s.grid.emplace_back(key, readAxis(src, *m.find(key), m.at(key)));
      points *= static_cast<double>(s.grid.back().second.size());
    }
  }
  if (const YAML::Node* list = top.find("list")) {
    for (const YAML::Node& item : readList(src, *list, "list")) {
      const MapView m(src, item, "list[" + std::to_string(s.list.size()) + "]", {"*"});
      std::vector<StudySetting> point;
      for (const std::string& key : m.keys()) point.emplace_back(key, readNumber(src, *m.find(key), m.at(key)));
      if (point.empty()) src.fail(item, "list: an empty point; expected PATH: VALUE entries");
      s.list.push_back(std::move(point));
    }
    if (s.list.empty()) src.fail(*list, "list: no points");
    points *= static_cast<double>(s.list.size());
  }
  if (const YAML::Node* random = top.find("random")) {
    const MapView m(src, *random, "random", {"count", "seed", "parameters"});
    s.random_count = readInteger(src, m.require("count"), m.at("count"));
    if (s.random_count < 1 || s.random_count > kMaxRuns)
      src.fail(m.require("count"), at(m.at("count"), "expected an integer from 1 to 10 000 000"));
    if (m.has("seed")) {
      const int seed = readInteger(src, *m.find("seed"), m.at("seed"));
      if (seed < 0) src.fail(*m.find("seed"), at(m.at("seed"), "expected an integer >= 0"));
      s.random_seed = static_cast<std::uint64_t>(seed);
    }
    const MapView params(src, m.require("parameters"), m.at("parameters"), {"*"});
    for (const std::string& key : params.keys())
      s.random.push_back(readDistribution(src, *params.find(key), params.at(key), key));
    if (s.random.empty()) src.fail(m.require("parameters"), "random.parameters: none; expected PATH: {uniform: [a, b]} …");
    points *= s.random_count;
  }
  if (const YAML::Node* reps = top.find("repetitions")) {
    const MapView m(src, *reps, "repetitions", {"count", "seed", "first"});
    s.repetitions = readInteger(src, m.require("count"), m.at("count"));
    if (s.repetitions < 1 || s.repetitions > kMaxRuns)
      src.fail(m.require("count"), at(m.at("count"), "expected an integer from 1 to 10 000 000"));
    s.seed_path = m.string("seed", "");
    if (m.has("first")) s.first_seed = readInteger(src, *m.find("first"), m.at("first"));
    if (s.first_seed < 0) src.fail(*m.find("first"), at(m.at("first"), "expected an integer >= 0 (a seed)"));
    if (s.repetitions > 1 && s.seed_path.empty())
      src.fail(*reps, "repetitions: more than one repetition needs 'seed' (the setting that takes each "
                      "repetition's seed, e.g. perturbation.seed); without it they would all be the same run");
  }
  if (points * s.repetitions > kMaxRuns)
    src.fail(root, "the study has " + std::to_string(points * s.repetitions) + " runs; at most 10 000 000");

  const YAML::Node& metrics = top.require("metrics");
  for (const YAML::Node& item : readList(src, metrics, "metrics")) {
    const std::string path = "metrics[" + std::to_string(s.metrics.size()) + "]";
    const MapView m(src, item, path, {"name", "channel", "stat", "from", "to", "threshold"});
    StudyMetric metric;
    metric.channel = m.name("channel");
    metric.stat = m.has("stat") ? readStat(src, *m.find("stat"), m.at("stat")) : MetricStat::Rms;
    metric.name = m.string("name", "");
    if (metric.name.empty()) {
      static const char* names[] = {"rms", "max", "min", "max_abs", "mean", "final", "settle"};
      metric.name = std::string(names[static_cast<int>(metric.stat)]) + "." + metric.channel;
    }
    metric.from = m.number("from", metric.from);
    metric.to = m.number("to", metric.to);
    if (!(metric.from <= metric.to)) src.fail(item, at(path, "expected from <= to"));
    if (metric.stat == MetricStat::Settle) {
      metric.threshold = m.number("threshold", -1.0);
      if (!(metric.threshold >= 0.0)) src.fail(item, at(path, "stat settle needs a threshold >= 0 (the band |value| <= threshold)"));
    } else if (m.has("threshold")) {
      src.fail(*m.find("threshold"), at(m.at("threshold"), "a threshold belongs to stat settle only"));
    }
    metric.line = item.Mark().line + 1;
    metric.column = item.Mark().column + 1;
    for (const StudyMetric& other : s.metrics)
      if (other.name == metric.name) src.fail(item, at(path, "a second metric named '" + metric.name + "'"));
    s.metrics.push_back(std::move(metric));
  }
  if (s.metrics.empty()) src.fail(metrics, "metrics: none; a study keeps at least one metric per run");
  return s;
}

}  // namespace rbs
