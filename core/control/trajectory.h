// Time functions for the reference generators (core/control/reference.h): every path gives its
// value and the time derivatives 1…4 analytically, because the flatness-based attitudes need the
// position up to the 4th derivative (ω̇_R from r_R⁽⁴⁾, thesis 5.5 / konz-control §10.10).
// Internal to core/control.
#pragma once

#include <array>
#include <memory>
#include <vector>

namespace rbs::traj {

/// f(t), ḟ, f̈, f⁽³⁾, f⁽⁴⁾.
using Jet = std::array<double, 5>;

inline Jet constantJet(double value) {
  return Jet{value, 0.0, 0.0, 0.0, 0.0};
}

/// The rest-to-rest polynomial s(τ) on [0, 1] of odd degree 5, 7 or 9 (s(0) = 0, s(1) = 1, the
/// derivatives up to order (degree − 1)/2 vanish at both ends) and its derivatives
/// ds/dτ … d⁴s/dτ⁴. Outside [0, 1] it is clamped (0 before, 1 after, derivatives 0).
/// Degree 9 is the thesis' choice (chapter 5: C⁴ transitions for ω̇_R).
Jet restToRest(int degree, double tau);

/// τ ↦ value of start + (goal − start) s((t − t0)/T) with time derivatives.
Jet transition(int degree, double t0, double duration, double start, double goal, double t);

/// A vector-valued function of time, evaluated per component.
class Path {
 public:
  virtual ~Path() = default;
  virtual int dim() const = 0;
  virtual Jet component(double t, int i) const = 0;
  /// All dim() components at t into out[0], …, out[dim() − 1]. Paths whose components share work
  /// (a circle's arc angle and its cos/sin) override it to do that work once per sample.
  virtual void jets(double t, Jet* out) const {
    for (int i = 0; i < dim(); ++i) out[i] = component(t, i);
  }
};

/// Constant values.
class ConstantPath final : public Path {
 public:
  explicit ConstantPath(std::vector<double> values) : values_(std::move(values)) {}
  int dim() const override { return static_cast<int>(values_.size()); }
  Jet component(double, int i) const override { return constantJet(values_[i]); }

 private:
  std::vector<double> values_;
};

/// Rest-to-rest from `start` to `goal` during [t0, t0 + duration] (held before and after).
class PolynomialPath final : public Path {
 public:
  PolynomialPath(std::vector<double> start, std::vector<double> goal, double t0, double duration,
                 int degree)
      : start_(std::move(start)), goal_(std::move(goal)), t0_(t0), T_(duration), degree_(degree) {}
  int dim() const override { return static_cast<int>(start_.size()); }
  Jet component(double t, int i) const override {
    return transition(degree_, t0_, T_, start_[i], goal_[i], t);
  }

 private:
  std::vector<double> start_, goal_;
  double t0_, T_;
  int degree_;
};

/// offset + amplitude sin(2π t / period + phase), per component.
class SinusoidPath final : public Path {
 public:
  SinusoidPath(std::vector<double> offset, std::vector<double> amplitude,
               std::vector<double> period, std::vector<double> phase)
      : offset_(std::move(offset)),
        amplitude_(std::move(amplitude)),
        period_(std::move(period)),
        phase_(std::move(phase)) {}
  int dim() const override { return static_cast<int>(offset_.size()); }
  Jet component(double t, int i) const override;

 private:
  std::vector<double> offset_, amplitude_, period_, phase_;
};

/// Set-points arriving at `times` (chapter 5 style): at times[k] a rest-to-rest transition of
/// `duration` from the previous set-point (before times[0]: `initial`) to values[k] starts. The
/// caller checks times[k+1] − times[k] ≥ duration, so every transition is rest-to-rest.
class WaypointPath final : public Path {
 public:
  /// values[i] holds the N set-points of component i.
  WaypointPath(std::vector<double> times, std::vector<std::vector<double>> values,
               std::vector<double> initial, double duration, int degree)
      : times_(std::move(times)),
        values_(std::move(values)),
        initial_(std::move(initial)),
        T_(duration),
        degree_(degree) {}
  int dim() const override { return static_cast<int>(values_.size()); }
  Jet component(double t, int i) const override;

 private:
  std::vector<double> times_;
  std::vector<std::vector<double>> values_;
  std::vector<double> initial_;
  double T_;
  int degree_;
};

/// The arc angle of a circle: φ(t) = φ₀ + Ω w(t − t₀), Ω = 2π/period. The warped time w has the
/// rate ẇ = 1 except for the ramps: with ramp R > 0 the rate rises from 0 to 1 along the degree-9
/// rest-to-rest polynomial during [0, R] (so the motion starts at rest and is C⁴); with `loops`
/// N > 0 it falls back to 0 the same way at the end, so that the total angle is 2π N (duration
/// N·period + R, requires R ≤ N·period). Without loops and without ramp: φ = φ₀ + Ω (t − t₀)
/// for every t (constant arc speed, no start). With loops and no ramp: constant speed during
/// [t₀, t₀ + N·period], at rest outside (velocity jumps).
class ArcProfile {
 public:
  ArcProfile(double start_angle, double period, double t0, double ramp, double loops)
      : phi0_(start_angle), period_(period), t0_(t0), ramp_(ramp), loops_(loops) {}
  Jet angle(double t) const;

