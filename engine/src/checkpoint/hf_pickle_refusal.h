// Hugging Face folders whose weights are only PyTorch pickles (pytorch_model.bin): found and
// refused with the reason and the way to a safetensors copy. A pickle is never opened.
#pragma once

#include <filesystem>
#include <optional>

namespace earshot::checkpoint {

// pytorch_model.bin or pytorch_model.bin.index.json in `directory`, the first that exists.
std::optional<std::filesystem::path> pickle_weights_in(const std::filesystem::path& directory);

// Throws CheckpointError naming `pickle`: Earshot reads safetensors only, since loading a pickle
// runs code from the file; and how to get model.safetensors (the hub's safetensors files or a
// conversion the user runs with transformers).
[[noreturn]] void refuse_pickle_weights(const std::filesystem::path& pickle);

}  // namespace earshot::checkpoint
