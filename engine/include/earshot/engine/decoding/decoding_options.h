// What one window's decoding is asked to do (DecodingOptions) and what it returns (WindowResult),
// with openai's defaults (reference §5.1-§5.4).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace earshot::decoding {

enum class Task { transcribe, translate };

struct DecodingOptions {
    Task task = Task::transcribe;
    std::string language;  // "" = detect (multilingual); English-only models force "en"
    std::vector<double> temperatures{0.0, 0.2, 0.4, 0.6, 0.8, 1.0};
    int beam_size = 5;  // at T = 0; 1 = greedy
    int best_of = 5;    // at T > 0
    double patience = 1.0;
    bool timestamps = true;
    double max_initial_timestamp_s = 1.0;  // 0: no limit on the first timestamp
    bool suppress_blank = true;
    std::vector<int32_t> suppress_tokens{-1};  // -1 expands to the non-speech set (§5.2)
    int sample_len = 224;                      // new tokens per window, EOT included
    double compression_ratio_threshold = 2.4;
    double logprob_threshold = -1.0;
    double no_speech_threshold = 0.6;
    uint64_t seed = 0;  // for the caller's std::mt19937_64
    // A custom vocabulary (the words a user wants written as listed): its tokens open every
    // window's <|startofprev|> prompt, before the previous text, and are kept when the prompt is
    // cut to fit (the previous text loses its oldest tokens first). Never part of the output.
    std::vector<int32_t> vocabulary_tokens;
    // Added to the logits of `vocabulary_first_tokens` (each listed word's first token) at
    // every step, before Whisper's filters; 0: no bias.
    double vocabulary_logit_bias = 0.0;
    std::vector<int32_t> vocabulary_first_tokens;  // sorted, unique
};

struct WindowResult {
    std::vector<int32_t> tokens;         // sampled tokens without EOT (timestamps included)
    std::vector<double> token_logprobs;  // log P of each of `tokens`; empty when not measured
    std::string text;                    // decode_text of tokens, not stripped
    double avg_logprob = 0;              // sum_logprob / (tokens + 1): the +1 counts EOT (§5.3)
    double no_speech_prob = 0;           // P(<|nospeech|>) at the SOT position (§5.7)
    double temperature = 0;
    double compression_ratio = 0;  // of the stripped text (§5.4)
    std::string language;          // the requested or detected code
};

}  // namespace earshot::decoding
