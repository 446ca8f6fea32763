// Measured errors go into the test report (ctest/gtest XML or JSON output) as properties, so a
// closing note can quote the numbers a run actually produced.
#pragma once

#include <gtest/gtest.h>

#include <sstream>
#include <string>

namespace rbs::test {

/// Records `value` under `name` in scientific notation (std::to_string would print 0.000000).
inline void recordError(const std::string& name, double value) {
  std::ostringstream os;
  os.precision(3);
  os << std::scientific << value;
  ::testing::Test::RecordProperty(name, os.str());
}

}  // namespace rbs::test
