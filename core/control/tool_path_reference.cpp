#include "core/control/tool_path_reference.h"

#include <algorithm>
#include <cmath>
#include <mutex>
#include <set>
#include <sstream>
#include <string>

#include "core/control/knot_table.h"
#include "core/control/parameters.h"
#include "core/control/reference_settings_reader.h"
#include "core/dynamics/kinematics.h"

namespace rbs {
namespace {

[[noreturn]] void fail(const std::string& message) {
  throw ControlError("reference generator 'tool_path': " + message);
}

std::string names(const Model& model, const std::vector<int>& joints) {
  std::vector<std::string> list;
  for (int j : joints) list.push_back(model.joints[j].name);
  return joinNames(list);
}

class ToolPathReference final : public Reference {
  // A knot is the moving joints' positions (at most 6, inline: no heap allocation per knot or
  // sample); everything else is the initial state.
  using Coordinates = Eigen::Matrix<double, Eigen::Dynamic, 1, 0, 6, 1>;
  static constexpr double kKnotStep = KnotTable<Coordinates>::kStep;

 public:
  ToolPathReference(const Model& model, ToolPathTask task)
      : model_(model), task_(std::move(task)), rows_(task_.orientation ? 6 : 3), ws_(model_), lu_(rows_) {
    selectJoints();
    A_.resize(rows_, rows_);
    rhs_.resize(rows_);
    step_.resize(rows_);
    xi_.setZero(model_.nxi);
    x_ = model_.initial_state.x;
    trial_ = x_;
    table_.reset(
        [this] {
          x_ = model_.initial_state.x;
          solve(0.0);
          return pack();
        },
        [this](const Coordinates& q, long, long to) {
          unpack(q);
          solve(to * kKnotStep);
          return pack();
        });
    // Walk the path once now, so that an unreachable or singular stretch is a load-time error.
    std::lock_guard<std::mutex> lock(mutex_);
    const long last = static_cast<long>(std::ceil(std::max(0.0, task_.check_until) / kKnotStep));
    for (long k = 0; k <= last; ++k) table_.atKnot(k);
  }

  void sample(double t, ReferenceSample& out) const override {
    std::lock_guard<std::mutex> lock(mutex_);
    long knot = 0;
    unpack(table_.at(t, knot));
    solve(t);  // leaves the kinematics at x_R in ws_
    out.x = x_;
    out.xi.setZero(model_.nxi);
    out.xidot.setZero(model_.nxi);
    traj::Jet r[3];
    task_.path->jets(t, r);  // dim() == 3, checked at construction

    // ξ_R: A ξ = [ṙ_R; 0] at x_R (the held orientation is constant).
    computeBodyJacobians(model_, ws_);
    assembleJacobian();
    factorize(t);
    rhs_.setZero();
    for (int i = 0; i < 3; ++i) rhs_(i) = r[i][1];
    step_ = lu_.solve(rhs_);
    scatter(step_, out.xi);

    // ξ̇_R: A ξ̇ = [r̈_R − β; −κ_ω] with the twist and bias of ξ_R.
    computeKinematics(model_, x_, out.xi, ws_);
    const Pose& G = ws_.pose[task_.body];
    const Vec6& eta = ws_.twist[task_.body];
    const Vec6& kappa = ws_.bias[task_.body];
    const Vec3 v = eta.head<3>(), w = eta.tail<3>();
    const Vec3& p = task_.point;
    const Vec3 beta = G.R * (w.cross(v + w.cross(p)) + kappa.head<3>() + kappa.tail<3>().cross(p));
    for (int i = 0; i < 3; ++i) rhs_(i) = r[i][2] - beta(i);
    if (rows_ == 6) rhs_.tail<3>() = -kappa.tail<3>();
    step_ = lu_.solve(rhs_);
    scatter(step_, out.xidot);
  }

