// The channel list, grouped for people: one group per body (its pose and velocity, the joint that
// moves it in the joint's own coordinates, merged links on it, and the reference of each), then
// inputs, tracking errors, energies and powers, controller signals, pushes, constraints, and the
// rest by their first name part. The plot panel's channel picker shows it.
#pragma once

#include <string>
#include <vector>

#include "core/model/model.h"
#include "sim/channels.h"

namespace rbs::ui {

struct ChannelGroup {
  std::string title;          ///< "Body base: joint flight (free)", "Inputs", …
  std::vector<int> channels;  ///< indices into the channel set, in its order
};

/// Every channel of `channels` in exactly one group; groups in the order above, empty ones left out.
std::vector<ChannelGroup> groupChannels(const ChannelSet& channels, const Model& model);

}  // namespace rbs::ui
