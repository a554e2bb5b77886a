// Changing the CPU backend's Batch between calls: expanding one window to many rows and
// reordering rows (beam search) keep every row's caches consistent.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <string>

#include "earshot/engine/backend/cpu_whisper.h"
#include "earshot/engine/decoding/decoder_model.h"
#include "earshot/engine/model/random_checkpoint.h"
#include "earshot/engine/model/whisper_checkpoint.h"
#include "earshot/engine/runtime/decoder_models.h"
#include "temp_dir.h"

namespace {

using earshot::backend::CpuWhisper;
using earshot::backend::HostTensor;

class CpuBatch : public ::testing::Test {
protected:
    void SetUp() override {
        earshot::model::RandomCheckpointOptions options{.d = 64,
                                                        .heads = 4,
                                                        .enc_layers = 1,
                                                        .dec_layers = 2,
                                                        .vocab = 300,
                                                        .frames = 64,
                                                        .max_tokens = 16,
                                                        .dtype = "f32"};
        earshot::model::write_random_checkpoint(temp_.path() / "model", options);
        checkpoint_ = std::make_unique<earshot::model::WhisperCheckpoint>(
            earshot::model::load_whisper_checkpoint(temp_.path() / "model"));
        std::vector<float> mel(80 * 64);
        for (size_t i = 0; i < mel.size(); ++i) mel[i] = float(i % 64) / 32.0F - 1.0F;
        mel_ = HostTensor::f32({1, 80, 64}, mel);
    }

    static std::vector<float> row(const HostTensor& logits, int64_t r) {
        const int64_t v = logits.dim(1);
        auto values = logits.f32_values();
        return {values.begin() + r * v, values.begin() + (r + 1) * v};
    }

    // Equal up to float rounding: GEMMs block differently for different row counts.
    static void expect_close(const std::vector<float>& got, const std::vector<float>& want,
                             const std::string& what) {
        ASSERT_EQ(got.size(), want.size()) << what;
        float scale = 0.0F;
        for (float w : want) scale = std::max(scale, std::fabs(w));
        for (size_t i = 0; i < got.size(); ++i) {
            ASSERT_NEAR(got[i], want[i], 1e-5F * scale) << what << " at " << i;
        }
    }

    earshot::test::TempDir temp_{"earshot-cpu-batch"};
    std::unique_ptr<earshot::model::WhisperCheckpoint> checkpoint_;
    HostTensor mel_;
};

TEST_F(CpuBatch, ExpandedRowsEqualTheSingleRow) {
    CpuWhisper one(*checkpoint_);
    one.listen(mel_);
    const auto single = row(one.prefill(HostTensor::i32({1, 3}, {5, 6, 7})), 0);

    CpuWhisper many(*checkpoint_);
    many.listen(mel_);
    many.expand_batch(3);
    EXPECT_EQ(many.batch(), 3);
    const HostTensor logits = many.prefill(HostTensor::i32({3, 3}, {5, 6, 7, 5, 6, 7, 5, 6, 7}));
    for (int64_t r = 0; r < 3; ++r)
        expect_close(row(logits, r), single, "row " + std::to_string(r));
}

TEST_F(CpuBatch, ReorderMovesEachRowsCache) {
    // Two rows with different histories, then swapped: the next step must follow the swap.
    CpuWhisper swapped(*checkpoint_);
    swapped.listen(mel_);
    swapped.expand_batch(2);
    swapped.prefill(HostTensor::i32({2, 2}, {10, 11, 20, 21}));
    const std::vector<int64_t> order{1, 0};
    swapped.reorder_batch(order);
    const HostTensor after = swapped.step(HostTensor::i32({2, 1}, {30, 30}), 2);

    CpuWhisper direct(*checkpoint_);
    direct.listen(mel_);
    direct.expand_batch(2);
    direct.prefill(HostTensor::i32({2, 2}, {20, 21, 10, 11}));
    const HostTensor want = direct.step(HostTensor::i32({2, 1}, {30, 30}), 2);
    expect_close(row(after, 0), row(want, 0), "row 0");
    expect_close(row(after, 1), row(want, 1), "row 1");
    EXPECT_NE(row(after, 0), row(after, 1));

    const std::vector<int64_t> bad{0, 5};
    EXPECT_THROW(swapped.reorder_batch(bad), std::out_of_range);
}

TEST_F(CpuBatch, DecoderModelListensWithOneRow) {
    auto model = earshot::runtime::make_cpu_decoder_model(*checkpoint_);
    EXPECT_EQ(model->vocab(), 300);
    EXPECT_EQ(model->frames(), 64);
    EXPECT_EQ(model->max_tokens(), 16);
    model->listen(mel_);
    model->expand(4);
    EXPECT_EQ(model->rows(), 4);
    model->listen(mel_);  // a new window starts again from one row
    EXPECT_EQ(model->rows(), 1);
    const HostTensor logits = model->prefill(HostTensor::i32({1, 1}, {1}));
    EXPECT_EQ(logits.shape(), (std::vector<int64_t>{1, 300}));
}

}  // namespace

namespace {

TEST_F(CpuBatch, ListeningToTheSameWindowAgainKeepsItsAudio) {
    auto model = earshot::runtime::make_cpu_decoder_model(*checkpoint_);
    model->listen(mel_);
    const HostTensor first = model->prefill(HostTensor::i32({1, 2}, {3, 4}));
    model->expand(3);
    model->step(HostTensor::i32({3, 1}, {5, 6, 7}), 2);
    model->listen(mel_);  // same window: one row again, same audio
    EXPECT_EQ(model->rows(), 1);
    const HostTensor again = model->prefill(HostTensor::i32({1, 2}, {3, 4}));
    expect_close(row(again, 0), row(first, 0), "same window");

    std::vector<float> other(80 * 64, 0.25F);
    model->listen(HostTensor::f32({1, 80, 64}, other));  // a different window is encoded
    const HostTensor changed = model->prefill(HostTensor::i32({1, 2}, {3, 4}));
    EXPECT_NE(row(changed, 0), row(first, 0));
}

}  // namespace
