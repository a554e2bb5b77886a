// Tests for the safetensors header parser: a valid file built byte by byte, then one corruption
// per rule, each asserting that the message names the file and the tensor.
#include "earshot/engine/checkpoint/safetensors.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <filesystem>
#include <fstream>
#include <random>
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

// u64 little-endian N, the header text padded with spaces to a multiple of 8 (as the reference
// writer does), then `data_bytes` bytes of data.
std::vector<std::byte> make_safetensors(const std::string& header, std::size_t data_bytes,
                                        bool pad = true) {
    std::string text = header;
    while (pad && text.size() % 8 != 0) {
        text += ' ';
    }
    std::vector<std::byte> bytes;
    const uint64_t n = text.size();
    for (int i = 0; i < 8; ++i) {
        bytes.push_back(static_cast<std::byte>((n >> (8 * i)) & 0xff));
    }
    for (const char c : text) {
        bytes.push_back(static_cast<std::byte>(c));
    }
    for (std::size_t i = 0; i < data_bytes; ++i) {
        bytes.push_back(static_cast<std::byte>(i & 0xff));
    }
    return bytes;
}

fs::path write_file(const fs::path& path, const std::vector<std::byte>& bytes) {
    std::ofstream out(path, std::ios::binary);
    out.write(reinterpret_cast<const char*>(bytes.data()),
              static_cast<std::streamsize>(bytes.size()));
    return path;
}

// Two F32 tensors and a F16 one: 24 + 8 + 4 = 36 data bytes.
const std::string valid_header =
    R"({"__metadata__":{"format":"pt"},)"
    R"("b.weight":{"dtype":"F32","shape":[2,3],"data_offsets":[0,24]},)"
    R"("a.bias":{"dtype":"F32","shape":[2],"data_offsets":[24,32]},)"
    R"("c.scale":{"dtype":"F16","shape":[1,2],"data_offsets":[32,36]}})";

class CheckpointSafetensorsTest : public testing::Test {
protected:
    // Writes `header` + data into `name` and returns the error message of reading it.
    std::string error_for(const std::string& header, std::size_t data_bytes,
                          const std::string& name = "model.safetensors") {
        const fs::path path = write_file(dir_.path() / name, make_safetensors(header, data_bytes));
        return error_of([&] { read_safetensors_header(path); });
    }

    TempDir dir_;
};

TEST_F(CheckpointSafetensorsTest, ReadsValidHeader) {
    const auto bytes = make_safetensors(valid_header, 36);
    const fs::path path = write_file(dir_.path() / "model.safetensors", bytes);
    const SafetensorsHeader header = read_safetensors_header(path);

    const uint64_t n = (valid_header.size() + 7) / 8 * 8;
    EXPECT_EQ(header.data_offset_bytes, 8 + n);
    EXPECT_EQ(header.file_size_bytes, bytes.size());
    EXPECT_EQ(header.file_size_bytes, 8 + n + 36);
    ASSERT_EQ(header.metadata.size(), 1u);
    EXPECT_EQ(header.metadata.at("format"), "pt");

    // Sorted by data offset, not by name.
    ASSERT_EQ(header.tensors.size(), 3u);
    EXPECT_EQ(header.tensors[0].name, "b.weight");
    EXPECT_EQ(header.tensors[0].dtype, SafetensorsDType::f32);
    EXPECT_EQ(header.tensors[0].shape, (std::vector<int64_t>{2, 3}));
    EXPECT_EQ(header.tensors[0].begin_bytes, 0u);
    EXPECT_EQ(header.tensors[0].end_bytes, 24u);
    EXPECT_EQ(element_count(header.tensors[0]), 6u);
    EXPECT_EQ(header.tensors[1].name, "a.bias");
    EXPECT_EQ(header.tensors[1].begin_bytes, 24u);
    EXPECT_EQ(header.tensors[2].name, "c.scale");
    EXPECT_EQ(header.tensors[2].dtype, SafetensorsDType::f16);
    EXPECT_EQ(header.tensors[2].end_bytes, 36u);

    const SafetensorsTensor* bias = find_tensor(header, "a.bias");
    ASSERT_NE(bias, nullptr);
    EXPECT_EQ(bias->shape, (std::vector<int64_t>{2}));
    EXPECT_EQ(find_tensor(header, "missing"), nullptr);

    // The same bytes through the buffer entry point, whole and as a header-only prefix.
    const SafetensorsHeader from_buffer = parse_safetensors_header(bytes, bytes.size(), "buf");
    EXPECT_EQ(from_buffer.tensors.size(), 3u);
    const std::span<const std::byte> prefix(bytes.data(), 8 + n);
    EXPECT_EQ(parse_safetensors_header(prefix, bytes.size(), "buf").tensors.size(), 3u);
}

