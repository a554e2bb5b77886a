// CheckpointError: the one exception type every checkpoint reader throws. Its what() is a single
// line naming the file, the tensor when there is one, and the problem.
#pragma once

#include <filesystem>
#include <stdexcept>
#include <string>
#include <string_view>

namespace earshot::checkpoint {

class CheckpointError : public std::runtime_error {
public:
    // what() reads `<file name>: <problem> (<full path>)`; the path part is left out when it would
    // repeat the file name (parsers called on a buffer name it themselves).
    CheckpointError(std::filesystem::path file, std::string problem);
    // what() reads `<file name>: tensor "<tensor>": <problem> (<full path>)`.
    CheckpointError(std::filesystem::path file, std::string tensor, std::string problem);

    const std::filesystem::path& file() const noexcept { return file_; }
    const std::string& tensor() const noexcept { return tensor_; }  // empty when not about one
    const std::string& problem() const noexcept { return problem_; }

private:
    std::filesystem::path file_;
    std::string tensor_;
    std::string problem_;
};

// Quotes text for an error message: wraps it in double quotes, escapes control characters, quotes
// and backslashes, and shortens it past max_chars, so that a message always stays one line.
std::string quote_for_message(std::string_view text, std::size_t max_chars = 160);

}  // namespace earshot::checkpoint
