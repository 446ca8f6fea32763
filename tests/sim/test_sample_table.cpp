// SampleTable: the flat row store of every recording.
#include "sim/sample_table.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <vector>

namespace rbs {
namespace {

std::vector<double> row(const SampleTable& t, std::size_t k) { return {t[k].begin(), t[k].end()}; }

TEST(SampleTable, RowsKeepTheirValuesInOrderAcrossGrowth) {
  SampleTable t;
  for (int k = 0; k < 1000; ++k) t.push_back(std::vector<double>{double(k), -double(k), 0.5 * k});
  ASSERT_EQ(t.size(), 1000u);
  EXPECT_EQ(t.width(), 3u);
  for (std::size_t k = 0; k < t.size(); ++k) EXPECT_EQ(row(t, k), (std::vector<double>{double(k), -double(k), 0.5 * k}));
  EXPECT_EQ(t.back()[2], 499.5);
  EXPECT_EQ(t.front()[1], -0.0);
  std::size_t n = 0;
  for (std::span<const double> r : t) EXPECT_EQ(r[0], double(n++));
  EXPECT_EQ(n, 1000u);
  EXPECT_EQ(t.end() - t.begin(), 1000);
}

TEST(SampleTable, ARowOfAnotherWidthIsRefusedWithBothCounts) {
  SampleTable t{{1.0, 2.0}};
  try {
    t.push_back(std::vector<double>{1.0, 2.0, 3.0});
    FAIL() << "a 3-value row went into a 2-channel table";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("3 values"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("2 channels"), std::string::npos) << e.what();
  }
  EXPECT_EQ(t.size(), 1u);
  t.clear();  // an empty table takes any width again
  t.push_back(std::vector<double>{4.0, 5.0, 6.0});
  EXPECT_EQ(t.width(), 3u);
  EXPECT_EQ(row(t, 0), (std::vector<double>{4.0, 5.0, 6.0}));
}

TEST(SampleTable, DroppingTheOldestKeepsTheNewestRowsAndAppendCopiesRows) {
  SampleTable t;
  for (int k = 0; k < 10; ++k) t.push_back(std::vector<double>{double(k), double(k * k)});
  t.dropOldest(4);
  ASSERT_EQ(t.size(), 6u);
  EXPECT_EQ(row(t, 0), (std::vector<double>{4.0, 16.0}));
  EXPECT_EQ(row(t, 5), (std::vector<double>{9.0, 81.0}));
  SampleTable u;
  u.append(t);
  u.append(t);
  ASSERT_EQ(u.size(), 12u);
  EXPECT_EQ(row(u, 6), row(t, 0));
  t.dropOldest(6);
  EXPECT_TRUE(t.empty());
}

TEST(SampleTable, AppendingToItselfDoublesAndRowsWithoutChannelsAreCounted) {
  SampleTable t{{1.0, 2.0}, {3.0, 4.0}};
  t.append(t);
  ASSERT_EQ(t.size(), 4u);
  EXPECT_EQ(row(t, 3), (std::vector<double>{3.0, 4.0}));
  t.dropOldest(10);  // more than it holds: empty
  EXPECT_TRUE(t.empty());

  SampleTable none;
  for (int k = 0; k < 3; ++k) none.push_back(std::vector<double>{});
  EXPECT_EQ(none.size(), 3u);
  EXPECT_EQ(none.width(), 0u);
  none.dropOldest(2);
  EXPECT_EQ(none.size(), 1u);
  EXPECT_THROW(none.push_back(std::vector<double>{1.0}), std::invalid_argument);
}

TEST(SampleTable, EqualityComparesEveryValue) {
  const SampleTable a{{1.0, 2.0}, {3.0, 4.0}};
  SampleTable b{{1.0, 2.0}, {3.0, 4.0}};
  EXPECT_EQ(a, b);
  b[1][1] = 4.5;
  EXPECT_FALSE(a == b);
  EXPECT_FALSE(a == (SampleTable{{1.0, 2.0}}));
  EXPECT_FALSE(a == (SampleTable{{1.0, 2.0, 3.0, 4.0}}));  // same values, other shape
  EXPECT_EQ(SampleTable{}, SampleTable{});
  const SampleTable nan{{std::nan("")}};
  EXPECT_FALSE(nan == nan);  // as for vectors of doubles
}

}  // namespace
}  // namespace rbs
