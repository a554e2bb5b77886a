// Tests for the whisper.cpp ggml container reader: the real zero-tensor test containers (skipped
// when absent), truncated and corrupted copies of them, and small synthetic files with tensors.
#include "earshot/engine/checkpoint/ggml_file.h"

#include <gtest/gtest.h>

#include <bit>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <random>
#include <span>
#include <string>
#include <vector>

#include "checkpoint_errors.h"
#include "earshot/engine/checkpoint/errors.h"
#include "temp_dir.h"

namespace earshot::checkpoint {
namespace {

namespace fs = std::filesystem;
using earshot::test::contains;
using earshot::test::error_of;
using earshot::test::TempDir;

const fs::path assets_dir = fs::path(EARSHOT_SHARED_DIR) / "whisper-assets";

std::vector<char> read_bytes(const fs::path& path) {
    std::ifstream in(path, std::ios::binary);
    return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

fs::path write_bytes(const fs::path& path, const std::vector<char>& bytes) {
    std::ofstream out(path, std::ios::binary);
    out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
    return path;
}

// Little-endian writer for synthetic containers.
class GgmlWriter {
public:
    void u32(uint32_t value) {
        for (int i = 0; i < 4; ++i) {
            bytes_.push_back(static_cast<char>((value >> (8 * i)) & 0xff));
        }
    }
    void i32(int32_t value) { u32(std::bit_cast<uint32_t>(value)); }
    void f32(float value) { u32(std::bit_cast<uint32_t>(value)); }
    void raw(const std::string& text) { bytes_.insert(bytes_.end(), text.begin(), text.end()); }
    void zeros(std::size_t count) { bytes_.insert(bytes_.end(), count, '\0'); }

    // magic, hparams (tiny-like, with `ftype`), a 2 x 3 mel block and a 3-token vocabulary.
    void header(int32_t ftype = 1) {
        u32(ggml_file_magic);
        for (const int32_t value : {51865, 1500, 384, 6, 4, 448, 384, 6, 4, 80}) {
            i32(value);
        }
        i32(ftype);
        i32(2);
        i32(3);
        for (int i = 0; i < 6; ++i) {
            f32(0.5f * static_cast<float>(i));
        }
        i32(3);
        for (const std::string token : {"a", "", "bc"}) {
            u32(static_cast<uint32_t>(token.size()));
            raw(token);
        }
    }
    void tensor(const std::string& name, int32_t ttype, const std::vector<int32_t>& ne) {
        i32(static_cast<int32_t>(ne.size()));
        i32(static_cast<int32_t>(name.size()));
        i32(ttype);
        for (const int32_t dim : ne) {
            i32(dim);
        }
        raw(name);
    }
    std::size_t size() const { return bytes_.size(); }
    const std::vector<char>& bytes() const { return bytes_; }

private:
    std::vector<char> bytes_;
};

fs::path asset(const std::string& name) { return assets_dir / name; }

#define EARSHOT_REQUIRE_ASSET(path)                                                     \
    if (!fs::exists(path)) {                                                            \
        GTEST_SKIP() << "whisper test asset not found: " << (path).string()             \
                     << " (the ggml test containers live in ../shared/whisper-assets)"; \
    }

TEST(CheckpointGgmlTest, ReadsTinyContainer) {
    const fs::path path = asset("for-tests-ggml-tiny.bin");
    EARSHOT_REQUIRE_ASSET(path);
    EXPECT_TRUE(is_ggml_file(path));
    const GgmlFile file = read_ggml_file(path);
    const GgmlHparams& hp = file.hparams;
    EXPECT_EQ(hp.n_vocab, 51865);
    EXPECT_EQ(hp.n_audio_ctx, 1500);
    EXPECT_EQ(hp.n_audio_state, 384);
    EXPECT_EQ(hp.n_audio_head, 6);
    EXPECT_EQ(hp.n_audio_layer, 4);
    EXPECT_EQ(hp.n_text_ctx, 448);
    EXPECT_EQ(hp.n_text_state, 384);
    EXPECT_EQ(hp.n_text_head, 6);
    EXPECT_EQ(hp.n_text_layer, 4);
    EXPECT_EQ(hp.n_mels, 80);
    EXPECT_EQ(hp.ftype, 1);

    EXPECT_EQ(file.mel_count, 80);
    EXPECT_EQ(file.mel_bins, 201);
    ASSERT_EQ(file.mel_filters.size(), 80u * 201u);
    // Values of openai's mel_filters.npz "mel_80", which this block stores row-major [mel][bin].
    EXPECT_EQ(file.mel_filters[0], 0.0f);
    EXPECT_FLOAT_EQ(file.mel_filters[1], 0.02486259490251541f);
    EXPECT_FLOAT_EQ(file.mel_filters[79 * 201 + 186], 0.000366741674952209f);
    EXPECT_EQ(file.mel_filters[79 * 201 + 200], 0.0f);

    ASSERT_EQ(file.vocab.size(), 50257u);
    EXPECT_EQ(file.vocab[0], "!");
    EXPECT_EQ(file.vocab[1], "\"");
    EXPECT_EQ(file.vocab.back(), "");
    EXPECT_TRUE(file.tensors.empty());
    EXPECT_EQ(file.file_size_bytes, fs::file_size(path));
}

TEST(CheckpointGgmlTest, ReadsTinyEnContainer) {
    const fs::path path = asset("for-tests-ggml-tiny.en.bin");
    EARSHOT_REQUIRE_ASSET(path);
    const GgmlFile file = read_ggml_file(path);
    EXPECT_EQ(file.hparams.n_vocab, 51864);
    EXPECT_EQ(file.hparams.n_audio_state, 384);
    // The .en container stores 50257 entries, one more than gpt2.tiktoken's 50256 ranks: the last
    // is the text "<|endoftext|>" (the multilingual containers end with an empty token instead).
    ASSERT_EQ(file.vocab.size(), 50257u);
    EXPECT_EQ(file.vocab.back(), "<|endoftext|>");
    EXPECT_EQ(file.mel_count, 80);
    EXPECT_EQ(file.mel_bins, 201);
    EXPECT_TRUE(file.tensors.empty());
}

TEST(CheckpointGgmlTest, ReadsLargeContainer) {
    const fs::path path = asset("for-tests-ggml-large.bin");
    EARSHOT_REQUIRE_ASSET(path);
    const GgmlFile file = read_ggml_file(path);
    EXPECT_EQ(file.hparams.n_vocab, 51865);
    EXPECT_EQ(file.hparams.n_audio_state, 1280);
    EXPECT_EQ(file.hparams.n_audio_head, 20);
    EXPECT_EQ(file.hparams.n_audio_layer, 32);
    EXPECT_EQ(file.hparams.n_text_state, 1280);
    EXPECT_EQ(file.hparams.n_text_head, 20);
    EXPECT_EQ(file.hparams.n_text_layer, 32);
    EXPECT_EQ(file.hparams.n_mels, 80);
    EXPECT_EQ(file.mel_count, 80);
    EXPECT_EQ(file.mel_filters.size(), 80u * 201u);
    ASSERT_EQ(file.vocab.size(), 50257u);
    EXPECT_EQ(file.vocab.back(), "");
    EXPECT_TRUE(file.tensors.empty());
}

TEST(CheckpointGgmlTest, TruncatedCopiesThrowCheckpointError) {
    const fs::path source = asset("for-tests-ggml-tiny.bin");
    EARSHOT_REQUIRE_ASSET(source);
    const std::vector<char> bytes = read_bytes(source);
    TempDir dir;
    // Inside the magic, the hparams, the mel header, the mel floats, the vocabulary count, a
    // token length, a token, and one byte short of the end.
    const std::size_t mel_end = 4 + 44 + 8 + 80 * 201 * 4;
    for (const std::size_t size :
         {std::size_t{0}, std::size_t{3}, std::size_t{4}, std::size_t{30}, std::size_t{48},
          std::size_t{52}, std::size_t{1000}, mel_end, mel_end + 2, mel_end + 6, mel_end + 9,
          bytes.size() / 2, bytes.size() - 1}) {
        const fs::path path = write_bytes(dir.path() / ("cut-" + std::to_string(size) + ".bin"),
                                          {bytes.begin(), bytes.begin() + static_cast<long>(size)});
        const std::string message = error_of([&] { read_ggml_file(path); });
        EXPECT_TRUE(contains(message, path.filename().string())) << size;
        EXPECT_TRUE(contains(message, "truncated")) << size;
    }
}

TEST(CheckpointGgmlTest, RejectsBadMagicAndGguf) {
    TempDir dir;
    GgmlWriter writer;
    writer.header();
    std::vector<char> bytes = writer.bytes();
    bytes[0] = 'x';
    const fs::path bad = write_bytes(dir.path() / "bad.bin", bytes);
    EXPECT_FALSE(is_ggml_file(bad));
    const std::string message = error_of([&] { read_ggml_file(bad); });
    EXPECT_TRUE(contains(message, "bad.bin"));
    EXPECT_TRUE(contains(message, "bad magic"));

    const fs::path gguf = write_bytes(dir.path() / "model.gguf", {'G', 'G', 'U', 'F', 3, 0, 0, 0});
    EXPECT_TRUE(contains(error_of([&] { read_ggml_file(gguf); }), "GGUF"));
    EXPECT_FALSE(is_ggml_file(dir.path() / "absent.bin"));
    EXPECT_FALSE(is_ggml_file(dir.path()));
    EXPECT_TRUE(contains(error_of([&] { read_ggml_file(dir.path() / "absent.bin"); }),
                         "absent.bin: no such file"));
}

TEST(CheckpointGgmlTest, ReadsSyntheticTensors) {
    GgmlWriter writer;
    writer.header(0);
    // A Linear [ffn = 2, state = 3] in f32: ggml ne = [3, 2], 24 bytes.
    writer.tensor("encoder.blocks.0.mlp.0.weight", 0, {3, 2});
    const std::size_t first_data = writer.size();
    for (int i = 0; i < 6; ++i) {
        writer.f32(static_cast<float>(i));
    }
    writer.tensor("encoder.conv1.bias", 1, {1, 5});
    const std::size_t second_data = writer.size();
    writer.zeros(10);
    writer.tensor("decoder.token_embedding.weight", 8, {64, 2});  // q8_0: 4 blocks of 34 bytes
    const std::size_t third_data = writer.size();
    writer.zeros(4 * 34);

    TempDir dir;
    const fs::path path = write_bytes(dir.path() / "synthetic.bin", writer.bytes());
    EXPECT_TRUE(is_ggml_file(path));
    const GgmlFile file = read_ggml_file(path);
    EXPECT_EQ(file.hparams.ftype, 0);
    EXPECT_EQ(file.mel_count, 2);
    EXPECT_EQ(file.mel_bins, 3);
    EXPECT_EQ(file.mel_filters, (std::vector<float>{0.0f, 0.5f, 1.0f, 1.5f, 2.0f, 2.5f}));
    EXPECT_EQ(file.vocab, (std::vector<std::string>{"a", "", "bc"}));
    ASSERT_EQ(file.tensors.size(), 3u);

    const GgmlTensorInfo& weight = file.tensors[0];
    EXPECT_EQ(weight.name, "encoder.blocks.0.mlp.0.weight");
    EXPECT_EQ(weight.ttype, GgmlType::f32);
    EXPECT_EQ(weight.ne, (std::vector<int64_t>{3, 2}));
    EXPECT_EQ(weight.data_offset_bytes, first_data);
    EXPECT_EQ(weight.size_bytes, 24u);
    // The data really is where the directory says: element 4 is 4.0f.
    const std::vector<char> bytes = read_bytes(path);
    float element = 0.0f;
    std::memcpy(&element, bytes.data() + weight.data_offset_bytes + 16, sizeof(element));
    EXPECT_EQ(element, 4.0f);

    EXPECT_EQ(file.tensors[1].ttype, GgmlType::f16);
    EXPECT_EQ(file.tensors[1].ne, (std::vector<int64_t>{1, 5}));
    EXPECT_EQ(file.tensors[1].data_offset_bytes, second_data);
    EXPECT_EQ(file.tensors[1].size_bytes, 10u);
    EXPECT_EQ(file.tensors[2].ttype, GgmlType::q8_0);
    EXPECT_EQ(file.tensors[2].data_offset_bytes, third_data);
    EXPECT_EQ(file.tensors[2].size_bytes, 136u);
    EXPECT_EQ(ggml_type_name(file.tensors[2].ttype), "q8_0");
}

// One bad tensor record after a valid header; returns the error message.
std::string tensor_error(const TempDir& dir, int32_t n_dims, int32_t name_len, int32_t ttype,
                         const std::vector<int32_t>& ne, const std::string& name,
                         std::size_t data_bytes) {
    GgmlWriter writer;
    writer.header();
    writer.i32(n_dims);
    writer.i32(name_len);
    writer.i32(ttype);
    for (const int32_t dim : ne) {
        writer.i32(dim);
    }
    writer.raw(name);
    writer.zeros(data_bytes);
    const fs::path path = write_bytes(dir.path() / "broken.bin", writer.bytes());
    return error_of([&] { read_ggml_file(path); });
}

TEST(CheckpointGgmlTest, RejectsBadTensorRecords) {
    TempDir dir;
    EXPECT_TRUE(contains(tensor_error(dir, 0, 1, 0, {}, "w", 0), "n_dims 0 is outside 1..4"));
    EXPECT_TRUE(contains(tensor_error(dir, 5, 1, 0, {1, 1, 1, 1, 1}, "w", 4), "n_dims 5"));
    EXPECT_TRUE(contains(tensor_error(dir, 1, 0, 0, {1}, "", 4), "name length 0"));
    EXPECT_TRUE(contains(tensor_error(dir, 1, 5000, 0, {1}, "w", 4), "name length 5000"));
    const std::string negative = tensor_error(dir, 2, 1, 0, {4, -1}, "w", 16);
    EXPECT_TRUE(contains(negative, "broken.bin: tensor \"w\": dimension ne[1] = -1"));
    // q8_1 (9), iq2_xxs (16) and an id ggml never had: named by id and by ggml's name.
    EXPECT_TRUE(contains(tensor_error(dir, 1, 1, 9, {32}, "w", 64),
                         "broken.bin: tensor \"w\": ggml type 9 (q8_1) is not supported (Earshot "
                         "reads f32, f16, q4_0, q4_1, q5_0, q5_1, q8_0, q2_k, q3_k, q4_k, q5_k, "
                         "q6_k)"));
    EXPECT_TRUE(contains(tensor_error(dir, 1, 1, 16, {256}, "w", 66), "ggml type 16 (iq2_xxs)"));
    EXPECT_TRUE(contains(tensor_error(dir, 1, 1, 99, {32}, "w", 64), "ggml type 99 (unknown)"));
    // A q6_k row must hold whole 256-value blocks.
    EXPECT_TRUE(contains(tensor_error(dir, 1, 1, 14, {128}, "w", 210),
                         "row length ne[0] = 128 is not a multiple of 256, the values in one "
                         "q6_k block"));
    EXPECT_TRUE(contains(tensor_error(dir, 1, 1, 2, {31}, "w", 18), "not a multiple of 32"));
    const std::string past_end = tensor_error(dir, 2, 1, 0, {4, 4}, "w", 60);
    EXPECT_TRUE(contains(past_end, "tensor \"w\": data of 64 bytes"));
    EXPECT_TRUE(contains(past_end, "runs past the end of the file"));
    // A header cut short after a complete vocabulary.
    EXPECT_TRUE(contains(tensor_error(dir, 1, 1, 0, {}, "", 0), "truncated"));

    GgmlWriter twice;
    twice.header();
    for (int i = 0; i < 2; ++i) {
        twice.tensor("dup", 0, {1});
        twice.zeros(4);
    }
    const fs::path path = write_bytes(dir.path() / "twice.bin", twice.bytes());
    EXPECT_TRUE(contains(error_of([&] { read_ggml_file(path); }), "tensor \"dup\": appears twice"));
}

TEST(CheckpointGgmlTest, RejectsNegativeAndAbsurdCounts) {
    TempDir dir;
    GgmlWriter writer;
    writer.header();
    std::vector<char> bytes = writer.bytes();
    // n_audio_head (hparam 4, at byte 4 + 3 * 4) = -6
    bytes[16] = static_cast<char>(0xfa);
    bytes[17] = bytes[18] = bytes[19] = static_cast<char>(0xff);
    const fs::path negative = write_bytes(dir.path() / "negative.bin", bytes);
    EXPECT_TRUE(contains(error_of([&] { read_ggml_file(negative); }),
                         "hyper-parameter n_audio_head is negative (-6)"));

    bytes = writer.bytes();
    bytes[48 + 4] = 0x7f;  // mel bins = 0x7f00007f: far more floats than the file holds
    bytes[48 + 7] = 0x7f;
    const fs::path absurd = write_bytes(dir.path() / "absurd.bin", bytes);
    EXPECT_TRUE(contains(error_of([&] { read_ggml_file(absurd); }), "mel filter block"));
}

// A synthetic file holding an f16 conv1 weight [4, 2, 3] and its f32 bias [4, 1].
GgmlWriter conv1_file() {
    GgmlWriter writer;
    writer.header();
    writer.tensor("encoder.conv1.weight", 1, {3, 2, 4});
    writer.zeros(48);
    writer.tensor("encoder.conv1.bias", 0, {1, 4});
    writer.zeros(16);
    return writer;
}

// Random byte mutations of a synthetic file with tensors either parse or throw CheckpointError.
TEST(CheckpointGgmlTest, MutatedFilesThrowOnlyCheckpointError) {
    const GgmlWriter writer = conv1_file();
    TempDir dir;
    std::mt19937 random(99);
    int parsed = 0;
    int rejected = 0;
    for (int round = 0; round < 400; ++round) {
        std::vector<char> bytes = writer.bytes();
        const int flips = 1 + static_cast<int>(random() % 3);
        for (int i = 0; i < flips; ++i) {
            bytes[random() % bytes.size()] = static_cast<char>(random() & 0xff);
        }
        const fs::path path = write_bytes(dir.path() / "mutated.bin", bytes);
        try {
            read_ggml_file(path);
            ++parsed;
        } catch (const CheckpointError& error) {
            EXPECT_TRUE(contains(error.what(), "mutated.bin: "));
            ++rejected;
        }
    }
    EXPECT_GT(rejected, 0);
    EXPECT_EQ(parsed + rejected, 400);
}

TEST(CheckpointGgmlTest, ParsesBufferAsTheFileReaderDoes) {
    const GgmlWriter writer = conv1_file();
    TempDir dir;
    const fs::path path = write_bytes(dir.path() / "same.bin", writer.bytes());
    const GgmlFile from_file = read_ggml_file(path);
    const auto bytes = std::as_bytes(std::span(writer.bytes()));
    const GgmlFile from_buffer = parse_ggml_file(bytes, "buffer.bin");
    EXPECT_EQ(from_buffer.file_size_bytes, from_file.file_size_bytes);
    EXPECT_EQ(from_buffer.mel_filters, from_file.mel_filters);
    EXPECT_EQ(from_buffer.vocab, from_file.vocab);
    ASSERT_EQ(from_buffer.tensors.size(), 2u);
    for (std::size_t i = 0; i < 2; ++i) {
        EXPECT_EQ(from_buffer.tensors[i].name, from_file.tensors[i].name);
        EXPECT_EQ(from_buffer.tensors[i].ne, from_file.tensors[i].ne);
        EXPECT_EQ(from_buffer.tensors[i].data_offset_bytes, from_file.tensors[i].data_offset_bytes);
        EXPECT_EQ(from_buffer.tensors[i].size_bytes, from_file.tensors[i].size_bytes);
    }
    // Errors name the buffer, and truncation is caught as in a file.
    const std::string error =
        error_of([&] { parse_ggml_file(bytes.first(bytes.size() - 1), "cut.bin"); });
    EXPECT_TRUE(contains(error, "cut.bin: "));
    EXPECT_TRUE(contains(error, "runs past the end of the file"));
    EXPECT_TRUE(contains(error_of([&] { parse_ggml_file({}, "empty.bin"); }), "truncated: magic"));
}

}  // namespace
}  // namespace earshot::checkpoint
