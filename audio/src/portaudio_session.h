// PortAudioSession: a reference-counted guard that keeps PortAudio initialised while any holder
// lives (Pa_Initialize on the first, Pa_Terminate after the last).
#pragma once

namespace earshot::audio {

class PortAudioSession {
public:
    // Throws AudioDeviceError with PortAudio's message when initialisation fails.
    PortAudioSession();
    ~PortAudioSession();
    PortAudioSession(const PortAudioSession&) = delete;
    PortAudioSession& operator=(const PortAudioSession&) = delete;
};

}  // namespace earshot::audio
