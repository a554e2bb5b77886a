// The compression ratio Whisper's temperature fallback tests for repetition (reference §5.4).
#pragma once

#include <string_view>

namespace earshot::decoding {

// len(utf8) / len(zlib) of the text with leading and trailing whitespace stripped; zlib is
// compress2 at Z_DEFAULT_COMPRESSION (zlib header and Adler-32 included), as Python's
// zlib.compress. Stripping covers ASCII whitespace only (Python's str.strip also strips Unicode
// spaces such as U+3000); the empty text gives 0.
double compression_ratio(std::string_view text);

}  // namespace earshot::decoding
