// The CPU backend against the double-precision reference on random checkpoints of several shapes:
// encode and decode values and argmax, KV-cache consistency, listen reuse, batching, and a
// sensitivity check showing the tolerance catches a 1e-3 change of one weight.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <optional>
#include <ostream>
#include <random>
#include <span>
#include <stdexcept>
#include <string>
#include <vector>

#include "backend_test_data.h"
#include "earshot/engine/backend/cpu_whisper.h"
#include "earshot/engine/backend/host_tensor.h"
#include "earshot/engine/checkpoint/weight_set.h"
#include "earshot/engine/model/random_checkpoint.h"
#include "earshot/engine/model/whisper_checkpoint.h"
#include "reference/whisper_reference.h"
#include "temp_dir.h"

namespace ref = earshot::test::reference;
using earshot::backend::CpuWhisper;
using earshot::backend::HostTensor;
using earshot::model::RandomCheckpointOptions;
using earshot::model::WhisperCheckpoint;

namespace {

using namespace earshot::test::backend_data;

// Every comparison is max |got - want| divided by the largest |want| of the compared tensor (a
// whole [B, A, D] or [B, S, Vocab] against the reference; one [Vocab] logits row otherwise).
// Backend against reference: measured at most 8.2e-7 over the three shapes below (f32 rounding);
// 1e-5 leaves a 12x margin and is tight enough to catch a 1e-3 change of one decoder weight.
constexpr double kReferenceTolerance = 1e-5;
// Backend against itself (prefill + steps vs one full decode, batch 2 vs batch 1): the kernels
// sum in another order; measured at most 7.9e-7.
constexpr double kCacheTolerance = 1e-5;
// A listen that leaves no trace reruns the very same arithmetic as a fresh model (measured 0).
constexpr double kFreshTolerance = 1e-6;

struct Shape {
    std::string name;
    int64_t mels, d, heads, encoder_layers, decoder_layers, vocab, frames, max_tokens, inner;
    std::string dtype;
    uint64_t seed;
};

// What gtest prints for a parameter.
void PrintTo(const Shape& shape, std::ostream* os) { *os << shape.name; }

RandomCheckpointOptions options_of(const Shape& s) {
    RandomCheckpointOptions o{.mels = s.mels,
                              .d = s.d,
                              .heads = s.heads,
                              .enc_layers = s.encoder_layers,
                              .dec_layers = s.decoder_layers,
                              .vocab = s.vocab,
                              .frames = s.frames,
                              .max_tokens = s.max_tokens,
                              .inner = s.inner,
                              .dtype = s.dtype,
                              .seed = s.seed};
    return o;
}

ref::Dims dims_of(const Shape& s) {
    ref::Dims dims;
    dims.mels = s.mels;
    dims.d = s.d;
    dims.heads = s.heads;
    dims.inner = s.inner;
    dims.encoder_layers = s.encoder_layers;
    dims.decoder_layers = s.decoder_layers;
    dims.vocab = s.vocab;
    dims.frames = s.frames;
    dims.max_tokens = s.max_tokens;
    return dims;
}

const std::vector<Shape>& shapes() {
    static const std::vector<Shape> list = {
        {"F32TwoByTwoLayers", 80, 64, 4, 2, 2, 512, 200, 32, 256, "f32", 11},
        {"F16OneByThreeLayers", 128, 96, 3, 1, 3, 300, 64, 16, 384, "f16", 12},
        // The real window length: Frames 3000 -> 1500 audio positions.
        {"Bf16FullWindow", 80, 64, 2, 1, 1, 128, 3000, 8, 128, "bf16", 13},
    };
    return list;
}

// Both sides read the checkpoint's stored values widened to f32, then the reference to double.
ref::Weights reference_weights(const earshot::checkpoint::WeightSet& set, const ref::Dims& dims) {
    ref::Weights weights;
    for (const ref::Parameter& p : ref::parameter_list(dims)) {
        const earshot::checkpoint::Weight* w = set.find(p.path);
        if (w == nullptr) throw std::runtime_error("checkpoint lacks " + p.path);
        if (w->shape != p.shape) throw std::runtime_error("checkpoint shape differs for " + p.path);
        std::vector<float> values(w->element_count());
        earshot::checkpoint::convert_to_f32(*w, values);
        weights[p.path] = std::vector<double>(values.begin(), values.end());
    }
    return weights;
}

ref::Array3 to_array(const HostTensor& t) {
    ref::Array3 a(t.dim(0), t.dim(1), t.dim(2));
    const std::span<const float> v = t.f32_values();
    std::copy(v.begin(), v.end(), a.values.begin());
    return a;
}

class CpuBackend : public ::testing::TestWithParam<Shape> {
protected:
    void SetUp() override {
        dims_ = dims_of(GetParam());
        earshot::model::write_random_checkpoint(dir_.path(), options_of(GetParam()));
        checkpoint_.emplace(earshot::model::load_whisper_checkpoint(dir_.path()));
    }

