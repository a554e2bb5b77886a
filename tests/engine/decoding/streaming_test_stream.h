// A stream for StreamingTranscriber's tests: WordWindowModel, a model without weights that
// "hears" words written into the mel and says them Whisper style, scripts of timed words fed frame
// by frame (feed), and the fixture with the tokenizer.
#pragma once

#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <filesystem>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "earshot/engine/decoding/continuation_decoder.h"
#include "earshot/engine/decoding/streaming_transcriber.h"
#include "earshot/engine/tokenizer/tokenizer.h"
#include "tokenizer_assets.h"

namespace earshot::test {

using decoding::StreamingOptions;
using decoding::StreamingTranscriber;
using decoding::StreamUpdate;
using decoding::UpdateGate;

constexpr int64_t kMels = 80;
// Raw frame channels of the synthetic audio: 0 = word index + 1 while a word sounds, else 0;
// 1 = 1 where there is audio at all (the padding after it is 0).
constexpr int kWordChannel = 0;
constexpr int kAudioChannel = 1;

inline const std::vector<std::string> kWords = {" the", " cat",  " sat", " on",   " mat",  " dog",
                                                " ran", " home", " we",  " will", " see",  " you",
                                                " red", " blue", " big", " old",  " green"};
// What the model says for a word it has heard only part of: junk chosen by how much it heard.
inline const std::vector<std::string> kJunk = {" uh", " um", " er", " oh", " ah", " eh"};

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
inline void transpose_window(std::span<const float> raw, int64_t frames, std::span<float> out) {
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
inline Script make_script(const std::vector<std::vector<int>>& sentences, int64_t word_gap,
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

inline std::string script_text(const Script& s) {
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
inline FedStream feed(StreamingTranscriber& st, const Script& script, int64_t tail) {
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

}  // namespace earshot::test
