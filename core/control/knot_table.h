// Knot table: a quantity that is integrated or unwrapped along time (the integrated heading
// (5.70), the continuous angles / quaternion signs of a reference's base), made available at any
// time t with bounded memory and a value that depends on t alone. Internal to core/control
// (used by core/control/reference.cpp).
#pragma once

#include <cmath>
#include <cstddef>
#include <functional>
#include <iterator>
#include <map>
#include <mutex>
#include <stdexcept>
#include <utility>
#include <vector>

namespace rbs {

/// States at the knots t_k = k·h (k ∈ ℤ, h = kStep), computed on demand.
///
/// **Knots.** knot_0 = init(); for k ≥ 0, knot_{k+1} = advance(knot_k, k, k + 1) (the forward
/// chain); for k ≤ 0, knot_{k−1} = advance(knot_k, k, k − 1) (the backward chain, for t < 0).
/// A caller samples at t by taking knot_{⌊t/h⌋} and integrating from t_k to t itself.
///
/// **Determinism.** Every knot the table holds is a value of that one chain, and any knot it does
/// not hold is recomputed along the chain from a held knot below it (in |k|). So at(t) returns
/// the same bits whatever was asked before, in whatever order and from whichever thread —
/// provided `advance` is a pure function of its arguments.
///
/// **Memory** is bounded independent of t: per direction (forward, backward)
///  - a dense window of the `window` consecutive knots last computed (an integrator's stages step
///    back a little; a run restarted nearby finds its knots there), and
///  - at most `max_checkpoints` sparse checkpoints at the multiples of a spacing s (knot 0 is
///    always one). s starts at `window` and doubles when the set is full (every other checkpoint
///    is dropped), so the checkpoints keep covering [0, furthest knot reached] evenly.
/// storedKnots() ≤ maxStoredKnots() = 2 (window + max_checkpoints), of sizeof(State) each (the
/// integrated heading's: 96 bytes, at most 295 kB with the defaults).
///
/// **Cost** in advance() calls (plus O(1) bookkeeping per call; a full checkpoint set is thinned
/// in O(max_checkpoints) after every max_checkpoints/2 new checkpoints):
///  - a knot in the window: none;
///  - monotone forward access (with steps back inside the window): one per new knot, at any t;
///  - a knot behind the window (a jump back, a restarted run): fewer than s, the walk from the
///    nearest checkpoint below it; the window then holds that neighbourhood. Access alternating
///    between two far-apart times pays this per call. s ≤ 2 · furthest knot / (max_checkpoints
///    − 1): 131 072 knots (262 s) at 24 h of sampled time with the defaults;
///  - a knot beyond the furthest one reached: its distance from there (the chain is walked once).
///
/// Thread-safe: one mutex; advance() runs under it (a nested table's at() takes that table's own
/// mutex, so tables may call each other as long as there is no cycle).
template <class State>
class KnotTable {
 public:
  static constexpr double kStep = 0.002;  ///< [s] h: one RK4 step of the heading between knots
  static constexpr long kDefaultWindow = 1024;                ///< knots (≈ 2 s of sampled time)
  static constexpr std::size_t kDefaultMaxCheckpoints = 512;  ///< per direction

  /// The state at knot `to` = from ± 1 from the state at knot `from`.
  using Advance = std::function<State(const State& state, long from, long to)>;

  /// `window` ≥ 1 and `max_checkpoints` ≥ 2: the memory bound above (tests use small ones to
  /// exercise thinning).
  explicit KnotTable(long window = kDefaultWindow,
                     std::size_t max_checkpoints = kDefaultMaxCheckpoints)
      : window_(window), max_checkpoints_(max_checkpoints) {
    if (window < 1 || max_checkpoints < 2)
      throw std::invalid_argument("KnotTable: window must be >= 1 and max_checkpoints >= 2");
  }

  /// Sets the chain (knot 0 and the step) and forgets every stored knot; init() is called lazily.
  void reset(std::function<State()> init, Advance advance) {
    std::lock_guard<std::mutex> lock(mutex_);
    init_ = std::move(init);
    advance_ = std::move(advance);
    forward_ = Side{};
    backward_ = Side{};
    started_ = false;
  }

  /// The state at knot ⌊t/h⌋; `knot` receives that index.
  State at(double t, long& knot) const {
    knot = static_cast<long>(std::floor(t / kStep));
    return atKnot(knot);
  }

