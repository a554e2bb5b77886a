// Taps on the CUDA backend (and the emulated module, as cuda_backend_emulated): the tapped
// output of `encoder_layers[0].forward` against the double-precision layer, a tap inside a later
// decoder step against the CPU backend's, and tapped runs (step by step, only the tapped values
// copied) giving bitwise the logits of untapped ones (captured graphs).
#include <gtest/gtest.h>

#include <cstring>
#include <optional>
#include <string>
#include <vector>

#include "backend/tap_test_model.h"
#include "backend_test_data.h"
#include "cuda_test_device.h"
#include "earshot/engine/backend/cpu_whisper.h"
#include "earshot/engine/backend/cuda_whisper.h"
#include "earshot/engine/backend/tap.h"
#include "reference/encoder_layer_reference.h"

namespace {

using namespace earshot::test::backend_data;
using namespace earshot::test::taps;
using earshot::backend::CpuWhisper;
using earshot::backend::CudaWhisper;
using earshot::backend::TapSet;

// f16 weights and activations against f32 (cuda_backend_test.cpp's encoder tolerance).
constexpr double kEncoderTolerance = 2e-3;
// The GPU's decoder values against the CPU's (cuda_backend_test.cpp's cache tolerance is 5e-3 on
// logits; one block's output is compared here the same way).
constexpr double kDecoderTolerance = 5e-3;

class TapsOnCudaDevice : public TapTestModel {
protected:
    void SetUp() override {
        EARSHOT_NEEDS_CUDA_DEVICE();
        TapTestModel::SetUp();
    }
};

TEST_F(TapsOnCudaDevice, EncoderLayerZeroMatchesTheDoublePrecisionLayer) {
    const ref::Weights weights = reference_weights(checkpoint_->weights, dims_);
    const HostTensor mel = test_mel(1, dims_.mels, dims_.frames, 1);
    CudaWhisper gpu(*checkpoint_);
    TapSet taps({"encoder_layers[0].forward"});
    gpu.set_taps(&taps);
    gpu.encode(mel);
    const auto* layer = taps.value("encoder_layers[0].forward");
    ASSERT_TRUE(layer->filled);
    ASSERT_EQ(layer->tensor.shape(), (std::vector<int64_t>{1, 100, 64}));
    const ref::Matrix stem = ref::encoder_stem(weights, dims_, to_array(mel), 0);
    const ref::Matrix want = ref::encoder_layer(weights, dims_, 0, stem);
    const double error = relative_error(layer->tensor.f32_values(), want.values);
    std::printf("CUDA encoder_layers[0].forward vs the double-precision layer: %.3g\n", error);
    EXPECT_LE(error, kEncoderTolerance);
}

TEST_F(TapsOnCudaDevice, TappedRunsGiveTheSameLogitsAndLaterStepsMatchTheCpu) {
    const HostTensor mel = test_mel(1, dims_.mels, dims_.frames, 0);
    const std::vector<int32_t> ids = {3, 99, 250, 11, 400, 77};
    const std::string name = "decoder_layers[1].encoder_attn.attend";
    auto run = [&](auto& model, TapSet* taps, std::vector<HostTensor>& logits) {
        model.listen(mel);
        logits.push_back(model.prefill(HostTensor::i32({1, 3}, {ids[0], ids[1], ids[2]})));
        model.set_taps(taps);
        for (int32_t pos = 3; pos < 6; ++pos) {
            logits.push_back(
                model.step(HostTensor::i32({1, 1}, {ids[static_cast<size_t>(pos)]}), pos));
        }
    };
    // Untapped: from the second step on the plan replays as a captured graph.
    std::vector<HostTensor> plain;
    CudaWhisper untapped(*checkpoint_);
    run(untapped, nullptr, plain);
    std::vector<HostTensor> tapped_logits;
    CudaWhisper tapped(*checkpoint_);
    TapSet taps({name});
    run(tapped, &taps, tapped_logits);
    ASSERT_EQ(plain.size(), tapped_logits.size());
    for (size_t i = 0; i < plain.size(); ++i) {
        const auto a = plain[i].f32_values();
        const auto b = tapped_logits[i].f32_values();
        ASSERT_EQ(a.size(), b.size());
        EXPECT_EQ(std::memcmp(a.data(), b.data(), a.size_bytes()), 0) << "logits " << i;
    }
    const auto* got = taps.value(name);
    ASSERT_TRUE(got->filled);
    EXPECT_EQ(got->position, 5);
    EXPECT_EQ(got->refreshes, 3U);

    std::vector<HostTensor> cpu_logits;
    CpuWhisper cpu(*checkpoint_);
    TapSet cpu_taps({name});
    run(cpu, &cpu_taps, cpu_logits);
    const double error =
        relative_error(got->tensor.f32_values(), cpu_taps.value(name)->tensor.f32_values());
    std::printf("CUDA %s at position 5 vs the CPU: %.3g\n", name.c_str(), error);
    EXPECT_LE(error, kDecoderTolerance);
}

}  // namespace
