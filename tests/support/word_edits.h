// Word error counting for tests that transcribe speech: the word-level Levenshtein distance
// (substitutions, insertions and deletions) between what was said and what was heard.
#pragma once

#include <algorithm>
#include <cstddef>
#include <string>
#include <vector>

namespace earshot::test {

inline std::size_t word_edits(const std::vector<std::string>& said,
                              const std::vector<std::string>& heard) {
    std::vector<std::size_t> row(heard.size() + 1);
    for (std::size_t j = 0; j <= heard.size(); ++j) row[j] = j;
    for (std::size_t i = 1; i <= said.size(); ++i) {
        std::size_t diagonal = row[0];
        row[0] = i;
        for (std::size_t j = 1; j <= heard.size(); ++j) {
            const std::size_t up = row[j];
            row[j] = std::min(
                {row[j] + 1, row[j - 1] + 1, diagonal + (said[i - 1] == heard[j - 1] ? 0 : 1)});
            diagonal = up;
        }
    }
    return row[heard.size()];
}

}  // namespace earshot::test
