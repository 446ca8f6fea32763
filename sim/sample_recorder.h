// The channels of one simulation and their samples: the layout (Simulator::channels() lists it),
// one sample's values from a state, and the recording, bounded when asked to be.
#pragma once

#include <cstddef>
#include <vector>

#include "core/dynamics/dynamics.h"
#include "sim/channels.h"
#include "sim/input_source.h"
#include "sim/push_forces.h"

namespace rbs {

class SampleRecorder {
 public:
  /// `source` (may be null) adds its channels after the model's. Under a zero-order hold
  /// (`source_held`) the source last ran at the hold instant; it is evaluated again at every sample
  /// (InputSource::evaluateForSample) so that its channels describe the sample's state.
  /// `max_samples` > 0 bounds the recording (SimulationOptions::max_recorded_samples).
  /// `pushes` (may be null) are applied at every sample as in the right-hand side and reported as
  /// power.perturbation and perturbation.force.* / perturbation.torque.*.
  SampleRecorder(const Model& model, InputSource* source, bool source_held, std::size_t max_samples,
                 PushForces* pushes = nullptr);

  const ChannelSet& channels() const { return recording_.channels; }
  const Recording& recording() const { return recording_; }

  /// Forgets every sample and the quaternion sign history (a new run).
  void clear();

  /// Appends the sample at t of `state` with the input u applied there; `drift`: the coordinate
  /// drift before projection (< 0: measured on state.x). A state that is not finite gives a
  /// sample of NaNs. Returns the status of the forward dynamics at the sample.
  DynamicsStatus record(double t, const State& state, bool finite, const VecX& u, double drift);

 private:
  void layOutChannels();
  /// Appends to the recording; when it exceeds max_samples_, drops the oldest quarter at once
  /// (so that erasing at the front costs O(1) per sample on average) and counts them.
  void append(double t);

  const Model& model_;
  InputSource* source_;
  bool source_held_;
  PushForces* pushes_;
  std::size_t max_samples_;
  Recording recording_;
  // Channel indices.
  int ch_energy_ = 0;   ///< first of kinetic, potential, total, power.input, power.dissipation, drift
  int ch_inputs_ = -1;  ///< first u.*
  int ch_closure_ = -1;
  int ch_push_ = 0;     ///< power.perturbation, then perturbation.force.x/y/z, perturbation.torque.x/y/z
  int ch_source_ = -1;  ///< first channel of the input source
  Workspace ws_;
  std::vector<Vec4> last_quaternion_;  ///< per body, then per named frame: for a continuous quaternion sign
  std::vector<double> values_;
  VecX u_source_;  ///< scratch for the source's evaluation at a sample under a hold
};

}  // namespace rbs
