// ServerContext: what every connection of the server shares: its limits, its key, the models and
// the job queue, and whether it is shutting down.
#pragma once

#include <atomic>
#include <chrono>
#include <cstddef>
#include <filesystem>
#include <list>
#include <memory>
#include <string>

#include "server/job_queue.h"
#include "server/live_models.h"
#include "server/model_registry.h"

namespace earshot::server {

class LiveSession;

struct ServerLimits {
    std::size_t max_upload_bytes = 25U * 1000U * 1000U;  // OpenAI's own limit: 25 MB
    // A request (headers and body) must arrive within this; a client that sends slower gets 408.
    std::chrono::seconds read_timeout{30};
    // A live session that receives no message for this long is closed.
    std::chrono::seconds live_idle_timeout{30};
};

struct ServerContext {
    ServerLimits limits;
    std::string api_key;  // empty: no key asked (loopback only)
    const ModelRegistry* models = nullptr;
    JobQueue* jobs = nullptr;
    std::filesystem::path upload_dir;   // private temporary copies of uploads
    std::atomic<bool> draining{false};  // SIGTERM: new requests get 503
    int jobs_in_flight = 0;             // submitted and not yet answered (network thread only)
    LiveModels* live_models = nullptr;  // one copy per live session (network thread only)
    std::list<std::weak_ptr<LiveSession>> live_sessions;  // network thread only
};

}  // namespace earshot::server
