// A custom vocabulary: the words a user wants the decoder to prefer (names, terms, spellings),
// read from a file (`--vocabulary FILE`, the Settings entry), and turned into the decoder's prompt
// and bias tokens by the transcription setup.
#pragma once

#include <cstdint>
#include <filesystem>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace earshot::tokenizer {
class Tokenizer;
}

namespace earshot::app {

// "FILE: problem", one line.
class VocabularyFileError : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

// One entry a line (a word or a phrase); blank lines and lines starting with '#' are skipped,
// surrounding blanks trimmed, repeats dropped. `source` names the text in errors. Throws
// VocabularyFileError when nothing is left.
std::vector<std::string> parse_vocabulary(std::string_view text, const std::string& source);
std::vector<std::string> load_vocabulary(const std::filesystem::path& path);

// The prompt the list becomes: " entry, entry, ..." encoded (the entries as a comma-separated
// run of text, the form Whisper's own prompts take).
std::vector<int32_t> vocabulary_prompt_tokens(const std::vector<std::string>& entries,
                                              const tokenizer::Tokenizer& tokenizer);
// Each entry's first token as it starts a word (" entry"), sorted and unique.
std::vector<int32_t> vocabulary_first_tokens(const std::vector<std::string>& entries,
                                             const tokenizer::Tokenizer& tokenizer);

}  // namespace earshot::app
