#include "ui/channel_groups.h"

#include <map>
#include <string_view>

namespace rbs::ui {
namespace {

bool startsWith(std::string_view s, std::string_view prefix) { return s.substr(0, prefix.size()) == prefix; }

}  // namespace

std::vector<ChannelGroup> groupChannels(const ChannelSet& channels, const Model& model) {
  // The name prefixes that belong to body b: its own, its joint's, its merged links', and the
  // reference's of each (sim/sample_recorder.cpp names them).
  std::vector<ChannelGroup> bodies(model.bodies.size());
  std::vector<std::pair<std::string, int>> prefixes;  // prefix → body
  for (std::size_t b = 0; b < model.bodies.size(); ++b) {
    const std::string& name = model.bodies[b].name;
    bodies[b].title = "Body " + name;
    prefixes.push_back({"body." + name + ".", static_cast<int>(b)});
    prefixes.push_back({"reference.body." + name + ".", static_cast<int>(b)});
  }
  for (const Joint& j : model.joints) {
    if (j.child < 0 || j.child >= static_cast<int>(bodies.size())) continue;
    if (j.type != JointType::Fixed)
      bodies[j.child].title += ": joint " + j.name + " (" + std::string(jointTypeName(j.type)) + ")";
    prefixes.push_back({"joint." + j.name + ".", j.child});
    prefixes.push_back({"reference.joint." + j.name + ".", j.child});
  }
  for (const NamedFrame& f : model.frames) prefixes.push_back({"frame." + f.name + ".", f.frame.body});

  // The other groups by name prefix, in display order; what matches none goes by its first part.
  static const std::vector<std::pair<std::string_view, std::vector<std::string_view>>> kKinds = {
      {"Inputs", {"u.", "saturation."}},
      {"Tracking errors", {"error."}},
      {"Energies and powers", {"energy.", "power."}},
      {"Controller", {"control."}},
      {"Pushes", {"perturbation."}},
      {"Constraints", {"constraint."}},
  };
  std::vector<ChannelGroup> kinds(kKinds.size());
  for (std::size_t k = 0; k < kKinds.size(); ++k) kinds[k].title = kKinds[k].first;
  std::map<std::string, ChannelGroup> rest;  // by first name part

  for (int c = 0; c < channels.size(); ++c) {
    const std::string& name = channels[c].name;
    int body = -1;
    std::size_t best = 0;  // the longest prefix wins (a body named "a.b" against one named "a")
    for (const auto& [prefix, b] : prefixes)
      if (prefix.size() > best && startsWith(name, prefix)) {
        best = prefix.size();
        body = b;
      }
    if (body >= 0) {
      bodies[body].channels.push_back(c);
      continue;
    }
    bool placed = false;
    for (std::size_t k = 0; k < kKinds.size() && !placed; ++k)
      for (std::string_view prefix : kKinds[k].second)
        if (startsWith(name, prefix)) {
          kinds[k].channels.push_back(c);
          placed = true;
          break;
        }
    if (placed) continue;
    const std::string first = name.substr(0, name.find('.'));
    ChannelGroup& g = rest[first];
    g.title = first;
    g.channels.push_back(c);
  }

  std::vector<ChannelGroup> out;
  for (auto* list : {&bodies, &kinds})
    for (ChannelGroup& g : *list)
      if (!g.channels.empty()) out.push_back(std::move(g));
  for (auto& [first, g] : rest) out.push_back(std::move(g));
  return out;
}

}  // namespace rbs::ui
