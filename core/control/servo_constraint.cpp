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
  p_.omega = parameters_.add({"omega", "rad/s", "PD on the actuated coordinates: K_p = omega^2", 20.0, 0.0,
                   1000.0});
  p_.zeta = parameters_.add({"zeta", "1", "PD damping ratio: K_d = 2 zeta omega", 1.0, 0.0, 10.0});
  p_.exact_output = parameters_.add({"exact_output", "1",
                   "0: linearly combined output q_a + Gamma q_u (4.5), 1: exact end effector (4.6)",
                   0.0, 0.0, 1.0});
  p_.stable_inversion = parameters_.add({"stable_inversion", "1",
                   "0: forward integration (minimum phase), 1: stable inversion (BVP)", 1.0, 0.0,
                   1.0});
  p_.pre_actuation = parameters_.add({"pre_actuation", "s", "feedforward window before t_start", 0.2, 0.0, 10.0});
  p_.post_actuation = parameters_.add({"post_actuation", "s", "feedforward window after the motion", 0.3, 0.0, 10.0});
  p_.inversion_step = parameters_.add({"inversion_step", "s", "collocation grid of the inverse model (RK4: a quarter)",
                   1e-3, 1e-5, 1e-2, ParameterScale::Log});
  p_.center_x = parameters_.add({"center_x", "m", "arc centre, first plane axis", path.center_x, -100.0, 100.0});
  p_.center_y = parameters_.add({"center_y", "m", "arc centre, second plane axis", path.center_y, -100.0, 100.0});
  p_.radius = parameters_.add({"radius", "m", "arc radius", path.radius, 0.0, 100.0});
  p_.angle_start = parameters_.add({"angle_start", "rad", "arc start angle from the first plane axis",
                   path.angle_start, -4.0 * pi, 4.0 * pi});
  p_.angle_end = parameters_.add({"angle_end", "rad", "arc end angle", path.angle_end, -4.0 * pi, 4.0 * pi});
  p_.cart_start = parameters_.add({"cart_start", "m", "first direct output (cart) at the start", path.cart_start,
                   -100.0, 100.0});
  p_.cart_end = parameters_.add({"cart_end", "m", "first direct output (cart) at the end", path.cart_end, -100.0,
                   100.0});
  p_.t_start = parameters_.add({"t_start", "s", "start of the motion t_0", path.t_start, 0.0, 1e4});
  p_.duration = parameters_.add({"duration", "s", "duration of the motion T", path.duration, 1e-3, 1e4});
  p_.degree = parameters_.add({"degree", "1", "rest-to-rest polynomial degree (5, 7 or 9)", 5.0, 5.0, 9.0});
  p_.end_effector[0] = parameters_.add({"end_effector_x", "m", "end-effector point, body frame x", 0.0, -100.0, 100.0});
  p_.end_effector[1] = parameters_.add({"end_effector_y", "m", "end-effector point, body frame y", 0.0, -100.0, 100.0});
  p_.end_effector[2] = parameters_.add({"end_effector_z", "m", "end-effector point, body frame z", 0.0, -100.0, 100.0});
  for (int c : inverse_.structure().passive) {
    std::string joint;
    for (const Joint& j : model.joints)
      if (j.nxi == 1 && j.xi_offset == c) joint = j.name;
    p_.gamma.push_back(parameters_.add(
        {"gamma_" + joint, "1",
         "Gamma: weight of passive joint " + joint + " in the last output (y = q_a + Gamma q_u)",
         0.0, -10.0, 10.0}));
  }

  // Every parameter from exact_output on shapes the feedforward (a change re-runs the inversion).
  for (const Parameter* h : {&p_.exact_output, &p_.stable_inversion, &p_.pre_actuation, &p_.post_actuation,
                             &p_.inversion_step, &p_.center_x, &p_.center_y, &p_.radius, &p_.angle_start,
                             &p_.angle_end, &p_.cart_start, &p_.cart_end, &p_.t_start, &p_.duration, &p_.degree,
                             &p_.end_effector[0], &p_.end_effector[1], &p_.end_effector[2]})
    feedforward_parameters_.push_back(*h);
  feedforward_parameters_.insert(feedforward_parameters_.end(), p_.gamma.begin(), p_.gamma.end());

  tracking_signals_ = addSignals(tracking_.signals());
  end_effector_signals_ = addSignals(
      {{"error.end_effector", "m", "distance of the end effector from the desired path point"},
       {"error.end_effector_path", "m", "distance of the end effector from the arc's circle (path-normal error)"}});
  std::vector<SignalInfo> feedforward;
  for (int i = 0; i < model.numInputs(); ++i) {
    const bool force = inverse_.structure().prismatic[inverse_.structure().actuated[i]];
    feedforward.push_back({"control.feedforward." + model.actuators[i].name, force ? "N" : "N m",
                           "feedforward input u_d of actuator " + model.actuators[i].name});
  }
  feedforward_signals_ = addSignals(feedforward);
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
  for (Parameter h : feedforward_parameters_) values.push_back(parameters_[h]);
  if (prepared_ && values == prepared_values_)
    return feedforward_.ok || fail(std::string(kName) + ": " + feedforward_.message);
  prepared_ = true;
  prepared_values_ = values;
  feedforward_ = ServoFeedforward{};

  ServoInversionSettings s;
  s.path.center_x = parameters_[p_.center_x];
  s.path.center_y = parameters_[p_.center_y];
  s.path.radius = parameters_[p_.radius];
  s.path.angle_start = parameters_[p_.angle_start];
  s.path.angle_end = parameters_[p_.angle_end];
  s.path.cart_start = parameters_[p_.cart_start];
  s.path.cart_end = parameters_[p_.cart_end];
  s.path.t_start = parameters_[p_.t_start];
  s.path.duration = parameters_[p_.duration];
  const double degree = parameters_[p_.degree];
  if (degree != 5.0 && degree != 7.0 && degree != 9.0) {
    feedforward_.message = "parameter degree must be 5, 7 or 9";
    return fail(std::string(kName) + ": " + feedforward_.message);
  }
  s.path.degree = static_cast<int>(degree);
  s.output =
      parameters_[p_.exact_output] >= 0.5 ? ServoOutput::EndEffector : ServoOutput::LinearlyCombined;
  s.stable_inversion = parameters_[p_.stable_inversion] >= 0.5;
  s.pre_actuation = parameters_[p_.pre_actuation];
  s.post_actuation = parameters_[p_.post_actuation];
  s.step = parameters_[p_.inversion_step];
  s.end_effector_body = end_effector_body_;
  s.end_effector_point = Vec3(parameters_[p_.end_effector[0]], parameters_[p_.end_effector[1]],
                              parameters_[p_.end_effector[2]]);
  s.plane_axes[0] = plane_axes_[0];
  s.plane_axes[1] = plane_axes_[1];
  const ServoStructure& st = inverse_.structure();
  s.gamma = MatX::Zero(st.m, static_cast<int>(st.passive.size()));
  inverse_.configure(s);
  if (geometric_gamma_) {
    s.gamma = inverse_.geometricGamma();
  } else {
    for (int j = 0; j < static_cast<int>(p_.gamma.size()); ++j)
      s.gamma(st.m - 1, j) = parameters_[p_.gamma[static_cast<std::size_t>(j)]];
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
  const double omega = parameters_[p_.omega], zeta = parameters_[p_.zeta];
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
  tracking_.evaluate(ws_, ws_ref_, x_, point_.q, signalBlock(tracking_signals_));
  const Pose& G = ws_.pose[end_effector_body_];
  const Vec3 p = G.r + G.R * Vec3(parameters_[p_.end_effector[0]], parameters_[p_.end_effector[1]],
                                  parameters_[p_.end_effector[2]]);
  const Eigen::Vector2d r(p[plane_axes_[0]], p[plane_axes_[1]]);
  signal(end_effector_signals_, 0) = (r - point_.r_desired).norm();
  const ServoPath& path = inverse_.settings().path;
  signal(end_effector_signals_, 1) =
      std::abs((r - Eigen::Vector2d(path.center_x, path.center_y)).norm() - path.radius);
  for (int i = 0; i < model_.numInputs(); ++i)
    signal(feedforward_signals_, i) = point_.u[i];
}

std::unique_ptr<Controller> makeServoConstraintPd(const Model& model,
                                                  const ControllerSettings& settings) {
  return std::make_unique<ServoConstraintPd>(model, settings);
}

}  // namespace rbs
