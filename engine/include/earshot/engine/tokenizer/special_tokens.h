// Whisper's special-token layout: the ids openai appends after the BPE ranks (EOT, SOT, one token
// per language, task and control tokens, 1501 timestamps), derived from the vocabulary size alone.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>

namespace earshot::tokenizer {

struct SpecialTokens {
    int32_t eot = 0;             // <|endoftext|>
    int32_t sot = 0;             // <|startoftranscript|>
    int32_t first_language = 0;  // <|en|>
    int32_t num_languages = 0;   // language slots, first_language .. first_language + n - 1
    int32_t translate = 0;
    int32_t transcribe = 0;
    int32_t startoflm = 0;
    int32_t startofprev = 0;
    int32_t nospeech = 0;  // formerly <|nocaptions|>
    int32_t notimestamps = 0;
    int32_t timestamp_begin = 0;  // <|0.00|>; timestamp k (0..1500) is k * 0.02 s
    int32_t last_timestamp = 0;   // <|30.00|> = n_vocab - 1
};

// Timestamp tokens per window: <|0.00|> .. <|30.00|> in 0.02 s steps.
inline constexpr int32_t kTimestampCount = 1501;
// The smallest Whisper vocabulary (English-only: 50256 GPT-2 ranks + specials).
inline constexpr int64_t kEnglishOnlyVocab = 51864;
// Multilingual from this size on (openai ModelDimensions: n_vocab >= 51865).
inline constexpr int64_t kMultilingualVocab = 51865;

// The layout for `n_vocab` (whisper-inference.md §4.2): multilingual iff n_vocab >= 51865, base
// ranks 50257 (multilingual) or 50256, num_languages = n_vocab - 51765 - multilingual. Gives the
// three known layouts for 51864 / 51865 / 51866 and the same formula for larger sizes. Throws
// TokenizerError below 51864 or above what an int32 id can hold.
SpecialTokens special_tokens(int64_t n_vocab);

// openai's LANGUAGES codes in id order (index i is first_language + i): "en", "zh", ..., "su"
// (99), then "yue" (large-v3).
std::span<const std::string_view> language_codes();
// openai's LANGUAGES names, in the order of language_codes(): "english", "chinese", ...,
// "cantonese".
std::span<const std::string_view> language_names();
// The name of an openai code ("fr" -> "french"; "iw" -> "hebrew"); "" when the code is unknown.
std::string_view language_name(std::string_view code);
// The code of a language given by code or by name, in any case ("French", "fr" -> "fr"); ""
// when it is neither.
std::string_view find_language_code(std::string_view code_or_name);

// The name of special id `id` under `specials` ("<|startoftranscript|>", "<|en|>", "<|1.50|>");
// "" when `id` is below eot or past last_timestamp. Language slots beyond the known codes are named
// "<|lang{index}|>".
std::string special_token_name(const SpecialTokens& specials, int32_t id);

// The id of a special token by name, the inverse of special_token_name; also accepts the old
// spellings "<|nocaptions|>" and "<|iw|>". -1 when the name is not a special of this layout.
int32_t special_token_id(const SpecialTokens& specials, std::string_view name);

}  // namespace earshot::tokenizer
