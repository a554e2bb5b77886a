// NumPy .npy files for the `earshot debug` tools: little-endian float32 and int32 arrays of any
// rank in C order, written as format 1.0 and read from 1.0 or 2.0.
#pragma once

#include <cstdint>
#include <filesystem>
#include <span>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace earshot::app {

// A .npy file that cannot be written, or read as one of the supported arrays; the message names
// the file and the problem.
class NpyError : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

enum class NpyDtype { f32, i32 };  // '<f4', '<i4'

struct NpyArray {
    NpyDtype dtype = NpyDtype::f32;
    std::vector<std::int64_t> shape;  // C order; empty for a 0-d array (one element)
    std::vector<float> f32;           // the values when dtype == f32
    std::vector<std::int32_t> i32;    // the values when dtype == i32

    std::int64_t element_count() const;
};

// The complete header (magic, version 1.0, length, dict padded with spaces and ended by '\n' to a
// multiple of 64 bytes), as numpy.save writes it:
// {'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }
std::string npy_header(NpyDtype dtype, std::span<const std::int64_t> shape);

// Writes `values` with `shape` (whose product must equal values.size()). Throws NpyError.
void write_npy(const std::filesystem::path& path, std::span<const float> values,
               std::span<const std::int64_t> shape);
void write_npy(const std::filesystem::path& path, std::span<const std::int32_t> values,
               std::span<const std::int64_t> shape);

// Reads a version 1.0 or 2.0 file holding '<f4' or '<i4' in C order. Anything else (another
// version, big-endian or other dtypes, Fortran order, a malformed header, a data size that does
// not match the shape) throws NpyError naming `path`.
NpyArray read_npy(const std::filesystem::path& path);

// The same from a file image in memory; `name` is used in error messages.
NpyArray parse_npy(std::string_view bytes, std::string_view name);

}  // namespace earshot::app
