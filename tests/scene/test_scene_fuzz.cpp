// Robustness of loadScene: every scene of the library (scenes/, plus a few built-in ones) mutated
// at random — lines deleted, duplicated and swapped, characters flipped, garbage bytes inserted,
// numbers replaced by huge, NaN, negative values, truncation. Each load must either succeed or throw
// SceneError: never another exception, a crash or a hang. Seeded, so failures reproduce.
#include <gtest/gtest.h>

#include <chrono>
#include <cstdlib>
#include <fstream>
#include <random>
#include <regex>
#include <sstream>

#include "tests/scene/scene_test_util.h"

namespace rbs {
namespace {

namespace fs = std::filesystem;

// In total, spread over the source scenes; RBS_FUZZ_MUTANTS=N (and RBS_FUZZ_SEED=S) for a long run.
constexpr int kMutants = 400;
constexpr double kTotalSecondsBound = 60;  // generous: the whole run takes well under a second

const char* kBuiltIn[] = {
    R"(name: Double pendulum
gravity: [0, 0, -9.81]
bodies:
  - {name: link1, mass: 1, com: [0, 0, -0.5], inertia: [0.083, 0.083, 1e-7, 0, 0, 0]}
  - name: link2
    solid: {cylinder: {radius: 0.02, length: 1.0}, mass: 1, origin: {xyz: [0, 0, -0.5]}}
    visuals:
      - {cylinder: {radius: 0.02, length: 1.0}, origin: {xyz: [0, 0, -0.5]}, color: [0.2, 0.4, 0.8, 1]}
joints:
  - {name: shoulder, type: revolute, parent: world, child: link1, axis: [0, 1, 0], initial: {position: 0.5}}
  - name: elbow
    type: revolute
    coordinates: unit_circle
    parent: link1
    child: link2
    origin: {xyz: [0, 0, -1], rpy: [0, 0, 0]}
    axis: [0, 1, 0]
    limits: {lower: -2, upper: 2, effort: 3, velocity: 4}
joint_springs: [{joint: elbow, stiffness: 1, damping: 0.1}]
actuators: [{name: m, type: joint_effort, joint: shoulder, limits: [-1, 1]}]
integrator: {stepper: rk4, dt: 0.001, t_end: 5}
plots: [{title: E, channels: [energy.total]}]
camera: {mode: orbit, target: [0, 0, -1], distance: 3}
)",
    R"(name: Free body
bodies:
  - name: box
    solid: {box: [0.3, 0.1, 0.2], density: 1000, origin: {rotation: {quaternion: [1, 0, 0, 0]}}}
  - {name: tip, mass: 0.1, inertia: [1e-4, 1e-4, 1e-4, 0, 0, 0]}
joints:
  - name: float
    type: free
    coordinates: quaternion
    child: box
    initial: {pose: {xyz: [0, 0, 1], rotation: {axis: [0, 0, 1], angle: 0.3}}, twist: [0, 0, 0, 1, 2, 3]}
  - {name: ball, type: spherical, velocity: absolute, parent: box, child: tip, initial: {rotation: {matrix: [[1, 0, 0], [0, 1, 0], [0, 0, 1]]}}}
springs:
  - {name: s, frames: [world, {body: box, origin: {xyz: [0, 0, 0.1]}}], stiffness: 10, rest: {xyz: [0, 0, 1]}}
dampers: [{name: d, frames: [world, box], damping: 0.1}]
loop_closures: [{name: c, type: weld, frames: [world, tip]}]
external_wrenches: [{body: box, force: [0, 0, 1], axes: world}]
actuators:
  - {name: thrust, type: body_force, body: box, point: [0.1, 0, 0], direction: [0, 0, 1]}
  - {name: yaw, type: body_torque, body: box, direction: [0, 0, 1]}
controller: {name: pd, parameters: {kp: 1}}
reference: {generator: circle, parameters: {radius: 1, center: [0, 0, 1]}}
)",
};

struct Source {
  std::string name;
  std::string text;
};

std::vector<Source> sources() {
  std::vector<Source> out;
  const fs::path dir = fs::path(RBS_SOURCE_DIR) / "scenes";
  std::error_code ec;
  if (fs::is_directory(dir, ec))
    for (const auto& e : fs::directory_iterator(dir)) {
      if (e.path().extension() != ".yaml") continue;
      std::ifstream in(e.path(), std::ios::binary);
      std::stringstream ss;
      ss << in.rdbuf();
      out.push_back({e.path().filename().string(), ss.str()});
    }
  std::sort(out.begin(), out.end(), [](const Source& a, const Source& b) { return a.name < b.name; });
  for (std::size_t i = 0; i < std::size(kBuiltIn); ++i) out.push_back({"builtin" + std::to_string(i), kBuiltIn[i]});
  return out;
}

