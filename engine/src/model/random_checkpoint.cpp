// write_random_checkpoint: the HF tensor list of a Whisper model of the given shape, filled from
// per-tensor seeded streams, written with config.json through the safetensors writer.
#include "earshot/engine/model/random_checkpoint.h"

#include <cmath>
#include <cstring>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <numbers>
#include <random>
#include <stdexcept>
#include <system_error>
#include <vector>

#include "earshot/base/half_float.h"
#include "earshot/engine/checkpoint/safetensors_writer.h"

namespace earshot::model {
namespace {

namespace fs = std::filesystem;
using checkpoint::SafetensorsDType;

// The distributions of the header comment.
constexpr double bias_std = 0.02;
constexpr double norm_weight_std = 0.1;
constexpr double norm_bias_std = 0.05;
constexpr double embedding_std = 0.1;

enum class Fill { projection, bias, norm_weight, norm_bias, embedding, sinusoids };

struct TensorPlan {
    std::string name;
    std::vector<int64_t> shape;
    Fill fill;
};

uint64_t fnv1a64(const std::string& text) {
    uint64_t hash = 0xcbf29ce484222325ULL;
    for (const char c : text) {
        hash ^= static_cast<unsigned char>(c);
        hash *= 0x100000001b3ULL;
    }
    return hash;
}

// Box-Muller normals over mt19937_64, spelled out so that every standard library agrees.
class NormalStream {
public:
    explicit NormalStream(uint64_t seed) : engine_(seed) {}

    double next() {
        if (has_spare_) {
            has_spare_ = false;
            return spare_;
        }
        const double u1 = uniform();
        const double u2 = uniform();
        const double r = std::sqrt(-2.0 * std::log(1.0 - u1));
        const double angle = 2.0 * std::numbers::pi * u2;
        spare_ = r * std::sin(angle);
        has_spare_ = true;
        return r * std::cos(angle);
    }

private:
    double uniform() { return static_cast<double>(engine_() >> 11) * 0x1p-53; }

