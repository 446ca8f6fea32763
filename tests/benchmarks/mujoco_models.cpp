#include "tests/benchmarks/mujoco_models.h"

#include <unistd.h>

#include <Eigen/Eigenvalues>
#include <array>
#include <atomic>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <iomanip>
#include <sstream>
#include <stdexcept>

#include "core/dynamics/kinematics.h"

namespace rbs::bench {
namespace {

std::string vec(const Vec3& v) {
  std::ostringstream os;
  os << std::setprecision(17) << v.x() << ' ' << v.y() << ' ' << v.z();
  return os.str();
}

/// MuJoCo's quaternion order is (w, x, y, z), the same as rotationToQuaternion.
std::string quat(const Mat3& R) {
  const Vec4 q = rotationToQuaternion(R);
  std::ostringstream os;
  os << std::setprecision(17) << q(0) << ' ' << q(1) << ' ' << q(2) << ' ' << q(3);
  return os.str();
}

bool isFree(JointType t) {
  return t == JointType::Free || t == JointType::FreeQuaternion;
}
bool isBall(JointType t) {
  return t == JointType::Spherical || t == JointType::SphericalQuaternion ||
         t == JointType::SphericalAbsolute;
}
bool isHinge(JointType t) {
  return t == JointType::Revolute || t == JointType::RevoluteUnitCircle;
}

void checkSupported(const Model& model) {
  for (const Joint& j : model.joints) {
    const std::string what = "mjcfFromModel: joint '" + j.name + "': ";
    const bool supported = j.type == JointType::Fixed || isHinge(j.type) ||
                           j.type == JointType::Prismatic || isBall(j.type) || isFree(j.type);
    if (!supported)
      throw std::invalid_argument(what + "type " + std::string(jointTypeName(j.type)) +
                                  " has no MuJoCo twin here");
    if (j.has_child_placement)
      throw std::invalid_argument(what + "child placement T_c must be the identity");
    if (isFree(j.type) && (j.parent >= 0 || !j.parent_placement.matrix().isIdentity(0.0)))
      throw std::invalid_argument(what + "free joints must connect to the world with T_p = I");
  }
  if (!model.loop_closures.empty() || !model.springs.empty() || !model.dampers.empty() ||
      !model.joint_spring_dampers.empty() || !model.external_wrenches.empty())
    throw std::invalid_argument("mjcfFromModel: force elements and loop closures are not exported");
}

// TinyXML2, MuJoCo's parser, rejects documents nested deeper than 100 elements (a 100-link chain
// is 102 deep). Past this many nested bodies in one file, the children go to an <include>d file,
// which MuJoCo parses separately and splices in place.
constexpr int kMaxBodyDepthPerFile = 64;

void writeBody(const Model& model, int b, int depth, std::ostringstream& os, MjcfDocument& doc) {
  const std::string pad(2 * depth, ' ');
  const Body& body = model.bodies[b];
  const Joint& j = model.joints[b];
  os << pad << "<body name=\"" << body.name << "\" pos=\"" << vec(j.parent_placement.r)
     << "\" quat=\"" << quat(j.parent_placement.R) << "\">\n";
  // Principal axes computed here rather than by MuJoCo: its compiler's Jacobi iteration
  // (mju_eig3, for `fullinertia`) stops at an absolute off-diagonal threshold and reproduces
  // products of inertia only to ~1e-7 relative, visible in M; Eigen's solver is exact to rounding.
  const Eigen::SelfAdjointEigenSolver<Mat3> eig(body.inertia_com);
  Mat3 axes = eig.eigenvectors();
  if (axes.determinant() < 0) axes.col(2) *= -1.0;
  // Flat bodies (a two-blade propeller: A + B = C) sit on the triangle inequality, which MuJoCo
  // checks without tolerance; the eigenvalues may miss it by rounding. Clamp at that level only.
  Vec3 moments = eig.eigenvalues();
  for (int i = 0; i < 3; ++i) {
    const double others = moments((i + 1) % 3) + moments((i + 2) % 3);
    if (moments(i) > others) moments(i) = others;
  }
  os << pad << "  <inertial pos=\"" << vec(body.com) << "\" quat=\"" << quat(axes) << "\" mass=\""
     << std::setprecision(17) << body.mass << "\" diaginertia=\"" << vec(moments) << "\"/>\n";
  if (isHinge(j.type))
    os << pad << "  <joint name=\"" << j.name << "\" type=\"hinge\" axis=\"" << vec(j.axis)
       << "\" limited=\"false\"/>\n";
  else if (j.type == JointType::Prismatic)
    os << pad << "  <joint name=\"" << j.name << "\" type=\"slide\" axis=\"" << vec(j.axis)
       << "\" limited=\"false\"/>\n";
  else if (isBall(j.type))
    os << pad << "  <joint name=\"" << j.name << "\" type=\"ball\" limited=\"false\"/>\n";
  else if (isFree(j.type))
    os << pad << "  <freejoint name=\"" << j.name << "\"/>\n";
  for (int i = 0; i < model.numInputs(); ++i) {
    const Actuator& a = model.actuators[i];
    if (a.kind != ActuatorKind::JointEffort && a.body == b)
      os << pad << "  <site name=\"site_" << a.name << "\" pos=\"" << vec(a.point) << "\"/>\n";
  }
  bool has_children = false;
  for (int c = 0; c < model.numBodies(); ++c)
    has_children = has_children || model.joints[c].parent == b;
  if (has_children && depth - 1 >= kMaxBodyDepthPerFile) {
    const std::string file = "part" + std::to_string(doc.includes.size() + 1) + ".xml";
    doc.includes.emplace_back(file, std::string());  // reserve the name; filled below
    const std::size_t index = doc.includes.size() - 1;
    std::ostringstream part;
    part << "<mujoco>\n";
    for (int c = 0; c < model.numBodies(); ++c)
      if (model.joints[c].parent == b) writeBody(model, c, 2, part, doc);
    part << "</mujoco>\n";
    doc.includes[index].second = part.str();
    os << pad << "  <include file=\"" << file << "\"/>\n";
  } else {
    for (int c = 0; c < model.numBodies(); ++c)
      if (model.joints[c].parent == b) writeBody(model, c, depth + 1, os, doc);
  }
  os << pad << "</body>\n";
}

}  // namespace

MjcfDocument mjcfFromModel(const Model& model, const std::string& name) {
  checkSupported(model);
  MjcfDocument doc;
  std::ostringstream os;
  os << std::setprecision(17);
  os << "<mujoco model=\"" << name << "\">\n"
     << "  <compiler angle=\"radian\" inertiafromgeom=\"false\"/>\n"
     << "  <option gravity=\"" << vec(model.gravity) << "\" timestep=\"0.001\">\n"
     << "    <flag contact=\"disable\"/>\n"
     << "  </option>\n"
     << "  <worldbody>\n";
  for (int b = 0; b < model.numBodies(); ++b)
    if (model.joints[b].parent < 0) writeBody(model, b, 2, os, doc);
  os << "  </worldbody>\n  <actuator>\n";
  for (const Actuator& a : model.actuators) {
    os << "    ";
    switch (a.kind) {
      case ActuatorKind::JointEffort:
        if (a.component != 0)
          throw std::invalid_argument("mjcfFromModel: multi-DoF joint efforts are not exported");
        os << "<motor name=\"" << a.name << "\" joint=\"" << model.joints[a.joint].name
           << "\" gear=\"" << a.gain << "\" ctrllimited=\"false\"/>\n";
        break;
      case ActuatorKind::JointServo:
      case ActuatorKind::JointSpeedServo:
        throw std::invalid_argument("mjcfFromModel: servo actuators are not exported");
      case ActuatorKind::BodyForce:  // site frame = body axes at the point: gear = [force; torque]
        os << "<general name=\"" << a.name << "\" site=\"site_" << a.name << "\" gear=\""
           << vec(a.direction) << " " << vec(a.torque_ratio * a.direction) << "\" ctrllimited=\"false\"/>\n";
        break;
      case ActuatorKind::BodyTorque:
        os << "<general name=\"" << a.name << "\" site=\"site_" << a.name << "\" gear=\"0 0 0 "
           << vec(a.direction) << "\" ctrllimited=\"false\"/>\n";
        break;
    }
  }
  os << "  </actuator>\n</mujoco>\n";
  doc.main = os.str();
  return doc;
}

MjModelPtr loadMjcf(const MjcfDocument& doc) {
  // A fresh directory per call: the included parts are found next to the main file.
  static std::atomic<int> counter{0};
  const std::filesystem::path dir =
      std::filesystem::temp_directory_path() /
      ("rbsim_mjcf_" + std::to_string(::getpid()) + "_" + std::to_string(counter++));
  std::filesystem::create_directories(dir);
  auto write = [&](const std::string& file, const std::string& text) {
    std::ofstream f(dir / file);
    f << text;
    if (!f) throw std::runtime_error("loadMjcf: cannot write " + (dir / file).string());
  };
  write("model.xml", doc.main);
  for (const auto& [file, text] : doc.includes) write(file, text);
  std::array<char, 1000> error{};
  mjModel* m = mj_loadXML((dir / "model.xml").c_str(), nullptr, error.data(),
                          static_cast<int>(error.size()));
  std::filesystem::remove_all(dir);
  if (m == nullptr)
    throw std::runtime_error(std::string("loadMjcf: MuJoCo: ") + error.data() + "\n" + doc.main);
  return MjModelPtr(m);
}

MujocoTwin::MujocoTwin(const Model& model)
    : model_(model), mj_(loadMjcf(mjcfFromModel(model))), ws_(std::make_unique<Workspace>(model)) {
  data_ = MjDataPtr(mj_makeData(mj_.get()));
  for (const Joint& j : model.joints) {
    if (j.type == JointType::Fixed) {
      qpos_adr_.push_back(-1);
      dof_adr_.push_back(-1);
      continue;
    }
    const int id = mj_name2id(mj_.get(), mjOBJ_JOINT, j.name.c_str());
    if (id < 0)
      throw std::runtime_error("MujocoTwin: joint '" + j.name + "' missing in the MuJoCo model");
    qpos_adr_.push_back(mj_->jnt_qposadr[id]);
    dof_adr_.push_back(mj_->jnt_dofadr[id]);
  }
  if (mj_->nv != model.nxi || mj_->nu != model.numInputs())
    throw std::runtime_error("MujocoTwin: DoF or input count differs");
}

MujocoTwin::~MujocoTwin() = default;

void MujocoTwin::setState(const State& s, const VecX& u) const {
  const VecX qvel = velocityMap(s) * s.xi;
  for (int b = 0; b < model_.numBodies(); ++b) {
    const Joint& j = model_.joints[b];
    if (j.type == JointType::Fixed) continue;
    double* qpos = data_->qpos + qpos_adr_[b];
    const double* x = s.x.data() + j.x_offset;
    if (j.type == JointType::Revolute || j.type == JointType::Prismatic) {
      qpos[0] = x[0];
      continue;
    }
    if (j.type == JointType::RevoluteUnitCircle) {  // (c, s) ∝ (cos θ, sin θ)
      qpos[0] = std::atan2(x[1], x[0]);
      continue;
    }
    // Motion pose between T_p and T_c (= I): T_p⁻¹ G_e.
    const Pose motion = j.parent_placement.inverse() * jointTransform(j, x);
    const Vec4 q = rotationToQuaternion(motion.R);
    if (isFree(j.type)) {
      for (int k = 0; k < 3; ++k) qpos[k] = motion.r(k);
      qpos += 3;
    }
    for (int k = 0; k < 4; ++k) qpos[k] = q(k);
  }
  for (int i = 0; i < mj_->nv; ++i) data_->qvel[i] = qvel(i);
  for (int i = 0; i < mj_->nu; ++i) data_->ctrl[i] = u(i);
}

void MujocoTwin::evaluate(const State& s) const {
  computeKinematics(model_, s.x, s.xi, *ws_);
  computeBodyJacobians(model_, *ws_);
}

MatX MujocoTwin::velocityMap(const State& s) const {
  evaluate(s);
  MatX T = MatX::Zero(mj_->nv, model_.nxi);
  for (int b = 0; b < model_.numBodies(); ++b) {
    const Joint& j = model_.joints[b];
    if (j.type == JointType::Fixed) continue;
    T.block(dof_adr_[b], j.xi_offset, j.nxi, j.nxi).setIdentity();
    if (isFree(j.type))  // world-frame linear velocity: R v
      T.block<3, 3>(dof_adr_[b], j.xi_offset) = ws_->joint[b].transform.R;
    if (j.type == JointType::SphericalAbsolute && j.parent >= 0) {
      // MuJoCo's ball velocity is the relative ω_rel = ω_b − R_eᵀ ω_λ (child coordinates), rbsim's
      // coordinate the absolute ω_b; ω_λ = (J_λ ξ)_ω.
      const Mat3 Rt = ws_->joint[b].transform.R.transpose();
      T.middleRows<3>(dof_adr_[b]) -= Rt * ws_->jacobian(j.parent).bottomRows<3>();
    }
  }
  return T;
}

VecX MujocoTwin::accelerationToMujoco(const State& s, const VecX& xidot) const {
  VecX qacc = velocityMap(s) * xidot;  // also evaluates ws_ at s
  for (int b = 0; b < model_.numBodies(); ++b) {
    const Joint& j = model_.joints[b];
    if (isFree(j.type)) {
      // d/dt (R v) = R v̇ + R (ω × v)
      const Vec3 v = s.xi.segment<3>(j.xi_offset), w = s.xi.segment<3>(j.xi_offset + 3);
      qacc.segment<3>(dof_adr_[b]) += ws_->joint[b].transform.R * w.cross(v);
    } else if (j.type == JointType::SphericalAbsolute && j.parent >= 0) {
      // d/dt (ω_b − R_eᵀ ω_λ) = ω̇_b − R_eᵀ (J_λ ξ̇ + κ_λ)_ω + ω_rel × (R_eᵀ ω_λ), using
      // Ṙ_e = R_e wed(ω_rel).
      const Mat3 Rt = ws_->joint[b].transform.R.transpose();
      const Vec3 w_parent = Rt * ws_->twist[j.parent].tail<3>();
      const Vec3 w_rel = s.xi.segment<3>(j.xi_offset) - w_parent;
      qacc.segment<3>(dof_adr_[b]) += -Rt * ws_->bias[j.parent].tail<3>() + w_rel.cross(w_parent);
    }
  }
  return qacc;
}

MatX MujocoTwin::massMatrix() const {
  Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor> M(mj_->nv, mj_->nv);
  mj_fullM(mj_.get(), M.data(), data_->qM);
  return M;
}

}  // namespace rbs::bench
