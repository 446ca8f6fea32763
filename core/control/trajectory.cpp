#include "core/control/trajectory.h"

#include <algorithm>
#include <cmath>
#include <complex>
#include <numbers>

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
  if (tau <= 0.0) return Jet{0, 0, 0, 0, 0};
  // Ramp up: ẇ = s₉(τ/R), w = R S(τ/R).
  if (tau < R) {
    const double u = tau / R;
    const Jet s = restToRest(9, u);
    const Jet S = polynomialJet(kDegree9IntegralTable, u);
    return Jet{R * S[0], s[0], s[1] / R, s[2] / (R * R), s[3] / (R * R * R)};
  }
  if (!limited) return Jet{0.5 * R + (tau - R), 1, 0, 0, 0};
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
