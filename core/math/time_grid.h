// Time grids: step counts between absolute times that do not depend on how late in a run they are.
//
// Grid times are computed as t0 + k·h (one multiplication and one addition, never an accumulated
// sum), so each carries at most an ulp or so of rounding. That ulp grows with |t|: 1.5e-11 s at
// 24 h, 1.8e-12 s already at 2.3 h. A span of one nominal step h between two such times can then
// exceed h by more than a slack of 1e-9·h, and a plain ⌈span/h − 1e-9⌉ counts two steps instead
// of one. These helpers allow for that rounding, so a step count (and the cost of a simulated
// second) is the same at t = 1 s and at t = 24 h.
#pragma once

#include <algorithm>
#include <cmath>
#include <limits>

namespace rbs {

/// The rounding two grid times near t may carry between them [s]: two ulps of |t|.
inline double gridRounding(double t) {
  return 4.0 * std::numeric_limits<double>::epsilon() * std::abs(t);
}

/// ⌈(t1 − t0)/max_step⌉ for the span between the grid times t0 and t1 [s], with
/// (|t1 − t0| − rounding)/max_step − 1e-9 in the ceiling: a span that exceeds n steps only by the
/// rounding of its ends is n steps. ≤ 0 for an empty span; callers take at least one step.
/// Returned as a double so that a caller can reject absurd counts (a mistyped max_step) before
/// converting.
inline double stepCount(double t0, double t1, double max_step) {
  const double rounding = gridRounding(std::max(std::abs(t0), std::abs(t1)));
  return std::ceil((std::abs(t1 - t0) - rounding) / max_step - 1e-9);
}

}  // namespace rbs
