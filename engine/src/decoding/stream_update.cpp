// The names of an update's gate and of a word's timing (stream_update.h).
#include "earshot/engine/decoding/stream_update.h"

namespace earshot::decoding {

std::string_view to_string(UpdateGate gate) noexcept {
    switch (gate) {
        case UpdateGate::decoded:
            return "decoded";
        case UpdateGate::silence:
            return "silence";
        case UpdateGate::no_speech:
            return "no_speech";
        case UpdateGate::empty:
            return "empty";
        case UpdateGate::cancelled:
            return "cancelled";
    }
    return "?";
}

std::string_view to_string(WordTiming timing) noexcept {
    return timing == WordTiming::aligned ? "aligned" : "estimated";
}

}  // namespace earshot::decoding