 private:
  Jet warp(double tau) const;                 // w and its derivatives
  double phi0_, period_, t0_, ramp_, loops_;  // loops ≤ 0: unlimited
};

/// center + radius (cos φ a + sin φ b) with orthonormal a, b (dimension 2 or 3).
class CirclePath final : public Path {
 public:
  CirclePath(std::vector<double> center, std::vector<double> a, std::vector<double> b,
             double radius, ArcProfile arc)
      : center_(std::move(center)),
        a_(std::move(a)),
        b_(std::move(b)),
        radius_(radius),
        arc_(arc) {}
  int dim() const override { return static_cast<int>(center_.size()); }
  Jet component(double t, int i) const override;
  void jets(double t, Jet* out) const override;
  const ArcProfile& arc() const { return arc_; }

 private:
  Jet componentOf(const Jet& c, const Jet& s, int i) const;  // from cos φ, sin φ jets
  std::vector<double> center_, a_, b_;
  double radius_;
  ArcProfile arc_;
};

/// cos φ(t) and sin φ(t) with time derivatives, from the jet of φ (Faà di Bruno through e^{iφ}).
void cosSinJets(const Jet& phi, Jet& c, Jet& s);

/// The time warp of a start from rest: w(u) with w(0) = 0 and the rate ẇ rising from 0 to 1 along
/// the degree-9 rest-to-rest polynomial during [0, R] (so w(R) = R/2), then ẇ = 1; w = 0 before 0.
/// Jets in u. R > 0.
Jet rampUp(double u, double R);

/// f(τ(t)) from f's jet in τ (at τ(t)) and τ's jet in t (Faà di Bruno to the 4th derivative).
Jet compose(const Jet& f_of_tau, const Jet& tau);

/// The manoeuvre time τ(t) of a reference that waited (docs/CONTROL.md "Recovery"): it stands at
/// tau_start until t_start, then runs up along rampUp to the rate 1 over `ramp` seconds, so that
/// the manoeuvre is rejoined from rest at its own pose of tau_start with C⁴ continuity; afterwards
/// τ = t − delay with delay = t_start + ramp/2 − tau_start. An infinite ramp never starts: τ stays
/// tau_start (a manoeuvre held at rest there).
class ManoeuvreClock {
 public:
  ManoeuvreClock(double t_start, double tau_start, double ramp);
  Jet at(double t) const;
  double delayAfterRamp() const { return t_start_ + 0.5 * ramp_ - tau_start_; }

 private:
  double t_start_, tau_start_, ramp_;
};

/// A path evaluated in manoeuvre time: p(τ(t)) with its time derivatives.
class WarpedPath final : public Path {
 public:
  WarpedPath(std::shared_ptr<const Path> path, ManoeuvreClock clock) : path_(std::move(path)), clock_(clock) {}
  int dim() const override { return path_->dim(); }
  Jet component(double t, int i) const override;
  void jets(double t, Jet* out) const override;

 private:
  std::shared_ptr<const Path> path_;
  ManoeuvreClock clock_;
};

/// Per component the degree-9 polynomial over [t0, t0 + T] that starts with the jet `start[i]` and
/// ends with `end[i]` (value and four derivatives each), held at its end values after t0 + T and at
/// its start jet before t0 (the value moves on with the start velocity). A planned move from a
/// moving state to rest (docs/CONTROL.md "Recovery": the return to the manoeuvre).
class HermitePath final : public Path {
 public:
  HermitePath(std::vector<Jet> start, std::vector<Jet> end, double t0, double duration);
  int dim() const override { return static_cast<int>(coefficients_.size()); }
  Jet component(double t, int i) const override;

 private:
  std::vector<std::array<double, 10>> coefficients_;  ///< per component, ascending powers of s
  std::vector<Jet> start_, end_;
  double t0_, T_;
};

/// From rest at `start` to rest at `goal` along the straight line, cruising at `speed`: the speed
/// runs up along rampUp over `ramp` seconds, holds, and runs down the same way, so that the move
/// takes D / speed + ramp (D = |goal − start|; a short move does not reach the cruise speed) and
/// is C⁴ with the acceleration at most 315/128 · speed / ramp. Held at start before t0 and at goal
/// after. (docs/CONTROL.md "Recovery": the way back to the manoeuvre.)
class CruisePath final : public Path {
 public:
  CruisePath(std::vector<double> start, std::vector<double> goal, double t0, double speed, double ramp);
  int dim() const override { return static_cast<int>(start_.size()); }
  Jet component(double t, int i) const override;
  double duration() const { return cruise_ + ramp_; }

 private:
  std::vector<double> start_, direction_;
  double t0_, speed_, ramp_, cruise_ = 0.0;
};

/// Paths one after another: from `starts[k]` on the path `paths[k]` (before starts[0]: paths[0]).
/// The caller makes them meet (a HermitePath that ends at rest where the next starts at rest).
class PathSequence final : public Path {
 public:
  PathSequence(std::vector<double> starts, std::vector<std::shared_ptr<const Path>> paths);
  int dim() const override { return paths_.front()->dim(); }
  Jet component(double t, int i) const override { return at(t).component(t, i); }

 private:
  const Path& at(double t) const;
  std::vector<double> starts_;
  std::vector<std::shared_ptr<const Path>> paths_;
};

/// A circle's arc angle φ(t) as a one-component path (the attitude laws that turn with it).
class ArcAnglePath final : public Path {
 public:
  explicit ArcAnglePath(std::shared_ptr<const CirclePath> circle) : circle_(std::move(circle)) {}
  int dim() const override { return 1; }
  Jet component(double t, int) const override { return circle_->arc().angle(t); }

 private:
  std::shared_ptr<const CirclePath> circle_;
};

}  // namespace rbs::traj
