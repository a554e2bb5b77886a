// StreamingTranscriber with LocalAgreement-2 on a model that "hears" words written into the mel:
// committed text never changes and ends equal to what was said, a word is committed by the second
// hypothesis that holds it whole, the window moves past finished segments and never exceeds the
// model's Frames, silence runs no decoder, a pause commits, a full window loses no word and
// repeats none; with short update intervals a word is committed within two of them after it ends
// (a sentence's last word once the VAD and the model's end timestamp agree on a pause), a word
// still sounding is never committed, and engine_time pacing follows the engine's speed.
#include "earshot/engine/decoding/streaming_transcriber.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <filesystem>
#include <limits>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "earshot/engine/decoding/continuation_decoder.h"
#include "earshot/engine/decoding/timed_words.h"
#include "earshot/engine/tokenizer/tokenizer.h"
#include "tokenizer_assets.h"

namespace earshot::test {
namespace {

using decoding::StreamingOptions;
using decoding::StreamingTranscriber;
using decoding::StreamUpdate;
using decoding::UpdateGate;

constexpr int64_t kMels = 80;
// Raw frame channels of the synthetic audio: 0 = word index + 1 while a word sounds, else 0;
// 1 = 1 where there is audio at all (the padding after it is 0).
constexpr int kWordChannel = 0;
constexpr int kAudioChannel = 1;

const std::vector<std::string> kWords = {" the", " cat",  " sat", " on",   " mat",  " dog",
                                         " ran", " home", " we",  " will", " see",  " you",
                                         " red", " blue", " big", " old",  " green"};
// What the model says for a word it has heard only part of: junk chosen by how much it heard.
const std::vector<std::string> kJunk = {" uh", " um", " er", " oh", " ah", " eh"};

struct Spoken {
    int word = 0;  // index into kWords
    int64_t start_frame = 0;
    int64_t end_frame = 0;
};

// A model without weights whose listen() reads the words from channel 0 of the window and whose
// decoder then "says" them, Whisper style: <|start|> words <|end|> per segment (a gap of 40
// frames or more splits segments); a word that runs into the end of the audio comes out as junk
// and its segment stays open.
class WordWindowModel final : public decoding::DecoderModel {
public:
    WordWindowModel(const tokenizer::Tokenizer& tok, int64_t frames) : tok_(tok), frames_(frames) {
        for (const auto& w : kWords) word_ids_.push_back(single(w));
        for (const auto& w : kJunk) junk_ids_.push_back(single(w));
    }
    int64_t vocab() const override { return tok_.n_vocab(); }
    int64_t max_tokens() const override { return 448; }
    int64_t mels() const override { return kMels; }
    int64_t frames() const override { return frames_; }

    void listen(const backend::HostTensor& mel) override {
        ++listens;
        if (listen_delay.count() > 0) std::this_thread::sleep_for(listen_delay);
        const auto v = mel.f32_values();  // [1, Mels, Frames]
        auto at = [&](int channel, int64_t f) {
            return v[static_cast<size_t>(channel * frames_ + f)];
        };
        int64_t content_end = 0;
        for (int64_t f = 0; f < frames_; ++f) {
            if (at(kAudioChannel, f) > 0.5F) content_end = f + 1;
        }
        std::vector<Spoken> runs;
        for (int64_t f = 0; f < content_end; ++f) {
            const int id = static_cast<int>(std::lround(at(kWordChannel, f))) - 1;
            if (id < 0) continue;
            if (!runs.empty() && runs.back().word == id && runs.back().end_frame == f) {
                runs.back().end_frame = f + 1;
            } else {
                runs.push_back({id, f, f + 1});
            }
        }
        const int32_t ts = tok_.specials().timestamp_begin;
        ideal_.clear();
        for (size_t i = 0; i < runs.size(); ++i) {
            const bool opens = i == 0 || runs[i].start_frame - runs[i - 1].end_frame >= 40;
            if (opens) ideal_.push_back(ts + static_cast<int32_t>(runs[i].start_frame / 2));
            const bool cut = runs[i].end_frame >= content_end;
            ideal_.push_back(cut ? junk_ids_[static_cast<size_t>(
                                                 (runs[i].end_frame - runs[i].start_frame) / 10) %
                                             junk_ids_.size()]
                                 : word_ids_[static_cast<size_t>(runs[i].word)]);
            if (!cut && runs[i].word == doubled_word) ideal_.push_back(ideal_.back());
            const bool closes = i + 1 == runs.size()
                                    ? content_end - runs[i].end_frame >= 20
                                    : runs[i + 1].start_frame - runs[i].end_frame >= 40;
            if (closes) ideal_.push_back(ts + static_cast<int32_t>((runs[i].end_frame + 1) / 2));
        }
        history_.clear();
        rows_ = 1;
    }
    void expand(int64_t rows) override { rows_ = rows; }
    int64_t rows() const override { return rows_; }
    backend::HostTensor prefill(const backend::HostTensor& tokens) override {
        const auto ids = tokens.i32_values();
        history_.assign(ids.begin(), ids.end());
        return logits();
    }
    backend::HostTensor step(const backend::HostTensor& tokens, int32_t pos) override {
        EXPECT_EQ(static_cast<size_t>(pos), history_.size());
        history_.push_back(tokens.i32_values()[0]);
        ++steps;
        return logits();
    }
    void reorder(std::span<const int64_t> /*source_rows*/) override {}

