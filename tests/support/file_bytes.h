// read_file_bytes, read_file_text: the whole of a small test file in memory (stdio rather than
// iostreams: GCC 12 reports a false -Wnull-dereference inside istreambuf_iterator).
#pragma once

#include <cstdio>
#include <filesystem>
#include <stdexcept>
#include <string>
#include <vector>

namespace earshot::test {

inline std::vector<unsigned char> read_file_bytes(const std::filesystem::path& path,
                                                  const char* what) {
    std::FILE* file = std::fopen(path.c_str(), "rb");
    if (file == nullptr) {
        throw std::runtime_error(std::string(what) + ": cannot open " + path.string());
    }
    std::vector<unsigned char> bytes;
    unsigned char buffer[65536];
    std::size_t n = 0;
    while ((n = std::fread(buffer, 1, sizeof buffer, file)) > 0) {
        bytes.insert(bytes.end(), buffer, buffer + n);
    }
    std::fclose(file);
    return bytes;
}

// The whole of a small text file ("" when it cannot be read: the caller's checks then fail).
inline std::string read_file_text(const std::filesystem::path& path) {
    std::string text;
    if (std::FILE* file = std::fopen(path.c_str(), "rb")) {
        char buffer[65536];
        std::size_t n = 0;
        while ((n = std::fread(buffer, 1, sizeof buffer, file)) > 0) text.append(buffer, n);
        std::fclose(file);
    }
    return text;
}

}  // namespace earshot::test
