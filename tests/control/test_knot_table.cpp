// Knot table (core/control/knot_table.h): values depend on the knot alone (bitwise, in any order,
// from any thread, forward and backward of knot 0), sequential access costs one advance() per new
// knot at any time (also far beyond the 4000 s the first table stored), memory stays bounded, and
// a far jump back costs less than one checkpoint spacing.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <map>
#include <random>
#include <set>
#include <thread>
#include <vector>

#include "core/control/knot_table.h"

namespace rbs {
namespace {

using Table = KnotTable<double>;
constexpr double kH = Table::kStep;

/// A nonlinear step whose rounding depends on the whole path: any knot obtained other than along
/// the chain from knot 0 (wrong start, wrong index, wrong direction) differs in its bits.
double wiggle(double x, long from, long to) {
  return x + 0.01 * std::sin(1.7 * x + 1e-3 * static_cast<double>(to)) +
         1e-9 * static_cast<double>(to - from);
}
constexpr double kWiggleStart = 0.3;

/// The chain walked directly, without a table: the values at the requested knots (any sign).
std::map<long, double> sequentialPass(const std::vector<long>& knots) {
  const std::set<long> wanted(knots.begin(), knots.end());
  std::map<long, double> out{{0, kWiggleStart}};
  for (const long dir : {1L, -1L}) {
    const long furthest = dir > 0 ? std::max(0L, *wanted.rbegin()) : std::max(0L, -*wanted.begin());
    double x = kWiggleStart;
    for (long m = 0; m < furthest; ++m) {
      x = wiggle(x, dir * m, dir * (m + 1));
      if (wanted.count(dir * (m + 1))) out[dir * (m + 1)] = x;
    }
  }
  return out;
}

/// Counts advance() calls.
struct Counting {
  long calls = 0;
  void reset(Table& table, Table::Advance step, double start) {
    table.reset([start] { return start; },
                [this, step](const double& x, long from, long to) {
                  ++calls;
                  return step(x, from, to);
                });
  }
};

/// Knot k holds k (exact in double below 2⁵³; the backward chain steps by to − from = −1): a cheap
/// step with a known answer.
double plusOne(double x, long from, long to) {
  return x + static_cast<double>(to - from);
}

std::vector<long> randomKnots(std::mt19937_64& rng, long range, int count) {
  std::uniform_int_distribution<long> pick(-range, range);
  std::vector<long> knots;
  for (int i = 0; i < count; ++i) knots.push_back(pick(rng));
  return knots;
}

TEST(KnotTable, RandomOrderGivesTheBitsOfASequentialPass) {
  std::mt19937_64 rng(16);
  // Default sizes beyond the 2·10⁶ knots (4000 s) the first table stored; and a tiny table whose
  // checkpoints thin out many times, so that every path (window hit, extension, jump back, jump
  // ahead, new spacing) is taken.
  struct Case {
    long window;
    std::size_t checkpoints;
    long range;
  };
  for (const Case c : {Case{Table::kDefaultWindow, Table::kDefaultMaxCheckpoints, 2'600'000},
                       Case{4, 3, 20'000}}) {
    SCOPED_TRACE(c.window);
    std::vector<long> knots = randomKnots(rng, c.range, 300);
    // Steps back and forth within and just beyond the window, and knot 0.
    for (int i = 0; i < 100; ++i)
      knots.push_back(knots[static_cast<std::size_t>(i)] + (i % 7) - 3 + (i % 2) * c.window);
    knots.push_back(0);
    std::shuffle(knots.begin(), knots.end(), rng);
    const std::map<long, double> expected = sequentialPass(knots);

    Table table(c.window, c.checkpoints);
    table.reset([] { return kWiggleStart; }, wiggle);
    for (const long k : knots) {
      ASSERT_EQ(table.atKnot(k), expected.at(k)) << "knot " << k;  // bitwise
      ASSERT_LE(table.storedKnots(), table.maxStoredKnots());
    }
    // at(t) takes knot ⌊t/h⌋, also for t < 0.
    for (const long k : knots) {
      long knot = 0;
      const double t = (static_cast<double>(k) + 0.25) * kH;
      ASSERT_EQ(table.at(t, knot), expected.at(k)) << "t " << t;
      ASSERT_EQ(knot, k);
    }
  }
}

TEST(KnotTable, ConcurrentCallersSeeTheSameBits) {
  std::mt19937_64 rng(7);
  std::vector<long> knots = randomKnots(rng, 300'000, 400);
  const std::map<long, double> expected = sequentialPass(knots);
  Table table;
  table.reset([] { return kWiggleStart; }, wiggle);
  long mismatches[2] = {0, 0};
  std::vector<std::thread> threads;
  for (int i = 0; i < 2; ++i) {
    threads.emplace_back([&, i] {
      std::vector<long> order = knots;
      std::shuffle(order.begin(), order.end(), std::mt19937_64(static_cast<unsigned>(i)));
      for (const long k : order)
        if (table.atKnot(k) != expected.at(k)) ++mismatches[i];
    });
  }
  for (std::thread& t : threads) t.join();
  EXPECT_EQ(mismatches[0], 0);
  EXPECT_EQ(mismatches[1], 0);
}

/// RK4 at dt = 1 ms samples t, t + dt/2 (twice), t + dt per step; an output sample every 5 ms looks
/// at the step's start again. `check(new_knots)` after every step (false: stop). Returns the number
/// of knots beyond `first_knot` reached.
template <class Check>
long integratorSweep(const Table& table, long first_knot, long knots, Check check) {
  constexpr double kDt = 0.001;
  const double t0 = static_cast<double>(first_knot) * kH;
  const long steps = static_cast<long>(std::llround(static_cast<double>(knots) * kH / kDt));
  long furthest = first_knot;
  for (long i = 0; i < steps; ++i) {
    const double t = t0 + static_cast<double>(i) * kDt;
    long knot = 0;
    for (const double ts : {t, t + 0.5 * kDt, t + 0.5 * kDt, t + kDt}) {
      const double value = table.at(ts, knot);
      EXPECT_EQ(value, static_cast<double>(knot));  // plusOne: knot k holds k
      furthest = std::max(furthest, knot);
    }
    if (i % 5 == 0) table.at(t, knot);
    if (!check(furthest - first_knot)) break;
  }
  return furthest - first_knot;
}

TEST(KnotTable, SequentialAccessCostsOneAdvancePerKnotAtAnyTime) {
  // From t = 5200 s (knot 2.6·10⁶, beyond the first table's 4000 s, where every call cost
  // ~(k − 2·10⁶) advances) and at 24 h (knot 4.32·10⁷): two calls per new knot at most (the
  // bound allows for checkpoint bookkeeping; the table needs one).
  for (const long first : {2'600'000L, 43'200'000L}) {
    SCOPED_TRACE(first);
    Table table;
    Counting counting;
    counting.reset(table, plusOne, 0.0);
    ASSERT_EQ(table.atKnot(first), static_cast<double>(first));  // the chain is walked once
    counting.calls = 0;
    const long reached = integratorSweep(table, first, 20'000, [&](long new_knots) {
      // Fails at once (not after hours) when a call costs more than it may.
      EXPECT_LE(counting.calls, 2 * new_knots + 2);
      return counting.calls <= 2 * new_knots + 2;
    });
    EXPECT_EQ(reached, 20'000);
    EXPECT_EQ(counting.calls, reached);  // exactly one per new knot
  }
}

TEST(KnotTable, MemoryStaysBoundedOverFiveMillionKnots) {
  // The first table kept every knot (and 2·10⁶ of them at 4000 s). A fixed bound, independent of
  // the sizes the table reports: the defaults hold 2·(1024 + 512).
  constexpr std::size_t kBound = 4096;
  Table table;
  table.reset([] { return 0.0; }, plusOne);
  for (long k = 0; k <= 5'000'000; ++k) {
    ASSERT_EQ(table.atKnot(k), static_cast<double>(k));
    if (k % 65'536 == 0) {
      ASSERT_LE(table.storedKnots(), kBound) << "after knot " << k;
    }
  }
  EXPECT_LE(table.storedKnots(), kBound);
  EXPECT_LE(table.storedKnots(), table.maxStoredKnots());
  // The backward chain too.
  for (long k = 0; k >= -1'000'000; --k) ASSERT_EQ(table.atKnot(k), static_cast<double>(k));
  EXPECT_LE(table.storedKnots(), kBound);
}

TEST(KnotTable, AFarJumpBackMatchesAFreshTableAndCostsLessThanOneSpacing) {
  Table table;
  Counting counting;
  counting.reset(table, wiggle, kWiggleStart);
  const double at_5e6 = table.atKnot(5'000'000);
  const long spacing = table.checkpointSpacing();
  counting.calls = 0;
  const double back = table.atKnot(1'234'567);
  EXPECT_LT(counting.calls, spacing);

  Table fresh;
  fresh.reset([] { return kWiggleStart; }, wiggle);
  EXPECT_EQ(back, fresh.atKnot(1'234'567));  // bitwise
  // Continuing from there is sequential again: at most one call per knot.
  counting.calls = 0;
  for (long k = 1'234'568; k < 1'235'568; ++k) table.atKnot(k);
  EXPECT_LE(counting.calls, 1000);
  // A jump to 6000 s (beyond the first table's 4000 s, which recomputed 10⁶ knots there), and back
  // to the far knot: the same bits, each for less than a spacing.
  counting.calls = 0;
  EXPECT_EQ(table.atKnot(3'000'000), fresh.atKnot(3'000'000));
  EXPECT_LT(counting.calls, spacing);
  counting.calls = 0;
  EXPECT_EQ(table.atKnot(5'000'000), at_5e6);
  EXPECT_LT(counting.calls, spacing);
  // Same on the backward chain (t < 0).
  const double neg = table.atKnot(-3'000'000);
  counting.calls = 0;
  EXPECT_EQ(table.atKnot(-1'234'567), fresh.atKnot(-1'234'567));
  EXPECT_LT(counting.calls, table.checkpointSpacing(false));
  EXPECT_EQ(fresh.atKnot(-3'000'000), neg);
}

TEST(KnotTable, ResetStartsANewChain) {
  Table table(8, 4);
  table.reset([] { return 0.0; }, plusOne);
  EXPECT_EQ(table.atKnot(1000), 1000.0);
  const auto plusTwo = [](const double& x, long from, long to) {
    return x + 2.0 * static_cast<double>(to - from);
  };
  table.reset([] { return 5.0; }, plusTwo);
  EXPECT_EQ(table.atKnot(1000), 2005.0);
  EXPECT_EQ(table.atKnot(-3), -1.0);
}

}  // namespace
}  // namespace rbs
