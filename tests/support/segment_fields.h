// A transcript segment built by field names, so that fields added to decoding::Segment later
// (token log-probabilities, words) keep their defaults in the tests that build segments.
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "earshot/engine/decoding/transcript.h"

namespace earshot::test {

inline decoding::Segment segment(double start_s, double end_s, std::string text,
                                 std::vector<int32_t> tokens, double avg_logprob,
                                 double no_speech_prob, double temperature,
                                 double compression_ratio) {
    decoding::Segment s;
    s.start_s = start_s;
    s.end_s = end_s;
    s.text = std::move(text);
    s.tokens = std::move(tokens);
    s.avg_logprob = avg_logprob;
    s.no_speech_prob = no_speech_prob;
    s.temperature = temperature;
    s.compression_ratio = compression_ratio;
    return s;
}

}  // namespace earshot::test
