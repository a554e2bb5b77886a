// Input devices: enumeration through PortAudio and the choice by name, substring or index.
#include "earshot/audio/input_device.h"

#include <portaudio.h>

#include <algorithm>
#include <charconv>

#include "earshot/audio/audio_device_error.h"
#include "portaudio_session.h"

namespace earshot::audio {

std::vector<InputDevice> list_input_devices() {
    PortAudioSession session;
    const PaDeviceIndex count = Pa_GetDeviceCount();
    if (count < 0) {
        throw AudioDeviceError(std::string("PortAudio could not list devices: ") +
                               Pa_GetErrorText(count));
    }
    const PaDeviceIndex default_index = Pa_GetDefaultInputDevice();
    std::vector<InputDevice> devices;
    for (PaDeviceIndex index = 0; index < count; ++index) {
        const PaDeviceInfo* info = Pa_GetDeviceInfo(index);
        if (info == nullptr || info->maxInputChannels < 1) continue;
        const PaHostApiInfo* api = Pa_GetHostApiInfo(info->hostApi);
        InputDevice device;
        device.index = index;
        device.name = info->name != nullptr ? info->name : "";
        device.host_api = api != nullptr && api->name != nullptr ? api->name : "";
        device.max_input_channels = info->maxInputChannels;
        device.default_sample_rate_hz = info->defaultSampleRate;
        device.is_default = index == default_index;
        devices.push_back(std::move(device));
    }
    return devices;
}

DeviceChoice choose_input_device(std::span<const InputDevice> devices, std::string_view spec) {
    DeviceChoice choice;
    if (spec.empty()) {
        const auto it = std::find_if(devices.begin(), devices.end(),
                                     [](const InputDevice& d) { return d.is_default; });
        if (it == devices.end()) {
            choice.error = "no default input device";
        } else {
            choice.device = *it;
        }
        return choice;
    }

    const bool all_digits =
        std::all_of(spec.begin(), spec.end(), [](char c) { return c >= '0' && c <= '9'; });
    if (all_digits) {
        int index = -1;
        const auto [end, status] = std::from_chars(spec.data(), spec.data() + spec.size(), index);
        const auto it = std::find_if(devices.begin(), devices.end(), [&](const InputDevice& d) {
            return status == std::errc() && d.index == index;
        });
        if (it == devices.end()) {
            choice.error = "no input device with index " + std::string(spec);
        } else {
            choice.device = *it;
        }
        return choice;
    }

    const auto exact = std::find_if(devices.begin(), devices.end(),
                                    [&](const InputDevice& d) { return d.name == spec; });
    if (exact != devices.end()) {
        choice.device = *exact;
        return choice;
    }
    std::vector<const InputDevice*> matches;
    for (const InputDevice& d : devices) {
        if (d.name.find(spec) != std::string::npos) matches.push_back(&d);
    }
    if (matches.size() == 1) {
        choice.device = *matches.front();
    } else if (matches.empty()) {
        choice.error = "no input device named \"" + std::string(spec) + "\"";
    } else {
        choice.error = "input device \"" + std::string(spec) + "\" is ambiguous: it matches";
        for (std::size_t i = 0; i < matches.size(); ++i) {
            choice.error += (i == 0 ? " \"" : ", \"") + matches[i]->name + "\"";
        }
    }
    return choice;
}

}  // namespace earshot::audio
