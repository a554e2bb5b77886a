// `earshot bench --model M [--threads N] [--backend auto|cpu|cuda]`: how fast and how large a model
// runs here. It loads the model (no vocabulary needed), then reports the memory loading added to
// this process against the file's size, the encoder's time for one 30 s window, a one-row decoder
// step's time at a few positions, a beam-5 step's time, and the bytes of weights a step reads as
// stored (quantized blocks, f16 or f32) with the rate that makes. Each time is the best of a few
// runs on a random mel and token, after one run that plans the entry.
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iomanip>
#include <memory>
#include <ostream>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "cli/backend_option.h"
#include "cli/command_registry.h"
#include "cli/model_argument.h"
#include "earshot/app/commands.h"
#include "earshot/engine/backend/cpu_whisper.h"
#include "earshot/engine/backend/cuda_driver_probe.h"
#include "earshot/engine/backend/host_tensor.h"
#include "earshot/engine/decoding/decoder_model.h"
#include "earshot/engine/model/whisper_checkpoint.h"
#include "earshot/engine/runtime/decoder_models.h"

namespace earshot::app {
namespace {

namespace fs = std::filesystem;
using backend::HostTensor;

constexpr double kMiB = 1024.0 * 1024.0;
constexpr int32_t kStartOfTranscript = 50258;  // any id inside every Whisper vocabulary
constexpr int64_t kBeamRows = 5;
constexpr int kRuns = 5;  // timed runs per measurement; the best one is reported

struct Request {
    std::string model;
    std::string backend = "auto";
    int threads = 0;  // 0: the CPU backend's default (EARSHOT_CPU_THREADS, else one per core)
};

// The anonymous memory this process holds (RssAnon in /proc/self/status), in bytes; 0 when the
// system does not say.
double anonymous_resident_bytes() {
    std::ifstream status("/proc/self/status");
    for (std::string line; std::getline(status, line);) {
        if (line.starts_with("RssAnon:")) return 1024.0 * std::stod(line.substr(8));  // kB
    }
    return 0.0;
}

double path_bytes(const fs::path& path) {
    std::error_code error;
    if (!fs::is_directory(path, error)) return static_cast<double>(fs::file_size(path));
    double bytes = 0.0;
    for (const auto& entry : fs::directory_iterator(path)) {
        if (entry.is_regular_file() && entry.path().extension() == ".safetensors") {
            bytes += static_cast<double>(entry.file_size());
        }
    }
    return bytes;
}

// Whether a decoder step reads the parameter at `path`: the decoder's layers but for the audio
// caches' key and value projections (prefill runs those once a window), its norm and the token
// embedding (the vocabulary head).
bool read_by_step(const std::string& path) {
    if (path == "token_embedding" || path.starts_with("decoder_norm")) return true;
    return path.starts_with("decoder_layers.") &&
           path.find("encoder_attn.k_proj") == std::string::npos &&
           path.find("encoder_attn.v_proj") == std::string::npos;
}

// The best of kRuns calls of `run`, in milliseconds.
template <typename Run>
double best_ms(const Run& run) {
    double best = 0.0;
    for (int i = 0; i < kRuns; ++i) {
        const auto start = std::chrono::steady_clock::now();
        run();
        const std::chrono::duration<double, std::milli> took =
            std::chrono::steady_clock::now() - start;
        if (i == 0 || took.count() < best) best = took.count();
    }
    return best;
}

std::string fixed(double value, int digits) {
    std::ostringstream text;
    text << std::fixed << std::setprecision(digits) << value;
    return text.str();
}

int run_bench(const Request& r, std::ostream& out, std::ostream& err) {
    auto fail = [&](const std::string& message) {
        err << "earshot bench: " << message << "\n";
        return kExitBadInput;
    };
    if (r.threads < 0) return fail("--threads must be at least 1");
    // Before the first kernel: the CPU backend's pool reads it once.
    if (r.threads > 0) setenv("EARSHOT_CPU_THREADS", std::to_string(r.threads).c_str(), 1);
    const backend::BackendChoice choice = backend_choice(r.backend);
    try {
        require_cuda_if_chosen(choice);
    } catch (const backend::CudaError& e) {
        return fail("--backend cuda: " + backend::cuda_unavailable_reason(e));
    }
    fs::path path;
    model::WhisperCheckpoint checkpoint;
    runtime::ChosenDecoderModel chosen;
    double resident = 0.0;
    double load_ms = 0.0;  // the checkpoint read and checked, the backend's weights in place
    try {
        const ModelArgument argument = resolve_model_argument(r.model, "");
        if (!argument.note.empty()) err << "earshot bench: " << argument.note << "\n";
        path = argument.model;
        // Loading the CUDA module to look for a device (what auto does first) holds memory of its
        // own, device or not: it is loaded before the model's memory is measured.
        if (choice == backend::BackendChoice::automatic && !backend::missing_cuda_driver()) {
            try {
                (void)backend::cuda_devices();
            } catch (const backend::CudaError&) {
                // No device: make_decoder_model says why it runs on the CPU.
            }
        }
        const double before = anonymous_resident_bytes();
        const auto load_start = std::chrono::steady_clock::now();
        checkpoint = model::load_whisper_checkpoint(path);
        chosen = runtime::make_decoder_model(checkpoint, choice, path.filename().string());
        checkpoint.weights.release_files();  // as a loaded model does
        load_ms =
            std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - load_start)
                .count();
        resident = anonymous_resident_bytes() - before;
    } catch (const backend::CudaError& e) {
        return fail("--backend cuda: " + backend::cuda_unavailable_reason(e));
    } catch (const std::exception& e) {
        return fail(e.what());
    }
    if (!chosen.fallback_reason.empty()) err << "earshot bench: " << chosen.fallback_reason << "\n";
    decoding::DecoderModel& whisper = *chosen.model;

