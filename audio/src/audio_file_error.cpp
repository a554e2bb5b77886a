// AudioFileError's one-line message format.
#include "earshot/audio/audio_file_error.h"

#include <cstdio>
#include <string_view>
#include <utility>

namespace earshot::audio {
namespace {

// Escapes control characters (newlines included) so that what() is always a single line.
std::string one_line(std::string_view text) {
    std::string out;
    out.reserve(text.size());
    for (const char c : text) {
        const auto byte = static_cast<unsigned char>(c);
        if (byte < 0x20 || byte == 0x7f) {
            char escaped[8];
            std::snprintf(escaped, sizeof(escaped), "\\x%02x", static_cast<unsigned>(byte));
            out += escaped;
        } else {
            out += c;
        }
    }
    return out;
}

std::string compose(const std::filesystem::path& file, const std::string& problem) {
    const std::string name = file.empty() ? std::string("<unnamed>") : file.string();
    return one_line(name) + ": " + one_line(problem);
}

}  // namespace

AudioFileError::AudioFileError(std::filesystem::path file, std::string problem)
    : std::runtime_error(compose(file, problem)),
      file_(std::move(file)),
      problem_(std::move(problem)) {}

}  // namespace earshot::audio
