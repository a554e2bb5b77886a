// Segment times fitted to the audio: where a file is loud enough to be speech, hop by hop, and the
// snapping of each segment's start and end to the edges of that speech.
//
// Whisper's timestamps are the model's guess of where its text starts and ends; models trained on
// little data (the embedded micro model's end timestamps run 0.2-0.4 s early) or on noisy
// subtitles drift, and a subtitle that ends before its last word or starts in the silence before
// it is wrong where a person sees it. The audio says where sound is: a segment edge in silence
// moves to the speech next to it, an edge inside speech to the edge of that stretch of speech,
// each within a bound, never across a neighbouring segment and never changing the text. The
// model's own times stay available (TranscribeOptions::snap_times_to_speech = false, the CLI's
// `--segment-times model`), and the seek loop itself always works from them.
#pragma once

#include <cstdint>
#include <limits>
#include <span>
#include <vector>

#include "earshot/engine/decoding/transcript.h"

namespace earshot::decoding {

// Per hop of the file (hop_s seconds each, from its start): 1 where the audio is loud enough to be
// speech, 0 in silence or noise. Filled by whoever reads the samples (the app, from its voice
// activity detector with no hangover).
struct SpeechActivity {
    double hop_s = 0.01;
    std::vector<uint8_t> loud;
};

// A stretch of speech [start_s, end_s): loud hops with no quiet gap longer than the snapping's
// max_gap_s between them.
struct SpeechRun {
    double start_s = 0.0;
    double end_s = 0.0;
};

struct SpeechSnapOptions {
    // Quieter stretches up to this long stay inside one run (stops, breaths between words).
    double max_gap_s = 0.3;
    // An end inside speech moves to the run's end, and a start inside speech to the run's start,
    // when that is at most this far.
    double max_extend_s = 1.0;
    // An end in silence moves back to the speech before it, and a start in silence forward to the
    // speech after it, when that is at most this far and inside the segment.
    double max_trim_s = 1.5;
    // An end at most this far past the onset of speech that its segment does not start in is
    // late (that speech is the next segment's) and is taken as in the silence before the onset.
    double onset_slack_s = 0.3;
};

// True for a segment snapping leaves alone: no text to Python's str.strip(), or no duration.
bool is_blank_segment(const Segment& segment);

// The runs of `activity`, in order. Throws std::invalid_argument for hop_s <= 0 or a negative gap.
std::vector<SpeechRun> speech_runs(const SpeechActivity& activity, double max_gap_s);

// Snaps the times of `segments` (in order, from one file) to `runs`. `previous_end_s` is the end
// of the segment before segments[0] as already reported; `next_start_s` the start of the one after
// the last (infinity when not known yet). A start moves back into speech only as far as the
// previous segment's end, and an end forward only up to the next segment's start, so segments
// never overlap more than the model made them. Blank segments (no text) keep their times; word
// times are kept inside their segment's new times. Text and tokens never change. Returns the end of
// the last segment with text (previous_end_s when there is none), the next call's previous_end_s.
double snap_segment_times(std::span<Segment> segments, std::span<const SpeechRun> runs,
                          const SpeechSnapOptions& options, double previous_end_s = 0.0,
                          double next_start_s = std::numeric_limits<double>::infinity());

}  // namespace earshot::decoding
