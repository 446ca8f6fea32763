// Parameter studies: the study file's checks, the runs it expands to, one run's metrics against
// the recorded samples, divergence and errors as results, and the results file's resume rules.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <fstream>
#include <map>
#include <numeric>

#include "core/io/scene_error.h"
#include "core/scene/study.h"
#include "sim/scene_run.h"
#include "sim/study_results.h"
#include "sim/study_run.h"
#include "tests/scene/scene_test_util.h"

namespace rbs {
namespace {

const std::string kScenes = std::string(RBS_SOURCE_DIR) + "/scenes/";

class Studies : public test::SceneDir {
 protected:
  Study study(const std::string& text) { return loadStudy(write("study.yaml", text)); }
  /// The SceneError of loading `text` (fails the test when it loads).
  SceneError error(const std::string& text) {
    try {
      study(text);
    } catch (const SceneError& e) {
      return e;
    }
    ADD_FAILURE() << "loaded:\n" << text;
    return SceneError("", 0, 0, "");
  }
};

TEST_F(Studies, GridListAndRandomPointsExpandInADocumentedOrder) {
  const Study s = study("scene: " + kScenes + "robot_arm_6r.yaml\n"
                        "grid:\n"
                        "  controller.kbar: [10, 20]\n"
                        "  controller.dbar: {from: 2, to: 8, count: 3}\n"
                        "list:\n"
                        "  - {controller.pibar: 30}\n"
                        "  - {controller.pibar: 40, controller.kbar: 15}\n"
                        "repetitions: {count: 2, seed: perturbation.seed, first: 5}\n"
                        "metrics: [{channel: energy.total}]\n");
  const std::vector<StudyRunSpec> runs = expandStudy(s);
  ASSERT_EQ(runs.size(), 2u * 3u * 2u * 2u);
  EXPECT_EQ(studyParameterColumns(s), (std::vector<std::string>{"controller.kbar", "controller.dbar", "controller.pibar"}));
  // Last axis fastest, then the list, then the repetitions.
  const auto values = [&](long i) {
    std::vector<double> v;
    for (const auto& setting : runs[static_cast<std::size_t>(i)].settings) v.push_back(setting.second);
    return v;
  };
  EXPECT_EQ(values(0), (std::vector<double>{10, 2, 30}));
  EXPECT_EQ(values(2), (std::vector<double>{15, 2, 40}));  // the list's kbar replaces the grid's
  EXPECT_EQ(values(4), (std::vector<double>{10, 5, 30}));
  EXPECT_EQ(values(23), (std::vector<double>{15, 8, 40}));
  EXPECT_EQ(runs[1].seed, 6);
  EXPECT_EQ(runs[1].repetition, 1);
  EXPECT_EQ(runs[1].point, 0);
  EXPECT_EQ(runs[22].point, 11);
  for (std::size_t i = 0; i < runs.size(); ++i) EXPECT_EQ(runs[i].index, static_cast<long>(i));
}

TEST_F(Studies, RandomSamplesAreReproducibleFromTheSeedAndFollowTheirDistributions) {
  const auto make = [&](int seed) {
    return expandStudy(study("scene: " + kScenes + "robot_arm_6r.yaml\n"
                             "random:\n"
                             "  count: 4000\n"
                             "  seed: " + std::to_string(seed) + "\n"
                             "  parameters:\n"
                             "    controller.kbar: {uniform: [10, 20]}\n"
                             "    controller.dbar: {normal: [5, 0.5]}\n"
                             "    controller.pibar: {log_uniform: [1, 100]}\n"
                             "metrics: [{channel: energy.total}]\n"));
  };
  const auto a = make(7), b = make(7), c = make(8);
  ASSERT_EQ(a.size(), 4000u);
  double sum_u = 0, sum_n = 0, sum_n2 = 0, below_10 = 0;
  for (std::size_t i = 0; i < a.size(); ++i) {
    EXPECT_EQ(a[i].settings, b[i].settings);
    const double u = a[i].settings[0].second, n = a[i].settings[1].second, l = a[i].settings[2].second;
    ASSERT_TRUE(u >= 10 && u < 20 && l >= 1 && l <= 100);
    sum_u += u;
    sum_n += n;
    sum_n2 += (n - 5) * (n - 5);
    below_10 += l < 10;
  }
  EXPECT_NE(a[0].settings, c[0].settings);
  // 4000 samples: the standard errors are 0.046 (mean of U(10,20)), 0.008 (mean of N), 0.006
  // (its variance, relative 2.2 %), 0.008 (the log-uniform's share below 10, which is 1/2).
  EXPECT_NEAR(sum_u / 4000, 15.0, 0.2);
  EXPECT_NEAR(sum_n / 4000, 5.0, 0.04);
  EXPECT_NEAR(std::sqrt(sum_n2 / 4000), 0.5, 0.03);
  EXPECT_NEAR(below_10 / 4000, 0.5, 0.04);
}

TEST_F(Studies, EveryMistakeIsReportedAtItsPlace) {
  const std::string scene = "scene: " + kScenes + "robot_arm_6r.yaml\n";
  SceneError e = error(scene + "grid: {controller.kbar: [1, 2]}\nmetrcs: [{channel: energy.total}]\n");
  EXPECT_EQ(e.line(), 3);
  EXPECT_NE(e.message().find("did you mean 'metrics'"), std::string::npos) << e.what();
  e = error(scene + "repetitions: {count: 3}\nmetrics: [{channel: energy.total}]\n");
  EXPECT_EQ(e.line(), 2);
  EXPECT_NE(e.message().find("needs 'seed'"), std::string::npos) << e.what();
  e = error(scene + "metrics:\n  - {channel: energy.total, from: 3, to: 1}\n");
  EXPECT_EQ(e.line(), 3);
  EXPECT_EQ(e.column(), 5);
  e = error(scene + "grid: {controller.kbar: {from: -1, to: 5, count: 3, scale: log}}\nmetrics: [{channel: energy.total}]\n");
  EXPECT_NE(e.message().find("log scale needs from > 0"), std::string::npos) << e.what();
  e = error(scene + "metrics: [{channel: energy.total, stat: settle}]\n");
  EXPECT_NE(e.message().find("stat settle needs a threshold"), std::string::npos) << e.what();
  e = error(scene + "metrics: [{channel: energy.total, stat: rms, threshold: 1}]\n");
  EXPECT_NE(e.message().find("a threshold belongs to stat settle only"), std::string::npos) << e.what();
  e = error(scene + "metrics: [{channel: energy.total, stat: median}]\n");
  EXPECT_NE(e.message().find("median"), std::string::npos) << e.what();
  e = error(scene + "random: {count: 1000000, parameters: {controller.kbar: {uniform: [1, 2]}}}\n"
                    "repetitions: {count: 100, seed: perturbation.seed}\nmetrics: [{channel: energy.total}]\n");
  EXPECT_NE(e.message().find("at most 10 000 000"), std::string::npos) << e.what();
  // A relative scene is relative to the study file's folder.
  EXPECT_EQ(study("scene: robot_arm_6r.yaml\nmetrics: [{channel: energy.total}]\n").scene, dir_ / "robot_arm_6r.yaml");
}

TEST_F(Studies, AMissingChannelIsReportedAtItsMetricBeforeTheStudyStarts) {
  const Study s = study("scene: " + kScenes + "robot_arm_6r.yaml\n"
                        "metrics:\n"
                        "  - {channel: energy.total}\n"
                        "  - {channel: error.positon}\n");
  try {
    checkStudy(s);
    FAIL() << "checked";
  } catch (const SceneError& e) {
    EXPECT_EQ(e.line(), 4);
    EXPECT_NE(e.message().find("no channel 'error.positon'"), std::string::npos) << e.what();
  }
}

TEST_F(Studies, ARunsMetricsAreThoseOfItsRecordedSamples) {
  const Study s = study("scene: " + kScenes + "robot_arm_6r.yaml\n"
                        "run: {t_end: 1.0, dt_out: 0.01}\n"
                        "grid: {controller.kbar: [12.5]}\n"
                        "metrics:\n"
                        "  - {name: rms, channel: energy.kinetic, stat: rms, from: 0.2, to: 0.7}\n"
                        "  - {name: max_abs, channel: power.input, stat: max_abs}\n"
                        "  - {name: mean, channel: energy.kinetic, stat: mean, from: 0.5}\n"
                        "  - {name: final, channel: energy.total, stat: final}\n"
                        "  - {name: empty, channel: energy.total, stat: max, from: 5}\n"
                        "  - {name: settle, channel: energy.kinetic, stat: settle, threshold: 0.05, to: 0.85}\n"
                        "  - {name: never, channel: power.input, stat: settle, threshold: 0.5}\n");
  const StudyRunResult r = evaluateStudyRun(s, expandStudy(s).front());
  ASSERT_EQ(r.status, RunStatus::Ok) << r.message;
  EXPECT_EQ(r.t_reached, 1.0);

  // The same run, recorded whole, and the metrics computed from its samples.
  const Scene scene = loadScene(s.scene, {"controller.kbar=12.5"});
  RunOverrides o;
  o.t_end = 1.0;
  o.dt_out = 0.01;
  SceneRun run(scene, o);
  ASSERT_TRUE(run.runToEnd());
  const Recording& rec = run.simulator().recording();
  ASSERT_EQ(rec.time.size(), 101u);
  const int kinetic = rec.channels.find("energy.kinetic"), power = rec.channels.find("power.input"),
            total = rec.channels.find("energy.total");
  double sq = 0, sum = 0, peak = 0, settled = NAN;
  int n_sq = 0, n_mean = 0;
  for (std::size_t k = 0; k < rec.time.size(); ++k) {
    const double t = rec.time[k];
    if (t > 0.85 + 1e-12) {
    } else if (std::abs(rec.values[k][kinetic]) > 0.05) {
      settled = NAN;
    } else if (std::isnan(settled)) {
      settled = t;
    }
    if (t >= 0.2 - 1e-12 && t <= 0.7 + 1e-12) {
      sq += rec.values[k][kinetic] * rec.values[k][kinetic];
      ++n_sq;
    }
    if (t >= 0.5 - 1e-12) {
      sum += rec.values[k][kinetic];
      ++n_mean;
    }
    peak = std::max(peak, std::abs(rec.values[k][power]));
  }
  EXPECT_EQ(n_sq, 51);
  EXPECT_EQ(r.metrics[0], std::sqrt(sq / n_sq));
  EXPECT_EQ(r.metrics[1], peak);
  EXPECT_EQ(r.metrics[2], sum / n_mean);
  EXPECT_EQ(r.metrics[3], rec.values.back()[total]);
  EXPECT_TRUE(std::isnan(r.metrics[4]));  // no sample in [5, ∞)
  // settle: since when the kinetic energy stays within 0.05 J to the window's end, and never for
  // an input power that leaves ±0.5 W and ends beyond it (the arm accelerates until t = 1 s)
  ASSERT_FALSE(std::isnan(settled));
  EXPECT_EQ(r.metrics[5], settled);
  ASSERT_GT(std::abs(rec.values.back()[power]), 0.5);
  EXPECT_TRUE(std::isnan(r.metrics[6]));
}

TEST_F(Studies, DivergenceAndImpossibleSettingsAreResultsWithTheirMessage) {
  const Study diverging = study("scene: " + kScenes + "motivation_gimbal_lock.yaml\n"
                                "metrics: [{channel: energy.total, stat: final}]\n");
  const StudyRunResult d = evaluateStudyRun(diverging, expandStudy(diverging).front());
  EXPECT_EQ(d.status, RunStatus::Diverged);
  EXPECT_FALSE(d.message.empty());
  EXPECT_GT(d.t_reached, 1.0);
  EXPECT_LT(d.t_reached, 2.0);

  const Study impossible = study("scene: " + kScenes + "robot_arm_6r.yaml\n"
                                 "grid: {controller.kbar: [-3]}\n"
                                 "metrics: [{channel: energy.total}]\n");
  const StudyRunResult e = evaluateStudyRun(impossible, expandStudy(impossible).front());
  EXPECT_EQ(e.status, RunStatus::Error);
  EXPECT_NE(e.message.find("kbar"), std::string::npos) << e.message;
  EXPECT_TRUE(std::isnan(e.metrics[0]));
  const std::string row = studyCsvRow(expandStudy(impossible).front(), e, "h");
  EXPECT_NE(row.find(",error,"), std::string::npos) << row;
}

TEST_F(Studies, AResultsFileResumesOnlyForTheSameStudyAndScene) {
  const Study s = study("scene: " + kScenes + "robot_arm_6r.yaml\n"
                        "grid: {controller.kbar: [10, 20, 30]}\n"
                        "metrics: [{channel: energy.total}]\n");
  const auto runs = expandStudy(s);
  const std::string hash = studyHashes(s);
  ASSERT_EQ(hash.size(), 33u);  // scene hash, study hash
  StudyRunResult fake;
  fake.metrics = {1.0};
  const auto results = dir_ / "results.csv";
  {
    std::ofstream out(results);
    out << studyCsvHeader(s) << "\n" << studyCsvRow(runs[2], fake, hash) << "\n" << studyCsvRow(runs[0], fake, hash) << "\n"
        << "1,1,0,";  // a row cut short by an interrupted write
  }
  EXPECT_EQ(completedStudyRuns(s, results, hash), (std::set<long>{0, 2}));
  EXPECT_EQ(slurp(results).back(), '\n');  // the partial row is gone
  sortStudyResults(results);
  const std::string sorted = slurp(results);
  EXPECT_LT(sorted.find("\n0,0,0"), sorted.find("\n2,2,0"));

  EXPECT_THROW(completedStudyRuns(s, results, "0123456789abcdef," + hash.substr(17)), std::runtime_error);  // another scene
  EXPECT_THROW(completedStudyRuns(s, results, hash.substr(0, 17) + "0123456789abcdef"), std::runtime_error);  // another study
  const Study other = study("scene: " + kScenes + "robot_arm_6r.yaml\n"
                            "grid: {controller.dbar: [10, 20, 30]}\n"
                            "metrics: [{channel: energy.total}]\n");
  EXPECT_THROW(completedStudyRuns(other, results, hash), std::runtime_error);  // other columns
  EXPECT_TRUE(completedStudyRuns(s, dir_ / "absent.csv", hash).empty());

  // A file that is not a results file is refused before anything in it is cut off.
  const auto other_csv = write("data.csv", "a,b\n1,2\n3,");
  EXPECT_THROW(completedStudyRuns(s, other_csv, hash), std::runtime_error);
  EXPECT_EQ(slurp(other_csv), "a,b\n1,2\n3,");
  // A header cut short by an interruption starts the file over.
  const auto cut = write("cut.csv", studyCsvHeader(s).substr(0, 10));
  EXPECT_TRUE(completedStudyRuns(s, cut, hash).empty());
  EXPECT_EQ(slurp(cut), "");
}

TEST_F(Studies, AResultsFileReadsBackWithItsStudyAndEachRunsSettings) {
  std::filesystem::create_directories(dir_ / "studies");
  std::filesystem::create_directories(dir_ / "out" / "today");
  const auto file = dir_ / "studies" / "arm.yaml";
  std::filesystem::copy_file(kScenes + "robot_arm_6r.yaml", dir_ / "arm_scene.yaml");
  std::ofstream(file) << "scene: ../arm_scene.yaml\n"  // relative: a copy of the study elsewhere names another scene
                      << "set: {controller.dbar: 12}\n"
                      << "run: {t_end: 1.5, integrator: rk4, controller: prototype_body}\n"
                      << "grid: {controller.kbar: [10, 20.000000000000004]}\n"
                      << "repetitions: {count: 2, seed: perturbation.seed, first: 5}\n"
                      << "metrics: [{channel: energy.total}]\n";
  const Study s = loadStudy(file);
  const auto runs = expandStudy(s);
  const std::string hashes = studyHashes(s);
  StudyRunResult diverged;
  diverged.status = RunStatus::Diverged;
  diverged.message = "stopped at t = 1: \"x\", y";  // quotes and a comma
  diverged.metrics = {2.5};
  const auto results = dir_ / "out" / "today" / "results.csv";
  {
    std::ofstream out(results);
    out << studyCsvHeader(s) << "\n" << studyCsvRow(runs[3], diverged, hashes) << "\n"
        << studyCsvRow(runs[1], diverged, hashes) << "\n"
        << studyCsvRow(runs[2], diverged, hashes).substr(0, studyCsvRow(runs[2], diverged, hashes).size() - 3);  // cut short
  }
  const StudyResultsTable table = readStudyResults(results);
  ASSERT_EQ(table.rows.size(), 2u);
  EXPECT_EQ(table.rows[0][static_cast<std::size_t>(table.column("run"))], "3");
  EXPECT_EQ(table.rows[0][static_cast<std::size_t>(table.column("message"))], diverged.message);
  EXPECT_EQ(table.rows[0][static_cast<std::size_t>(table.column("controller.kbar"))], "20.000000000000004");
  EXPECT_EQ(table.scene_hash + "," + table.study_hash, hashes);
  // the study is found two folders up, in studies/, by its content
  std::ofstream(dir_ / "studies" / "decoy.yaml") << "scene: x.yaml\n";
  EXPECT_EQ(findStudyFile(results, table.scene_hash, table.study_hash), file);
  EXPECT_FALSE(findStudyFile(results, table.scene_hash, "0123456789abcdef").has_value());
  // a copy of the study beside the results whose relative scene path leads elsewhere comes second
  std::filesystem::create_directories(dir_ / "out" / "today" / "studies");
  std::filesystem::copy_file(file, dir_ / "out" / "today" / "studies" / "arm.yaml");
  EXPECT_EQ(findStudyFile(results, table.scene_hash, table.study_hash), file);
  EXPECT_EQ(findStudyFile(results, "0123456789abcdef", table.study_hash), dir_ / "out" / "today" / "studies" / "arm.yaml");
  // a dangling link among the candidates does not end the search
  std::filesystem::create_symlink(dir_ / "nowhere.yaml", dir_ / "studies" / "a_dangling.yaml");
  EXPECT_EQ(findStudyFile(results, table.scene_hash, table.study_hash), file);
  // a run's settings: the fixed ones, the point's with 17 digits, the seed; the run section
  const LoadOptions options = studyRunLoadOptions(s, runs[3]);
  EXPECT_EQ(options.overrides, (std::vector<std::string>{"controller.dbar=12", "controller.kbar=20.000000000000004",
                                                         "perturbation.seed=6"}));
  const RunOverrides run = studyRunOverrides(s);
  EXPECT_EQ(run.t_end, 1.5);
  EXPECT_EQ(run.stepper, "rk4");
  EXPECT_EQ(run.controller, "prototype_body");
  EXPECT_FALSE(run.dt_out.has_value());

  // not results, rows of two versions, a row with other columns: refused at their line
  const auto message = [](const std::filesystem::path& f) {
    try {
      readStudyResults(f);
    } catch (const std::runtime_error& e) {
      return std::string(e.what());
    }
    return std::string("read");
  };
  EXPECT_EQ(message(write("plain.csv", "t,x\n0,1\n")),
            (dir_ / "plain.csv").string() + ":1: not a study's results: no column 'run' (rbsim-cli study … --out FILE writes them)");
  std::string mixed = slurp(results);
  mixed = mixed.substr(0, mixed.rfind('\n') + 1) + studyCsvRow(runs[0], diverged, "0123456789abcdef," + table.study_hash) + "\n";
  EXPECT_NE(message(write("mixed.csv", mixed)).find("mixed.csv:4: a row of another version"), std::string::npos);
  EXPECT_NE(message(write("short.csv", studyCsvHeader(s) + "\n1,2\n" + studyCsvRow(runs[0], diverged, hashes) + "\n"))
                .find("short.csv:2: 2 fields where the header has"),
            std::string::npos);
  EXPECT_NE(message(write("empty.csv", studyCsvHeader(s) + "\n")).find("no finished runs yet"), std::string::npos);
  std::string bad_run = studyCsvRow(runs[0], diverged, hashes);
  bad_run.replace(0, 1, "x");
  EXPECT_NE(message(write("bad_run.csv", studyCsvHeader(s) + "\n" + bad_run + "\n")).find("bad_run.csv:2: the run is 'x'"),
            std::string::npos);
  EXPECT_EQ(message(dir_ / "absent.csv"), "cannot read '" + (dir_ / "absent.csv").string() + "'");
}

TEST_F(Studies, ListPointsThatSetDifferentPathsLeaveTheOtherColumnsEmpty) {
  const Study s = study("scene: " + kScenes + "robot_arm_6r.yaml\n"
                        "run: {t_end: 0.1}\n"
                        "list:\n"
                        "  - {controller.pibar: 30}\n"
                        "  - {controller.dbar: 5}\n"
                        "metrics: [{channel: energy.total}]\n");
  const auto runs = expandStudy(s);
  ASSERT_EQ(runs.size(), 2u);
  EXPECT_EQ(studyParameterColumns(s), (std::vector<std::string>{"controller.pibar", "controller.dbar"}));
  const std::string header = studyCsvHeader(s);
  const auto fields = [](const std::string& line) { return std::count(line.begin(), line.end(), ',') + 1; };
  for (const StudyRunSpec& r : runs) {
    const StudyRunResult result = evaluateStudyRun(s, r);
    EXPECT_EQ(result.status, RunStatus::Ok) << result.message;
    const std::string row = studyCsvRow(r, result, studyHashes(s));
    EXPECT_EQ(fields(row), fields(header)) << row;
  }
  EXPECT_EQ(studyCsvRow(runs[0], StudyRunResult{}, "h").rfind("0,0,0,,30,,ok,", 0), 0u);
  EXPECT_EQ(studyCsvRow(runs[1], StudyRunResult{}, "h").rfind("1,1,0,,,5,ok,", 0), 0u);
}

TEST_F(Studies, SizesAndSeedsOutOfRangeAreRefusedBeforeAnythingIsAllocated) {
  const std::string scene = "scene: " + kScenes + "robot_arm_6r.yaml\nmetrics: [{channel: energy.total}]\n";
  SceneError e = error(scene + "grid: {controller.kbar: {from: 1, to: 2, count: 1000000000}}\n");
  EXPECT_NE(e.message().find("from 2 to 10 000 000"), std::string::npos) << e.what();
  e = error(scene + "repetitions: {count: 2, seed: perturbation.seed, first: -1}\n");
  EXPECT_NE(e.message().find("expected an integer >= 0"), std::string::npos) << e.what();
}

}  // namespace
}  // namespace rbs

