// parse_live_request: the live endpoint's query parameters, each checked.
#include "server/live_request.h"

#include <algorithm>
#include <charconv>
#include <memory>
#include <optional>
#include <string>

#include "core/dictation/spoken_command_table.h"
#include "earshot/core/transcription_setup.h"

namespace earshot::server {
namespace {

constexpr int kMinSampleRateHz = 8000;
constexpr int kMaxSampleRateHz = 192000;
constexpr int kMinStepMs = 100;  // `earshot live --step-ms`'s range
constexpr int kMaxStepMs = 10000;

std::optional<int> parse_int(std::string_view text) {
    int value = 0;
    const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
    if (error != std::errc{} || end != text.data() + text.size()) return std::nullopt;
    return value;
}

std::optional<bool> parse_flag(std::string_view text) {
    if (text == "1" || text == "true") return true;
    if (text == "0" || text == "false") return false;
    return std::nullopt;
}

}  // namespace

std::variant<LiveRequest, ApiError> parse_live_request(std::string_view target) {
    LiveRequest request;
    const std::size_t question = target.find('?');
    if (question == std::string_view::npos) return request;
    std::string_view query = target.substr(question + 1);
    while (!query.empty()) {
        const std::size_t amp = query.find('&');
        const std::string_view pair = query.substr(0, amp);
        query = amp == std::string_view::npos ? std::string_view{} : query.substr(amp + 1);
        if (pair.empty()) continue;
        const std::size_t eq = pair.find('=');
        const std::string name(pair.substr(0, eq));
        const std::string_view value =
            eq == std::string_view::npos ? std::string_view{} : pair.substr(eq + 1);
        const auto refuse = [&](const std::string& what) {
            return bad_request(name + "=" + std::string(value) + ": " + what, name,
                               "invalid_parameter");
        };
        if (name == "sample_rate") {
            const auto hz = parse_int(value);
            if (!hz || *hz < kMinSampleRateHz || *hz > kMaxSampleRateHz) {
                return refuse("the sample rate of the s16le mono PCM sent, from " +
                              std::to_string(kMinSampleRateHz) + " to " +
                              std::to_string(kMaxSampleRateHz) + " Hz");
            }
            request.sample_rate_hz = *hz;
        } else if (name == "step_ms") {
            const auto ms = parse_int(value);
            if (!ms || *ms < kMinStepMs || *ms > kMaxStepMs) {
                return refuse("milliseconds of audio between updates, from " +
                              std::to_string(kMinStepMs) + " to " + std::to_string(kMaxStepMs));
            }
            request.step_ms = *ms;
        } else if (name == "language") {
            if (value.empty()) return refuse("a language code, or auto");
            request.language = std::string(value);
        } else if (name == "task") {
            if (value != "transcribe" && value != "translate") {
                return refuse("transcribe or translate");
            }
            request.task = std::string(value);
        } else if (name == "model") {
            request.model = std::string(value);
        } else if (name == "exact_steps" || name == "commands" || name == "guard") {
            const auto flag = parse_flag(value);
            if (!flag) return refuse("1 or 0");
            (name == "exact_steps" ? request.exact_steps
             : name == "commands"  ? request.commands
                                   : request.guard) = *flag;
        } else {
            return bad_request("unknown parameter " + name +
                                   " (known: sample_rate, language, task, step_ms, exact_steps, "
                                   "commands, guard, model)",
                               name, "unknown_parameter");
        }
    }
    return request;
}

app::LiveOptions live_options(const LiveRequest& request, const app::LoadedModel& model) {
    // `earshot live`'s defaults (cli/command_live.cpp), so that the same audio and settings give
    // the same updates through either.
    constexpr int kPromptTokens = 128;
    constexpr double kPauseCommitS = 1.0;
    constexpr double kVadMarginDb = 12.0;
    app::LiveOptions options;
    options.pushed_input = true;
    options.exact_steps = request.exact_steps;
    options.guard_invented_words = request.guard;
    if (request.commands) {
        options.spoken_commands =
            std::make_shared<const app::CommandTable>(app::CommandTable::english_defaults());
    }
    options.vad.margin_db = kVadMarginDb;
    app::TranscriptionChoice choice;
    choice.language = request.language;
    choice.task =
        request.task == "translate" ? decoding::Task::translate : decoding::Task::transcribe;
    decoding::StreamingOptions streaming;
    streaming.update_frames = std::max(1, request.step_ms / 10);
    streaming.pacing =
        request.exact_steps ? decoding::UpdatePacing::fixed : decoding::UpdatePacing::engine_time;
    streaming.prompt_max_tokens = kPromptTokens;
    streaming.pause_commit_s = kPauseCommitS;
    streaming.use_vad = true;
    options.streaming = app::dictation_options(choice, model, std::move(streaming));
    return options;
}

}  // namespace earshot::server
