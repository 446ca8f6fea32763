// The Snapshot of one instant of a run, as every frame of the 3D view shows it: body poses from
// the state, the reference ghost from the reference (when there is one) and the actuator forces
// from the inputs, the push arrows from the pushes. Core types only (no sim/, no OSG): the CLI's video, the GUI's worker thread and
// the GUI's video export fill their snapshots here, so all three draw the same thing.
#pragma once

#include <memory>

#include "core/control/reference.h"
#include "core/dynamics/dynamics.h"
#include "core/dynamics/snapshot.h"
#include "core/dynamics/workspace.h"
#include "core/model/model.h"
#include "core/model/snapshot.h"

namespace rbs::render {

class FrameSnapshot {
 public:
  /// `model` must outlive this object; `reference` (may be null: no ghost) is owned.
  FrameSnapshot(const Model& model, std::unique_ptr<Reference> reference);

  /// The snapshot at time t [s], state `state`, inputs `u` (size model.numInputs(); the values
  /// the simulation applied) and the pushes acting there (null: none; the simulator's
  /// Simulator::pushWrenches()). Valid until the next call.
  const Snapshot& make(double t, const State& state, const VecX& u, const std::vector<AppliedWrench>* pushes = nullptr);

 private:
  const Model& model_;
  std::unique_ptr<Reference> reference_;
  Workspace ws_;
  ReferenceSample reference_sample_;
  Snapshot snapshot_;
};

}  // namespace rbs::render
