// TranscriptionJob: one uploaded file to transcribe, and the worker-side run that turns it into
// a reply with the core's one transcription setup (the same options `earshot transcribe` uses).
#pragma once

#include <atomic>
#include <filesystem>
#include <functional>
#include <map>
#include <memory>
#include <mutex>

#include "earshot/core/loaded_model.h"
#include "earshot/engine/backend/backend_choice.h"
#include "server/http_reply.h"
#include "server/model_registry.h"
#include "server/transcription_request.h"

namespace earshot::server {

// What every job of this server shares (the command line's choices).
struct JobSettings {
    backend::BackendChoice backend = backend::BackendChoice::automatic;
    int beam_size = 5;            // `earshot transcribe`'s default
    double max_audio_s = 3600.0;  // longer uploads are refused with 413
};

struct TranscriptionJob {
    TranscriptionRequest request;
    ServedModel model;
    std::filesystem::path
        audio_file;  // a private temporary copy of the upload, removed with the job
    // Set when the client has gone: the job stops before its next 30 s window (or during decoding).
    std::atomic<bool> cancel{false};
    // Called once on the worker's thread with the reply (also for a cancelled job).
    std::function<void(HttpReply)> done;

    ~TranscriptionJob();
};

// The models one worker has loaded, by path: at most the default and one other, so a request
// naming another installed model does not grow the worker's memory without bound.
class WorkerModels {
public:
    WorkerModels(std::filesystem::path default_path, backend::BackendChoice backend);
    // Throws what load_model throws.
    app::LoadedModel& get(const std::filesystem::path& path);

private:
    std::filesystem::path default_path_;
    backend::BackendChoice backend_;
    std::map<std::filesystem::path, std::unique_ptr<app::LoadedModel>> loaded_;
};

// Decodes and transcribes the job's file. Never throws: every failure is a reply (400 for audio
// that cannot be decoded or a language the model lacks, 413 for audio over the limit, 500 else).
HttpReply run_transcription_job(TranscriptionJob& job, WorkerModels& models,
                                const JobSettings& settings);

}  // namespace earshot::server
