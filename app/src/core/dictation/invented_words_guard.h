// InventedWordsGuard: what live dictation does not commit because the decoder likely made it up:
// a repetition loop (an n-gram said three times running, or text that compresses more than
// Whisper's 2.4), and the phrases Whisper is known to invent over silence ("Thank you.",
// "Thanks for watching!") unless speech energy lies under them and the decoder was sure of them.
// Runs on each update's committed words before the spoken commands; held-back words are counted.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace earshot::app {

// A committed word as the guard judges it.
struct GuardedWord {
    std::string text;              // as the decoder wrote it (leading space, punctuation)
    double speech_fraction = 1.0;  // share of its span the VAD heard as speech (0..1)
    double probability = -1.0;     // its tokens' lowest probability; -1: not measured
    double start_s = 0.0;
    double end_s = 0.0;
};

struct InventedWordsOptions {
    size_t max_ngram_words = 4;               // n-grams of 1..this many words are checked
    size_t loop_repeats = 3;                  // an n-gram this many times in a row is a loop
    double compression_ratio_max = 2.4;       // Whisper's fallback threshold (reference §5.4)
    size_t compression_min_chars = 40;        // shorter text is not judged by compression
    double phrase_min_speech_fraction = 0.5;  // a known phrase needs this much speech under it
    double phrase_min_probability = 0.7;      // ... and its least sure token at least this
    // A phrase is judged when it stands alone: first in the session, after a sentence end, or
    // after a pause this long.
    double phrase_pause_s = 1.0;
};

// Why words were held back.
enum class HeldBack { none, repetition_loop, compression_ratio, known_phrase };

struct GuardResult {
    std::vector<size_t> kept;  // indices of the words to commit, in order
    size_t held_back_words = 0;
    HeldBack reason = HeldBack::none;
};

// The phrases Whisper invents over silence and music in `language` (an openai code; "" or an
// unknown code: English's), lower case without punctuation.
const std::vector<std::string>& known_invented_phrases(const std::string& language);

class InventedWordsGuard {
public:
    explicit InventedWordsGuard(std::string language = "en", InventedWordsOptions options = {});

    // The words one update committed, after the words committed before (kept in mind).
    GuardResult judge(const std::vector<GuardedWord>& words);

    int64_t held_back_words() const { return held_back_; }  // the session's total

private:
    bool makes_loop(const std::vector<std::string>& history) const;

    std::string language_;
    InventedWordsOptions options_;
    std::vector<std::string> recent_;  // the last words committed, normalized, oldest first
    bool at_utterance_start_ = true;   // the last committed word ended a sentence (or none yet)
    double last_end_s_ = -1.0;
    int64_t held_back_ = 0;
};

}  // namespace earshot::app
