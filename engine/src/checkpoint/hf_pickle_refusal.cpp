// The refusal of pickle-only Hugging Face folders: what is wrong and how to get safetensors.
#include "hf_pickle_refusal.h"

#include <system_error>

#include "earshot/engine/checkpoint/errors.h"

namespace earshot::checkpoint {

std::optional<std::filesystem::path> pickle_weights_in(const std::filesystem::path& directory) {
    for (const char* name : {"pytorch_model.bin", "pytorch_model.bin.index.json"}) {
        const std::filesystem::path candidate = directory / name;
        std::error_code error;
        if (std::filesystem::is_regular_file(candidate, error)) return candidate;
    }
    return std::nullopt;
}

void refuse_pickle_weights(const std::filesystem::path& pickle) {
    throw CheckpointError(
        pickle,
        "the folder's weights are a PyTorch pickle, which Earshot does not read: loading a pickle "
        "can run code stored in the file, and Earshot never runs code from a model file. Use a "
        "safetensors copy: download model.safetensors from the model's Hugging Face page (many "
        "repositories have one, some only on a pull-request or \"safetensors\" revision), or "
        "convert the folder yourself with the transformers library (Python: "
        "WhisperForConditionalGeneration.from_pretrained(folder).save_pretrained(new_folder, "
        "safe_serialization=True)), then open the new folder");
}

}  // namespace earshot::checkpoint
