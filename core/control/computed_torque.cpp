#include "core/control/computed_torque.h"

#include <algorithm>
#include <cmath>
#include <sstream>

#include "core/dynamics/kinematics.h"

namespace rbs {

namespace {

using baseline::eulerZYXRateMatrix;
using baseline::eulerZYXRateMatrixDot;
using baseline::eulerZYXRatesFromBody;

constexpr double kOmega = 5.0;  // default bandwidth [rad/s]
constexpr double kZeta = 1.0;   // default damping ratio

/// ZYX angles Φ, their rates Φ̇ = Y⁻¹ ω and (with wdot) Φ̈ = Y⁻¹(ω̇ − Ẏ Φ̇) of a rotation with body
/// angular velocity ω (1.6b). Returns false when |cos β| < the gimbal-lock bound.
bool eulerCoordinates(const Mat3& R, const Vec3& w, const Vec3* wdot, double* q, double* qdot,
                      double* qddot, double& cos_pitch) {
  const Vec3 phi = eulerZYXFromRotation(R);
  cos_pitch = std::hypot(R(2, 1), R(2, 2));  // = cos β ≥ 0 for β ∈ [−π/2, π/2]
  for (int i = 0; i < 3; ++i) q[i] = phi(i);
  if (cos_pitch < ComputedTorqueController::kMinCosPitch) return false;
  const Vec3 phidot = eulerZYXRatesFromBody(phi(0), phi(1), w);
  for (int i = 0; i < 3; ++i) qdot[i] = phidot(i);
  if (wdot != nullptr) {
    const Mat3 Ydot = eulerZYXRateMatrixDot(phi(0), phi(1), phidot(0), phidot(1));
    const Vec3 phiddot = eulerZYXRatesFromBody(phi(0), phi(1), *wdot - Ydot * phidot);
    for (int i = 0; i < 3; ++i) qddot[i] = phiddot(i);
  }
  return true;
}

/// ω̇ = Y Φ̈ + Ẏ Φ̇ (the time derivative of ω = Y Φ̇).
Vec3 bodyAngularAcceleration(const double* q, const double* qdot, const double* qddot) {
  const Vec3 phidot(qdot[0], qdot[1], qdot[2]);
  return eulerZYXRateMatrix(q[0], q[1]) * Vec3(qddot[0], qddot[1], qddot[2]) +
         eulerZYXRateMatrixDot(q[0], q[1], qdot[0], qdot[1]) * phidot;
}

}  // namespace

ComputedTorqueController::ComputedTorqueController(const Model& model,
                                                   const ControllerSettings& settings)
    : model_(model),
      tracking_(model, baseline::trackedBodyOption(settings, {"tracked_body"})),
      ws_(model),
      ws_ref_(model),
      allocation_(model.nxi, model.numInputs()) {
  if (model.numInputs() == 0)
    throw ControlError("computed_torque needs inputs (actuators); the model has none");
  if (!model.loop_closures.empty())
    throw ControlError("computed_torque does not support loop closures (loop closure '" +
                       model.loop_closures.front().name + "'): it needs minimal coordinates");

  const int base = baseJointIndex(model);
  coordinate_names_.resize(model.nxi);
  wrapped_.assign(model.nxi, 0);
  for (int j = 0; j < static_cast<int>(model.joints.size()); ++j) {
    const Joint& joint = model.joints[j];
    const std::string prefix = j == base ? "" : joint.name + "_";
    auto name = [&](int i, const std::string& coordinate, bool angle) {
      coordinate_names_[joint.xi_offset + i] = coordinate;
      wrapped_[joint.xi_offset + i] = angle ? 1 : 0;
    };
    Block block{j, Kind::Direct, -1};
    switch (joint.type) {
      case JointType::Revolute:
      case JointType::RevoluteUnitCircle:
        name(0, joint.name, true);
        break;
      case JointType::Prismatic:
        name(0, joint.name, false);
        break;
      case JointType::Universal:
        name(0, joint.name + "_1", true);
        name(1, joint.name + "_2", true);
        break;
      case JointType::SphericalEulerZYX:
      case JointType::Spherical:
      case JointType::SphericalQuaternion:
        if (joint.type != JointType::SphericalEulerZYX) block.kind = Kind::Rotation;
        block.euler_offset = joint.xi_offset;
        name(0, prefix + "roll", true);
        name(1, prefix + "pitch", true);
        name(2, prefix + "yaw", true);
        break;
      case JointType::Free:
      case JointType::FreeQuaternion:
        block.kind = Kind::Free;
        block.euler_offset = joint.xi_offset + 3;
        name(0, prefix + "x", false);
        name(1, prefix + "y", false);
        name(2, prefix + "z", false);
        name(3, prefix + "roll", true);
        name(4, prefix + "pitch", true);
        name(5, prefix + "yaw", true);
        break;
      case JointType::Planar:
        block.kind = Kind::Planar;
        name(0, prefix + "x", false);
        name(1, prefix + "y", false);
        name(2, prefix + "theta", true);
        break;
      case JointType::Fixed:
        continue;  // no coordinates
      case JointType::SphericalAbsolute:
        throw ControlError("computed_torque: joint '" + joint.name + "' (" +
                           std::string(jointTypeName(joint.type)) +
                           ") has no minimal coordinates this controller supports");
    }
    blocks_.push_back(block);
  }

  // parameters kp_<coordinate>, kd_<coordinate>
  for (int i = 0; i < model.nxi; ++i) {
    const std::string& c = coordinate_names_[i];
    if (parameters_.find("kp_" + c) >= 0)
      throw ControlError("computed_torque: two minimal coordinates are both named '" + c +
                         "' (rename the joint)");
    kp_.push_back(parameters_.add({"kp_" + c, "1/s^2", "stiffness K_p of coordinate " + c + " in (1.5)",
                                   kOmega * kOmega, 0.0, 1e4}));
    kd_.push_back(parameters_.add({"kd_" + c, "1/s", "damping K_d of coordinate " + c + " in (1.5)",
                                   2.0 * kZeta * kOmega, 0.0, 1e4}));
  }

  tracking_signals_ = addSignals(tracking_.signals());
  signal_residual_ = addSignal("control.force_residual", "N, N m",
                               "|B u - f|: the part of the computed generalized force f the inputs "
                               "cannot produce (least squares)");
  if (std::any_of(blocks_.begin(), blocks_.end(),
                  [](const Block& b) { return b.euler_offset >= 0; }))
    signal_cos_pitch_ =
        addSignal("control.cos_pitch", "1",
                  "smallest |cos pitch| of the Euler angles of state and reference (gimbal lock "
                  "at 0; compute fails below 1e-3)");

  for (VecX* v : {&q_, &qdot_, &q_ref_, &qdot_ref_, &qddot_ref_, &qddot_des_, &xidot_des_, &force_})
    v->setZero(model.nxi);
}

bool ComputedTorqueController::blockCoordinates(const Block& block, const VecX& x, const VecX& xi,
                                                const VecX* xidot, VecX& q, VecX& qdot, VecX* qddot,
                                                double& cos_pitch) const {
  const Joint& joint = model_.joints[block.joint];
  const int ox = joint.x_offset, o = joint.xi_offset;
  cos_pitch = 1.0;
  switch (block.kind) {
    case Kind::Direct: {
      if (hasScalarPosition(joint.type)) {
        q[o] = jointScalarPosition(joint, x.data() + ox);
      } else {
        for (int i = 0; i < joint.nxi; ++i) q[o + i] = x[ox + i];
      }
      qdot.segment(o, joint.nxi) = xi.segment(o, joint.nxi);
      if (qddot != nullptr) qddot->segment(o, joint.nxi) = xidot->segment(o, joint.nxi);
      if (joint.type == JointType::SphericalEulerZYX) {
        // the model's own Euler coordinates: q̇ = ξ, but B (body torques through Yᵀ) loses rank
        cos_pitch = std::abs(std::cos(x[ox + 1]));
        return cos_pitch >= kMinCosPitch;
      }
      return true;
    }
    case Kind::Rotation: {
      const Mat3 R = jointMotionPose(joint, x.data() + ox).R;
      const Vec3 w = xi.segment<3>(o);
      const Vec3 wdot = xidot != nullptr ? Vec3(xidot->segment<3>(o)) : Vec3::Zero();
      return eulerCoordinates(R, w, xidot != nullptr ? &wdot : nullptr, q.data() + o,
                              qdot.data() + o, qddot != nullptr ? qddot->data() + o : nullptr,
                              cos_pitch);
    }
    case Kind::Free: {
      // ṙ = R v, r̈ = R (v̇ + ω × v); the rotation part as above
      const Mat3 R = jointMotionPose(joint, x.data() + ox).R;
      const Vec3 v = xi.segment<3>(o), w = xi.segment<3>(o + 3);
      q.segment<3>(o) = x.segment<3>(ox);
      qdot.segment<3>(o) = R * v;
      Vec3 wdot = Vec3::Zero();
      if (qddot != nullptr) {
        qddot->segment<3>(o) = R * (xidot->segment<3>(o) + w.cross(v));
        wdot = xidot->segment<3>(o + 3);
      }
      return eulerCoordinates(R, w, qddot != nullptr ? &wdot : nullptr, q.data() + o + 3,
                              qdot.data() + o + 3,
                              qddot != nullptr ? qddot->data() + o + 3 : nullptr, cos_pitch);
    }
    case Kind::Planar: {
      // ṗ = R(θ) v, p̈ = R(θ)(v̇ + ω J v) with J v = (−v_y, v_x); θ̇ = ω
      const double theta = x[ox + 2], c = std::cos(theta), s = std::sin(theta);
      const double vx = xi[o], vy = xi[o + 1], w = xi[o + 2];
      q[o] = x[ox];
      q[o + 1] = x[ox + 1];
      q[o + 2] = theta;
      qdot[o] = c * vx - s * vy;
      qdot[o + 1] = s * vx + c * vy;
      qdot[o + 2] = w;
      if (qddot != nullptr) {
        const double ax = (*xidot)[o] - w * vy, ay = (*xidot)[o + 1] + w * vx;
        (*qddot)[o] = c * ax - s * ay;
        (*qddot)[o + 1] = s * ax + c * ay;
        (*qddot)[o + 2] = (*xidot)[o + 2];
      }
      return true;
    }
  }
  return true;
}

void ComputedTorqueController::blockAcceleration(const Block& block, const VecX& x, const VecX& xi,
                                                 const VecX& qddot, VecX& xidot) const {
  const Joint& joint = model_.joints[block.joint];
  const int ox = joint.x_offset, o = joint.xi_offset;
  switch (block.kind) {
    case Kind::Direct:
      xidot.segment(o, joint.nxi) = qddot.segment(o, joint.nxi);
      return;
    case Kind::Rotation:
      xidot.segment<3>(o) =
          bodyAngularAcceleration(q_.data() + o, qdot_.data() + o, qddot.data() + o);
      return;
    case Kind::Free: {
      // v̇ = Rᵀ r̈ − ω × v, ω̇ = Y Φ̈ + Ẏ Φ̇
      const Mat3 R = jointMotionPose(joint, x.data() + ox).R;
      const Vec3 v = xi.segment<3>(o), w = xi.segment<3>(o + 3);
      xidot.segment<3>(o) = R.transpose() * qddot.segment<3>(o) - w.cross(v);
      xidot.segment<3>(o + 3) =
          bodyAngularAcceleration(q_.data() + o + 3, qdot_.data() + o + 3, qddot.data() + o + 3);
      return;
    }
    case Kind::Planar: {
      // v̇ = R(θ)ᵀ p̈ − ω J v, ω̇ = θ̈
      const double theta = x[ox + 2], c = std::cos(theta), s = std::sin(theta);
      const double vx = xi[o], vy = xi[o + 1], w = xi[o + 2];
      const double ax = c * qddot[o] + s * qddot[o + 1], ay = -s * qddot[o] + c * qddot[o + 1];
      xidot[o] = ax + w * vy;
      xidot[o + 1] = ay - w * vx;
      xidot[o + 2] = qddot[o + 2];
      return;
    }
  }
}

bool ComputedTorqueController::gimbalLock(const Block& block, const char* which, double cos_pitch) {
  std::ostringstream m;
  m << "computed_torque: " << which << " of joint '" << model_.joints[block.joint].name
    << "' is at the Euler-angle gimbal lock (pitch = ±90 deg, |cos pitch| = " << cos_pitch << " < "
    << kMinCosPitch << "): the ZYX angle rates of its minimal coordinates are undefined";
  return fail(m.str());
}

bool ComputedTorqueController::compute(double /*t*/, const State& state,
                                       const ReferenceSample& reference, VecX& u) {
  const int n = model_.nxi;
  if (state.x.size() != model_.nx || state.xi.size() != n || reference.x.size() != model_.nx ||
      reference.xi.size() != n || reference.xidot.size() != n)
    return fail("computed_torque: state or reference has the wrong size");

  evaluatePlant(model_, state, ws_, plant_);
  compensateExternalForce(plant_.b);
  computeKinematics(model_, reference.x, reference.xi, ws_ref_);
  tracking_.evaluate(ws_, ws_ref_, state.x, reference.x, signalBlock(tracking_signals_));

  // minimal coordinates of the state and the reference (q_R, q̇_R, q̈_R)
  double min_cos_pitch = 1.0;
  for (const Block& block : blocks_) {
    double cos_pitch = 1.0;
    if (!blockCoordinates(block, state.x, state.xi, nullptr, q_, qdot_, nullptr, cos_pitch))
      return gimbalLock(block, "the state", cos_pitch);
    min_cos_pitch = std::min(min_cos_pitch, cos_pitch);
    if (!blockCoordinates(block, reference.x, reference.xi, &reference.xidot, q_ref_, qdot_ref_,
                          &qddot_ref_, cos_pitch))
      return gimbalLock(block, "the reference", cos_pitch);
    min_cos_pitch = std::min(min_cos_pitch, cos_pitch);
  }

  // (1.5): q̈_des = q̈_R + K_d ė + K_p e, e = q_R − q (angles wrapped to (−π, π])
  for (int i = 0; i < n; ++i) {
    double e = q_ref_[i] - q_[i];
    if (wrapped_[i]) e = baseline::wrapAngle(e);
    qddot_des_[i] =
        qddot_ref_[i] + parameters_[kd_[i]] * (qdot_ref_[i] - qdot_[i]) + parameters_[kp_[i]] * e;
  }
  // ξ̇_des = T⁻¹(q̈_des − Ṫ ξ), f = M ξ̇_des + b
  for (const Block& block : blocks_)
    blockAcceleration(block, state.x, state.xi, qddot_des_, xidot_des_);
  force_.noalias() = plant_.M * xidot_des_;
  force_ += plant_.b;

  // B u = f. Fully actuated (B square and regular): the exact inverse. Underactuated: Kremer et
  // al. (B11) map the generalized force to body wrenches with M_F⁺ and those to motor forces with
  // M_mot⁺; with our body-twist coordinates of the base the generalized force of the base *is*
  // its body wrench (M_F = I), so their chain is the unweighted minimum-norm least-squares
  // solution u = B⁺ f on all rows. The rows the inputs cannot influence (the base's body x/y force
  // and, for coplanar rotors without drag torques, its yaw moment) are orthogonal to the range of
  // B and stay unrealized (control.force_residual); the desired x, y, yaw accelerations (gains 0
  // for x, y in [K]) still act on the other rows through M. We chose B⁺ over the M̄-weighted
  // allocation of allocation.h because B of coplanar thrusts is rank deficient (4 thrusts, rank
  // 3), and B⁺ still gives the unique minimum-norm input.
  allocation_.solve(plant_.B, force_, u);
  if (!u.allFinite()) return fail("computed_torque: the input is not finite (non-finite state?)");

  signal(signal_residual_) = allocation_.residualNorm();
  if (signal_cos_pitch_.declared()) signal(signal_cos_pitch_) = min_cos_pitch;
  return true;
}

std::unique_ptr<Controller> makeComputedTorque(const Model& model,
                                               const ControllerSettings& settings) {
  return std::make_unique<ComputedTorqueController>(model, settings);
}

}  // namespace rbs
