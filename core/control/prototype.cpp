#include "core/control/prototype.h"

#include <algorithm>
#include <cmath>
#include <string>
#include <limits>

#include "core/control/registry.h"
#include "core/model/input_sets.h"
#include "core/dynamics/dynamics.h"
#include "core/dynamics/kinematics.h"
#include "core/control/recovery.h"
#include "core/control/reference_settings_reader.h"

namespace rbs {
namespace {

constexpr double kBig = 1e6;

/// Tolerance on transportMapResidual(): rounding of a few 6×6 products (≈ 1e-15) times the
/// condition of the stacked Jacobian; a real mismatch is O(1).
constexpr double kTransportMapTolerance = 1e-8;
/// recovery: the spin about the thrust axis gets the first priority while stabilizing when the
/// vehicle's largest angular acceleration about it is at least this share of the smaller one about
/// the tilt axes (makeRecoveryPriorities).
constexpr double kSpinFirstAuthority = 0.5;

ParameterSpec positive(const char* name, const char* unit, const char* what, double def) {
  return {name, unit, what, def, 1e-6, kBig, ParameterScale::Log};
}
ParameterSpec nonNegative(const char* name, const char* unit, const char* what, double def) {
  return {name, unit, what, def, 0.0, kBig, ParameterScale::Linear};
}
ParameterSpec length(const char* name, const char* what, double def) {
  return {name, "m", what, def, -10.0, 10.0, ParameterScale::Linear};
}

/// Coefficients of (λ + p)⁴ = λ⁴ + p3 λ³ + p2 λ² + p1 λ + p0.
struct Quartic {
  double p3, p2, p1, p0;
  explicit Quartic(double p) : p3(4 * p), p2(6 * p * p), p1(4 * p * p * p), p0(p * p * p * p) {}
};

/// How far the inputs can push the generalized force along row k of B in the sense `sign`, within
/// their bounds: Σᵢ max(uᵢ_min s B_ki, uᵢ_max s B_ki) (the input sets are tighter; an input that
/// does not act along the row adds nothing, even when unbounded).
double inputReach(const MatX& B, Eigen::Index k, double sign, const VecX& lower, const VecX& upper) {
  double reach = 0.0;
  for (Eigen::Index i = 0; i < B.cols(); ++i) {
    const double b = sign * B(k, i);
    if (std::abs(b) > 1e-12) reach += std::max(lower(i) * b, upper(i) * b);
  }
  return reach;
}

/// Recovery's stabilizing template and priorities take the base's z axis as the thrust axis. Every
/// body force must act on the base, or on a body fixed to it (a locked rotor), and together the
/// forces must push harder along base z than along any other base axis direction (±x, ±y, −z):
/// the inputReach of B's force rows (o, o + 1, o + 2: the root joint's ξ is the base's twist in
/// base axes) is largest along +z. That holds for a multicopter's rotors and for thrust vectors
/// tilted about the z axis (the bicopter's: 27.6 N up against 14 N along x). Rotors on bodies that
/// move on the base are refused (ControlError); the tricopter's tilting arms recover with
/// tiltrotor_inversion. `B`: at the initial state.
void checkThrustAxisIsBaseZ(const Model& model, int base_body, int o, const MatX& B, const VecX& lower, const VecX& upper) {
  bool any = false;
  for (const Actuator& a : model.actuators) {
    if (a.kind != ActuatorKind::BodyForce) continue;
    any = true;
    bool fixed = true;
    int b = a.body;
    for (; b >= 0 && b != base_body; b = model.joints[b].parent) fixed = fixed && model.joints[b].nxi == 0;
    if (b != base_body || !fixed)
      throw ControlError("recovery needs the thrusts on the base body or on bodies fixed to it; actuator '" + a.name +
                         "' pushes a body that moves on the base (tilting arms are not supported by this controller)");
  }
  if (!any) return;
  static constexpr const char* kDirections[6] = {"+x", "-x", "+y", "-y", "+z", "-z"};
  const double up = inputReach(B, o + 2, 1.0, lower, upper);
  for (int k = 0; k < 6; ++k) {
    const double reach = inputReach(B, o + k / 2, k % 2 == 0 ? 1.0 : -1.0, lower, upper);
    if (k != 4 && !(up > reach))
      throw ControlError(std::string("recovery needs the base's z axis as the thrust axis: the actuators push up to ") +
                         formatNumber(reach) + " N along base " + kDirections[k] + " against " + formatNumber(up) +
                         " N along +z");
  }
}

}  // namespace

PrototypeController::PrototypeController(const Model& model, VelocityError variant,
                                         const ControllerSettings& settings)
    : model_(model),
      template_(model, {}, variant),
      stabilizing_(model, {}, VelocityError::Body),
      tracking_(model, settings.options.count("tracked_body") ? settings.options.at("tracked_body") : ""),
      ws_(model),
      ws_ref_(model),
      // A single rigid body with body wrenches has constant M and B; the base pair's M̄ is
      // constant too (J = I), so the allocation can keep explicit inverses.
      allocator_(model.nxi, model.numInputs(), model.single_rigid_body) {
  checkControllerOptions(settings, {"template", "gains", "matching", "allocation", "tracked_body", "tool_body", "recovery",
                                    "rejoin_heading"});
  if (model.numInputs() == 0) throw ControlError(std::string(name()) + ": the model has no actuators");
  gravity_ = model.gravity.norm();

  const int base = baseJointIndex(model);
  if (base >= 0) base_body_ = model.joints[base].child;
  const std::string layout =
      controllerOption(settings, "template", base >= 0 ? "base" : "joints", {"base", "joints", "base_joints", "tool"});
  layout_ = layout == "base"          ? Layout::Base
            : layout == "joints"      ? Layout::Joints
            : layout == "base_joints" ? Layout::BaseJoints
                                      : Layout::Tool;
  const std::string gains = controllerOption(settings, "gains", "raw", {"raw", "natural", "poles"});
  gains_ = gains == "raw" ? Gains::Raw : gains == "natural" ? Gains::Natural : Gains::Poles;
  const std::string matching = controllerOption(settings, "matching", "none", {"none", "multicopter", "pvtol", "two_mass"});
  matching_ = matching == "none"          ? Matching::None
              : matching == "multicopter" ? Matching::Multicopter
              : matching == "pvtol"       ? Matching::Pvtol
                                          : Matching::TwoMass;
  const std::string alloc = controllerOption(settings, "allocation", "auto", {"auto", "exact", "least_squares", "constrained"});
  recovery_requested_ = controllerOption(settings, "recovery", "off", {"on", "off"}) == "on";
  const RejoinHeading rejoin_heading = Recovery::headingOption(settings);
  bool bounded = false;
  lower_.resize(model.numInputs());
  upper_.resize(model.numInputs());
  for (int i = 0; i < model.numInputs(); ++i) {
    lower_[i] = model.actuators[i].lower;
    upper_[i] = model.actuators[i].upper;
    bounded |= lower_[i] > -1e299 || upper_[i] < 1e299;
  }
  if (!model.input_sets.empty()) {  // (4.63) with W u ≤ l: the polygonal sets join the bounds
    MatX W;
    VecX l;
    stackInputSetRows(model, W, l);
    allocator_.setInputSetRows(W, l);
    bounded = true;
  }
  decideInverseDynamicsAllocation();
  allocation_mode_ = alloc == "exact"           ? AllocationMode::Exact
                     : alloc == "least_squares" ? AllocationMode::LeastSquares
                     : alloc == "constrained"   ? AllocationMode::Constrained
                     : bounded                  ? AllocationMode::Constrained
                                                : AllocationMode::LeastSquares;
  if (allocation_mode_ == AllocationMode::Exact && model.numInputs() != model.nxi)
    throw ControlError(std::string(name()) + ": allocation exact needs one input per velocity coordinate (n = " +
                       std::to_string(model.nxi) + ", inputs = " + std::to_string(model.numInputs()) + ")");

  // ---- the pairs ----
  std::vector<TemplatePair> pairs;
  if (matching_ == Matching::TwoMass) {
    std::vector<int> prismatic;
    for (int j = 0; j < static_cast<int>(model.joints.size()); ++j)
      if (model.joints[j].type == JointType::Prismatic) prismatic.push_back(j);
    if (prismatic.size() < 2 || model.springs.empty())
      throw ControlError("matching two_mass needs two prismatic joints and a spring between their bodies");
    const int b1 = model.joints[prismatic[0]].child, b2 = model.joints[prismatic[1]].child;
    // ϖ = k / M₂ (§4.8.1): the only model parameter the matching depends on.
    two_mass_varpi_ = model.springs.front().stiffness(0, 0) / model.bodies[b2].mass;
    pairs.push_back({"mass1", Frame{}, Frame{b1, Pose{}}});
    pairs.push_back({"mass2", Frame{}, Frame{b2, Pose{}}});
    pairs.push_back({"coupling", Frame{b1, Pose{}}, Frame{b2, Pose{}}});
  } else if (layout_ != Layout::Tool) {
    if (layout_ != Layout::Joints) {
      if (base_body_ < 0)
        throw ControlError(std::string(name()) + ": template " + layout + " needs a free, planar or spherical root joint");
      pairs.push_back({"base", Frame{}, Frame{base_body_, Pose{}}});
    }
    first_joint_pair_ = pairs.size();
    if (layout_ != Layout::Base) {
      for (int j = 0; j < static_cast<int>(model.joints.size()); ++j) {
        const Joint& joint = model.joints[j];
        if (joint.nxi == 0 || (layout_ == Layout::BaseJoints && j == base)) continue;
        pairs.push_back({joint.name, Frame{joint.parent, joint.parent_placement},
                         Frame{joint.child, joint.child_placement.inverse()},
                         joint.type == JointType::SphericalAbsolute ? -1 : j});
      }
    }
  } else {
    const auto it = settings.options.find("tool_body");
    const std::string tool = it != settings.options.end() ? it->second : model.bodies.back().name;
    tool_body_ = model.bodyIndex(tool);
    if (tool_body_ < 0) throw ControlError(std::string(name()) + ": option tool_body: no body named '" + tool + "'");
    pairs.push_back({"tool", Frame{}, Frame{tool_body_, Pose{}}});
  }
  if ((matching_ == Matching::Multicopter || matching_ == Matching::Pvtol) && layout_ != Layout::Base &&
      layout_ != Layout::BaseJoints)
    throw ControlError(std::string(name()) + ": matching " + matching + " needs template base or base_joints");
  if (gains_ == Gains::Poles && matching_ == Matching::None)
    throw ControlError(std::string(name()) + ": gains poles needs matching multicopter, pvtol or two_mass");
  if (gains_ == Gains::Natural && matching_ != Matching::None)
    throw ControlError(std::string(name()) + ": gains natural applies to matching none; a matched template "
                       "takes gains raw or poles");
  template_.pairs() = std::move(pairs);
  template_.setVariant(variant);
  if (recovery_requested_) {
    if (layout_ == Layout::Joints || layout_ == Layout::Tool || base < 0 ||
        !hasIdentityMotionSubspace(model.joints[base]) || model.joints[base].parent >= 0)
      throw ControlError(std::string(name()) + ": option recovery needs a vehicle on a free root joint (without child "
                         "placement) and a template with its base pair (template base or base_joints)");
  }

  declareParameters();
  // The allocation can be switched during a run (the GUI's combo box); the option sets the start.
  // Exact allocation exists only for as many inputs as velocity coordinates.
  std::vector<std::string> allocation_names;
  if (model.numInputs() == model.nxi) {
    allocation_modes_.push_back(AllocationMode::Exact);
    allocation_names.push_back("exact");
  }
  allocation_modes_.insert(allocation_modes_.end(), {AllocationMode::LeastSquares, AllocationMode::Constrained});
  allocation_names.insert(allocation_names.end(), {"least_squares", "constrained"});
  const auto initial = std::find(allocation_modes_.begin(), allocation_modes_.end(), allocation_mode_);
  p_allocation_ = parameters_.add(ParameterSpec::choice(
      "allocation", "how the inputs realize the template: exact (B square), weighted least squares, or with the input bounds",
      allocation_names, allocation_names[initial - allocation_modes_.begin()]));

  // ---- signals ----
  tracking_signals_ = addSignals(tracking_.signals());
  control_signals_ = addSignals({
      {"control.energy", "J", "template error energy W = T + V (prototype energy)"},
      {"control.energy_kinetic", "J", "template error kinetic energy T"},
      {"control.energy_potential", "J", "template error potential energy V"},
      {"control.energy_rate", "W", "dW/dt along the actual motion"},
      {"control.template_power", "W", "template power -2R (what dW/dt is when the template is realized)"},
      {"control.matching_residual", "m^2/s^4 kg", "matching residual G0 = 1/2 lambda^T S lambda (4.57)"},
      {"control.template_deviation", "m^2/s^4 kg", "1/2 |a - a_des|^2 in the metric of the desired inertia, at the applied u"},
      {"control.saturated", "1", "number of inputs on a bound"}});
  std::vector<SignalInfo> saturation;
  for (const Actuator& a : model.actuators)
    saturation.push_back({"saturation." + a.name, "1", "input " + a.name + ": -1 on its lower bound, +1 on its upper, 0 free"});
  saturation_signals_ = addSignals(saturation);
  std::vector<SignalInfo> sets;
  for (const InputSet& set : model.input_sets)
    sets.push_back({"input_set." + set.name, "1", "1 while an edge of the input set " + set.name + " holds the input, else 0"});
  input_set_signals_ = addSignals(sets);
  if (recovery_requested_) {
    evaluatePlant(model, model.initial_state, ws_, plant_);  // B at the start: what the inputs reach
    checkThrustAxisIsBaseZ(model, base_body_, model.joints[base].xi_offset, plant_.B, lower_, upper_);
    recovery_ = std::make_unique<Recovery>(model, parameters_, rejoin_heading);
    recovery_signals_ = addSignals({{"control.recovery", "1", "recovery phase: 0 tracking, 1 stabilizing, 2 returning, 3 rejoining"},
                                    {"control.delay", "s", "how late the manoeuvre runs against its own timetable (recovery)"}});
    makeStabilizingTemplate();
    makeRecoveryPriorities();
  }
  updatePairs();
}

std::string_view PrototypeController::name() const {
  switch (template_.variant()) {
    case VelocityError::Particle: return "prototype_particle";
    case VelocityError::Body: return "prototype_body";
    case VelocityError::Energy: return "prototype_energy";
  }
  return "prototype";
}

void PrototypeController::declareParameters() {
  ParameterSet& p = parameters_;
  // Defaults: the plant's own inertia where there is a body, ω = 4 rad/s, ζ = 1.
  const Body* body = base_body_ >= 0 ? &model_.bodies[base_body_] : nullptr;
  const double m0 = body ? body->mass : 1.0;
  const Vec3 th0 = body ? Vec3(body->inertia_com.diagonal()) : Vec3::Ones();
  const double w0 = 4.0, z0 = 1.0;
  auto natural = [&](bool rotation) {
    p_.omega = p.add({"omega", "rad/s", "natural frequency of the translation (k = m w^2, d = 2 zeta w m)", w0, 1e-3, 1e3, ParameterScale::Log});
    p_.zeta = p.add({"zeta", "1", "damping ratio of the translation", z0, 0.0, 10.0});
    if (rotation) {
      p_.omega_rot = p.add({"omega_rot", "rad/s", "natural frequency of the rotation (Pi = Theta w^2)", w0, 1e-3, 1e3, ParameterScale::Log});
      p_.zeta_rot = p.add({"zeta_rot", "1", "damping ratio of the rotation (Upsilon = 2 zeta w Theta)", z0, 0.0, 10.0});
    }
  };
  switch (matching_) {
    case Matching::Multicopter:
    case Matching::Pvtol: {
      const bool pvtol = matching_ == Matching::Pvtol;
      p_.mbar = p.add(positive("mbar", "kg", "desired mass (scales the template; priority in the allocation)", m0));
      if (gains_ == Gains::Poles) {
        p_.pole = p.add({"pole", "rad/s", "quadruple pole -p of the tilt/translation quartic (4.140)", 5.0, 1e-2, 1e3, ParameterScale::Log});
      } else {
        p_.dbar = p.add(nonNegative("dbar", "N s/m", "desired damping", 4.0 * m0));
        p_.kbar = p.add(nonNegative("kbar", "N/m", "desired stiffness", 5.0 * m0));
        p_.hbar_thrust = p.add(length(pvtol ? "hbar_y" : "hbar_z", "centre of stiffness (above the desired centre of mass)", 0.39));
        p_.sbar_thrust = p.add(length(pvtol ? "sbar_y" : "sbar_z", "desired centre of mass", 0.08));
      }
      if (pvtol) {
        p_.epsilon = p.add({"epsilon", "m", "flat-output offset eps = Theta_z sin(beta) / (m l_A cos(beta)) (4.130)", 0.0, -1.0, 1.0});
      } else {
        p_.heading_thetabar = p.add(positive("thetabar_z", "kg m^2", "desired heading inertia (priority of heading vs tilt)", 0.1 * th0.x()));
        p_.heading_upsilonbar = p.add(nonNegative("upsilonbar_z", "N m s", "desired heading damping", 0.8 * th0.x()));
        p_.heading_pibar = p.add(nonNegative("pibar_z", "N m", "desired heading stiffness", 1.6 * th0.x()));
      }
      break;
    }
    case Matching::TwoMass:
      if (gains_ == Gains::Poles) {
        p_.pole = p.add({"pole", "rad/s", "quadruple pole -p of the closed loop (4.128a)", 2.0, 1e-2, 1e3, ParameterScale::Log});
        p_.mbar_12 = p.add({"mbar_12", "kg", "desired coupling inertia (its sign must equal sign(varpi p3 - p1))", -1.0, -kBig, kBig});
      } else {
        p_.mbar_1 = p.add({"mbar_1", "kg", "desired inertia of mass 1", 4.0 / 3.0, -kBig, kBig});
        p_.mbar_2 = p.add({"mbar_2", "kg", "desired inertia of mass 2", 76.0 / 3.0, -kBig, kBig});
        p_.mbar_12 = p.add({"mbar_12", "kg", "desired coupling inertia", -1.0, -kBig, kBig});
        p_.dbar_1 = p.add({"dbar_1", "N s/m", "desired damping of mass 1", 32.0 / 3.0, -kBig, kBig});
        p_.kbar_1 = p.add({"kbar_1", "N/m", "desired stiffness of mass 1", 16.0 / 3.0, -kBig, kBig});
      }
      break;
    case Matching::None:
      if (layout_ == Layout::Base || layout_ == Layout::BaseJoints) {
        const char* axes[3] = {"x", "y", "z"};
        p_.mbar = p.add(positive("mbar", "kg", "desired mass", m0));
        for (int i = 0; i < 3; ++i)
          p_.thetabar_axes[i] = p.add(positive(("thetabar_" + std::string(axes[i])).c_str(), "kg m^2", "desired moment of inertia about the desired centre of mass", th0[i]));
        if (gains_ == Gains::Natural) {
          natural(true);
        } else {
          p_.dbar = p.add(nonNegative("dbar", "N s/m", "desired damping", 2.0 * z0 * w0 * m0));
          p_.kbar = p.add(nonNegative("kbar", "N/m", "desired stiffness", w0 * w0 * m0));
          for (int i = 0; i < 3; ++i)
            p_.upsilonbar_axes[i] = p.add(nonNegative(("upsilonbar_" + std::string(axes[i])).c_str(), "N m s", "desired moment of damping about its centre", 2.0 * z0 * w0 * th0[i]));
          for (int i = 0; i < 3; ++i)
            p_.pibar_axes[i] = p.add(nonNegative(("pibar_" + std::string(axes[i])).c_str(), "N m", "desired moment of stiffness about its centre", w0 * w0 * th0[i]));
          const std::pair<const char*, Parameter*> centres[] = {
              {"sbar", p_.sbar_axes}, {"lbar", p_.lbar_axes}, {"hbar", p_.hbar_axes}};
          for (const auto& [c, handles] : centres)
            for (int i = 0; i < 3; ++i)
              handles[i] = p.add(length((std::string(c) + "_" + axes[i]).c_str(),
                                        c[0] == 's' ? "desired centre of mass" : c[0] == 'l' ? "centre of damping" : "centre of stiffness", 0.0));
        }
      } else {
        // joints and tool: isotropic translation and rotation per pair.
        const bool tool = layout_ == Layout::Tool;
        p_.mbar = p.add({"mbar", "kg", "desired mass", 1.0, tool ? 1e-6 : 0.0, kBig, tool ? ParameterScale::Log : ParameterScale::Linear});
        p_.thetabar = p.add({"thetabar", "kg m^2", "desired moment of inertia (about each axis)", tool ? 0.0 : 1.0, 0.0, kBig});
        if (gains_ == Gains::Natural) {
          natural(false);
        } else {
          p_.dbar = p.add(nonNegative("dbar", "N s/m", "desired damping", 2.0 * z0 * w0));
          p_.kbar = p.add(nonNegative("kbar", "N/m", "desired stiffness", w0 * w0));
          p_.upsilonbar = p.add(nonNegative("upsilonbar", "N m s", "desired rotational damping", tool ? 0.0 : 2.0 * z0 * w0));
          p_.pibar = p.add(nonNegative("pibar", "N m", "desired rotational stiffness", tool ? 0.0 : w0 * w0));
        }
        if (tool) {
          const char* names[3] = {"tool_x", "tool_y", "tool_z"};
          for (int i = 0; i < 3; ++i) p_.tool[i] = p.add(length(names[i], "tool point in the tool body frame", 0.0));
        }
      }
      break;
  }
  if (recovery_requested_) {
    // ½ m g of the whole vehicle (every body of the model rides on its free root joint), not of the
    // base alone: the propeller quadcopter's central body is 0.961 of its 1.001 kg.
    double vehicle_mass = 0.0;
    for (const Body& b : model_.bodies) vehicle_mass += b.mass;
    p_.force_limit = p.add(positive("force_limit", "N", "largest pull of the template's spring at its centre (recovery: the bounded template)",
                                    0.5 * vehicle_mass * gravity_));
    p_.recovery_omega = p.add({"recovery_omega", "rad/s", "recovery: tilt frequency of the stabilizing template", 6.0,
                               0.1, 100.0, ParameterScale::Log});
  }
  if (layout_ == Layout::BaseJoints) {
    p_.joint_mbar = p.add({"joint_mbar", "kg", "desired mass of each joint pair (prismatic joints)", 0.01, 0.0, kBig});
    p_.joint_thetabar = p.add({"joint_thetabar", "kg m^2", "desired moment of inertia of each joint pair (about its axes)", 1e-3, 0.0, kBig});
    p_.joint_omega = p.add({"joint_omega", "rad/s", "natural frequency of the joint pairs", 10.0, 1e-3, 1e3, ParameterScale::Log});
    p_.joint_zeta = p.add({"joint_zeta", "1", "damping ratio of the joint pairs", 1.0, 0.0, 10.0});
  }
}

void PrototypeController::updatePairs() {
  if (parameters_.version() == parameters_version_) return;
  parameters_version_ = parameters_.version();
  allocation_mode_ = allocation_modes_[static_cast<std::size_t>(parameters_[p_allocation_])];
  std::vector<TemplatePair>& pairs = template_.pairs();
  const Mat3 I = Mat3::Identity();
  const ParameterSet& p = parameters_;
  auto setPair = [](TemplatePair& pr, double m, const Vec3& s, const Mat3& th, double d, const Vec3& l,
                    const Mat3& up, double k, const Vec3& h, const Mat3& pi) {
    pr.inertia = momentMatrix(m, s, th);
    pr.damping = momentMatrix(d, l, up);
    pr.stiffness = momentMatrix(k, h, pi);
  };
  updateJointPairs();
  updateForceLimits();
  switch (matching_) {
    case Matching::Multicopter:
    case Matching::Pvtol: {
      const bool pvtol = matching_ == Matching::Pvtol;
      const double m = p[p_.mbar];
      const double eps = pvtol ? p[p_.epsilon] : 0.0;
      const double g = gravity_;
      double d, k, h, s, theta, pi;
      if (gains_ == Gains::Poles) {
        // (4.141)/(4.142) with the p0 p3² correction of konz-control §13.
        const Quartic q(p[p_.pole]);
        const double delta = q.p1 * q.p2 - q.p0 * q.p3;
        const double h3 = q.p1 * q.p2 * q.p3 - q.p1 * q.p1 - q.p0 * q.p3 * q.p3;
        k = m * q.p0 * q.p1 / delta;
        d = m * q.p1 * q.p1 / delta;
        h = eps + g * q.p3 / q.p1;
        s = eps + g * q.p1 / delta;
        theta = m * g * g * h3 / (delta * delta);
        pi = m * g * g * h3 / (q.p1 * delta);
      } else {
        d = p[p_.dbar];
        k = p[p_.kbar];
        h = p[p_.hbar_thrust];
        s = p[p_.sbar_thrust];
        // (4.136) / (4.148): Θ̄ = m̄ (h̄ − s̄)(s̄ − ε), Π̄ = m̄ g (h̄ − s̄), l̄ = h̄, Ῡ = 0.
        theta = m * (h - s) * (s - eps);
        pi = m * g * (h - s);
      }
      const int axis = pvtol ? 1 : 2;  // the thrust axis: body y (PVTOL), body z (multicopter)
      const Vec3 s_vec = s * Vec3::Unit(axis), h_vec = h * Vec3::Unit(axis);
      Mat3 th = theta * I, up = Mat3::Zero(), pm = pi * I;
      if (!pvtol) {  // heading channel: free parameters
        th(2, 2) = p[p_.heading_thetabar];
        up(2, 2) = p[p_.heading_upsilonbar];
        pm(2, 2) = p[p_.heading_pibar];
      }
      setPair(pairs[0], m, s_vec, th, d, h_vec, up, k, h_vec, pm);
      break;
    }
    case Matching::TwoMass: {
      // (4.125) and, for gains poles, the pole placement (4.128a).
      const double w = two_mass_varpi_;
      double m1, m2, m12, d1, k1;
      m12 = p[p_.mbar_12];
      if (gains_ == Gains::Poles) {
        const Quartic q(p[p_.pole]);
        const double delta = w * q.p3 - q.p1;
        k1 = m12 * q.p0 * q.p3 / delta;
        d1 = m12 * q.p1 * q.p3 / delta;
        m1 = m12 * q.p1 / delta;
        m2 = m12 * (q.p1 * q.p2 - q.p0 * q.p3 - w * q.p1) / (w * delta);
      } else {
        m1 = p[p_.mbar_1];
        m2 = p[p_.mbar_2];
        d1 = p[p_.dbar_1];
        k1 = p[p_.kbar_1];
      }
      const double d12 = m12 / m1 * d1, d2 = -m12 / (m1 + m12) * d1;
      const double k12 = m12 / m1 * k1 + (m1 * m2 + m1 * m12 + m2 * m12) / m1 * w;
      const double k2 = -m12 / (m1 + m12) * k1;
      const Vec3 o = Vec3::Zero();
      const Mat3 z = Mat3::Zero();
      setPair(pairs[0], m1, o, z, d1, o, z, k1, o, z);
      setPair(pairs[1], m2, o, z, d2, o, z, k2, o, z);
      setPair(pairs[2], m12, o, z, d12, o, z, k12, o, z);
      break;
    }
    case Matching::None: {
      auto axes = [&p](const Parameter (&h)[3]) { return Vec3(p[h[0]], p[h[1]], p[h[2]]); };
      if (layout_ == Layout::Base || layout_ == Layout::BaseJoints) {
        const double m = p[p_.mbar];
        const Vec3 th = axes(p_.thetabar_axes);
        if (gains_ == Gains::Natural) {
          setNaturalGains(pairs[0], m, th, p[p_.omega], p[p_.zeta], p[p_.omega_rot], p[p_.zeta_rot]);
        } else {
          const Vec3 s = axes(p_.sbar_axes), l = axes(p_.lbar_axes), h = axes(p_.hbar_axes);
          const Vec3 up = axes(p_.upsilonbar_axes), pi = axes(p_.pibar_axes);
          setPair(pairs[0], m, s, th.asDiagonal(), p[p_.dbar], l, up.asDiagonal(), p[p_.kbar], h, pi.asDiagonal());
        }
      } else {
        const double m = p[p_.mbar], th = p[p_.thetabar];
        const Vec3 o = Vec3::Zero();
        for (std::size_t i = first_joint_pair_; i < pairs.size(); ++i) {
          if (gains_ == Gains::Natural)
            setNaturalGains(pairs[i], m, Vec3::Constant(th), p[p_.omega], p[p_.zeta], p[p_.omega], p[p_.zeta]);
          else
            setPair(pairs[i], m, o, th * I, p[p_.dbar], o, p[p_.upsilonbar] * I, p[p_.kbar], o, p[p_.pibar] * I);
        }
        if (layout_ == Layout::Tool) pairs[0].b.offset = Pose::translation(axes(p_.tool));
      }
      break;
    }
  }
}

void PrototypeController::updateForceLimits() {
  if (!recovery_requested_) return;
  // The base pair pulls with at most force_limit; the others keep their springs' force (an infinite
  // limit) and get the half-angle rotation energy only (boundedStiffness).
  std::vector<TemplatePair>& pairs = template_.pairs();
  for (std::size_t i = 0; i < pairs.size(); ++i)
    pairs[i].force_limit = i < first_joint_pair_ && p_.force_limit.declared() ? parameters_[p_.force_limit]
                                                                             : std::numeric_limits<double>::infinity();
}

PrototypeTemplate& PrototypeController::activeTemplate() {
  if (!recovery_) return template_;
  updateStabilizingTemplate();  // kept current with the sliders (cached on their version and the spin)
  return recovery_->phase() == RecoveryPhase::Stabilizing ? stabilizing_ : template_;
}

void PrototypeController::makeStabilizingTemplate() {
  // The plant's own inertia for the vehicle: a pair from the world to every body fixed to the base
  // with the body's inertia, so that M̄ = M there and b̄ holds the plant's own velocity terms —
  // nothing of the vehicle's gyroscopic exchange is left for the inputs to undo at any spin
  // (docs/CONTROL.md "Recovery"). Bodies on moving joints (an arm, template base_joints) keep the
  // tracking template's joint pairs, inertia and gains (updateStabilizingTemplate follows them).
  std::vector<TemplatePair> pairs;
  for (int b = 0; b < static_cast<int>(model_.bodies.size()); ++b) {
    bool fixed_to_base = true;
    int up = b;
    for (; up >= 0 && up != base_body_; up = model_.joints[up].parent) fixed_to_base = fixed_to_base && model_.joints[up].nxi == 0;
    if (up != base_body_ || !fixed_to_base) continue;
    const Body& body = model_.bodies[b];
    TemplatePair pair{body.name, Frame{}, Frame{b, Pose{}}};
    pair.inertia = momentMatrix(body.mass, body.com, body.inertia_com);
    pair.force_limit = std::numeric_limits<double>::infinity();
    pairs.push_back(std::move(pair));
    if (b == base_body_) std::swap(pairs.back(), pairs.front());  // the base pair first
  }
  stabilizing_joint_pairs_ = pairs.size();
  if (layout_ == Layout::BaseJoints)
    for (std::size_t i = first_joint_pair_; i < template_.pairs().size(); ++i) pairs.push_back(template_.pairs()[i]);
  stabilizing_.pairs() = std::move(pairs);
  // The composite mass and moments of inertia about the composite centre of mass, base axes, at the
  // initial state: the scale of the stabilizing springs.
  const State& s0 = model_.initial_state;
  computeKinematics(model_, s0.x, s0.xi, ws_);
  double m = 0.0;
  Vec3 c = Vec3::Zero();
  for (int b = 0; b < static_cast<int>(model_.bodies.size()); ++b) {
    m += model_.bodies[b].mass;
    c += model_.bodies[b].mass * (ws_.pose[b] * model_.bodies[b].com);
  }
  c /= m;
  Mat3 I = Mat3::Zero();
  for (int b = 0; b < static_cast<int>(model_.bodies.size()); ++b) {
    const Body& body = model_.bodies[b];
    const Mat3& R = ws_.pose[b].R;
    const Vec3 d = ws_.pose[b] * body.com - c;
    I += R * body.inertia_com * R.transpose() + body.mass * (d.squaredNorm() * Mat3::Identity() - d * d.transpose());
  }
  const Mat3& R_base = ws_.pose[base_body_].R;
  composite_mass_ = m;
  composite_inertia_ = (R_base.transpose() * I * R_base).diagonal();
}

void PrototypeController::makeRecoveryPriorities() {
  // Strict priorities of a saturated free flyer while it recovers (docs/CONTROL.md "Recovery"):
  // its thrust direction (angular accelerations about body x and y), then its acceleration along
  // the thrust axis body z, then the template metric. The base body's twist is the root joint's ξ
  // (S_e = I). While tracking, the template's own weighted allocation (4.54) stays: where a
  // manoeuvre saturates the inputs for moments, it is the better compromise (the Table 5.1
  // quadcopter's flip: 1.29 cm / 1.52° rms with it, 1.52 cm / 1.78° with the priorities).
  const Model& model = model_;
  const int o = model.joints[baseJointIndex(model)].xi_offset;
  // An arm on the vehicle (template base_joints): its joints' accelerations in a level before the
  // others, owned by their torques (Allocator::PriorityLevel::owners). With the joints in the last
  // level, their torques served the tilt as a reaction wheel (the Kremer backflip twisted about x
  // mid-loop spun its arm 490 turns and was lost); as plain rows of the first level, an arm flung
  // out by a yaw spin drew the collective thrust to help its saturated torque, and the vehicle
  // climbed 1.6 km.
  std::vector<Allocator::PriorityLevel> levels{{MatX::Zero(2, model.nxi), {}}, {MatX::Zero(1, model.nxi), {}}};
  levels[0].accelerations(0, o + 3) = levels[0].accelerations(1, o + 4) = 1.0;
  levels[1].accelerations(0, o + 2) = 1.0;
  if (layout_ == Layout::BaseJoints && model.nxi > 6) {
    Allocator::PriorityLevel joints{MatX::Zero(model.nxi - 6, model.nxi), {}};
    for (int i = 0, row = 0; i < model.nxi; ++i)
      if (i < o || i >= o + 6) joints.accelerations(row++, i) = 1.0;
    for (int a = 0; a < model.numInputs(); ++a)
      if (model.actuators[a].kind == ActuatorKind::JointEffort && model.actuators[a].joint != baseJointIndex(model))
        joints.owners.push_back(a);
    levels.insert(levels.begin(), std::move(joints));
  }
  recovering_priorities_ = levels;
  // A vehicle that turns about its thrust axis about as readily as it tilts (the bicopter's thrust
  // vectors: 146 rad/s² about z against 133 about x) stops its spin first while stabilizing: a
  // spinning body carries H = Θ_z ω_z, and its thrust axis only precesses under tilt torques much
  // below H × its tilt rate (a bicopter twisted about z to 73 rad/s has H = 1.75 N m s against its
  // 1.1 N m of pitch torque). A multicopter's yaw torque is its rotors' drag, a tenth of its tilt
  // authority or less, and bought with thrust: its heading stays last. The reach of each axis is
  // the smaller of its two senses (inputReach of B's torque rows at the initial state, plant_ from
  // the constructor) over the composite inertia.
  Vec3 reach;
  for (int k = 0; k < 3; ++k)
    reach(k) = std::min(inputReach(plant_.B, o + 3 + k, 1.0, lower_, upper_),
                        inputReach(plant_.B, o + 3 + k, -1.0, lower_, upper_)) /
               composite_inertia_(k);
  spin_first_ = reach.z() >= kSpinFirstAuthority * std::min(reach.x(), reach.y());
  if (spin_first_) {
    stabilizing_priorities_ = levels;
    Allocator::PriorityLevel spin{MatX::Zero(1, model.nxi), {}};
    spin.accelerations(0, o + 5) = 1.0;
    stabilizing_priorities_.insert(stabilizing_priorities_.begin(), std::move(spin));
  }
}

void PrototypeController::selectPriorities() {
  // Switched at the supervision instants only (the phase changes there), where the supervisor
  // builds its references anyway; the allocator's priority solver is rebuilt for the new levels.
  const RecoveryPhase phase = recovery_->phase();
  const PriorityLevels wanted = phase == RecoveryPhase::Tracking ? PriorityLevels::None
                                : spin_first_ && phase == RecoveryPhase::Stabilizing ? PriorityLevels::SpinFirst
                                                                                     : PriorityLevels::TiltFirst;
  if (wanted == active_priorities_) return;
  using Levels = std::span<const Allocator::PriorityLevel>;
  allocator_.setPriorities(wanted == PriorityLevels::None        ? Levels{}
                           : wanted == PriorityLevels::SpinFirst ? Levels(stabilizing_priorities_)
                                                                 : Levels(recovering_priorities_));
  active_priorities_ = wanted;
}

void PrototypeController::updateStabilizingTemplate() {
  const double spin = recovery_->spin();
  if (stabilizing_version_ == parameters_.version() && stabilizing_spin_ == spin) return;
  stabilizing_version_ = parameters_.version();
  stabilizing_spin_ = spin;
  // The base pair: the thrust direction (tilt only), the altitude at ω/2 (the spring and damper at
  // the base's centre of mass, whose sideways part the reference cancels: it rides with the
  // vehicle), the spin about the thrust axis damped at 1 rad/s, no heading spring.
  //
  // The tilt: damping D = max(2 ω Θ_t, 2 Θ_z |ω_z|) and stiffness K = D ω / 2. Without spin this is
  // the critically damped pair at ω. A vehicle spinning at ω_z carries the angular momentum
  // H = Θ_z ω_z, and a tilt spring alone would only make it precess: the slow mode of the
  // gyroscope under K and D decays at about K D / H². With D ≥ 2 H the damping dominates the
  // gyroscopic coupling and the thrust axis turns up at about K / D = ω / 2 at any spin.
  const double w = parameters_[p_.recovery_omega], w_v = 0.5 * w, w_heading = 1.0;
  const double theta_tilt = std::max(composite_inertia_.x(), composite_inertia_.y());
  const double d_tilt = std::max(2.0 * w * theta_tilt, 2.0 * composite_inertia_.z() * spin);
  const double k_tilt = 0.5 * w * d_tilt;
  const Vec3& centre = model_.bodies[base_body_].com;
  TemplatePair& base = stabilizing_.pairs()[0];
  base.stiffness = momentMatrix(composite_mass_ * w_v * w_v, centre, Vec3(k_tilt, k_tilt, 0.0).asDiagonal());
  base.damping = momentMatrix(2.0 * composite_mass_ * w_v, centre,
                              Vec3(d_tilt, d_tilt, 2.0 * w_heading * composite_inertia_.z()).asDiagonal());
  base.force_limit = parameters_[p_.force_limit];
  base.tilt_only = true;
  // base_joints: the joint pairs (after the vehicle's pairs) are the tracking template's, as the
  // sliders set them (updateJointPairs ran before: updatePairs comes first in compute).
  if (layout_ == Layout::BaseJoints) {
    const std::vector<TemplatePair>& tracking = template_.pairs();
    for (std::size_t i = first_joint_pair_; i < tracking.size(); ++i)
      stabilizing_.pairs()[stabilizing_joint_pairs_ + (i - first_joint_pair_)] = tracking[i];
  }
}

void PrototypeController::updateJointPairs() {
  if (layout_ != Layout::BaseJoints) return;
  const ParameterSet& p = parameters_;
  const double m = p[p_.joint_mbar], th = p[p_.joint_thetabar];
  const double w = p[p_.joint_omega], z = p[p_.joint_zeta];
  std::vector<TemplatePair>& pairs = template_.pairs();
  for (std::size_t i = first_joint_pair_; i < pairs.size(); ++i) setNaturalGains(pairs[i], m, Vec3::Constant(th), w, z, w, z);
}

void PrototypeController::decideInverseDynamicsAllocation() {
  const Model& m = model_;
  inverse_dynamics_inputs_.clear();
  if (m.numInputs() != m.nxi || m.constraint_rows > 0 || !m.input_sets.empty() || !m.propellers.empty() ||
      !m.external_wrenches.empty())
    return;
  std::vector<int> coordinate(static_cast<std::size_t>(m.nxi), -1);
  for (int i = 0; i < m.numInputs(); ++i) {
    const Actuator& a = m.actuators[i];
    if (a.kind != ActuatorKind::JointEffort || !std::isfinite(a.gain) || a.gain == 0.0) return;
    const int c = m.joints[a.joint].xi_offset + a.component;
    if (coordinate[static_cast<std::size_t>(c)] >= 0) return;  // two inputs on one coordinate: B singular
    coordinate[static_cast<std::size_t>(c)] = i;
    inverse_dynamics_inputs_.push_back(c);
  }
  // Kinetic energy ½ Σ η_bᵀ M_b η_b vanishes only when every body twist does; from the root down,
  // η_b = L_b η_λ + S_e ξ_e then forces ξ_e = 0 when S_e has full column rank. So M ≻ 0 at every x if
  // each moving body's M_b is (mass > 0, Θ ≻ 0) and no joint parameterization has singular points
  // (Euler angles do); armature and geared rotors add positive semidefinite terms.
  mass_matrix_definite_everywhere_ = true;
  for (const Joint& j : m.joints) {
    if (j.nxi == 0) continue;
    const Body& body = m.bodies[j.child];
    const bool definite = body.mass > 0.0 && Eigen::LLT<Mat3>(body.inertia_com).info() == Eigen::Success;
    if (!definite || j.type == JointType::SphericalEulerZYX) mass_matrix_definite_everywhere_ = false;
  }
  desired_acceleration_.resize(m.nxi);
  inverse_dynamics_forces_.resize(m.nxi);
  xi_.resize(m.nxi);
}

PrototypeController::FastAllocation PrototypeController::allocateByInverseDynamics(const State& state,
                                                                                  const ReferenceSample& reference,
                                                                                  VecX& u) {
  if (inverse_dynamics_inputs_.empty()) return FastAllocation::NotApplicable;
  activeTemplate().evaluateKinematicsOnly(state, reference, ws_, ws_ref_, evaluation_);
  if (!mbar_factor_.factorize(evaluation_.Mbar)) {
    fail(std::string(name()) + ": allocation failed: the desired inertia M̄ is not positive definite "
         "(check the template parameters)");
    return FastAllocation::Failed;
  }
  desired_acceleration_ = evaluation_.bbar;  // a_des = −M̄⁻¹ b̄ (4.51)
  mbar_factor_.llt().solveInPlace(desired_acceleration_);
  desired_acceleration_ = -desired_acceleration_;
  // B u₀ = M a_des + b with b = c + f_G + f_K + f_D (− f̂); f_E(0) = 0 here (no servos, propellers or
  // external wrenches: decideInverseDynamicsAllocation)
  computeForcesForAcceleration(model_, state, desired_acceleration_, false, ws_, plant_.zero_inputs,
                               inverse_dynamics_forces_);
  compensateExternalForce(inverse_dynamics_forces_);
  VecX& u0 = allocation_.u_unconstrained;
  u0.resize(model_.numInputs());
  for (int i = 0; i < model_.numInputs(); ++i)
    u0(i) = inverse_dynamics_forces_(inverse_dynamics_inputs_[static_cast<std::size_t>(i)]) / model_.actuators[i].gain;
  if (!u0.allFinite()) return FastAllocation::NotApplicable;  // the general path names the cause
  if (allocation_mode_ == AllocationMode::Constrained)
    for (int i = 0; i < u0.size(); ++i)
      if (!(lower_(i) <= u0(i) && u0(i) <= upper_(i))) return FastAllocation::NotApplicable;  // the QP's case
  // (4.63): a feasible u₀ is the constrained optimum; fully actuated, the template is realized.
  allocation_.u = u0;
  allocation_.matching_residual = allocation_.template_deviation = 0.0;
  allocation_.saturated.assign(static_cast<std::size_t>(u0.size()), 0);
  allocation_.set_rows_active.clear();
  allocation_.qp_status = InequalityQpStatus::Optimal;
  allocation_.qp_iterations = 0;
  u = u0;
  return FastAllocation::Done;
}

bool PrototypeController::compute(double t, const State& state, const ReferenceSample& reference, VecX& u) {
  plant_terms_valid_ = false;
  last_t_ = t;
  updatePairs();
  PrototypeTemplate& active = activeTemplate();
  if (recovery_) selectPriorities();
  evaluated_template_ = &active;  // updateSignals reads this one's state, whatever the phase is by then
  plant_b_shifted_ = externalForceEstimate().size() != 0;
  const bool transport_check =
      &active == &template_ && template_.variant() == VelocityError::Energy && !transport_map_checked_;
  const FastAllocation fast = transport_check ? FastAllocation::NotApplicable : allocateByInverseDynamics(state, reference, u);
  if (fast == FastAllocation::Failed) return false;
  plant_terms_skipped_ = fast == FastAllocation::Done;
  late_plant_terms_ = false;
  if (!plant_terms_skipped_) {
    if (inverse_dynamics_inputs_.empty() || transport_check)
      active.evaluateWithPlant(state, reference, ws_, ws_ref_, plant_, evaluation_);
    else  // the template is evaluated already; u₀ left the bounds
      evaluatePlant(model_, state, ws_, plant_);
    compensateExternalForce(plant_.b);
    if (transport_check) {
      const double r = template_.transportMapResidual();
      if (!(r <= kTransportMapTolerance))
        return fail("prototype_energy: this template has no transport map Q with J Q = Ad(G_E)^-1 J_R for every pair "
                    "(residual " + std::to_string(r) + "); use prototype_body or prototype_particle, or a joint-space template");
      transport_map_checked_ = true;
    }
    if (!allocator_.solve(plant_.M, plant_.b, plant_.B, evaluation_.Mbar, evaluation_.bbar, lower_, upper_,
                          allocation_mode_, allocation_)) {
      if (allocation_.qp_status != InequalityQpStatus::Optimal)
        return fail(std::string(name()) + ": allocation failed: the QP over the input sets and limits gave no input (" +
                    std::string(toString(allocation_.qp_status)) + ")");
      return fail(std::string(name()) + ": allocation failed: the desired inertia M̄ or the plant inertia is not positive "
                  "definite, or B is rank deficient (check the template parameters)");
    }
    u = allocation_.u;
  }
  if (!u.allFinite()) return fail(std::string(name()) + ": non-finite input");
  x_ = state.x;
  xi_ = state.xi;
  x_ref_ = reference.x;
  xi_ref_ = reference.xi;
  plant_terms_valid_ = true;
  return true;
}

bool PrototypeController::plantRate(const Model& plant, const State& state, const VecX& u, double stabilization_gain,
                                    VecX& xdot, VecX& xidot) {
  if (!plant_terms_valid_ || plant_b_shifted_ || &plant != &model_ || model_.constraint_rows > 0) return false;
  if (plant_terms_skipped_) {
    // M (B⁻¹(M a_des + b)) − b = M a_des: the plant accelerates at a_des under the controller's own
    // input, if M is regular (which the dynamics would otherwise test).
    if (!mass_matrix_definite_everywhere_ || !isOwnInput(u)) return false;
    xidot = desired_acceleration_;
  } else if (!allocator_.plantAcceleration(plant_.b, u, xidot)) {
    return false;  // M singular: the dynamics say so
  }
  computeConfigurationRate(model_, state.x, state.xi, ws_, stabilization_gain);  // ws_: this state's kinematics
  xdot = ws_.xdot;
  return true;
}

bool PrototypeController::isOwnInput(const VecX& u) const {
  return u.size() == allocation_.u.size() && std::equal(u.data(), u.data() + u.size(), allocation_.u.data());
}

void PrototypeController::actualAcceleration(const VecX& u, VecX& xidot) {
  if (plant_terms_skipped_ && isOwnInput(u)) {
    xidot = desired_acceleration_;
    return;
  }
  if (plant_terms_skipped_ && !late_plant_terms_) {  // a clamped input: M is needed after all
    evaluatePlant(model_, State{x_, xi_}, ws_, plant_);  // (the same state: ws_ keeps its kinematics)
    compensateExternalForce(plant_.b);
    late_plant_terms_ = true;
  }
  xidot = plant_.M.llt().solve(plant_.B * u - plant_.b);
}

void PrototypeController::updateSignals() {
  // A template whose pairs span joints evaluated only the reference's joint motions; the tracking
  // errors compare bodies. The template of the last compute (a supervision instant may have
  // changed the recovery's phase since: the other template holds no state of this instant).
  if (!evaluated_template_) return;
  PrototypeTemplate& active = *evaluated_template_;
  active.completeReferenceKinematics(x_ref_, xi_ref_, ws_ref_);
  tracking_.evaluate(ws_, ws_ref_, x_, x_ref_, signalBlock(tracking_signals_));
  // Actual acceleration with the input the simulator applies (clamped to the bounds).
  const VecX u = allocation_.u.cwiseMax(lower_).cwiseMin(upper_);
  VecX xidot;
  actualAcceleration(u, xidot);
  signal(control_signals_, kEnergy) = evaluation_.kinetic + evaluation_.potential;
  signal(control_signals_, kKinetic) = evaluation_.kinetic;
  signal(control_signals_, kPotential) = evaluation_.potential;
  signal(control_signals_, kEnergyRate) = active.energyRate(xidot);
  signal(control_signals_, kTemplatePower) = -2.0 * evaluation_.rayleigh;
  // The allocator's diagnostics of the last compute's solve, if that compute succeeded (the
  // inverse-dynamics allocation realizes the template and set them to zero).
  if (plant_terms_valid_ && !plant_terms_skipped_) allocator_.evaluateDeviations(allocation_);
  signal(control_signals_, kMatchingResidual) = allocation_.matching_residual;
  signal(control_signals_, kTemplateDeviation) = allocation_.template_deviation;
  int saturated = 0;
  for (int i = 0; i < model_.numInputs(); ++i) {
    const int s = allocation_.saturated.empty() ? 0 : allocation_.saturated[i];
    signal(saturation_signals_, i) = s;
    saturated += s != 0;
  }
  signal(control_signals_, kSaturated) = saturated;
  if (recovery_) {
    signal(recovery_signals_, 0) = static_cast<double>(recovery_->phase());
    signal(recovery_signals_, 1) = recovery_->delay(last_t_);
  }
  Eigen::Index row = 0;  // allocation_.set_rows_active follows the sets' rows in order
  for (std::size_t k = 0; k < model_.input_sets.size(); ++k) {
    const Eigen::Index rows = model_.input_sets[k].rows.rows();
    bool held = false;
    for (Eigen::Index j = row; j < row + rows && j < static_cast<Eigen::Index>(allocation_.set_rows_active.size()); ++j)
      held = held || allocation_.set_rows_active[static_cast<std::size_t>(j)];
    signal(input_set_signals_, static_cast<int>(k)) = held ? 1.0 : 0.0;
    row += rows;
  }
}

std::unique_ptr<Controller> makePrototypeController(const Model& model, VelocityError variant,
                                                    const ControllerSettings& settings) {
  return std::make_unique<PrototypeController>(model, variant, settings);
}

}  // namespace rbs
