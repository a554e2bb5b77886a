// Downloading a catalog model from the Hugging Face hub's resolve URLs with libcurl: progress,
// cancel, resume of a `.part` file with a Range request, a free-space check first, the hash
// checked before the file is moved into place, and one message for each way it can fail.
#pragma once

#include <atomic>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <string>

#include "core/models/model_catalog.h"

namespace earshot::app {

// The hub: `flag` (--hub) when given, else EARSHOT_HUB_URL, else HF_ENDPOINT, else
// https://huggingface.co; without a trailing slash.
std::string hub_url(const std::string& flag = {});
// <hub>/<repo>/resolve/main/<file>
std::string resolve_url(const std::string& hub, const std::string& repo, const std::string& file);

struct DownloadProgress {
    std::string file;  // the file being fetched or checked
    int file_index = 0;
    int file_count = 0;
    int64_t received_bytes = 0;  // of this file, including what a .part already held
    int64_t total_bytes = -1;    // of this file; -1 while unknown
    double rate_bytes_per_second = 0.0;
    double seconds_left = -1.0;  // -1 while unknown
    bool verifying = false;      // the transfer is done and its hash is being checked
};

struct DownloadOptions {
    std::string hub;                            // from hub_url()
    int stall_seconds = 30;                     // under 1 byte/s this long: the server stalled
    int connect_timeout_seconds = 30;           // to open the connection
    const std::atomic<bool>* cancel = nullptr;  // set to stop; the .part stays to resume
    std::function<void(const DownloadProgress&)> on_progress;  // on the downloading thread
};

enum class DownloadFailure {
    none,
    cancelled,        // the .part is kept: pulling again resumes
    offline,          // the host cannot be resolved or reached
    not_found,        // 404
    http_error,       // another HTTP status or transfer error
    hash_mismatch,    // the file's SHA-256 / SHA-1 is not the published one; it is deleted
    disk_full,        // too little free space before starting, or a write failed for space
    proxy_refused,    // the proxy cannot be reached or refused the request
    stalled,          // the server sent nothing for stall_seconds
    connection_lost,  // the connection closed early; the .part is kept
    io_error,         // a local file could not be written or moved
};

struct DownloadResult {
    DownloadFailure failure = DownloadFailure::none;
    std::string message;             // one line saying what failed and what to do
    std::filesystem::path location;  // on success: what --model takes
    bool ok() const { return failure == DownloadFailure::none; }
};

// Downloads every file of `entry` into <models>/<entry.name>/; files already there are kept.
// Blocking: call it on a worker thread where a UI must stay responsive.
DownloadResult download_model(const CatalogEntry& entry, const std::filesystem::path& models,
                              const DownloadOptions& options);

}  // namespace earshot::app
