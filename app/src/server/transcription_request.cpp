// read_transcription_form: OpenAI's audio form fields and their checks.
#include "server/transcription_request.h"

#include <charconv>
#include <cmath>

namespace earshot::server {
namespace {

std::optional<ResponseFormat> parse_format(std::string_view name) {
    if (name == "json") return ResponseFormat::json;
    if (name == "text") return ResponseFormat::text;
    if (name == "srt") return ResponseFormat::srt;
    if (name == "vtt") return ResponseFormat::vtt;
    if (name == "verbose_json") return ResponseFormat::verbose_json;
    return std::nullopt;
}

}  // namespace

std::variant<TranscriptionRequest, ApiError> read_transcription_form(
    const std::vector<FormPart>& parts, decoding::Task task) {
    TranscriptionRequest request;
    request.task = task;
    const FormPart* file = find_part(parts, "file");
    if (file == nullptr || !file->filename) {
        return bad_request("the form has no file: send the audio as the multipart field `file`",
                           "file");
    }
    request.filename = *file->filename;
    if (file->body.empty()) {
        return bad_request("the uploaded file " + request.filename + " is empty", "file",
                           "empty_file");
    }
    if (const FormPart* model = find_part(parts, "model")) request.model = model->body;
    if (const FormPart* prompt = find_part(parts, "prompt")) request.prompt = prompt->body;
    if (const FormPart* language = find_part(parts, "language");
        language != nullptr && !language->body.empty() && task == decoding::Task::transcribe) {
        request.language = language->body;
    }
    if (const FormPart* format = find_part(parts, "response_format")) {
        const std::optional<ResponseFormat> parsed = parse_format(format->body);
        if (!parsed) {
            return bad_request("unknown response_format \"" + std::string(format->body) +
                                   "\" (expected json, text, srt, verbose_json or vtt)",
                               "response_format");
        }
        request.format = *parsed;
    }
    if (const FormPart* temperature = find_part(parts, "temperature")) {
        double value = 0.0;
        const std::string_view text = temperature->body;
        const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
        if (error != std::errc() || end != text.data() + text.size() || !std::isfinite(value) ||
            value < 0.0 || value > 1.0) {
            return bad_request(
                "temperature must be a number from 0 to 1, not \"" + std::string(text) + "\"",
                "temperature");
        }
        if (value > 0.0) request.temperature = value;
    }
    bool any_granularity = false;
    bool segments = false;
    for (const FormPart& part : parts) {
        if (part.name != "timestamp_granularities[]" && part.name != "timestamp_granularities") {
            continue;
        }
        any_granularity = true;
        if (part.body == "word") {
            request.word_times = true;
        } else if (part.body == "segment") {
            segments = true;
        } else {
            return bad_request("unknown timestamp granularity \"" + std::string(part.body) +
                                   "\" (expected word or segment)",
                               "timestamp_granularities");
        }
    }
    if (any_granularity) request.segment_times = segments;
    if (any_granularity && request.format != ResponseFormat::verbose_json) {
        return bad_request("timestamp_granularities needs response_format verbose_json",
                           "timestamp_granularities");
    }
    return request;
}

}  // namespace earshot::server
