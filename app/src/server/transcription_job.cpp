// run_transcription_job: StreamingMelSource, the core's setup and decoding::transcribe.
#include "server/transcription_job.h"

#include <cstdio>
#include <exception>
#include <optional>
#include <string>
#include <system_error>

#include "core/transcription/streaming_mel_source.h"
#include "earshot/audio/audio_file_error.h"
#include "earshot/core/transcription_setup.h"
#include "earshot/engine/decoding/long_form.h"
#include "server/response_render.h"

namespace earshot::server {

TranscriptionJob::~TranscriptionJob() {
    std::error_code error;
    if (!audio_file.empty()) std::filesystem::remove(audio_file, error);
}

WorkerModels::WorkerModels(std::filesystem::path default_path, backend::BackendChoice backend)
    : default_path_(std::move(default_path)), backend_(backend) {}

app::LoadedModel& WorkerModels::get(const std::filesystem::path& path) {
    if (auto found = loaded_.find(path); found != loaded_.end()) return *found->second;
    for (auto it = loaded_.begin(); it != loaded_.end();) {
        it = it->first == default_path_ ? std::next(it) : loaded_.erase(it);
    }
    auto model = app::load_model(path, {}, backend_);
    return *loaded_.emplace(path, std::move(model)).first->second;
}

HttpReply run_transcription_job(TranscriptionJob& job, WorkerModels& models,
                                const JobSettings& settings) {
    const TranscriptionRequest& request = job.request;
    const HttpReply cancelled =
        error_reply({499, "the client closed the connection", "request_cancelled", {}, {}});
    if (job.cancel.load()) return cancelled;
    try {
        app::LoadedModel& loaded = models.get(job.model.path);
        app::TranscriptionChoice choice;
        choice.language = request.language;
        choice.task = request.task;
        choice.decoding.beam_size = settings.beam_size;
        if (request.temperature) choice.decoding.temperatures = {*request.temperature};
        choice.word_timestamps = request.word_times;
        decoding::TranscribeOptions options;
        try {
            options = app::file_transcription_options(choice, loaded);
        } catch (const app::TranscriptionSetupError& e) {
            return error_reply(bad_request(e.what(), "language"));
        }
        options.initial_prompt = request.prompt;
        options.snap_times_to_speech = true;  // `earshot transcribe`'s --segment-times speech

        std::optional<app::StreamingMelSource> mel;
        try {
            mel = app::StreamingMelSource::open(job.audio_file,
                                                static_cast<int>(loaded.model->mels()),
                                                loaded.model->frames(), {}, &job.cancel);
        } catch (const audio::AudioFileError& e) {
            // The problem without the temporary file's name: the client knows its file.
            return error_reply(
                bad_request(request.filename + ": " + e.problem(), "file", "invalid_audio"));
        }
        if (!mel) return cancelled;
        if (mel->audio_s() > settings.max_audio_s) {
            char message[160];
            std::snprintf(message, sizeof message,
                          "the audio lasts %.1f s; this server transcribes at most %.0f s",
                          mel->audio_s(), settings.max_audio_s);
            return error_reply({413, message, "invalid_request_error", "file", "audio_too_long"});
        }
        const decoding::Transcript transcript =
            decoding::transcribe(*loaded.model, loaded.tokenizer, *mel, options, {}, &job.cancel);
        if (job.cancel.load()) return cancelled;
        return render_response(transcript, request, mel->audio_s());
    } catch (const std::exception& e) {
        return error_reply({500, e.what(), "server_error", {}, {}});
    }
}

}  // namespace earshot::server
