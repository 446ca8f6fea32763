// Terminal helpers of the long-running rbsim-cli subcommands (run, render): Ctrl-C handling that
// lets a command finish its output, and a one-line progress bar.
#pragma once

#include <chrono>
#include <csignal>
#include <iosfwd>

namespace rbs::cli {

/// Exit code of a command stopped by Ctrl-C or SIGTERM (the shell's convention for SIGINT).
constexpr int kExitInterrupted = 130;

/// Installs SIGINT/SIGTERM handlers that only set a flag, and restores the previous ones.
class InterruptGuard {
 public:
  InterruptGuard();
  ~InterruptGuard();
  InterruptGuard(const InterruptGuard&) = delete;
  InterruptGuard& operator=(const InterruptGuard&) = delete;
  bool requested() const;

 private:
  void (*previous_int_)(int) = SIG_DFL;
  void (*previous_term_)(int) = SIG_DFL;
};

/// A one-line progress bar on stderr, redrawn at most ten times per second.
class ProgressBar {
 public:
  ProgressBar(std::ostream& err, bool enabled, double t0, double t_end)
      : err_(err), enabled_(enabled), t0_(t0), t_end_(t_end) {}

  void update(double t);
  /// Clears the bar so that the summary starts on a clean line.
  void finish();

 private:
  std::ostream& err_;
  bool enabled_;
  double t0_, t_end_;
  bool drawn_ = false;
  std::chrono::steady_clock::time_point last_;
};

}  // namespace rbs::cli
