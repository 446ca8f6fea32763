// Models and random states shared by the tests and the benchmarks. Random numbers are seeded.
#pragma once

#include <random>
#include <string>

#include "core/model/model_builder.h"

namespace rbs {
struct Workspace;
}

namespace rbs::test {

using Rng = std::mt19937_64;

double uniform(Rng& rng, double lo, double hi);
Vec3 randomVector(Rng& rng, double scale);
Mat3 randomRotation(Rng& rng);
Pose randomPose(Rng& rng, double translation_scale = 0.5);
/// A body made of 5 random point masses (so s ≠ 0 and Θ is full and physically valid).
BodySpec randomBody(Rng& rng, const std::string& name);

/// A joint `type` from `parent` to `child` with random placements on both sides, a random unit
/// axis and a random second axis orthogonal to it.
JointSpec randomJoint(Rng& rng, const std::string& name, JointType type, const std::string& parent,
                      const std::string& child);

/// A state on the coordinate manifold with random configuration and velocities of size ~scale.
/// Euler-angle joints keep |pitch| ≤ 1.2 (away from gimbal lock).
State randomState(const Model& model, Rng& rng, double velocity_scale = 1.0);

/// A QP min ½ (u − u₀)ᵀ H (u − u₀) s.t. A u ≤ c for the QP tests.
struct RandomQp {
  MatX H;
  VecX u0;
  MatX A;
  VecX c;
};
/// Its random objective: H = R Rᵀ + 0.1 I (R uniform in [−1, 1]), u₀ uniform in [−3, 3] (p
/// variables); A and c are left for the caller.
RandomQp randomQpObjective(Rng& rng, int p);

/// A 5-body tree (free root; root → `type` → revolute; root → `type` → spherical) with random
/// placements (T_c too, except for spherical_absolute) and bodies; `type` at the root if
/// `at_root` (then: world → `type` → revolute, → spherical).
Model randomTreeWith(JointType type, bool at_root, std::uint64_t seed);

/// A serial chain of `n` revolute joints with random axes and placements; the root is fixed to
/// the world.
Model randomChain(int n, std::uint64_t seed);

/// A tree of `n` bodies on revolute joints with random axes, placements and bodies: body 0 hangs
/// from the world, body i from a body drawn uniformly among 0 … i−1 (a random recursive tree:
/// branches of every width, depth about e·ln n).
Model randomTree(int n, std::uint64_t seed);

/// M, c and f_G into ws at the state of its last kinematics: the terms that the articulated-body
/// path of computeForwardDynamics does not form.
void computeEquationTerms(const Model& model, Workspace& ws);

/// Planar double pendulum: uniform rods of mass m_i and length l_i hanging from the world, axes
/// along y, gravity −z, angles measured from the downward vertical.
Model doublePendulum(double m1, double m2, double l1, double l2,
                     JointType revolute = JointType::Revolute);

}  // namespace rbs::test
