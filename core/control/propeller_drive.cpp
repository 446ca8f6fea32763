#include "core/control/propeller_drive.h"

#include <cmath>
#include <string>

#include "core/control/parameters.h"
#include "core/control/reference_settings_reader.h"

namespace rbs {

std::array<double, 3> propellerObserverPolynomial(const PropellerDriveModel& model, double period,
                                                  double speed, const PropellerObserverGains& gains) {
  // (5.24); derived again from (5.19), (5.22), (5.23) with the errors ϖ − ϖ̂ and p_P3 − p̂_P3, state
  // (ε[k], ε[k−1], p̃[k]): it agrees with the print.
  const double t = period, a = 4.0 * model.p1 * speed;
  return {-0.5 * t * (gains.l1 + t * gains.l2),  //
          1.0 - 0.5 * t * (a + t * gains.l2),    //
          0.5 * t * (a + gains.l1) - 2.0};
}

double propellerObserverThirdRoot(const PropellerDriveModel& model, double period, double speed, double pole) {
  if (!(pole > 0.0) || !std::isfinite(pole))
    throw ControlError("observer_pole must be positive and finite, got " + formatNumber(pole) + " rad/s");
  const double double_root = std::exp(-pole * period);
  // p(−1) = −1 + c2 − c1 + c0 = −4 + 4 T_S p_P1 ϖ̄ whatever the gains, and p(−1) = −Π (1 + λ_i).
  return (4.0 - 4.0 * period * model.p1 * speed) / ((1.0 + double_root) * (1.0 + double_root)) - 1.0;
}

PropellerObserverGains propellerObserverGains(const PropellerDriveModel& model, double period, double speed,
                                              double pole) {
  const double third = propellerObserverThirdRoot(model, period, speed, pole);
  if (!(std::abs(third) < 1.0))
    throw ControlError("observer_pole " + formatNumber(pole) + " rad/s is too fast for T_S = " +
                       formatNumber(period) + " s: the observer's third root (5.24) would be " +
                       formatNumber(third) + " (|λ| ≥ 1); choose a pole below about " +
                       formatNumber(0.88 / period) + " rad/s");
  const double d = std::exp(-pole * period);
  const double c2 = -(2.0 * d + third);  // λ³ + c2 λ² + c1 λ + c0 = (λ − d)² (λ − λ_3)
  const double c0 = -d * d * third;
  PropellerObserverGains gains;
  gains.l1 = 2.0 * (c2 + 2.0) / period - 4.0 * model.p1 * speed;
  gains.l2 = (-2.0 * c0 / period - gains.l1) / period;
  return gains;
}

void PropellerObserver::reset(double speed, double friction) {
  speed_ = previous_speed_ = speed;
  friction_ = previous_friction_ = friction;
}

double PropellerObserver::update(double measured_mean_speed, double current) {
  const double error = measured_mean_speed - expectedMeanSpeed();  // (5.23a)
  const double next = speed_ + period_ * (model_.acceleration(speed_, current, friction_) + gains_.l1 * error);
  previous_friction_ = friction_;
  friction_ += period_ * gains_.l2 * error;  // (5.23c)
  previous_speed_ = speed_;
  speed_ = next;  // (5.23b)
  return error;
}

double propellerTrackingCurrent(const PropellerDriveModel& model, double period, double desired_next,
                                double desired_after, double predicted_speed, double predicted_friction,
                                double gain) {
  // (5.25b) is (5.19) solved for the current that moves ϖ̂_D[k+1] to ϖ̂_D[k+2], plus k_P e[k+1].
  const double error = desired_next - predicted_speed;  // (5.25a)
  const double acceleration = (desired_after - desired_next) / period;
  return (acceleration + model.p1 * desired_next * std::abs(desired_next) + predicted_friction + gain * error) /
         model.p2;
}

}  // namespace rbs
