#include "render/frame_snapshot.h"

namespace rbs::render {

FrameSnapshot::FrameSnapshot(const Model& model, std::unique_ptr<Reference> reference)
    : model_(model), reference_(std::move(reference)), ws_(model) {}

const Snapshot& FrameSnapshot::make(double t, const State& state, const VecX& u) {
  fillBodyPoses(model_, state.x, t, ws_, snapshot_);
  snapshot_.reference_poses.clear();
  if (reference_) {
    reference_->sample(t, reference_sample_);
    fillReferencePoses(model_, reference_sample_.x, ws_, snapshot_);
  }
  fillActuatorForces(model_, state.xi, u, snapshot_);
  return snapshot_;
}

}  // namespace rbs::render
