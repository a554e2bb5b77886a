// Tests for read_whisper_config: Hugging Face directories and .safetensors files with their
// config.json, the dtype precedence, whisper.cpp ggml files, and the errors for bad inputs.
#include "earshot/engine/checkpoint/whisper_config.h"

#include <gtest/gtest.h>

#include <bit>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "checkpoint_errors.h"
#include "earshot/engine/checkpoint/errors.h"
#include "earshot/engine/checkpoint/ggml_file.h"
#include "temp_dir.h"

namespace earshot::checkpoint {
namespace {

namespace fs = std::filesystem;
using earshot::test::contains;
using earshot::test::error_of;
using earshot::test::TempDir;

void write_text(const fs::path& path, const std::string& text) {
    std::ofstream out(path, std::ios::binary);
    out << text;
}

// The fields of openai/whisper-large-v3's config.json that matter here, with a replaceable tail.
std::string large_v3_config(const std::string& dtype_field = R"("torch_dtype": "float16")") {
    std::string text = R"({
  "model_type": "whisper",
  "num_mel_bins": 128,
  "max_source_positions": 1500,
  "d_model": 1280,
  "encoder_attention_heads": 20,
  "encoder_layers": 32,
  "encoder_ffn_dim": 5120,
  "max_target_positions": 448,
  "decoder_attention_heads": 20,
  "decoder_layers": 32,
  "decoder_ffn_dim": 5120,
  "vocab_size": 51866,
  "activation_function": "gelu",
  "scale_embedding": false)";
    if (!dtype_field.empty()) {
        text += ",\n  " + dtype_field;
    }
    return text + "\n}\n";
}

// A valid safetensors file whose tensors are `specs` = {name, dtype, element count}, packed.
struct TensorSpec {
    std::string name;
    std::string dtype;
    uint64_t elements;
    uint64_t element_bytes;
};

void write_safetensors(const fs::path& path, const std::vector<TensorSpec>& specs) {
    std::string header = R"({"__metadata__":{"format":"pt"})";
    uint64_t offset = 0;
    for (const auto& spec : specs) {
        const uint64_t end = offset + spec.elements * spec.element_bytes;
        header += ",\"" + spec.name + "\":{\"dtype\":\"" + spec.dtype + "\",\"shape\":[" +
                  std::to_string(spec.elements) + "],\"data_offsets\":[" + std::to_string(offset) +
                  "," + std::to_string(end) + "]}";
        offset = end;
    }
    header += "}";
    while (header.size() % 8 != 0) {
        header += ' ';
    }
    std::string bytes;
    for (int i = 0; i < 8; ++i) {
        bytes += static_cast<char>((header.size() >> (8 * i)) & 0xff);
    }
    bytes += header;
    bytes += std::string(offset, '\0');
    write_text(path, bytes);
}

void expect_large_v3_dims(const WhisperConfig& config) {
    EXPECT_EQ(config.n_mels, 128);
    EXPECT_EQ(config.n_audio_ctx, 1500);
    EXPECT_EQ(config.n_audio_state, 1280);
    EXPECT_EQ(config.n_audio_head, 20);
    EXPECT_EQ(config.n_audio_layer, 32);
    EXPECT_EQ(config.n_audio_ffn, 5120);
    EXPECT_EQ(config.n_text_ctx, 448);
    EXPECT_EQ(config.n_text_state, 1280);
    EXPECT_EQ(config.n_text_head, 20);
    EXPECT_EQ(config.n_text_layer, 32);
    EXPECT_EQ(config.n_text_ffn, 5120);
    EXPECT_EQ(config.n_vocab, 51866);
}

TEST(CheckpointConfigTest, ReadsHfDirectoryWithTorchDtype) {
    TempDir dir;
    write_text(dir.path() / "config.json", large_v3_config());
    const WhisperConfig config = read_whisper_config(dir.path());
    EXPECT_EQ(config.format, CheckpointFormat::hf_directory);
    EXPECT_EQ(config.source, dir.path());
    expect_large_v3_dims(config);
    EXPECT_EQ(config.weight_dtype, "f16");
    EXPECT_EQ(config.dtype_source, "torch_dtype in config.json");
    EXPECT_EQ(format_name(config.format), "hf_directory");

    // A path to the config.json itself reads the same directory.
    const WhisperConfig same = read_whisper_config(dir.path() / "config.json");
    EXPECT_EQ(same.format, CheckpointFormat::hf_directory);
    EXPECT_EQ(same.n_vocab, 51866);
}

TEST(CheckpointConfigTest, DtypeFieldVariantsAndDefault) {
    TempDir dir;
    write_text(dir.path() / "config.json", large_v3_config(R"("dtype": "bfloat16")"));
    WhisperConfig config = read_whisper_config(dir.path());
    EXPECT_EQ(config.weight_dtype, "bf16");
    EXPECT_EQ(config.dtype_source, "dtype in config.json");

    write_text(dir.path() / "config.json", large_v3_config(R"("torch_dtype": "float32")"));
    EXPECT_EQ(read_whisper_config(dir.path()).weight_dtype, "f32");

    write_text(dir.path() / "config.json", large_v3_config(""));
    config = read_whisper_config(dir.path());
    EXPECT_EQ(config.weight_dtype, "f32");
    EXPECT_EQ(config.dtype_source, "default (no dtype in checkpoint)");

    write_text(dir.path() / "config.json", large_v3_config(R"("torch_dtype": "int8")"));
    const std::string message = error_of([&] { read_whisper_config(dir.path()); });
    EXPECT_TRUE(contains(message, "config.json: field \"torch_dtype\" is \"int8\""));
}

TEST(CheckpointConfigTest, SafetensorsHeaderWinsOverTorchDtype) {
    TempDir dir;
    write_text(dir.path() / "config.json", large_v3_config());  // says float16
    write_safetensors(
        dir.path() / "model.safetensors",
        {{"model.encoder.conv1.weight", "F32", 12, 4}, {"model.encoder.conv1.bias", "F32", 4, 4}});
    const WhisperConfig config = read_whisper_config(dir.path());
    EXPECT_EQ(config.weight_dtype, "f32");
    EXPECT_EQ(config.dtype_source, "safetensors header (model.safetensors)");
    expect_large_v3_dims(config);
}

TEST(CheckpointConfigTest, MixedHeaderTakesTheMajorityByElements) {
    TempDir dir;
    write_text(dir.path() / "config.json", large_v3_config(""));
    // 64 f16 elements of weights, 8 f32 elements of layer norms, and an integer buffer.
    write_safetensors(
        dir.path() / "model.safetensors",
        {{"ln.weight", "F32", 8, 4}, {"fc1.weight", "F16", 64, 2}, {"ids", "I64", 100, 8}});
    EXPECT_EQ(read_whisper_config(dir.path()).weight_dtype, "f16");

    write_safetensors(dir.path() / "model.safetensors", {{"w", "F64", 8, 8}});
    EXPECT_TRUE(
        contains(error_of([&] { read_whisper_config(dir.path()); }), "weights are mostly F64"));

    // Only integer tensors: the header says nothing about floats, so config.json (absent) and
    // the default decide.
    write_safetensors(dir.path() / "model.safetensors", {{"ids", "I32", 4, 4}});
    EXPECT_EQ(read_whisper_config(dir.path()).dtype_source, "default (no dtype in checkpoint)");
}

TEST(CheckpointConfigTest, ReadsShardedIndex) {
    TempDir dir;
    write_text(dir.path() / "config.json", large_v3_config());
    write_safetensors(dir.path() / "model-00001-of-00002.safetensors", {{"a", "BF16", 16, 2}});
    write_safetensors(dir.path() / "model-00002-of-00002.safetensors", {{"b", "BF16", 16, 2}});
    write_text(dir.path() / "model.safetensors.index.json",
               R"({"metadata": {"total_size": 64}, "weight_map": {
                   "a": "model-00001-of-00002.safetensors",
                   "b": "model-00002-of-00002.safetensors"}})");
    const WhisperConfig config = read_whisper_config(dir.path());
    EXPECT_EQ(config.weight_dtype, "bf16");
    EXPECT_TRUE(contains(config.dtype_source, "2 shards in model.safetensors.index.json"));

    fs::remove(dir.path() / "model-00002-of-00002.safetensors");
    EXPECT_TRUE(contains(error_of([&] { read_whisper_config(dir.path()); }),
                         "weight_map names shard \"model-00002-of-00002.safetensors\""));
}

