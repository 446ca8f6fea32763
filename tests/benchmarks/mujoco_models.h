// The same rigid body system in MuJoCo, for timing mj_forward next to rbsim's forward dynamics
// (benchmark-only dependency). The MJCF text is written from the rbsim Model's own parameters;
// MuJoCo then parses, compiles and evaluates it with its own algorithms.
//
// Coordinates differ, and are mapped explicitly:
//  - MuJoCo orders its DoFs by the depth-first order of the XML bodies; joints are matched by
//    name (jnt_qposadr / jnt_dofadr), never by position.
//  - A free joint's qvel is [world-frame linear velocity of the body origin; body-frame angular
//    velocity], rbsim's ξ is the body twist [v; ω] (both frames the body's): qvel = T(x) ξ with
//    T = blkdiag(R, I), and qacc = T ξ̇ + Ṫ ξ with Ṫ ξ = [R (ω × v); 0].
//  - Hinge, slide and ball joints use the joint's relative velocity in the child frame, as rbsim's
//    revolute (angle or unit circle), prismatic and spherical (relative ω) joints do when T_c = I.
//    rbsim's absolute-ω spherical joint (thesis Example 7) maps through the parent's Jacobian:
//    qvel_ball = ω_b − R_eᵀ (J_λ ξ)_ω.
#pragma once

#include <mujoco/mujoco.h>

#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "core/dynamics/workspace.h"

namespace rbs::bench {

/// MJCF text: the main document and the files it <include>s (name relative to the main file's
/// directory, text). Deep chains are split over several files (TinyXML2's nesting limit).
struct MjcfDocument {
  std::string main;
  std::vector<std::pair<std::string, std::string>> includes;
};

/// MJCF of `model`: one <body> per rbsim body (nested along the joint tree, placed at T_p),
/// <inertial> with the CoM inertia in principal axes, one joint per non-fixed rbsim joint, a
/// <motor> per JointEffort actuator and a site-transmission <general> per BodyForce/BodyTorque
/// actuator (in rbsim's input order), contacts disabled. Supported joints: fixed, revolute
/// (angle or unit circle), prismatic, spherical (matrix or quaternion, relative or absolute ω),
/// free (matrix or quaternion; root only, T_p = I); T_c must be the identity. Throws
/// std::invalid_argument otherwise.
MjcfDocument mjcfFromModel(const Model& model, const std::string& name = "rbsim");

struct MjModelDeleter {
  void operator()(mjModel* m) const { mj_deleteModel(m); }
};
struct MjDataDeleter {
  void operator()(mjData* d) const { mj_deleteData(d); }
};
using MjModelPtr = std::unique_ptr<mjModel, MjModelDeleter>;
using MjDataPtr = std::unique_ptr<mjData, MjDataDeleter>;

/// Compiles MJCF through temporary files (mj_loadXML). Throws std::runtime_error with MuJoCo's
/// message on failure.
MjModelPtr loadMjcf(const MjcfDocument& doc);

/// A model of `model` in MuJoCo with the maps between the two coordinate sets.
class MujocoTwin {
 public:
  explicit MujocoTwin(const Model& model);
  ~MujocoTwin();

  const mjModel* mj() const { return mj_.get(); }
  mjData* data() const { return data_.get(); }

  /// Writes qpos, qvel (= T ξ) and ctrl (= u) of the rbsim state into data().
  void setState(const State& s, const VecX& u) const;
  /// T(x): qvel = T ξ (nv × n). Not for timing: evaluates rbsim kinematics and Jacobians.
  MatX velocityMap(const State& s) const;
  /// rbsim's ξ̇ mapped to MuJoCo's qacc: T ξ̇ + Ṫ ξ.
  VecX accelerationToMujoco(const State& s, const VecX& xidot) const;
  /// MuJoCo's dense mass matrix (mj_fullM) after mj_forward.
  MatX massMatrix() const;

 private:
  const Model& model_;
  MjModelPtr mj_;
  MjDataPtr data_;
  std::unique_ptr<Workspace> ws_;  // rbsim kinematics for the maps (absolute-ω joints need J_λ)
  std::vector<int> qpos_adr_, dof_adr_;  // per rbsim joint, −1 for fixed joints

  void evaluate(const State& s) const;
};

}  // namespace rbs::bench
