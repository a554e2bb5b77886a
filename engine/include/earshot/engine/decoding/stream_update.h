// What one update of live dictation reports: StreamUpdate with its committed and tentative
// StreamWords (times, tokens, probabilities), and why it ran no decoder (UpdateGate).
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace earshot::decoding {

struct LiveCrossAttention;  // live_cross_attention.h

// One token of a word: its text and how sure the decoder was when it sampled it.
struct StreamToken {
    std::string text;           // decoded alone (a piece of a multi-byte character may show as
                                //   the replacement character)
    double probability = -1.0;  // after Whisper's filters; -1 when not measured
    std::vector<std::pair<std::string, double>> alternatives;  // most probable others first
};

// How a word's times were found.
enum class WordTiming {
    aligned,    // cross-attention alignment (DTW) over the window's audio
    estimated,  // its segment's span shared among its words by length (see TimedWord)
};

// A word with times in seconds from the start of the stream. Committed words are final; times
// never go back: each word starts at or after the end of the word before it (committed words
// first, then tentative ones), and ends at or after its start.
struct StreamWord {
    std::string text;
    double start_s = 0.0;
    double end_s = 0.0;
    WordTiming timing = WordTiming::estimated;
    std::vector<StreamToken> tokens;  // its text tokens, in order (texts join to `text`)
};

// Why an update ran no decoder.
enum class UpdateGate {
    decoded,    // the window was heard and decoded
    silence,    // no speech in the window (energy VAD): nothing to decode
    no_speech,  // decoded, but Whisper's no-speech probability said silence (§5.5 rule)
    empty,      // no audio yet
    cancelled,  // stopped mid-decode
};

struct StreamUpdate {
    int64_t index = 0;           // 0, 1, ... per transcriber
    std::string committed_text;  // committed by this update (append to the transcript)
    std::vector<StreamWord> committed_words;
    std::string tentative_text;  // replaces the previous update's tentative text
    std::vector<StreamWord> tentative_words;
    double window_start_s = 0.0;  // the audio this update heard: [window_start_s,
    double audio_end_s = 0.0;     //   audio_end_s) of the stream
    double engine_ms = 0.0;       // listen + decode + policy
    double no_speech_prob = 0.0;
    int new_tokens = 0;  // tokens sampled by this update
    UpdateGate gate = UpdateGate::empty;
    bool forced_commit = false;  // committed without agreement: a pause or a full window
    int repeated_words = 0;      // words heard again, dropped: a restarted window's first
                                 //   words that repeat the committed ones
                                 //   (drop_repeated_start), and a word that says the word
                                 //   before it again (repeats_last_committed)
    bool final = false;          // finish(): everything is committed
    // How this transcriber times words (StreamingTranscriber::word_timing()); a word committed
    // as it stood in an earlier update keeps its own `timing`.
    WordTiming word_timing = WordTiming::estimated;
    // The current hypothesis's cross-attention map, from this update's own alignment prefill,
    // when StreamingOptions::cross_attention asked for it and the update aligned words; else null.
    std::shared_ptr<const LiveCrossAttention> cross_attention;
};

std::string_view to_string(UpdateGate gate) noexcept;
std::string_view to_string(WordTiming timing) noexcept;

}  // namespace earshot::decoding
