// Loading a checkpoint, its tokenizer and the chosen backend's decoder model together.
#include "earshot/core/loaded_model.h"

#include <initializer_list>
#include <string>
#include <system_error>
#include <utility>
#include <vector>

#include "earshot/engine/checkpoint/errors.h"
#include "earshot/engine/runtime/decoder_models.h"

namespace earshot::app {

namespace {

// The model's name in messages (out of memory on CUDA names it): its folder or file name.
std::string model_name(const std::filesystem::path& model_path) {
    const std::filesystem::path normal = model_path.lexically_normal();
    const std::filesystem::path name =
        normal.has_filename() ? normal.filename() : normal.parent_path().filename();
    return name.empty() ? std::string("the model") : name.string();
}

// A Hugging Face folder without weights is refused with everything it lacks at once, the weights
// first (a vocabulary chosen for a folder without weights would not make it load), before any
// file is read. Pickled weights count as present: the checkpoint reader refuses them by name.
void check_hf_folder(const std::filesystem::path& folder, bool vocabulary_given) {
    namespace fs = std::filesystem;
    std::error_code error;
    if (!fs::is_directory(folder, error)) return;
    auto present = [&](std::initializer_list<const char*> names) {
        for (const char* name : names) {
            if (fs::is_regular_file(folder / name, error)) return true;
        }
        return false;
    };
    // With the weights there, a missing vocabulary is the tokenizer's error (the app then offers
    // to choose one).
    if (present({"model.safetensors", "model.safetensors.index.json", "pytorch_model.bin",
                 "pytorch_model.bin.index.json"})) {
        return;
    }
    std::vector<std::string> missing{
        "the weights (model.safetensors or model.safetensors.index.json)"};
    if (!vocabulary_given && !present({"tokenizer.json", "vocab.json"})) {
        missing.emplace_back("the vocabulary (tokenizer.json, or vocab.json and merges.txt)");
    }
    if (!present({"config.json"})) missing.emplace_back("config.json");
    std::string problem = "the folder lacks " + missing.front();
    for (size_t i = 1; i < missing.size(); ++i) {
        problem += (i + 1 == missing.size() ? " and " : ", ") + missing[i];
    }
    throw checkpoint::CheckpointError(folder, problem);
}

}  // namespace

std::unique_ptr<LoadedModel> load_model(const std::filesystem::path& model_path,
                                        const std::filesystem::path& vocab_path,
                                        backend::BackendChoice backend) {
    // The configuration, the tokenizer and the generation settings before the weights: a model
    // without its tokenizer is refused at once, not after reading gigabytes.
    check_hf_folder(model_path, !vocab_path.empty());
    model::WhisperBinding binding =
        model::bind_whisper(checkpoint::read_whisper_config(model_path));
    const int64_t n_vocab = binding.values.dims.at("Vocab");
    tokenizer::Tokenizer tok =
        tokenizer::Tokenizer::load(vocab_path.empty() ? model_path : vocab_path, n_vocab);
    checkpoint::GenerationConfig generation =
        checkpoint::read_generation_config(model_path, n_vocab);
    model::WhisperCheckpoint checkpoint = model::load_whisper_checkpoint(std::move(binding));
    auto loaded = std::unique_ptr<LoadedModel>(
        new LoadedModel{std::move(checkpoint), std::move(tok), nullptr, std::move(generation), {}});
    runtime::ChosenDecoderModel chosen =
        runtime::make_decoder_model(loaded->checkpoint, backend, model_name(model_path));
    loaded->model = std::move(chosen.model);
    // The backend holds the weights now: no mapping of a model file outlives the load.
    loaded->checkpoint.weights.release_files();
    loaded->backend_fallback = std::move(chosen.fallback_reason);
    return loaded;
}

}  // namespace earshot::app
