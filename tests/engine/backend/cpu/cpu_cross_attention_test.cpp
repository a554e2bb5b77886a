// Cross-attention weights a prefill keeps when asked (word alignment's input): the CPU backend
// against the double-precision reference on random checkpoints, batch rows included, and the
// logits unchanged by asking.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <optional>
#include <span>
#include <stdexcept>
#include <string>
#include <vector>

#include "backend_test_data.h"
#include "earshot/engine/backend/cpu_whisper.h"
#include "earshot/engine/backend/cross_attention.h"
#include "earshot/engine/backend/host_tensor.h"
#include "earshot/engine/checkpoint/weight_set.h"
#include "earshot/engine/decoding/decoder_model.h"
#include "earshot/engine/model/random_checkpoint.h"
#include "earshot/engine/model/whisper_checkpoint.h"
#include "earshot/engine/runtime/decoder_models.h"
#include "reference/whisper_reference.h"
#include "temp_dir.h"
#include "value_difference.h"

namespace ref = earshot::test::reference;
using earshot::backend::AttentionHead;
using earshot::backend::CpuWhisper;
using earshot::backend::CrossAttentionRequest;
using earshot::backend::HostTensor;
using earshot::model::WhisperCheckpoint;

namespace {

using namespace earshot::test::backend_data;

// Probabilities in [0, 1] against the reference's: f32 rounding of q, k and the softmax
// (the backend's logits meet the reference within 1e-5 relative, see cpu_backend_test).
constexpr double kWeightTolerance = 1e-5;

struct Fixture {
    earshot::test::TempDir dir{"earshot-cross-attention"};
    ref::Dims dims;
    std::optional<WhisperCheckpoint> checkpoint;

    explicit Fixture(int64_t frames) {
        earshot::model::RandomCheckpointOptions o{.mels = 80,
                                                  .d = 64,
                                                  .heads = 4,
                                                  .enc_layers = 1,
                                                  .dec_layers = 2,
                                                  .vocab = 300,
                                                  .frames = frames,
                                                  .max_tokens = 24,
                                                  .inner = 128,
                                                  .dtype = "f16",
                                                  .seed = 41};
        earshot::model::write_random_checkpoint(dir.path(), o);
        checkpoint.emplace(earshot::model::load_whisper_checkpoint(dir.path()));
        dims.mels = o.mels;
        dims.d = o.d;
        dims.heads = o.heads;
        dims.inner = o.inner;
        dims.encoder_layers = o.enc_layers;
        dims.decoder_layers = o.dec_layers;
        dims.vocab = o.vocab;
        dims.frames = o.frames;
        dims.max_tokens = o.max_tokens;
    }

