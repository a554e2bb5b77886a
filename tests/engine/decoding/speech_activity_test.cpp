// Segment times snapped to the speech in the audio: runs of loud hops, and each rule of the
// snapping (an edge in silence, an edge inside speech, the bounds, the neighbours, blank segments,
// words), on hand-made activity where the right answer is known.
#include "earshot/engine/decoding/speech_activity.h"

#include <gtest/gtest.h>

#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

namespace earshot::decoding {
namespace {

// 10 ms hops, loud inside each [from_s, to_s).
SpeechActivity activity_of(double length_s, const std::vector<std::pair<double, double>>& loud) {
    SpeechActivity activity;
    activity.hop_s = 0.01;
    activity.loud.assign(static_cast<size_t>(length_s / activity.hop_s + 0.5), 0);
    for (const auto& [from_s, to_s] : loud) {
        for (auto i = static_cast<size_t>(from_s / 0.01 + 0.5);
             i < static_cast<size_t>(to_s / 0.01 + 0.5); ++i) {
            activity.loud[i] = 1;
        }
    }
    return activity;
}

Segment segment(double start_s, double end_s, std::string text = " words") {
    Segment s;
    s.start_s = start_s;
    s.end_s = end_s;
    s.text = std::move(text);
    return s;
}

TEST(SpeechRuns, GapsUpToTheBoundStayInsideOneRun) {
    // Two words 0.2 s apart, then a 0.5 s pause, then a word.
    const SpeechActivity activity = activity_of(5.0, {{1.0, 1.5}, {1.7, 2.2}, {2.7, 3.0}});
    const std::vector<SpeechRun> runs = speech_runs(activity, 0.3);
    ASSERT_EQ(runs.size(), 2u);
    EXPECT_NEAR(runs[0].start_s, 1.0, 1e-9);
    EXPECT_NEAR(runs[0].end_s, 2.2, 1e-9);
    EXPECT_NEAR(runs[1].start_s, 2.7, 1e-9);
    EXPECT_NEAR(runs[1].end_s, 3.0, 1e-9);
    // A bound below the 0.2 s gap splits the first run.
    EXPECT_EQ(speech_runs(activity, 0.1).size(), 3u);
    // Loud up to the last hop closes the run at the end of the audio.
    const std::vector<SpeechRun> to_end = speech_runs(activity_of(2.0, {{1.5, 2.0}}), 0.3);
    ASSERT_EQ(to_end.size(), 1u);
    EXPECT_NEAR(to_end[0].end_s, 2.0, 1e-9);
    EXPECT_TRUE(speech_runs(activity_of(2.0, {}), 0.3).empty());
    EXPECT_THROW(speech_runs(SpeechActivity{0.0, {}}, 0.3), std::invalid_argument);
    EXPECT_THROW(speech_runs(activity, -0.1), std::invalid_argument);
}

TEST(SnapSegmentTimes, AnEarlyEndInsideSpeechMovesToTheEndOfThatSpeech) {
    // The micro model's end timestamps run 0.2-0.4 s early.
    const auto runs = speech_runs(activity_of(10.0, {{1.0, 3.0}, {4.0, 6.0}}), 0.3);
    std::vector<Segment> segments = {segment(1.0, 2.7), segment(4.0, 5.62)};
    snap_segment_times(segments, runs, {});
    EXPECT_NEAR(segments[0].end_s, 3.0, 1e-9);
    EXPECT_NEAR(segments[1].end_s, 6.0, 1e-9);
    EXPECT_NEAR(segments[0].start_s, 1.0, 1e-9);
    EXPECT_EQ(segments[0].text, " words");
}

TEST(SnapSegmentTimes, ALateEndInSilenceMovesBackToTheSpeech) {
    const auto runs = speech_runs(activity_of(10.0, {{1.0, 3.0}, {5.0, 6.0}}), 0.3);
    std::vector<Segment> segments = {segment(1.0, 3.8)};
    snap_segment_times(segments, runs, {});
    EXPECT_NEAR(segments[0].end_s, 3.0, 1e-9);
    // Beyond the trim bound (1.5 s) it stays.
    segments = {segment(1.0, 4.8)};
    snap_segment_times(segments, runs, {});
    EXPECT_NEAR(segments[0].end_s, 4.8, 1e-9);
}

TEST(SnapSegmentTimes, StartsMoveToTheOnsetFromSilenceAndFromInsideSpeech) {
    const auto runs = speech_runs(activity_of(10.0, {{1.0, 3.0}, {5.0, 8.0}}), 0.3);
    // Early, in silence: forward to the onset. Late, inside speech: back to it.
    std::vector<Segment> segments = {segment(0.4, 3.0), segment(5.34, 8.0)};
    snap_segment_times(segments, runs, {});
    EXPECT_NEAR(segments[0].start_s, 1.0, 1e-9);
    EXPECT_NEAR(segments[1].start_s, 5.0, 1e-9);
    // Further inside speech than max_extend_s (1 s): the model's start stays.
    segments = {segment(6.2, 8.0)};
    snap_segment_times(segments, runs, {});
    EXPECT_NEAR(segments[0].start_s, 6.2, 1e-9);
}

TEST(SnapSegmentTimes, EdgesInsideOneStretchOfSpeechStayBetweenTheNeighbours) {
    // One run of continuous speech split by the model in two segments: the first's end must not
    // run into the second, nor the second's start back into the first.
    const auto runs = speech_runs(activity_of(10.0, {{1.0, 5.0}}), 0.3);
    std::vector<Segment> segments = {segment(1.0, 2.9), segment(3.0, 4.8)};
    snap_segment_times(segments, runs, {});
    EXPECT_NEAR(segments[0].end_s, 2.9, 1e-9);
    EXPECT_NEAR(segments[1].start_s, 3.0, 1e-9);
    EXPECT_NEAR(segments[1].end_s, 5.0, 1e-9);
    // The same across calls: what was reported before bounds the start; a known next start
    // bounds the end.
    std::vector<Segment> later = {segment(3.0, 4.8)};
    snap_segment_times(later, runs, {}, 2.9, 4.9);
    EXPECT_NEAR(later[0].start_s, 3.0, 1e-9);
    EXPECT_NEAR(later[0].end_s, 4.8, 1e-9);
}

TEST(SnapSegmentTimes, AnEndJustPastTheNextSpeechOnsetIsLate) {
    // The model ended the first sentence 0.2 s into the second one's sound, and started the
    // second there: the end goes back to the first sentence's sound, the start to its onset.
    const auto runs = speech_runs(activity_of(10.0, {{1.0, 3.0}, {4.0, 6.0}}), 0.3);
    std::vector<Segment> segments = {segment(1.0, 4.2), segment(4.2, 6.0)};
    snap_segment_times(segments, runs, {});
    EXPECT_NEAR(segments[0].end_s, 3.0, 1e-9);
    EXPECT_NEAR(segments[1].start_s, 4.0, 1e-9);
    // Further past the onset than onset_slack_s (0.3 s), the segment may hold the second
    // sentence's first words: the end stays (it cannot extend into the next segment either).
    segments = {segment(1.0, 4.5), segment(4.6, 6.0)};
    snap_segment_times(segments, runs, {});
    EXPECT_NEAR(segments[0].end_s, 4.5, 1e-9);
    EXPECT_NEAR(segments[1].start_s, 4.6, 1e-9);
}

TEST(SnapSegmentTimes, BlankSegmentsWordsAndNoSpeechAtAll) {
    const auto runs = speech_runs(activity_of(10.0, {{1.0, 3.0}}), 0.3);
    std::vector<Segment> segments = {segment(0.5, 2.8), segment(3.5, 3.5, ""),
                                     segment(4.0, 4.5, " \xc2\xa0")};
    Word first;
    first.text = " hello";
    first.start_s = 0.5;
    first.end_s = 1.4;
    Word last;
    last.text = " there";
    last.start_s = 1.5;
    last.end_s = 2.8;
    segments[0].words = {first, last};
    const double end_s = snap_segment_times(segments, runs, {});
    EXPECT_NEAR(segments[0].start_s, 1.0, 1e-9);
    EXPECT_NEAR(segments[0].end_s, 3.0, 1e-9);
    EXPECT_NEAR(end_s, 3.0, 1e-9) << "the end of the last segment with text";
    // Words stay inside their segment.
    EXPECT_NEAR(segments[0].words[0].start_s, 1.0, 1e-9);
    EXPECT_NEAR(segments[0].words[0].end_s, 1.4, 1e-9);
    EXPECT_NEAR(segments[0].words[1].end_s, 2.8, 1e-9);
    // Blank segments (empty, or whitespace Python strips) keep their times.
    EXPECT_NEAR(segments[1].start_s, 3.5, 1e-9);
    EXPECT_NEAR(segments[2].start_s, 4.0, 1e-9);
    EXPECT_NEAR(segments[2].end_s, 4.5, 1e-9);
    // Audio with no speech found: nothing moves.
    std::vector<Segment> quiet = {segment(0.5, 2.8)};
    EXPECT_NEAR(snap_segment_times(quiet, {}, {}), 2.8, 1e-9);
    EXPECT_NEAR(quiet[0].start_s, 0.5, 1e-9);
}

}  // namespace
}  // namespace earshot::decoding
