// The GPT-2 pattern on PCRE2: `'s|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|
// \s+(?!\S)|\s+` (whisper-inference.md §4.1), with \s spelled as Unicode White_Space.
#include "pre_tokenizer.h"

#define PCRE2_CODE_UNIT_WIDTH 8
#include <pcre2.h>

#include <array>
#include <cstddef>
#include <memory>
#include <stdexcept>
#include <string>

namespace earshot::tokenizer {
namespace {

// openai's tiktoken and Python's `regex` read \s as the Unicode White_Space property: TAB..CR,
// NEL (U+0085) and the separators \p{Z}. PCRE2's \s under UCP leaves NEL out, so it is spelled
// out here.
constexpr const char* kPattern =
    "'s|'t|'re|'ve|'m|'ll|'d"
    "| ?\\p{L}+"
    "| ?\\p{N}+"
    "| ?[^\\t-\\r\\x{85}\\p{Z}\\p{L}\\p{N}]+"
    "|[\\t-\\r\\x{85}\\p{Z}]+(?![^\\t-\\r\\x{85}\\p{Z}])"
    "|[\\t-\\r\\x{85}\\p{Z}]+";

struct MatchDataDeleter {
    void operator()(pcre2_match_data* data) const { pcre2_match_data_free(data); }
};

}  // namespace

struct PreTokenizer::Compiled {
    pcre2_code* code = nullptr;
};

PreTokenizer::PreTokenizer() : compiled_(new Compiled) {
    int error_code = 0;
    PCRE2_SIZE error_offset = 0;
    // MATCH_INVALID_UTF: invalid bytes never match instead of failing the whole subject.
    compiled_->code = pcre2_compile(reinterpret_cast<PCRE2_SPTR>(kPattern), PCRE2_ZERO_TERMINATED,
                                    PCRE2_UTF | PCRE2_UCP | PCRE2_MATCH_INVALID_UTF, &error_code,
                                    &error_offset, nullptr);
    if (compiled_->code == nullptr) {
        std::array<PCRE2_UCHAR, 256> message{};
        pcre2_get_error_message(error_code, message.data(), message.size());
        delete compiled_;
        throw std::logic_error("pre-tokenizer pattern does not compile at offset " +
                               std::to_string(error_offset) + ": " +
                               reinterpret_cast<const char*>(message.data()));
    }
    // Without JIT support pcre2_match interprets the pattern: slower, same result.
    pcre2_jit_compile(compiled_->code, PCRE2_JIT_COMPLETE);
}

PreTokenizer::~PreTokenizer() {
    pcre2_code_free(compiled_->code);
    delete compiled_;
}

std::vector<std::string_view> PreTokenizer::split(std::string_view text) const {
    std::vector<std::string_view> pieces;
    const std::unique_ptr<pcre2_match_data, MatchDataDeleter> match(
        pcre2_match_data_create_from_pattern(compiled_->code, nullptr));
    const auto* subject = reinterpret_cast<PCRE2_SPTR>(text.data());
    std::size_t offset = 0;
    while (offset < text.size()) {
        const int rc =
            pcre2_match(compiled_->code, subject, text.size(), offset, 0, match.get(), nullptr);
        if (rc < 0) {  // no match in the rest (only invalid bytes left), or a matching error
            pieces.push_back(text.substr(offset));
            break;
        }
        const PCRE2_SIZE* ovector = pcre2_get_ovector_pointer(match.get());
        const std::size_t start = ovector[0];
        const std::size_t end = ovector[1];
        if (start > offset) {
            pieces.push_back(text.substr(offset, start - offset));  // skipped invalid bytes
        }
        if (end <= start) {  // every alternative consumes a character; guard anyway
            pieces.push_back(text.substr(start));
            break;
        }
        pieces.push_back(text.substr(start, end - start));
        offset = end;
    }
    return pieces;
}

}  // namespace earshot::tokenizer
