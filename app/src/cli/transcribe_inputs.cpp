// read_manifest and parse_shard.
#include "cli/transcribe_inputs.h"

#include <charconv>
#include <fstream>

namespace earshot::app {

std::vector<std::string> read_manifest(const std::filesystem::path& manifest) {
    std::ifstream file(manifest);
    if (!file) throw TranscribeInputsError("cannot read the manifest " + manifest.string());
    std::vector<std::string> inputs;
    std::string line;
    while (std::getline(file, line)) {
        const std::size_t first = line.find_first_not_of(" \t\r");
        if (first == std::string::npos || line[first] == '#') continue;
        const std::size_t last = line.find_last_not_of(" \t\r");
        const std::filesystem::path path(line.substr(first, last - first + 1));
        inputs.push_back(path.is_absolute() ? path.string()
                                            : (manifest.parent_path() / path).string());
    }
    return inputs;
}

Shard parse_shard(const std::string& text) {
    const auto fail = [&] {
        return TranscribeInputsError("--shard " + text +
                                     ": expected K/N with 0 <= K < N (for example 0/4)");
    };
    const std::size_t slash = text.find('/');
    if (slash == std::string::npos) throw fail();
    Shard shard;
    const char* begin = text.data();
    const char* middle = begin + slash;
    const char* end = begin + text.size();
    const auto k = std::from_chars(begin, middle, shard.index);
    const auto n = std::from_chars(middle + 1, end, shard.count);
    if (k.ec != std::errc() || k.ptr != middle || n.ec != std::errc() || n.ptr != end ||
        shard.count < 1 || shard.index < 0 || shard.index >= shard.count) {
        throw fail();
    }
    return shard;
}

}  // namespace earshot::app
