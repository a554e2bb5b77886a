// Decoding one 30 s window with Whisper's rules (reference §5.1-§5.3, §5.7, §5.9): the initial
// tokens and filters from the tokenizer and options, the language, the search the temperature
// calls for, and the best candidate as a WindowResult.
#pragma once

#include <cstdint>
#include <random>
#include <span>
#include <string_view>

#include "earshot/engine/backend/host_tensor.h"
#include "earshot/engine/decoding/decoder_model.h"
#include "earshot/engine/decoding/decoding_options.h"
#include "earshot/engine/decoding/fallback.h"
#include "earshot/engine/decoding/language_detection.h"
#include "earshot/engine/decoding/window_search.h"

namespace earshot::tokenizer {
class Tokenizer;
}

namespace earshot::decoding {

// The initial tokens (§5.1) and filter settings (§5.2) of one window:
// [<|startofprev|> + the last MaxTokens / 2 - 1 prompt tokens] + [SOT, language, task] (SOT
// alone on English-only vocabularies) [+ <|notimestamps|>] [+ encode(" " + strip(prefix))].
// The prefix keeps its last MaxTokens / 2 - sample_len tokens when that is positive, else all of
// it (openai's slice from -0 keeps everything; a negative bound, which would drop the first
// tokens there, also keeps everything here). `language_token` is ignored for English-only.
WindowSetup make_window_setup(const tokenizer::Tokenizer& tok, const DecodingOptions& options,
                              int32_t language_token, std::span<const int32_t> prompt,
                              std::string_view prefix, int64_t max_tokens);

// One window, mel [1, Mels, Frames], at one temperature: listen; the language (options.language,
// detected when "" on multilingual models, "en" on English-only ones); then at T = 0 beam search
// (beam_size > 1, with patience) or greedy (beam_size 1), at T > 0 best_of samples; the best
// candidate by sum_logprob / length. text = decode_text(tokens); compression_ratio of it.
WindowResult decode_window(DecoderModel& model, const tokenizer::Tokenizer& tok,
                           const backend::HostTensor& mel, std::span<const int32_t> prompt,
                           std::string_view prefix, const DecodingOptions& options,
                           double temperature, std::mt19937_64& rng);

}  // namespace earshot::decoding
