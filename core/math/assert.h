// Entry checks on the arguments of the core's public functions, in the spirit of Pinocchio's
// PINOCCHIO_CHECK_ARGUMENT_SIZE: a state vector of the wrong size is the caller's bug, and it is
// reported at the call with the function, the argument and both sizes, instead of surfacing as an
// out-of-bounds read deep inside a pass (Eigen's own asserts are off with NDEBUG).
//
// The checks are compiled in when RBS_ASSERTS is 1: by default in Debug and RelWithDebInfo builds
// (the test build), not in Release, so that benchmarks and the shipped binaries run the code they
// would run without them (CMake option RBS_ASSERTS). A failed check throws rbs::ContractViolation.
#pragma once

#include <cstdint>
#include <stdexcept>

namespace rbs {

/// A violated precondition of a core function: a programming error, never an input-file error.
class ContractViolation : public std::logic_error {
 public:
  using std::logic_error::logic_error;
};

namespace detail {
[[noreturn]] void failAssertion(const char* function, const char* condition, const char* message);
[[noreturn]] void failSizeCheck(const char* function, const char* argument, std::int64_t size,
                                std::int64_t expected);
}  // namespace detail

}  // namespace rbs

#ifndef RBS_ASSERTS
#define RBS_ASSERTS 0
#endif

#if RBS_ASSERTS
/// RBS_ASSERT(condition, "what must hold"): throws ContractViolation naming the function.
#define RBS_ASSERT(condition, message) \
  do {                                 \
    if (!(condition)) ::rbs::detail::failAssertion(__func__, #condition, message); \
  } while (false)
/// RBS_ASSERT_SIZE(argument, expected): argument.size() == expected.
#define RBS_ASSERT_SIZE(argument, expected)                                                        \
  do {                                                                                             \
    if ((argument).size() != (expected))                                                           \
      ::rbs::detail::failSizeCheck(__func__, #argument, static_cast<std::int64_t>((argument).size()), \
                                   static_cast<std::int64_t>(expected));                           \
  } while (false)
#else
#define RBS_ASSERT(condition, message) \
  do {                                 \
  } while (false)
#define RBS_ASSERT_SIZE(argument, expected) \
  do {                                      \
  } while (false)
#endif
