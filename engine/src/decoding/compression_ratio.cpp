// compression_ratio: UTF-8 length over zlib length of the stripped text (reference §5.4).
#include "earshot/engine/decoding/compression_ratio.h"

#include <zlib.h>

#include <stdexcept>
#include <vector>

#include "python_strip.h"

namespace earshot::decoding {

double compression_ratio(std::string_view text) {
    const std::string_view stripped = python_strip(text);
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
