// rbsim-cli study FILE.yaml --out results.csv [--jobs N]: runs a parameter study (docs/STUDIES.md)
// on a local pool of worker processes. Each worker evaluates runs with evaluateStudyRun
// (sim/study_run.h), the same function the Dask runner's tasks call. Rows are appended to the
// results file as runs finish, so Ctrl-C keeps every finished run and the same command resumes;
// a complete study is rewritten in run order.
#include <poll.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cmath>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <filesystem>
#include <fstream>
#include <iomanip>
#include <iostream>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "app/cli_args.h"
#include "app/cli_commands.h"
#include "app/cli_progress.h"
#include "app/cli_sim_common.h"
#include "core/io/scene_error.h"
#include "core/scene/study.h"
#include "core/io/resource_path.h"
#include "sim/study_run.h"

namespace rbs::cli {
namespace {

const std::vector<OptionSpec>& studyOptions() {
  static const std::vector<OptionSpec> options = {
      {"out", true, "FILE.csv", "results file (required); an existing one from the same study is resumed"},
      {"jobs", true, "N", "worker processes (default 1)"},
      {"plot", true, "DIR", "when the study is complete, draw its standard pictures (PNG and PDF) into DIR"},
      {"retry-errors", false, "", "make the runs the results file holds as errors again (once their cause is fixed)"},
      {"retry-diverged", false, "", "make the runs the results file holds as diverged again"},
      {"quiet", false, "", "no progress line and no summary on stderr"},
      {"help", false, "", "show this help"},
  };
  return options;
}

/// One worker process: reads run indices (one per line) and answers with one CSV row per run.
struct Worker {
  pid_t pid = -1;
  int to_worker = -1;    ///< write end: run indices
  int from_worker = -1;  ///< read end: result rows
  long running = -1;     ///< the run it evaluates now (−1: idle)
  std::string buffer;    ///< a row read in part
};

void writeAll(int fd, const std::string& text) {
  std::size_t done = 0;
  while (done < text.size()) {
    const ssize_t n = ::write(fd, text.data() + done, text.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return;  // the other side is gone: the caller sees it on its next read
    done += static_cast<std::size_t>(n);
  }
}

/// The worker's loop (in the child process): never returns.
[[noreturn]] void workerMain(const Study& study, const std::vector<StudyRunSpec>& runs, const std::string& hash,
                             int in, int out) {
  std::signal(SIGINT, SIG_IGN);  // Ctrl-C is the parent's to handle: it ends the workers
  std::signal(SIGTERM, SIG_DFL);
  std::string line;
  char c;
  for (;;) {
    line.clear();
    ssize_t n;
    while ((n = ::read(in, &c, 1)) == 1 && c != '\n') line += c;
    if (n <= 0 && line.empty()) ::_exit(0);  // no more work
    const long index = std::stol(line);
    const StudyRunSpec& run = runs[static_cast<std::size_t>(index)];
    writeAll(out, studyCsvRow(run, evaluateStudyRun(study, run), hash) + "\n");
  }
}

Worker spawn(const Study& study, const std::vector<StudyRunSpec>& runs, const std::string& hash,
             const std::vector<Worker>& others) {
  int down[2], up[2];
  if (::pipe(down) != 0) throw std::runtime_error(std::string("pipe: ") + std::strerror(errno));
  if (::pipe(up) != 0) {
    ::close(down[0]);
    ::close(down[1]);
    throw std::runtime_error(std::string("pipe: ") + std::strerror(errno));
  }
  std::cout.flush();
  std::cerr.flush();
  const pid_t pid = ::fork();
  if (pid < 0) {
    for (int fd : {down[0], down[1], up[0], up[1]}) ::close(fd);
    throw std::runtime_error(std::string("fork: ") + std::strerror(errno));
  }
  if (pid == 0) {
    ::close(down[1]);
    ::close(up[0]);
    for (const Worker& w : others) {
      ::close(w.to_worker);
      ::close(w.from_worker);
    }
    workerMain(study, runs, hash, down[0], up[1]);
  }
  ::close(down[0]);
  ::close(up[1]);
  Worker w;
  w.pid = pid;
  w.to_worker = down[1];
  w.from_worker = up[0];
  return w;
}

std::string duration(double seconds) {
  std::ostringstream o;
  const long s = std::lround(std::max(0.0, seconds));
  if (s >= 3600) o << s / 3600 << "h" << std::setw(2) << std::setfill('0') << (s % 3600) / 60 << "m";
  else if (s >= 60) o << s / 60 << "m" << std::setw(2) << std::setfill('0') << s % 60 << "s";
  else o << s << "s";
  return o.str();
}

/// Draws the pictures of a results file with the Python package (python3 -m rbsim.study_plot).
/// Returns an error message, empty on success.
std::string plotResults(const std::filesystem::path& results, const std::string& dir) {
#if defined(RBS_PYTHON_EXECUTABLE) && defined(RBS_PYTHON_PATH)
  std::cout.flush();
  std::cerr.flush();
  const pid_t pid = ::fork();
  if (pid < 0) return std::string("fork: ") + std::strerror(errno);
  if (pid == 0) {
    // an installed rbsim-cli runs the package installed beside it, one in its build tree the build's
    const std::filesystem::path installed = installedDataDir();
    const std::string package =
        installed.empty() ? std::string(RBS_PYTHON_PATH)
                          : (installed.parent_path().parent_path() / RBS_PYTHON_INSTALL_DIR).string();
    const char* old = std::getenv("PYTHONPATH");
    const std::string path = package + (old && *old ? std::string(":") + old : std::string());
    ::setenv("PYTHONPATH", path.c_str(), 1);
    const std::string file = results.string();
    ::execl(RBS_PYTHON_EXECUTABLE, RBS_PYTHON_EXECUTABLE, "-m", "rbsim.study_plot", file.c_str(), dir.c_str(),
            static_cast<char*>(nullptr));
    std::fprintf(stderr, "rbsim-cli study: cannot start %s: %s\n", RBS_PYTHON_EXECUTABLE, std::strerror(errno));
    ::_exit(127);
  }
  int status = 0;
  ::waitpid(pid, &status, 0);
  if (WIFEXITED(status) && WEXITSTATUS(status) == 0) return "";
  return "drawing the pictures failed (python3 -m rbsim.study_plot, exit " +
         std::to_string(WIFEXITED(status) ? WEXITSTATUS(status) : -1) + ")";
#else
  (void)results;
  (void)dir;
  return "--plot needs the rbsim Python package, which this build does not have (RBS_BUILD_PYTHON)";
#endif
}

}  // namespace

std::string studyUsage() {
  return "usage: rbsim-cli study STUDY.yaml --out RESULTS.csv [--jobs N] [--plot DIR] [--retry-errors] [--quiet]\n"
         "\n"
         "Runs a parameter study (docs/STUDIES.md): a scene, the settings to vary (grid, list,\n"
         "random), repetitions with noise seeds, and the metrics to keep per run. Each run is\n"
         "evaluated in one of N worker processes; its row (run, point, repetition, seed, parameter\n"
         "values, status ok|diverged|error, message, t_reached, wall_time, the metrics,\n"
         "rbsim_version, scene_hash, study_hash) is appended to RESULTS.csv as it finishes. Ctrl-C keeps the\n"
         "finished runs; the same command resumes where it stopped. A complete study is rewritten\n"
         "in run order. A diverging run is a result (status diverged, with its message).\n"
         "--retry-errors (--retry-diverged) makes the runs the file holds as errors (diverged)\n"
         "again: their rows leave the file and the new ones take their place. The summary counts\n"
         "what the file holds.\n"
         "--plot DIR draws the metrics against the parameters, heat maps and the share of runs\n"
         "that finished (python3 -m rbsim.study_plot, matplotlib).\n"
         "\n"
         "exit codes: 0 all runs done (some may have diverged); 1 the file holds runs that could\n"
         "not be made (status error) or the results could not be written; 2 bad command line or study file\n"
         "(FILE:LINE:COLUMN: message); 130 interrupted (the finished runs are kept).\n"
         "\n"
         "options:\n" +
         formatOptions(studyOptions());
}

int runStudy(const std::vector<std::string>& args, std::ostream& out, std::ostream& err) {
  const ParsedArgs parsed = parseArgs(args, studyOptions());
  if (parsed.has("help")) {
    out << studyUsage();
    return 0;
  }
  if (parsed.positional.size() != 1) throw UsageError("study needs one STUDY.yaml file");
  if (!parsed.has("out") || parsed.all("out").back().empty()) throw UsageError("study needs --out RESULTS.csv");
  const std::filesystem::path results = parsed.all("out").back();
  const long jobs = countOption(parsed, "jobs", 1);
  const bool quiet = parsed.has("quiet");

  Study study;
  std::vector<StudyRunSpec> runs;
  std::string hash;
  std::set<long> done;
  try {
    study = loadStudy(parsed.positional.front());
    runs = expandStudy(study);
    checkStudy(study);
    hash = studyHashes(study);
    std::set<std::string> retry;
    if (parsed.has("retry-errors")) retry.insert("error");
    if (parsed.has("retry-diverged")) retry.insert("diverged");
    done = completedStudyRuns(study, results, hash, retry);
  } catch (const SceneError& e) {
    err << e.what() << "\n";
    return 2;
  } catch (const std::exception& e) {
    err << "rbsim-cli study: " << e.what() << "\n";
    return 2;
  }

  std::ofstream file(results, std::ios::binary | std::ios::app);
  if (!file) {
    err << "rbsim-cli study: cannot write '" << results.string() << "'\n";
    return 2;
  }
  if (std::filesystem::file_size(results) == 0) file << studyCsvHeader(study) << "\n" << std::flush;

  std::deque<long> pending;
  for (const StudyRunSpec& r : runs)
    if (!done.count(r.index)) pending.push_back(r.index);
  const std::size_t total = runs.size(), resumed = done.size(), to_do = pending.size();
  if (!quiet && resumed > 0)
    err << "rbsim-cli study: resuming: " << resumed << " of " << total << " runs are in '" << results.string() << "'\n";

  const InterruptGuard interrupt;
  const bool show = !quiet && ::isatty(STDERR_FILENO) != 0;
  const auto start = std::chrono::steady_clock::now();
  std::size_t finished = 0, diverged = 0, failed = 0;
  std::vector<Worker> workers;
  const auto assign = [&](Worker& w) {
    if (pending.empty() || interrupt.requested()) {
      w.running = -1;
      if (w.to_worker >= 0) ::close(w.to_worker);
      w.to_worker = -1;
      return;
    }
    w.running = pending.front();
    pending.pop_front();
    writeAll(w.to_worker, std::to_string(w.running) + "\n");
  };
  // The status column follows run, point, repetition, seed and the parameters.
  const std::size_t status_column = 4 + studyParameterColumns(study).size();
  const auto record = [&](const std::string& row) {
    file << row << "\n" << std::flush;
    ++finished;
    std::size_t status_at = 0;
    for (std::size_t k = 0; k < status_column; ++k) status_at = row.find(',', status_at) + 1;
    if (row.compare(status_at, 8, "diverged") == 0) ++diverged;
    if (row.compare(status_at, 5, "error") == 0) ++failed;
    if (show) {
      const double elapsed = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
      const double eta = elapsed / static_cast<double>(finished) * static_cast<double>(to_do - finished);
      err << "\r" << resumed + finished << "/" << total << " runs  " << diverged << " diverged  " << failed
          << " errors  elapsed " << duration(elapsed) << "  ETA " << duration(eta) << "    " << std::flush;
    }
  };

  try {
    const std::size_t n = std::min<std::size_t>(static_cast<std::size_t>(jobs), pending.size());
    for (std::size_t k = 0; k < n; ++k) {
      workers.push_back(spawn(study, runs, hash, workers));
      assign(workers.back());
    }
    while (std::any_of(workers.begin(), workers.end(), [](const Worker& w) { return w.running >= 0; })) {
      if (interrupt.requested()) break;
      std::vector<pollfd> fds;
      // Idle workers are left out (-1): their pipe's hang-up would wake poll at once, forever.
      for (const Worker& w : workers) fds.push_back({w.running >= 0 ? w.from_worker : -1, POLLIN, 0});
      if (::poll(fds.data(), fds.size(), 200) < 0 && errno != EINTR) throw std::runtime_error(std::strerror(errno));
      for (std::size_t k = 0; k < workers.size(); ++k) {
        Worker& w = workers[k];
        if (w.running < 0 || !(fds[k].revents & (POLLIN | POLLHUP | POLLERR))) continue;
        char chunk[4096];
        const ssize_t got = ::read(w.from_worker, chunk, sizeof chunk);
        if (got > 0) {
          w.buffer.append(chunk, static_cast<std::size_t>(got));
          const std::size_t newline = w.buffer.find('\n');
          if (newline == std::string::npos) continue;
          record(w.buffer.substr(0, newline));
          w.buffer.erase(0, newline + 1);
          assign(w);
          continue;
        }
        // The worker died with a run in hand (a crash): that run is an error; a new worker goes on.
        int status = 0;
        ::waitpid(w.pid, &status, 0);
        w.pid = -1;
        StudyRunResult crash;
        crash.status = RunStatus::Error;
        crash.metrics.assign(study.metrics.size(), std::nan(""));
        crash.message = WIFSIGNALED(status) ? "the worker process died (signal " + std::to_string(WTERMSIG(status)) + ")"
                                            : "the worker process exited during the run";
        record(studyCsvRow(runs[static_cast<std::size_t>(w.running)], crash, hash));
        ::close(w.from_worker);
        if (w.to_worker >= 0) ::close(w.to_worker);
        w.from_worker = w.to_worker = -1;
        std::vector<Worker> others;
        for (const Worker& o : workers)
          if (o.pid != w.pid) others.push_back(o);
        w = spawn(study, runs, hash, others);
        assign(w);
      }
    }
  } catch (const std::exception& e) {
    err << "\nrbsim-cli study: " << e.what() << "\n";
    for (Worker& w : workers)
      if (w.pid > 0) ::kill(w.pid, SIGTERM);
  }
  const bool interrupted = interrupt.requested() && finished < to_do;
  for (Worker& w : workers) {
    if (w.pid <= 0) continue;
    if (interrupted) ::kill(w.pid, SIGTERM);  // runs in progress are dropped; finished ones are kept
    if (w.to_worker >= 0) ::close(w.to_worker);
    if (w.from_worker >= 0) ::close(w.from_worker);
    ::waitpid(w.pid, nullptr, 0);
  }
  if (show) err << "\n";
  file.close();
  if (!file) {
    err << "rbsim-cli study: writing '" << results.string() << "' failed (disk full?)\n";
    return 1;
  }
  const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  if (interrupted) {
    err << "rbsim-cli study: interrupted: " << resumed + finished << " of " << total << " runs are in '"
        << results.string() << "'; run the same command to resume\n";
    return kExitInterrupted;
  }
  if (finished == to_do) sortStudyResults(results);
  if (parsed.has("plot")) {
    if (const std::string e = plotResults(results, parsed.all("plot").back()); !e.empty()) {
      err << "rbsim-cli study: " << e << "\n";
      return 1;
    }
  }
  // what the file holds, whichever run made the rows
  std::map<std::string, long> held = studyStatusCounts(results);
  if (!quiet) {
    err << "rbsim-cli study: " << total << " runs in '" << results.string() << "': " << held["ok"] << " ok, "
        << held["diverged"] << " diverged, " << held["error"] << " errors (" << finished << " made now in "
        << duration(wall) << " with " << jobs << (jobs == 1 ? " worker" : " workers") << ", " << resumed
        << " before";
    if (finished > 0)
      err << "; of those now: " << finished - diverged - failed << " ok, " << diverged << " diverged, " << failed
          << " errors";
    err << ")\n";
    if (held["error"] > 0 && failed == 0)
      err << "rbsim-cli study: the errors are from an earlier run; --retry-errors makes them again\n";
  }
  return held["error"] > 0 ? 1 : 0;
}

}  // namespace rbs::cli
