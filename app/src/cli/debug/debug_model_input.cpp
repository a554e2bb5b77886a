// Mel, tokens and backend for the debug commands that run a model on one window.
#include "cli/debug/debug_model_input.h"

#include <sstream>
#include <stdexcept>

#include "cli/debug/npy_file.h"
#include "earshot/audio/file_decoder.h"
#include "earshot/audio/log_mel.h"
#include "earshot/engine/model/whisper_checkpoint.h"
#include "earshot/engine/program/types.h"
#include "earshot/engine/tokenizer/special_tokens.h"

namespace earshot::app {

backend::HostTensor model_mel(const model::WhisperCheckpoint& checkpoint,
                              const std::string& audio_path, const std::string& mel_path) {
    const auto& dims = checkpoint.binding.values.dims;
    const int64_t mels = dims.at("Mels");
    const int64_t frames = dims.at("Frames");
    if (!audio_path.empty()) {
        const std::vector<float> samples = audio::decode_file(audio_path).samples;
        audio::LogMel mel = audio::log_mel_window(samples, static_cast<int>(mels), frames);
        return backend::HostTensor::f32({1, mels, frames}, std::move(mel.values));
    }
    NpyArray array = read_npy(mel_path);
    if (array.dtype != NpyDtype::f32) {
        throw std::invalid_argument(mel_path + ": the mel must be float32 ('<f4')");
    }
    std::vector<int64_t> shape = array.shape;
    if (shape.size() == 3 && shape[0] == 1) shape.erase(shape.begin());
    const std::vector<int64_t> want = {mels, frames};
    if (shape != want) {
        throw std::invalid_argument(mel_path + ": the mel is " + program::shape_str(array.shape) +
                                    ", the model takes " + program::shape_str(want) + " (or [1, " +
                                    std::to_string(mels) + ", " + std::to_string(frames) + "])");
    }
    return backend::HostTensor::f32({1, mels, frames}, std::move(array.f32));
}

std::vector<int32_t> model_tokens(const std::string& text, int64_t vocab) {
    std::vector<int32_t> tokens;
    if (text.empty()) {
        try {
            const tokenizer::SpecialTokens specials = tokenizer::special_tokens(vocab);
            if (vocab < tokenizer::kMultilingualVocab) return {specials.sot, specials.notimestamps};
            return {specials.sot, specials.first_language, specials.transcribe,
                    specials.notimestamps};
        } catch (const std::exception&) {
            return {0};  // a vocabulary without Whisper's special tokens
        }
    }
    std::stringstream stream(text);
    std::string item;
    while (std::getline(stream, item, ',')) {
        size_t used = 0;
        long value = -1;
        try {
            value = std::stol(item, &used);
        } catch (const std::exception&) {
            used = 0;
        }
        if (item.empty() || used != item.size()) {
            throw std::invalid_argument("--tokens: not a token id: '" + item + "'");
        }
        if (value < 0 || value >= vocab) {
            throw std::invalid_argument("--tokens: " + item + " is outside the vocabulary (0 .. " +
                                        std::to_string(vocab - 1) + ")");
        }
        tokens.push_back(static_cast<int32_t>(value));
    }
    if (tokens.empty()) throw std::invalid_argument("--tokens needs at least one id");
    return tokens;
}

backend::PlanBackend backend_named(const std::string& name) {
    const auto backend = backend::parse_plan_backend(name);
    if (!backend) throw std::invalid_argument("unknown backend '" + name + "' (cpu or cuda)");
    return *backend;
}

}  // namespace earshot::app
