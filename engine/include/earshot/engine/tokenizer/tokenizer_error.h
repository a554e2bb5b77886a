// TokenizerError: the one exception type the tokenizer throws, for an unreadable or inconsistent
// vocabulary source, an impossible vocabulary size or a token id outside the vocabulary.
#pragma once

#include <filesystem>
#include <stdexcept>
#include <string>

namespace earshot::tokenizer {

class TokenizerError : public std::runtime_error {
public:
    // what() is `problem`, one line.
    explicit TokenizerError(const std::string& problem) : std::runtime_error(problem) {}
    // what() reads `<file name>: <problem> (<full path>)`.
    TokenizerError(const std::filesystem::path& source, const std::string& problem)
        : std::runtime_error(source.filename().string() + ": " + problem + " (" + source.string() +
                             ")"),
          source_(source) {}

    const std::filesystem::path& source() const noexcept { return source_; }  // empty if none

private:
    std::filesystem::path source_;
};

}  // namespace earshot::tokenizer