TEST_F(CheckpointSafetensorsTest, AcceptsScalarsZeroSizedTensorsAndEmptyHeaders) {
    const std::string header = R"({"empty":{"dtype":"F32","shape":[0,4],"data_offsets":[0,0]},)"
                               R"("scalar":{"dtype":"I64","shape":[],"data_offsets":[0,8]},)"
                               R"("flag":{"dtype":"BOOL","shape":[3],"data_offsets":[8,11]}})";
    const fs::path path = write_file(dir_.path() / "odd.safetensors", make_safetensors(header, 11));
    const SafetensorsHeader parsed = read_safetensors_header(path);
    ASSERT_EQ(parsed.tensors.size(), 3u);
    EXPECT_EQ(parsed.tensors[0].name, "empty");
    EXPECT_EQ(element_count(parsed.tensors[0]), 0u);
    EXPECT_EQ(parsed.tensors[1].name, "scalar");
    EXPECT_TRUE(parsed.tensors[1].shape.empty());
    EXPECT_EQ(element_count(parsed.tensors[1]), 1u);
    EXPECT_EQ(parsed.tensors[2].dtype, SafetensorsDType::boolean);
    EXPECT_TRUE(parsed.metadata.empty());

    const fs::path empty = write_file(dir_.path() / "empty.safetensors", make_safetensors("{}", 0));
    EXPECT_TRUE(read_safetensors_header(empty).tensors.empty());
}

TEST(CheckpointSafetensorsDTypeTest, NamesAndSizesFollowTheFormat) {
    const std::vector<std::pair<std::string, uint64_t>> expected = {
        {"BOOL", 1}, {"U8", 1},  {"I8", 1},  {"F8_E5M2", 1}, {"F8_E4M3", 1},
        {"I16", 2},  {"U16", 2}, {"F16", 2}, {"BF16", 2},    {"I32", 4},
        {"U32", 4},  {"F32", 4}, {"F64", 8}, {"I64", 8},     {"U64", 8}};
    for (const auto& [name, size] : expected) {
        const auto dtype = dtype_from_name(name);
        ASSERT_TRUE(dtype.has_value()) << name;
        EXPECT_EQ(dtype_name(*dtype), name);
        EXPECT_EQ(dtype_size_bytes(*dtype), size) << name;
    }
    EXPECT_FALSE(dtype_from_name("f32").has_value());
    EXPECT_FALSE(dtype_from_name("F17").has_value());
    EXPECT_TRUE(is_floating(SafetensorsDType::bf16));
    EXPECT_FALSE(is_floating(SafetensorsDType::i64));
}

TEST_F(CheckpointSafetensorsTest, RejectsHeaderLengthOverTheLimit) {
    // A buffer claiming a 150 MB header in a 200 MB file: the limit check fires first.
    std::vector<std::byte> bytes(16, std::byte{0});
    const uint64_t n = 150'000'000;
    for (int i = 0; i < 8; ++i) {
        bytes[static_cast<std::size_t>(i)] = static_cast<std::byte>((n >> (8 * i)) & 0xff);
    }
    const std::string message =
        error_of([&] { parse_safetensors_header(bytes, 200'000'000, "huge.safetensors"); });
    EXPECT_TRUE(contains(message, "huge.safetensors"));
    EXPECT_TRUE(contains(message, "150000000"));
    EXPECT_TRUE(contains(message, "limit"));

    const fs::path path = write_file(dir_.path() / "huge.safetensors", bytes);
    EXPECT_TRUE(contains(error_of([&] { read_safetensors_header(path); }), "limit"));
}

TEST_F(CheckpointSafetensorsTest, RejectsHeaderLengthPastEndOfFile) {
    auto bytes = make_safetensors(valid_header, 36);
    bytes[0] = static_cast<std::byte>(0x00);
    bytes[1] = static_cast<std::byte>(0x10);  // N = 4096, the file is far shorter
    const fs::path path = write_file(dir_.path() / "short.safetensors", bytes);
    const std::string message = error_of([&] { read_safetensors_header(path); });
    EXPECT_TRUE(contains(message, "short.safetensors"));
    EXPECT_TRUE(contains(message, "4096"));
    EXPECT_TRUE(contains(message, "past the end of the file"));
}

