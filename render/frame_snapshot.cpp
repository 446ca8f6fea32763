#include "render/frame_snapshot.h"

#include <exception>

namespace rbs::render {

FrameSnapshot::FrameSnapshot(const Model& model, std::unique_ptr<Reference> reference)
    : model_(model), reference_(std::move(reference)), ws_(model) {}

const Snapshot& FrameSnapshot::make(double t, const State& state, const VecX& u,
                                    const std::vector<AppliedWrench>* pushes) {
  fillBodyPoses(model_, state.x, t, ws_, snapshot_);
  snapshot_.reference_poses.clear();
  if (reference_) {
    // The ghost is a preview: a reference that cannot be evaluated here (a task-space path that
    // leaves the robot's reach past the checked stretch) draws none; the closed loop reports it.
    try {
      reference_->sample(t, reference_sample_);
      fillReferencePoses(model_, reference_sample_.x, ws_, snapshot_);
    } catch (const std::exception&) {
      snapshot_.reference_poses.clear();
    }
  }
  fillActuatorForces(model_, state.xi, u, snapshot_);
  snapshot_.pushes.clear();
  if (pushes)
    for (const AppliedWrench& w : *pushes) {
      if (w.force.isZero()) continue;  // a pure torque has no arrow
      const Pose& G = snapshot_.body_poses[w.body];
      snapshot_.pushes.push_back(AppliedForce{-1, G.R * w.point + G.r, w.force});
    }
  return snapshot_;
}

}  // namespace rbs::render
