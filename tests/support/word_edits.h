// Word error counting for tests that transcribe speech: the word-level Levenshtein distance
// (substitutions, insertions and deletions) between what was said and what was heard, and the
// alignment behind it (which said word each heard word stands for).
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

enum class WordMatch {
    equal,           // only heard words equal to their said word are matched
    or_substituted,  // substituted words are matched too
};

// For each heard word, the index of the said word it stands for on a minimal-edit alignment, or
// -1 (an insertion, or a substitution when `kind` is WordMatch::equal).
inline std::vector<long> match_words(const std::vector<std::string>& said,
                                     const std::vector<std::string>& heard, WordMatch kind) {
    const std::size_t n = said.size();
    const std::size_t m = heard.size();
    std::vector<std::vector<std::size_t>> d(n + 1, std::vector<std::size_t>(m + 1));
    for (std::size_t i = 0; i <= n; ++i) d[i][0] = i;
    for (std::size_t j = 0; j <= m; ++j) d[0][j] = j;
    for (std::size_t i = 1; i <= n; ++i) {
        for (std::size_t j = 1; j <= m; ++j) {
            d[i][j] = std::min({d[i - 1][j] + 1, d[i][j - 1] + 1,
                                d[i - 1][j - 1] + (said[i - 1] == heard[j - 1] ? 0 : 1)});
        }
    }
    std::vector<long> match(m, -1);
    std::size_t i = n;
    std::size_t j = m;
    while (i > 0 && j > 0) {
        const std::size_t substitution = said[i - 1] == heard[j - 1] ? 0 : 1;
        if (d[i][j] == d[i - 1][j - 1] + substitution) {
            --i;
            --j;
            if (substitution == 0 || kind == WordMatch::or_substituted) {
                match[j] = static_cast<long>(i);
            }
        } else if (d[i][j] == d[i - 1][j] + 1) {
            --i;
        } else {
            --j;
        }
    }
    return match;
}

}  // namespace earshot::test
