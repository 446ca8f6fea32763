// H.264 video through an ffmpeg child process fed raw RGB frames over a pipe:
//   ffmpeg -f rawvideo -pix_fmt rgb24 -s WxH -r FPS -i - -c:v libx264 -pix_fmt yuv420p FILE
// Every frame written is one frame of the video (no timing of its own: the caller decides what
// time a frame shows, e.g. frame k = simulation time k/fps). No OSG, usable by GUI and CLI.
#pragma once

#include <sys/types.h>

#include <filesystem>
#include <optional>
#include <string>

#include "render/offscreen.h"

namespace rbs::render {

struct VideoOptions {
  std::filesystem::path file;   ///< .mp4 (also .mkv, .mov: the container follows the name)
  int width = 1280;             ///< even (4:2:0 chroma)
  int height = 720;             ///< even
  int fps = 30;                 ///< frames per second of the video
  int crf = 20;                 ///< x264 quality (0 lossless … 51 worst)
  std::string preset = "veryfast";  ///< x264 speed/size trade-off
  std::string ffmpeg = "ffmpeg";    ///< program name or path
};

/// The full path of `program` on $PATH (or `program` itself when it contains a '/' and is
/// executable); nothing when it is not found.
std::optional<std::filesystem::path> findExecutable(const std::string& program);

class VideoEncoder {
 public:
  /// Starts ffmpeg. Throws RenderError when ffmpeg is missing (naming the Debian package), the
  /// size is odd or the process cannot be started.
  explicit VideoEncoder(VideoOptions options);
  /// Closes the pipe and waits for ffmpeg (the video is then finished, whatever was written).
  ~VideoEncoder();
  VideoEncoder(const VideoEncoder&) = delete;
  VideoEncoder& operator=(const VideoEncoder&) = delete;

  /// Sends one frame (its size must be the video's). False when ffmpeg has gone (error() says why).
  bool write(const Image& frame);
  /// Closes the pipe, waits for ffmpeg and checks its exit status. False with error() on failure
  /// (ffmpeg's own message included). Further calls return the same result.
  bool finish();
  const std::string& error() const { return error_; }
  long framesWritten() const { return frames_; }
  /// The command line that was started (for messages and the documentation).
  const std::string& commandLine() const { return command_line_; }

 private:
  VideoOptions options_;
  pid_t pid_ = -1;
  int pipe_fd_ = -1;
  std::filesystem::path log_file_;
  std::string command_line_;
  std::string error_;
  long frames_ = 0;
  bool finished_ = false;
  bool ok_ = true;

  std::string ffmpegMessage() const;
};

}  // namespace rbs::render
