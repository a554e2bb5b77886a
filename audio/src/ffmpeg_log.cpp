// The silent FFmpeg log callback and the per-thread last error message it keeps.
#include "ffmpeg_log.h"

extern "C" {
#include <libavutil/error.h>
#include <libavutil/log.h>
}

#include <array>
#include <cstdarg>
#include <cstdio>
#include <mutex>

namespace earshot::audio::ffmpeg {
namespace {

thread_local std::string last_error_message;

// Keeps error-level (and worse) messages, drops the rest, prints nothing. Messages arrive in
// pieces; a piece that does not end a line is appended to the one before it.
void quiet_log_callback(void* /*context*/, int level, const char* format, std::va_list args) {
    if (level > AV_LOG_ERROR) {
        return;
    }
    std::array<char, 512> text{};
    std::vsnprintf(text.data(), text.size(), format, args);
    std::string piece(text.data());
    if (!last_error_message.empty() && last_error_message.back() != '\n') {
        last_error_message += piece;
    } else {
        last_error_message = std::move(piece);
    }
}

}  // namespace

void install_quiet_log() {
    static std::once_flag once;
    std::call_once(once, [] {
        av_log_set_level(AV_LOG_ERROR);
        av_log_set_callback(quiet_log_callback);
    });
}

void clear_last_message() { last_error_message.clear(); }

std::string last_message() {
    std::string message = last_error_message;
    while (!message.empty() && (message.back() == '\n' || message.back() == ' ')) {
        message.pop_back();
    }
    return message;
}

std::string error_text(int code) {
    std::array<char, AV_ERROR_MAX_STRING_SIZE> text{};
    if (av_strerror(code, text.data(), text.size()) < 0) {
        return "FFmpeg error " + std::to_string(code);
    }
    return std::string(text.data());
}

std::string describe(int code) {
    std::string text = error_text(code);
    const std::string logged = last_message();
    if (!logged.empty() && logged != text) {
        text += " (" + logged + ")";
    }
    return text;
}

}  // namespace earshot::audio::ffmpeg
