// The CPU backend on a quantized ggml checkpoint: its matrices stay in their blocks (the region
// holds the file's block bytes, not f16 or f32 copies), and its logits, prefill and steps, match
// the same model with the blocks decoded to f32 within the rounding of the activations to 8 bits.
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <iostream>
#include <random>
#include <string>
#include <vector>

#include "backend/cpu/cpu_weights.h"
#include "backend/cpu/quant/block_dot.h"
#include "backend/cpu/quant/block_dot_k.h"
#include "earshot/engine/backend/cpu_whisper.h"
#include "earshot/engine/backend/host_tensor.h"
#include "earshot/engine/checkpoint/ggml_blocks.h"
#include "earshot/engine/model/random_checkpoint.h"
#include "earshot/engine/model/whisper_checkpoint.h"
#include "ggml_quantizer.h"
#include "ggml_writer.h"
#include "temp_dir.h"

namespace earshot {
namespace {

namespace fs = std::filesystem;
using checkpoint::GgmlType;

model::RandomCheckpointOptions options() {
    return {.mels = 80,
            .d = 256,
            .heads = 4,
            .enc_layers = 2,
            .dec_layers = 2,
            .vocab = 600,
            .frames = 40,
            .max_tokens = 16,
            .dtype = "f32",
            .seed = 11};
}

// The logits of prefill [1, 2, 3] and of steps at positions 3 and 4, one after another.
std::vector<float> logits_of(const model::WhisperCheckpoint& checkpoint) {
    backend::CpuWhisper cpu(checkpoint);
    std::mt19937_64 engine(5);
    std::normal_distribution<float> normal(0.0F, 1.0F);
    std::vector<float> mel(80 * 40);  // [1, Mels, Frames]
    for (float& v : mel) v = normal(engine);
    cpu.listen(backend::HostTensor::f32({1, 80, 40}, mel));
    std::vector<float> all;
    const auto append = [&](const backend::HostTensor& t) {
        all.insert(all.end(), t.f32_values().begin(), t.f32_values().end());
    };
    append(cpu.prefill(backend::HostTensor::i32({1, 3}, {1, 2, 3})));
    append(cpu.step(backend::HostTensor::i32({1, 1}, {7}), 3));
    append(cpu.step(backend::HostTensor::i32({1, 1}, {9}), 4));
    return all;
}

class CpuQuantizedWeights : public testing::TestWithParam<GgmlType> {};

TEST_P(CpuQuantizedWeights, BlocksStayBlocksAndLogitsMatchTheDecodedTwin) {
    const GgmlType type = GetParam();
    const test::TempDir dir("earshot-cpu-quantized");
    model::write_random_checkpoint(dir.path() / "hf", options());
    const model::WhisperCheckpoint hf = model::load_whisper_checkpoint(dir.path() / "hf");
    test::write_ggml_file(dir.path() / "q.bin",
                          test::ggml_twin(hf.weights, hf.binding.config, type));
    const model::WhisperCheckpoint q = model::load_whisper_checkpoint(dir.path() / "q.bin");
    // The twin of the blocks decoded to f32: the same weights, computed in f32.
    test::write_ggml_file(dir.path() / "decoded.bin",
                          test::ggml_twin(q.weights, q.binding.config, GgmlType::f32));
    const model::WhisperCheckpoint decoded =
        model::load_whisper_checkpoint(dir.path() / "decoded.bin");

    // The backend maps exactly the blocks of the quantized matrices from the file (leased:
    // cpu_leased_weights_test.cpp) and copies nothing (no f16 ones: the twin writes everything
    // else f32).
    backend::cpu::CpuWeights weights(q);
    size_t block_bytes = 0;
    int matrices = 0;
    for (const auto& w : q.weights.weights()) {
        if (w.dtype != checkpoint::WeightDType::ggml_blocks) continue;
        ++matrices;
        block_bytes += w.bytes.size();
        const backend::cpu::BlockMatrix* m = weights.blocks(w.path);
        ASSERT_NE(m, nullptr) << w.path;
        EXPECT_EQ(weights.half(w.path), nullptr);
        EXPECT_EQ(m->type, type);
        EXPECT_EQ(m->rows * m->row_bytes, static_cast<int64_t>(w.bytes.size()));
    }
    EXPECT_EQ(matrices, 1 + 2 * 6 + 2 * 10);
    EXPECT_EQ(weights.mapping_refusal(), "");
    EXPECT_EQ(weights.mapped_bytes(), block_bytes);
    EXPECT_EQ(weights.region_bytes(), 0U);
    // An f32 read of a block matrix decodes it.
    const checkpoint::Weight* fc1 = q.weights.find("decoder_layers.0.mlp.fc1.weight");
    ASSERT_NE(fc1, nullptr);
    std::vector<float> want(fc1->element_count());
    checkpoint::convert_to_f32(*fc1, want);
    const float* got = weights.f32(fc1->path);
    ASSERT_NE(got, nullptr);
    EXPECT_EQ(std::vector<float>(got, got + want.size()), want);

    const std::vector<float> reference = logits_of(decoded);
    const std::vector<float> logits = logits_of(q);
    ASSERT_EQ(logits.size(), reference.size());
    double squared_error = 0.0;
    double squared = 0.0;
    for (size_t i = 0; i < logits.size(); ++i) {
        const double difference = double(logits[i]) - double(reference[i]);
        squared_error += difference * difference;
        squared += double(reference[i]) * double(reference[i]);
    }
    const double relative = std::sqrt(squared_error / squared);
    std::cout << "[          ] " << checkpoint::ggml_type_name(type)
              << ": rms logit difference from the decoded twin / rms logit = " << relative << "\n";
    // The integer block dots round the activations of every product to 8 bits per block of 32
    // (at most 1/254 of the block's largest activation per value, as ggml's q8 activations do):
    // measured 1.2e-2 .. 1.4e-2 of the logits over this random model's 13 products in a row, about
    // what q8_0 weights alone move them (the round-trip test's 1.6e-2). The k-quants round theirs
    // per block of 256 (ggml's q8_K), a coarser step where a block's values differ in size:
    // measured 1.7e-2 (q4_k) and 1.8e-2 (q6_k).
    ASSERT_TRUE(backend::cpu::has_block_dot(type) || backend::cpu::has_k_block_dot(type));
    EXPECT_LT(relative, 3e-2);
    EXPECT_GT(relative, 1e-3);
}

INSTANTIATE_TEST_SUITE_P(Types, CpuQuantizedWeights,
                         testing::Values(GgmlType::q8_0, GgmlType::q5_0, GgmlType::q5_1,
                                         GgmlType::q4_0, GgmlType::q4_1, GgmlType::q4_k,
                                         GgmlType::q6_k),
                         [](const testing::TestParamInfo<GgmlType>& param_info) {
                             return std::string(checkpoint::ggml_type_name(param_info.param));
                         });

}  // namespace
}  // namespace earshot