    int listens = 0;
    int steps = 0;
    std::chrono::milliseconds listen_delay{0};  // a slow engine
    int doubled_word = -1;                      // this word, heard whole, is said twice ("sat sat")

private:
    int32_t single(const std::string& text) const {
        const std::vector<int32_t> ids = tok_.encode(text);
        EXPECT_EQ(ids.size(), 1u) << text;
        return ids.at(0);
    }
    // The next token of the ideal sequence after as many text tokens (and trailing timestamps)
    // as the history holds after the SOT sequence.
    backend::HostTensor logits() const {
        const auto& sp = tok_.specials();
        std::vector<float> row(static_cast<size_t>(tok_.n_vocab()), 0.0F);
        const auto sot = std::find(history_.rbegin(), history_.rend(), sp.sot);
        if (sot == history_.rend()) {
            row[static_cast<size_t>(sp.eot)] = 10.0F;
            return backend::HostTensor::f32({1, tok_.n_vocab()}, std::move(row));
        }
        size_t begin = static_cast<size_t>(history_.rend() - sot);  // after SOT
        while (begin < history_.size() &&
               (history_[begin] == sp.transcribe ||
                (history_[begin] >= sp.first_language &&
                 history_[begin] < sp.first_language + sp.num_languages))) {
            ++begin;
        }
        size_t texts = 0;
        size_t trailing = 0;
        for (size_t i = begin; i < history_.size(); ++i) {
            if (history_[i] >= sp.timestamp_begin) {
                ++trailing;
            } else {
                ++texts;
                trailing = 0;
            }
        }
        size_t j = 0;
        for (size_t seen = 0; j < ideal_.size() && seen < texts; ++j) {
            if (ideal_[j] < sp.timestamp_begin) ++seen;
        }
        for (size_t t = 0; t < trailing && j < ideal_.size() && ideal_[j] >= sp.timestamp_begin;
             ++t) {
            ++j;
        }
        const int32_t next = j < ideal_.size() ? ideal_[j] : sp.eot;
        row[static_cast<size_t>(next)] = 10.0F;
        return backend::HostTensor::f32({1, tok_.n_vocab()}, std::move(row));
    }

