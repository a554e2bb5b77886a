// AudioFileError's one-line message format.
#include "earshot/audio/audio_file_error.h"

#include <utility>

#include "earshot/base/one_line.h"

namespace earshot::audio {
namespace {

using base::one_line;

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
