// choose_input_device: default, index, exact name, unique substring, and the error messages.
#include <gtest/gtest.h>

#include <vector>

#include "earshot/audio/input_device.h"

namespace earshot::audio {
namespace {

std::vector<InputDevice> sample_devices() {
    return {
        {0, "HDA Intel PCH: ALC892 Analog (hw:0,0)", "ALSA", 2, 44100.0, false},
        {3, "pulse", "ALSA", 32, 44100.0, false},
        {4, "default", "ALSA", 32, 48000.0, true},
        {7, "HDA Intel PCH: ALC892 Alt Analog (hw:0,2)", "ALSA", 2, 44100.0, false},
    };
}

TEST(InputDeviceChoice, EmptySpecPicksTheDefault) {
    const auto devices = sample_devices();
    const DeviceChoice choice = choose_input_device(devices, "");
    ASSERT_TRUE(choice.device.has_value()) << choice.error;
    EXPECT_EQ(choice.device->index, 4);
    EXPECT_EQ(choice.device->name, "default");
    EXPECT_TRUE(choice.error.empty());
}

TEST(InputDeviceChoice, NoDefaultIsAnError) {
    auto devices = sample_devices();
    devices[2].is_default = false;
    const DeviceChoice choice = choose_input_device(devices, "");
    EXPECT_FALSE(choice.device.has_value());
    EXPECT_EQ(choice.error, "no default input device");
}

TEST(InputDeviceChoice, DigitsPickByPortAudioIndexNotPosition) {
    const auto devices = sample_devices();
    const DeviceChoice choice = choose_input_device(devices, "3");
    ASSERT_TRUE(choice.device.has_value()) << choice.error;
    EXPECT_EQ(choice.device->name, "pulse");

    const DeviceChoice missing = choose_input_device(devices, "1");
    EXPECT_FALSE(missing.device.has_value());
    EXPECT_EQ(missing.error, "no input device with index 1");
}

TEST(InputDeviceChoice, ExactNameWinsOverSubstrings) {
    auto devices = sample_devices();
    devices.push_back({9, "pulse monitor", "ALSA", 2, 44100.0, false});
    const DeviceChoice choice = choose_input_device(devices, "pulse");
    ASSERT_TRUE(choice.device.has_value()) << choice.error;
    EXPECT_EQ(choice.device->index, 3);
}

TEST(InputDeviceChoice, UniqueSubstringPicksThatDevice) {
    const auto devices = sample_devices();
    const DeviceChoice choice = choose_input_device(devices, "Alt Analog");
    ASSERT_TRUE(choice.device.has_value()) << choice.error;
    EXPECT_EQ(choice.device->index, 7);
}

TEST(InputDeviceChoice, AmbiguousSubstringNamesTheCandidates) {
    const auto devices = sample_devices();
    const DeviceChoice choice = choose_input_device(devices, "ALC892");
    EXPECT_FALSE(choice.device.has_value());
    EXPECT_EQ(choice.error,
              "input device \"ALC892\" is ambiguous: it matches \"HDA Intel PCH: ALC892 Analog "
              "(hw:0,0)\", \"HDA Intel PCH: ALC892 Alt Analog (hw:0,2)\"");
}

TEST(InputDeviceChoice, UnknownNameIsNamedInTheError) {
    const auto devices = sample_devices();
    const DeviceChoice choice = choose_input_device(devices, "USB headset");
    EXPECT_FALSE(choice.device.has_value());
    EXPECT_EQ(choice.error, "no input device named \"USB headset\"");
}

}  // namespace
}  // namespace earshot::audio
