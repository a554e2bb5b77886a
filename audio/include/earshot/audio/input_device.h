// Input devices: what PortAudio offers for recording, and choosing one by name or index.
#pragma once

#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace earshot::audio {

struct InputDevice {
    int index = -1;              // PortAudio's device index, valid until re-enumeration
    std::string name;            // e.g. "pulse", "default", "HDA Intel PCH: ALC892 (hw:0,0)"
    std::string host_api;        // e.g. "ALSA", "JACK Audio Connection Kit"
    int max_input_channels = 0;  // at least 1 for every listed device
    double default_sample_rate_hz = 0;
    bool is_default = false;  // the default input device of the default host API
};

// Every device with at least one input channel, in PortAudio's index order. Throws
// AudioDeviceError when PortAudio cannot be initialised.
std::vector<InputDevice> list_input_devices();

// The outcome of choosing a device: the device, or a message saying why none was chosen.
struct DeviceChoice {
    std::optional<InputDevice> device;
    std::string error;  // empty when `device` is set
};

// Chooses from `devices`: an empty `spec` picks the default input; all digits pick the device
// with that index; otherwise the device whose name equals `spec`, or else the only one whose name
// contains it (case-sensitive). Unknown, ambiguous or non-input choices give an error naming
// `spec` (and the candidates when ambiguous).
DeviceChoice choose_input_device(std::span<const InputDevice> devices, std::string_view spec);

}  // namespace earshot::audio
