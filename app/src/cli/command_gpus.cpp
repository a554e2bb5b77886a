// `earshot gpus`: the CUDA devices `--backend cuda` can run on (index, name, total and free memory,
// compute capability) and where the CUDA module was loaded from; when there is none, the precise
// reason and where the module was looked for. "No GPU" is an answer: it exits 0.
#include <iomanip>
#include <ostream>
#include <sstream>
#include <string>
#include <vector>

#include "cli/command_registry.h"
#include "earshot/app/commands.h"
#include "earshot/engine/backend/cuda_devices.h"

namespace earshot::app {
namespace {

constexpr double kBytesPerGib = 1024.0 * 1024.0 * 1024.0;

std::string gib(int64_t bytes) {
    std::ostringstream text;
    text << std::fixed << std::setprecision(1) << static_cast<double>(bytes) / kBytesPerGib;
    return text.str();
}

// Every line of `paths` (cuda_module_location(): one path a line), indented under a heading.
void print_locations(std::ostream& out, const std::string& paths) {
    std::istringstream lines(paths);
    for (std::string line; std::getline(lines, line);) out << "  " << line << "\n";
}

int run_gpus(std::ostream& out) {
    std::vector<backend::CudaDevice> devices;
    try {
        devices = backend::cuda_devices();
    } catch (const backend::CudaError& e) {
        out << "No CUDA device (" << backend::cuda_error_kind_name(e.kind()) << "): " << e.what()
            << "\n";
        if (e.kind() == backend::CudaErrorKind::module_missing) {
            out << "The CUDA module was looked for at (EARSHOT_CUDA_MODULE overrides):\n";
            print_locations(out, backend::cuda_module_location());
        } else if (e.kind() != backend::CudaErrorKind::not_built) {
            out << "CUDA module: " << backend::cuda_module_location() << "\n";
        }
        out << "--backend auto runs on the CPU; --backend cuda stops with this reason.\n";
        return kExitOk;
    }
    out << "  index  total_gib  free_gib  compute  name\n";
    for (const backend::CudaDevice& device : devices) {
        std::ostringstream line;
        line << "  " << std::setw(5) << device.index << "  " << std::setw(9)
             << gib(device.total_memory_bytes) << "  " << std::setw(8)
             << gib(device.free_memory_bytes) << "  " << std::setw(7)
             << (std::to_string(device.compute_major) + "." + std::to_string(device.compute_minor))
             << "  " << device.name << "\n";
        out << line.str();
    }
    out << "CUDA module: " << backend::cuda_module_location() << "\n";
    out << "--backend auto and cuda run on device " << devices.front().index << ".\n";
    return kExitOk;
}

}  // namespace

ExtraCommand add_gpus(CLI::App& root) {
    CLI::App* command = root.add_subcommand(
        "gpus",
        "List the CUDA devices for --backend cuda (index, memory, compute capability, name), or "
        "say why there is none (exit 0 either way)");
    return {command, [](std::ostream& out, std::ostream& /*err*/) { return run_gpus(out); }};
}

}  // namespace earshot::app
