// PreTokenizer: GPT-2's pre-tokenizer regex (PCRE2, UTF mode with Unicode properties), which cuts
// text into the pieces BPE merges within.
#pragma once

#include <string_view>
#include <vector>

namespace earshot::tokenizer {

class PreTokenizer {
public:
    PreTokenizer();  // compiles the pattern (JIT when available)
    ~PreTokenizer();
    PreTokenizer(const PreTokenizer&) = delete;
    PreTokenizer& operator=(const PreTokenizer&) = delete;

    // The pieces of `text`, in order; together they are exactly `text`. Bytes that are not valid
    // UTF-8 (which no alternative matches) form pieces of their own. Safe to call from several
    // threads at once.
    std::vector<std::string_view> split(std::string_view text) const;

private:
    struct Compiled;
    Compiled* compiled_;
};

}  // namespace earshot::tokenizer
