#include "sim/sample_recorder.h"

#include <algorithm>
#include <limits>
#include <string>

#include "core/dynamics/energy.h"
#include "core/dynamics/kinematics.h"

namespace rbs {
namespace {

/// N for a force, N m for a torque (joint efforts: by the joint's velocity coordinate); a servo's
/// reference angle (rad, m) or rate (rad/s); a propeller motor's current (A).
std::string inputUnit(const Actuator& a, const Model& model) {
  if (a.joint >= static_cast<int>(model.joints.size())) return "N m";
  const bool prismatic = a.joint >= 0 && model.joints[a.joint].type == JointType::Prismatic;
  switch (a.kind) {
    case ActuatorKind::BodyForce: return "N";
    case ActuatorKind::BodyTorque: return "N m";
    case ActuatorKind::JointServo: return prismatic ? "m" : "rad";
    case ActuatorKind::JointSpeedServo: return "rad/s";
    case ActuatorKind::JointEffort: break;
  }
  if (a.joint < 0) return "N m";
  if (model.propellerOnJoint(a.joint) >= 0 && a.gain != 1.0) return "A";  // torque k_M i (5.1)
  switch (model.joints[a.joint].type) {
    case JointType::Prismatic: return "N";
    case JointType::Free:
    case JointType::FreeQuaternion: return a.component < 3 ? "N" : "N m";
    case JointType::Planar: return a.component < 2 ? "N" : "N m";
    default: return "N m";
  }
}

// A pose (position, attitude quaternion) and a velocity (of the origin, angular), world coordinates.
constexpr CoordinateInfo kPose[] = {{"px", "m", "position x"},
                                    {"py", "m", "position y"},
                                    {"pz", "m", "position z"},
                                    {"qw", "1", "attitude quaternion w"},
                                    {"qx", "1", "attitude quaternion x"},
                                    {"qy", "1", "attitude quaternion y"},
                                    {"qz", "1", "attitude quaternion z"}};
constexpr CoordinateInfo kVelocity[] = {{"vx", "m/s", "velocity x of the origin"},
                                        {"vy", "m/s", "velocity y of the origin"},
                                        {"vz", "m/s", "velocity z of the origin"},
                                        {"wx", "rad/s", "angular velocity x"},
                                        {"wy", "rad/s", "angular velocity y"},
                                        {"wz", "rad/s", "angular velocity z"}};

}  // namespace

SampleRecorder::SampleRecorder(const Model& model, InputSource* source, bool source_held, std::size_t max_samples,
                               PushForces* pushes)
    : model_(model), source_(source), source_held_(source_held), pushes_(pushes), max_samples_(max_samples), ws_(model),
      ws_reference_(model), u_source_(VecX::Zero(model.numInputs())) {
  layOutChannels();
  values_.resize(static_cast<std::size_t>(recording_.channels.size()));
  clear();
}

void SampleRecorder::addChannels(std::span<const CoordinateInfo> entries, const std::string& prefix,
                                 const std::string& what, const std::string& of) {
  for (const CoordinateInfo& e : entries)
    recording_.channels.add(prefix + std::string(e.name), std::string(e.unit), what + std::string(e.meaning) + of);
}

void SampleRecorder::addJointChannels(const std::string& prefix, const std::string& what) {
  for (const Joint& j : model_.joints) {
    const std::string of = " of joint " + j.name + " (" + std::string(jointTypeName(j.type)) + ")";
    addChannels(configurationCoordinates(j.type), prefix + j.name + ".", what, of);
    addChannels(velocityCoordinates(j.type), prefix + j.name + ".", what, of);
  }
}

void SampleRecorder::layOutChannels() {
  ChannelSet& channels = recording_.channels;
  for (const Body& b : model_.bodies) addChannels(kPose, "body." + b.name + ".", "", " of body " + b.name + " (world)");
  for (const NamedFrame& f : model_.frames)
    addChannels(kPose, "frame." + f.name + ".", "",
                " of frame " + f.name + " (world; on body " + model_.bodies[f.frame.body].name + ")");
  ch_energy_ = channels.add("energy.kinetic", "J", "kinetic energy T");
  channels.add("energy.potential", "J", "potential energy V_G + V_K (gravity and springs)");
  channels.add("energy.total", "J", "total energy W = T + V_G + V_K");
  channels.add("power.input", "W", "input power of actuators and external wrenches, xi^T f_E");
  channels.add("power.dissipation", "W", "power dissipated by dampers, xi^T f_D");
  channels.add("constraint.drift", "1",
               "largest coordinate drift (|R^T R - I|, |q^T q - 1|, |c^2 + s^2 - 1|) before projection");
  for (const Actuator& a : model_.actuators) {
    const int i = channels.add("u." + a.name, inputUnit(a, model_), "input " + a.name + " (the value used, after saturation)");
    if (ch_inputs_ < 0) ch_inputs_ = i;
  }
  if (!model_.loop_closures.empty())
    ch_closure_ = channels.add("constraint.closure", "m", "norm of the loop-closure error psi");
  // Pushes (scripted, or the mouse's spring): included in f_E and so in power.input.
  ch_push_ = channels.add("power.perturbation", "W", "power of the pushes on the bodies (part of power.input)");
  for (const char* axis : {"x", "y", "z"})
    channels.add(std::string("perturbation.force.") + axis, "N",
                 std::string("total push force, world ") + axis + " (scripted pushes and the mouse)");
  for (const char* axis : {"x", "y", "z"})
    channels.add(std::string("perturbation.torque.") + axis, "N m",
                 std::string("total pure push torque, world ") + axis + " (without the moment of the push forces)");
  // The motion: body velocities in the world, then every joint's own coordinates and velocities.
  ch_velocity_ = channels.size();
  for (const Body& b : model_.bodies)
    addChannels(kVelocity, "body." + b.name + ".", "", " of body " + b.name + " (world)");
  addJointChannels("joint.", "");
  if (source_ && source_->tracksReference()) {
    ch_reference_ = channels.size();
    for (const Body& b : model_.bodies)
      addChannels(kPose, "reference.body." + b.name + ".", "reference ", " of body " + b.name + " (world)");
    for (const Body& b : model_.bodies)
      addChannels(kVelocity, "reference.body." + b.name + ".", "reference ", " of body " + b.name + " (world)");
    addJointChannels("reference.joint.", "reference ");
  }
  if (source_) {
    for (const ChannelInfo& c : source_->channels()) {
      const int i = channels.add(c.name, c.unit, c.description);
      if (ch_source_ < 0) ch_source_ = i;
    }
  }
}

void SampleRecorder::clear() {
  recording_.time.clear();
  recording_.values.clear();
  recording_.dropped = 0;
  last_quaternion_.assign(2 * model_.numBodies() + model_.frames.size(), Vec4::Zero());
}

DynamicsStatus SampleRecorder::record(double t, const State& state, bool finite, const VecX& u, double drift) {
  DynamicsStatus status = DynamicsStatus::NonFinite;
  if (!finite) {
    std::fill(values_.begin(), values_.end(), std::numeric_limits<double>::quiet_NaN());
    append(t);
    return status;
  }
  status = computeForwardDynamicsWithPushes(model_, t, state, u, ws_, 0.0, pushes_);
  int c = 0;
  for (int b = 0; b < model_.numBodies(); ++b) writePose(ws_.pose[b], static_cast<std::size_t>(b), c);
  for (std::size_t f = 0; f < model_.frames.size(); ++f) {
    const Frame& frame = model_.frames[f].frame;
    writePose(ws_.pose[frame.body] * frame.offset, static_cast<std::size_t>(model_.numBodies()) + f, c);
  }
  const Energies e = computeEnergies(model_, state.x, state.xi, ws_);
  values_[ch_energy_ + 0] = e.kinetic;
  values_[ch_energy_ + 1] = e.potential();
  values_[ch_energy_ + 2] = e.total();
  values_[ch_energy_ + 3] = e.input_power;
  values_[ch_energy_ + 4] = e.dissipation;
  values_[ch_energy_ + 5] = drift >= 0.0 ? drift : model_.coordinateDrift(state.x);
  for (int i = 0; i < model_.numInputs(); ++i) values_[ch_inputs_ + i] = u[i];
  if (ch_closure_ >= 0) {
    if (status != DynamicsStatus::Ok) {  // the closure terms come after the factorization
      computeBodyJacobians(model_, ws_);
      computeLoopClosures(model_, state.x, state.xi, ws_);
    }
    values_[ch_closure_] = ws_.constraint_error.norm();
  }
  const bool pushed = pushes_ && pushes_->active() && status == DynamicsStatus::Ok;
  values_[ch_push_] = pushed ? pushes_->power() : 0.0;
  for (int i = 0; i < 3; ++i) {
    values_[ch_push_ + 1 + i] = pushed ? pushes_->force()(i) : 0.0;
    values_[ch_push_ + 4 + i] = pushed ? pushes_->torque()(i) : 0.0;
  }
  c = ch_velocity_;
  writeVelocities(ws_, c);
  writeJoints(state.x, state.xi, c);
  // Under a hold the source last ran at the hold instant: evaluate it at this sample for its
  // channels (the reference needs no evaluation: referenceForSample samples it at t).
  if (ch_source_ >= 0 && source_held_) source_->evaluateForSample(t, state, u_source_);
  if (ch_reference_ >= 0) {
    const ReferenceSample* ref = source_->referenceForSample(t);
    c = ch_reference_;
    if (ref && ref->x.size() == model_.nx && ref->xi.size() == model_.nxi && ref->x.allFinite() &&
        ref->xi.allFinite()) {
      computeKinematics(model_, ref->x, ref->xi, ws_reference_);
      const std::size_t history = static_cast<std::size_t>(model_.numBodies()) + model_.frames.size();
      for (int b = 0; b < model_.numBodies(); ++b) writePose(ws_reference_.pose[b], history + b, c);
      writeVelocities(ws_reference_, c);
      writeJoints(ref->x, ref->xi, c);
    } else {
      const auto end = ch_source_ < 0 ? values_.end() : values_.begin() + ch_source_;
      std::fill(values_.begin() + ch_reference_, end, std::numeric_limits<double>::quiet_NaN());
    }
  }
  if (ch_source_ >= 0) source_->sample(values_.data() + ch_source_);
  append(t);
  return status;
}

void SampleRecorder::writePose(const Pose& G, std::size_t k, int& c) {
  // The quaternion's sign is kept continuous from sample to sample (q and −q are the same
  // attitude); the first sample has qw ≥ 0.
  Vec4 q = rotationToQuaternion(G.R);
  const Vec4& prev = last_quaternion_[k];
  if (prev.isZero() ? q(0) < 0.0 : q.dot(prev) < 0.0) q = -q;
  last_quaternion_[k] = q;
  values_[c++] = G.r.x();
  values_[c++] = G.r.y();
  values_[c++] = G.r.z();
  for (int i = 0; i < 4; ++i) values_[c++] = q(i);
}

void SampleRecorder::writeVelocities(const Workspace& ws, int& c) {
  for (int b = 0; b < model_.numBodies(); ++b) {  // η_b is the body twist in body coordinates
    const Mat3& R = ws.pose[b].R;
    const Vec3 v = R * ws.twist[b].head<3>(), w = R * ws.twist[b].tail<3>();
    for (int i = 0; i < 3; ++i) values_[c++] = v(i);
    for (int i = 0; i < 3; ++i) values_[c++] = w(i);
  }
}

void SampleRecorder::writeJoints(const VecX& x, const VecX& xi, int& c) {
  for (const Joint& j : model_.joints) {
    for (int i = 0; i < configurationSize(j.type); ++i) values_[c++] = x[j.x_offset + i];
    for (int i = 0; i < velocitySize(j.type); ++i) values_[c++] = xi[j.xi_offset + i];
  }
}

void SampleRecorder::reserve(std::size_t more) {
  // At most 8 M values (64 MB) ahead: a long t_end still grows by doubling.
  const std::size_t width = values_.size();
  std::size_t rows = recording_.time.size() + std::min(more, (std::size_t{1} << 23) / std::max<std::size_t>(width, 1));
  if (max_samples_ > 0) rows = std::min(rows, max_samples_ + 1);
  if (rows > recording_.time.capacity())  // at least doubling: many short advanceTo calls stay O(1) per sample
    recording_.time.reserve(std::max(rows, 2 * recording_.time.capacity()));
  recording_.values.reserve(rows, width);
}

void SampleRecorder::append(double t) {
  recording_.time.push_back(t);
  recording_.values.push_back(values_);
  if (max_samples_ > 0 && recording_.time.size() > max_samples_) {
    const std::size_t drop = recording_.time.size() - max_samples_ + max_samples_ / 4;
    recording_.time.erase(recording_.time.begin(), recording_.time.begin() + static_cast<std::ptrdiff_t>(drop));
    recording_.values.dropOldest(drop);
    recording_.dropped += drop;
  }
}

}  // namespace rbs