    double step_bytes = 0.0;
    for (const auto& weight : checkpoint.weights.weights()) {
        if (read_by_step(weight.path)) step_bytes += static_cast<double>(weight.stored_bytes());
    }
    const double file_bytes = path_bytes(path);
    const std::string threads = r.threads > 0
                                    ? std::to_string(r.threads)
                                    : (std::getenv("EARSHOT_CPU_THREADS") != nullptr
                                           ? std::string(std::getenv("EARSHOT_CPU_THREADS"))
                                           : "one per hardware thread");
    out << "model: " << path.string() << " (" << checkpoint.binding.config.dtype_source << ")\n";
    out << "backend: " << whisper.backend_name() << ", threads: " << threads;
    // Which kernels compute on a quantized file's blocks, so two machines' figures compare.
    if (whisper.backend_name() == "CPU") out << ", block kernels: " << backend::cpu_block_kernels();
    out << "\n" << std::flush;
    out << "memory: file " << fixed(file_bytes / kMiB, 1) << " MiB, resident after loading "
        << fixed(resident / kMiB, 1) << " MiB (" << fixed(resident / file_bytes, 2)
        << " x the file)\n"
        << "load: " << fixed(load_ms, 0)
        << " ms (the file read and checked, the weights in place)\n"
        << std::flush;

    std::mt19937 random(7);
    std::normal_distribution<float> normal(0.0F, 0.5F);
    HostTensor mel = HostTensor::f32({1, whisper.mels(), whisper.frames()});
    for (float& value : mel.f32_values()) value = normal(random);
    // Two windows a value apart, heard in turn: a decoder model keeps the audio of the window it
    // heard last and would not run the encoder for it again.
    HostTensor other = mel;
    other.f32_values()[0] += 1.0F;
    whisper.listen(other);  // plans the entry
    bool first = true;
    const double encoder_ms = best_ms([&] {
        whisper.listen(first ? mel : other);
        first = !first;
    });
    out << "encoder: " << fixed(encoder_ms, 1) << " ms per window (best of " << kRuns << ")\n"
        << std::flush;

    const HostTensor token = HostTensor::i32({1, 1}, kStartOfTranscript);
    for (const int32_t pos : {8, 64, 200}) {
        if (pos >= whisper.max_tokens()) break;
        whisper.step(token, pos);
        const double ms = best_ms([&] { whisper.step(token, pos); });
        out << "step at position " << pos << ": " << fixed(ms, 2) << " ms, reads "
            << fixed(step_bytes / kMiB, 1) << " MiB of weights ("
            << fixed(step_bytes / (ms * 1e-3) / 1e9, 1) << " GB/s)\n"
            << std::flush;
    }
    const int32_t beam_pos = static_cast<int32_t>(std::min<int64_t>(64, whisper.max_tokens() - 1));
    whisper.expand(kBeamRows);
    const HostTensor tokens =
        HostTensor::i32({kBeamRows, 1}, std::vector<int32_t>(kBeamRows, kStartOfTranscript));
    whisper.step(tokens, beam_pos);
    const double beam_ms = best_ms([&] { whisper.step(tokens, beam_pos); });
    out << "beam-5 step at position " << beam_pos << ": " << fixed(beam_ms, 2) << " ms ("
        << fixed(beam_ms / kBeamRows, 2) << " ms per row)\n"
        << std::flush;
    return kExitOk;
}

}  // namespace

ExtraCommand add_bench(CLI::App& root) {
    auto request = std::make_shared<Request>();
    CLI::App* command = root.add_subcommand(
        "bench",
        "Time a model here: memory after loading against the file, the encoder per 30 s window, "
        "a decoder step at positions 8, 64 and 200 with the bytes it reads, and a beam-5 step");
    command->add_option("--model", request->model,
                        "HF model directory, model.safetensors, whisper.cpp ggml .bin (quantized "
                        "or not) or a name from `earshot models list`; default: the model chosen "
                        "in the app, else the micro demo model");
    command->add_option("--threads", request->threads,
                        "Threads of the CPU backend (default: EARSHOT_CPU_THREADS, else one per "
                        "hardware thread)");
    add_backend_option(*command, request->backend);
    return {command, [request](std::ostream& out, std::ostream& err) {
                return run_bench(*request, out, err);
            }};
}

}  // namespace earshot::app
