// read_json_file: a checkpoint's JSON side file, with errors that name it.
#include "json_file.h"

#include <fstream>
#include <sstream>
#include <string>

#include "earshot/engine/checkpoint/errors.h"

namespace earshot::checkpoint {

nlohmann::json read_json_file(const std::filesystem::path& path) {
    std::ifstream in(path, std::ios::binary);
    if (!in) {
        throw CheckpointError(path, "cannot open for reading");
    }
    std::ostringstream text;
    text << in.rdbuf();
    try {
        return nlohmann::json::parse(text.str());
    } catch (const nlohmann::json::exception& error) {
        throw CheckpointError(path, "malformed JSON: " + std::string(error.what()));
    }
}

}  // namespace earshot::checkpoint
