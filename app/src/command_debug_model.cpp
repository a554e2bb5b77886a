// `earshot debug encode` and `earshot debug logits`: run the model on a mel spectrogram from a
// NumPy file, for checking Earshot against other implementations.
#include <exception>
#include <memory>
#include <ostream>
#include <sstream>
#include <string>

#include "command_registry.h"
#include "earshot/app/commands.h"
#include "earshot/engine/backend/cpu_whisper.h"
#include "earshot/engine/model/whisper_checkpoint.h"
#include "npy_file.h"

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

int run_encode(const Request& r, std::ostream& out, std::ostream& err) {
    return guarded("encode", err, [&] {
        const HostTensor mel = read_mel(r.mel);
        backend::CpuWhisper whisper(model::load_whisper_checkpoint(r.model));
        const HostTensor states = whisper.encode(mel);  // [B, A, D]
        write_npy(r.out, states.f32_values(), states.shape());
        out << "Wrote " << r.out << " " << states.shape_str() << "\n";
        return kExitOk;
    });
}

int run_logits(const Request& r, std::ostream& out, std::ostream& err) {
    return guarded("logits", err, [&] {
        const HostTensor mel = read_mel(r.mel);
        if (mel.dim(0) != 1) throw std::invalid_argument("logits takes one mel ([Mels, Frames])");
        const std::vector<int32_t> ids = parse_tokens(r.tokens);
        backend::CpuWhisper whisper(model::load_whisper_checkpoint(r.model));
        const HostTensor audio = whisper.encode(mel);
        const auto count = static_cast<int64_t>(ids.size());
        const HostTensor tokens = HostTensor::i32({1, count}, ids);
        const HostTensor logits = whisper.decode(tokens, audio);  // [1, S, Vocab]
        const std::vector<int64_t> shape{count, logits.dim(2)};   // [S, Vocab]
        write_npy(r.out, logits.f32_values(), shape);
        out << "Wrote " << r.out << " [" << count << ", " << logits.dim(2) << "]\n";
        return kExitOk;
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
    return {command, [request](std::ostream& out, std::ostream& err) {
                return run_logits(*request, out, err);
            }};
}

}  // namespace earshot::app
