// PortAudioSession: the process-wide reference count, guarded by a mutex (setup paths only).
#include "portaudio_session.h"

#include <alsa/asoundlib.h>
#include <jack/jack.h>
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

// PortAudio probes every ALSA card and the JACK server while it enumerates devices; both libraries
// print each failed probe to stderr (dozens of lines on a machine without a sound card or JACK).
// Failures that matter reach us through PortAudio's own error codes, so the chatter is dropped.
void quiet_alsa(const char* /*file*/, int /*line*/, const char* /*function*/, int /*err*/,
                const char* /*fmt*/, ...) {}
void quiet_jack(const char* /*message*/) {}

void silence_backend_logs() {
    snd_lib_error_set_handler(quiet_alsa);
    jack_set_error_function(quiet_jack);
    jack_set_info_function(quiet_jack);
}

}  // namespace

PortAudioSession::PortAudioSession() {
    std::lock_guard lock(session_mutex());
    if (session_count == 0) {
        silence_backend_logs();
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