TEST(CheckpointConfigTest, ReadsSafetensorsFileWithConfigBeside) {
    TempDir dir;
    write_text(dir.path() / "config.json", large_v3_config(R"("torch_dtype": "float32")"));
    const fs::path file = dir.path() / "whisper-large-v3.safetensors";
    write_safetensors(file, {{"model.decoder.embed_tokens.weight", "F16", 32, 2}});
    const WhisperConfig config = read_whisper_config(file);
    EXPECT_EQ(config.format, CheckpointFormat::safetensors_file);
    EXPECT_EQ(config.source, file);
    expect_large_v3_dims(config);
    EXPECT_EQ(config.weight_dtype, "f16");
    EXPECT_EQ(config.dtype_source, "safetensors header (whisper-large-v3.safetensors)");

    fs::remove(dir.path() / "config.json");
    const std::string message = error_of([&] { read_whisper_config(file); });
    EXPECT_TRUE(contains(message, "whisper-large-v3.safetensors: no config.json beside"));
}

TEST(CheckpointConfigTest, CorruptSafetensorsHeaderIsReported) {
    TempDir dir;
    write_text(dir.path() / "config.json", large_v3_config());
    write_text(dir.path() / "model.safetensors", std::string("\x02\0\0\0\0\0\0\0{}", 10));
    // N = 2 is fine, "{}" is an empty header, but no bytes are left over: valid and empty.
    EXPECT_EQ(read_whisper_config(dir.path()).weight_dtype, "f16");
    write_text(dir.path() / "model.safetensors", std::string("\x02\0\0\0\0\0\0\0{}xyz", 13));
    EXPECT_TRUE(contains(error_of([&] { read_whisper_config(dir.path()); }),
                         "model.safetensors: 3 trailing bytes"));
}

