// StreamingTranscriber with LocalAgreement-2 on a model that "hears" words written into the mel:
// committed text never changes and ends equal to what was said, a word is committed by the second
// hypothesis that holds it whole, words carry their tokens' probabilities, the window moves past
// finished segments and never exceeds the model's Frames, silence runs no decoder, a pause
// commits, a full window loses no word and repeats none.
#include "earshot/engine/decoding/streaming_transcriber.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "streaming_test_stream.h"

namespace earshot::test {
namespace {

TEST_F(StreamingTranscriberTest, CommitsEveryWordOnceOnTheSecondHypothesisThatHoldsIt) {
    WordWindowModel model(*tok_, 3000);
    StreamingTranscriber st(model, *tok_, transpose_window, options_);
    const Script script = make_script({{0, 1, 2, 3, 0, 4},
                                       {5, 6, 7},
                                       {8, 9, 10, 11, 3, 0, 12, 4},
                                       {13, 14, 15, 16},
                                       {1, 2, 3, 4}},
                                      8, 60, 20);
    const FedStream run = feed(st, script, 150);
    EXPECT_EQ(run.transcript, script_text(script));

    // Word by word: committed once, in order, with times near the truth, and (unless a pause or
    // the end forced it) by an update at least one update interval after the word ended.
    std::vector<std::pair<decoding::StreamWord, const StreamUpdate*>> committed;
    for (const auto& u : run.updates) {
        for (const auto& w : u.committed_words) committed.emplace_back(w, &u);
    }
    ASSERT_EQ(committed.size(), script.words.size());
    int agreed_commits = 0;
    for (size_t i = 0; i < committed.size(); ++i) {
        const auto& [word, update] = committed[i];
        const Spoken& truth = script.words[i];
        EXPECT_EQ(word.text, kWords[static_cast<size_t>(truth.word)]);
        EXPECT_NEAR(word.start_s, static_cast<double>(truth.start_frame) / 100.0, 0.25)
            << i << word.text;
        EXPECT_NEAR(word.end_s, static_cast<double>(truth.end_frame) / 100.0, 0.25)
            << i << word.text;
        if (!update->forced_commit) {
            ++agreed_commits;
            EXPECT_GE(update->audio_end_s,
                      static_cast<double>(truth.end_frame) / 100.0 + 0.5 - 1e-9)
                << word.text << " committed before a second hypothesis could hold it";
        }
    }
    // Words are agreed on once the window holds settle_s (0.3 s) after them, two 0.5 s updates
    // apart: a sentence's last words mostly wait for its pause (11 of 25 agreed here; 13 before
    // settling, when a word at the end of the audio could be agreed on).
    EXPECT_GT(agreed_commits, static_cast<int>(committed.size()) / 3);

    // The window moved past finished segments and never held more than the model's Frames.
    double max_start = 0.0;
    for (const auto& u : run.updates) max_start = std::max(max_start, u.window_start_s);
    EXPECT_GT(max_start, 5.0);
    EXPECT_LE(run.max_window_s, 30.0);
    EXPECT_TRUE(run.updates.back().final);
    EXPECT_TRUE(run.updates.back().tentative_text.empty());
    // Tentative text is shown before it is committed.
    bool saw_tentative = false;
    for (const auto& u : run.updates) saw_tentative = saw_tentative || !u.tentative_text.empty();
    EXPECT_TRUE(saw_tentative);
}

// Every word carries its tokens with how sure the decoder was: texts that join to the word, a
// probability (the fake model's logit 10 against 0 for every other token) and alternatives.
TEST_F(StreamingTranscriberTest, WordsCarryTheirTokensProbabilities) {
    WordWindowModel model(*tok_, 3000);
    StreamingTranscriber st(model, *tok_, transpose_window, options_);
    const Script script = make_script({{0, 1, 2, 3, 0, 4}, {5, 6, 7}}, 8, 60, 20);
    const FedStream run = feed(st, script, 150);
    EXPECT_EQ(run.transcript, script_text(script));
    // The winner's probability after the filters: e^10 / (e^10 + n), n the tokens left at 0.
    size_t words = 0;
    for (const auto& u : run.updates) {
        std::vector<decoding::StreamWord> all = u.committed_words;
        all.insert(all.end(), u.tentative_words.begin(), u.tentative_words.end());
        for (const decoding::StreamWord& word : all) {
            ++words;
            ASSERT_FALSE(word.tokens.empty()) << word.text;
            std::string joined;
            for (const decoding::StreamToken& token : word.tokens) {
                joined += token.text;
                // e^10 / Z for the said token, 1 / Z for every other one left by the filters
                // (Z = e^10 + their count, about 51000: 0.3 here).
                EXPECT_GT(token.probability, 0.25) << word.text;
                EXPECT_LE(token.probability, 1.0);
                ASSERT_EQ(token.alternatives.size(), decoding::kTokenAlternatives);
                for (const auto& [text, probability] : token.alternatives) {
                    EXPECT_NE(text, token.text);
                    EXPECT_NEAR(probability / token.probability, std::exp(-10.0), 1e-9) << text;
                }
            }
            EXPECT_EQ(joined, word.text);
        }
    }
    EXPECT_GE(words, script.words.size());
}

TEST_F(StreamingTranscriberTest, ShortWindowMovesAlongALongDictation) {
    WordWindowModel model(*tok_, 1000);  // a 10 s window
    StreamingTranscriber st(model, *tok_, transpose_window, options_);
    std::vector<std::vector<int>> sentences;
    for (int k = 0; k < 20; ++k)
        sentences.push_back({k % 17, (k + 3) % 17, (k + 7) % 17, (k + 11) % 17});
    const Script script = make_script(sentences, 8, 70, 10);
    const FedStream run = feed(st, script, 120);
    EXPECT_EQ(run.transcript, script_text(script));
    EXPECT_LE(run.max_window_s, 10.0 + 1e-9);
    EXPECT_GT(script.end_frame, 4000);
}

TEST_F(StreamingTranscriberTest, SilenceRunsNoDecoderAndWritesNothing) {
    WordWindowModel model(*tok_, 3000);
    StreamingTranscriber st(model, *tok_, transpose_window, options_);
    const Script nothing = make_script({}, 8, 60, 0);
    const FedStream run = feed(st, nothing, 6000);  // 60 s
    EXPECT_EQ(model.listens, 0);
    EXPECT_EQ(run.transcript, "");
    ASSERT_GE(run.updates.size(), 100u);
    for (const auto& u : run.updates) {
        EXPECT_TRUE(u.gate == UpdateGate::silence || u.gate == UpdateGate::empty)
            << decoding::to_string(u.gate);
        EXPECT_LE(u.audio_end_s - u.window_start_s, 0.5 + 0.3 + 1e-9);
    }
}

TEST_F(StreamingTranscriberTest, APauseCommitsTheTentativeTail) {
    WordWindowModel model(*tok_, 3000);
    StreamingTranscriber st(model, *tok_, transpose_window, options_);
    const Script script = make_script({{8, 9, 10, 11}}, 8, 60, 20);
    std::vector<float> frame(kMels, 0.0F);
    std::string before_finish;
    const FedStream run = [&] {
        // Same as feed(), but the transcript is read before finish().
        FedStream r;
        size_t next = 0;
        for (int64_t f = 0; f < script.end_frame + 150; ++f) {
            while (next < script.words.size() && script.words[next].end_frame <= f) ++next;
            const bool in_word = next < script.words.size() && script.words[next].start_frame <= f;
            frame[kWordChannel] = in_word ? static_cast<float>(script.words[next].word + 1) : 0.0F;
            frame[kAudioChannel] = 1.0F;
            st.push_frame(frame, in_word);
            if (st.update_due()) r.updates.push_back(st.update());
        }
        before_finish = st.transcript();
        r.updates.push_back(st.finish());
        return r;
    }();
    EXPECT_EQ(before_finish, script_text(script));
    EXPECT_TRUE(run.updates.back().committed_text.empty());
    // After the pause the window was dropped: the last updates heard no speech.
    EXPECT_EQ(run.updates[run.updates.size() - 2].gate, UpdateGate::silence);
}

TEST_F(StreamingTranscriberTest, AFullWindowCommitsAllButItsLastWordAndLosesNone) {
    WordWindowModel model(*tok_, 1000);
    StreamingTranscriber st(model, *tok_, transpose_window, options_);
    // 25 s of words with short gaps: one segment that never closes inside a 10 s window.
    std::vector<int> words;
    for (int k = 0; k < 60; ++k) words.push_back((k * 5) % 17);
    const Script script = make_script({words}, 8, 60, 10);
    options_.pause_commit_s = 1.0;
    const FedStream run = feed(st, script, 150);
    EXPECT_LE(run.max_window_s, 10.0 + 1e-9);
    // Every spoken word is in the transcript once, in order: a restarted window that hears the
    // end of a committed word again drops the repeat.
    EXPECT_EQ(run.transcript, script_text(script));
    int forced = 0;
    int repeated = 0;
    for (const auto& u : run.updates) {
        forced += u.forced_commit ? 1 : 0;
        repeated += u.repeated_words;
    }
    EXPECT_GT(forced, 0);
    EXPECT_GT(repeated, 0) << "no restart heard a committed word again: the case is not tested";
}

}  // namespace
}  // namespace earshot::test
