// TranscriptionRequest: the form of POST /v1/audio/transcriptions and /v1/audio/translations
// (OpenAI's fields), checked; anything outside what OpenAI accepts is an ApiError naming the field.
#pragma once

#include <optional>
#include <string>
#include <variant>
#include <vector>

#include "earshot/engine/decoding/decoding_options.h"
#include "server/api_error.h"
#include "server/multipart_form.h"

namespace earshot::server {

enum class ResponseFormat { json, text, srt, vtt, verbose_json };

struct TranscriptionRequest {
    decoding::Task task = decoding::Task::transcribe;
    std::string model;              // as the client named it ("whisper-1", a catalog name, ...)
    std::string language = "auto";  // translations: always auto
    std::string prompt;
    ResponseFormat format = ResponseFormat::json;
    std::optional<double> temperature;  // empty or 0: the fallback ladder, as OpenAI documents
    bool segment_times = true;          // verbose_json: segments (granularity "segment")
    bool word_times = false;            // verbose_json: words (granularity "word")
    std::string filename;               // the upload's name, for messages
};

// The form's fields checked; the audio part itself is `file` (required, non-empty).
std::variant<TranscriptionRequest, ApiError> read_transcription_form(
    const std::vector<FormPart>& parts, decoding::Task task);

}  // namespace earshot::server
