#include "core/control/trajectory.h"

#include <algorithm>
#include <cmath>
#include <complex>
#include <numbers>
#include <stdexcept>

namespace rbs::traj {
namespace {

constexpr double kTwoPi = 2.0 * std::numbers::pi;

// Coefficients (ascending powers) of the rest-to-rest polynomials: the unique polynomial of
// degree 2k+1 with s(0) = 0, s(1) = 1 and s⁽ʲ⁾(0) = s⁽ʲ⁾(1) = 0 for j = 1…k.
constexpr std::array<double, 6> kDegree5{0, 0, 0, 10, -15, 6};
constexpr std::array<double, 8> kDegree7{0, 0, 0, 0, 35, -84, 70, -20};
constexpr std::array<double, 10> kDegree9{0, 0, 0, 0, 0, 126, -420, 540, -315, 70};
// ∫₀^u s₉: the warped time of the circle's ramp (rate s₉), S(1) = ½.
constexpr std::array<double, 11> kDegree9Integral{0, 0, 0, 0, 0, 0, 21, -60, 67.5, -35, 7};

/// Coefficients of a polynomial and of its first four derivatives: row k holds d^k/du^k
/// (ascending powers, zero-padded). Built at compile time, so a sample is five Horner loops.
template <std::size_t N>
struct DerivativeTable {
  std::array<std::array<double, N>, 5> rows{};
  constexpr explicit DerivativeTable(const std::array<double, N>& c) {
    rows[0] = c;
    for (std::size_t k = 1; k < 5; ++k)
      for (std::size_t p = 0; p + 1 < N; ++p) rows[k][p] = rows[k - 1][p + 1] * static_cast<double>(p + 1);
  }
};

/// The polynomial and its first four derivatives at u (Horner on the differentiated
/// coefficients).
template <std::size_t N>
Jet polynomialJet(const DerivativeTable<N>& table, double u) {
  Jet out{};
  for (std::size_t k = 0; k < 5 && k < N; ++k) {
    double v = 0.0;
    for (std::size_t p = N - k; p-- > 0;) v = v * u + table.rows[k][p];
    out[k] = v;
  }
  return out;
}

constexpr DerivativeTable<6> kDegree5Table(kDegree5);
constexpr DerivativeTable<8> kDegree7Table(kDegree7);
constexpr DerivativeTable<10> kDegree9Table(kDegree9);
constexpr DerivativeTable<11> kDegree9IntegralTable(kDegree9Integral);

}  // namespace

Jet restToRest(int degree, double tau) {
  if (tau <= 0.0) return Jet{0, 0, 0, 0, 0};
  if (tau >= 1.0) return Jet{1, 0, 0, 0, 0};
  switch (degree) {
    case 5:
      return polynomialJet(kDegree5Table, tau);
    case 7:
      return polynomialJet(kDegree7Table, tau);
    default:
      return polynomialJet(kDegree9Table, tau);
  }
}

Jet transition(int degree, double t0, double duration, double start, double goal, double t) {
  const Jet s = restToRest(degree, (t - t0) / duration);
  const double delta = goal - start;
  Jet out;
  out[0] = start + delta * s[0];
  double scale = delta;
  for (int k = 1; k < 5; ++k) {
    scale /= duration;
    out[k] = scale * s[k];
  }
  return out;
}

Jet SinusoidPath::component(double t, int i) const {
  const double w = kTwoPi / period_[i];
  const double a = amplitude_[i];
  const double arg = w * t + phase_[i];
  const double s = std::sin(arg), c = std::cos(arg);
  return Jet{offset_[i] + a * s, a * w * c, -a * w * w * s, -a * w * w * w * c,
             a * w * w * w * w * s};
}

Jet WaypointPath::component(double t, int i) const {
  // The last set-point that has arrived; the transitions before it are complete (checked gaps).
  const auto it = std::upper_bound(times_.begin(), times_.end(), t);
  if (it == times_.begin()) return constantJet(initial_[i]);
  const auto k = static_cast<std::size_t>(it - times_.begin()) - 1;
  const double from = k == 0 ? initial_[i] : values_[i][k - 1];
  return transition(degree_, times_[k], T_, from, values_[i][k], t);
}

Jet ArcProfile::warp(double tau) const {
  const bool limited = loops_ > 0.0;
  const double total = limited ? loops_ * period_ : 0.0;  // w at the end
  if (ramp_ <= 0.0) {
    if (!limited) return Jet{tau, 1, 0, 0, 0};
    if (tau <= 0.0) return Jet{0, 0, 0, 0, 0};
    if (tau >= total) return Jet{total, 0, 0, 0, 0};
    return Jet{tau, 1, 0, 0, 0};
  }
  const double R = ramp_;
  if (tau < R || !limited) return rampUp(tau, R);
  const double cruise_end = total;  // R + (N·period − R)
  if (tau <= cruise_end) return Jet{0.5 * R + (tau - R), 1, 0, 0, 0};
  const double end = total + R;
  if (tau >= end) return Jet{total, 0, 0, 0, 0};
  // Ramp down, mirrored: with τ' = end − τ, ẇ = s₉(τ'/R), w = total − R S(τ'/R).
  const double u = (end - tau) / R;
  const Jet s = restToRest(9, u);
  const Jet S = polynomialJet(kDegree9IntegralTable, u);
  return Jet{total - R * S[0], s[0], -s[1] / R, s[2] / (R * R), -s[3] / (R * R * R)};
}

Jet rampUp(double u, double R) {
  if (u <= 0.0) return Jet{0, 0, 0, 0, 0};
  if (u >= R) return Jet{0.5 * R + (u - R), 1, 0, 0, 0};
  // ẇ = s₉(u/R), w = R S(u/R).
  const double x = u / R;
  const Jet s = restToRest(9, x);
  const Jet S = polynomialJet(kDegree9IntegralTable, x);
  return Jet{R * S[0], s[0], s[1] / R, s[2] / (R * R), s[3] / (R * R * R)};
}

Jet compose(const Jet& f, const Jet& tau) {
  const double t1 = tau[1], t2 = tau[2], t3 = tau[3], t4 = tau[4];
  return Jet{f[0], f[1] * t1, f[2] * t1 * t1 + f[1] * t2, f[3] * t1 * t1 * t1 + 3.0 * f[2] * t1 * t2 + f[1] * t3,
             f[4] * t1 * t1 * t1 * t1 + 6.0 * f[3] * t1 * t1 * t2 + f[2] * (3.0 * t2 * t2 + 4.0 * t1 * t3) + f[1] * t4};
}

ManoeuvreClock::ManoeuvreClock(double t_start, double tau_start, double ramp)
    : t_start_(t_start), tau_start_(tau_start), ramp_(ramp) {
  if (!(ramp > 0.0) || !std::isfinite(t_start) || !std::isfinite(tau_start))
    throw std::invalid_argument("ManoeuvreClock: needs finite times and a ramp > 0");
}

Jet ManoeuvreClock::at(double t) const {
  if (!std::isfinite(ramp_)) return constantJet(tau_start_);  // never starts: at rest at tau_start
  Jet w = rampUp(t - t_start_, ramp_);
  w[0] += tau_start_;
  return w;
}

Jet WarpedPath::component(double t, int i) const {
  const Jet tau = clock_.at(t);
  return compose(path_->component(tau[0], i), tau);
}

void WarpedPath::jets(double t, Jet* out) const {
  const Jet tau = clock_.at(t);
  path_->jets(tau[0], out);
  for (int i = 0; i < dim(); ++i) out[i] = compose(out[i], tau);
}

HermitePath::HermitePath(std::vector<Jet> start, std::vector<Jet> end, double t0, double duration)
    : start_(std::move(start)), end_(std::move(end)), t0_(t0), T_(duration) {
  if (start_.size() != end_.size() || !(duration > 0.0))
    throw std::invalid_argument("HermitePath: start and end need as many components, and the duration must be > 0");
  // p(s) = Σ c_j s^j with s = (t − t0)/T: c_k = T^k a_k / k! from the start (k ≤ 4); c_5 … c_9 from
  // the end conditions Σ_j c_j j!/(j − k)! = T^k b_k, a 5×5 system with constant matrix N.
  double N[5][5], falling[10][5];
  for (int j = 0; j < 10; ++j)
    for (int k = 0; k < 5; ++k) {
      double f = 1.0;
      for (int m = 0; m < k; ++m) f *= static_cast<double>(j - m);
      falling[j][k] = j >= k ? f : 0.0;
    }
  for (int k = 0; k < 5; ++k)
    for (int j = 0; j < 5; ++j) N[k][j] = falling[j + 5][k];
  for (std::size_t i = 0; i < start_.size(); ++i) {
    std::array<double, 10> c{};
    double scale = 1.0, factorial = 1.0;
    for (int k = 0; k < 5; ++k) {
      if (k > 0) factorial *= k;
      c[static_cast<std::size_t>(k)] = scale * start_[i][static_cast<std::size_t>(k)] / factorial;
      scale *= duration;
    }
    double rhs[5];
    scale = 1.0;
    for (int k = 0; k < 5; ++k) {
      double known = 0.0;
      for (int j = 0; j < 5; ++j) known += c[static_cast<std::size_t>(j)] * falling[j][k];
      rhs[k] = scale * end_[i][static_cast<std::size_t>(k)] - known;
      scale *= duration;
    }
    // Gaussian elimination with partial pivoting on the 5×5 system (well conditioned: entries ≤ 3024).
    double A[5][6];
    for (int r = 0; r < 5; ++r) {
      for (int j = 0; j < 5; ++j) A[r][j] = N[r][j];
      A[r][5] = rhs[r];
    }
    for (int col = 0; col < 5; ++col) {
      int pivot = col;
      for (int r = col + 1; r < 5; ++r)
        if (std::abs(A[r][col]) > std::abs(A[pivot][col])) pivot = r;
      for (int j = 0; j < 6; ++j) std::swap(A[col][j], A[pivot][j]);
      for (int r = col + 1; r < 5; ++r) {
        const double f = A[r][col] / A[col][col];
        for (int j = col; j < 6; ++j) A[r][j] -= f * A[col][j];
      }
    }
    for (int r = 4; r >= 0; --r) {
      double v = A[r][5];
      for (int j = r + 1; j < 5; ++j) v -= A[r][j] * c[static_cast<std::size_t>(j + 5)];
      c[static_cast<std::size_t>(r + 5)] = v / A[r][r];
    }
    coefficients_.push_back(c);
  }
}

Jet HermitePath::component(double t, int i) const {
  const auto k = static_cast<std::size_t>(i);
  if (t < t0_) {  // from t0 on the polynomial, which meets the whole start jet there
    const Jet& a = start_[k];
    return Jet{a[0] + a[1] * (t - t0_), a[1], 0, 0, 0};
  }
  if (t >= t0_ + T_) return constantJet(end_[k][0]);
  const double s = (t - t0_) / T_;
  const std::array<double, 10>& c = coefficients_[k];
  Jet out{};
  double scale = 1.0;
  for (int d = 0; d < 5; ++d) {  // d-th derivative in s, then / T^d
    double v = 0.0;
    for (int j = 9; j >= d; --j) {
      double f = 1.0;
      for (int m = 0; m < d; ++m) f *= static_cast<double>(j - m);
      v = v * s + c[static_cast<std::size_t>(j)] * f;
    }
    out[static_cast<std::size_t>(d)] = v / scale;
    scale *= T_;
  }
  return out;
}

CruisePath::CruisePath(std::vector<double> start, std::vector<double> goal, double t0, double speed, double ramp)
    : start_(std::move(start)), t0_(t0), speed_(speed), ramp_(ramp) {
  if (goal.size() != start_.size() || !(speed > 0.0) || !(ramp > 0.0))
    throw std::invalid_argument("CruisePath: start and goal of one size, speed and ramp > 0");
  double distance = 0.0;
  for (std::size_t i = 0; i < goal.size(); ++i) distance += (goal[i] - start_[i]) * (goal[i] - start_[i]);
  distance = std::sqrt(distance);
  direction_.assign(goal.size(), 0.0);
  if (distance > 0.0)
    for (std::size_t i = 0; i < goal.size(); ++i) direction_[i] = (goal[i] - start_[i]) / distance;
  cruise_ = distance / speed;
}

Jet CruisePath::component(double t, int i) const {
  // Arc length σ = speed (w(u) − w(u − T_c)) with w = rampUp: its rate rises to `speed` over the
  // ramp, holds, and falls back over the ramp after T_c; in total σ → speed T_c = D.
  const double u = t - t0_;
  const Jet a = rampUp(u, ramp_), b = rampUp(u - cruise_, ramp_);
  const double d = direction_[static_cast<std::size_t>(i)];
  Jet q;
  for (int k = 0; k < 5; ++k) q[k] = d * speed_ * (a[k] - b[k]);
  q[0] += start_[static_cast<std::size_t>(i)];
  return q;
}

PathSequence::PathSequence(std::vector<double> starts, std::vector<std::shared_ptr<const Path>> paths)
    : starts_(std::move(starts)), paths_(std::move(paths)) {
  if (paths_.empty() || starts_.size() != paths_.size() || !std::is_sorted(starts_.begin(), starts_.end()))
    throw std::invalid_argument("PathSequence: one start time per path, in order");
  for (const auto& path : paths_)
    if (path->dim() != paths_.front()->dim()) throw std::invalid_argument("PathSequence: paths of different dimension");
}

const Path& PathSequence::at(double t) const {
  const auto k = std::upper_bound(starts_.begin(), starts_.end(), t) - starts_.begin();
  return *paths_[static_cast<std::size_t>(std::max<std::ptrdiff_t>(k - 1, 0))];
}

Jet ArcProfile::angle(double t) const {
  const Jet w = warp(t - t0_);
  const double rate = kTwoPi / period_;
  return Jet{phi0_ + rate * w[0], rate * w[1], rate * w[2], rate * w[3], rate * w[4]};
}

void cosSinJets(const Jet& phi, Jet& c, Jet& s) {
  // dᵏ/dtᵏ e^{iφ} = m_k e^{iφ}.
  using C = std::complex<double>;
  const double p1 = phi[1], p2 = phi[2], p3 = phi[3], p4 = phi[4];
  const C i(0.0, 1.0);
  const C m[5] = {
      C(1.0, 0.0), i * p1, i * p2 - p1 * p1, i * p3 - 3.0 * p1 * p2 - i * p1 * p1 * p1,
      i * p4 - 4.0 * p1 * p3 - 3.0 * p2 * p2 - 6.0 * i * p1 * p1 * p2 + p1 * p1 * p1 * p1};
  const C e(std::cos(phi[0]), std::sin(phi[0]));
  for (int k = 0; k < 5; ++k) {
    const C d = m[k] * e;
    c[k] = d.real();
    s[k] = d.imag();
  }
}

Jet CirclePath::component(double t, int i) const {
  Jet c, s;
  cosSinJets(arc_.angle(t), c, s);
  return componentOf(c, s, i);
}

void CirclePath::jets(double t, Jet* out) const {
  Jet c, s;
  cosSinJets(arc_.angle(t), c, s);  // once for all components
  for (int i = 0; i < dim(); ++i) out[i] = componentOf(c, s, i);
}

Jet CirclePath::componentOf(const Jet& c, const Jet& s, int i) const {
  Jet out;
  for (int k = 0; k < 5; ++k) out[k] = radius_ * (a_[i] * c[k] + b_[i] * s[k]);
  out[0] += center_[i];
  return out;
}

}  // namespace rbs::traj
