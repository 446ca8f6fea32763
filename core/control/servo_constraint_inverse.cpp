#include "core/control/servo_constraint_inverse.h"

#include <algorithm>
#include <cmath>
#include <numbers>
#include <sstream>

#include <Eigen/SparseCore>
#include <Eigen/SparseLU>

#include "core/control/parameters.h"
#include "core/control/servo_constraint_modes.h"
#include "core/dynamics/kinematics.h"

namespace rbs {
namespace {

constexpr double kIkTolerance = 1e-13;         // [m], [rad]: inverse kinematics residual
constexpr int kIkIterations = 40;
constexpr double kSingularRcond = 1e-12;        // saddle-point matrix / H_a regularity
constexpr double kDivergedAngle = std::numbers::pi;  // |q_u| beyond this: diverged (revolute)
constexpr double kDivergedRate = 1e4;           // |q̇_u| beyond this: diverged
constexpr double kBvpTolerance = 1e-11;         // max-norm of the collocation residual
constexpr double kBvpStepTolerance = 1e-13;     // max-norm of a full Newton step: converged
constexpr int kBvpIterations = 40;

std::string num(double v) {
  std::ostringstream os;
  os.precision(4);
  os << v;
  return os.str();
}

}  // namespace

ServoStructure analyzeServoStructure(const Model& model, const std::string& name) {
  if (!model.loop_closures.empty())
    throw ControlError(name + " handles tree models only (this model has loop closures)");
  ServoStructure s;
  s.f = model.nxi;
  s.m = model.numInputs();
  s.prismatic.assign(s.f, false);
  for (const Joint& j : model.joints) {
    if (j.type == JointType::Fixed) continue;
    if (j.type != JointType::Revolute && j.type != JointType::Prismatic)
      throw ControlError(name + " needs revolute, prismatic or fixed joints; joint '" + j.name +
                         "' is " + std::string(jointTypeName(j.type)));
    s.prismatic[j.xi_offset] = j.type == JointType::Prismatic;
  }
  if (s.m < 2)
    throw ControlError(name + " needs at least two inputs (the end effector moves in a plane)");
  if (s.m > s.f) throw ControlError(name + " needs no more inputs than coordinates");
  std::vector<bool> taken(s.f, false);
  for (const Actuator& a : model.actuators) {
    if (a.kind != ActuatorKind::JointEffort)
      throw ControlError(name + " needs joint-effort actuators; actuator '" + a.name + "' is not");
    const int c = model.joints[a.joint].xi_offset + a.component;
    if (taken[c])
      throw ControlError(name + ": two actuators act on the coordinate of joint '" +
                         model.joints[a.joint].name + "'");
    taken[c] = true;
    s.actuated.push_back(c);
  }
  for (int c = 0; c < s.f; ++c)
    if (!taken[c]) s.passive.push_back(c);
  return s;
}

ServoInverseModel::ServoInverseModel(const Model& model, ServoStructure structure)
    : model_(model), s_(std::move(structure)), ws_(model) {
  const int fu = static_cast<int>(s_.passive.size());
  q_ref_u_.resize(fu);
  for (int j = 0; j < fu; ++j) q_ref_u_[j] = model.initial_state.x[s_.passive[j]];
  q_init_a_.resize(s_.m);
  for (int i = 0; i < s_.m; ++i) q_init_a_[i] = model.initial_state.x[s_.actuated[i]];
  for (int i = 0; i + 2 < s_.m; ++i) direct_.push_back(s_.actuated[i]);
  w_.resize(s_.m);
  wbar_.resize(s_.m);
  W_.resize(s_.m, s_.f);
  K_.setZero(s_.f + s_.m, s_.f + s_.m);
  rhs_.resize(s_.f + s_.m);
  settings_.gamma = MatX::Zero(s_.m, fu);
  settings_.end_effector_body = model.numBodies() - 1;
}

void ServoInverseModel::configure(const ServoInversionSettings& settings) {
  const int fu = static_cast<int>(s_.passive.size());
  if (settings.gamma.rows() != s_.m || settings.gamma.cols() != fu)
    throw ControlError("servo constraint: Γ must be " + std::to_string(s_.m) + " x " +
                       std::to_string(fu));
  if (settings.end_effector_body < 0 || settings.end_effector_body >= model_.numBodies())
    throw ControlError("servo constraint: no end-effector body");
  if (!(settings.step > 0.0)) throw ControlError("servo constraint: step must be positive");
  settings_ = settings;
  cache_t_ = std::numeric_limits<double>::quiet_NaN();
}

VecX ServoInverseModel::assemble(const VecX& q_a, const VecX& q_u) const {
  VecX q(s_.f);
  for (int i = 0; i < s_.m; ++i) q[s_.actuated[i]] = q_a[i];
  for (int j = 0; j < static_cast<int>(s_.passive.size()); ++j) q[s_.passive[j]] = q_u[j];
  return q;
}

void ServoInverseModel::task(const VecX& q, const VecX& qd, bool with_rates) {
  computeKinematics(model_, q, qd, ws_);
  computeBodyJacobians(model_, ws_);
  W_.setZero();
  const int nd = static_cast<int>(direct_.size());
  for (int i = 0; i < nd; ++i) {
    w_[i] = q[direct_[i]];
    W_(i, direct_[i]) = 1.0;
    wbar_[i] = 0.0;
  }
  // End-effector point p = r + R s: ṗ = R (J_v − wed(s) J_ω) ξ,
  // p̈ = R (J_v − wed(s) J_ω) ξ̇ + R (κ_v + κ_ω × s + ω × (v + ω × s))   (κ = J̇ ξ)
  // — the point Jacobian H and its bias h̄ = Ḣ q̇ of (4.28)/(5.4).
  const int b = settings_.end_effector_body;
  const Vec3& s = settings_.end_effector_point;
  const Pose& G = ws_.pose[b];
  const auto J = ws_.jacobian(b);
  const Vec3 p = G.r + G.R * s;
  const MatX Jp = G.R * (J.topRows<3>() - wed(s) * J.bottomRows<3>());
  for (int k = 0; k < 2; ++k) {
    const int axis = settings_.plane_axes[k];
    w_[nd + k] = p[axis];
    W_.row(nd + k) = Jp.row(axis);
  }
  if (with_rates) {
    const Vec6& eta = ws_.twist[b];
    const Vec6& kappa = ws_.bias[b];
    const Vec3 v = eta.head<3>(), w = eta.tail<3>();
    const Vec3 a = G.R * (kappa.head<3>() + kappa.tail<3>().cross(s) + w.cross(v + w.cross(s)));
    for (int k = 0; k < 2; ++k) wbar_[nd + k] = a[settings_.plane_axes[k]];
  }
}

bool ServoInverseModel::solveIk(const VecX& w_target, const VecX& q_u, const VecX& guess,
                                VecX& q_a) {
  q_a = guess.size() == s_.m ? guess : q_init_a_;
  const VecX zero = VecX::Zero(s_.f);
  MatX Wa(s_.m, s_.m);
  for (int it = 0; it < kIkIterations; ++it) {
    task(assemble(q_a, q_u), zero, false);
    const VecX res = w_target - w_;
    if (res.lpNorm<Eigen::Infinity>() <= kIkTolerance) return true;
    for (int i = 0; i < s_.m; ++i) Wa.col(i) = W_.col(s_.actuated[i]);
    Eigen::PartialPivLU<MatX> lu(Wa);
    if (!(lu.rcond() > kSingularRcond))
      return failWith("inverse kinematics: singular output Jacobian H_a (the arm is stretched or "
                      "folded; is the path reachable?)");
    const VecX dq = lu.solve(res);
    if (!dq.allFinite()) break;
    q_a += dq;
    if (dq.lpNorm<Eigen::Infinity>() < 1e-15) {
      task(assemble(q_a, q_u), zero, false);
      return true;
    }
  }
  return failWith("inverse kinematics did not converge (is the path reachable?)");
}

Vec3 ServoInverseModel::endEffectorPosition(const VecX& q) {
  computeKinematics(model_, q, VecX::Zero(s_.f), ws_);
  const Pose& G = ws_.pose[settings_.end_effector_body];
  return G.r + G.R * settings_.end_effector_point;
}

MatX ServoInverseModel::geometricGamma() {
  const int fu = static_cast<int>(s_.passive.size());
  MatX gamma = MatX::Zero(s_.m, fu);
  const Eigen::Vector2d p_e = inPlane(endEffectorPosition(model_.initial_state.x));
  auto jointPoint = [&](int coordinate) {
    for (const Joint& j : model_.joints)
      if (j.nxi == 1 && j.xi_offset == coordinate) {
        const Pose origin = j.parent >= 0 ? ws_.pose[j.parent] * j.parent_placement
                                          : j.parent_placement;
        return inPlane(origin.r);
      }
    return Eigen::Vector2d(0.0, 0.0);
  };
  const double l_last = (p_e - jointPoint(s_.actuated.back())).norm();
  if (l_last <= 0.0) return gamma;
  for (int j = 0; j < fu; ++j)
    gamma(s_.m - 1, j) = (p_e - jointPoint(s_.passive[j])).norm() / l_last;
  return gamma;
}

bool ServoInverseModel::evaluate(double t, const VecX& eta, const VecX& ik_guess, ServoPoint& out) {
  const int fu = static_cast<int>(s_.passive.size());
  const int m = s_.m, f = s_.f;
  const VecX q_u = eta.head(fu), qd_u = eta.tail(fu);
  // Desired task w_d = [c_d; r_d] and its derivatives (Sect. 4.2.7 trajectory).
  const PathSample ps = samplePath(settings_.path, t);
  VecX wd(m), wd_d(m), wd_dd(m);
  const int nd = static_cast<int>(direct_.size());
  for (int i = 0; i < nd; ++i) {
    const bool cart = i == 0;
    wd[i] = cart ? ps.c : model_.initial_state.x[direct_[i]];
    wd_d[i] = cart ? ps.dc : 0.0;
    wd_dd[i] = cart ? ps.ddc : 0.0;
  }
  wd.tail<2>() = ps.r;
  wd_d.tail<2>() = ps.dr;
  wd_dd.tail<2>() = ps.ddr;
  out.t = t;
  out.r_desired = ps.r;

  MatX Wa(m, m), Wu(m, fu);
  VecX q_a, qd_a, hrhs;
  MatX& H = W_;  // the output Jacobian used in the saddle point (m × f)
  if (settings_.output == ServoOutput::LinearlyCombined) {
    // y_d = auxiliary coordinates: rigid inverse kinematics with q_u locked (Sect. 4.5):
    // ẏ_d = H_a⁻¹ ẇ_d, ÿ_d = H_a⁻¹ (ẅ_d − Ḣ_a ẏ_d) (Sect. 4.1, no numerical differentiation).
    if (!(cache_t_ == t)) {
      if (!solveIk(wd, q_ref_u_, ik_guess, cache_y_)) return false;
      for (int i = 0; i < m; ++i) Wa.col(i) = W_.col(s_.actuated[i]);
      Eigen::PartialPivLU<MatX> lu(Wa);
      cache_yd_ = lu.solve(wd_d);
      task(assemble(cache_y_, q_ref_u_), assemble(cache_yd_, VecX::Zero(fu)), true);
      cache_ydd_ = lu.solve(wd_dd - wbar_);
      cache_t_ = t;
    }
    out.ik = cache_y_;
    // q_a = y_d − Γ q_u, q̇_a = ẏ_d − Γ q̇_u; H = [I Γ] (constant, Ḣ = 0).
    q_a = cache_y_ - settings_.gamma * q_u;
    qd_a = cache_yd_ - settings_.gamma * qd_u;
    H.setZero();
    for (int i = 0; i < m; ++i) {
      H(i, s_.actuated[i]) = 1.0;
      for (int j = 0; j < fu; ++j) H(i, s_.passive[j]) = settings_.gamma(i, j);
    }
    hrhs = cache_ydd_;
  } else {
    // Exact output (Sect. 4.6, steps 1–3): h(q_a, q_u) = y_d for q_a by Newton, then
    // q̇_a = H_a⁻¹ (ẏ_d − H_u q̇_u).
    if (!solveIk(wd, q_u, ik_guess, q_a)) return false;
    out.ik = q_a;
    for (int i = 0; i < m; ++i) Wa.col(i) = W_.col(s_.actuated[i]);
    for (int j = 0; j < fu; ++j) Wu.col(j) = W_.col(s_.passive[j]);
    qd_a = Wa.partialPivLu().solve(wd_d - Wu * qd_u);
    task(assemble(q_a, q_u), assemble(qd_a, qd_u), true);
    hrhs = wd_dd - wbar_;
  }
  out.q = assemble(q_a, q_u);
  out.qd = assemble(qd_a, qd_u);

  // Saddle point (5.22) + (5.14): [M −B; H 0] [q̈; u] = [−b; ÿ_d − Ḣ q̇].
  State state{out.q, out.qd};
  evaluatePlant(model_, state, ws_, plant_);
  K_.topLeftCorner(f, f) = plant_.M;
  K_.topRightCorner(f, m) = -plant_.B;
  K_.bottomLeftCorner(m, f) = H;
  K_.bottomRightCorner(m, m).setZero();
  rhs_.head(f) = -plant_.b;
  rhs_.tail(m) = hrhs;
  lu_.compute(K_);
  if (!(lu_.rcond() > kSingularRcond))
    return failWith("servo constraint: the decoupling matrix H M^-1 B is singular at t = " +
                    num(t) + " s (4.29): the output does not have relative degree 2");
  sol_ = lu_.solve(rhs_);
  out.qdd = sol_.head(f);
  out.u = sol_.tail(m);
  out.eta_dot.resize(2 * fu);
  for (int j = 0; j < fu; ++j) {
    out.eta_dot[j] = out.qd[s_.passive[j]];
    out.eta_dot[fu + j] = out.qdd[s_.passive[j]];
  }
  if (!out.u.allFinite() || !out.qdd.allFinite())
    return failWith("servo constraint: non-finite result at t = " + num(t) + " s");
  return true;
}

bool ServoInverseModel::rhs(double t, const VecX& eta, VecX& guess, VecX& f, MatX* F) {
  ServoPoint p;
  if (!evaluate(t, eta, guess, p)) return false;
  f = p.eta_dot;
  guess = p.ik;
  if (F) {
    const int n = static_cast<int>(eta.size());
    F->resize(n, n);
    VecX e = eta, g = guess;
    for (int j = 0; j < n; ++j) {
      const double delta = 1e-7 * std::max(1.0, std::abs(eta[j]));
      e[j] = eta[j] + delta;
      ServoPoint pj;
      if (!evaluate(t, e, g, pj)) return false;
      F->col(j) = (pj.eta_dot - f) / delta;
      e[j] = eta[j];
    }
  }
  return true;
}

bool ServoInverseModel::equilibrium(double t, VecX& eta, VecX& ik) {
  const int fu = static_cast<int>(s_.passive.size());
  eta = VecX::Zero(2 * fu);
  eta.head(fu) = q_ref_u_;
  VecX f;
  MatX G(fu, fu);
  for (int it = 0; it < 50; ++it) {
    if (!rhs(t, eta, ik, f, nullptr)) return false;
    const VecX g = f.tail(fu);  // q̈_u at rest
    if (g.lpNorm<Eigen::Infinity>() <= 1e-11) return true;
    for (int j = 0; j < fu; ++j) {
      VecX e = eta, gj = ik, fj;
      const double delta = 1e-7 * std::max(1.0, std::abs(eta[j]));
      e[j] += delta;
      if (!rhs(t, e, gj, fj, nullptr)) return false;
      G.col(j) = (fj.tail(fu) - g) / delta;
    }
    const VecX dq = G.fullPivLu().solve(-g);
    if (!dq.allFinite()) break;
    eta.head(fu) += dq;
    if (dq.lpNorm<Eigen::Infinity>() < 1e-14) return true;
  }
  return failWith("no rest equilibrium of the internal dynamics at t = " + num(t) + " s");
}

bool ServoInverseModel::boundaryRows(const MatX& A, bool stable, MatX& rows,
                                     std::vector<std::complex<double>>& ev) {
  std::string error;
  return modalConditionRows(A, stable, rows, ev, error) || failWith(error);
}

bool ServoInverseModel::forward(ServoFeedforward& ff) {
  const int fu = static_cast<int>(s_.passive.size());
  const int N = static_cast<int>(ff.eta.size()) - 1;
  const double h = ff.step;
  VecX eta = ff.eta_start, ik = ff.ik_start, k1, k2, k3, k4;
  for (int k = 0; k <= N; ++k) {
    const double t = ff.t_begin + k * h;
    VecX g = ik;
    bool ok = rhs(t, eta, g, k1, nullptr);
    bool bounded = ok && eta.allFinite();
    for (int j = 0; j < fu && bounded; ++j)
      bounded = (s_.prismatic[s_.passive[j]] || std::abs(eta[j]) <= kDivergedAngle) &&
                std::abs(eta[fu + j]) <= kDivergedRate;
    if (!bounded) {
      ff.diverged = true;
      ff.diverged_at = t;
      ff.eta.resize(k);
      ff.eta_dot.resize(k);
      ff.ik.resize(k);
      return failWith("classical inversion (forward integration of the internal dynamics) diverged "
                      "at t = " + num(t) + " s: the zero dynamics are unstable (non-minimum "
                      "phase); use stable inversion" + (ok ? "" : " [" + message_ + "]"));
    }
    ik = g;
    ff.eta[k] = eta;
    ff.eta_dot[k] = k1;
    ff.ik[k] = ik;
    if (k == N) break;
    // RK4 (digest §10: an explicit higher-order method; implicit Euler would damp the internal
    // dynamics, Table 5.3).
    g = ik;
    bool stage_ok = rhs(t + 0.5 * h, eta + 0.5 * h * k1, g, k2, nullptr);
    stage_ok = stage_ok && rhs(t + 0.5 * h, eta + 0.5 * h * k2, g, k3, nullptr);
    stage_ok = stage_ok && rhs(t + h, eta + h * k3, g, k4, nullptr);
    if (!stage_ok) {
      ff.diverged = true;
      ff.diverged_at = t;
      ff.eta.resize(k + 1);
      ff.eta_dot.resize(k + 1);
      ff.ik.resize(k + 1);
      return failWith("classical inversion failed at t = " + num(t) + " s: " + message_);
    }
    eta += h / 6.0 * (k1 + 2.0 * k2 + 2.0 * k3 + k4);
  }
  return true;
}

bool ServoInverseModel::collocation(ServoFeedforward& ff, std::vector<VecX> Z) {
  const int n = stateSize();
  const int N = static_cast<int>(ff.eta.size()) - 1;
  const double h = ff.step;
  // Boundary conditions from the linearized internal dynamics at the two rest equilibria.
  MatX A0, Af, P0, Pf;
  {
    VecX f, g = ff.ik_start;
    if (!rhs(ff.t_begin, ff.eta_start, g, f, &A0)) return false;
    g = ff.ik_final;
    if (!rhs(ff.t_end, ff.eta_final, g, f, &Af)) return false;
  }
  if (!boundaryRows(A0, true, P0, ff.zeros_start)) return false;
  if (!boundaryRows(Af, false, Pf, ff.zeros_final)) return false;
  const int ns = static_cast<int>(P0.rows()), nu = static_cast<int>(Pf.rows());
  ff.stable_conditions = ns;
  ff.unstable_conditions = nu;
  if (ns + nu != n)
    return failWith("the zero dynamics at the start and the end differ in their number of "
                    "unstable eigenvalues: no bounded solution of this form");
  const int S = n * (N + 1);
  std::vector<VecX> f(N + 1), ik(N + 1);
  std::vector<MatX> F(N + 1);
  const MatX I = MatX::Identity(n, n);

  // Residual of Hermite–Simpson collocation (Lobatto IIIA, as bvp4c), optionally with Jacobian.
  auto residual = [&](const std::vector<VecX>& Zc, VecX& R,
                      std::vector<Eigen::Triplet<double>>* T) -> bool {
    VecX g = ff.ik_start;
    for (int k = 0; k <= N; ++k) {
      if (!rhs(ff.t_begin + k * h, Zc[k], g, f[k], T ? &F[k] : nullptr)) return false;
      ik[k] = g;
    }
    R.resize(S);
    R.head(ns) = P0 * (Zc[0] - ff.eta_start);
    if (T)
      for (int r = 0; r < ns; ++r)
        for (int c = 0; c < n; ++c) T->emplace_back(r, c, P0(r, c));
    VecX fm;
    MatX Fm;
    for (int k = 0; k < N; ++k) {
      const VecX eta_m = 0.5 * (Zc[k] + Zc[k + 1]) + h / 8.0 * (f[k] - f[k + 1]);
      VecX g_m = ik[k];
      if (!rhs(ff.t_begin + (k + 0.5) * h, eta_m, g_m, fm, T ? &Fm : nullptr)) return false;
      const int row = ns + k * n;
      R.segment(row, n) = Zc[k + 1] - Zc[k] - h / 6.0 * (f[k] + 4.0 * fm + f[k + 1]);
      if (T) {
        const MatX Dk = -I - h / 6.0 * (F[k] + 4.0 * Fm * (0.5 * I + h / 8.0 * F[k]));
        const MatX Dk1 = I - h / 6.0 * (F[k + 1] + 4.0 * Fm * (0.5 * I - h / 8.0 * F[k + 1]));
        for (int r = 0; r < n; ++r)
          for (int c = 0; c < n; ++c) {
            T->emplace_back(row + r, k * n + c, Dk(r, c));
            T->emplace_back(row + r, (k + 1) * n + c, Dk1(r, c));
          }
      }
    }
    R.tail(nu) = Pf * (Zc[N] - ff.eta_final);
    if (T)
      for (int r = 0; r < nu; ++r)
        for (int c = 0; c < n; ++c) T->emplace_back(S - nu + r, N * n + c, Pf(r, c));
    return R.allFinite();
  };

  Eigen::SparseMatrix<double> J(S, S);
  Eigen::SparseLU<Eigen::SparseMatrix<double>, Eigen::COLAMDOrdering<int>> lu;
  bool analyzed = false;
  VecX R, Rt, dZ(S);
  std::vector<Eigen::Triplet<double>> T;
  std::vector<VecX> Zt(N + 1);
  double last_step = std::numeric_limits<double>::infinity();
  for (int it = 0; it <= kBvpIterations; ++it) {
    T.clear();
    if (!residual(Z, R, &T))
      return failWith("stable inversion: evaluation failed (" + message_ + ")");
    ff.residual = R.lpNorm<Eigen::Infinity>();
    ff.newton_iterations = it;
    if (ff.residual <= kBvpTolerance || last_step <= kBvpStepTolerance) break;
    if (it == kBvpIterations)
      return failWith("stable inversion: Newton did not converge (residual " + num(ff.residual) +
                      "); try a finer step or a better initial guess");
    J.setFromTriplets(T.begin(), T.end());
    if (!analyzed) {
      lu.analyzePattern(J);
      analyzed = true;
    }
    lu.factorize(J);
    if (lu.info() != Eigen::Success)
      return failWith("stable inversion: singular collocation Jacobian");
    dZ = lu.solve(-R);
    // Damped Newton: halve the step until the residual decreases.
    const double r0 = R.norm();
    double lambda = 1.0;
    for (;;) {
      for (int k = 0; k <= N; ++k) Zt[k] = Z[k] + lambda * dZ.segment(k * n, n);
      if (residual(Zt, Rt, nullptr) && Rt.norm() < (1.0 - 1e-4 * lambda) * r0) break;
      lambda *= 0.5;
      if (lambda < 1e-6)
        return failWith("stable inversion: Newton line search failed (residual " + num(r0) + ")");
    }
    Z.swap(Zt);
    last_step = lambda * dZ.lpNorm<Eigen::Infinity>();
  }
  // Nodes, rates and IK solutions at the solution (the last residual call filled f and ik).
  for (int k = 0; k <= N; ++k) {
    ff.eta[k] = Z[k];
    ff.eta_dot[k] = f[k];
    ff.ik[k] = ik[k];
  }
  return true;
}

ServoFeedforward ServoInverseModel::computeFeedforward() {
  ServoFeedforward ff;
  ff.stable_inversion = settings_.stable_inversion;
  const ServoPath& path = settings_.path;
  ff.t_begin = path.t_start - settings_.pre_actuation;
  ff.t_end = path.tEnd() + settings_.post_actuation;
  // RK4 has a far larger error constant than Hermite–Simpson collocation (1/120 vs 1/2880): the
  // forward integration runs on a quarter of the step (it needs no Jacobians, so this is cheap).
  const double step = settings_.stable_inversion ? settings_.step : 0.25 * settings_.step;
  const int N =
      std::max(1, static_cast<int>(std::ceil((ff.t_end - ff.t_begin) / step - 1e-9)));
  ff.step = (ff.t_end - ff.t_begin) / N;
  ff.eta.resize(N + 1);
  ff.eta_dot.resize(N + 1);
  ff.ik.resize(N + 1);
  message_.clear();

  // Rest equilibria at both ends; the final inverse-kinematics guess is carried along the path so
  // that Newton stays on the initial branch (elbow up/down).
  if (!equilibrium(ff.t_begin, ff.eta_start, ff.ik_start)) {
    ff.message = message_;
    return ff;
  }
  {
    ff.ik_final = ff.ik_start;
    ServoPoint p;
    const int marches = 200;
    for (int k = 1; k <= marches; ++k) {
      const double t = path.t_start + path.duration * k / marches;
      if (!evaluate(t, ff.eta_start, ff.ik_final, p)) {
        ff.message = message_;
        return ff;
      }
      ff.ik_final = p.ik;
    }
    if (!equilibrium(ff.t_end, ff.eta_final, ff.ik_final)) {
      ff.message = message_;
      return ff;
    }
  }

  bool ok = false;
  if (!settings_.stable_inversion) {
    ok = forward(ff);
  } else {
    std::vector<VecX> guess(N + 1, ff.eta_start);
    if (settings_.output == ServoOutput::EndEffector && stateSize() > 0) {
      // Warm start from the linearly combined output (Sect. 5.3).
      const ServoInversionSettings saved = settings_;
      ServoInversionSettings linear = saved;
      linear.output = ServoOutput::LinearlyCombined;
      configure(linear);
      const ServoFeedforward warm = computeFeedforward();
      configure(saved);
      if (!warm.ok) {
        ff.message = "stable inversion: the linearly combined warm start failed: " + warm.message;
        return ff;
      }
      guess = warm.eta;
    } else {
      for (int k = 0; k <= N; ++k)
        guess[k] = ff.eta_start + (ff.eta_final - ff.eta_start) * (double(k) / N);
    }
    ok = collocation(ff, std::move(guess));
  }
  const int fu = static_cast<int>(s_.passive.size());
  for (const VecX& e : ff.eta)
    if (e.size() == 2 * fu && fu > 0)
      ff.max_passive = std::max(ff.max_passive, e.head(fu).lpNorm<Eigen::Infinity>());
  ff.ok = ok;
  if (!ok) ff.message = message_;
  return ff;
}

bool ServoInverseModel::sample(const ServoFeedforward& ff, double t, ServoPoint& out) {
  if (!ff.ok) return failWith("no feedforward: " + ff.message);
  if (t <= ff.t_begin) return evaluate(t, ff.eta.front(), ff.ik.front(), out);
  if (t >= ff.t_end) return evaluate(t, ff.eta_final, ff.ik_final, out);
  const int N = static_cast<int>(ff.eta.size()) - 1;
  const double h = ff.step;
  const int k = std::clamp(static_cast<int>(std::floor((t - ff.t_begin) / h)), 0, N - 1);
  const double th = (t - ff.t_begin) / h - k;
  // Cubic Hermite interpolant of η (the collocation polynomial of Hermite–Simpson).
  const double h00 = (1.0 + 2.0 * th) * (1.0 - th) * (1.0 - th);
  const double h10 = th * (1.0 - th) * (1.0 - th);
  const double h01 = th * th * (3.0 - 2.0 * th);
  const double h11 = th * th * (th - 1.0);
  const VecX eta = h00 * ff.eta[k] + h10 * h * ff.eta_dot[k] + h01 * ff.eta[k + 1] +
                   h11 * h * ff.eta_dot[k + 1];
  return evaluate(t, eta, ff.ik[k], out);
}

}  // namespace rbs
