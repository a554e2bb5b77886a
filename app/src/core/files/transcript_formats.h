// Writers of a finished transcript in the four output formats of `earshot transcribe`: plain text,
// SubRip (SRT), WebVTT and JSON, each rendered to a string.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "earshot/engine/decoding/transcript.h"

namespace earshot::app {

enum class TranscriptFormat { txt, srt, vtt, json };

// "txt", "srt", "vtt", "json" (lower case); empty for anything else.
std::optional<TranscriptFormat> parse_transcript_format(std::string_view name);
// The file extension without the dot, the same words parse_transcript_format reads.
std::string_view transcript_format_name(TranscriptFormat format);

// Times are rounded to the nearest millisecond (halves up; negative times print as 0).
// SRT: always hours, comma before the milliseconds: 3725.5 -> "01:02:05,500".
std::string srt_timestamp(double seconds);
// WebVTT: "mm:ss.mmm" under an hour and "hh:mm:ss.mmm" from an hour on, decided per timestamp as
// openai's writer does (both forms are valid WebVTT): 65.25 -> "01:05.250",
// 3725.5 -> "01:02:05.500".
std::string vtt_timestamp(double seconds);

// Segment texts are written stripped of surrounding whitespace and with any line break inside
// turned into a space, so that a segment is one line of TXT and a cue never holds a blank line.
// One line per segment (an empty segment gives an empty line), each ending in '\n'.
std::string render_txt(const decoding::Transcript& transcript);
// How subtitles are cut. max_line_words > 0 (with word times): a segment that has words becomes
// cues of at most that many words each, timed from the first word's start to the last word's end
// (a cue never spans two segments, as openai's max_words_per_line); 0: one cue per segment.
struct CueOptions {
    int max_line_words = 0;
};
struct Cue {
    double start_s = 0.0;
    double end_s = 0.0;
    std::string text;  // one line, "-->" written as "->"
};
// The cues SRT and VTT write; segments and word groups with no text give none.
std::vector<Cue> subtitle_cues(const decoding::Transcript& transcript, const CueOptions& options);

// Cues numbered from 1: "n\nSTART --> END\ntext\n\n" with the one-line text.
std::string render_srt(const decoding::Transcript& transcript, const CueOptions& options = {});
// "WEBVTT\n\n", then per cue "START --> END\ntext\n\n".
std::string render_vtt(const decoding::Transcript& transcript, const CueOptions& options = {});
// {"text", "language", "segments": [{"id", "start", "end", "text", "tokens", "avg_logprob",
// "no_speech_prob", "temperature", "compression_ratio"[, "words"]}]}, keys in that order, indented
// by 2; "words" ([{"word", "start", "end", "probability"}]) on every segment when any has words,
// UTF-8 written as is; invalid UTF-8 bytes (a partial character decoded from noise) become
// U+FFFD instead of failing the write.
std::string render_json(const decoding::Transcript& transcript);

std::string render_transcript(const decoding::Transcript& transcript, TranscriptFormat format,
                              const CueOptions& cues = {});

}  // namespace earshot::app
