#include "render/video_encoder.h"

#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>
#include <vector>

extern char** environ;

namespace rbs::render {

std::optional<std::filesystem::path> findExecutable(const std::string& program) {
  auto executable = [](const std::filesystem::path& p) {
    struct stat st {};
    return ::stat(p.c_str(), &st) == 0 && S_ISREG(st.st_mode) && ::access(p.c_str(), X_OK) == 0;
  };
  if (program.find('/') != std::string::npos)
    return executable(program) ? std::optional<std::filesystem::path>(program) : std::nullopt;
  const char* path = std::getenv("PATH");
  std::istringstream dirs(path ? path : "/usr/local/bin:/usr/bin:/bin");
  std::string dir;
  while (std::getline(dirs, dir, ':')) {
    const std::filesystem::path candidate = std::filesystem::path(dir.empty() ? "." : dir) / program;
    if (executable(candidate)) return candidate;
  }
  return std::nullopt;
}

VideoEncoder::VideoEncoder(VideoOptions options) : options_(std::move(options)) {
  if (options_.width % 2 != 0 || options_.height % 2 != 0)
    throw RenderError("video size " + std::to_string(options_.width) + "x" +
                      std::to_string(options_.height) +
                      " must have an even width and height (H.264 with 4:2:0 chroma)");
  const std::optional<std::filesystem::path> ffmpeg = findExecutable(options_.ffmpeg);
  if (!ffmpeg)
    throw RenderError("'" + options_.ffmpeg +
                      "' not found on PATH: video export needs ffmpeg (Debian package 'ffmpeg': "
                      "apt-get install ffmpeg)");

  const std::vector<std::string> args = {
      ffmpeg->string(), "-hide_banner", "-loglevel", "error", "-y",
      "-f", "rawvideo", "-pix_fmt", "rgb24",
      "-s", std::to_string(options_.width) + "x" + std::to_string(options_.height),
      "-r", std::to_string(options_.fps), "-i", "-",
      "-an", "-c:v", "libx264", "-preset", options_.preset, "-crf", std::to_string(options_.crf),
      "-pix_fmt", "yuv420p", "-movflags", "+faststart", options_.file.string()};
  for (const std::string& a : args) command_line_ += (command_line_.empty() ? "" : " ") + a;

  // ffmpeg's messages go to a log file that is shown when it fails
  char log_template[] = "/tmp/rbsim-ffmpeg-XXXXXX";
  const int log_fd = ::mkstemp(log_template);
  if (log_fd < 0) throw RenderError(std::string("cannot create a log file: ") + std::strerror(errno));
  log_file_ = log_template;

  int fds[2];
  if (::pipe2(fds, O_CLOEXEC) != 0) {
    ::close(log_fd);
    throw RenderError(std::string("cannot create a pipe: ") + std::strerror(errno));
  }
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_adddup2(&actions, fds[0], STDIN_FILENO);
  posix_spawn_file_actions_adddup2(&actions, log_fd, STDOUT_FILENO);
  posix_spawn_file_actions_adddup2(&actions, log_fd, STDERR_FILENO);
  // its own process group: Ctrl-C in the terminal reaches only us, and we finish the video
  posix_spawnattr_t attr;
  posix_spawnattr_init(&attr);
  posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETPGROUP);
  posix_spawnattr_setpgroup(&attr, 0);
  std::vector<char*> argv;
  for (const std::string& a : args) argv.push_back(const_cast<char*>(a.c_str()));
  argv.push_back(nullptr);
  const int rc = ::posix_spawn(&pid_, argv[0], &actions, &attr, argv.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  posix_spawnattr_destroy(&attr);
  ::close(fds[0]);
  ::close(log_fd);
  if (rc != 0) {
    ::close(fds[1]);
    pid_ = -1;
    throw RenderError("cannot start '" + ffmpeg->string() + "': " + std::strerror(rc));
  }
  pipe_fd_ = fds[1];
  // a vanished ffmpeg shows up as EPIPE from write(), not as a signal that kills us
  ::signal(SIGPIPE, SIG_IGN);
}

VideoEncoder::~VideoEncoder() {
  finish();
  std::error_code ec;
  if (!log_file_.empty()) std::filesystem::remove(log_file_, ec);
}

bool VideoEncoder::write(const Image& frame) {
  if (finished_ || !ok_) return false;
  if (frame.width != options_.width || frame.height != options_.height) {
    ok_ = false;
    error_ = "frame of " + std::to_string(frame.width) + "x" + std::to_string(frame.height) +
             " for a video of " + std::to_string(options_.width) + "x" +
             std::to_string(options_.height);
    return false;
  }
  const std::uint8_t* p = frame.rgb.data();
  std::size_t left = frame.rgb.size();
  while (left > 0) {
    const ssize_t n = ::write(pipe_fd_, p, left);
    if (n < 0) {
      if (errno == EINTR) continue;
      ok_ = false;
      error_ = std::string("ffmpeg stopped reading frames (") + std::strerror(errno) + ")";
      finish();
      return false;
    }
    p += n;
    left -= static_cast<std::size_t>(n);
  }
  ++frames_;
  return true;
}

std::string VideoEncoder::ffmpegMessage() const {
  std::ifstream in(log_file_);
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  while (!text.empty() && (text.back() == '\n' || text.back() == '\r')) text.pop_back();
  constexpr std::size_t kMaxMessage = 2000;
  if (text.size() > kMaxMessage) text = "…" + text.substr(text.size() - kMaxMessage);
  return text;
}

bool VideoEncoder::finish() {
  if (finished_) return ok_;
  finished_ = true;
  if (pipe_fd_ >= 0) ::close(pipe_fd_);  // end of input: ffmpeg writes the file's index and exits
  pipe_fd_ = -1;
  if (pid_ > 0) {
    int status = 0;
    pid_t r;
    do r = ::waitpid(pid_, &status, 0);
    while (r < 0 && errno == EINTR);
    pid_ = -1;
    const bool exited_ok = r > 0 && WIFEXITED(status) && WEXITSTATUS(status) == 0;
    if (!exited_ok) {
      std::string how = r <= 0                ? "could not be waited for"
                        : WIFEXITED(status)   ? "exited with status " + std::to_string(WEXITSTATUS(status))
                        : WIFSIGNALED(status) ? "was killed by signal " + std::to_string(WTERMSIG(status))
                                              : "failed";
      const std::string message = ffmpegMessage();
      const std::string cause = "ffmpeg " + how + (message.empty() ? "" : ": " + message);
      error_ = error_.empty() ? cause : error_ + "; " + cause;
      ok_ = false;
    }
  }
  return ok_;
}

}  // namespace rbs::render