 private:
  /// The joints Newton moves (`moving_`, one coordinate each), or a message saying what to hold.
  void selectJoints() {
    if (task_.body < 0 || task_.body >= static_cast<int>(model_.bodies.size())) fail("no such body");
    const std::string body = "body '" + model_.bodies[task_.body].name + "'";
    const std::set<int> held(task_.held.begin(), task_.held.end());
    std::vector<int> chain;  // joints from the root to the body that have velocity coordinates
    for (int b = task_.body; b >= 0; b = model_.joints[b].parent)
      if (model_.joints[b].nxi > 0) chain.push_back(b);
    std::reverse(chain.begin(), chain.end());
    for (int h : task_.held)
      if (std::find(chain.begin(), chain.end(), h) == chain.end())
        fail("option 'hold': joint '" + model_.joints[h].name + "' does not move " + body +
             " (joints that do not are held anyway); the joints that do: " + names(model_, chain));
    for (int j : chain) {
      if (held.count(j)) continue;
      const Joint& joint = model_.joints[j];
      if (!hasScalarPosition(joint.type))
        fail("joint '" + joint.name + "' (" + std::string(jointTypeName(joint.type)) + ") moves " + body +
             "; the path is solved for revolute and prismatic joints only: hold it (option 'hold')");
      moving_.push_back(j);
    }
    const int m = rows_;
    const int f = static_cast<int>(moving_.size());
    const std::string task = m == 6 ? "6 task coordinates (position and the held orientation)"
                                    : "3 task coordinates (the position; orientation: free)";
    if (f > m)
      fail(std::to_string(f) + " joints move " + body + " (" + names(model_, moving_) + ") for " + task +
           ": hold " + std::to_string(f - m) + " of them (option hold: NAME,NAME…) so that the path fixes every joint");
    if (f < m)
      fail("only " + std::to_string(f) + " joints move " + body + " (" + names(model_, moving_) + "), fewer than the " +
           task + (m == 6 ? "; use option 'orientation: free'" : "") +
           (task_.held.empty() ? "" : " or hold fewer joints"));
    for (const LoopClosure& c : model_.loop_closures) {
      if (c.kind != LoopClosure::Kind::JointCoupling)
        fail("the model has the loop closure '" + c.name + "' (a closed kinematic chain); tool_path solves open chains");
      const auto moves = [&](int j) { return std::find(moving_.begin(), moving_.end(), j) != moving_.end(); };
      if (moves(c.follower) || moves(c.leader))
        fail("the mimic coupling '" + c.name + "' ties joint '" + model_.joints[c.follower].name + "' to '" +
             model_.joints[c.leader].name + "', and the path moves one of them; hold both (option 'hold')");
    }
  }

  /// A = ∂F/∂q over the moving joints, from ws_ (kinematics and body Jacobians at q).
  void assembleJacobian() const {
    const Mat3& R = ws_.pose[task_.body].R;
    const auto J = ws_.jacobian(task_.body);
    const Mat3 p_hat = wed(task_.point);
    for (int c = 0; c < static_cast<int>(moving_.size()); ++c) {
      const int col = model_.joints[moving_[c]].xi_offset;
      const Vec3 Jv = J.col(col).head<3>(), Jw = J.col(col).tail<3>();
      A_.col(c).head<3>() = R * (Jv - p_hat * Jw);  // point velocity R (v + ω × p) per unit rate
      if (rows_ == 6) A_.col(c).tail<3>() = Jw;      // d log(R_Rᵀ R_b) = ω_b at the solution
    }
  }

  /// Puts the moving joints' values into a full velocity vector (held joints stay 0).
  void scatter(const VecX& values, VecX& xi) const {
    for (int c = 0; c < static_cast<int>(moving_.size()); ++c) xi(model_.joints[moving_[c]].xi_offset) = values(c);
  }

  /// Newton on F(q, t) = 0 from x_, in place (the held joints keep their coordinates), with the
  /// step halved until the residual decreases: from a start far off the path (a displaced initial
  /// state) full steps can jump to another branch of the kinematics.
  void solve(double t) const {
    traj::Jet r[3];
    task_.path->jets(t, r);
    const Vec3 r_R(r[0][0], r[1][0], r[2][0]);
    // Residuals are metres and radians; 1e-12 of the path's size (≥ 1 m) is far below what any
    // controller or plot can see, and above the rounding of the kinematics.
    const double tol = 1e-12 * std::max(1.0, r_R.norm());
    // A residual no step can lower any more is the rounding floor when it is this small.
    const double floor = 1e-9 * std::max(1.0, r_R.norm());
    constexpr int kMaxIterations = 50, kMaxHalvings = 20;
    double size = residual(x_, r_R);
    for (int it = 0; it < kMaxIterations && size > tol; ++it) {
      computeBodyJacobians(model_, ws_);  // ws_ holds the kinematics at x_ (residual())
      assembleJacobian();
      factorize(t);
      step_ = lu_.solve(rhs_);
      double scale = 1.0;
      int halving = 0;
      for (; halving <= kMaxHalvings; ++halving, scale *= 0.5) {
        trial_ = x_;
        move(trial_, -scale);
        const double trial_size = residual(trial_, r_R);
        if (trial_size < size) {
          size = trial_size;
          break;
        }
      }
      if (halving > kMaxHalvings) {  // no step along the Newton direction lowers the residual
        residual(x_, r_R);          // ws_ back at x_
        if (size <= floor) return;
        stall(t, size, "Newton's steps stop lowering it");
      }
      x_.swap(trial_);
    }
    if (size > tol) stall(t, size, "after " + std::to_string(kMaxIterations) + " Newton steps");
  }