    const tokenizer::Tokenizer& tok_;
    int64_t frames_;
    std::vector<int32_t> word_ids_;
    std::vector<int32_t> junk_ids_;
    std::vector<int32_t> ideal_;
    std::vector<int32_t> history_;
    int64_t rows_ = 1;
};

// The identity "normalization": [N][Mels] -> [Mels, Frames], zero padded.
void transpose_window(std::span<const float> raw, int64_t frames, std::span<float> out) {
    std::fill(out.begin(), out.end(), 0.0F);
    const auto n = static_cast<int64_t>(raw.size()) / kMels;
    for (int64_t f = 0; f < n; ++f) {
        for (int64_t m = 0; m < kMels; ++m) {
            out[static_cast<size_t>(m * frames + f)] = raw[static_cast<size_t>(f * kMels + m)];
        }
    }
}

// A script of sentences: word durations 10 frames per character, `word_gap` frames between
// words, `sentence_gap` between sentences; `lead` frames of silence first.
struct Script {
    std::vector<Spoken> words;
    int64_t end_frame = 0;
};
Script make_script(const std::vector<std::vector<int>>& sentences, int64_t word_gap,
                   int64_t sentence_gap, int64_t lead) {
    Script s;
    int64_t f = lead;
    for (size_t k = 0; k < sentences.size(); ++k) {
        if (k > 0) f += sentence_gap - word_gap;
        for (int w : sentences[k]) {
            const auto chars = static_cast<int64_t>(kWords[static_cast<size_t>(w)].size() - 1);
            s.words.push_back({w, f, f + 10 * chars});
            f += 10 * chars + word_gap;
        }
    }
    s.end_frame = f;
    return s;
}

std::string script_text(const Script& s) {
    std::string text;
    for (const auto& w : s.words) text += kWords[static_cast<size_t>(w.word)];
    return text;
}

struct FedStream {
    std::vector<StreamUpdate> updates;
    std::string transcript;
    double max_window_s = 0.0;
};

// Feeds the script frame by frame (plus `tail` frames of silence), updating when due, then
// finish().
FedStream feed(StreamingTranscriber& st, const Script& script, int64_t tail) {
    FedStream run;
    std::vector<float> frame(kMels, 0.0F);
    size_t next_word = 0;
    for (int64_t f = 0; f < script.end_frame + tail; ++f) {
        while (next_word < script.words.size() && script.words[next_word].end_frame <= f) {
            ++next_word;
        }
        const bool in_word =
            next_word < script.words.size() && script.words[next_word].start_frame <= f;
        frame[kWordChannel] = in_word ? static_cast<float>(script.words[next_word].word + 1) : 0.0F;
        frame[kAudioChannel] = 1.0F;
        if (st.room_frames() == 0) ADD_FAILURE() << "no room at frame " << f;
        st.push_frame(frame, in_word);
        if (st.update_due()) {
            run.updates.push_back(st.update());
            const auto& u = run.updates.back();
            run.max_window_s = std::max(run.max_window_s, u.audio_end_s - u.window_start_s);
        }
    }
    run.updates.push_back(st.finish());
    for (const auto& u : run.updates) run.transcript += u.committed_text;
    EXPECT_EQ(run.transcript, st.transcript());
    return run;
}

class StreamingTranscriberTest : public ::testing::Test {
protected:
    void SetUp() override {
        if (!std::filesystem::exists(multilingual_tiktoken())) {
            GTEST_SKIP() << "shared whisper assets are absent (" << multilingual_tiktoken()
                         << "); the tokenizer is needed for word tokens";
        }
        tok_.emplace(tokenizer::Tokenizer::load(multilingual_tiktoken(), 51865));
        options_.decoding.language = "en";
        // Updates at fixed audio times, whatever the machine's speed (engine_time pacing is
        // tested on its own).
        options_.pacing = decoding::UpdatePacing::fixed;
    }
    std::optional<tokenizer::Tokenizer> tok_;
    StreamingOptions options_;
};

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

TEST(TimedWords, SplitsSegmentsAndSharesTimesByCharacters) {
    const int32_t ts = 1000;
    const std::vector<std::string> pieces = {"", " hello", ",", " big", " world", " again"};
    decoding::WordVocabulary vocabulary{
        .timestamp_begin = ts, .eot = 900, .decode_text = [&](std::span<const int32_t> ids) {
            std::string text;
            for (int32_t id : ids) text += pieces.at(static_cast<size_t>(id));
            return text;
        }};
    // <|0.00|> hello , world <|1.00|><|1.20|> big again (open, ends at 2.0 s)
    const std::vector<int32_t> tokens = {ts, 1, 2, 4, ts + 50, ts + 60, 3, 5};
    const auto words = decoding::split_timed_words(tokens, 0, vocabulary, 2.0);
    ASSERT_EQ(words.size(), 4u);
    EXPECT_EQ(words[0].text, " hello,");
    EXPECT_EQ(words[1].text, " world");
    EXPECT_TRUE(words[1].closes_segment);
    EXPECT_EQ(words[1].closing_index, 4u);
    EXPECT_NEAR(words[0].start_s, 0.0, 1e-12);
    EXPECT_NEAR(words[0].end_s, 6.0 / 11.0, 1e-12);  // 6 of 11 visible characters of [0, 1]
    EXPECT_NEAR(words[1].end_s, 1.0, 1e-12);
    EXPECT_NEAR(words[2].start_s, 1.2, 1e-12);
    EXPECT_NEAR(words[3].end_s, 2.0, 1e-12);
    // From index 6 on: "big again"; the context gives the open segment's start.
    const auto tail = decoding::split_timed_words(tokens, 6, vocabulary, 2.0);
    ASSERT_EQ(tail.size(), 2u);
    EXPECT_EQ(tail[0].text, " big");
    EXPECT_NEAR(tail[0].start_s, 1.2, 1e-12);
    EXPECT_EQ(decoding::comparable_word(" Hello,"), "hello");
}

TEST(LocalAgreementPolicy, CommitsTheCommonPrefixOfTwoHypotheses) {
    auto words = [](std::vector<std::string> texts) {
        std::vector<decoding::TimedWord> out;
        for (auto& t : texts) out.push_back({.text = t});
        return out;
    };
    decoding::LocalAgreement agreement;
    EXPECT_EQ(agreement.agree(words({" the", " cat"})), 0u);
    EXPECT_EQ(agreement.agree(words({" The", " cat,", " sat"})), 2u);  // case and punctuation
    EXPECT_EQ(agreement.previous(), std::vector<std::string>{"sat"});
    EXPECT_EQ(agreement.agree(words({" sad", " on"})), 0u);
    EXPECT_EQ(agreement.agree(words({" sad", " on", " the"})), 2u);
    agreement.reset();
    EXPECT_EQ(agreement.agree(words({" the"})), 0u);
}

}  // namespace
}  // namespace earshot::test
