// AudioFileError: the one exception type the file decoder throws. Its what() is a single line
// naming the file and the problem, with FFmpeg's own error text where FFmpeg reported one.
#pragma once

#include <filesystem>
#include <stdexcept>
#include <string>

namespace earshot::audio {

class AudioFileError : public std::runtime_error {
public:
    // what() reads `<path>: <problem>`; control characters in either are escaped so that the
    // message always stays on one line.
    AudioFileError(std::filesystem::path file, std::string problem);

    const std::filesystem::path& file() const noexcept { return file_; }
    const std::string& problem() const noexcept { return problem_; }

private:
    std::filesystem::path file_;
    std::string problem_;
};

}  // namespace earshot::audio
