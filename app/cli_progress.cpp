#include "app/cli_progress.h"

#include <algorithm>
#include <cmath>
#include <iomanip>
#include <ostream>
#include <sstream>
#include <string>

namespace rbs::cli {

namespace {

volatile std::sig_atomic_t g_interrupt_requested = 0;
extern "C" void requestInterrupt(int) { g_interrupt_requested = 1; }

}  // namespace

InterruptGuard::InterruptGuard() {
  g_interrupt_requested = 0;
  previous_int_ = std::signal(SIGINT, requestInterrupt);
  previous_term_ = std::signal(SIGTERM, requestInterrupt);
}

InterruptGuard::~InterruptGuard() {
  std::signal(SIGINT, previous_int_);
  std::signal(SIGTERM, previous_term_);
}

bool InterruptGuard::requested() const { return g_interrupt_requested != 0; }

void ProgressBar::update(double t) {
  if (!enabled_) return;
  const auto now = std::chrono::steady_clock::now();
  if (drawn_ && now - last_ < std::chrono::milliseconds(100)) return;
  last_ = now;
  drawn_ = true;
  const double span = t_end_ - t0_;
  const double frac = span > 0.0 ? std::clamp((t - t0_) / span, 0.0, 1.0) : 1.0;
  constexpr int kWidth = 40;
  const int filled = static_cast<int>(std::lround(frac * kWidth));
  std::ostringstream line;
  line << "\r[" << std::string(filled, '#') << std::string(kWidth - filled, ' ') << "] " << std::setw(3)
       << std::lround(frac * 100.0) << "%  t = " << std::fixed << std::setprecision(3) << t << " / " << t_end_
       << " s";
  err_ << line.str() << std::flush;
}

void ProgressBar::finish() {
  if (!enabled_ || !drawn_) return;
  err_ << "\r" << std::string(80, ' ') << "\r" << std::flush;
}

}  // namespace rbs::cli
