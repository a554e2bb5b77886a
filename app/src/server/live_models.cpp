// LiveModels: a fixed set of loaded models and their leases.
#include "server/live_models.h"

#include <algorithm>

namespace earshot::server {

LiveModels::LiveModels(const std::filesystem::path& path, int count, backend::BackendChoice backend)
    : busy_(std::make_shared<std::vector<bool>>(static_cast<std::size_t>(count), false)) {
    for (int i = 0; i < count; ++i) models_.push_back(app::load_model(path, {}, backend));
}

std::shared_ptr<app::LoadedModel> LiveModels::acquire() {
    for (std::size_t i = 0; i < models_.size(); ++i) {
        if ((*busy_)[i]) continue;
        (*busy_)[i] = true;
        // The lease gives the copy back when its last holder drops it (on the network thread:
        // a session ends there).
        return std::shared_ptr<app::LoadedModel>(
            models_[i].get(), [busy = busy_, i](app::LoadedModel*) { (*busy)[i] = false; });
    }
    return nullptr;
}

int LiveModels::in_use() const {
    return static_cast<int>(std::count(busy_->begin(), busy_->end(), true));
}

}  // namespace earshot::server
