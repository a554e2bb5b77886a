// CaptureEvent: what a Capture reports to its owner (started, stopped, device errors), as plain
// values the owner polls from any thread.
#pragma once

#include <string>
#include <string_view>

namespace earshot::audio {

enum class CaptureEventKind {
    started,           // the stream runs; message names the device and its rate
    stopped,           // stop() finished; message gives the samples captured and the overruns
    device_not_found,  // start(): no device matches the request; message names it
    open_failed,       // start(): the device exists but could not be opened or started
    stream_error,      // the running stream reported an error (PortAudio or resampling)
    device_lost,       // the stream ended or went silent without stop(): unplugged, server gone
    input_overflow,    // the device dropped input before our callback ran (driver overflow)
};

struct CaptureEvent {
    CaptureEventKind kind = CaptureEventKind::started;
    std::string message;

    // True for the kinds after which no more audio arrives until the next start().
    bool is_error() const noexcept {
        return kind == CaptureEventKind::device_not_found ||
               kind == CaptureEventKind::open_failed || kind == CaptureEventKind::stream_error ||
               kind == CaptureEventKind::device_lost;
    }
};

// "started", "device_not_found", ...
std::string_view to_string(CaptureEventKind kind) noexcept;

}  // namespace earshot::audio
