// The tracking-error signals every controller reports (konz-control §12.4), so plots and CSV
// compare controllers on the same measures:
//   error.position  ‖r − r_R‖ of the tracked body's frame origin (world) [m]          (5.73a)
//   error.attitude  rotation angle of R_E = R_Rᵀ R, in [0, π] (robust atan2 form) [rad]
//   error.heading   |atan2(R_E,yx − R_E,xy, R_E,xx + R_E,yy)| ≤ error.attitude [rad]    (5.73c)
//   error.velocity  ‖ṙ − ṙ_R‖ of the tracked body's frame origin (world) [m/s]
//   error.joints    ‖q − q_R‖ over the scalar joints, angles wrapped to (−π, π] [rad or m]
//                   (only when the model has scalar joints)
//   error.swing.J   per spherical joint J other than the base whose child's centre of mass is
//                   off the joint centre (a hanging load, a pendulum): the angle between the
//                   actual and the reference direction joint centre → CoM (world) [rad]
#pragma once

#include <string>
#include <vector>

#include "core/control/controller.h"
#include "core/dynamics/workspace.h"

namespace rbs {

class TrackingErrors {
 public:
  /// `tracked_body`: a body name, or empty for the default — the child of the base joint (the
  /// first root joint with a free, planar or spherical type), else the last body (the tool of a
  /// chain). Throws ControlError for an unknown name.
  TrackingErrors(const Model& model, const std::string& tracked_body = {});

  const std::vector<SignalInfo>& signals() const { return signals_; }
  int trackedBody() const { return body_; }

  /// Writes signals().size() values. `ws` and `ws_ref` hold the kinematics (computeKinematics) of
  /// the actual and the reference state; x, x_R the configurations.
  void evaluate(const Workspace& ws, const Workspace& ws_ref, const VecX& x, const VecX& x_ref,
                double* out) const;

 private:
  const Model& model_;
  int body_ = -1;
  std::vector<int> scalar_joints_;
  struct Swing {
    int body = -1;            ///< the joint's child
    Vec3 arm = Vec3::Zero();  ///< joint centre → CoM in the child body frame
  };
  std::vector<Swing> swings_;
  std::vector<SignalInfo> signals_;
};

/// Index of the base joint: the first joint with a free, planar or spherical type whose parent is
/// the world or welded to it by fixed joints; −1 if there is none. References and controllers
/// agree on it.
int baseJointIndex(const Model& model);

/// `body` and its descendants, parents before children: what moves with it.
std::vector<int> bodiesMovingWith(const Model& model, int body);

/// Inertia of `bodies` about the world point `point`, in the axes of `frame` (each body's Θ about
/// its CoM turned into those axes, plus parallel axes). Requires kinematics in `ws`.
Mat3 compositeInertia(const Model& model, const Workspace& ws, const std::vector<int>& bodies, const Pose& frame,
                      const Vec3& point);

}  // namespace rbs
