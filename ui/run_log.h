// The run as the GUI received it from the worker: what the plots and the Inspect panel read.
#pragma once

#include <cstddef>
#include <vector>

#include "sim/channels.h"

namespace rbs::ui {

/// The whole run as the GUI received it (the worker's samples, in order).
struct RunLog {
  ChannelSet channels;
  std::vector<double> time;
  SampleTable values;
  std::size_t dropped = 0;  ///< oldest samples dropped to bound memory (MainWindow's capacity)
  void clear() {
    time.clear();
    values.clear();
    dropped = 0;
  }
  /// Drops the n oldest samples (n ≤ size).
  void dropOldest(std::size_t n) {
    time.erase(time.begin(), time.begin() + static_cast<std::ptrdiff_t>(n));
    values.dropOldest(n);
    dropped += n;
  }
};

}  // namespace rbs::ui