namespace rbs {
namespace {

// The shipped studies (studies/*.yaml, docs/RESULTS.md "Studies") load, pass the pre-flight check
// and expand to the runs their comments promise.
TEST(ShippedStudies, LoadAndCheck) {
  const std::filesystem::path dir = std::filesystem::path(RBS_SOURCE_DIR) / "studies";
  const std::map<std::string, std::size_t> runs = {{"looping_mass_error.yaml", 540},
                                                   {"load_swing_degree.yaml", 24},
                                                   {"recovery_envelope.yaml", 180},
                                                   {"recovery_envelope_before.yaml", 180},
                                                   {"recovery_envelope_se3.yaml", 180},
                                                   {"recovery_envelope_tricopter.yaml", 48},
                                                   {"recovery_envelope_tricopter_before.yaml", 48},
                                                   {"recovery_envelope_tricopter_load.yaml", 72},
                                                   {"recovery_envelope_bicopter.yaml", 48},
                                                   {"recovery_envelope_bicopter_before.yaml", 48},
                                                   {"recovery_envelope_table51.yaml", 180},
                                                   {"recovery_envelope_table51_before.yaml", 180}};
  std::size_t seen = 0;
  for (const auto& entry : std::filesystem::directory_iterator(dir)) {
    if (entry.path().extension() != ".yaml") continue;
    ++seen;
    const Study s = loadStudy(entry.path());
    EXPECT_NO_THROW(checkStudy(s)) << entry.path();
    const auto it = runs.find(entry.path().filename().string());
    ASSERT_NE(it, runs.end()) << "a new shipped study: add it here and to docs/RESULTS.md";
    EXPECT_EQ(expandStudy(s).size(), it->second) << entry.path();
  }
  EXPECT_EQ(seen, runs.size());
}

// The shipped results (docs/results/studies) open in the window: their study is found beside them
// by its hash, and they are the results of the current study and scene files.
TEST(ShippedStudies, ResultsAreThoseOfTheCurrentStudyAndScene) {
  const std::filesystem::path root(RBS_SOURCE_DIR);
  for (const char* name : {"looping_mass_error", "load_swing_degree", "recovery_envelope", "recovery_envelope_before",
                           "recovery_envelope_se3", "recovery_envelope_tricopter", "recovery_envelope_tricopter_before",
                           "recovery_envelope_tricopter_load", "recovery_envelope_bicopter",
                           "recovery_envelope_bicopter_before", "recovery_envelope_table51",
                           "recovery_envelope_table51_before"}) {
    const StudyResultsTable table = readStudyResults(root / "docs/results/studies" / (std::string(name) + ".csv"));
    const std::optional<std::filesystem::path> found = findStudyFile(table.file, table.scene_hash, table.study_hash);
    ASSERT_TRUE(found.has_value()) << name << ": studies/" << name
                                   << ".yaml changed after its results were computed; run it again (docs/RESULTS.md, \"Studies\")";
    EXPECT_EQ(found->filename(), std::string(name) + ".yaml");
    EXPECT_EQ(studyHashes(loadStudy(*found)), table.scene_hash + "," + table.study_hash)
        << name << ": its scene changed after the results were computed; run the study again";
    EXPECT_EQ(static_cast<long>(table.rows.size()), static_cast<long>(expandStudy(loadStudy(*found)).size()));
  }
}

}  // namespace
}  // namespace rbs