TEST(CheckpointConfigTest, MissingFieldNamesFileAndField) {
    TempDir dir;
    std::string text = large_v3_config();
    text.replace(text.find("\"d_model\""), 9, "\"d_modal\"");
    write_text(dir.path() / "config.json", text);
    const std::string message = error_of([&] { read_whisper_config(dir.path()); });
    EXPECT_TRUE(contains(message, "config.json: missing field \"d_model\""));
    EXPECT_TRUE(contains(message, (dir.path() / "config.json").string()));
    EXPECT_EQ(message.find('\n'), std::string::npos);
}

TEST(CheckpointConfigTest, NonIntegerAndNegativeFields) {
    TempDir dir;
    const auto error_with = [&](const std::string& from, const std::string& to) {
        std::string text = large_v3_config();
        text.replace(text.find(from), from.size(), to);
        write_text(dir.path() / "config.json", text);
        return error_of([&] { read_whisper_config(dir.path()); });
    };
    EXPECT_TRUE(contains(error_with("\"vocab_size\": 51866", "\"vocab_size\": \"51866\""),
                         "field \"vocab_size\" is not an integer (got \"51866\")"));
    EXPECT_TRUE(contains(error_with("\"encoder_layers\": 32", "\"encoder_layers\": 32.5"),
                         "field \"encoder_layers\" is not an integer"));
    EXPECT_TRUE(contains(error_with("\"decoder_layers\": 32", "\"decoder_layers\": -1"),
                         "field \"decoder_layers\" is negative (got -1)"));
}

TEST(CheckpointConfigTest, MalformedJson) {
    TempDir dir;
    write_text(dir.path() / "config.json", "{\"num_mel_bins\": 80,\n");
    const std::string message = error_of([&] { read_whisper_config(dir.path()); });
    EXPECT_TRUE(contains(message, "config.json: malformed JSON"));
    EXPECT_EQ(message.find('\n'), std::string::npos);

    write_text(dir.path() / "config.json", "[80]");
    EXPECT_TRUE(contains(error_of([&] { read_whisper_config(dir.path()); }),
                         "config.json: top level is a JSON array"));
}

TEST(CheckpointConfigTest, MissingPathAndDirectoryWithoutConfig) {
    TempDir dir;
    const fs::path absent = dir.path() / "whisper-nowhere";
    EXPECT_TRUE(contains(error_of([&] { read_whisper_config(absent); }),
                         "whisper-nowhere: no such file or directory"));
    EXPECT_TRUE(contains(error_of([&] { read_whisper_config(dir.path()); }),
                         "directory has no config.json"));
    write_text(dir.path() / "notes.txt", "hello");
    EXPECT_TRUE(contains(error_of([&] { read_whisper_config(dir.path() / "notes.txt"); }),
                         "notes.txt: not a recognised checkpoint"));
}

