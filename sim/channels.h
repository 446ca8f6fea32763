// Channels: named scalar signals with units, produced by the model, the controller and the
// integrator. The UI plots them and the CSV writer writes them without special cases.
#pragma once

#include <cstddef>
#include <iosfwd>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "sim/sample_table.h"

namespace rbs {

struct ChannelInfo {
  std::string name;         ///< dotted, e.g. "energy.kinetic", "body.base.px", "u.rotor1"
  std::string unit;         ///< SI, e.g. "J", "m", "rad", "W", "1" for dimensionless
  std::string description;  ///< one line for tooltips and --help
};

/// The ordered list of channels of one simulation.
class ChannelSet {
 public:
  /// Appends a channel and returns its index. Names are unique (a duplicate throws
  /// std::invalid_argument).
  int add(std::string name, std::string unit, std::string description);
  int size() const { return static_cast<int>(channels_.size()); }
  const ChannelInfo& operator[](int i) const { return channels_[i]; }
  /// Index of a channel, −1 if there is none.
  int find(std::string_view name) const;

 private:
  std::vector<ChannelInfo> channels_;
};

/// Samples of all channels at the output times.
struct Recording {
  ChannelSet channels;
  std::vector<double> time;                 ///< [s]
  SampleTable values;                       ///< values[k][i]: sample k, channel i
  std::size_t dropped = 0;                  ///< oldest samples dropped (max_recorded_samples)
};

/// CSV with a header row: "t", then the channel names in order; one row per sample; numbers with
/// 17 significant digits (round-trip exact).
void writeCsv(std::ostream& out, const Recording& recording);
/// The same CSV written as the samples come (a long run need not keep them): the header row, then
/// one row per sample.
void writeCsvHeader(std::ostream& out, const ChannelSet& channels);
void writeCsvRow(std::ostream& out, double t, std::span<const double> values);

}  // namespace rbs
