// InventedWordsGuard: loops, compression and known phrases.
#include "core/dictation/invented_words_guard.h"

#include <algorithm>
#include <map>
#include <string_view>
#include <utility>

#include "core/dictation/dictation_editor.h"
#include "earshot/engine/decoding/compression_ratio.h"

namespace earshot::app {

namespace {

constexpr size_t kRecentWords = 24;  // enough for three repeats of the longest n-gram, twice

std::string joined(const std::vector<std::string>& words, size_t from, size_t to) {
    std::string text;
    for (size_t i = from; i < to; ++i) text += (text.empty() ? "" : " ") + words[i];
    return text;
}

}  // namespace

const std::vector<std::string>& known_invented_phrases(const std::string& language) {
    // Whisper's best-known inventions over silence, from its subtitle-heavy training data.
    static const std::map<std::string, std::vector<std::string>> kPhrases = {
        {"en",
         {"thank you", "thanks for watching", "thank you for watching",
          "thank you very much for watching", "please subscribe", "subscribe to my channel", "bye",
          "you"}},
        {"de", {"vielen dank", "untertitel der amara.org-community", "danke fürs zuschauen"}},
        {"fr", {"merci", "sous-titres réalisés par la communauté d'amara.org"}},
        {"es", {"gracias", "gracias por ver el video", "subtítulos por la comunidad de amara.org"}},
    };
    const auto found = kPhrases.find(language);
    return found != kPhrases.end() ? found->second : kPhrases.at("en");
}

InventedWordsGuard::InventedWordsGuard(std::string language, InventedWordsOptions options)
    : language_(std::move(language)), options_(options) {}

bool InventedWordsGuard::makes_loop(const std::vector<std::string>& history) const {
    // The same n words `loop_repeats` times in a row at the end of the history.
    for (size_t n = 1; n <= options_.max_ngram_words; ++n) {
        const size_t span = n * options_.loop_repeats;
        if (history.size() < span) break;
        const size_t start = history.size() - span;
        bool repeated = true;
        for (size_t i = start + n; i < history.size() && repeated; ++i) {
            repeated = history[i] == history[i - n];
        }
        if (repeated) return true;
    }
    return false;
}

GuardResult InventedWordsGuard::judge(const std::vector<GuardedWord>& words) {
    GuardResult result;
    std::vector<std::string> normalized;
    std::string text;
    for (const GuardedWord& word : words) {
        normalized.push_back(normalized_word(word.text));
        text += word.text;
    }
    const auto hold_all = [&](HeldBack reason) {
        result.kept.clear();
        result.held_back_words = words.size();
        result.reason = reason;
        held_back_ += static_cast<int64_t>(words.size());
        return result;
    };
    if (words.empty()) return result;

    // A loop: any prefix of the new words that ends one, with the words committed before.
    std::vector<std::string> history = recent_;
    for (const std::string& word : normalized) {
        history.push_back(word);
        if (makes_loop(history)) return hold_all(HeldBack::repetition_loop);
    }
    if (text.size() >= options_.compression_min_chars &&
        decoding::compression_ratio(text) > options_.compression_ratio_max) {
        return hold_all(HeldBack::compression_ratio);
    }

    // A known phrase standing alone (the whole update, at an utterance start) needs speech under
    // it and a sure decoder.
    const bool alone = at_utterance_start_ || last_end_s_ < 0.0 ||
                       words.front().start_s - last_end_s_ >= options_.phrase_pause_s;
    const std::string all = joined(normalized, 0, normalized.size());
    for (const std::string& phrase : known_invented_phrases(language_)) {
        if (!alone || all != phrase) continue;
        double speech = 0.0;
        double least_sure = 1.0;
        for (const GuardedWord& word : words) {
            speech += word.speech_fraction;
            if (word.probability >= 0.0) least_sure = std::min(least_sure, word.probability);
        }
        speech /= static_cast<double>(words.size());
        if (speech < options_.phrase_min_speech_fraction ||
            least_sure < options_.phrase_min_probability) {
            return hold_all(HeldBack::known_phrase);
        }
    }

    for (size_t i = 0; i < words.size(); ++i) result.kept.push_back(i);
    const std::string& last = words.back().text;
    const size_t end = last.find_last_not_of(" \"')");
    at_utterance_start_ = end != std::string::npos &&
                          std::string_view(".?!").find(last[end]) != std::string_view::npos;
    last_end_s_ = words.back().end_s;
    recent_.insert(recent_.end(), normalized.begin(), normalized.end());
    if (recent_.size() > kRecentWords) {
        recent_.erase(recent_.begin(),
                      recent_.begin() + static_cast<std::ptrdiff_t>(recent_.size() - kRecentWords));
    }
    return result;
}

}  // namespace earshot::app