    ref::WhisperReference reference() const {
        return ref::WhisperReference(dims_, reference_weights(checkpoint_->weights, dims_));
    }

    earshot::test::TempDir dir_{"earshot-cpu-backend"};
    ref::Dims dims_;
    std::optional<WhisperCheckpoint> checkpoint_;
};

TEST_P(CpuBackend, EncodeAndDecodeMatchTheReference) {
    const ref::WhisperReference reference = this->reference();
    CpuWhisper backend(*checkpoint_);
    constexpr int64_t kBatch = 2;

    const HostTensor mel = test_mel(kBatch, dims_.mels, dims_.frames, 0);
    const HostTensor audio = backend.encode(mel);  // [2, A, D]
    ASSERT_EQ(audio.shape(), (std::vector<int64_t>{kBatch, dims_.audio_positions(), dims_.d}));
    const ref::Array3 want_audio = reference.encode(to_array(mel));
    const double audio_error = relative_error(audio.f32_values(), want_audio.values);
    EXPECT_LT(audio_error, kReferenceTolerance)
        << "encoder states, max |want| " << max_abs(want_audio.values);

    // Both decoders read the backend's audio states, so decode is checked on its own.
    const auto tokens = random_tokens(kBatch, dims_.max_tokens, dims_.vocab, 5);
    const HostTensor logits = backend.decode(token_tensor(tokens, 0, dims_.max_tokens), audio);
    ASSERT_EQ(logits.shape(), (std::vector<int64_t>{kBatch, dims_.max_tokens, dims_.vocab}));
    const ref::Array3 want_logits = reference.decode(tokens, to_array(audio));
    EXPECT_LT(relative_error(logits.f32_values(), want_logits.values), kReferenceTolerance)
        << "logits, max |want| " << max_abs(want_logits.values);

    const std::span<const double> want_flat(want_logits.values);
    for (int64_t row = 0; row < kBatch * dims_.max_tokens; ++row) {
        EXPECT_EQ(argmax(row_of(logits.f32_values(), row, dims_.vocab)),
                  argmax(row_of(want_flat, row, dims_.vocab)))
            << "batch " << row / dims_.max_tokens << ", position " << row % dims_.max_tokens;
    }
}

// listen + prefill(P tokens) + steps at P .. MaxTokens - 1 reproduce decode's every position.
TEST_P(CpuBackend, PrefillAndStepsMatchTheFullDecode) {
    CpuWhisper backend(*checkpoint_, 1);
    const HostTensor mel = test_mel(1, dims_.mels, dims_.frames, 1);
    const HostTensor audio = backend.listen(mel);
    EXPECT_LT(relative_error(audio.f32_values(), backend.encode(mel).f32_values()),
              kCacheTolerance);

    const auto tokens = random_tokens(1, dims_.max_tokens, dims_.vocab, 6);
    const HostTensor full = backend.decode(token_tensor(tokens, 0, dims_.max_tokens), audio);
    const std::span<const float> full_flat = full.f32_values();  // [1, MaxTokens, Vocab]

    constexpr int64_t kPrefill = 3;
    const HostTensor first = backend.prefill(token_tensor(tokens, 0, kPrefill));
    ASSERT_EQ(first.shape(), (std::vector<int64_t>{1, dims_.vocab}));
    EXPECT_LT(relative_error(first.f32_values(), row_of(full_flat, kPrefill - 1, dims_.vocab)),
              kCacheTolerance);
    for (int64_t pos = kPrefill; pos < dims_.max_tokens; ++pos) {
        const HostTensor next =
            backend.step(token_tensor(tokens, pos, pos + 1), static_cast<int32_t>(pos));
        EXPECT_LT(relative_error(next.f32_values(), row_of(full_flat, pos, dims_.vocab)),
                  kCacheTolerance)
            << "step at position " << pos;
    }
}

// Runs listen(mel) + prefill(2 tokens) + steps to the last slot; the logits of every call.
std::vector<HostTensor> cached_run(CpuWhisper& backend, const HostTensor& mel,
                                   const std::vector<std::vector<int32_t>>& tokens) {
    constexpr int64_t kPrefill = 2;
    const auto length = static_cast<int64_t>(tokens.front().size());
    backend.listen(mel);
    std::vector<HostTensor> out;
    out.push_back(backend.prefill(token_tensor(tokens, 0, kPrefill)));
    for (int64_t pos = kPrefill; pos < length; ++pos) {
        out.push_back(backend.step(token_tensor(tokens, pos, pos + 1), static_cast<int32_t>(pos)));
    }
    return out;
}

// A second listen replaces everything the first left: cross caches and self slots alike.
TEST_P(CpuBackend, SecondListenLeavesNoTraceOfTheFirst) {
    const auto first_tokens = random_tokens(1, dims_.max_tokens, dims_.vocab, 7);
    const auto second_tokens = random_tokens(1, dims_.max_tokens, dims_.vocab, 8);
    const HostTensor first_mel = test_mel(1, dims_.mels, dims_.frames, 0);
    const HostTensor second_mel = test_mel(1, dims_.mels, dims_.frames, 2);

    CpuWhisper used(*checkpoint_, 1);
    const auto before = cached_run(used, first_mel, first_tokens);  // fills every slot
    const auto again = cached_run(used, second_mel, second_tokens);
    CpuWhisper fresh(*checkpoint_, 1);
    const auto want = cached_run(fresh, second_mel, second_tokens);
    ASSERT_EQ(again.size(), want.size());
    for (size_t i = 0; i < want.size(); ++i) {
        EXPECT_LT(relative_error(again[i].f32_values(), want[i].f32_values()), kFreshTolerance)
            << "call " << i;
    }

    // The check can fail: the same tokens over the first audio give other logits.
    CpuWhisper other(*checkpoint_, 1);
    const auto first_audio = cached_run(other, first_mel, second_tokens);
    EXPECT_GT(relative_error(first_audio[0].f32_values(), want[0].f32_values()), 1e-3);
}

// Batch 2 through listen / prefill / step equals two Batch-1 runs, row for row.
TEST_P(CpuBackend, BatchOfTwoEqualsTwoSingleRuns) {
    const auto tokens = random_tokens(2, dims_.max_tokens, dims_.vocab, 9);
    const HostTensor mel = test_mel(2, dims_.mels, dims_.frames, 1);
    CpuWhisper pair(*checkpoint_, 2);
    ASSERT_EQ(pair.batch(), 2);
    const auto both = cached_run(pair, mel, tokens);

    const int64_t mel_size = dims_.mels * dims_.frames;
    CpuWhisper single(*checkpoint_, 1);
    for (int64_t b = 0; b < 2; ++b) {
        const std::span<const float> rows = mel.f32_values().subspan(
            static_cast<size_t>(b * mel_size), static_cast<size_t>(mel_size));
        const HostTensor one_mel = HostTensor::f32({1, dims_.mels, dims_.frames},
                                                   std::vector<float>(rows.begin(), rows.end()));
        const auto alone = cached_run(single, one_mel, {tokens[static_cast<size_t>(b)]});
        ASSERT_EQ(alone.size(), both.size());
        for (size_t i = 0; i < alone.size(); ++i) {
            ASSERT_EQ(both[i].shape(), (std::vector<int64_t>{2, dims_.vocab}));
            EXPECT_LT(
                relative_error(row_of(both[i].f32_values(), b, dims_.vocab), alone[i].f32_values()),
                kCacheTolerance)
                << "batch row " << b << ", call " << i;
        }
    }
}

INSTANTIATE_TEST_SUITE_P(RandomCheckpoints, CpuBackend, ::testing::ValuesIn(shapes()),
                         [](const ::testing::TestParamInfo<Shape>& param_info) {
                             return param_info.param.name;
                         });

// The reference tolerance is tight enough to matter: small changes made in the reference alone,
// none of which a backend could hide, break the comparison.
TEST(CpuBackendSensitivity, SmallChangesInTheReferenceBreakTheComparison) {
    const Shape& shape = shapes().front();
    const ref::Dims dims = dims_of(shape);
    earshot::test::TempDir dir("earshot-cpu-sensitivity");
    earshot::model::write_random_checkpoint(dir.path(), options_of(shape));
    const WhisperCheckpoint checkpoint = earshot::model::load_whisper_checkpoint(dir.path());
    const ref::Weights weights = reference_weights(checkpoint.weights, dims);
    CpuWhisper backend(checkpoint);

    const HostTensor mel = test_mel(2, dims.mels, dims.frames, 0);
    const HostTensor audio = backend.encode(mel);  // [2, A, D]
    const ref::Array3 mel_array = to_array(mel);
    const auto encoder_error = [&](const ref::Weights& w) {
        return relative_error(audio.f32_values(),
                              ref::WhisperReference(dims, w).encode(mel_array).values);
    };
    const auto tokens = random_tokens(2, dims.max_tokens, dims.vocab, 10);
    const HostTensor logits = backend.decode(token_tensor(tokens, 0, dims.max_tokens), audio);
    const ref::Array3 audio_array = to_array(audio);
    const auto decoder_error = [&](const ref::Weights& w) {
        return relative_error(logits.f32_values(),
                              ref::WhisperReference(dims, w).decode(tokens, audio_array).values);
    };
    EXPECT_LT(encoder_error(weights), kReferenceTolerance);
    EXPECT_LT(decoder_error(weights), kReferenceTolerance);

    // One decoder query weight moved by 1e-3 (1% of the weights' std 0.1): 5.6e-5.
    ref::Weights decoder_query = weights;
    decoder_query.at("decoder_layers.0.self_attn.q_proj.weight").at(0) += 1e-3;
    EXPECT_GT(decoder_error(decoder_query), kReferenceTolerance);

    // The same element in the encoder moves the states by only 7.8e-6 per 1e-3 (the softmax damps
    // a query change); 3e-3 gives 2.3e-5.
    ref::Weights encoder_query = weights;
    encoder_query.at("encoder_layers.0.self_attn.q_proj.weight").at(0) += 3e-3;
    EXPECT_GT(encoder_error(encoder_query), kReferenceTolerance);

    // One value weight (on the residual path) moved by 1e-3: 4.9e-5.
    ref::Weights encoder_value = weights;
    encoder_value.at("encoder_layers.0.self_attn.v_proj.weight").at(0) += 1e-3;
    EXPECT_GT(encoder_error(encoder_value), kReferenceTolerance);

    // A stem that reads its input one frame late (the loud first frames lost): what a padding
    // or offset mistake in the conv does.
    ref::Array3 late = mel_array;  // [2, Mels, Frames]
    for (int64_t b = 0; b < late.n0; ++b) {
        for (int64_t m = 0; m < late.n1; ++m) {
            for (int64_t t = 0; t < late.n2; ++t) {
                late.at(b, m, t) = t + 1 < late.n2 ? mel_array.at(b, m, t + 1) : 0.0;
            }
        }
    }
    EXPECT_GT(relative_error(audio.f32_values(),
                             ref::WhisperReference(dims, weights).encode(late).values),
              100 * kReferenceTolerance);

    // A missing 1 / sqrt(Dh) in one layer's attention is the same as queries sqrt(Dh) too large.
    // (0.18 for this shape.)
    ref::Weights unscaled = weights;
    const double sqrt_head_dim = std::sqrt(static_cast<double>(dims.d / dims.heads));
    for (const char* name :
         {"encoder_layers.0.self_attn.q_proj.weight", "encoder_layers.0.self_attn.q_proj.bias"}) {
        for (double& v : unscaled.at(name)) v *= sqrt_head_dim;
    }
    EXPECT_GT(encoder_error(unscaled), 100 * kReferenceTolerance);
}

}  // namespace
