// The one matrix comparison of the test suite: max-abs difference against a tolerance, printing
// both sides and the difference on failure.
#pragma once

#include <gtest/gtest.h>

#include <Eigen/Core>
#include <sstream>

namespace rbs::test {

template <class A, class B>
::testing::AssertionResult matricesNear(const char* a_expr, const char* b_expr, const char*,
                                        const Eigen::MatrixBase<A>& a, const Eigen::MatrixBase<B>& b,
                                        double tol) {
  if (a.rows() != b.rows() || a.cols() != b.cols())
    return ::testing::AssertionFailure() << a_expr << " is " << a.rows() << "×" << a.cols() << ", "
                                         << b_expr << " is " << b.rows() << "×" << b.cols();
  const double err = (a.template cast<double>() - b.template cast<double>()).cwiseAbs().maxCoeff();
  if (err <= tol && std::isfinite(err)) return ::testing::AssertionSuccess();
  Eigen::IOFormat fmt(Eigen::StreamPrecision, 0, ", ", "\n", "  [", "]");
  std::ostringstream os;
  os << "max |" << a_expr << " − " << b_expr << "| = " << err << " > " << tol << "\n"
     << a_expr << " =\n" << a.format(fmt) << "\n" << b_expr << " =\n" << b.format(fmt) << "\ndifference =\n"
     << (a.template cast<double>() - b.template cast<double>()).format(fmt);
  return ::testing::AssertionFailure() << os.str();
}

}  // namespace rbs::test

#define EXPECT_MATRIX_NEAR(a, b, tol) EXPECT_PRED_FORMAT3(::rbs::test::matricesNear, a, b, tol)
#define ASSERT_MATRIX_NEAR(a, b, tol) ASSERT_PRED_FORMAT3(::rbs::test::matricesNear, a, b, tol)
