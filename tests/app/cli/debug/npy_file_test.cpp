// NumPy .npy files: round trips, a header as numpy.save writes it, version 2.0, and rejections.
#include "cli/debug/npy_file.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <fstream>
#include <string>
#include <vector>

#include "temp_dir.h"

namespace earshot::app {
namespace {

void spit(const std::filesystem::path& path, const std::string& bytes) {
    std::ofstream(path, std::ios::binary) << bytes;
}

template <typename T>
std::string raw_bytes(const std::vector<T>& values) {
    std::string bytes(values.size() * sizeof(T), '\0');
    std::memcpy(bytes.data(), values.data(), bytes.size());
    return bytes;
}

// A version 1.0 file exactly as numpy.save lays it out (without numpy's optional growth spaces):
// the dict padded with spaces and a final newline to a multiple of 64 bytes.
std::string numpy_v1(const std::string& dict, const std::string& payload) {
    const std::size_t pad = 64 - (10 + dict.size() + 1) % 64;
    const std::size_t len = dict.size() + pad + 1;
    std::string out = "\x93NUMPY";
    out += '\x01';
    out += '\x00';
    out += static_cast<char>(len & 0xFF);
    out += static_cast<char>(len >> 8);
    return out + dict + std::string(pad, ' ') + "\n" + payload;
}

std::string error_of(const std::filesystem::path& path) {
    try {
        read_npy(path);
    } catch (const NpyError& e) {
        return e.what();
    }
    return "no error";
}

TEST(NpyFile, HeaderIsWhatNumpyWrites) {
    const std::vector<std::int64_t> shape{2, 3};
    const std::string header = npy_header(NpyDtype::f32, shape);
    const std::string dict = "{'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }";
    ASSERT_EQ(header.size(), 128u);  // 10 + 59 + 58 spaces + '\n'
    EXPECT_EQ(header, numpy_v1(dict, ""));
    EXPECT_EQ(header.back(), '\n');
    EXPECT_EQ(header.substr(0, 10), std::string("\x93NUMPY\x01\x00\x76\x00", 10));
    // 1-d and 0-d tuples as Python prints them; int32 descr.
    const std::vector<std::int64_t> one{5};
    EXPECT_NE(npy_header(NpyDtype::i32, one).find("'descr': '<i4'"), std::string::npos);
    EXPECT_NE(npy_header(NpyDtype::i32, one).find("'shape': (5,), }"), std::string::npos);
    EXPECT_NE(npy_header(NpyDtype::f32, {}).find("'shape': (), }"), std::string::npos);
    for (std::size_t rank = 0; rank < 12; ++rank) {
        const std::vector<std::int64_t> dims(rank, 7);
        EXPECT_EQ(npy_header(NpyDtype::f32, dims).size() % 64, 0u) << rank;
    }
}

TEST(NpyFile, RoundTripsFloatAndIntOfAnyRank) {
    test::TempDir dir;
    const std::vector<float> values{1.5f, -2.25f, 0.0f, 3.0e-7f, 1e30f, -0.0f};
    for (const std::vector<std::int64_t>& shape :
         {std::vector<std::int64_t>{6}, {2, 3}, {3, 1, 2}, {1, 1, 1, 6}}) {
        const auto path = dir.path() / "f.npy";
        write_npy(path, values, shape);
        const NpyArray back = read_npy(path);
        EXPECT_EQ(back.dtype, NpyDtype::f32);
        EXPECT_EQ(back.shape, shape);
        EXPECT_EQ(back.element_count(), 6);
        EXPECT_EQ(raw_bytes(back.f32), raw_bytes(values));  // bit for bit, -0.0 included
        EXPECT_TRUE(back.i32.empty());
        EXPECT_EQ(std::filesystem::file_size(path), 128u + 24u);
    }
    const std::vector<std::int32_t> ints{-2147483647 - 1, -1, 0, 7, 2147483647, 42};
    const auto path = dir.path() / "i.npy";
    write_npy(path, ints, std::vector<std::int64_t>{3, 2});
    const NpyArray back = read_npy(path);
    EXPECT_EQ(back.dtype, NpyDtype::i32);
    EXPECT_EQ(back.shape, (std::vector<std::int64_t>{3, 2}));
    EXPECT_EQ(back.i32, ints);
    // Empty and 0-d arrays.
    write_npy(path, std::vector<float>{}, std::vector<std::int64_t>{0, 4});
    EXPECT_EQ(read_npy(path).element_count(), 0);
    write_npy(path, std::vector<float>{9.0f}, std::vector<std::int64_t>{});
    EXPECT_EQ(read_npy(path).f32, std::vector<float>{9.0f});
}

TEST(NpyFile, ReadsHandWrittenNumpyHeaders) {
    test::TempDir dir;
    const std::vector<float> values{1, 2, 3, 4, 5, 6};
    const auto path = dir.path() / "hand.npy";
    spit(path, numpy_v1("{'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }",
                        raw_bytes(values)));
    NpyArray a = read_npy(path);
    EXPECT_EQ(a.shape, (std::vector<std::int64_t>{2, 3}));
    EXPECT_EQ(a.f32, values);
    // Keys in another order, numpy's growth spaces, no trailing comma, a 1-d tuple.
    spit(path, numpy_v1("{'shape': (6,), 'fortran_order': False, 'descr': '<f4'}"
                        "                     ",
                        raw_bytes(values)));
    a = read_npy(path);
    EXPECT_EQ(a.shape, (std::vector<std::int64_t>{6}));
    EXPECT_EQ(a.f32, values);
    // Version 2.0: a 4-byte header length.
    const std::string dict = "{'descr': '<i4', 'fortran_order': False, 'shape': (2,), }";
    const std::size_t pad = 64 - (12 + dict.size() + 1) % 64;
    const std::size_t len = dict.size() + pad + 1;
    std::string v2 = "\x93NUMPY";
    v2 += '\x02';
    v2 += '\x00';
    v2 += static_cast<char>(len);
    v2 += std::string(3, '\0');
    v2 += dict + std::string(pad, ' ') + "\n" + raw_bytes(std::vector<std::int32_t>{-5, 6});
    spit(path, v2);
    a = read_npy(path);
    EXPECT_EQ(a.dtype, NpyDtype::i32);
    EXPECT_EQ(a.i32, (std::vector<std::int32_t>{-5, 6}));
}

TEST(NpyFile, RejectsWhatItDoesNotSupport) {
    test::TempDir dir;
    const auto path = dir.path() / "bad.npy";
    const std::string four(4 * 6, '\0');
    auto expect_error = [&](const std::string& bytes, const std::string& part) {
        spit(path, bytes);
        const std::string message = error_of(path);
        EXPECT_NE(message.find(part), std::string::npos) << message;
        EXPECT_NE(message.find("bad.npy"), std::string::npos) << message;
    };
    expect_error(numpy_v1("{'descr': '>f4', 'fortran_order': False, 'shape': (2, 3), }", four),
                 "big-endian");
    expect_error(numpy_v1("{'descr': '<f4', 'fortran_order': True, 'shape': (2, 3), }", four),
                 "Fortran");
    expect_error(numpy_v1("{'descr': '<f8', 'fortran_order': False, 'shape': (3,), }", four),
                 "dtype '<f8'");
    expect_error(numpy_v1("{'descr': '|u1', 'fortran_order': False, 'shape': (24,), }", four),
                 "not supported");
    expect_error(numpy_v1("{'descr': '<f4', 'fortran_order': False, 'shape': (2, 4), }", four),
                 "24 data bytes");
    expect_error(numpy_v1("{'descr': '<f4', 'shape': (2, 3), }", four), "needs the keys");
    expect_error(numpy_v1("{'descr': '<f4', 'fortran_order': False, 'shape': (2, x), }", four),
                 "bad .npy header");
    std::string v3 = numpy_v1("{'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }", four);
    v3[6] = '\x03';
    expect_error(v3, "version 3.0");
    expect_error("PK\x03\x04 not an npy", "not a .npy file");
    EXPECT_NE(error_of(dir.path() / "missing.npy").find("cannot open"), std::string::npos);
    EXPECT_THROW(write_npy(path, std::vector<float>{1, 2, 3}, std::vector<std::int64_t>{2, 2}),
                 NpyError);
}

}  // namespace
}  // namespace earshot::app
