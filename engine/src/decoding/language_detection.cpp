// Language detection: argmax and softmax over the language tokens at [SOT] (reference §5.9).
#include "earshot/engine/decoding/language_detection.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>

#include "earshot/engine/decoding/window_search.h"
#include "earshot/engine/tokenizer/tokenizer.h"

namespace earshot::decoding {

namespace {

LanguageGuess english_only(const tokenizer::Tokenizer& tok) {
    return {"en", tok.language_token("en"), {{"en", 1.0}}};
}

}  // namespace

LanguageGuess detect_language(DecoderModel& model, const tokenizer::Tokenizer& tok,
                              const backend::HostTensor& mel) {
    if (!tok.multilingual()) return english_only(tok);
    model.listen(mel);
    return detect_listened_language(model, tok);
}

LanguageGuess detect_listened_language(DecoderModel& model, const tokenizer::Tokenizer& tok) {
    if (!tok.multilingual()) return english_only(tok);
    if (model.rows() != 1) {
        throw std::logic_error("detect_language: the model has " + std::to_string(model.rows()) +
                               " rows; listen() first");
    }
    const auto& specials = tok.specials();
    const backend::HostTensor logits =
        model.prefill(backend::HostTensor::i32({1, 1}, {specials.sot}));  // [1, Vocab]
    const std::vector<float> row = logits_row(logits, 0);

    // The language slots that have a code (all of them for the released vocabularies).
    std::vector<int32_t> tokens;
    for (int32_t i = 0; i < specials.num_languages; ++i) {
        const int32_t token = specials.first_language + i;
        if (!tok.language_code(token).empty() && static_cast<size_t>(token) < row.size()) {
            tokens.push_back(token);
        }
    }
    if (tokens.empty()) throw std::logic_error("detect_language: no language tokens");

    LanguageGuess guess;
    float peak = row[static_cast<size_t>(tokens[0])];
    guess.token = tokens[0];
    for (int32_t token : tokens) {  // the first largest, as torch argmax
        if (row[static_cast<size_t>(token)] > peak) {
            peak = row[static_cast<size_t>(token)];
            guess.token = token;
        }
    }
    guess.code = std::string(tok.language_code(guess.token));

    double total = 0.0;
    for (int32_t token : tokens) total += std::exp(double(row[static_cast<size_t>(token)] - peak));
    for (int32_t token : tokens) {
        guess.probabilities.emplace_back(
            std::string(tok.language_code(token)),
            std::exp(double(row[static_cast<size_t>(token)] - peak)) / total);
    }
    std::stable_sort(guess.probabilities.begin(), guess.probabilities.end(),
                     [](const auto& a, const auto& b) { return a.second > b.second; });
    return guess;
}

}  // namespace earshot::decoding