TEST(CheckpointConfigTest, ReadsGgmlTestContainer) {
    const fs::path path = fs::path(EARSHOT_SHARED_DIR) / "whisper-assets/for-tests-ggml-tiny.bin";
    if (!fs::exists(path)) {
        GTEST_SKIP() << "whisper test asset not found: " << path.string();
    }
    const WhisperConfig config = read_whisper_config(path);
    EXPECT_EQ(config.format, CheckpointFormat::ggml_file);
    EXPECT_EQ(config.n_mels, 80);
    EXPECT_EQ(config.n_audio_ctx, 1500);
    EXPECT_EQ(config.n_audio_state, 384);
    EXPECT_EQ(config.n_audio_head, 6);
    EXPECT_EQ(config.n_audio_layer, 4);
    EXPECT_EQ(config.n_audio_ffn, 1536);  // no tensors: 4 x state
    EXPECT_EQ(config.n_text_ctx, 448);
    EXPECT_EQ(config.n_text_state, 384);
    EXPECT_EQ(config.n_text_head, 6);
    EXPECT_EQ(config.n_text_layer, 4);
    EXPECT_EQ(config.n_text_ffn, 1536);
    EXPECT_EQ(config.n_vocab, 51865);
    EXPECT_EQ(config.weight_dtype, "f16");
    EXPECT_EQ(config.dtype_source, "ggml ftype 1");
}

// A synthetic ggml file: tiny hparams with `ftype`, empty mel and vocab blocks, and optionally an
// encoder mlp.0 weight of ggml ne [384, 1000].
fs::path write_ggml(const fs::path& path, int32_t ftype, bool with_mlp) {
    std::string bytes;
    const auto i32 = [&](int32_t value) {
        const auto u = std::bit_cast<uint32_t>(value);
        for (int i = 0; i < 4; ++i) {
            bytes += static_cast<char>((u >> (8 * i)) & 0xff);
        }
    };
    i32(static_cast<int32_t>(ggml_file_magic));
    for (const int32_t value : {51865, 1500, 384, 6, 4, 448, 384, 6, 4, 80}) {
        i32(value);
    }
    i32(ftype);
    i32(0);  // mel count
    i32(0);  // mel bins
    i32(0);  // vocabulary count
    if (with_mlp) {
        const std::string name = "encoder.blocks.0.mlp.0.weight";
        i32(2);
        i32(static_cast<int32_t>(name.size()));
        i32(1);  // f16
        i32(384);
        i32(1000);
        bytes += name;
        bytes += std::string(384 * 1000 * 2, '\0');
    }
    write_text(path, bytes);
    return path;
}

TEST(CheckpointConfigTest, GgmlFfnFromTensorQuantizedAsF16AndUnknownFtypeRejected) {
    TempDir dir;
    const WhisperConfig config = read_whisper_config(write_ggml(dir.path() / "m.bin", 1, true));
    EXPECT_EQ(config.n_audio_ffn, 1000);
    EXPECT_EQ(config.n_text_ffn, 1536);
    EXPECT_EQ(config.weight_dtype, "f16");

    const WhisperConfig f32 = read_whisper_config(write_ggml(dir.path() / "f32.dat", 0, false));
    EXPECT_EQ(f32.weight_dtype, "f32");
    EXPECT_EQ(f32.dtype_source, "ggml ftype 0");

    // Quantized tensors keep their blocks; the program computes them as f16 weights.
    const WhisperConfig q5 = read_whisper_config(write_ggml(dir.path() / "q5.bin", 2009, false));
    EXPECT_EQ(q5.weight_dtype, "f16");
    EXPECT_EQ(q5.dtype_source, "ggml ftype 2009 (mostly q5_1, kept in its blocks)");

    const fs::path unknown = write_ggml(dir.path() / "q.bin", 2006, false);  // ggml_ftype 6: none
    const std::string message = error_of([&] { read_whisper_config(unknown); });
    EXPECT_TRUE(contains(message, "q.bin: ggml ftype 2006 is not a file type Earshot knows"));
}

}  // namespace
}  // namespace earshot::checkpoint
