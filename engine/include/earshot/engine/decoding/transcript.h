// Transcript and Segment: the plain result of long-form transcription, what the output writers
// (TXT, SRT, VTT, JSON) and the UI read. No model or tokenizer types here.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace earshot::decoding {

// One word with its time, from cross-attention alignment (openai's word_timestamps): present only
// when a transcription asked for word times.
struct Word {
    std::string text;      // leading space kept, punctuation merged into its word (" Hello,")
    double start_s = 0.0;  // from the start of the file
    double end_s = 0.0;
    double probability = 0.0;  // mean P of the word's tokens; 0 when the decoder did not measure it
};

// One timed piece of text, as openai transcribe() reports it (reference §5.8).
struct Segment {
    // The first mel frame (10 ms) of the window the segment was decoded in: openai's "seek".
    int64_t seek_frames = 0;
    double start_s = 0.0;  // from the start of the file
    double end_s = 0.0;
    std::string text;             // decode of the segment's text tokens, leading space kept
    std::vector<int32_t> tokens;  // the segment's sampled tokens, timestamps included, no EOT
    // Of the window the segment came from (reference §5.3, §5.4, §5.7).
    double avg_logprob = 0.0;
    double no_speech_prob = 0.0;
    double temperature = 0.0;
    double compression_ratio = 0.0;
    // log P of each of `tokens` as it was sampled (after Whisper's filters); empty: not measured.
    std::vector<double> token_logprobs;
    std::vector<Word> words;  // empty unless word times were asked for
};

struct Transcript {
    std::string language;  // "en", ...; the requested or the detected one
    std::vector<Segment> segments;
    std::string text;      // every segment's text concatenated, as openai's result["text"]
    bool complete = true;  // false when the run stopped before the end of the audio (Ctrl-C)
};

}  // namespace earshot::decoding
