// Random checkpoints written and loaded back: every value against an independent regeneration of
// the documented recipe (f32, f16, bf16), names without the `model.` prefix, a sharded copy, a
// synthetic f32 ggml file with the openai names, and the parameter list of the program.
#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <numbers>
#include <random>
#include <string>
#include <vector>

#include "checkpoint_files.h"
#include "earshot/base/half_float.h"
#include "earshot/engine/checkpoint/ggml_file.h"
#include "earshot/engine/model/random_checkpoint.h"
#include "earshot/engine/model/whisper_checkpoint.h"
#include "temp_dir.h"

namespace earshot::model {
namespace {

namespace fs = std::filesystem;
using checkpoint::Weight;
using checkpoint::WeightDType;
using earshot::test::TempDir;

RandomCheckpointOptions small_options(const std::string& dtype) {
    RandomCheckpointOptions o{.mels = 20,
                              .d = 64,
                              .heads = 4,
                              .enc_layers = 2,
                              .dec_layers = 2,
                              .vocab = 500,
                              .frames = 200,
                              .max_tokens = 32,
                              .dtype = dtype,
                              .seed = 42,
                              .projection_std = 0.25};
    return o;
}

std::vector<float> to_f32(const Weight& w) {
    std::vector<float> out(w.element_count());
    checkpoint::convert_to_f32(w, out);
    return out;
}

// The recipe of random_checkpoint.h, written again here.
class Regenerator {
public:
    explicit Regenerator(const RandomCheckpointOptions& options) : o_(options) {}

