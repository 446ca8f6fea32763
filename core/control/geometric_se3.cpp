#include "core/control/geometric_se3.h"

#include <algorithm>
#include <cmath>

#include "core/dynamics/dynamics.h"

namespace rbs {

namespace {

// Lee, Leok, McClamroch (2010), numerical example: k_x = 16 m, k_v = 5.6 m, k_R = 8.81,
// k_Ω = 2.54 for m = 4.34 kg, J = diag(0.0820, 0.0845, 0.1377) kg m². Defaults keep the ratios.
constexpr double kKxPerMass = 16.0;                  // [1/s²]
constexpr double kKvPerMass = 5.6;                   // [1/s]
constexpr double kKRPerInertia = 8.81 / 0.0820;      // [1/s²]
constexpr double kKOmegaPerInertia = 2.54 / 0.0820;  // [1/s]

}  // namespace

GeometricSe3Controller::GeometricSe3Controller(const Model& model,
                                               const ControllerSettings& settings)
    : model_(model),
      tracking_(model, baseline::trackedBodyOption(settings, {"tracked_body"})),
      ws_(model),
      ws_ref_(model),
      allocation_(6, model.numInputs()),
      wrench_(VecX::Zero(6)) {
  base_joint_ = baseJointIndex(model);
  if (base_joint_ < 0 || !isFreeType(model.joints[base_joint_].type))
    throw ControlError(
        "geometric_se3 needs a multicopter on a free or free_quaternion root joint; the model's "
        "base joint is " +
        (base_joint_ < 0 ? std::string("missing")
                         : "'" + model.joints[base_joint_].name + "' (" +
                               std::string(jointTypeName(model.joints[base_joint_].type)) + ")"));
  if (!model.loop_closures.empty())
    throw ControlError("geometric_se3 does not support loop closures (loop closure '" +
                       model.loop_closures.front().name + "')");
  if (model.numInputs() == 0) throw ControlError("geometric_se3: the model has no actuators");
  base_body_ = model.joints[base_joint_].child;

  // the bodies that move with the base: the base and its descendants (parents precede children)
  bodies_ = bodiesMovingWith(model, base_body_);
  for (int b : bodies_) mass_ += model.bodies[b].mass;

  // mass properties and input authority at the initial state
  const State& x0 = model.initial_state;
  computeKinematics(model, x0.x, x0.xi, ws_);
  computeBodyJacobians(model, ws_);
  computeInputMatrix(model, ws_);
  Vec3 com, com_velocity, s;
  Mat3 J;
  composite(ws_, movingFrame(ws_), nullptr, com, com_velocity, nullptr, &s, &J);
  const auto B_base = ws_.input_matrix.middleRows(model.joints[base_joint_].xi_offset, 6);
  VecX u(model.numInputs());
  for (int row : {2, 3, 4}) {
    wrench_.setZero();
    wrench_[row] = 1.0;
    allocation_.solve(B_base, wrench_, u);
    if (allocation_.residualNorm() > 1e-8)
      throw ControlError("geometric_se3: the inputs cannot produce a " +
                         std::string(row == 2 ? "force along the z axis"
                                              : "moment about the " +
                                                    std::string(row == 3 ? "x" : "y") + " axis") +
                         " of body '" + model.bodies[base_body_].name +
                         "' (it needs multicopter thrusts along the body z axis)");
  }
  wrench_.setZero();

  const double J_tilt = std::max(J(0, 0), J(1, 1));
  auto add = [&](const char* name, const char* unit, const char* description, double value,
                 double lo, double hi) {
    return parameters_.add(
        {name, unit, description, std::clamp(value, lo, hi), lo, hi, ParameterScale::Log});
  };
  kx_ = add("kx", "N/m", "position gain k_x", kKxPerMass * mass_, 1e-3, 1e5);
  kv_ = add("kv", "N s/m", "velocity gain k_v", kKvPerMass * mass_, 1e-3, 1e4);
  kR_ = add("kR", "N m/rad", "attitude gain k_R", kKRPerInertia * J_tilt, 1e-4, 1e4);
  kOmega_ = add("kOmega", "N m s/rad", "angular velocity gain k_Omega", kKOmegaPerInertia * J_tilt,
                1e-5, 1e3);

  tracking_signals_ = addSignals(tracking_.signals());
  signal_thrust_ =
      addSignal("control.thrust", "N", "total thrust f = F . R e3 along the body z axis");
  signal_moment_ = addSignal("control.moment", "N m", "|M|: the commanded moment about the CoM");
  signal_attitude_ = addSignal("control.attitude_command", "rad",
                               "angle between the attitude R and the commanded attitude R_c");
  signal_residual_ = addSignal("control.wrench_residual", "N, N m",
                               "the part of the commanded body wrench [0, 0, f, M] the inputs "
                               "cannot produce (least squares)");
}

Pose GeometricSe3Controller::movingFrame(const Workspace& ws) const {
  const Joint& joint = model_.joints[base_joint_];
  const Pose& body = ws.pose[base_body_];
  return joint.has_child_placement ? body * joint.child_placement.inverse() : body;
}

void GeometricSe3Controller::composite(const Workspace& ws, const Pose& frame, const VecX* xidot,
                                       Vec3& com, Vec3& com_velocity, Vec3* com_acceleration,
                                       Vec3* s, Mat3* J) const {
  com.setZero();
  com_velocity.setZero();
  if (com_acceleration != nullptr) com_acceleration->setZero();
  for (int b : bodies_) {
    // CoM point p = r_b + R_b s_b: ṗ = R_b (v + ω × s_b),
    // p̈ = R_b (v̇ + ω̇ × s_b + ω × (v + ω × s_b))
    const Body& body = model_.bodies[b];
    const Pose& G = ws.pose[b];
    const Vec3 v = ws.twist[b].head<3>(), w = ws.twist[b].tail<3>();
    const Vec3 point_velocity = v + w.cross(body.com);
    com += body.mass * (G * body.com);
    com_velocity += body.mass * (G.R * point_velocity);
    if (com_acceleration != nullptr) {
      const Vec6 twist_rate = ws.jacobian(b) * (*xidot) + ws.bias[b];  // η̇ = J ξ̇ + J̇ ξ
      *com_acceleration +=
          body.mass * (G.R * (twist_rate.head<3>() + twist_rate.tail<3>().cross(body.com) +
                              w.cross(point_velocity)));
    }
  }
  com /= mass_;
  com_velocity /= mass_;
  if (com_acceleration != nullptr) *com_acceleration /= mass_;
  if (s == nullptr || J == nullptr) return;

  // CoM in body axes and the inertia about it (parallel axes)
  *s = frame.R.transpose() * (com - frame.r);
  *J = compositeInertia(model_, ws, bodies_, frame, com);
}

bool GeometricSe3Controller::compute(double /*t*/, const State& state,
                                     const ReferenceSample& reference, VecX& u) {
  if (state.x.size() != model_.nx || state.xi.size() != model_.nxi ||
      reference.x.size() != model_.nx || reference.xi.size() != model_.nxi ||
      reference.xidot.size() != model_.nxi)
    return fail("geometric_se3: state or reference has the wrong size");
  const int o = model_.joints[base_joint_].xi_offset;

  computeKinematics(model_, state.x, state.xi, ws_);
  computeBodyJacobians(model_, ws_);
  computeInputMatrix(model_, ws_);
  computeKinematics(model_, reference.x, reference.xi, ws_ref_);
  computeBodyJacobians(model_, ws_ref_);
  tracking_.evaluate(ws_, ws_ref_, state.x, reference.x, signalBlock(tracking_signals_));

  const Pose G = movingFrame(ws_), G_d = movingFrame(ws_ref_);
  const Mat3& R = G.R;
  const Vec3 Omega = state.xi.segment<3>(o + 3);
  Vec3 r, r_dot, s, r_d, r_d_dot, r_d_ddot;
  Mat3 J;
  composite(ws_, G, nullptr, r, r_dot, nullptr, &s, &J);
  composite(ws_ref_, G_d, &reference.xidot, r_d, r_d_dot, &r_d_ddot, nullptr, nullptr);

  // translation: desired force F and thrust f = F · R e₃ (Lee et al., with z up)
  const double kx = parameters_[kx_], kv = parameters_[kv_];
  const double kR = parameters_[kR_], kOmega = parameters_[kOmega_];
  const Vec3 e_x = r - r_d, e_v = r_dot - r_d_dot;
  Vec3 F = -kx * e_x - kv * e_v - mass_ * model_.gravity + mass_ * r_d_ddot;
  // Bias compensation (Controller::setExternalForceEstimate): the estimated force on the base,
  // F̂_B in body axes, is cancelled by the thrust vector; its moment about the origin below.
  const VecX& f_hat = externalForceEstimate();
  const bool compensate = f_hat.size() == model_.nxi;
  if (compensate) F -= R * f_hat.segment<3>(o);
  const double f = F.dot(R.col(2));
  const double F_norm = F.norm();
  if (!(F_norm > 1e-9 * mass_))
    return fail(
        "geometric_se3: the desired force vanishes (commanded free fall), so the thrust "
        "direction F/|F| is undefined");

  // the CoM acceleration the thrust produces (an arm's internal forces do not move the CoM) and
  // the reference jerk, estimated as ω_d × (r̈_d − a_G): exact for a flat-output reference of
  // constant thrust, and its part normal to the thrust axis (all that enters Ω_c at zero error)
  // is exact for every flat-output reference
  const Vec3 w_d = G_d.R * reference.xi.segment<3>(o + 3);         // R_d Ω_d
  const Vec3 w_d_dot = G_d.R * reference.xidot.segment<3>(o + 3);  // R_d Ω̇_d
  Vec3 e_a = model_.gravity + (f / mass_) * R.col(2) - r_d_ddot;
  if (compensate) e_a += R * f_hat.segment<3>(o) / mass_;  // the bias accelerates the CoM too
  const Vec3 jerk_d = w_d.cross(r_d_ddot - model_.gravity);
  const Vec3 F_dot = -kx * e_v - kv * e_a + mass_ * jerk_d;

  // commanded attitude R_c and its rate: thrust axis b₃c = F/|F|, heading from b₁d = R_d e₁
  const Vec3 b3c = F / F_norm;
  const Vec3 b3c_dot = (F_dot - b3c * b3c.dot(F_dot)) / F_norm;
  Vec3 b1c, b2c, b1c_dot, b2c_dot;
  const Vec3 b1d = G_d.R.col(0), b1d_dot = w_d.cross(b1d);
  if (const Vec3 c = b3c.cross(b1d); c.norm() >= 0.1) {
    // b₂c = (b₃c × b₁d)/|b₃c × b₁d|, b₁c = b₂c × b₃c (Lee et al.)
    const Vec3 c_dot = b3c_dot.cross(b1d) + b3c.cross(b1d_dot);
    b2c = c.normalized();
    b2c_dot = (c_dot - b2c * b2c.dot(c_dot)) / c.norm();
    b1c = b2c.cross(b3c);
    b1c_dot = b2c_dot.cross(b3c) + b2c.cross(b3c_dot);
  } else {  // heading axis (almost) along the thrust axis: take the heading from b₂d = R_d e₂
    const Vec3 b2d = G_d.R.col(1), b2d_dot = w_d.cross(b2d);
    const Vec3 c2 = b2d.cross(b3c), c2_dot = b2d_dot.cross(b3c) + b2d.cross(b3c_dot);
    b1c = c2.normalized();
    b1c_dot = (c2_dot - b1c * b1c.dot(c2_dot)) / c2.norm();
    b2c = b3c.cross(b1c);
    b2c_dot = b3c_dot.cross(b1c) + b3c.cross(b1c_dot);
  }
  Mat3 R_c, R_c_dot;
  R_c << b1c, b2c, b3c;
  R_c_dot << b1c_dot, b2c_dot, b3c_dot;
  const Vec3 w_c = R_c * (0.5 * vee2(Mat3(R_c.transpose() * R_c_dot)));  // R_c Ω_c

  // attitude: e_R, e_Ω and the moment of Lee et al.; the commanded angular
  // acceleration R_c Ω̇_c (second derivatives of F) is replaced by the reference's R_d Ω̇_d
  const Vec3 e_R = 0.5 * vee(Mat3(R_c.transpose() * R - R.transpose() * R_c));
  const Vec3 Omega_c = R.transpose() * w_c;  // Rᵀ R_c Ω_c
  const Vec3 e_Omega = Omega - Omega_c;
  const Vec3 M = -kR * e_R - kOmega * e_Omega + Omega.cross(J * Omega) -
                 J * (Omega.cross(Omega_c) - R.transpose() * w_d_dot);

  // body wrench at the frame origin: thrust f e₃, moment about the CoM moved to the origin
  wrench_ << 0.0, 0.0, f, M + s.cross(Vec3(0.0, 0.0, f));
  if (compensate) wrench_.tail<3>() -= f_hat.segment<3>(o + 3);
  allocation_.solve(ws_.input_matrix.middleRows(o, 6), wrench_, u);
  if (!u.allFinite()) return fail("geometric_se3: the input is not finite (non-finite state?)");

  signal(signal_thrust_) = f;
  signal(signal_moment_) = M.norm();
  signal(signal_attitude_) = rotationAngle(R_c.transpose() * R);
  signal(signal_residual_) = allocation_.residualNorm();
  return true;
}

std::unique_ptr<Controller> makeGeometricSe3(const Model& model,
                                             const ControllerSettings& settings) {
  return std::make_unique<GeometricSe3Controller>(model, settings);
}

}  // namespace rbs
