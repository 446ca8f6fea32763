#include "render/virtual_display.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>

#include "render/offscreen.h"
#include "render/video_encoder.h"

namespace rbs::render {

namespace {

/// How long Xvfb may take to report its display number.
constexpr int kStartTimeoutMs = 10000;

}  // namespace

std::unique_ptr<VirtualDisplay> VirtualDisplay::startIfNeeded() {
  if (const char* d = std::getenv("DISPLAY"); d && *d) return nullptr;
  const std::optional<std::filesystem::path> xvfb = findExecutable("Xvfb");
  if (!xvfb)
    throw RenderError("no X display (DISPLAY is not set) and no Xvfb to start one: install the "
                      "Debian package 'xvfb', or run under a display");
  int fds[2];
  if (::pipe(fds) != 0) throw RenderError(std::string("cannot create a pipe: ") + std::strerror(errno));
  const std::string fd_text = std::to_string(fds[1]);
  const std::string program = xvfb->string();
  const pid_t pid = ::fork();
  if (pid < 0) throw RenderError(std::string("cannot start Xvfb: ") + std::strerror(errno));
  if (pid == 0) {
    // child: Xvfb ends with us, even if we crash; its chatter goes nowhere
    ::prctl(PR_SET_PDEATHSIG, SIGTERM);
    ::close(fds[0]);
    const int null_fd = ::open("/dev/null", O_RDWR);
    if (null_fd >= 0) {
      ::dup2(null_fd, STDIN_FILENO);
      ::dup2(null_fd, STDOUT_FILENO);
      ::dup2(null_fd, STDERR_FILENO);
    }
    ::setpgid(0, 0);  // Ctrl-C is for the caller, who stops Xvfb itself
    ::execl(program.c_str(), "Xvfb", "-displayfd", fd_text.c_str(), "-screen", "0", "1280x1024x24",
            "-nolisten", "tcp", "-noreset", static_cast<char*>(nullptr));
    ::_exit(127);
  }
  ::close(fds[1]);
  std::unique_ptr<VirtualDisplay> display(new VirtualDisplay);
  display->pid_ = pid;
  // Xvfb writes "N\n" when it accepts connections
  std::string number;
  pollfd p{fds[0], POLLIN, 0};
  for (;;) {
    const int r = ::poll(&p, 1, kStartTimeoutMs);
    if (r < 0 && errno == EINTR) continue;
    char c = 0;
    if (r <= 0 || ::read(fds[0], &c, 1) != 1) break;
    if (c == '\n') break;
    number += c;
  }
  ::close(fds[0]);
  if (number.empty() || number.find_first_not_of("0123456789") != std::string::npos)
    throw RenderError("Xvfb did not start (no display number within " +
                      std::to_string(kStartTimeoutMs / 1000) + " s)");
  display->name_ = ":" + number;
  ::setenv("DISPLAY", display->name_.c_str(), 1);
  return display;
}

VirtualDisplay::~VirtualDisplay() {
  if (pid_ > 0) {
    ::kill(pid_, SIGTERM);
    int status = 0;
    while (::waitpid(pid_, &status, 0) < 0 && errno == EINTR) {
    }
  }
  if (!name_.empty()) ::unsetenv("DISPLAY");
}

}  // namespace rbs::render