TEST_F(CheckpointSafetensorsTest, RejectsFilesShorterThanTheLength) {
    const fs::path path =
        write_file(dir_.path() / "tiny.safetensors", {std::byte{1}, std::byte{0}, std::byte{0}});
    const std::string message = error_of([&] { read_safetensors_header(path); });
    EXPECT_TRUE(contains(message, "tiny.safetensors"));
    EXPECT_TRUE(contains(message, "too short"));
    EXPECT_TRUE(
        contains(error_of([&] { read_safetensors_header(dir_.path() / "absent.safetensors"); }),
                 "absent.safetensors: no such file"));
}

TEST_F(CheckpointSafetensorsTest, RejectsBadJson) {
    const std::string message = error_for(R"({"a":{"dtype":"F32",)", 0, "bad.safetensors");
    EXPECT_TRUE(contains(message, "bad.safetensors"));
    EXPECT_TRUE(contains(message, "not valid JSON"));
    EXPECT_EQ(message.find('\n'), std::string::npos);

    EXPECT_TRUE(contains(error_for("[1, 2]", 0), "header is a JSON array, not an object"));
}

TEST_F(CheckpointSafetensorsTest, RejectsUnknownDtype) {
    const std::string message =
        error_for(R"({"enc.w":{"dtype":"F17","shape":[2],"data_offsets":[0,8]}})", 8);
    EXPECT_TRUE(contains(message, "model.safetensors"));
    EXPECT_TRUE(contains(message, "tensor \"enc.w\""));
    EXPECT_TRUE(contains(message, "unknown dtype \"F17\""));
}

TEST_F(CheckpointSafetensorsTest, RejectsWrongByteCount) {
    const std::string message =
        error_for(R"({"enc.w":{"dtype":"F32","shape":[2,3],"data_offsets":[0,20]}})", 20);
    EXPECT_TRUE(contains(message, "model.safetensors"));
    EXPECT_TRUE(contains(message, "tensor \"enc.w\""));
    EXPECT_TRUE(contains(message, "hold 20 bytes"));
    EXPECT_TRUE(contains(message, "needs 24"));
}

TEST_F(CheckpointSafetensorsTest, RejectsShapeOverflow) {
    const std::string message = error_for(
        R"({"big":{"dtype":"F64","shape":[4611686018427387904,4],"data_offsets":[0,8]}})", 8);
    EXPECT_TRUE(contains(message, "tensor \"big\""));
    EXPECT_TRUE(contains(message, "overflows"));
}

TEST_F(CheckpointSafetensorsTest, RejectsBadShapesAndOffsets) {
    EXPECT_TRUE(contains(error_for(R"({"t":{"dtype":"F32","shape":[-2],"data_offsets":[0,8]}})", 8),
                         "shape[0] = -2 is not a non-negative integer"));
    EXPECT_TRUE(
        contains(error_for(R"({"t":{"dtype":"F32","shape":[2.5],"data_offsets":[0,8]}})", 8),
                 "shape[0] = 2.5"));
    EXPECT_TRUE(contains(error_for(R"({"t":{"dtype":"F32","data_offsets":[0,8]}})", 8),
                         "tensor \"t\": missing \"shape\""));
    EXPECT_TRUE(contains(error_for(R"({"t":{"dtype":"F32","shape":[2]}})", 8),
                         "tensor \"t\": missing \"data_offsets\""));
    EXPECT_TRUE(contains(error_for(R"({"t":{"dtype":"F32","shape":[2],"data_offsets":[8,0]}})", 8),
                         "end 0 is before begin 8"));
    EXPECT_TRUE(contains(error_for(R"({"t":{"dtype":"F32","shape":[2],"data_offsets":[0]}})", 8),
                         "not an array [begin, end]"));
    EXPECT_TRUE(contains(error_for(R"({"t":[1,2]})", 8), "tensor \"t\": entry is a JSON array"));
}

