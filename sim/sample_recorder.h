// The channels of one simulation and their samples: the layout (Simulator::channels() lists it),
// one sample's values from a state, and the recording, bounded when asked to be.
#pragma once

#include <cstddef>
#include <span>
#include <string>
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

  /// Makes room for `more` samples beyond those held (fewer with a bound), so that a run whose
  /// length is known allocates its recording once.
  void reserve(std::size_t more);

  /// Appends the sample at t of `state` with the input u applied there; `drift`: the coordinate
  /// drift before projection (< 0: measured on state.x). A state that is not finite gives a
  /// sample of NaNs. Returns the status of the forward dynamics at the sample.
  DynamicsStatus record(double t, const State& state, bool finite, const VecX& u, double drift);

 private:
  void layOutChannels();
  /// Appends PREFIX + name for each entry, described as WHAT + meaning + OF.
  void addChannels(std::span<const CoordinateInfo> entries, const std::string& prefix, const std::string& what,
                   const std::string& of);
  /// Appends joint.J.COORD for x_e then ξ_e of every joint (prefix "joint." or "reference.joint.").
  void addJointChannels(const std::string& prefix, const std::string& what);
  /// Writes position and continuous-sign quaternion of G at values_[c…c+6]; k: its sign history.
  void writePose(const Pose& G, std::size_t k, int& c);
  /// Writes the world velocity and angular velocity of every body in `ws` from c on.
  void writeVelocities(const Workspace& ws, int& c);
  /// Writes x then ξ of every joint from c on.
  void writeJoints(const VecX& x, const VecX& xi, int& c);
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
  int ch_velocity_ = 0;  ///< body.B.vx … wz for every body, then joint.J.* (x_e, then ξ_e) for every joint
  int ch_reference_ = -1;  ///< reference.body.B.px … qz, then .vx … wz for every body, then reference.joint.J.*
  int ch_source_ = -1;  ///< first channel of the input source
  Workspace ws_;
  Workspace ws_reference_;  ///< kinematics of the reference state (when the source tracks one)
  /// Per body, then per named frame, then per body for the reference: for a continuous quaternion sign.
  std::vector<Vec4> last_quaternion_;
  std::vector<double> values_;
  VecX u_source_;  ///< scratch for the source's evaluation at a sample under a hold
};

}  // namespace rbs
