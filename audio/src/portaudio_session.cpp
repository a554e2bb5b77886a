// PortAudioSession: the process-wide reference count, guarded by a mutex (setup paths only).
#include "portaudio_session.h"

#include <portaudio.h>

#include <mutex>
#include <string>

#include "earshot/audio/audio_device_error.h"

namespace earshot::audio {

namespace {

std::mutex& session_mutex() {
    static std::mutex mutex;
    return mutex;
}

int session_count = 0;  // guarded by session_mutex()

}  // namespace

PortAudioSession::PortAudioSession() {
    std::lock_guard lock(session_mutex());
    if (session_count == 0) {
        const PaError status = Pa_Initialize();
        if (status != paNoError) {
            throw AudioDeviceError(std::string("PortAudio initialisation failed: ") +
                                   Pa_GetErrorText(status));
        }
    }
    ++session_count;
}

PortAudioSession::~PortAudioSession() {
    std::lock_guard lock(session_mutex());
    if (--session_count == 0) {
        Pa_Terminate();
    }
}

}  // namespace earshot::audio
