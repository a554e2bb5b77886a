// StreamingTranscriber's timing: with short update intervals a word is committed within two of
// them after it ends (a sentence's last word once the VAD and the model's end timestamp agree on a
// pause), a word the decoder says twice is committed once, a word still sounding is never
// committed, and engine_time pacing follows the engine's speed.
#include <gtest/gtest.h>

#include <chrono>
#include <limits>
#include <string>
#include <vector>

#include "earshot/engine/decoding/streaming_transcriber.h"
#include "streaming_test_stream.h"

namespace earshot::test {
namespace {

// Short updates (0.1 s): each word is committed by the second update that heard it settled (a
// word in a sentence once the window holds settle_s after it, two intervals after that at most),
// a sentence's last word at the quick pause (VAD silence 0.1 s, the model's end timestamp beside
// the VAD's end) within 0.3 s, and still every word once.
TEST_F(StreamingTranscriberTest, ShortUpdatesCommitWithinTwoIntervalsOfTheWordSettling) {
    WordWindowModel model(*tok_, 3000);
    options_.update_frames = 10;
    StreamingTranscriber st(model, *tok_, transpose_window, options_);
    const Script script = make_script({{0, 1, 2, 3, 0, 4}, {5, 6, 7}, {8, 9, 10, 11}}, 8, 60, 20);
    const FedStream run = feed(st, script, 150);
    EXPECT_EQ(run.transcript, script_text(script));

    std::vector<std::pair<decoding::StreamWord, const StreamUpdate*>> committed;
    for (const auto& u : run.updates) {
        for (const auto& w : u.committed_words) committed.emplace_back(w, &u);
    }
    ASSERT_EQ(committed.size(), script.words.size());
    for (size_t i = 0; i < committed.size(); ++i) {
        const StreamUpdate& update = *committed[i].second;
        const double end_s = static_cast<double>(script.words[i].end_frame) / 100.0;
        const bool last_of_sentence =
            i + 1 == committed.size() ||
            script.words[i + 1].start_frame - script.words[i].end_frame > 8;
        EXPECT_FALSE(update.final) << i;
        // Settling is judged on the word's end in the hypothesis, where its segment's
        // timestamps spread it: up to 0.2 s after the spoken end here.
        const double settled_s = end_s + 0.2 + options_.settle_s;
        EXPECT_LE(update.audio_end_s, (last_of_sentence ? end_s + 0.3 : settled_s + 0.2) + 1e-9)
            << i << committed[i].first.text;
        // Never before a second update had heard the word whole.
        int heard = 0;
        for (const auto& u : run.updates) {
            if (&u == &update) break;
            heard += u.audio_end_s > end_s ? 1 : 0;
        }
        if (!update.forced_commit) {
            EXPECT_GE(heard, 1) << i << committed[i].first.text;
        }
    }
}

// Updates faster than a word: two of them may hear the same cut-off start of a word (the model
// says the same junk for it), but a word that is still sounding is never committed.
// A decoder that says a word twice ("sat sat", as the micro model said "number number" and "milk
// milk" live): the second is not committed, its tokens stay in the prefix, and the transcript
// says each spoken word once. Before, the live transcript had "sat sat".
TEST_F(StreamingTranscriberTest, AWordSaidTwiceByTheDecoderIsCommittedOnce) {
    WordWindowModel model(*tok_, 3000);
    model.doubled_word = 2;  // " sat"
    options_.update_frames = 10;
    StreamingTranscriber st(model, *tok_, transpose_window, options_);
    const Script script = make_script({{0, 1, 2, 3, 0, 4}, {5, 6, 7}}, 8, 60, 20);
    const FedStream run = feed(st, script, 150);
    EXPECT_EQ(run.transcript, script_text(script));
    int repeated = 0;
    for (const auto& u : run.updates) repeated += u.repeated_words;
    EXPECT_GE(repeated, 1);
}

TEST_F(StreamingTranscriberTest, AWordStillSoundingIsNeverCommitted) {
    WordWindowModel model(*tok_, 3000);
    options_.update_frames = 5;
    StreamingTranscriber st(model, *tok_, transpose_window, options_);
    const Script script = make_script({{12, 13, 14, 15, 16}, {1, 5, 9}}, 8, 60, 20);
    const FedStream run = feed(st, script, 150);
    EXPECT_EQ(run.transcript, script_text(script));
    // The case arose: some update's tentative text ended in a junk word another one repeated.
    int repeated_junk = 0;
    std::string previous_last;
    for (const auto& u : run.updates) {
        const std::string last = u.tentative_words.empty() ? "" : u.tentative_words.back().text;
        const bool junk = std::find(kJunk.begin(), kJunk.end(), last) != kJunk.end();
        repeated_junk += junk && last == previous_last ? 1 : 0;
        previous_last = last;
    }
    EXPECT_GT(repeated_junk, 0) << "no two updates heard the same cut-off word: not tested";
}

TEST_F(StreamingTranscriberTest, EngineTimePacingFollowsTheEngine) {
    WordWindowModel model(*tok_, 3000);
    model.listen_delay = std::chrono::milliseconds(60);
    options_.pacing = decoding::UpdatePacing::engine_time;
    StreamingTranscriber st(model, *tok_, transpose_window, options_);
    EXPECT_EQ(st.update_frames(), options_.min_update_frames);  // nothing measured yet
    const Script script = make_script({{0, 1, 2}}, 8, 60, 20);
    const FedStream run = feed(st, script, 150);
    EXPECT_EQ(run.transcript, script_text(script));
    // Every decoded update took 60 ms or more: at 30% of real time, 0.2 s of audio between them.
    EXPECT_GE(st.update_frames(), 20);
    int64_t decoded = 0;
    for (size_t i = 1; i + 1 < run.updates.size(); ++i) {
        const bool after_decoded = run.updates[i - 1].gate == UpdateGate::decoded;
        decoded += after_decoded ? 1 : 0;
        if (after_decoded) {
            EXPECT_GE(run.updates[i].audio_end_s - run.updates[i - 1].audio_end_s, 0.2 - 1e-9);
        }
    }
    EXPECT_GT(decoded, 2);
}

TEST(UpdatePacingPolicy, IntervalFromTheEngineTime) {
    StreamingOptions options;  // engine_time, 0.1 .. 0.5 s, 30% of real time
    EXPECT_EQ(decoding::paced_update_frames(0.0, options), 10);
    EXPECT_EQ(decoding::paced_update_frames(20.0, options), 10);  // 67 ms
    EXPECT_EQ(decoding::paced_update_frames(45.0, options), 15);  // 150 ms
    EXPECT_EQ(decoding::paced_update_frames(46.0, options), 16);  // 153 ms, rounded up
    EXPECT_EQ(decoding::paced_update_frames(400.0, options), 50);
    EXPECT_EQ(decoding::paced_update_frames(std::numeric_limits<double>::infinity(), options), 50);
    options.min_update_frames = 80;  // above the longest: the longest
    EXPECT_EQ(decoding::paced_update_frames(0.0, options), 50);
    options.pacing = decoding::UpdatePacing::fixed;
    EXPECT_EQ(decoding::paced_update_frames(0.0, options), 50);
}

}  // namespace
}  // namespace earshot::test
