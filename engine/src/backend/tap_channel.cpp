// TapChannel: asked names in, tapped snapshots out, across the decoding and UI threads.
#include "earshot/engine/backend/tap_channel.h"

#include <utility>

namespace earshot::backend {

void TapChannel::set_names(std::vector<std::string> names) {
    std::lock_guard lock(mutex_);
    names_ = std::move(names);
    ++names_generation_;
}

std::vector<std::string> TapChannel::names() const {
    std::lock_guard lock(mutex_);
    return names_;
}

bool TapChannel::prepare(TapSet& taps) const {
    std::lock_guard lock(mutex_);
    if (taps.names() != names_) {
        TapSet fresh(names_);
        for (const std::string& name : names_) {
            const TappedValue* kept = taps.value(name);
            if (kept == nullptr) continue;
            for (size_t i = 0; i < fresh.names().size(); ++i) {
                if (fresh.names()[i] == name) fresh.value_at(i) = *kept;
            }
        }
        taps = std::move(fresh);
    }
    return !names_.empty();
}

uint64_t TapChannel::publish(const TapSet& taps) {
    // The snapshot before the latest, when no reader holds it any more, takes the values into
    // the buffers it has (same names, same shapes: no allocation); else a new one.
    std::shared_ptr<TapSnapshot> snapshot;
    {
        std::lock_guard lock(mutex_);
        if (spare_ && spare_.use_count() == 1) snapshot = std::move(spare_);
        spare_.reset();
    }
    if (!snapshot) snapshot = std::make_shared<TapSnapshot>();
    snapshot->values = taps.values();  // copied outside the lock, into the kept capacity
    std::lock_guard lock(mutex_);
    snapshot->update = ++updates_;
    spare_ = std::move(writable_latest_);
    writable_latest_ = snapshot;
    latest_ = std::move(snapshot);
    return updates_;
}

std::shared_ptr<const TapSnapshot> TapChannel::latest() const {
    std::lock_guard lock(mutex_);
    return latest_;
}

uint64_t TapChannel::published_updates() const {
    std::lock_guard lock(mutex_);
    return updates_;
}

}  // namespace earshot::backend
