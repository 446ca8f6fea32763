// Computed torque on minimal coordinates (thesis (1.4)–(1.5), konz-control §2 and §5.2 with
// M̄ = I; Kremer et al.'s controller, carmizaru-kremer.md B11): imposes the linear error dynamics
//   ë + K_d ė + K_p e = 0,   e = q_R − q,
// per minimal coordinate q. It is the baseline that shows what the prototype controllers avoid:
// Euler angles are singular at pitch ±90° and the error is non-smooth at ±π.
//
// Minimal coordinates q (one per velocity coordinate, in the order of ξ):
//   revolute, revolute_unit_circle   the angle (wrapped errors)
//   prismatic                        the displacement
//   universal                        the two angles
//   spherical, spherical_quaternion  ZYX Euler angles (roll, pitch, yaw) of the joint rotation
//   spherical_euler_zyx              its own (roll, pitch, yaw)
//   free, free_quaternion            position r (in the joint frame, the world for a root joint
//                                    placed at the origin) and ZYX Euler angles of R
//   planar                           (p_x, p_y, θ)
// spherical_absolute joints and loop closures are refused (ControlError).
//
// Law: q̇ = T(x) ξ, q̈ = T ξ̇ + Ṫ ξ (the Euler part through ω = Y(Φ) Φ̇ of (1.6b));
//   q̈_des = q̈_R + K_d ė + K_p e,  ξ̇_des = T⁻¹(q̈_des − Ṫ ξ),  f = M ξ̇_des + b,  B u = f,
// the last one in the minimum-norm least-squares sense (exact when B is square and regular).
// compute() fails (returns false) when the state or the reference is within |cos pitch| < 1e-3
// of an Euler-angle gimbal lock: the angle rates are undefined there.
//
// Parameters: kp_<coordinate> [1/s²] and kd_<coordinate> [1/s], range [0, 1e4], defaults
// ω² = 25 and 2ζω = 10 (ω = 5 rad/s, ζ = 1). Coordinate names: x, y, z, roll, pitch, yaw for a
// free base (the base joint of tracking.h), roll, pitch, yaw for a spherical base, x, y, theta for
// a planar base; the joint name for a scalar joint; <joint>_<coordinate> for every other
// multi-coordinate joint (universal: <joint>_1, <joint>_2).
// Option: tracked_body (the body of the error.* signals, see tracking.h).
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "core/control/baseline_support.h"
#include "core/control/controller.h"
#include "core/control/plant.h"
#include "core/control/settings.h"
#include "core/control/tracking.h"

namespace rbs {

class ComputedTorqueController final : public Controller {
 public:
  /// Throws ControlError for an unknown option, an unsupported joint type, loop closures or a
  /// model without inputs.
  ComputedTorqueController(const Model& model, const ControllerSettings& settings);

  std::string_view name() const override { return "computed_torque"; }
  bool compute(double t, const State& state, const ReferenceSample& reference, VecX& u) override;

  /// Names of the minimal coordinates (the <coordinate> of kp_<coordinate>), in the order of ξ.
  const std::vector<std::string>& coordinateNames() const { return coordinate_names_; }

  /// Smallest |cos pitch| below which the Euler-angle rates count as singular.
  static constexpr double kMinCosPitch = 1e-3;

 private:
  enum class Kind {
    Direct,    // q = x-coordinates (or the unit-circle angle), q̇ = ξ
    Rotation,  // spherical, spherical_quaternion: ZYX angles of R, ω = Y Φ̇
    Free,      // free, free_quaternion: r and the ZYX angles of R
    Planar,    // (p_x, p_y, θ) with ṗ = R(θ) v
  };
  struct Block {
    int joint = -1;
    Kind kind = Kind::Direct;
    int euler_offset = -1;  // index in q of the first Euler angle, −1 if none
  };

  /// q, q̇ (and q̈ when xidot is given) of one block at (x, ξ, ξ̇). Returns false at gimbal lock
  /// and sets cos_pitch to |cos β| of the block's Euler angles (1 if it has none).
  bool blockCoordinates(const Block& block, const VecX& x, const VecX& xi, const VecX* xidot,
                        VecX& q, VecX& qdot, VecX* qddot, double& cos_pitch) const;
  /// ξ̇ = T⁻¹(q̈ − Ṫ ξ) of one block at the actual state (q_, qdot_ hold its coordinates).
  void blockAcceleration(const Block& block, const VecX& x, const VecX& xi, const VecX& qddot,
                         VecX& xidot) const;
  bool gimbalLock(const Block& block, const char* which, double cos_pitch);

  const Model& model_;
  std::vector<Block> blocks_;
  std::vector<std::string> coordinate_names_;
  std::vector<Parameter> kp_, kd_;  ///< per minimal coordinate
  std::vector<char> wrapped_;  // per coordinate: an angle (errors wrapped to (−π, π])
  TrackingErrors tracking_;
  SignalSlot tracking_signals_, signal_residual_, signal_cos_pitch_;

  Workspace ws_, ws_ref_;
  PlantTerms plant_;
  baseline::MinimumNormLeastSquares allocation_;
  VecX q_, qdot_, q_ref_, qdot_ref_, qddot_ref_, qddot_des_, xidot_des_, force_;
};

/// The registry's factory for "computed_torque".
std::unique_ptr<Controller> makeComputedTorque(const Model& model,
                                               const ControllerSettings& settings);

}  // namespace rbs