std::vector<std::string> lines(const std::string& text) {
  std::vector<std::string> out;
  std::stringstream ss(text);
  for (std::string l; std::getline(ss, l);) out.push_back(l);
  return out;
}

std::string joinLines(const std::vector<std::string>& ls) {
  std::string out;
  for (const auto& l : ls) out += l + "\n";
  return out;
}

std::string mutate(std::string text, std::mt19937_64& rng) {
  auto pick = [&](std::size_t n) { return std::uniform_int_distribution<std::size_t>(0, n - 1)(rng); };
  static const char* kNumbers[] = {"1e308", "-1e308", "1e999", ".nan", ".inf", "-.inf", "-1", "0", "-0.0",
                                   "123456789012345678901234567890", "1e-320", "[]", "{}", "~", "\"x\""};
  const int kind = static_cast<int>(pick(8));
  std::vector<std::string> ls = lines(text);
  if (text.empty() || ls.empty()) return "x";
  switch (kind) {
    case 0:  // delete a line
      ls.erase(ls.begin() + static_cast<long>(pick(ls.size())));
      return joinLines(ls);
    case 1: {  // duplicate a line
      const std::size_t i = pick(ls.size());
      ls.insert(ls.begin() + static_cast<long>(i), ls[i]);
      return joinLines(ls);
    }
    case 2:  // swap two lines
      std::swap(ls[pick(ls.size())], ls[pick(ls.size())]);
      return joinLines(ls);
    case 3: {  // flip characters
      for (int k = 0; k < 3; ++k) text[pick(text.size())] = static_cast<char>(pick(256));
      return text;
    }
    case 4: {  // insert garbage bytes
      std::string garbage;
      const std::size_t n = 1 + pick(8);
      for (std::size_t k = 0; k < n; ++k) garbage += static_cast<char>(pick(256));
      text.insert(pick(text.size()), garbage);
      return text;
    }
    case 5:
    case 6: {  // replace numbers by nasty values
      static const std::regex number(R"((-?[0-9]+\.?[0-9]*(e-?[0-9]+)?))");
      std::vector<std::pair<std::size_t, std::size_t>> spans;
      for (auto it = std::sregex_iterator(text.begin(), text.end(), number); it != std::sregex_iterator(); ++it)
        spans.emplace_back(static_cast<std::size_t>(it->position()), static_cast<std::size_t>(it->length()));
      if (spans.empty()) return text;
      for (int k = 0; k < 2; ++k) {
        const auto [pos, len] = spans[pick(spans.size())];
        if (pos + len > text.size()) continue;
        text.replace(pos, len, kNumbers[pick(std::size(kNumbers))]);
      }
      return text;
    }
    default:  // truncate
      return text.substr(0, pick(text.size()));
  }
}

class SceneFuzz : public test::SceneDir {};

TEST_F(SceneFuzz, MutatedScenesLoadOrThrowSceneError) {
  const std::vector<Source> src = sources();
  ASSERT_FALSE(src.empty());
  const char* env_mutants = std::getenv("RBS_FUZZ_MUTANTS");
  const char* env_seed = std::getenv("RBS_FUZZ_SEED");
  const int mutants = env_mutants ? std::atoi(env_mutants) : kMutants;
  std::mt19937_64 rng(env_seed ? std::strtoull(env_seed, nullptr, 10) : 20240611);
  int loaded = 0, rejected = 0;
  double slowest = 0.0;
  const auto start = std::chrono::steady_clock::now();
  for (int i = 0; i < mutants; ++i) {
    const Source& s = src[static_cast<std::size_t>(i) % src.size()];
    std::string text = s.text;
    const int rounds = 1 + static_cast<int>(rng() % 3);
    for (int r = 0; r < rounds; ++r) text = mutate(text, rng);
    const fs::path file = write("mutant.yaml", text);
    const auto t0 = std::chrono::steady_clock::now();
    try {
      loadScene(file);
      ++loaded;
    } catch (const SceneError& e) {
      ++rejected;
      EXPECT_FALSE(e.message().empty());
    } catch (const std::exception& e) {
      write("failed_" + std::to_string(i) + ".yaml", text);
      ADD_FAILURE() << "mutant " << i << " of " << s.name << " threw a non-SceneError: " << e.what();
    } catch (...) {
      ADD_FAILURE() << "mutant " << i << " of " << s.name << " threw a non-exception";
    }
    slowest = std::max(slowest, std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
  }
  const double total = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  if (!env_mutants) {
    EXPECT_LT(total, kTotalSecondsBound) << "slowest single load " << slowest << " s";
  }
  EXPECT_GT(rejected, 0);
  RecordProperty("loaded", loaded);
  RecordProperty("rejected", rejected);
  std::cout << "mutants: " << loaded << " loaded, " << rejected << " rejected; " << total << " s, slowest load " << slowest
            << " s\n";
}

}  // namespace
}  // namespace rbs
