// FFmpeg's log output, silenced: messages at error level or worse are kept (per thread) so that
// an AudioFileError can quote FFmpeg's own explanation; nothing is printed.
#pragma once

#include <string>

namespace earshot::audio::ffmpeg {

// Installs the silent log callback once per process; cheap to call again.
void install_quiet_log();

// Forgets the last kept message of this thread (call before an FFmpeg operation).
void clear_last_message();

// The last error-level message FFmpeg logged on this thread since clear_last_message(), without
// its trailing newline; empty when there was none.
std::string last_message();

// av_strerror's text for an FFmpeg error code, e.g. "Invalid data found when processing input".
std::string error_text(int code);

// "<error_text(code)>", followed by " (<last_message()>)" when FFmpeg logged something that says
// more than the code does.
std::string describe(int code);

}  // namespace earshot::audio::ffmpeg