TEST_F(CheckpointSafetensorsTest, RejectsGap) {
    const std::string message =
        error_for(R"({"first":{"dtype":"F32","shape":[2],"data_offsets":[0,8]},)"
                  R"("second":{"dtype":"F32","shape":[2],"data_offsets":[12,20]}})",
                  20);
    EXPECT_TRUE(contains(message, "model.safetensors"));
    EXPECT_TRUE(contains(message, "tensor \"second\""));
    EXPECT_TRUE(contains(message, "gap of 4 bytes"));
    EXPECT_TRUE(contains(message, "\"first\""));

    EXPECT_TRUE(
        contains(error_for(R"({"late":{"dtype":"U8","shape":[2],"data_offsets":[2,4]}})", 4),
                 "tensor \"late\": gap of 2 bytes"));
}

TEST_F(CheckpointSafetensorsTest, RejectsOverlap) {
    const std::string message =
        error_for(R"({"first":{"dtype":"F32","shape":[2],"data_offsets":[0,8]},)"
                  R"("second":{"dtype":"F32","shape":[2],"data_offsets":[4,12]}})",
                  12);
    EXPECT_TRUE(contains(message, "model.safetensors"));
    EXPECT_TRUE(contains(message, "tensor \"second\""));
    EXPECT_TRUE(contains(message, "overlap tensor \"first\""));
}

TEST_F(CheckpointSafetensorsTest, RejectsDataPastEnd) {
    const std::string message =
        error_for(R"({"first":{"dtype":"F32","shape":[2],"data_offsets":[0,8]},)"
                  R"("second":{"dtype":"F32","shape":[2],"data_offsets":[8,16]}})",
                  12);
    EXPECT_TRUE(contains(message, "model.safetensors"));
    EXPECT_TRUE(contains(message, "tensor \"second\""));
    EXPECT_TRUE(contains(message, "past the end of the data buffer (12 bytes)"));
}

TEST_F(CheckpointSafetensorsTest, RejectsTrailingBytes) {
    const std::string message =
        error_for(R"({"only":{"dtype":"F32","shape":[2],"data_offsets":[0,8]}})", 11);
    EXPECT_TRUE(contains(message, "model.safetensors"));
    EXPECT_TRUE(contains(message, "3 trailing bytes"));
    EXPECT_TRUE(contains(message, "\"only\""));
}

TEST_F(CheckpointSafetensorsTest, RejectsDuplicateNamesAndBadMetadata) {
    EXPECT_TRUE(contains(error_for(R"({"t":{"dtype":"U8","shape":[1],"data_offsets":[0,1]},)"
                                   R"("t":{"dtype":"U8","shape":[1],"data_offsets":[1,2]}})",
                                   2),
                         "tensor \"t\": appears twice"));
    EXPECT_TRUE(contains(error_for(R"({"__metadata__":{"format":1}})", 0),
                         "\"__metadata__\" value for \"format\" is not a string"));
    EXPECT_TRUE(contains(error_for(R"({"__metadata__":[]})", 0), "\"__metadata__\" is a JSON"));
}

TEST_F(CheckpointSafetensorsTest, MessagesStayOnOneLine) {
    const std::string message =
        error_for("{\"bad\\nname\":{\"dtype\":\"X\",\"shape\":[1],\"data_offsets\":[0,1]}}", 1);
    EXPECT_EQ(message.find('\n'), std::string::npos) << message;
    EXPECT_TRUE(contains(message, "bad\\x0aname"));
}

// Every prefix and many random byte mutations of a valid file either parse or throw
// CheckpointError; nothing else escapes.
TEST_F(CheckpointSafetensorsTest, CorruptBuffersThrowOnlyCheckpointError) {
    const auto valid = make_safetensors(valid_header, 36);
    for (std::size_t size = 0; size < valid.size(); ++size) {
        const std::span<const std::byte> prefix(valid.data(), size);
        EXPECT_THROW(parse_safetensors_header(prefix, size, "prefix"), CheckpointError) << size;
    }
    std::mt19937 random(1234);
    int parsed = 0;
    int rejected = 0;
    for (int round = 0; round < 3000; ++round) {
        auto bytes = valid;
        const int flips = 1 + static_cast<int>(random() % 3);
        for (int i = 0; i < flips; ++i) {
            bytes[random() % bytes.size()] = static_cast<std::byte>(random() & 0xff);
        }
        try {
            parse_safetensors_header(bytes, bytes.size(), "mutated");
            ++parsed;
        } catch (const CheckpointError& error) {
            EXPECT_TRUE(contains(std::string(error.what()), "mutated: "));
            ++rejected;
        }
    }
    EXPECT_GT(rejected, 0);
    EXPECT_EQ(parsed + rejected, 3000);
}

}  // namespace
}  // namespace earshot::checkpoint
