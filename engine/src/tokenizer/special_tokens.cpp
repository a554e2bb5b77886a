// Special-token ids from the vocabulary size (openai `get_encoding` order) and their names.
#include "earshot/engine/tokenizer/special_tokens.h"

#include <array>
#include <limits>

#include "earshot/engine/tokenizer/tokenizer_error.h"

namespace earshot::tokenizer {
namespace {

// openai whisper/tokenizer.py LANGUAGES, insertion order (whisper-inference.md §4.3).
constexpr std::array<std::string_view, 100> kLanguageCodes{
    "en", "zh", "de", "es",  "ru", "ko", "fr", "ja", "pt", "tr", "pl", "ca", "nl", "ar", "sv",
    "it", "id", "hi", "fi",  "vi", "he", "uk", "el", "ms", "cs", "ro", "da", "hu", "ta", "no",
    "th", "ur", "hr", "bg",  "lt", "la", "mi", "ml", "cy", "sk", "te", "fa", "lv", "bn", "sr",
    "az", "sl", "kn", "et",  "mk", "br", "eu", "is", "hy", "ne", "mn", "bs", "kk", "sq", "sw",
    "gl", "mr", "pa", "si",  "km", "sn", "yo", "so", "af", "oc", "ka", "be", "tg", "sd", "gu",
    "am", "yi", "lo", "uz",  "fo", "ht", "ps", "tk", "nn", "mt", "sa", "lb", "my", "bo", "tl",
    "mg", "as", "tt", "haw", "ln", "ha", "ba", "jw", "su", "yue"};

// openai whisper/tokenizer.py LANGUAGES, the names, in the same order.
constexpr std::array<std::string_view, 100> kLanguageNames{
    "english",  "chinese",    "german",         "spanish",     "russian",    "korean",
    "french",   "japanese",   "portuguese",     "turkish",     "polish",     "catalan",
    "dutch",    "arabic",     "swedish",        "italian",     "indonesian", "hindi",
    "finnish",  "vietnamese", "hebrew",         "ukrainian",   "greek",      "malay",
    "czech",    "romanian",   "danish",         "hungarian",   "tamil",      "norwegian",
    "thai",     "urdu",       "croatian",       "bulgarian",   "lithuanian", "latin",
    "maori",    "malayalam",  "welsh",          "slovak",      "telugu",     "persian",
    "latvian",  "bengali",    "serbian",        "azerbaijani", "slovenian",  "kannada",
    "estonian", "macedonian", "breton",         "basque",      "icelandic",  "armenian",
    "nepali",   "mongolian",  "bosnian",        "kazakh",      "albanian",   "swahili",
    "galician", "marathi",    "punjabi",        "sinhala",     "khmer",      "shona",
    "yoruba",   "somali",     "afrikaans",      "occitan",     "georgian",   "belarusian",
    "tajik",    "sindhi",     "gujarati",       "amharic",     "yiddish",    "lao",
    "uzbek",    "faroese",    "haitian creole", "pashto",      "turkmen",    "nynorsk",
    "maltese",  "sanskrit",   "luxembourgish",  "myanmar",     "tibetan",    "tagalog",
    "malagasy", "assamese",   "tatar",          "hawaiian",    "lingala",    "hausa",
    "bashkir",  "javanese",   "sundanese",      "cantonese"};
static_assert(kLanguageNames.size() == kLanguageCodes.size());

bool same_ignoring_ascii_case(std::string_view a, std::string_view b) {
    if (a.size() != b.size()) return false;
    for (size_t i = 0; i < a.size(); ++i) {
        const auto lower = [](char c) {
            return c >= 'A' && c <= 'Z' ? static_cast<char>(c + 32) : c;
        };
        if (lower(a[i]) != lower(b[i])) return false;
    }
    return true;
}

// Base ranks before the specials: the GPT-2 vocabulary, plus the empty token 50256 when
// multilingual (whisper-inference.md §4.1).
constexpr int64_t kEnglishBaseRanks = 50256;
// num_languages = n_vocab - 51765 - multilingual (openai ModelDimensions / whisper.cpp).
constexpr int64_t kLanguageOffset = 51765;

std::string timestamp_name(int32_t index) {
    const int32_t centiseconds = index * 2;  // 0.02 s per step
    const int32_t fraction = centiseconds % 100;
    return "<|" + std::to_string(centiseconds / 100) + "." + (fraction < 10 ? "0" : "") +
           std::to_string(fraction) + "|>";
}

}  // namespace

SpecialTokens special_tokens(int64_t n_vocab) {
    if (n_vocab < kEnglishOnlyVocab) {
        throw TokenizerError("n_vocab " + std::to_string(n_vocab) +
                             " is too small for Whisper: the smallest vocabulary is " +
                             std::to_string(kEnglishOnlyVocab) + " (English-only)");
    }
    if (n_vocab > std::numeric_limits<int32_t>::max()) {
        throw TokenizerError("n_vocab " + std::to_string(n_vocab) + " does not fit int32 ids");
    }
    const int64_t multilingual = n_vocab >= kMultilingualVocab ? 1 : 0;
    const auto base = static_cast<int32_t>(kEnglishBaseRanks + multilingual);
    SpecialTokens s;
    s.eot = base;
    s.sot = base + 1;
    s.first_language = base + 2;
    s.num_languages = static_cast<int32_t>(n_vocab - kLanguageOffset - multilingual);
    s.translate = s.first_language + s.num_languages;
    s.transcribe = s.translate + 1;
    s.startoflm = s.translate + 2;
    s.startofprev = s.translate + 3;
    s.nospeech = s.translate + 4;
    s.notimestamps = s.translate + 5;
    s.timestamp_begin = s.translate + 6;
    s.last_timestamp = s.timestamp_begin + kTimestampCount - 1;
    return s;
}

std::span<const std::string_view> language_codes() { return kLanguageCodes; }

std::span<const std::string_view> language_names() { return kLanguageNames; }

std::string_view language_name(std::string_view code) {
    if (code == "iw") code = "he";  // Hebrew's deprecated code
    for (size_t i = 0; i < kLanguageCodes.size(); ++i) {
        if (kLanguageCodes[i] == code) return kLanguageNames[i];
    }
    return {};
}

std::string_view find_language_code(std::string_view code_or_name) {
    for (size_t i = 0; i < kLanguageCodes.size(); ++i) {
        if (same_ignoring_ascii_case(kLanguageCodes[i], code_or_name) ||
            same_ignoring_ascii_case(kLanguageNames[i], code_or_name)) {
            return kLanguageCodes[i];
        }
    }
    if (same_ignoring_ascii_case(code_or_name, "iw")) return "he";
    return {};
}

std::string special_token_name(const SpecialTokens& s, int32_t id) {
    if (id < s.eot || id > s.last_timestamp) {
        return "";
    }
    if (id >= s.timestamp_begin) {
        return timestamp_name(id - s.timestamp_begin);
    }
    if (id >= s.first_language && id < s.first_language + s.num_languages) {
        const auto index = static_cast<size_t>(id - s.first_language);
        if (index < kLanguageCodes.size()) {
            return "<|" + std::string(kLanguageCodes[index]) + "|>";
        }
        return "<|lang" + std::to_string(index) + "|>";
    }
    if (id == s.eot) return "<|endoftext|>";
    if (id == s.sot) return "<|startoftranscript|>";
    if (id == s.translate) return "<|translate|>";
    if (id == s.transcribe) return "<|transcribe|>";
    if (id == s.startoflm) return "<|startoflm|>";
    if (id == s.startofprev) return "<|startofprev|>";
    if (id == s.nospeech) return "<|nospeech|>";
    return "<|notimestamps|>";  // the only id left below timestamp_begin
}

int32_t special_token_id(const SpecialTokens& s, std::string_view name) {
    if (name.size() < 5 || !name.starts_with("<|") || !name.ends_with("|>")) {
        return -1;
    }
    const std::string_view inner = name.substr(2, name.size() - 4);
    if (inner == "nocaptions") {
        return s.nospeech;
    }
    if (inner == "iw") {
        return special_token_id(s, "<|he|>");
    }
    // Timestamps by arithmetic: "<|d.dd|>" with a multiple of 0.02 up to 30.00.
    if (inner.size() >= 4 && inner[inner.size() - 3] == '.') {
        int32_t centiseconds = 0;
        for (const char c : inner) {
            if (c == '.') continue;
            if (c < '0' || c > '9' || centiseconds > 3000) return -1;
            centiseconds = centiseconds * 10 + (c - '0');
        }
        if (centiseconds % 2 != 0 || centiseconds > 3000) {
            return -1;
        }
        const int32_t id = s.timestamp_begin + centiseconds / 2;
        return special_token_name(s, id) == name ? id : -1;  // rejects leading zeros
    }
    for (int32_t id = s.eot; id < s.timestamp_begin; ++id) {
        if (special_token_name(s, id) == name) {
            return id;
        }
    }
    return -1;
}

}  // namespace earshot::tokenizer
