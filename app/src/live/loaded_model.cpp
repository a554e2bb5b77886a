// Loading a checkpoint, its tokenizer and the CPU decoder model together.
#include "earshot/app/loaded_model.h"

namespace earshot::app {

std::unique_ptr<LoadedModel> load_model(const std::filesystem::path& model_path,
                                        const std::filesystem::path& vocab_path) {
    model::WhisperCheckpoint checkpoint = model::load_whisper_checkpoint(model_path);
    const int64_t n_vocab = checkpoint.binding.values.dims.at("Vocab");
    tokenizer::Tokenizer tok =
        tokenizer::Tokenizer::load(vocab_path.empty() ? model_path : vocab_path, n_vocab);
    checkpoint::GenerationConfig generation =
        checkpoint::read_generation_config(model_path, n_vocab);
    auto loaded = std::unique_ptr<LoadedModel>(
        new LoadedModel{std::move(checkpoint), std::move(tok), nullptr, std::move(generation)});
    loaded->model = decoding::make_cpu_decoder_model(loaded->checkpoint);
    return loaded;
}

void apply_model_defaults(const LoadedModel& loaded, decoding::DecodingOptions& decoding) {
    if (loaded.generation.suppress_tokens)
        decoding.suppress_tokens = *loaded.generation.suppress_tokens;
}

}  // namespace earshot::app