    ref::WhisperReference reference() const {
        ref::Weights weights;
        for (const ref::Parameter& p : ref::parameter_list(dims)) {
            const earshot::checkpoint::Weight* w = checkpoint->weights.find(p.path);
            if (w == nullptr) throw std::runtime_error("checkpoint lacks " + p.path);
            std::vector<float> values(w->element_count());
            earshot::checkpoint::convert_to_f32(*w, values);
            weights[p.path] = std::vector<double>(values.begin(), values.end());
        }
        return ref::WhisperReference(dims, std::move(weights));
    }
};

ref::Array3 to_array(const HostTensor& t) {
    ref::Array3 a(t.dim(0), t.dim(1), t.dim(2));
    const std::span<const float> v = t.f32_values();
    std::copy(v.begin(), v.end(), a.values.begin());
    return a;
}

// The largest |got - want| between the backend's weights [B, n, S, A] and the reference's per
// (row, layer) [Heads, S, A], and the smallest row sum seen (each row must sum to 1).
struct Comparison {
    double max_error = 0.0;
    double min_row_sum = 2.0;
    double max_row_sum = 0.0;
};

Comparison compare(const HostTensor& got, std::span<const AttentionHead> heads,
                   const std::vector<ref::Array3>& want, int64_t layers) {
    Comparison result;
    const int64_t rows = got.dim(0);
    const int64_t n = got.dim(1);
    const int64_t s_len = got.dim(2);
    const int64_t a = got.dim(3);
    const std::span<const float> values = got.f32_values();
    for (int64_t b = 0; b < rows; ++b) {
        for (int64_t i = 0; i < n; ++i) {
            const AttentionHead& head = heads[static_cast<size_t>(i)];
            const ref::Array3& layer = want.at(static_cast<size_t>(b * layers + head.layer));
            for (int64_t s = 0; s < s_len; ++s) {
                double sum = 0.0;
                for (int64_t t = 0; t < a; ++t) {
                    const double g = values[static_cast<size_t>(((b * n + i) * s_len + s) * a + t)];
                    sum += g;
                    result.max_error =
                        std::max(result.max_error,
                                 earshot::test::value_difference(g, layer.at(head.head, s, t)));
                }
                result.min_row_sum = std::min(result.min_row_sum, sum);
                result.max_row_sum = std::max(result.max_row_sum, sum);
            }
        }
    }
    return result;
}

TEST(CrossAttentionWeights, CpuPrefillKeepsTheReferenceProbabilitiesOfTheAskedHeads) {
    Fixture f(200);  // 100 audio positions
    CpuWhisper backend(f.checkpoint.value(), 2);
    const HostTensor mel = test_mel(2, f.dims.mels, f.dims.frames, 1);
    const HostTensor audio = backend.listen(mel);  // [2, A, D]
    const auto tokens = random_tokens(2, 9, f.dims.vocab, 5);
    const std::vector<AttentionHead> heads = {{1, 3}, {0, 1}, {1, 0}};
    CrossAttentionRequest request{heads, {}};
    const HostTensor logits = backend.prefill(token_tensor(tokens, 0, 9), &request);
    ASSERT_EQ(request.weights.shape(), (std::vector<int64_t>{2, 3, 9, 100}));

    std::vector<ref::Array3> want;
    f.reference().decode(tokens, to_array(audio), &want);
    const Comparison c = compare(request.weights, heads, want, f.dims.decoder_layers);
    EXPECT_LT(c.max_error, kWeightTolerance);
    EXPECT_NEAR(c.min_row_sum, 1.0, 1e-5);
    EXPECT_NEAR(c.max_row_sum, 1.0, 1e-5);

    // A head of the wrong layer would not match: the comparison can fail.
    const std::vector<AttentionHead> swapped = {{0, 3}, {0, 1}, {1, 0}};
    EXPECT_GT(compare(request.weights, swapped, want, f.dims.decoder_layers).max_error, 1e-3);

    // Asking changes nothing else: the same logits as a plain prefill.
    backend.listen(mel);
    const HostTensor plain = backend.prefill(token_tensor(tokens, 0, 9));
    ASSERT_EQ(plain.shape(), logits.shape());
    for (int64_t i = 0; i < plain.numel(); ++i) {
        ASSERT_EQ(plain.f32_values()[static_cast<size_t>(i)],
                  logits.f32_values()[static_cast<size_t>(i)]);
    }
}

TEST(CrossAttentionWeights, CpuWeightsOverAFullWindowFollowTheSharedAudioOfExpandedRows) {
    Fixture f(3000);  // the real window: 1500 audio positions
    CpuWhisper backend(f.checkpoint.value(), 1);
    const HostTensor mel = test_mel(1, f.dims.mels, f.dims.frames, 2);
    const HostTensor audio = backend.listen(mel);
    backend.expand_batch(2);  // the audio caches stay one shared row
    const auto tokens = random_tokens(2, 4, f.dims.vocab, 8);
    const std::vector<AttentionHead> heads = {{0, 2}, {1, 1}};
    CrossAttentionRequest request{heads, {}};
    backend.prefill(token_tensor(tokens, 0, 4), &request);
    ASSERT_EQ(request.weights.shape(), (std::vector<int64_t>{2, 2, 4, 1500}));

    ref::Array3 both(2, audio.dim(1), audio.dim(2));
    const auto a = audio.f32_values();
    std::copy(a.begin(), a.end(), both.values.begin());
    std::copy(a.begin(), a.end(), both.values.begin() + static_cast<std::ptrdiff_t>(a.size()));
    std::vector<ref::Array3> want;
    f.reference().decode(tokens, both, &want);
    EXPECT_LT(compare(request.weights, heads, want, f.dims.decoder_layers).max_error,
              kWeightTolerance);
}

TEST(CrossAttentionWeights, AHeadTheModelLacksIsRefused) {
    Fixture f(200);
    CpuWhisper backend(f.checkpoint.value(), 1);
    backend.listen(test_mel(1, f.dims.mels, f.dims.frames, 0));
    const HostTensor tokens = token_tensor(random_tokens(1, 3, f.dims.vocab, 1), 0, 3);
    const std::vector<AttentionHead> no_layer = {{2, 0}};
    CrossAttentionRequest request{no_layer, {}};
    EXPECT_THROW(backend.prefill(tokens, &request), std::out_of_range);
    const std::vector<AttentionHead> no_head = {{1, 4}};
    request.heads = no_head;
    EXPECT_THROW(backend.prefill(tokens, &request), std::out_of_range);
}

TEST(CrossAttentionWeights, TheCpuDecoderModelKeepsThemAndSaysSo) {
    Fixture f(200);
    auto model = earshot::runtime::make_cpu_decoder_model(f.checkpoint.value());
    EXPECT_TRUE(model->keeps_cross_attention());
    model->listen(test_mel(1, f.dims.mels, f.dims.frames, 0));
    const std::vector<AttentionHead> heads = {{1, 2}};
    CrossAttentionRequest request{heads, {}};
    model->prefill_keeping_cross_attention(token_tensor(random_tokens(1, 5, f.dims.vocab, 3), 0, 5),
                                           request);
    EXPECT_EQ(request.weights.shape(), (std::vector<int64_t>{1, 1, 5, 100}));
}

}  // namespace
