// Spoken-language detection on one window (reference §5.9): one decoder pass over [SOT], the
// argmax over the language tokens only, and their softmax as probabilities.
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "earshot/engine/backend/host_tensor.h"
#include "earshot/engine/decoding/decoder_model.h"

namespace earshot::tokenizer {
class Tokenizer;
}

namespace earshot::decoding {

struct LanguageGuess {
    std::string code;   // "en"
    int32_t token = 0;  // its <|code|> id
    // softmax over the language tokens, most probable first (language order on ties)
    std::vector<std::pair<std::string, double>> probabilities;
};

// Listens to mel [1, Mels, Frames], then detect_listened_language. An English-only vocabulary
// has no languages to tell apart: "en" with probability 1, and the model is not run (openai
// raises instead; transcribe() forces "en" for such models).
LanguageGuess detect_language(DecoderModel& model, const tokenizer::Tokenizer& tok,
                              const backend::HostTensor& mel);

// The same on a model that has listened (one row): prefill([SOT]) and read its logits. Later
// passes overwrite the cache position it wrote.
LanguageGuess detect_listened_language(DecoderModel& model, const tokenizer::Tokenizer& tok);

}  // namespace earshot::decoding
