// CaptureEvent: kind names for messages and logs.
#include "earshot/audio/capture_event.h"

namespace earshot::audio {

std::string_view to_string(CaptureEventKind kind) noexcept {
    switch (kind) {
        case CaptureEventKind::started:
            return "started";
        case CaptureEventKind::stopped:
            return "stopped";
        case CaptureEventKind::device_not_found:
            return "device_not_found";
        case CaptureEventKind::open_failed:
            return "open_failed";
        case CaptureEventKind::stream_error:
            return "stream_error";
        case CaptureEventKind::device_lost:
            return "device_lost";
        case CaptureEventKind::input_overflow:
            return "input_overflow";
    }
    return "unknown";
}

}  // namespace earshot::audio
