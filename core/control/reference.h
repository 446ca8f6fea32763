// Reference motions x_R(t), ξ_R(t), ξ̇_R(t) in the model's own coordinates (konz-control §2):
// whatever the joint types (rotation matrix, quaternion, unit circle, Euler angles), the sample is
// consistent — x_R lies on the coordinate manifold, ξ_R = A⁺(x_R) ẋ_R, ξ̇_R its derivative.
//
// Generators (scene `reference.generator`, parameters in docs/SCENE_FORMAT.md):
//   constant, polynomial (rest-to-rest, degree 5/7/9), sinusoid, circle, waypoints,
//   constant_twist, half_circle, … and, for flying vehicles, the flatness-based attitude from the
//   position (and yaw) path (thesis 4.8.2–4.8.4, chapter 5).
// A generator drives the model's *base* (the first root joint with a free, planar or spherical
// type) and/or its scalar joints (revolute, prismatic, unit circle) in index order; every joint
// it does not drive is held at its initial coordinates with zero velocity.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "core/control/parameters.h"
#include "core/control/settings.h"
#include "core/model/model.h"

namespace rbs {

struct ReferenceSample {
  VecX x;      ///< x_R (size ν)
  VecX xi;     ///< ξ_R (size n)
  VecX xidot;  ///< ξ̇_R (size n)
};

class Reference {
 public:
  virtual ~Reference() = default;
  /// Fills the sample at time t [s]. Resizes `out` on first use only; no allocation afterwards.
  virtual void sample(double t, ReferenceSample& out) const = 0;
};

/// A reference that waited for the vehicle and rejoins its manoeuvre (docs/CONTROL.md "Recovery"):
/// the generator's paths run on the manoeuvre time τ(t) of traj::ManoeuvreClock(t_start,
/// tau_start, ramp) — at rest at the manoeuvre's pose of tau_start until t_start (a flat attitude is
/// then upright), then speeding up to the manoeuvre's own pace. What is integrated or unwrapped
/// along time starts at t_start: an integrated heading (5.70) from the ZYX heading `yaw`, the base
/// coordinates (angles, quaternion signs) aligned with `base_coordinates` (the base joint's x_R at
/// t_start of the reference before; empty: as they come).
struct ReferenceRetiming {
  double t_start = 0.0;   ///< [s] the clock starts
  double tau_start = 0.0; ///< [s] the manoeuvre time it starts from
  double ramp = 1.0;      ///< [s] > 0: its run-up to the manoeuvre's pace
  double yaw = 0.0;       ///< [rad] heading of an integrated flat heading at t_start
  VecX base_coordinates;  ///< the base joint's coordinates to continue from, or empty
};

/// Makes the generator a scene asks for. An empty generator name holds `model.initial_state`
/// (x_R = x(0), ξ_R = 0). Throws ControlError naming the generator and the parameter for unknown
/// names, missing or surplus parameters, wrong list lengths, or a model the generator cannot
/// drive (e.g. a flatness attitude without a free or planar base). With `retiming`, the same
/// reference in manoeuvre time (ReferenceRetiming); the tool_path generator cannot be retimed
/// (ControlError).
std::unique_ptr<Reference> makeReference(const Model& model, const ReferenceSettings& settings,
                                         const ReferenceRetiming* retiming = nullptr);

/// The generator names makeReference accepts (for help texts and the GUI).
std::vector<std::string> referenceGeneratorNames();

}  // namespace rbs
