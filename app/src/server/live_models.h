// LiveModels: the model copies live sessions run on, one per session at a time (a decoder model's
// caches serve one stream), loaded when the server starts; a session takes one or is refused.
#pragma once

#include <filesystem>
#include <memory>
#include <vector>

#include "earshot/core/loaded_model.h"
#include "earshot/engine/backend/backend_choice.h"

namespace earshot::server {

class LiveModels {
public:
    // Loads `count` copies of `path` (0: live sessions are refused). Throws what load_model throws.
    LiveModels(const std::filesystem::path& path, int count, backend::BackendChoice backend);

    // A free copy, given back when the lease is dropped; null when every copy is in use.
    // Network thread only.
    std::shared_ptr<app::LoadedModel> acquire();

    int capacity() const { return static_cast<int>(models_.size()); }
    int in_use() const;

private:
    std::vector<std::unique_ptr<app::LoadedModel>> models_;
    std::shared_ptr<std::vector<bool>> busy_;  // shared with the leases' deleters
};

}  // namespace earshot::server