  /// The state at knot k.
  State atKnot(long k) const {
    std::lock_guard<std::mutex> lock(mutex_);
    if (!started_) start();
    Side& side = k >= 0 ? forward_ : backward_;
    const long dir = k >= 0 ? 1 : -1;
    const long m = dir * k;  // distance from knot 0 along this side's chain
    if (side.lo <= m && m <= side.hi) return windowKnot(side, m);

    // Walk from the nearest held knot below m: the end of the window if it lies between the
    // nearest checkpoint and m (sequential access), else that checkpoint (a jump), which then
    // starts a new window.
    const auto checkpoint = std::prev(side.checkpoints.upper_bound(m));  // knot 0 is always there
    long from = checkpoint->first;
    State s = checkpoint->second;
    if (side.hi >= from && side.hi < m) {
      from = side.hi;
      s = windowKnot(side, from);
    } else {
      side.lo = side.hi = from;
      side.head = 0;
      side.ring[0] = s;
    }
    long next_checkpoint = (from / side.spacing + 1) * side.spacing;
    for (long i = from + 1; i <= m; ++i) {
      s = advance_(s, dir * (i - 1), dir * i);
      append(side, s);
      if (i == next_checkpoint) {
        addCheckpoint(side, i, s);
        next_checkpoint = (i / side.spacing + 1) * side.spacing;  // the spacing may have doubled
      }
    }
    return s;
  }

  /// Knots held now (window entries and checkpoints of both directions).
  std::size_t storedKnots() const {
    std::lock_guard<std::mutex> lock(mutex_);
    return started_ ? held(forward_) + held(backward_) : 0;
  }
  /// The bound storedKnots() never exceeds.
  std::size_t maxStoredKnots() const {
    return 2 * (static_cast<std::size_t>(window_) + max_checkpoints_);
  }
  /// The current checkpoint spacing s of the forward (k ≥ 0) or backward chain [knots]: a knot
  /// outside the window costs fewer than s advance() calls.
  long checkpointSpacing(bool forward = true) const {
    std::lock_guard<std::mutex> lock(mutex_);
    return started_ ? (forward ? forward_ : backward_).spacing : window_;
  }

 private:
  /// One direction's chain: knot m of the side is knot ±m of the table.
  struct Side {
    std::vector<State> ring;  ///< the window: knots lo…hi, knot hi at ring[head] (a ring buffer)
    long lo = 0, hi = 0;
    long head = 0;
    std::map<long, State> checkpoints;  ///< the multiples of `spacing` reached (0 included)
    long spacing = 1;
  };

  /// Knot m of the window (lo ≤ m ≤ hi).
  const State& windowKnot(const Side& side, long m) const {
    long i = side.head - (side.hi - m);
    if (i < 0) i += window_;
    return side.ring[static_cast<std::size_t>(i)];
  }

  std::size_t held(const Side& side) const {
    return side.checkpoints.size() + static_cast<std::size_t>(side.hi - side.lo + 1);
  }

  void start() const {
    const State s0 = init_();
    for (Side* side : {&forward_, &backward_}) {
      side->ring.assign(static_cast<std::size_t>(window_), s0);
      side->lo = side->hi = side->head = 0;
      side->checkpoints = {{0, s0}};
      side->spacing = window_;
    }
    started_ = true;
  }

  /// Knot hi + 1 has just been computed: it ends the window, which drops its oldest knot when full.
  void append(Side& side, const State& s) const {
    if (++side.head == window_) side.head = 0;
    side.ring[static_cast<std::size_t>(side.head)] = s;
    ++side.hi;
    if (side.hi - side.lo >= window_) ++side.lo;
  }

  /// Knot m, a multiple of the spacing, is kept. When the set is full, the spacing doubles and the
  /// checkpoints off the new grid go: the set thins evenly and knot 0 stays.
  void addCheckpoint(Side& side, long m, const State& s) const {
    side.checkpoints.try_emplace(m, s);  // a re-walk passes existing checkpoints: no node built
    while (side.checkpoints.size() > max_checkpoints_) {
      side.spacing *= 2;
      std::erase_if(side.checkpoints,
                    [&side](const auto& c) { return c.first % side.spacing != 0; });
    }
  }

  const long window_;
  const std::size_t max_checkpoints_;
  std::function<State()> init_;
  Advance advance_;
  mutable std::mutex mutex_;
  mutable bool started_ = false;
  mutable Side forward_, backward_;  // knots 0, 1, 2, … and 0, −1, −2, …
};

}  // namespace rbs