    std::mt19937_64 engine_;
    double spare_ = 0.0;
    bool has_spare_ = false;
};

void add_linear(std::vector<TensorPlan>& plan, const std::string& name, int64_t out, int64_t in,
                bool bias) {
    plan.push_back({name + ".weight", {out, in}, Fill::projection});
    if (bias) plan.push_back({name + ".bias", {out}, Fill::bias});
}

void add_norm(std::vector<TensorPlan>& plan, const std::string& name, int64_t d) {
    plan.push_back({name + ".weight", {d}, Fill::norm_weight});
    plan.push_back({name + ".bias", {d}, Fill::norm_bias});
}

void add_attention(std::vector<TensorPlan>& plan, const std::string& name, int64_t d) {
    add_linear(plan, name + ".q_proj", d, d, true);
    add_linear(plan, name + ".k_proj", d, d, false);  // Whisper's keys have no bias
    add_linear(plan, name + ".v_proj", d, d, true);
    add_linear(plan, name + ".out_proj", d, d, true);
}

std::vector<TensorPlan> tensor_plan(const RandomCheckpointOptions& o, int64_t inner) {
    const int64_t d = o.d;
    std::vector<TensorPlan> plan;
    plan.push_back({"model.encoder.conv1.weight", {d, o.mels, 3}, Fill::projection});
    plan.push_back({"model.encoder.conv1.bias", {d}, Fill::bias});
    plan.push_back({"model.encoder.conv2.weight", {d, d, 3}, Fill::projection});
    plan.push_back({"model.encoder.conv2.bias", {d}, Fill::bias});
    plan.push_back({"model.encoder.embed_positions.weight", {o.frames / 2, d}, Fill::sinusoids});
    for (int64_t i = 0; i < o.enc_layers; ++i) {
        const std::string layer = "model.encoder.layers." + std::to_string(i);
        add_attention(plan, layer + ".self_attn", d);
        add_norm(plan, layer + ".self_attn_layer_norm", d);
        add_linear(plan, layer + ".fc1", inner, d, true);
        add_linear(plan, layer + ".fc2", d, inner, true);
        add_norm(plan, layer + ".final_layer_norm", d);
    }
    add_norm(plan, "model.encoder.layer_norm", d);
    plan.push_back({"model.decoder.embed_tokens.weight", {o.vocab, d}, Fill::embedding});
    plan.push_back({"model.decoder.embed_positions.weight", {o.max_tokens, d}, Fill::embedding});
    for (int64_t i = 0; i < o.dec_layers; ++i) {
        const std::string layer = "model.decoder.layers." + std::to_string(i);
        add_attention(plan, layer + ".self_attn", d);
        add_norm(plan, layer + ".self_attn_layer_norm", d);
        add_attention(plan, layer + ".encoder_attn", d);
        add_norm(plan, layer + ".encoder_attn_layer_norm", d);
        add_linear(plan, layer + ".fc1", inner, d, true);
        add_linear(plan, layer + ".fc2", d, inner, true);
        add_norm(plan, layer + ".final_layer_norm", d);
    }
    add_norm(plan, "model.decoder.layer_norm", d);
    return plan;
}

// [positions, d]: row t holds sin(t * inv_i) for i < d / 2, then cos(t * inv_i).
std::vector<float> sinusoids(int64_t positions, int64_t d) {
    const int64_t half = d / 2;
    const double inc = std::log(10000.0) / static_cast<double>(half - 1);
    std::vector<float> values(static_cast<std::size_t>(positions * d));
    for (int64_t t = 0; t < positions; ++t) {
        for (int64_t i = 0; i < half; ++i) {
            const double angle = static_cast<double>(t) * std::exp(-inc * static_cast<double>(i));
            values[static_cast<std::size_t>(t * d + i)] = static_cast<float>(std::sin(angle));
            values[static_cast<std::size_t>(t * d + half + i)] =
                static_cast<float>(std::cos(angle));
        }
    }
    return values;
}

std::vector<float> fill_values(const TensorPlan& tensor, const RandomCheckpointOptions& o) {
    int64_t count = 1;
    for (const int64_t dim : tensor.shape) count *= dim;
    if (tensor.fill == Fill::sinusoids) return sinusoids(tensor.shape[0], tensor.shape[1]);
    double mean = 0.0;
    double std = 0.0;
    switch (tensor.fill) {
        case Fill::projection:
            std = o.projection_std;
            break;
        case Fill::bias:
            std = bias_std;
            break;
        case Fill::norm_weight:
            mean = 1.0;
            std = norm_weight_std;
            break;
        case Fill::norm_bias:
            std = norm_bias_std;
            break;
        case Fill::embedding:
        case Fill::sinusoids:
            std = embedding_std;
            break;
    }
    NormalStream stream(o.seed ^ fnv1a64(tensor.name));
    std::vector<float> values(static_cast<std::size_t>(count));
    for (auto& value : values) value = static_cast<float>(mean + std * stream.next());
    return values;
}

checkpoint::TensorToWrite encode(const TensorPlan& tensor, const std::vector<float>& values,
                                 SafetensorsDType dtype) {
    checkpoint::TensorToWrite out{tensor.name, dtype, tensor.shape, {}};
    if (dtype == SafetensorsDType::f32) {
        out.bytes.resize(values.size() * sizeof(float));
        std::memcpy(out.bytes.data(), values.data(), out.bytes.size());
        return out;
    }
    out.bytes.resize(values.size() * 2);
    for (std::size_t i = 0; i < values.size(); ++i) {
        const uint16_t bits = dtype == SafetensorsDType::f16 ? base::f32_to_f16(values[i])
                                                             : base::f32_to_bf16(values[i]);
        std::memcpy(out.bytes.data() + 2 * i, &bits, sizeof(bits));
    }
    return out;
}

void validate(const RandomCheckpointOptions& o) {
    const auto require = [](bool holds, const std::string& what) {
        if (!holds) throw std::invalid_argument("random checkpoint: " + what);
    };
    for (const auto& [name, value] : {std::pair<const char*, int64_t>{"mels", o.mels},
                                      {"d", o.d},
                                      {"heads", o.heads},
                                      {"vocab", o.vocab},
                                      {"frames", o.frames},
                                      {"max_tokens", o.max_tokens}}) {
        require(value > 0,
                std::string(name) + " must be positive (got " + std::to_string(value) + ")");
    }
    require(o.enc_layers >= 0 && o.dec_layers >= 0, "layer counts must not be negative");
    require(o.inner >= 0, "inner must be positive, or 0 for 4 * d");
    require(o.d >= 4, "d must be at least 4 (the sinusoids divide by d / 2 - 1)");
    require(o.d % 2 == 0, "d must be even (sine and cosine halves)");
    require(o.d % o.heads == 0, "d (" + std::to_string(o.d) + ") must be divisible by heads (" +
                                    std::to_string(o.heads) + ")");
    require(o.frames % 2 == 0, "frames must be even (config.json stores frames / 2)");
    require(o.dtype == "f32" || o.dtype == "f16" || o.dtype == "bf16",
            "dtype must be f32, f16 or bf16 (got " + o.dtype + ")");
    require(o.projection_std >= 0.0 && std::isfinite(o.projection_std),
            "projection_std must be finite and not negative");
}

void write_config(const fs::path& path, const RandomCheckpointOptions& o, int64_t inner) {
    static const std::map<std::string, std::string> torch_dtypes = {
        {"f32", "float32"}, {"f16", "float16"}, {"bf16", "bfloat16"}};
    // The fields of reference §6a that describe the architecture; no token ids (they come from
    // the vocabulary size).
    const nlohmann::json config = {
        {"architectures", {"WhisperForConditionalGeneration"}},
        {"model_type", "whisper"},
        {"num_mel_bins", o.mels},
        {"d_model", o.d},
        {"encoder_layers", o.enc_layers},
        {"encoder_attention_heads", o.heads},
        {"encoder_ffn_dim", inner},
        {"decoder_layers", o.dec_layers},
        {"decoder_attention_heads", o.heads},
        {"decoder_ffn_dim", inner},
        {"vocab_size", o.vocab},
        {"max_source_positions", o.frames / 2},
        {"max_target_positions", o.max_tokens},
        {"activation_function", "gelu"},
        {"scale_embedding", false},
        {"tie_word_embeddings", true},
        {"torch_dtype", torch_dtypes.at(o.dtype)},
    };
    std::ofstream out(path, std::ios::binary | std::ios::trunc);
    out << config.dump(2) << "\n";
    out.flush();
    if (!out) throw std::runtime_error(path.string() + ": cannot write");
}

}  // namespace

void write_random_checkpoint(const fs::path& dir, const RandomCheckpointOptions& options) {
    validate(options);
    std::error_code error;
    if (fs::exists(dir, error) && !(fs::is_directory(dir, error) && fs::is_empty(dir, error))) {
        throw std::runtime_error(dir.string() + ": exists and is not an empty directory");
    }
    fs::create_directories(dir, error);
    if (error) {
        throw std::runtime_error(dir.string() +
                                 ": cannot create the directory: " + error.message());
    }
    const int64_t inner = options.inner > 0 ? options.inner : 4 * options.d;
    const SafetensorsDType dtype = options.dtype == "f32"   ? SafetensorsDType::f32
                                   : options.dtype == "f16" ? SafetensorsDType::f16
                                                            : SafetensorsDType::bf16;
    std::vector<checkpoint::TensorToWrite> tensors;
    for (const auto& tensor : tensor_plan(options, inner)) {
        tensors.push_back(encode(tensor, fill_values(tensor, options), dtype));
    }
    checkpoint::write_safetensors(dir / "model.safetensors", tensors);
    write_config(dir / "config.json", options, inner);
}

}  // namespace earshot::model
