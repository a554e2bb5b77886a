// render_response: each response_format from the core's transcript writers.
#include "server/response_render.h"

#include <cmath>
#include <nlohmann/json.hpp>
#include <string>

#include "core/files/transcript_formats.h"
#include "earshot/engine/tokenizer/special_tokens.h"

namespace earshot::server {
namespace {

using Json = nlohmann::ordered_json;

std::string dump(const Json& json) {
    return json.dump(-1, ' ', false, Json::error_handler_t::replace);
}

// The transcript's text as OpenAI returns it: the segments' texts joined, without the leading
// space the first segment keeps.
std::string plain_text(const decoding::Transcript& transcript) {
    std::string text = transcript.text;
    const std::size_t first = text.find_first_not_of(' ');
    text.erase(0, first == std::string::npos ? text.size() : first);
    while (!text.empty() && (text.back() == ' ' || text.back() == '\n')) text.pop_back();
    return text;
}

// OpenAI's verbose_json: {"task", "language" (a name: "english"), "duration", "text",
// "segments"?, "words"?}, the segments as the core's JSON writer gives them (id, start, end,
// text, tokens, avg_logprob, no_speech_prob, temperature, compression_ratio), the words of every
// segment in one list.
std::string verbose_json(const decoding::Transcript& transcript,
                         const TranscriptionRequest& request, double audio_s) {
    const Json core = Json::parse(app::render_json(transcript));
    Json root;
    root["task"] = request.task == decoding::Task::translate ? "translate" : "transcribe";
    const std::string_view name = tokenizer::language_name(transcript.language);
    root["language"] = name.empty() ? transcript.language : std::string(name);
    root["duration"] = std::round(audio_s * 1000.0) / 1000.0;
    root["text"] = plain_text(transcript);
    Json words = Json::array();
    Json segments = Json::array();
    for (Json segment : core["segments"]) {
        if (segment.contains("words")) {
            for (const Json& word : segment["words"]) {
                Json entry;
                std::string text = word["word"].get<std::string>();
                const std::size_t first = text.find_first_not_of(' ');
                entry["word"] = first == std::string::npos ? "" : text.substr(first);
                entry["start"] = word["start"];
                entry["end"] = word["end"];
                words.push_back(std::move(entry));
            }
            segment.erase("words");
        }
        segments.push_back(std::move(segment));
    }
    if (request.segment_times) root["segments"] = std::move(segments);
    if (request.word_times) root["words"] = std::move(words);
    return dump(root);
}

}  // namespace

HttpReply render_response(const decoding::Transcript& transcript,
                          const TranscriptionRequest& request, double audio_s) {
    switch (request.format) {
        case ResponseFormat::json: {
            Json root;
            root["text"] = plain_text(transcript);
            return {200, "application/json", dump(root), 0};
        }
        case ResponseFormat::text:
            return {200, "text/plain; charset=utf-8", plain_text(transcript) + "\n", 0};
        case ResponseFormat::srt:
            return {200, "application/x-subrip", app::render_srt(transcript), 0};
        case ResponseFormat::vtt:
            return {200, "text/vtt; charset=utf-8", app::render_vtt(transcript), 0};
        case ResponseFormat::verbose_json:
            return {200, "application/json", verbose_json(transcript, request, audio_s), 0};
    }
    return {500, "application/json", error_body({500, "unknown format", "server_error", {}, {}}),
            0};
}

}  // namespace earshot::server
