// The tilt servos' reaction on the vehicle, made part of the design (own addition, issue 22;
// docs/CONTROL.md, "Control of the generalized force").
//
// A servo that tilts arm k about its axis a_k (base axes) turns its geared rotor, so the plant's
// kinetic energy holds Θ_AC,k (a_k·ω) θ̇_k (Joint::rotor_coupling, Table 5.1), and the arm itself
// turns with inertia I_k about the axis. Both exchange angular momentum with the base: about the
// vehicle's centre of mass,
//   Θ ω̇ + Σ_k c_k a_k θ̈_k = τ(θ),   c_k = Θ_AC,k + I_k,                                        (1)
// so every tilt command first kicks the base the other way. On the bicopter (two servos whose
// axes lie along the pitch axis, Θ_y = 0.008 kg m², Σ c ≈ 0.004 kg m²) a common tilt θ turns the
// base by −(Σ c/Θ_y) θ ≈ −0.49 θ at once, while the useful moment h F θ of the tilted thrust builds
// up only through ω̇: the pitch channel has a zero at √(h F/Σ c) ≈ 13 rad/s at hover (h = 0.08 m)
// in the right half-plane, and the force model (arms welded) does not know it.
//
// The base's angular momentum in its own coordinates — the "ψ attitude"
//   ω_ψ = ω + Σ_k g_k θ̇_k,   R_ψ = R Exp(Σ_k g_k θ_k),   g_k = Θ⁻¹ a_k c_k,                      (2)
// — is driven by the moments of the thrusts alone: Θ ω̇_ψ = τ(θ). Seen from R_ψ, arm k's thrust is
// tilted by θ'_k = θ_k − a_k·Σ_j g_j θ_j (the part of the base's turn along the arm's own axis), i.e.
// θ' = (I − K) θ with K_kj = a_k·g_j. The rigid-body controller, designed on the force model with
// the base inertia Θ' = Θ − Σ_k c_k a_k a_kᵀ (designModel), gets the ψ state (toDesignState), and
// its thrust vectors' tilts θ' go to the servos as θ = (I − K)⁻¹ θ' (toTilts). With every c_k = 0
// all three are the identity; det(I − K) = det Θ'/det Θ, so a positive definite Θ' is all that is
// needed.
//
// When is the design's Θ' ω̇_ψ = τ'(θ') the plant's (1)? With the moments of the tilts along the
// arms' axes, τ = A D θ (A = [a_k], D = diag of h_k F_k), to first order in the tilts exactly when
// D (Aᵀ Θ⁻¹ A) C = C (Aᵀ Θ⁻¹ A) D (C = diag c_k): when h_k F_k / c_k is the same for every pair of
// coupled arms — for the bicopter's two equal arms, at equal thrusts. While roll control makes the
// thrusts differ, the remainder is proportional to the difference. The parts of Σ g_j θ_j across
// a_k (a few per cent on the bicopter, whose axes are inclined by β_F = 10°) are left out, and so
// is a thrust fixed to the base, which R_ψ sees turned by −Σ g_j θ_j.
//
// The controller then regulates R_ψ, not R: while the arms hold a tilt the vehicle's attitude is
// off the reference by Σ g_j θ_j. Not a design for every tilt-rotor: on the Table 5.1 tricopter
// with thrust vectors (three tilting arms, which hold tilts through its transitions) the option
// tracked worse, 0.70 cm / 1.06° rms against 0.37 cm / 0.56° without it.
#pragma once

#include <string>
#include <vector>

#include "core/model/model.h"

namespace rbs {

/// Inertia of everything that turns with revolute joint `joint` about its axis, at the joint's
/// zero position: the subtree's bodies by parallel axes, plus Joint::armature (the geared rotor
/// as the joint sees it). What a servo's PD loop (5.2) accelerates [kg m²].
double tiltAxisInertia(const Model& model, int joint);

class ServoReaction {
 public:
  /// The arms of `plant` that carry a thrust vector in `force_model` (ModelBuilder::
  /// rotorsAsThrustVectors), in the order of plant.propellers. Throws ControlError when a tilt
  /// joint does not hang from the free base, when the base's joint has a child placement (its ξ
  /// would not be the base body's twist), or when Θ' is not positive definite.
  ServoReaction(const Model& plant, const Model& force_model);

  int arms() const { return static_cast<int>(arms_.size()); }
  /// Plant joint index of arm k's tilt joint.
  int tiltJoint(int k) const { return arms_[k].joint; }

  /// `force_model` with the base's inertia Θ' = Θ − Σ c_k a_k a_kᵀ: the model to design on. The
  /// rigid-body controller must be made on it (sim/scene_loop.cpp does) for the other two maps to fit.
  Model designModel(const Model& force_model) const;

  /// Rotates the base of `design` (the plant state already mapped onto the force model's
  /// coordinates) into the ψ attitude (2), from the tilt angles and rates of `plant_state`, and,
  /// if given, a generalized force on the force model's coordinates (an external-force estimate)
  /// with it: its base rows are a wrench in the base's axes, which turn by the same rotation.
  void toDesignState(const State& plant_state, State& design, VecX* force = nullptr) const;
  /// Effective tilts θ' (one per arm) → servo tilts θ = (I − K)⁻¹ θ', in place.
  void toTilts(VecX& tilts) const;

  /// The base's inertia Θ about the vehicle's centre of mass, base axes, arms at zero.
  const Mat3& baseInertia() const { return inertia_; }
  /// Σ_k c_k a_k a_kᵀ, base axes.
  const Mat3& reduction() const { return reduction_; }

 private:
  struct Arm {
    int joint = -1;       ///< plant tilt joint
    Vec3 axis;            ///< a_k in base axes
    double coupling = 0;  ///< c_k = Θ_AC,k + I_k
    Vec3 turn_per_tilt;   ///< g_k = Θ⁻¹ a_k c_k: turn of ψ per unit tilt (and rate per unit rate)
    int x = -1, xi = -1;  ///< the tilt's offsets in the plant state
  };
  std::vector<Arm> arms_;
  Mat3 inertia_ = Mat3::Zero();
  Mat3 reduction_ = Mat3::Zero();
  MatX tilt_map_;           ///< (I − K)⁻¹: the arms' tilts from the design's
  std::string base_name_;   ///< the base body (same name in plant and force model)
  Joint base_joint_;        ///< the base's joint in the force model
};

}  // namespace rbs
