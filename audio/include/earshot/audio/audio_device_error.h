// AudioDeviceError: the typed error of the audio device setup paths (PortAudio initialisation,
// device enumeration), naming what failed.
#pragma once

#include <stdexcept>
#include <string>

namespace earshot::audio {

class AudioDeviceError : public std::runtime_error {
public:
    explicit AudioDeviceError(const std::string& message) : std::runtime_error(message) {}
};

}  // namespace earshot::audio
