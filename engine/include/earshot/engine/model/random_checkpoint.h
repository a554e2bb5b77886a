// Random Whisper checkpoints for tests and benchmarks: an HF directory (config.json +
// model.safetensors) of any shape, with values drawn deterministically from a seed.
#pragma once

#include <cstdint>
#include <filesystem>
#include <string>

namespace earshot::model {

struct RandomCheckpointOptions {
    int64_t mels = 80;
    int64_t d = 384;
    int64_t heads = 6;
    int64_t enc_layers = 4;
    int64_t dec_layers = 4;
    int64_t vocab = 51865;
    int64_t frames = 3000;  // even: config.json stores max_source_positions = frames / 2
    int64_t max_tokens = 448;
    int64_t inner = 0;          // 0: 4 * d
    std::string dtype = "f16";  // "f32", "f16" or "bf16"
    uint64_t seed = 1;
    double projection_std = 0.1;
};

// Writes config.json and model.safetensors (HF names, no proj_out: the head is tied) into `dir`,
// creating it; refuses (std::runtime_error) a `dir` that exists and is not empty, and throws
// std::invalid_argument for options the program cannot bind (non-positive sizes, d not divisible
// by heads, d < 4, odd frames, unknown dtype, negative std).
//
// Values, each tensor drawn from its own stream so that any one can be regenerated alone:
// - stream: std::mt19937_64 seeded with seed ^ fnv1a64(HF tensor name) (FNV-1a, 64-bit offset
//   basis 0xcbf29ce484222325, prime 0x100000001b3, over the name's bytes);
// - uniform u = (engine() >> 11) * 2^-53; normals by Box-Muller from pairs (u1, u2):
//   r = sqrt(-2 ln(1 - u1)), z0 = r cos(2 pi u2), z1 = r sin(2 pi u2), used in that order;
// - value = float(mean + std * z) in double, then rounded to nearest even into the dtype;
// - conv and projection weights (q/k/v/out, fc1, fc2): normal(0, projection_std); every bias:
//   normal(0, 0.02); LayerNorm weight: 1 + normal(0, 0.1), bias: normal(0, 0.05); token
//   embedding and decoder positions: normal(0, 0.1); encoder positions: the sinusoids of the
//   reference (§2.3: [sin | cos] halves, inc = ln(10000) / (d / 2 - 1)), computed in double.
void write_random_checkpoint(const std::filesystem::path& dir,
                             const RandomCheckpointOptions& options);

}  // namespace earshot::model