  /// LU of A (PartialPivLU: no allocation), refused when a pivot is at most 1e-12 of the largest:
  /// A is then singular to working precision.
  void factorize(double t) const {
    lu_.compute(A_);
    const auto u = lu_.matrixLU().diagonal().cwiseAbs();
    if (!(u.minCoeff() > 1e-12 * u.maxCoeff())) singular(t);
  }

  [[noreturn]] void stall(double t, double size, const std::string& why) const {
    std::ostringstream msg;
    msg << "at t = " << t << " s the path cannot be followed: the " << (rows_ == 6 ? "pose" : "position")
        << " residual is " << size << " (" << why << "); is the point out of reach?";
    fail(msg.str());
  }

  /// The moving joints' positions in x_, and back (x_ = the initial state with them set).
  Coordinates pack() const {
    Coordinates q(moving_.size());
    for (int c = 0; c < static_cast<int>(moving_.size()); ++c) {
      const Joint& j = model_.joints[moving_[c]];
      q(c) = jointScalarPosition(j, x_.data() + j.x_offset);
    }
    return q;
  }
  void unpack(const Coordinates& q) const {
    x_ = model_.initial_state.x;
    for (int c = 0; c < static_cast<int>(moving_.size()); ++c) {
      const Joint& j = model_.joints[moving_[c]];
      setJointScalarPosition(j, q(c), x_.data() + j.x_offset);
    }
  }

  /// ‖F(x, t)‖ with F in rhs_ and the kinematics at x in ws_.
  double residual(const VecX& x, const Vec3& r_R) const {
    computeKinematics(model_, x, xi_, ws_);
    const Pose& G = ws_.pose[task_.body];
    rhs_.head<3>() = G.r + G.R * task_.point - r_R;
    if (rows_ == 6) rhs_.tail<3>() = logSO3(task_.orientation->transpose() * G.R);
    return rhs_.norm();
  }

  /// q ← q + factor · step_ on the moving joints.
  void move(VecX& x, double factor) const {
    for (int c = 0; c < static_cast<int>(moving_.size()); ++c) {
      const Joint& j = model_.joints[moving_[c]];
      double* xe = x.data() + j.x_offset;
      setJointScalarPosition(j, jointScalarPosition(j, xe) + factor * step_(c), xe);
    }
  }

  [[noreturn]] void singular(double t) const {
    const VecX& x = x_;
    std::ostringstream msg;
    msg << "at t = " << t << " s the joints (" << names(model_, moving_) << ") reach a singular pose (";
    for (int c = 0; c < static_cast<int>(moving_.size()); ++c) {
      const Joint& j = model_.joints[moving_[c]];
      msg << (c ? ", " : "") << j.name << " = " << jointScalarPosition(j, x.data() + j.x_offset);
    }
    msg << "): the path asks for a motion they cannot make; move the path away from it";
    fail(msg.str());
  }

  const Model model_;  // a copy: the reference may outlive the scene's model
  ToolPathTask task_;
  int rows_;
  std::vector<int> moving_;
  KnotTable<Coordinates> table_;
  // Scratch for one evaluation at a time (mutex_): kinematics, A and its factors, right-hand side
  // and step, the coordinates being solved for and a trial step's, zero velocity.
  mutable std::mutex mutex_;
  mutable Workspace ws_;
  mutable MatX A_;
  mutable Eigen::PartialPivLU<MatX> lu_;
  mutable VecX rhs_, step_, x_, trial_, xi_;
};

}  // namespace

std::unique_ptr<Reference> makeToolPathReference(const Model& model, ToolPathTask task) {
  if (!task.path || task.path->dim() != 3) fail("the path must give 3 world coordinates");
  return std::make_unique<ToolPathReference>(model, std::move(task));
}

}  // namespace rbs
