// `earshot devices`: the input devices Earshot can record from, with their index, default rate,
// input channels and host API, the default input marked with `*`.
#include <exception>
#include <iomanip>
#include <ostream>
#include <sstream>

#include "cli/command_registry.h"
#include "earshot/app/commands.h"
#include "earshot/audio/input_device.h"

namespace earshot::app {
namespace {

// General failure: the audio system itself is unusable (kExitBadInput is for a bad request).
constexpr int kExitDeviceFailed = 1;
// The other devices Earshot uses: GPUs, for --backend.
constexpr const char* kGpusHint = "CUDA devices (for --backend cuda): earshot gpus\n";

int run_devices(std::ostream& out, std::ostream& err) {
    std::vector<audio::InputDevice> devices;
    try {
        devices = audio::list_input_devices();
    } catch (const std::exception& e) {
        err << "earshot devices: " << e.what() << "\n";
        return kExitDeviceFailed;
    }
    if (devices.empty()) {
        out << "No input devices.\n" << kGpusHint;
        return kExitOk;
    }
    out << "  index  rate_hz  channels  host_api  name\n";
    for (const audio::InputDevice& device : devices) {
        std::ostringstream line;
        line << (device.is_default ? "* " : "  ") << std::setw(5) << device.index << "  "
             << std::setw(7) << std::fixed << std::setprecision(0) << device.default_sample_rate_hz
             << "  " << std::setw(8) << device.max_input_channels << "  " << std::left
             << std::setw(8) << device.host_api << "  " << device.name << "\n";
        out << line.str();
    }
    out << "* default input; choose one with --device NAME|INDEX\n";
    out << kGpusHint;
    return kExitOk;
}

}  // namespace

ExtraCommand add_devices(CLI::App& root) {
    CLI::App* command = root.add_subcommand(
        "devices", "List the input devices (index, default rate, channels, host API, name)");
    return {command, [](std::ostream& out, std::ostream& err) { return run_devices(out, err); }};
}

}  // namespace earshot::app
