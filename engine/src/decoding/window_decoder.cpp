// One window's decoding: initial tokens, filters, language, search and result (§5.1-§5.3).
#include "earshot/engine/decoding/window_decoder.h"

#include <algorithm>
#include <stdexcept>
#include <string>
#include <vector>

#include "earshot/engine/decoding/beam_search.h"
#include "earshot/engine/decoding/compression_ratio.h"
#include "earshot/engine/decoding/logit_filters.h"
#include "earshot/engine/decoding/sampling_search.h"
#include "earshot/engine/tokenizer/tokenizer.h"
#include "python_strip.h"

namespace earshot::decoding {

WindowSetup make_window_setup(const tokenizer::Tokenizer& tok, const DecodingOptions& options,
                              int32_t language_token, std::span<const int32_t> prompt,
                              std::string_view prefix, int64_t max_tokens) {
    const auto& sp = tok.specials();
    WindowSetup setup;
    setup.eot = sp.eot;
    setup.nospeech = sp.nospeech;
    setup.sample_len = options.sample_len > 0 ? options.sample_len
                                              : static_cast<int>(max_tokens / 2);  // openai's `or`

    auto& tokens = setup.initial_tokens;
    const std::vector<int32_t>& vocabulary = options.vocabulary_tokens;
    if (!prompt.empty() || !vocabulary.empty()) {
        // [<|startofprev|> vocabulary previous-text]: at most MaxTokens / 2 - 1 after the
        // marker; the vocabulary is kept, the previous text loses its oldest tokens.
        const auto keep = static_cast<size_t>(std::max<int64_t>(max_tokens / 2 - 1, 0));
        tokens.push_back(sp.startofprev);
        const size_t listed = std::min(vocabulary.size(), keep);
        tokens.insert(tokens.end(), vocabulary.begin(),
                      vocabulary.begin() + static_cast<std::ptrdiff_t>(listed));
        const size_t room = keep - listed;
        const size_t from = prompt.size() > room ? prompt.size() - room : 0;
        tokens.insert(tokens.end(), prompt.begin() + static_cast<std::ptrdiff_t>(from),
                      prompt.end());
    }
    setup.sot_index = tokens.size();
    tokens.push_back(sp.sot);
    if (tok.multilingual()) {
        if (language_token < sp.first_language ||
            language_token >= sp.first_language + sp.num_languages) {
            throw std::invalid_argument("window setup: " + std::to_string(language_token) +
                                        " is not a language token");
        }
        tokens.push_back(language_token);
        tokens.push_back(options.task == Task::translate ? sp.translate : sp.transcribe);
    }
    if (!options.timestamps) tokens.push_back(sp.notimestamps);
    if (!prefix.empty()) {  // openai tests the raw prefix, then encodes " " + stripped
        std::vector<int32_t> encoded = tok.encode(" " + std::string(python_strip(prefix)));
        const int64_t max_prefix = max_tokens / 2 - setup.sample_len;
        if (max_prefix > 0 && static_cast<int64_t>(encoded.size()) > max_prefix) {
            encoded.erase(encoded.begin(), encoded.end() - max_prefix);
        }
        tokens.insert(tokens.end(), encoded.begin(), encoded.end());
    }

    const std::vector<int32_t> blank = tok.encode(" ");
    if (blank.size() != 1) throw std::logic_error("window setup: \" \" is not one token");
    auto& filters = setup.filters;
    filters.ids = {.blank = blank[0],
                   .eot = sp.eot,
                   .no_timestamps = sp.notimestamps,
                   .timestamp_begin = sp.timestamp_begin};
    filters.suppress_blank = options.suppress_blank;
    filters.boosted = options.vocabulary_first_tokens;
    filters.boost = static_cast<float>(options.vocabulary_logit_bias);
    const std::vector<int32_t> always{sp.transcribe,  sp.translate, sp.sot,
                                      sp.startofprev, sp.startoflm, sp.nospeech};
    filters.suppress = suppress_token_set(options.suppress_tokens, tok.non_speech_tokens(), always);
    filters.timestamps = options.timestamps;
    filters.max_initial_timestamp_index =
        max_initial_timestamp_index(options.max_initial_timestamp_s);
    return setup;
}

WindowResult decode_window(DecoderModel& model, const tokenizer::Tokenizer& tok,
                           const backend::HostTensor& mel, std::span<const int32_t> prompt,
                           std::string_view prefix, const DecodingOptions& options,
                           double temperature, std::mt19937_64& rng) {
    if (mel.shape() != std::vector<int64_t>{1, model.mels(), model.frames()}) {
        throw std::invalid_argument("decode_window: mel must be [1, " +
                                    std::to_string(model.mels()) + ", " +
                                    std::to_string(model.frames()) + "], got " + mel.shape_str());
    }
    if (!(temperature >= 0.0)) {
        throw std::invalid_argument("decode_window: temperature " + std::to_string(temperature));
    }
    if (options.beam_size < 1 || options.best_of < 1) {
        throw std::invalid_argument("decode_window: beam_size and best_of must be >= 1");
    }
    model.listen(mel);

    WindowResult result;
    int32_t language_token = -1;
    if (!tok.multilingual()) {
        result.language = "en";
    } else if (options.language.empty()) {
        const LanguageGuess guess = detect_listened_language(model, tok);
        language_token = guess.token;
        result.language = guess.code;
    } else {
        language_token = tok.language_token(options.language);
        if (language_token < 0) {
            throw std::invalid_argument("decode_window: unknown language \"" + options.language +
                                        "\"");
        }
        result.language = std::string(tok.language_code(language_token));  // "iw" -> "he"
    }

    const WindowSetup setup =
        make_window_setup(tok, options, language_token, prompt, prefix, model.max_tokens());
    SearchResult search;
    if (temperature > 0.0) {
        search = sample_window(model, setup, temperature, options.best_of, rng);
    } else if (options.beam_size > 1) {
        search = beam_search_window(model, setup, options.beam_size, options.patience);
    } else {
        search = sample_window(model, setup, 0.0, 1, rng);
    }

    const Candidate& best = search.candidates[best_candidate(search.candidates)];
    result.tokens = best.tokens;
    result.token_logprobs = best.token_logprobs;
    result.text = tok.decode_text(best.tokens);
    result.avg_logprob = average_logprob(best);
    result.no_speech_prob = search.no_speech_prob;
    result.temperature = temperature;
    result.compression_ratio = compression_ratio(result.text);
    return result;
}

}  // namespace earshot::decoding
