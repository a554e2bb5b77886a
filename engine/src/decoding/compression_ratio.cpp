// compression_ratio: UTF-8 length over zlib length of the stripped text (reference §5.4).
#include "earshot/engine/decoding/compression_ratio.h"

#include <zlib.h>

#include <stdexcept>
#include <vector>

namespace earshot::decoding {

namespace {

bool is_space(char c) {
    return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f';
}

std::string_view strip(std::string_view text) {
    while (!text.empty() && is_space(text.front())) text.remove_prefix(1);
    while (!text.empty() && is_space(text.back())) text.remove_suffix(1);
    return text;
}

}  // namespace

double compression_ratio(std::string_view text) {
    const std::string_view stripped = strip(text);
    const auto source_len = static_cast<uLong>(stripped.size());
    uLongf compressed_len = compressBound(source_len);
    std::vector<Bytef> compressed(compressed_len);
    const int status = compress2(compressed.data(), &compressed_len,
                                 reinterpret_cast<const Bytef*>(stripped.data()), source_len,
                                 Z_DEFAULT_COMPRESSION);
    if (status != Z_OK) {
        throw std::runtime_error("compression_ratio: zlib compress2 failed with status " +
                                 std::to_string(status));
    }
    return double(stripped.size()) / double(compressed_len);
}

}  // namespace earshot::decoding
