// Update pacing by engine time (paced_update_frames, streaming_options.h).
#include "earshot/engine/decoding/streaming_options.h"

#include <algorithm>
#include <cmath>

#include "streaming_steps.h"

namespace earshot::decoding {

int64_t paced_update_frames(double engine_ms, const StreamingOptions& options) {
    const int64_t most = std::max<int64_t>(options.update_frames, 1);
    if (options.pacing == UpdatePacing::fixed) return most;
    const int64_t least = std::clamp<int64_t>(options.min_update_frames, 1, most);
    const double ms_per_frame = 1000.0 / kFramesPerSecond;
    const double frames = std::ceil(std::max(engine_ms, 0.0) / options.engine_share / ms_per_frame);
    if (!(frames < static_cast<double>(most))) return most;  // NaN and huge included
    return std::max(least, static_cast<int64_t>(frames));
}

}  // namespace earshot::decoding
