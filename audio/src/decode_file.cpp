// decode_file: a whole file to 16 kHz mono through FileDecoder, with progress and cancellation.
#include <algorithm>
#include <cmath>

#include "earshot/audio/file_decoder.h"

namespace earshot::audio {

DecodedAudio decode_file(const std::filesystem::path& path, const DecodeOptions& options) {
    FileDecoder decoder = FileDecoder::open(path);
    DecodedAudio result;
    // Reserve the stated length plus a little (capped at 4 h, in case a header lies) so that the
    // vector does not reallocate along the way.
    if (const auto duration_s = decoder.duration_s()) {
        const double expected = std::min(*duration_s, 4.0 * 3600.0) * FileDecoder::kSampleRateHz;
        result.samples.reserve(static_cast<std::size_t>(std::ceil(expected)) + 4096);
    }
    const std::size_t chunk = std::max<std::size_t>(options.chunk_samples, 1);
    for (;;) {
        if (options.cancel != nullptr && options.cancel->load(std::memory_order_relaxed)) {
            result.outcome = DecodeOutcome::cancelled;
            return result;
        }
        const std::size_t before = result.samples.size();
        result.samples.resize(before + chunk);
        const std::size_t n = decoder.read(std::span<float>(result.samples).subspan(before, chunk));
        result.samples.resize(before + n);
        if (options.on_progress) {
            options.on_progress(decoder.progress());
        }
        if (n < chunk) {
            result.damaged_spans = decoder.damaged_spans();
            return result;
        }
    }
}

}  // namespace earshot::audio
