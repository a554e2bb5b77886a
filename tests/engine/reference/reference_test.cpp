// The double-precision Whisper reference checked piece by piece against values worked out by
// hand from the inference notes, so that it can be trusted as the yardstick for the backends.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <stdexcept>
#include <vector>

#include "reference/whisper_reference.h"

namespace ref = earshot::test::reference;

namespace {

TEST(Reference, GeluIsTheExactErfForm) {
    EXPECT_DOUBLE_EQ(ref::gelu_erf(0.0), 0.0);
    EXPECT_NEAR(ref::gelu_erf(1.0), 0.8413447460685429, 1e-15);
    EXPECT_NEAR(ref::gelu_erf(-1.0), -0.15865525393145707, 1e-15);
    // The tanh approximation gives 0.8411919906082768 at 1: far outside this tolerance.
    EXPECT_GT(std::abs(ref::gelu_erf(1.0) - 0.8411919906082768), 1e-4);
}

TEST(Reference, SinusoidsAreSinesThenCosinesWithStepOverHalfMinusOne) {
    const ref::Matrix pe = ref::sinusoids(2, 384);  // [2, 384]
    ASSERT_EQ(pe.rows, 2);
    ASSERT_EQ(pe.cols, 384);
    EXPECT_DOUBLE_EQ(pe.at(0, 0), 0.0);
    EXPECT_DOUBLE_EQ(pe.at(0, 192), 1.0);
    EXPECT_NEAR(pe.at(1, 0), 0.8414709848078965, 1e-15);    // sin 1
    EXPECT_NEAR(pe.at(1, 192), 0.5403023058681398, 1e-15);  // cos 1
    // inc = ln(10000) / 191 = 0.0482216773...; PE[1, 1] = sin(exp(-inc)) = sin(0.95292252).
    EXPECT_NEAR(pe.at(1, 1), 0.8151120104443937, 1e-12);
    // Last sine channel: frequency exp(-191 inc) = 1e-4 exactly.
    EXPECT_NEAR(pe.at(1, 191), std::sin(1e-4), 1e-15);
}

TEST(Reference, Conv1dStrideOneZeroPadsBothEnds) {
    ref::Matrix ramp(1, 5);  // [In = 1, T = 5]: 1 2 3 4 5
    for (int64_t t = 0; t < 5; ++t) ramp.at(0, t) = static_cast<double>(t + 1);
    // weight [Out = 1, In = 1, 3]: taps on x[t - 1], x[t], x[t + 1].
    const ref::Matrix y = ref::conv1d(ramp, {1.0, 10.0, 100.0}, {0.5}, 1);
    ASSERT_EQ(y.rows, 1);
    ASSERT_EQ(y.cols, 5);
    const std::vector<double> expected = {210.5, 321.5, 432.5, 543.5, 54.5};
    for (size_t t = 0; t < expected.size(); ++t) {
        EXPECT_DOUBLE_EQ(y.at(0, static_cast<int64_t>(t)), expected[t]) << "t = " << t;
    }
}

TEST(Reference, Conv1dStrideTwoCentresOnEvenInputs) {
    ref::Matrix ramp(1, 5);
    for (int64_t t = 0; t < 5; ++t) ramp.at(0, t) = static_cast<double>(t + 1);
    const ref::Matrix odd = ref::conv1d(ramp, {1.0, 10.0, 100.0}, {0.5}, 2);
    ASSERT_EQ(odd.cols, 3);  // 1 + (5 - 1) / 2
    EXPECT_DOUBLE_EQ(odd.at(0, 0), 210.5);
    EXPECT_DOUBLE_EQ(odd.at(0, 1), 432.5);
    EXPECT_DOUBLE_EQ(odd.at(0, 2), 54.5);

    ref::Matrix even(1, 4);  // 1 2 3 4 -> 1 + (4 - 1) / 2 = 2 outputs
    for (int64_t t = 0; t < 4; ++t) even.at(0, t) = static_cast<double>(t + 1);
    const ref::Matrix y = ref::conv1d(even, {1.0, 10.0, 100.0}, {0.5}, 2);
    ASSERT_EQ(y.cols, 2);
    EXPECT_DOUBLE_EQ(y.at(0, 0), 210.5);
    EXPECT_DOUBLE_EQ(y.at(0, 1), 432.5);
}

TEST(Reference, Conv1dSumsOverInputChannelsPerOutput) {
    ref::Matrix x(2, 2);  // [In = 2, T = 2]
    x.at(0, 0) = 1.0;
    x.at(0, 1) = 2.0;
    x.at(1, 0) = 3.0;
    x.at(1, 1) = 4.0;
    // weight [Out = 2, In = 2, 3]: output 0 takes the centre tap of both inputs, output 1 the
    // right tap of input 1 only.
    const std::vector<double> weight = {0, 1, 0, 0, 1, 0, 0, 0, 0, 0, 0, 1};
    const ref::Matrix y = ref::conv1d(x, weight, {0.0, -1.0}, 1);
    EXPECT_DOUBLE_EQ(y.at(0, 0), 4.0);   // 1 + 3
    EXPECT_DOUBLE_EQ(y.at(0, 1), 6.0);   // 2 + 4
    EXPECT_DOUBLE_EQ(y.at(1, 0), 3.0);   // x[1, 1] - 1
    EXPECT_DOUBLE_EQ(y.at(1, 1), -1.0);  // past the end: zero padding, bias only
}

TEST(Reference, LayerNormUsesBiasedVarianceAndEpsOneEMinusFive) {
    ref::Matrix x(1, 4);
    for (int64_t c = 0; c < 4; ++c) x.at(0, c) = static_cast<double>(c + 1);
    // mean 2.5, biased variance 1.25: (x - 2.5) / sqrt(1.25 + 1e-5), then * 2 + 1.
    const ref::Matrix y = ref::layer_norm(x, {2.0, 2.0, 2.0, 2.0}, {1.0, 1.0, 1.0, 1.0});
    const std::vector<double> normed = {-1.3416354199689269, -0.447211806656309, 0.447211806656309,
                                        1.3416354199689269};
    for (size_t c = 0; c < normed.size(); ++c) {
        EXPECT_NEAR(y.at(0, static_cast<int64_t>(c)), 2.0 * normed[c] + 1.0, 1e-14);
    }
}

TEST(Reference, LinearIsXTimesWeightTransposedPlusBias) {
    ref::Matrix x(1, 2);
    x.at(0, 0) = 1.0;
    x.at(0, 1) = 2.0;
    // weight [Out = 3, In = 2]
    const ref::Matrix y = ref::linear(x, {1, 0, 0, 1, 3, -1}, {0.5, 0.0, -0.5});
    ASSERT_EQ(y.cols, 3);
    EXPECT_DOUBLE_EQ(y.at(0, 0), 1.5);
    EXPECT_DOUBLE_EQ(y.at(0, 1), 2.0);
    EXPECT_DOUBLE_EQ(y.at(0, 2), 0.5);
    const ref::Matrix no_bias = ref::linear(x, {1, 0, 0, 1, 3, -1}, {});
    EXPECT_DOUBLE_EQ(no_bias.at(0, 2), 1.0);
}

// q = k = I (2 x 2), v = [[1, 2], [3, 4]], Dh = 2. Row 0 scores (1/sqrt 2, 0): weights (p, 1 - p)
// with p = 1 / (1 + exp(-1/sqrt 2)) = 0.6697615493266569.
TEST(Reference, TwoByTwoAttentionByHand) {
    ref::Matrix identity(2, 2);
    identity.at(0, 0) = 1.0;
    identity.at(1, 1) = 1.0;
    ref::Matrix v(2, 2);
    v.at(0, 0) = 1.0;
    v.at(0, 1) = 2.0;
    v.at(1, 0) = 3.0;
    v.at(1, 1) = 4.0;

    const ref::Matrix full = ref::attention_head(identity, identity, v, ref::Mask::none);
    EXPECT_NEAR(full.at(0, 0), 1.6604769013466862, 1e-14);  // 3 - 2p
    EXPECT_NEAR(full.at(0, 1), 2.6604769013466862, 1e-14);  // 4 - 2p
    EXPECT_NEAR(full.at(1, 0), 2.3395230986533138, 1e-14);  // 1 + 2p
    EXPECT_NEAR(full.at(1, 1), 3.3395230986533138, 1e-14);  // 2 + 2p

    const ref::Matrix causal = ref::attention_head(identity, identity, v, ref::Mask::causal);
    EXPECT_DOUBLE_EQ(causal.at(0, 0), 1.0);  // only key 0 visible
    EXPECT_DOUBLE_EQ(causal.at(0, 1), 2.0);
    EXPECT_NEAR(causal.at(1, 0), 2.3395230986533138, 1e-14);
    EXPECT_NEAR(causal.at(1, 1), 3.3395230986533138, 1e-14);
}

// A decoder whose layer weights are all zero is the identity on its residual stream, so the
// logits are layer_norm(embedding + position) times the embedding: the tied head by hand.
TEST(Reference, DecoderHeadIsTiedToTheEmbedding) {
    ref::Dims dims;
    dims.mels = 1;
    dims.d = 2;
    dims.heads = 1;
    dims.inner = 1;
    dims.encoder_layers = 0;
    dims.decoder_layers = 1;
    dims.vocab = 3;
    dims.frames = 2;
    dims.max_tokens = 2;
    ref::Weights weights;
    for (const ref::Parameter& p : ref::parameter_list(dims)) {
        int64_t n = 1;
        for (int64_t s : p.shape) n *= s;
        weights[p.path] = std::vector<double>(static_cast<size_t>(n), 0.0);
    }
    weights["token_embedding"] = {1, 0, 0, 1, 2, 1};  // [3, 2]
    weights["decoder_positions"] = {0, 0, 0, 3};      // [2, 2]
    weights["decoder_norm.weight"] = {1, 1};
    const ref::WhisperReference model(dims, weights);
    const ref::Array3 audio(1, 1, 2);
    const ref::Array3 logits = model.decode({{0, 0}}, audio);  // [1, 2, 3]
    // Position 0: LN([1, 0]) = (c0, -c0), c0 = 0.5 / sqrt(0.25 + 1e-5). Position 1: LN([1, 3])
    // = (-c1, c1), c1 = 1 / sqrt(1 + 1e-5). Logits: the normed row dotted with each embedding.
    const double c0 = 0.9999800005999799;
    const double c1 = 0.9999950000374997;
    EXPECT_NEAR(logits.at(0, 0, 0), c0, 1e-14);
    EXPECT_NEAR(logits.at(0, 0, 1), -c0, 1e-14);
    EXPECT_NEAR(logits.at(0, 0, 2), c0, 1e-14);  // 2 c0 - c0
    EXPECT_NEAR(logits.at(0, 1, 0), -c1, 1e-14);
    EXPECT_NEAR(logits.at(0, 1, 1), c1, 1e-14);
    EXPECT_NEAR(logits.at(0, 1, 2), -c1, 1e-14);
}

ref::Dims small_dims() {
    ref::Dims dims;
    dims.mels = 4;
    dims.d = 8;
    dims.heads = 2;
    dims.inner = 16;
    dims.encoder_layers = 1;
    dims.decoder_layers = 2;
    dims.vocab = 11;
    dims.frames = 9;
    dims.max_tokens = 6;
    return dims;
}

TEST(Reference, DecoderIsCausalAndReadsTheAudio) {
    const ref::Dims dims = small_dims();
    const ref::WhisperReference model(dims, ref::random_weights(dims, 7, 0.5));
    ref::Array3 mel(1, dims.mels, dims.frames);
    for (size_t i = 0; i < mel.values.size(); ++i)
        mel.values[i] = std::sin(0.37 * static_cast<double>(i));
    const ref::Array3 audio = model.encode(mel);
    ASSERT_EQ(audio.n1, 5);  // 1 + (9 - 1) / 2
    ASSERT_EQ(audio.n2, dims.d);

    const ref::Array3 a = model.decode({{1, 2, 3}}, audio);
    const ref::Array3 b = model.decode({{1, 2, 9}}, audio);
    for (int64_t v = 0; v < dims.vocab; ++v) {
        EXPECT_DOUBLE_EQ(a.at(0, 0, v), b.at(0, 0, v));
        EXPECT_DOUBLE_EQ(a.at(0, 1, v), b.at(0, 1, v));
    }
    double last_difference = 0.0;
    for (int64_t v = 0; v < dims.vocab; ++v) {
        last_difference = std::max(last_difference, std::abs(a.at(0, 2, v) - b.at(0, 2, v)));
    }
    EXPECT_GT(last_difference, 1e-3);

    ref::Array3 other = audio;
    other.at(0, 4, 0) += 1.0;  // cross-attention has no mask: the last audio slot matters
    const ref::Array3 c = model.decode({{1, 2, 3}}, other);
    EXPECT_GT(std::abs(c.at(0, 0, 0) - a.at(0, 0, 0)), 1e-6);
}

TEST(Reference, EncoderRowsAreIndependentAcrossTheBatch) {
    const ref::Dims dims = small_dims();
    const ref::WhisperReference model(dims, ref::random_weights(dims, 3, 0.5));
    ref::Array3 pair(2, dims.mels, dims.frames);
    ref::Array3 second(1, dims.mels, dims.frames);
    for (int64_t m = 0; m < dims.mels; ++m) {
        for (int64_t t = 0; t < dims.frames; ++t) {
            pair.at(0, m, t) = std::cos(0.3 * static_cast<double>(m * t));
            pair.at(1, m, t) = 0.1 * static_cast<double>(t - m);
            second.at(0, m, t) = pair.at(1, m, t);
        }
    }
    const ref::Array3 both = model.encode(pair);
    const ref::Array3 alone = model.encode(second);
    for (int64_t t = 0; t < alone.n1; ++t) {
        for (int64_t c = 0; c < alone.n2; ++c)
            EXPECT_DOUBLE_EQ(both.at(1, t, c), alone.at(0, t, c));
    }
}

TEST(Reference, RejectsMissingOrMisSizedParameters) {
    const ref::Dims dims = small_dims();
    ref::Weights weights = ref::random_weights(dims, 1, 0.1);
    EXPECT_EQ(weights.count("encoder_layers.0.self_attn.k_proj.bias"), 0U);  // no k bias
    ref::Weights missing = weights;
    missing.erase("decoder_layers.1.encoder_attn.v_proj.bias");
    EXPECT_THROW(ref::WhisperReference(dims, missing), std::invalid_argument);
    ref::Weights short_weight = weights;
    short_weight["conv2_weight"].pop_back();
    EXPECT_THROW(ref::WhisperReference(dims, short_weight), std::invalid_argument);
}

}  // namespace
