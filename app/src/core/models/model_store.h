// The models folder: where downloaded checkpoints live (one folder per model under
// $XDG_DATA_HOME/earshot/models), what is installed there, and removing a model.
#pragma once

#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

#include "core/models/model_catalog.h"

namespace earshot::app {

// <data_root()>/models: $XDG_DATA_HOME/earshot/models, else ~/.local/share/earshot/models.
std::filesystem::path models_dir();

// The model's folder in `models`: <models>/<name>.
std::filesystem::path model_folder(const std::filesystem::path& models, const CatalogEntry& entry);
// What `--model` is given for it: the folder of a Hugging Face model, the .bin of a ggml one.
std::filesystem::path model_location(const std::filesystem::path& models,
                                     const CatalogEntry& entry);

enum class InstallState {
    absent,     // no folder, or nothing in it
    partial,    // some files, or a .part left by an interrupted download
    installed,  // every file of the entry, with its size where the catalog knows it
};

InstallState install_state(const std::filesystem::path& models, const CatalogEntry& entry);

// Bytes under `path` (a file, or a folder's files recursively); 0 when it does not exist.
int64_t bytes_on_disk(const std::filesystem::path& path);

// Every folder in `models`, by name, sorted; catalog entries and folders put there by hand alike.
std::vector<std::string> model_folders(const std::filesystem::path& models);

// Removes the model's folder; false when there was none.
bool remove_model(const std::filesystem::path& models, const std::string& name);

// "12.3 MB", "1.5 GB": bytes for people, in powers of 1000.
std::string format_bytes(int64_t bytes);

}  // namespace earshot::app
