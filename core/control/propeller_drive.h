// The propeller drive of the LSR multicopters as the flight code runs it (thesis 5.3.2,
// konz-multicopters §A.6): per propeller, a noisy mean-speed measurement from the BLDC driver's
// commutation angle, an observer that estimates the speed and the friction, and a tracking law for
// the motor current that uses the observer's one-step prediction. Everything is discrete with the
// control period T_S and works on the normalized drive model (5.13)/(5.19):
//   ϖ[k+1] = ϖ[k] + T_S (p_P2 i_M[k] − p_P3 − p_P1 ϖ[k]²),
//   p_P1 = κ_T/Θ_P, p_P2 = k_M/Θ_P, p_P3 = τ_MB/Θ_P (friction, opposing the spin).
// The drive is written for ϖ > 0 (the rotors spin one way, §A.3); ϖ|ϖ| stands for ϖ² so that a
// rotor pushed backwards is still braked by its drag.
#pragma once

#include <array>

namespace rbs {

/// The normalized drive model (5.13) of one propeller.
struct PropellerDriveModel {
  double p1 = 0.0;  ///< p_P1 = κ_T/Θ_P [1/rad]
  double p2 = 0.0;  ///< p_P2 = k_M/Θ_P [rad/(s² A)]
  double p3 = 0.0;  ///< p_P3 = τ_MB/Θ_P [rad/s²]

  /// ϖ̇ of (5.13) with the friction `friction` (p_P3 or its estimate).
  double acceleration(double speed, double current, double friction) const {
    return p2 * current - friction - p1 * speed * (speed < 0.0 ? -speed : speed);
  }
  /// One forward Euler step (5.19).
  double step(double speed, double current, double period) const {
    return speed + period * acceleration(speed, current, p3);
  }
};

/// The feedback gains of the observer (5.23).
struct PropellerObserverGains {
  double l1 = 0.0;  ///< l_P1 on the speed [1/s]
  double l2 = 0.0;  ///< l_P2 on the friction estimate [1/s²]
};

/// Coefficients [c0, c1, c2] of the observer's linearized error polynomial (5.24) at the speed ϖ̄,
/// λ³ + c2 λ² + c1 λ + c0.
std::array<double, 3> propellerObserverPolynomial(const PropellerDriveModel& model, double period,
                                                  double speed, const PropellerObserverGains& gains);

/// Gains that give (5.24) a double root λ_d = exp(−pole T_S) at the speed ϖ̄ (the thesis leaves the
/// roots open). Two gains cannot place three roots: (5.24) always has p(−1) = −4 + 4 T_S p_P1 ϖ̄, so
/// the third root follows, (1 + λ_d)² (1 + λ_3) = 4 − 4 T_S p_P1 ϖ̄. Throws ControlError when the
/// pole is not positive and finite or the third root leaves the unit circle (poles faster than about
/// 0.88 / T_S).
PropellerObserverGains propellerObserverGains(const PropellerDriveModel& model, double period, double speed,
                                              double pole);

/// The third root λ_3 of that placement.
double propellerObserverThirdRoot(const PropellerDriveModel& model, double period, double speed, double pole);

/// The observer (5.23) of one propeller: copy of (5.19) with the measurement error
/// e[k] = ϖ_M[k] − (ϖ̂[k] + ϖ̂[k−1])/2 (the measurement is the mean over the last period, (5.22))
/// fed back to the speed and to the friction estimate p̂_P3.
class PropellerObserver {
 public:
  PropellerObserver() = default;
  PropellerObserver(const PropellerDriveModel& model, double period, const PropellerObserverGains& gains)
      : model_(model), period_(period), gains_(gains) {}

  /// New gains for the period T_S (they depend on it); the estimates are kept.
  void setGains(double period, const PropellerObserverGains& gains) {
    period_ = period;
    gains_ = gains;
  }
  /// Start at instant k = 0 with ϖ̂[0] = ϖ̂[−1] = `speed` and p̂_P3[0] = `friction`.
  void reset(double speed, double friction);
  /// Instant k: the measurement ϖ_M[k] and the current i_M[k] applied over [k, k+1) give ϖ̂[k+1] and
  /// p̂_P3[k+1] (5.23b,c). Returns the measurement error e[k] (5.23a).
  double update(double measured_mean_speed, double current);

  double speed() const { return speed_; }        ///< ϖ̂ after the last update: ϖ̂[k+1]
  double speedNow() const { return previous_speed_; }  ///< ϖ̂[k], the estimate for the last update's instant
  double friction() const { return friction_; }  ///< p̂_P3[k+1]
  double frictionNow() const { return previous_friction_; }  ///< p̂_P3[k]
  /// The mean speed the observer expects the next measurement to show, (ϖ̂[k+1] + ϖ̂[k])/2.
  double expectedMeanSpeed() const { return 0.5 * (speed_ + previous_speed_); }

 private:
  PropellerDriveModel model_;
  double period_ = 0.0;
  PropellerObserverGains gains_;
  double speed_ = 0.0, previous_speed_ = 0.0, friction_ = 0.0, previous_friction_ = 0.0;
};

/// The tracking law (5.25): the current i_M[k+1] for the next period from the desired speeds
/// ϖ̂_D[k+1], ϖ̂_D[k+2] and the observer's prediction ϖ̂[k+1], p̂_P3[k+1], with the gain k_P. With a
/// converged observer the error e = ϖ̂_D − ϖ follows (5.26), linearized pole 1 − T_S (2 p_P1 ϖ̄ + k_P)
/// (5.27).
double propellerTrackingCurrent(const PropellerDriveModel& model, double period, double desired_next,
                                double desired_after, double predicted_speed, double predicted_friction,
                                double gain);

}  // namespace rbs
