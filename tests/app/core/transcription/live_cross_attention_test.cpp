// The live cross-attention map: the embedded micro model hears two held-out sentences through a
// streaming transcriber paced by the stream's clock, with the map asked for. Every update that
// aligned its words carries the map of its own alignment prefill: its weights equal the
// cross-attention a separate model computes for the same window and tokens (the decoder's
// probabilities, each row summing to 1 over the audio positions), its map is alignment_map of
// them, and no update listened to its window twice (the map costs no encoder run). A chosen head
// gives that head's rows of the same prefill.
#include "earshot/engine/decoding/live_cross_attention.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include "earshot/audio/log_mel.h"
#include "earshot/audio/mel_frame_queue.h"
#include "earshot/audio/mel_front_end.h"
#include "earshot/core/loaded_model.h"
#include "earshot/core/transcription_setup.h"
#include "earshot/engine/decoding/streaming_transcriber.h"
#include "micro_model.h"
#include "spoken_words.h"

namespace earshot::test {
namespace {

namespace fs = std::filesystem;
using backend::HostTensor;

// Counts the listens that ran the encoder: a window other than the one heard last.
class CountingModel final : public decoding::DecoderModel {
public:
    explicit CountingModel(decoding::DecoderModel& inner) : inner_(inner) {}
    int64_t vocab() const override { return inner_.vocab(); }
    int64_t max_tokens() const override { return inner_.max_tokens(); }
    int64_t mels() const override { return inner_.mels(); }
    int64_t frames() const override { return inner_.frames(); }
    void listen(const HostTensor& mel) override {
        const auto v = mel.f32_values();
        if (!std::equal(v.begin(), v.end(), last_.begin(), last_.end())) {
            ++encoder_runs;
            last_.assign(v.begin(), v.end());
        }
        inner_.listen(mel);
    }
    void expand(int64_t rows) override { inner_.expand(rows); }
    int64_t rows() const override { return inner_.rows(); }
    HostTensor prefill(const HostTensor& tokens) override { return inner_.prefill(tokens); }
    HostTensor prefill_keeping_cross_attention(const HostTensor& tokens,
                                               backend::CrossAttentionRequest& request) override {
        return inner_.prefill_keeping_cross_attention(tokens, request);
    }
    bool keeps_cross_attention() const override { return inner_.keeps_cross_attention(); }
    HostTensor step(const HostTensor& tokens, int32_t pos) override {
        return inner_.step(tokens, pos);
    }
    void reorder(std::span<const int64_t> source_rows) override { inner_.reorder(source_rows); }
    int64_t encoder_runs = 0;

private:
    decoding::DecoderModel& inner_;
    std::vector<float> last_;
};

struct PacedRun {
    std::vector<decoding::StreamUpdate> updates;
    int64_t decoded = 0;
    int64_t encoder_runs = 0;
};

PacedRun run_paced(app::LoadedModel& loaded, const std::vector<float>& samples,
                   const std::shared_ptr<decoding::LiveCrossAttentionChoice>& choice) {
    CountingModel model(*loaded.model);
    decoding::StreamingOptions options;
    options.decoding.language = "en";
    app::apply_model_defaults(loaded, options);
    options.pacing = decoding::UpdatePacing::fixed;
    options.update_frames = 50;
    options.cross_attention = choice;
    const int mels = static_cast<int>(loaded.model->mels());
    audio::MelFrameQueue queue(mels, samples.size() / 160 + 16);
    audio::MelFrontEnd front(mels, queue);
    front.push(samples);
    front.finish();
    decoding::StreamingTranscriber transcriber(
        model, loaded.tokenizer,
        [mels](std::span<const float> raw, int64_t window_frames, std::span<float> out) {
            const audio::LogMel window = audio::normalize_window(raw, mels, window_frames);
            std::copy(window.values.begin(), window.values.end(), out.begin());
        },
        options);
    PacedRun run;
    std::vector<float> frame(static_cast<size_t>(mels));
    audio::MelFrameInfo info;
    while (transcriber.room_frames() > 0 && queue.pop(frame, info)) {
        transcriber.push_frame(frame, info.speech);
        if (transcriber.update_due()) run.updates.push_back(transcriber.update());
    }
    run.updates.push_back(transcriber.finish());
    for (const auto& u : run.updates) {
        if (u.gate == decoding::UpdateGate::decoded || u.gate == decoding::UpdateGate::no_speech) {
            ++run.decoded;
        }
    }
    run.encoder_runs = model.encoder_runs;
    return run;
}

// The cross-attention a separate model (another load of the same checkpoint) computes for the
// map's window and tokens.
HostTensor recomputed(app::LoadedModel& separate, const decoding::LiveCrossAttention& live) {
    decoding::DecoderModel& model = *separate.model;
    model.listen(HostTensor::f32({1, live.mels, live.frames}, live.mel));
    const auto& sp = separate.tokenizer.specials();
    std::vector<int32_t> tokens{sp.sot, sp.notimestamps};
    EXPECT_EQ(live.sot_length, 2U);  // the micro model speaks English only
    tokens.insert(tokens.end(), live.text_tokens.begin(), live.text_tokens.end());
    tokens.push_back(sp.eot);
    backend::CrossAttentionRequest request{live.heads, {}};
    model.prefill_keeping_cross_attention(
        HostTensor::i32({1, static_cast<int64_t>(tokens.size())}, tokens), request);
    return std::move(request.weights);
}

double max_difference(std::span<const float> a, std::span<const float> b) {
    EXPECT_EQ(a.size(), b.size());
    double worst = 0.0;
    for (size_t i = 0; i < std::min(a.size(), b.size()); ++i) {
        worst = std::max(worst, static_cast<double>(std::fabs(a[i] - b[i])));
    }
    return worst;
}

class LiveCrossAttentionMap : public ::testing::Test {
protected:
    static void SetUpTestSuite() {
        if (!fs::exists(micro_model_dir() / "model.safetensors")) return;
        SpeechOptions speech;
        speech.sentence_gap_s = 1.0;
        auto audio = speak_sentences(micro_heldout_words(2), speech, &why_);
        if (!audio) return;
        samples_ = new std::vector<float>(std::move(audio->samples));
        loaded_ = app::load_model(micro_model_dir(), {}, backend::BackendChoice::cpu).release();
        separate_ = app::load_model(micro_model_dir(), {}, backend::BackendChoice::cpu).release();
    }
    static void TearDownTestSuite() {
        delete loaded_;
        loaded_ = nullptr;
        delete separate_;
        separate_ = nullptr;
        delete samples_;
        samples_ = nullptr;
    }
    void SetUp() override {
        if (!fs::exists(micro_model_dir() / "model.safetensors")) {
            GTEST_SKIP() << "no micro model at " << micro_model_dir();
        }
        ASSERT_NE(samples_, nullptr) << why_;  // espeak-ng is a required package
        ASSERT_NE(loaded_, nullptr);
    }
    static inline app::LoadedModel* loaded_ = nullptr;
    static inline app::LoadedModel* separate_ = nullptr;  // recomputes the maps
    static inline std::vector<float>* samples_ = nullptr;
    static inline std::string why_;
};

TEST_F(LiveCrossAttentionMap, EachUpdatesMapIsItsOwnPrefillsCrossAttention) {
    auto choice = std::make_shared<decoding::LiveCrossAttentionChoice>();
    choice->keep = true;
    const PacedRun run = run_paced(*loaded_, *samples_, choice);
    // No update ran the encoder twice: one encoder run per decoded update at most.
    EXPECT_LE(run.encoder_runs, run.decoded);
    int maps = 0;
    for (const decoding::StreamUpdate& u : run.updates) {
        if (!u.cross_attention) continue;
        const decoding::LiveCrossAttention& live = *u.cross_attention;
        ++maps;
        EXPECT_TRUE(live.alignment_heads);
        EXPECT_EQ(static_cast<int64_t>(live.heads.size()), live.weights.dim(1));
        const auto n_text = static_cast<int64_t>(live.text_tokens.size());
        ASSERT_GT(n_text, 0);
        EXPECT_EQ(live.map.rows, n_text + 1);
        EXPECT_EQ(live.row_tokens.size(), static_cast<size_t>(n_text + 1));
        EXPECT_EQ(live.map.positions, live.window_frames / 2);
        EXPECT_DOUBLE_EQ(live.window_start_s, u.window_start_s);
        // The rows are the decoder's probabilities: each sums to 1 over the audio positions.
        const int64_t audio = live.weights.dim(3);
        const auto w = live.weights.f32_values();
        for (int64_t row = 0; row < live.weights.dim(1) * live.weights.dim(2); ++row) {
            double sum = 0.0;
            for (int64_t a = 0; a < audio; ++a)
                sum += static_cast<double>(w[static_cast<size_t>(row * audio + a)]);
            EXPECT_NEAR(sum, 1.0, 1e-4);
        }
        const HostTensor want = recomputed(*separate_, live);
        EXPECT_EQ(want.shape(), live.weights.shape());
        EXPECT_LE(max_difference(live.weights.f32_values(), want.f32_values()), 1e-6);
        const decoding::AlignmentMap map =
            decoding::alignment_map(want, live.sot_length, n_text, live.window_frames);
        EXPECT_LE(max_difference(live.map.matrix, map.matrix), 1e-4);
        EXPECT_EQ(live.map.jump_positions, map.jump_positions);
    }
    EXPECT_GE(maps, 3) << "updates with a map";
}

TEST_F(LiveCrossAttentionMap, AChosenHeadGivesThatHeadsRowsAndNoMapWhenNotAsked) {
    const PacedRun plain = run_paced(*loaded_, *samples_, nullptr);
    for (const auto& u : plain.updates) EXPECT_EQ(u.cross_attention, nullptr);

    auto choice = std::make_shared<decoding::LiveCrossAttentionChoice>();
    choice->keep = true;
    choice->layer = 0;  // the micro model's alignment heads are its last half of layers
    choice->head = 1;
    const PacedRun run = run_paced(*loaded_, *samples_, choice);
    EXPECT_LE(run.encoder_runs, run.decoded);
    int maps = 0;
    for (const decoding::StreamUpdate& u : run.updates) {
        if (!u.cross_attention) continue;
        const decoding::LiveCrossAttention& live = *u.cross_attention;
        ++maps;
        EXPECT_FALSE(live.alignment_heads);
        ASSERT_EQ(live.heads.size(), 1U);
        EXPECT_EQ(live.heads[0], (backend::AttentionHead{0, 1}));
        const HostTensor want = recomputed(*separate_, live);
        EXPECT_LE(max_difference(live.weights.f32_values(), want.f32_values()), 1e-6);
    }
    EXPECT_GE(maps, 3);
    // The words are timed as without a map: the same committed text.
    std::string with_map;
    std::string without;
    for (const auto& u : run.updates) with_map += u.committed_text;
    for (const auto& u : plain.updates) without += u.committed_text;
    EXPECT_EQ(with_map, without);
    EXPECT_FALSE(with_map.empty());
}

}  // namespace
}  // namespace earshot::test
