// TapChannel: taps for live dictation. The UI thread asks for names; the decoding thread runs
// each update with a TapSet of those names and publishes what it tapped as one snapshot with a
// rising update number; the UI thread takes the latest snapshot. One mutex, held only to swap
// names or a snapshot pointer (never while the model runs, never in the audio callback).
#pragma once

#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "earshot/engine/backend/tap.h"

namespace earshot::backend {

// What one dictation update tapped.
struct TapSnapshot {
    uint64_t update = 0;              // 1 for the first published update, then +1 each
    std::vector<TappedValue> values;  // in the order the names were asked for
};

class TapChannel {
public:
    // Any thread: the names the next updates tap (empty: none, and the runs pay nothing).
    void set_names(std::vector<std::string> names);
    std::vector<std::string> names() const;

    // The decoding thread, before an update: `taps` takes the asked names when they changed
    // (keeping the values of names still asked for). True when any name is asked for.
    bool prepare(TapSet& taps) const;
    // The decoding thread, after an update: publishes a copy of `taps`' values, into the buffers
    // of a snapshot no reader holds any more when there is one. Returns the snapshot's update
    // number.
    uint64_t publish(const TapSet& taps);

    // Any thread: the latest snapshot (null before the first), shared and immutable.
    std::shared_ptr<const TapSnapshot> latest() const;
    uint64_t published_updates() const;

private:
    mutable std::mutex mutex_;
    std::vector<std::string> names_;
    uint64_t names_generation_ = 0;
    std::shared_ptr<const TapSnapshot> latest_;
    // The decoding thread's handles on the latest and the one before it: the one before is
    // refilled by the next publish when no reader holds it (no allocation per update).
    std::shared_ptr<TapSnapshot> writable_latest_;
    std::shared_ptr<TapSnapshot> spare_;
    uint64_t updates_ = 0;
};

}  // namespace earshot::backend
