#include "core/control/servo_constraint.h"

#include <cmath>
#include <numbers>

#include "core/control/registry.h"
#include "core/dynamics/kinematics.h"

namespace rbs {
namespace {

constexpr const char* kName = "servo_constraint_pd";

}  // namespace

ServoConstraintPd::ServoConstraintPd(const Model& model, const ControllerSettings& settings)
    : model_(model),
      inverse_(model, analyzeServoStructure(model, kName)),
      tracking_(model, controllerOption(settings, "tracked_body", "", {})),
      ws_(model),
      ws_ref_(model) {
  checkControllerOptions(settings,
                         {"end_effector_body", "plane", "gamma", "gain_scaling", "tracked_body"});
  const std::string body = controllerOption(settings, "end_effector_body", "", {});
  end_effector_body_ = body.empty() ? model.numBodies() - 1 : model.bodyIndex(body);
  if (end_effector_body_ < 0)
    throw ControlError(std::string(kName) + ": option end_effector_body: no body named '" + body +
                       "'");
  const std::string plane = controllerOption(settings, "plane", "xy", {"xy", "xz", "yz"});
  plane_axes_[0] = plane == "yz" ? 1 : 0;
  plane_axes_[1] = plane == "xy" ? 1 : 2;
  geometric_gamma_ =
      controllerOption(settings, "gamma", "parameters", {"parameters", "geometric"}) == "geometric";
  mass_scaling_ = controllerOption(settings, "gain_scaling", "mass", {"mass", "none"}) == "mass";

  constexpr double pi = std::numbers::pi;
  const ServoPath path;  // the book's defaults
  parameters_.add({"omega", "rad/s", "PD on the actuated coordinates: K_p = omega^2", 20.0, 0.0,
                   1000.0});
  parameters_.add({"zeta", "1", "PD damping ratio: K_d = 2 zeta omega", 1.0, 0.0, 10.0});
  first_feedforward_parameter_ = parameters_.size();
  parameters_.add({"exact_output", "1",
                   "0: linearly combined output q_a + Gamma q_u (4.5), 1: exact end effector (4.6)",
                   0.0, 0.0, 1.0});
  parameters_.add({"stable_inversion", "1",
                   "0: forward integration (minimum phase), 1: stable inversion (BVP)", 1.0, 0.0,
                   1.0});
  parameters_.add({"pre_actuation", "s", "feedforward window before t_start", 0.2, 0.0, 10.0});
  parameters_.add({"post_actuation", "s", "feedforward window after the motion", 0.3, 0.0, 10.0});
  parameters_.add({"inversion_step", "s", "collocation grid of the inverse model (RK4: a quarter)",
                   1e-3, 1e-5, 1e-2, ParameterScale::Log});
  parameters_.add({"center_x", "m", "arc centre, first plane axis", path.center_x, -100.0, 100.0});
  parameters_.add({"center_y", "m", "arc centre, second plane axis", path.center_y, -100.0, 100.0});
  parameters_.add({"radius", "m", "arc radius", path.radius, 0.0, 100.0});
  parameters_.add({"angle_start", "rad", "arc start angle from the first plane axis",
                   path.angle_start, -4.0 * pi, 4.0 * pi});
  parameters_.add({"angle_end", "rad", "arc end angle", path.angle_end, -4.0 * pi, 4.0 * pi});
  parameters_.add({"cart_start", "m", "first direct output (cart) at the start", path.cart_start,
                   -100.0, 100.0});
  parameters_.add({"cart_end", "m", "first direct output (cart) at the end", path.cart_end, -100.0,
                   100.0});
  parameters_.add({"t_start", "s", "start of the motion t_0", path.t_start, 0.0, 1e4});
  parameters_.add({"duration", "s", "duration of the motion T", path.duration, 1e-3, 1e4});
  parameters_.add({"degree", "1", "rest-to-rest polynomial degree (5, 7 or 9)", 5.0, 5.0, 9.0});
  parameters_.add({"end_effector_x", "m", "end-effector point, body frame x", 0.0, -100.0, 100.0});
  parameters_.add({"end_effector_y", "m", "end-effector point, body frame y", 0.0, -100.0, 100.0});
  parameters_.add({"end_effector_z", "m", "end-effector point, body frame z", 0.0, -100.0, 100.0});
  for (int c : inverse_.structure().passive) {
    std::string joint;
    for (const Joint& j : model.joints)
      if (j.nxi == 1 && j.xi_offset == c) joint = j.name;
    gamma_parameters_.push_back(parameters_.add(
        {"gamma_" + joint, "1",
         "Gamma: weight of passive joint " + joint + " in the last output (y = q_a + Gamma q_u)",
         0.0, -10.0, 10.0}));
  }

  addSignals(tracking_.signals());
  end_effector_signal_ = addSignal(
      "error.end_effector", "m", "distance of the end effector from the desired path point");
  addSignal("error.end_effector_path", "m",
            "distance of the end effector from the arc's circle (path-normal error)");
  feedforward_signal_ = static_cast<int>(signals_.size());
  for (int i = 0; i < model.numInputs(); ++i) {
    const bool force = inverse_.structure().prismatic[inverse_.structure().actuated[i]];
    addSignal("control.feedforward." + model.actuators[i].name, force ? "N" : "N m",
              "feedforward input u_d of actuator " + model.actuators[i].name);
  }
  x_ = model.initial_state.x;
  const int m = model.numInputs();
  error_.resize(m);
  error_rate_.resize(m);
  feedback_.resize(m);
}

bool ServoConstraintPd::prepareFeedforward() {
  if (prepared_ && parameters_.version() == prepared_version_)
    return feedforward_.ok || fail(std::string(kName) + ": " + feedforward_.message);
  prepared_version_ = parameters_.version();
  std::vector<double> values;
  for (int i = first_feedforward_parameter_; i < parameters_.size(); ++i)
    values.push_back(parameters_[i]);
  if (prepared_ && values == prepared_values_)
    return feedforward_.ok || fail(std::string(kName) + ": " + feedforward_.message);
  prepared_ = true;
  prepared_values_ = values;
  feedforward_ = ServoFeedforward{};

  ServoInversionSettings s;
  s.path.center_x = param("center_x");
  s.path.center_y = param("center_y");
  s.path.radius = param("radius");
  s.path.angle_start = param("angle_start");
  s.path.angle_end = param("angle_end");
  s.path.cart_start = param("cart_start");
  s.path.cart_end = param("cart_end");
  s.path.t_start = param("t_start");
  s.path.duration = param("duration");
  const double degree = param("degree");
  if (degree != 5.0 && degree != 7.0 && degree != 9.0) {
    feedforward_.message = "parameter degree must be 5, 7 or 9";
    return fail(std::string(kName) + ": " + feedforward_.message);
  }
  s.path.degree = static_cast<int>(degree);
  s.output =
      param("exact_output") >= 0.5 ? ServoOutput::EndEffector : ServoOutput::LinearlyCombined;
  s.stable_inversion = param("stable_inversion") >= 0.5;
  s.pre_actuation = param("pre_actuation");
  s.post_actuation = param("post_actuation");
  s.step = param("inversion_step");
  s.end_effector_body = end_effector_body_;
  s.end_effector_point = Vec3(param("end_effector_x"), param("end_effector_y"),
                              param("end_effector_z"));
  s.plane_axes[0] = plane_axes_[0];
  s.plane_axes[1] = plane_axes_[1];
  const ServoStructure& st = inverse_.structure();
  s.gamma = MatX::Zero(st.m, static_cast<int>(st.passive.size()));
  inverse_.configure(s);
  if (geometric_gamma_) {
    s.gamma = inverse_.geometricGamma();
  } else {
    for (int j = 0; j < static_cast<int>(gamma_parameters_.size()); ++j)
      s.gamma(st.m - 1, j) = parameters_[gamma_parameters_[j]];
  }
  inverse_.configure(s);
  feedforward_ = inverse_.computeFeedforward();
  if (!feedforward_.ok) return fail(std::string(kName) + ": " + feedforward_.message);
  return true;
}

bool ServoConstraintPd::sampleFeedforward(double t, ServoPoint& out) {
  if (!prepareFeedforward()) return false;
  if (!inverse_.sample(feedforward_, t, out))
    return fail(std::string(kName) + ": " + inverse_.message());
  return true;
}

bool ServoConstraintPd::compute(double t, const State& state, const ReferenceSample& /*reference*/,
                                VecX& u) {
  if (!sampleFeedforward(t, point_)) return false;
  evaluatePlant(model_, state, ws_, plant_);
  const ServoStructure& st = inverse_.structure();
  const double omega = param("omega"), zeta = param("zeta");
  for (int i = 0; i < st.m; ++i) {
    const int c = st.actuated[i];
    error_[i] = point_.q[c] - state.x[c];
    error_rate_[i] = point_.qd[c] - state.xi[c];
  }
  // Decentralized PD on q_a around the feedforward (Sect. 4.2.7, feedback variant 1).
  const VecX v = omega * omega * error_ + 2.0 * zeta * omega * error_rate_;
  if (mass_scaling_) {
    for (int i = 0; i < st.m; ++i) {
      double sum = 0.0;
      for (int j = 0; j < st.m; ++j) sum += plant_.M(st.actuated[i], st.actuated[j]) * v[j];
      feedback_[i] = sum;
    }
  } else {
    feedback_ = v;
  }
  u = point_.u + feedback_;
  if (!u.allFinite()) return fail(std::string(kName) + ": non-finite input");
  x_ = state.x;
  return true;
}

void ServoConstraintPd::updateSignals() {
  if (point_.q.size() != model_.nx) return;  // no successful compute() yet
  computeKinematics(model_, point_.q, point_.qd, ws_ref_);
  tracking_.evaluate(ws_, ws_ref_, x_, point_.q, signal_values_.data());
  const Pose& G = ws_.pose[end_effector_body_];
  const Vec3 p = G.r + G.R * Vec3(param("end_effector_x"), param("end_effector_y"),
                                  param("end_effector_z"));
  const Eigen::Vector2d r(p[plane_axes_[0]], p[plane_axes_[1]]);
  signal_values_[end_effector_signal_] = (r - point_.r_desired).norm();
  const ServoPath& path = inverse_.settings().path;
  signal_values_[end_effector_signal_ + 1] =
      std::abs((r - Eigen::Vector2d(path.center_x, path.center_y)).norm() - path.radius);
  for (int i = 0; i < model_.numInputs(); ++i)
    signal_values_[feedforward_signal_ + i] = point_.u[i];
}

std::unique_ptr<Controller> makeServoConstraintPd(const Model& model,
                                                  const ControllerSettings& settings) {
  return std::make_unique<ServoConstraintPd>(model, settings);
}

}  // namespace rbs
