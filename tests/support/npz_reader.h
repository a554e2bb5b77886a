// Reading NumPy .npz archives in tests: a zip of .npy entries, stored or deflated (inflated with
// zlib), walked through its local file headers. Only what reference assets need: little-endian
// float32 / int32, C order.
#pragma once

#include <zlib.h>

#include <cstdint>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <map>
#include <stdexcept>
#include <string>
#include <vector>

#include "file_bytes.h"

namespace earshot::test {

struct NpyArray {
    std::string descr;                // e.g. "<f4"
    std::vector<std::int64_t> shape;  // C order
    std::vector<unsigned char> data;  // raw little-endian values

    std::int64_t size() const {
        std::int64_t n = 1;
        for (std::int64_t d : shape) n *= d;
        return n;
    }
    std::vector<float> as_f32() const {
        if (descr != "<f4") throw std::runtime_error("npz: entry is " + descr + ", not <f4");
        std::vector<float> values(data.size() / sizeof(float));
        std::memcpy(values.data(), data.data(), values.size() * sizeof(float));
        return values;
    }
};

namespace npz_detail {

inline std::uint32_t le(const unsigned char* p, int bytes) {
    std::uint32_t v = 0;
    for (int i = bytes - 1; i >= 0; --i) v = (v << 8) | p[i];
    return v;
}

inline std::uint64_t le64(const unsigned char* p) {
    return (static_cast<std::uint64_t>(le(p + 4, 4)) << 32) | le(p, 4);
}

// The value of `key` in a .npy header dict, as its raw text up to the next top-level comma.
inline std::string header_field(const std::string& header, const std::string& key) {
    const std::size_t at = header.find("'" + key + "'");
    if (at == std::string::npos) throw std::runtime_error("npy: header lacks " + key);
    std::size_t begin = header.find(':', at) + 1;
    while (header[begin] == ' ') ++begin;
    std::size_t end = begin;
    int depth = 0;
    for (; end < header.size(); ++end) {
        const char c = header[end];
        if (c == '(') ++depth;
        if (c == ')') --depth;
        if ((c == ',' || c == '}') && depth == 0) break;
    }
    return header.substr(begin, end - begin);
}

}  // namespace npz_detail

// Parses one .npy file image (versions 1.0 and 2.0).
inline NpyArray parse_npy(const std::vector<unsigned char>& bytes, const std::string& name) {
    using npz_detail::le;
    if (bytes.size() < 10 || std::memcmp(bytes.data(), "\x93NUMPY", 6) != 0) {
        throw std::runtime_error("npy: " + name + " has no NumPy magic");
    }
    const int major = bytes[6];
    const std::size_t len_bytes = major == 1 ? 2 : 4;
    const std::size_t header_len = le(bytes.data() + 8, static_cast<int>(len_bytes));
    const std::size_t data_at = 8 + len_bytes + header_len;
    if (data_at > bytes.size()) throw std::runtime_error("npy: " + name + " header is cut off");
    const std::string header(bytes.begin() + static_cast<std::ptrdiff_t>(8 + len_bytes),
                             bytes.begin() + static_cast<std::ptrdiff_t>(data_at));
    NpyArray array;
    std::string descr = npz_detail::header_field(header, "descr");
    array.descr = descr.substr(1, descr.size() - 2);
    if (npz_detail::header_field(header, "fortran_order") != "False") {
        throw std::runtime_error("npy: " + name + " is in Fortran order");
    }
    const std::string shape = npz_detail::header_field(header, "shape");
    for (std::size_t i = 1; i < shape.size();) {
        std::size_t used = 0;
        if (shape[i] >= '0' && shape[i] <= '9') {
            array.shape.push_back(std::stoll(shape.substr(i), &used));
            i += used;
        } else {
            ++i;
        }
    }
    array.data.assign(bytes.begin() + static_cast<std::ptrdiff_t>(data_at), bytes.end());
    if (array.data.size() != static_cast<std::size_t>(array.size()) * 4) {
        throw std::runtime_error("npy: " + name + " holds " + std::to_string(array.data.size()) +
                                 " data bytes, not 4 per element of its shape");
    }
    return array;
}

// Every entry of the .npz at `path`, keyed by name without ".npy".
inline std::map<std::string, NpyArray> read_npz(const std::filesystem::path& path) {
    using npz_detail::le;
    const std::vector<unsigned char> zip = read_file_bytes(path, "npz");
    std::map<std::string, NpyArray> entries;
    std::size_t at = 0;
    // Local file header: signature PK\3\4, then fixed fields (30 bytes), name, extra, data.
    while (at + 30 <= zip.size() && le(zip.data() + at, 4) == 0x04034b50u) {
        const unsigned char* h = zip.data() + at;
        const std::uint32_t flags = le(h + 6, 2);
        const std::uint32_t method = le(h + 8, 2);
        std::uint64_t packed = le(h + 18, 4);
        std::uint64_t unpacked = le(h + 22, 4);
        const std::size_t name_len = le(h + 26, 2);
        const std::size_t extra_len = le(h + 28, 2);
        const std::string name(reinterpret_cast<const char*>(h + 30), name_len);
        if ((flags & 0x8u) != 0) {
            throw std::runtime_error("npz: " + name + " uses a data descriptor (unsupported)");
        }
        // ZIP64 extra field (id 1): the real sizes when the 32-bit fields read 0xFFFFFFFF.
        const unsigned char* extra = h + 30 + name_len;
        for (std::size_t e = 0; e + 4 <= extra_len;) {
            const std::uint32_t id = le(extra + e, 2);
            const std::size_t len = le(extra + e + 2, 2);
            if (id == 1) {
                const unsigned char* v = extra + e + 4;
                if (unpacked == 0xFFFFFFFFu) unpacked = npz_detail::le64(v), v += 8;
                if (packed == 0xFFFFFFFFu) packed = npz_detail::le64(v);
            }
            e += 4 + len;
        }
        const std::size_t data_at = at + 30 + name_len + extra_len;
        if (data_at + packed > zip.size()) throw std::runtime_error("npz: " + name + " cut off");
        std::vector<unsigned char> npy(unpacked);
        if (method == 0) {
            std::memcpy(npy.data(), zip.data() + data_at, unpacked);
        } else if (method == 8) {
            z_stream z{};
            if (inflateInit2(&z, -MAX_WBITS) != Z_OK) throw std::runtime_error("npz: zlib init");
            z.next_in = const_cast<unsigned char*>(zip.data() + data_at);
            z.avail_in = static_cast<uInt>(packed);
            z.next_out = npy.data();
            z.avail_out = static_cast<uInt>(unpacked);
            const int rc = inflate(&z, Z_FINISH);
            inflateEnd(&z);
            if (rc != Z_STREAM_END || z.total_out != unpacked) {
                throw std::runtime_error("npz: cannot inflate " + name + " in " + path.string());
            }
        } else {
            throw std::runtime_error("npz: " + name + " uses compression method " +
                                     std::to_string(method));
        }
        std::string key = name.ends_with(".npy") ? name.substr(0, name.size() - 4) : name;
        entries.emplace(std::move(key), parse_npy(npy, name));
        at = data_at + packed;
    }
    if (entries.empty()) throw std::runtime_error("npz: no entries in " + path.string());
    return entries;
}

}  // namespace earshot::test
