// The models folder under the XDG data directory, and what is installed in it.
#include "core/models/model_store.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <system_error>

#include "core/files/data_root.h"

namespace earshot::app {

namespace fs = std::filesystem;

fs::path models_dir() { return data_root() / "models"; }

fs::path model_folder(const fs::path& models, const CatalogEntry& entry) {
    return models / entry.name;
}

fs::path model_location(const fs::path& models, const CatalogEntry& entry) {
    const std::string file = entry.model_file();
    return file.empty() ? model_folder(models, entry) : model_folder(models, entry) / file;
}

InstallState install_state(const fs::path& models, const CatalogEntry& entry) {
    const fs::path folder = model_folder(models, entry);
    std::error_code error;
    if (!fs::is_directory(folder, error) || fs::is_empty(folder, error)) {
        return InstallState::absent;
    }
    for (const CatalogFile& file : entry.files) {
        const fs::path path = folder / file.name;
        if (!fs::is_regular_file(path, error)) {
            fs::path part = path;
            part += ".part";
            if (file.optional && !fs::exists(part, error)) continue;
            return InstallState::partial;
        }
        if (file.size_bytes > 0 && !entry.sizes_approximate &&
            static_cast<int64_t>(fs::file_size(path, error)) != file.size_bytes) {
            return InstallState::partial;
        }
    }
    return InstallState::installed;
}

int64_t bytes_on_disk(const fs::path& path) {
    std::error_code error;
    if (fs::is_regular_file(path, error)) return static_cast<int64_t>(fs::file_size(path, error));
    if (!fs::is_directory(path, error)) return 0;
    int64_t total = 0;
    for (fs::recursive_directory_iterator it(path, error), end; !error && it != end;
         it.increment(error)) {
        if (it->is_regular_file(error)) total += static_cast<int64_t>(it->file_size(error));
    }
    return total;
}

std::vector<std::string> model_folders(const fs::path& models) {
    std::vector<std::string> names;
    std::error_code error;
    for (fs::directory_iterator it(models, error), end; !error && it != end; it.increment(error)) {
        if (it->is_directory(error)) names.push_back(it->path().filename().string());
    }
    std::sort(names.begin(), names.end());
    return names;
}

bool remove_model(const fs::path& models, const std::string& name) {
    if (name.empty() || name == "." || name == ".." || name.find('/') != std::string::npos) {
        return false;
    }
    std::error_code error;
    const fs::path folder = models / name;
    if (!fs::is_directory(folder, error)) return false;
    return fs::remove_all(folder, error) > 0 && !error;
}

std::string format_bytes(int64_t bytes) {
    static constexpr const char* kUnits[] = {"B", "kB", "MB", "GB", "TB"};
    double value = static_cast<double>(bytes);
    size_t unit = 0;
    while (value >= 1000.0 && unit + 1 < std::size(kUnits)) {
        value /= 1000.0;
        ++unit;
    }
    char text[32];
    std::snprintf(text, sizeof text, unit == 0 ? "%.0f %s" : "%.1f %s", value, kUnits[unit]);
    return text;
}

}  // namespace earshot::app
