// The vocabulary file, and the tokens the decoder gets from it.
#include "core/transcription/vocabulary_list.h"

#include <algorithm>
#include <fstream>
#include <sstream>

#include "earshot/engine/tokenizer/tokenizer.h"

namespace earshot::app {

std::vector<std::string> parse_vocabulary(std::string_view text, const std::string& source) {
    std::vector<std::string> entries;
    std::istringstream lines{std::string(text)};
    std::string line;
    while (std::getline(lines, line)) {
        const size_t begin = line.find_first_not_of(" \t\r");
        if (begin == std::string::npos || line[begin] == '#') continue;
        const size_t end = line.find_last_not_of(" \t\r");
        std::string entry = line.substr(begin, end - begin + 1);
        if (std::find(entries.begin(), entries.end(), entry) == entries.end()) {
            entries.push_back(std::move(entry));
        }
    }
    if (entries.empty()) throw VocabularyFileError(source + ": no words in the file");
    return entries;
}

std::vector<std::string> load_vocabulary(const std::filesystem::path& path) {
    std::ifstream in(path, std::ios::binary);
    if (!in) throw VocabularyFileError(path.string() + ": cannot be read");
    std::ostringstream text;
    text << in.rdbuf();
    return parse_vocabulary(text.str(), path.string());
}

std::vector<int32_t> vocabulary_prompt_tokens(const std::vector<std::string>& entries,
                                              const tokenizer::Tokenizer& tokenizer) {
    std::string joined;
    for (const std::string& entry : entries) joined += (joined.empty() ? " " : ", ") + entry;
    return joined.empty() ? std::vector<int32_t>{} : tokenizer.encode(joined);
}

std::vector<int32_t> vocabulary_first_tokens(const std::vector<std::string>& entries,
                                             const tokenizer::Tokenizer& tokenizer) {
    std::vector<int32_t> first;
    for (const std::string& entry : entries) {
        const std::vector<int32_t> tokens = tokenizer.encode(" " + entry);
        if (!tokens.empty()) first.push_back(tokens.front());
    }
    std::sort(first.begin(), first.end());
    first.erase(std::unique(first.begin(), first.end()), first.end());
    return first;
}

}  // namespace earshot::app
