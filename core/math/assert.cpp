#include "core/math/assert.h"

#include <string>

namespace rbs::detail {

void failAssertion(const char* function, const char* condition, const char* message) {
  throw ContractViolation(std::string(function) + ": " + message + " (" + condition + " does not hold)");
}

void failSizeCheck(const char* function, const char* argument, std::int64_t size, std::int64_t expected) {
  throw ContractViolation(std::string(function) + ": " + argument + " has " + std::to_string(size) +
                          " entries, the model expects " + std::to_string(expected));
}

}  // namespace rbs::detail
