#include "core/control/reference_settings_reader.h"

#include <sstream>

namespace rbs {

std::string joinNames(const std::vector<std::string>& names) {
  std::string out;
  for (const auto& n : names) out += (out.empty() ? "" : ", ") + n;
  return out;
}

std::string formatNumber(double v) {
  std::ostringstream s;
  s << v;
  return s.str();
}

}  // namespace rbs
