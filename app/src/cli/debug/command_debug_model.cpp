// `earshot debug encode` and `earshot debug logits`: run the model on a mel spectrogram from a
// NumPy file on the chosen backend, for checking Earshot against other implementations.
#include <exception>
#include <memory>
#include <optional>
#include <ostream>
#include <sstream>
#include <stdexcept>
#include <string>

#include "cli/backend_option.h"
#include "cli/command_registry.h"
#include "cli/debug/npy_file.h"
#include "earshot/app/commands.h"
#include "earshot/engine/backend/cpu_whisper.h"
#include "earshot/engine/backend/cuda_whisper.h"
#include "earshot/engine/model/whisper_checkpoint.h"

namespace earshot::app {
namespace {

using backend::HostTensor;

// mel.npy as [B, Mels, Frames]: a [Mels, Frames] file gets B = 1.
HostTensor read_mel(const std::string& path) {
    NpyArray array = read_npy(path);
    if (array.dtype != NpyDtype::f32) throw NpyError(path + ": the mel must be float32 ('<f4')");
    std::vector<int64_t> shape = array.shape;
    if (shape.size() == 2) shape.insert(shape.begin(), 1);
    if (shape.size() != 3) {
        throw NpyError(path + ": the mel must be [Mels, Frames] or [B, Mels, Frames]");
    }
    return HostTensor::f32(shape, std::move(array.f32));
}

std::vector<int32_t> parse_tokens(const std::string& text) {
    std::vector<int32_t> tokens;
    std::stringstream stream(text);
    std::string item;
    while (std::getline(stream, item, ',')) {
        size_t used = 0;
        const long value = std::stol(item, &used);
        if (used != item.size()) throw std::invalid_argument("not a token id: \"" + item + "\"");
        tokens.push_back(static_cast<int32_t>(value));
    }
    if (tokens.empty()) throw std::invalid_argument("--tokens needs at least one id");
    return tokens;
}

struct Request {
    std::string model;
    std::string mel;
    std::string tokens;
    std::string out;
    std::string backend = "auto";
};

// Prints the one-line reason and returns the exit code for any failure of a debug run.
template <typename Body>
int guarded(const char* command, std::ostream& err, Body body) {
    try {
        return body();
    } catch (const std::exception& e) {
        err << "earshot debug " << command << ": " << e.what() << "\n";
        return kExitBadInput;
    }
}

// Runs `body` with the model of `r` on the backend it chose: a CudaWhisper or a CpuWhisper (same
// entries). `cuda` that cannot run throws "--backend cuda: CUDA is not available (...)"; `auto`
// takes the CPU and, once the run succeeded (a failure stays one line), says why on `err`.
template <typename Body>
int with_whisper(const Request& r, std::ostream& err, Body body) {
    const backend::BackendChoice choice = backend_choice(r.backend);
    auto cuda_failed = [](const backend::CudaError& e) {
        return std::runtime_error("--backend cuda: " + backend::cuda_unavailable_reason(e));
    };
    try {
        require_cuda_if_chosen(choice);  // before the checkpoint is read
    } catch (const backend::CudaError& e) {
        throw cuda_failed(e);
    }
    const model::WhisperCheckpoint checkpoint = model::load_whisper_checkpoint(r.model);
    std::string fallback;
    if (choice != backend::BackendChoice::cpu) {
        std::optional<backend::CudaWhisper> cuda;
        try {
            cuda.emplace(checkpoint);
        } catch (const backend::CudaError& e) {
            if (choice == backend::BackendChoice::cuda) throw cuda_failed(e);
            fallback = backend::cuda_fallback_reason(e);
        }
        if (cuda) return body(*cuda);
    }
    backend::CpuWhisper whisper(checkpoint);
    const int code = body(whisper);
    if (!fallback.empty()) err << "earshot: " << fallback << "\n";
    return code;
}

int run_encode(const Request& r, std::ostream& out, std::ostream& err) {
    return guarded("encode", err, [&] {
        const HostTensor mel = read_mel(r.mel);
        return with_whisper(r, err, [&](auto& whisper) {
            const HostTensor states = whisper.encode(mel);  // [B, A, D]
            write_npy(r.out, states.f32_values(), states.shape());
            out << "Wrote " << r.out << " " << states.shape_str() << "\n";
            return kExitOk;
        });
    });
}

int run_logits(const Request& r, std::ostream& out, std::ostream& err) {
    return guarded("logits", err, [&] {
        const HostTensor mel = read_mel(r.mel);
        if (mel.dim(0) != 1) throw std::invalid_argument("logits takes one mel ([Mels, Frames])");
        const std::vector<int32_t> ids = parse_tokens(r.tokens);
        return with_whisper(r, err, [&](auto& whisper) {
            const HostTensor audio = whisper.encode(mel);
            const auto count = static_cast<int64_t>(ids.size());
            const HostTensor tokens = HostTensor::i32({1, count}, ids);
            const HostTensor logits = whisper.decode(tokens, audio);  // [1, S, Vocab]
            const std::vector<int64_t> shape{count, logits.dim(2)};   // [S, Vocab]
            write_npy(r.out, logits.f32_values(), shape);
            out << "Wrote " << r.out << " [" << count << ", " << logits.dim(2) << "]\n";
            return kExitOk;
        });
    });
}

}  // namespace

ExtraCommand add_debug_encode(CLI::App& root) {
    auto request = std::make_shared<Request>();
    CLI::App* command = debug_group(root).add_subcommand(
        "encode", "Run the encoder on a mel .npy and write the audio states [B, A, D] as .npy");
    command->add_option("--model", request->model, "Checkpoint (HF directory or ggml .bin)")
        ->required();
    command->add_option("--mel", request->mel, "float32 [Mels, Frames] or [B, Mels, Frames]")
        ->required();
    command->add_option("--out", request->out, "Output .npy")->required();
    add_backend_option(*command, request->backend);
    return {command, [request](std::ostream& out, std::ostream& err) {
                return run_encode(*request, out, err);
            }};
}

ExtraCommand add_debug_logits(CLI::App& root) {
    auto request = std::make_shared<Request>();
    CLI::App* command = debug_group(root).add_subcommand(
        "logits", "Logits for every position of a token sequence over a mel, as [S, Vocab] .npy");
    command->add_option("--model", request->model, "Checkpoint (HF directory or ggml .bin)")
        ->required();
    command->add_option("--mel", request->mel, "float32 [Mels, Frames]")->required();
    command->add_option("--tokens", request->tokens, "Comma-separated ids, e.g. 50258,50259")
        ->required();
    command->add_option("--out", request->out, "Output .npy")->required();
    add_backend_option(*command, request->backend);
    return {command, [request](std::ostream& out, std::ostream& err) {
                return run_logits(*request, out, err);
            }};
}

}  // namespace earshot::app
