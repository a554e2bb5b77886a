// ServerContext: what every connection of the server shares: its limits, its key, the models and
// the job queue, and whether it is shutting down.
#pragma once

#include <atomic>
#include <chrono>
#include <cstddef>
#include <filesystem>
#include <string>

#include "server/job_queue.h"
#include "server/model_registry.h"

namespace earshot::server {

struct ServerLimits {
    std::size_t max_upload_bytes = 25U * 1000U * 1000U;  // OpenAI's own limit: 25 MB
    // A request (headers and body) must arrive within this; a client that sends slower gets 408.
    std::chrono::seconds read_timeout{30};
};

struct ServerContext {
    ServerLimits limits;
    std::string api_key;  // empty: no key asked (loopback only)
    const ModelRegistry* models = nullptr;
    JobQueue* jobs = nullptr;
    std::filesystem::path upload_dir;   // private temporary copies of uploads
    std::atomic<bool> draining{false};  // SIGTERM: new requests get 503
    int jobs_in_flight = 0;             // submitted and not yet answered (network thread only)
};

}  // namespace earshot::server
