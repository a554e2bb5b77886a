// Live-pipeline test helpers: a random checkpoint of Whisper tiny's shape (or a smaller one), the
// multilingual vocabulary from the shared assets, and the updates a LiveController publishes,
// collected with their arrival times.
#pragma once

#include <chrono>
#include <filesystem>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "earshot/core/live_controller.h"
#include "earshot/core/loaded_model.h"
#include "earshot/engine/model/random_checkpoint.h"
#include "small_checkpoint.h"
#include "temp_dir.h"
#include "tokenizer_assets.h"

namespace earshot::test {

enum class RandomModelSize { small, tiny };

// Writes a random checkpoint into `dir` and loads it with the multilingual vocabulary.
// small: D = 64, 4 heads, 2 + 2 layers (fast); tiny: Whisper tiny's shape (D = 384, 6 heads,
// 4 + 4 layers), for timing that resembles a real model's.
inline std::unique_ptr<app::LoadedModel> random_live_model(const std::filesystem::path& dir,
                                                           RandomModelSize size) {
    model::write_random_checkpoint(dir, size == RandomModelSize::small
                                            ? small_checkpoint_options()
                                            : model::RandomCheckpointOptions());
    return app::load_model(dir, multilingual_tiktoken());
}

// Collects updates (from the engine thread) with the steady-clock time they arrived.
class UpdateLog {
public:
    struct Entry {
        app::LiveUpdate update;
        std::chrono::steady_clock::time_point arrived;
    };

    app::LiveController::UpdateSink sink() {
        return [this](const app::LiveUpdate& u) {
            const std::lock_guard lock(mutex_);
            entries_.push_back({u, std::chrono::steady_clock::now()});
        };
    }
    std::vector<Entry> entries() const {
        const std::lock_guard lock(mutex_);
        return entries_;
    }
    std::string transcript() const {
        const std::lock_guard lock(mutex_);
        std::string text;
        for (const auto& e : entries_) text += e.update.update.committed_text;
        return text;
    }

private:
    mutable std::mutex mutex_;
    std::vector<Entry> entries_;
};

}  // namespace earshot::test