    std::vector<double> values(const std::string& name, uint64_t count) const {
        std::vector<double> out(count);
        if (name == "model.encoder.embed_positions.weight") {
            const uint64_t d = static_cast<uint64_t>(o_.d);
            const uint64_t half = d / 2;
            const double inc = std::log(10000.0) / static_cast<double>(half - 1);
            for (uint64_t t = 0; t < count / d; ++t) {
                for (uint64_t i = 0; i < half; ++i) {
                    const double a =
                        static_cast<double>(t) * std::exp(-inc * static_cast<double>(i));
                    out[t * d + i] = std::sin(a);
                    out[t * d + half + i] = std::cos(a);
                }
            }
            return out;
        }
        double mean = 0.0;
        double std = o_.projection_std;
        if (name.ends_with("layer_norm.weight")) {
            mean = 1.0;
            std = 0.1;
        } else if (name.ends_with("layer_norm.bias")) {
            std = 0.05;
        } else if (name.ends_with(".bias")) {
            std = 0.02;
        } else if (name.find("embed_") != std::string::npos) {
            std = 0.1;
        }
        uint64_t hash = 0xcbf29ce484222325ULL;
        for (const char c : name) hash = (hash ^ static_cast<unsigned char>(c)) * 0x100000001b3ULL;
        std::mt19937_64 engine(o_.seed ^ hash);
        const auto uniform = [&] {
            return static_cast<double>(engine() >> 11) / 9007199254740992.0;
        };
        for (uint64_t i = 0; i < count; i += 2) {
            const double u1 = uniform();
            const double u2 = uniform();
            const double r = std::sqrt(-2.0 * std::log(1.0 - u1));
            out[i] = mean + std * r * std::cos(2.0 * std::numbers::pi * u2);
            if (i + 1 < count) out[i + 1] = mean + std * r * std::sin(2.0 * std::numbers::pi * u2);
        }
        return out;
    }

private:
    RandomCheckpointOptions o_;
};

// What a double becomes when stored: f32 by a cast, then f16 by the compiler's _Float16 (where
// available) or bf16 by the nearest of the two truncation neighbours.
float stored(double value, const std::string& dtype) {
    const float f = static_cast<float>(value);
    if (dtype == "f32") return f;
    if (dtype == "f16") {
#if defined(__FLT16_MAX__)
        return static_cast<float>(static_cast<_Float16>(f));
#else
        return base::f16_to_f32(base::f32_to_f16(f));
#endif
    }
    const uint32_t bits = std::bit_cast<uint32_t>(f);
    const float down = std::bit_cast<float>(bits & 0xffff0000u);
    const float up = std::bit_cast<float>((bits & 0xffff0000u) + 0x10000u);
    const double to_down = std::fabs(static_cast<double>(f) - static_cast<double>(down));
    const double to_up = std::fabs(static_cast<double>(up) - static_cast<double>(f));
    if (to_up < to_down) return up;
    if (to_down < to_up) return down;
    return ((bits >> 16) & 1u) != 0 ? up : down;
}

class WeightsRoundTrip : public testing::TestWithParam<std::string> {};

TEST_P(WeightsRoundTrip, EveryValueMatchesAnIndependentRegeneration) {
    const std::string dtype = GetParam();
    const TempDir dir("earshot-weights");
    const RandomCheckpointOptions options = small_options(dtype);
    write_random_checkpoint(dir.path() / "ck", options);

    const WhisperCheckpoint ck = load_whisper_checkpoint(dir.path() / "ck");
    EXPECT_EQ(ck.binding.values.dims.at("D"), 64);
    EXPECT_EQ(ck.binding.values.dims.at("Frames"), 200);
    EXPECT_EQ(ck.binding.values.dims.at("Inner"), 256);
    EXPECT_EQ(program::dtype_name(ck.binding.values.elements.at("T")), dtype);
    // 5 stem/position tensors, 15 per encoder layer, 24 per decoder layer (no k_proj biases),
    // 2 norms of 2, token embedding and decoder positions.
    ASSERT_EQ(ck.weights.weights().size(), 5u + 2 * 15 + 2 * 24 + 4 + 2);

    const Regenerator regenerate(options);
    for (const auto& w : ck.weights.weights()) {
        SCOPED_TRACE(w.source_name);
        EXPECT_EQ(checkpoint::weight_dtype_name(w.dtype), dtype);
        const std::vector<float> got = to_f32(w);
        const std::vector<double> want = regenerate.values(w.source_name, w.element_count());
        for (std::size_t i = 0; i < got.size(); ++i) {
            ASSERT_EQ(got[i], stored(want[i], dtype)) << "index " << i;
        }
    }
    const Weight* q = ck.weights.find("decoder_layers.1.encoder_attn.q_proj.weight");
    ASSERT_NE(q, nullptr);
    EXPECT_EQ(q->source_name, "model.decoder.layers.1.encoder_attn.q_proj.weight");
    EXPECT_EQ(q->shape, (std::vector<int64_t>{64, 64}));
    EXPECT_EQ(ck.weights.find("encoder_layers.0.self_attn.k_proj.bias"), nullptr);

    // Projection weights have the requested spread (1024 samples: within 10 %).
    const std::vector<float> values = to_f32(*q);
    double sum_sq = 0.0;
    for (const float v : values) sum_sq += static_cast<double>(v) * static_cast<double>(v);
    EXPECT_NEAR(std::sqrt(sum_sq / static_cast<double>(values.size())), 0.25, 0.025);

    // The sinusoids of reference §2.3 at d = 64: inc = ln(10000) / 31.
    const std::vector<float> positions = to_f32(*ck.weights.find("encoder_positions"));
    const float tolerance = dtype == "f32" ? 1e-7f : (dtype == "f16" ? 5e-4f : 4e-3f);
    EXPECT_NEAR(positions[64 + 0], 0.84147098f, tolerance);   // sin 1
    EXPECT_NEAR(positions[64 + 32], 0.54030231f, tolerance);  // cos 1
    EXPECT_NEAR(positions[64 + 1], std::sin(std::exp(-std::log(10000.0f) / 31.0f)), tolerance);
    EXPECT_EQ(positions[0 + 32], 1.0f);  // cos 0
}

INSTANTIATE_TEST_SUITE_P(AllDtypes, WeightsRoundTrip, testing::Values("f32", "f16", "bf16"));

TEST(WeightsRoundTrip, SameSeedSameBytesOtherSeedOtherBytes) {
    const TempDir dir("earshot-weights");
    RandomCheckpointOptions options = small_options("f16");
    write_random_checkpoint(dir.path() / "a", options);
    write_random_checkpoint(dir.path() / "b", options);
    options.seed = 43;
    write_random_checkpoint(dir.path() / "c", options);
    const auto a = test::read_file_bytes(dir.path() / "a" / "model.safetensors");
    EXPECT_EQ(a, test::read_file_bytes(dir.path() / "b" / "model.safetensors"));
    const auto c = test::read_file_bytes(dir.path() / "c" / "model.safetensors");
    ASSERT_EQ(a.size(), c.size());
    EXPECT_NE(a, c);
    // The header is padded with spaces to a multiple of 8 and records {"format":"pt"}.
    uint64_t header_bytes = 0;
    std::memcpy(&header_bytes, a.data(), 8);
    EXPECT_EQ(header_bytes % 8, 0u);
    const auto header = nlohmann::json::parse(std::string(a.data() + 8, header_bytes));
    EXPECT_EQ(header["__metadata__"]["format"], "pt");
    EXPECT_EQ(header["model.encoder.conv1.weight"]["shape"], nlohmann::json({64, 20, 3}));
    EXPECT_FALSE(header.contains("proj_out.weight"));
}

TEST(WeightsRoundTrip, NamesWithoutTheModelPrefixLoadTheSame) {
    const TempDir dir("earshot-weights");
    write_random_checkpoint(dir.path() / "ck", small_options("bf16"));
    const WhisperCheckpoint ck = load_whisper_checkpoint(dir.path() / "ck");
    auto tensors = test::copy_tensors(ck.weights);
    for (auto& t : tensors) t.name = t.name.substr(std::string("model.").size());
    test::write_hf_checkpoint(dir.path() / "bare", dir.path() / "ck" / "config.json", tensors);

    const WhisperCheckpoint bare = load_whisper_checkpoint(dir.path() / "bare");
    ASSERT_EQ(bare.weights.weights().size(), ck.weights.weights().size());
    const Weight* fc2 = bare.weights.find("encoder_layers.1.mlp.fc2.bias");
    ASSERT_NE(fc2, nullptr);
    EXPECT_EQ(fc2->source_name, "encoder.layers.1.fc2.bias");
    EXPECT_EQ(to_f32(*fc2), to_f32(*ck.weights.find("encoder_layers.1.mlp.fc2.bias")));
}

TEST(WeightsRoundTrip, TiedProjectionIsAcceptedAndDropped) {
    const TempDir dir("earshot-weights");
    write_random_checkpoint(dir.path() / "ck", small_options("f32"));
    const WhisperCheckpoint ck = load_whisper_checkpoint(dir.path() / "ck");
    auto tensors = test::copy_tensors(ck.weights);
    for (const auto& t : std::vector(tensors)) {
        if (t.name == "model.decoder.embed_tokens.weight") {
            tensors.push_back({"proj_out.weight", t.dtype, t.shape, t.bytes});
        }
    }
    test::write_hf_checkpoint(dir.path() / "tied", dir.path() / "ck" / "config.json", tensors);
    const WhisperCheckpoint tied = load_whisper_checkpoint(dir.path() / "tied");
    EXPECT_EQ(tied.weights.weights().size(), ck.weights.weights().size());
    for (const auto& w : tied.weights.weights()) EXPECT_NE(w.source_name, "proj_out.weight");
}

TEST(WeightsRoundTrip, ShardedCopyLoadsTheSame) {
    const TempDir dir("earshot-weights");
    write_random_checkpoint(dir.path() / "ck", small_options("f16"));
    const WhisperCheckpoint ck = load_whisper_checkpoint(dir.path() / "ck");
    const auto tensors = test::copy_tensors(ck.weights);
    std::vector<checkpoint::TensorToWrite> shards[2];
    nlohmann::json weight_map = nlohmann::json::object();
    const char* names[2] = {"model-00001-of-00002.safetensors", "model-00002-of-00002.safetensors"};
    for (std::size_t i = 0; i < tensors.size(); ++i) {
        shards[i % 2].push_back(tensors[i]);
        weight_map[tensors[i].name] = names[i % 2];
    }
    const fs::path sharded = dir.path() / "sharded";
    fs::create_directories(sharded);
    fs::copy_file(dir.path() / "ck" / "config.json", sharded / "config.json");
    checkpoint::write_safetensors(sharded / names[0], shards[0]);
    checkpoint::write_safetensors(sharded / names[1], shards[1]);
    std::ofstream(sharded / "model.safetensors.index.json")
        << nlohmann::json{{"metadata", {{"total_size", 0}}}, {"weight_map", weight_map}}.dump();

    const WhisperCheckpoint loaded = load_whisper_checkpoint(sharded);
    ASSERT_EQ(loaded.weights.weights().size(), ck.weights.weights().size());
    std::map<std::string, int> files;
    for (const auto& w : ck.weights.weights()) {
        const Weight* other = loaded.weights.find(w.path);
        ASSERT_NE(other, nullptr) << w.path;
        EXPECT_EQ(other->shape, w.shape);
        EXPECT_EQ(to_f32(*other), to_f32(w)) << w.path;
        ++files[other->file.filename().string()];
    }
    EXPECT_EQ(files.size(), 2u);
    EXPECT_EQ(files[names[0]] + files[names[1]], static_cast<int>(tensors.size()));
}

// The openai name of an HF name (reference §6b), for writing a ggml file in the test.
std::string openai_name(std::string name) {
    name = name.substr(std::string("model.").size());
    const std::map<std::string, std::string> whole = {
        {"encoder.embed_positions.weight", "encoder.positional_embedding"},
        {"decoder.embed_positions.weight", "decoder.positional_embedding"},
        {"decoder.embed_tokens.weight", "decoder.token_embedding.weight"}};
    if (whole.contains(name)) return whole.at(name);
    const auto replace = [&](const std::string& from, const std::string& to) {
        const auto at = name.find(from);
        if (at != std::string::npos) name.replace(at, from.size(), to);
    };
    if (name.starts_with("encoder.layer_norm.")) replace("layer_norm", "ln_post");
    if (name.starts_with("decoder.layer_norm.")) replace("layer_norm", "ln");
    replace(".layers.", ".blocks.");
    replace(".self_attn_layer_norm.", ".attn_ln.");
    replace(".encoder_attn_layer_norm.", ".cross_attn_ln.");
    replace(".final_layer_norm.", ".mlp_ln.");
    replace(".self_attn.", ".attn.");
    replace(".encoder_attn.", ".cross_attn.");
    replace(".q_proj.", ".query.");
    replace(".k_proj.", ".key.");
    replace(".v_proj.", ".value.");
    replace(".out_proj.", ".out.");
    replace(".fc1.", ".mlp.0.");
    replace(".fc2.", ".mlp.2.");
    return name;
}

class ByteWriter {
public:
    void i32(int32_t v) {
        const auto u = std::bit_cast<uint32_t>(v);
        for (int i = 0; i < 4; ++i) bytes.push_back(static_cast<char>((u >> (8 * i)) & 0xff));
    }
    void raw(const void* data, std::size_t size) {
        const char* p = static_cast<const char*>(data);
        bytes.insert(bytes.end(), p, p + size);
    }
    std::vector<char> bytes;
};

TEST(WeightsRoundTrip, SyntheticF32GgmlEqualsTheHfCheckpoint) {
    const TempDir dir("earshot-weights");
    const RandomCheckpointOptions o = small_options("f32");
    write_random_checkpoint(dir.path() / "ck", o);
    const WhisperCheckpoint hf = load_whisper_checkpoint(dir.path() / "ck");

    ByteWriter w;
    w.i32(static_cast<int32_t>(checkpoint::ggml_file_magic));
    for (const int64_t v : {o.vocab, o.frames / 2, o.d, o.heads, o.enc_layers, o.max_tokens, o.d,
                            o.heads, o.dec_layers, o.mels, int64_t{0}}) {
        w.i32(static_cast<int32_t>(v));
    }
    w.i32(static_cast<int32_t>(o.mels));  // mel filters: mels x 1 zeros
    w.i32(1);
    for (int64_t i = 0; i < o.mels; ++i) w.i32(0);
    w.i32(0);  // no vocabulary
    int written = 0;
    for (const auto& weight : hf.weights.weights()) {
        const std::string name = openai_name(weight.source_name);
        // ggml order (innermost first); the conv biases are stored [D, 1], i.e. ne = [1, D].
        std::vector<int64_t> ne;
        if (name == "encoder.conv1.bias" || name == "encoder.conv2.bias") ne.push_back(1);
        for (auto dim = weight.shape.rbegin(); dim != weight.shape.rend(); ++dim)
            ne.push_back(*dim);
        w.i32(static_cast<int32_t>(ne.size()));
        w.i32(static_cast<int32_t>(name.size()));
        w.i32(0);  // f32
        for (const int64_t n : ne) w.i32(static_cast<int32_t>(n));
        w.raw(name.data(), name.size());
        w.raw(weight.bytes.data(), weight.bytes.size());
        ++written;
    }
    test::write_file_bytes(dir.path() / "small.bin", w.bytes);

    const WhisperCheckpoint ggml = load_whisper_checkpoint(dir.path() / "small.bin");
    EXPECT_EQ(ggml.binding.config.format, checkpoint::CheckpointFormat::ggml_file);
    EXPECT_EQ(ggml.binding.values.dims, hf.binding.values.dims);
    ASSERT_EQ(static_cast<int>(ggml.weights.weights().size()), written);
    for (const auto& weight : hf.weights.weights()) {
        const Weight* other = ggml.weights.find(weight.path);
        ASSERT_NE(other, nullptr) << weight.path;
        EXPECT_EQ(other->source_name, openai_name(weight.source_name));
        EXPECT_EQ(other->shape, weight.shape) << weight.path;
        EXPECT_EQ(to_f32(*other), to_f32(weight)) << weight.path;
    }
    EXPECT_EQ(ggml.weights.find("encoder_layers.1.self_attn.q_proj.weight")->source_name,
              "encoder.blocks.1.attn.query.weight");
    EXPECT_EQ(ggml.weights.find("conv1_bias")->shape, (std::vector<int64_t>{64}));
}

checkpoint::WhisperConfig tiny_config() {
    checkpoint::WhisperConfig c;
    c.source = "tiny";
    c.n_mels = 80;
    c.n_audio_ctx = 1500;
    c.n_audio_state = c.n_text_state = 384;
    c.n_audio_head = c.n_text_head = 6;
    c.n_audio_layer = c.n_text_layer = 4;
    c.n_audio_ffn = c.n_text_ffn = 1536;
    c.n_text_ctx = 448;
    c.n_vocab = 51865;
    c.weight_dtype = "f16";
    return c;
}

TEST(WhisperParams, TinyHas179ParamsOf115Required) {
    const WhisperBinding binding = bind_whisper(tiny_config());
    const std::vector<ParamSpec> params = whisper_params(binding);
    // Root: 5 stem/position params, token embedding, decoder positions, 2 final norms of 2;
    // encoder layer: 2 norms of 2 + 6 linears of 2 = 16; decoder layer: 3 norms + 10 linears = 26.
    ASSERT_EQ(params.size(), 7u + 4 + 4 * 16 + 4 * 26);
    int optional = 0;
    for (const auto& p : params) optional += p.optional ? 1 : 0;
    EXPECT_EQ(optional, 4 * 6 + 4 * 10);  // every Linear bias

    EXPECT_EQ(params.front().path, "conv1_weight");
    EXPECT_EQ(params.front().type.str(), "Tensor[D, Mels, 3; T]");
    EXPECT_EQ(params.front().shape, (std::vector<int64_t>{384, 80, 3}));
    EXPECT_EQ(params.back().path, "decoder_norm.bias");
    std::map<std::string, const ParamSpec*> by_path;
    for (const auto& p : params) by_path[p.path] = &p;
    ASSERT_EQ(by_path.size(), params.size());
    const ParamSpec& positions = *by_path.at("encoder_positions");
    EXPECT_EQ(positions.type.str(), "Tensor[1 + (-1 + Frames) / 2, D; T]");
    EXPECT_EQ(positions.shape, (std::vector<int64_t>{1500, 384}));
    const ParamSpec& fc2 = *by_path.at("encoder_layers.3.mlp.fc2.weight");
    EXPECT_EQ(fc2.type.str(), "Tensor[D, Inner; T]");
    EXPECT_EQ(fc2.shape, (std::vector<int64_t>{384, 1536}));
    const ParamSpec& bias = *by_path.at("decoder_layers.3.encoder_attn.k_proj.bias");
    EXPECT_TRUE(bias.optional);
    EXPECT_EQ(bias.type.str(), "Tensor[D; T]?");
    EXPECT_EQ(bias.shape, (std::vector<int64_t>{384}));
    EXPECT_EQ(by_path.at("token_embedding")->shape, (std::vector<int64_t>{51865, 384}));
    EXPECT_FALSE(by_path.contains("encoder_layers.4.mlp.fc1.weight"));
}

}  // namespace
}  // namespace earshot::model
