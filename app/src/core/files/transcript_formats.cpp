// TXT, SRT, WebVTT and JSON writers of a Transcript (formats as openai's whisper writes them).
#include "core/files/transcript_formats.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <nlohmann/json.hpp>

namespace earshot::app {
namespace {

constexpr int64_t kMsPerHour = 3'600'000;
constexpr int64_t kMsPerMinute = 60'000;
constexpr int64_t kMsPerSecond = 1'000;

// Whitespace as Python's str.strip() sees it in ASCII.
bool is_space(char c) {
    return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f';
}

std::string strip(std::string_view text) {
    size_t begin = 0;
    size_t end = text.size();
    while (begin < end && is_space(text[begin])) ++begin;
    while (end > begin && is_space(text[end - 1])) --end;
    return std::string(text.substr(begin, end - begin));
}

// Stripped, with each line break inside written as a space: one line per segment in TXT, and no
// blank line (the end of a cue) inside an SRT or VTT cue.
std::string one_line(std::string_view text) {
    std::string line = strip(text);
    for (char& c : line) {
        if (c == '\n' || c == '\r') c = ' ';
    }
    return line;
}

// One line with every "-->" written as "->", so that a cue's text never reads as a timing.
std::string cue_text(std::string_view text) {
    const std::string stripped = one_line(text);
    std::string out;
    out.reserve(stripped.size());
    for (size_t i = 0; i < stripped.size(); ++i) {
        if (stripped.compare(i, 3, "-->") == 0) {
            out += "->";
            i += 2;
        } else {
            out += stripped[i];
        }
    }
    return out;
}

int64_t to_milliseconds(double seconds) {
    if (!(seconds > 0.0)) return 0;  // negative and NaN print as 0
    return static_cast<int64_t>(std::floor(seconds * 1000.0 + 0.5));
}

enum class Hours { always, when_nonzero };

std::string timestamp(double seconds, Hours hours_rule, char decimal_marker) {
    int64_t ms = to_milliseconds(seconds);
    const int64_t hours = ms / kMsPerHour;
    ms -= hours * kMsPerHour;
    const int64_t minutes = ms / kMsPerMinute;
    ms -= minutes * kMsPerMinute;
    const int64_t secs = ms / kMsPerSecond;
    ms -= secs * kMsPerSecond;
    char buffer[64];
    if (hours_rule == Hours::always || hours > 0) {
        std::snprintf(buffer, sizeof buffer, "%02lld:%02lld:%02lld%c%03lld",
                      static_cast<long long>(hours), static_cast<long long>(minutes),
                      static_cast<long long>(secs), decimal_marker, static_cast<long long>(ms));
    } else {
        std::snprintf(buffer, sizeof buffer, "%02lld:%02lld%c%03lld",
                      static_cast<long long>(minutes), static_cast<long long>(secs), decimal_marker,
                      static_cast<long long>(ms));
    }
    return buffer;
}

}  // namespace

std::optional<TranscriptFormat> parse_transcript_format(std::string_view spelled) {
    // Any case, surrounding spaces ignored: "TXT", " srt".
    std::string name;
    for (char c : spelled) {
        if (c != ' ') name += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    }
    if (name == "txt") return TranscriptFormat::txt;
    if (name == "srt") return TranscriptFormat::srt;
    if (name == "vtt") return TranscriptFormat::vtt;
    if (name == "json") return TranscriptFormat::json;
    return std::nullopt;
}

std::string_view transcript_format_name(TranscriptFormat format) {
    switch (format) {
        case TranscriptFormat::txt:
            return "txt";
        case TranscriptFormat::srt:
            return "srt";
        case TranscriptFormat::vtt:
            return "vtt";
        case TranscriptFormat::json:
            return "json";
    }
    return "txt";
}

std::string srt_timestamp(double seconds) { return timestamp(seconds, Hours::always, ','); }

std::string vtt_timestamp(double seconds) { return timestamp(seconds, Hours::when_nonzero, '.'); }

std::string render_txt(const decoding::Transcript& transcript) {
    std::string out;
    for (const decoding::Segment& segment : transcript.segments) {
        if (one_line(segment.text).empty())
            continue;  // zero-length and empty segments (JSON keeps them)
        out += one_line(segment.text);
        out += '\n';
    }
    return out;
}

std::vector<Cue> subtitle_cues(const decoding::Transcript& transcript, const CueOptions& options) {
    std::vector<Cue> cues;
    for (const decoding::Segment& segment : transcript.segments) {
        if (options.max_line_words <= 0 || segment.words.empty()) {
            // An empty cue would end an SRT block early; a VTT cue needs text.
            if (!cue_text(segment.text).empty()) {
                cues.push_back({segment.start_s, segment.end_s, cue_text(segment.text)});
            }
            continue;
        }
        const auto per_line = static_cast<size_t>(options.max_line_words);
        for (size_t first = 0; first < segment.words.size(); first += per_line) {
            const size_t last = std::min(first + per_line, segment.words.size()) - 1;
            std::string text;
            for (size_t w = first; w <= last; ++w) text += segment.words[w].text;
            if (cue_text(text).empty()) continue;
            cues.push_back(
                {segment.words[first].start_s, segment.words[last].end_s, cue_text(text)});
        }
    }
    return cues;
}

std::string render_srt(const decoding::Transcript& transcript, const CueOptions& options) {
    std::string out;
    size_t number = 1;
    for (const Cue& cue : subtitle_cues(transcript, options)) {
        out += std::to_string(number++) + "\n";
        out += srt_timestamp(cue.start_s) + " --> " + srt_timestamp(cue.end_s) + "\n";
        out += cue.text + "\n\n";
    }
    return out;
}

std::string render_vtt(const decoding::Transcript& transcript, const CueOptions& options) {
    std::string out = "WEBVTT\n\n";
    for (const Cue& cue : subtitle_cues(transcript, options)) {
        out += vtt_timestamp(cue.start_s) + " --> " + vtt_timestamp(cue.end_s) + "\n";
        out += cue.text + "\n\n";
    }
    return out;
}

std::string render_json(const decoding::Transcript& transcript) {
    nlohmann::ordered_json segments = nlohmann::ordered_json::array();
    const bool with_words =
        std::any_of(transcript.segments.begin(), transcript.segments.end(),
                    [](const decoding::Segment& s) { return !s.words.empty(); });
    int64_t id = 0;
    for (const decoding::Segment& segment : transcript.segments) {
        nlohmann::ordered_json item;
        item["id"] = id++;
        // openai's "seek": the window's first frame, in 10 ms mel frames.
        item["seek"] = segment.seek_frames;
        // Milliseconds, as SRT and WebVTT write them: 0.94, not 0.9400000000000001.
        item["start"] = std::round(segment.start_s * 1000.0) / 1000.0;
        item["end"] = std::round(segment.end_s * 1000.0) / 1000.0;
        item["text"] = segment.text;
        item["tokens"] = segment.tokens;
        item["avg_logprob"] = segment.avg_logprob;
        item["no_speech_prob"] = segment.no_speech_prob;
        item["temperature"] = segment.temperature;
        item["compression_ratio"] = segment.compression_ratio;
        if (with_words) {
            nlohmann::ordered_json words = nlohmann::ordered_json::array();
            for (const decoding::Word& word : segment.words) {
                nlohmann::ordered_json entry;
                entry["word"] = word.text;
                entry["start"] = std::round(word.start_s * 1000.0) / 1000.0;
                entry["end"] = std::round(word.end_s * 1000.0) / 1000.0;
                entry["probability"] = std::round(word.probability * 10000.0) / 10000.0;
                words.push_back(std::move(entry));
            }
            item["words"] = std::move(words);
        }
        segments.push_back(std::move(item));
    }
    nlohmann::ordered_json root;
    root["text"] = transcript.text;
    root["language"] = transcript.language;
    root["segments"] = std::move(segments);
    // A run stopped before the end of the audio says so (openai's format has no such key; a
    // complete transcript is written exactly as before).
    if (!transcript.complete) root["incomplete"] = true;
    return root.dump(2, ' ', false, nlohmann::ordered_json::error_handler_t::replace) + "\n";
}

std::string render_transcript(const decoding::Transcript& transcript, TranscriptFormat format,
                              const CueOptions& cues) {
    switch (format) {
        case TranscriptFormat::txt:
            return render_txt(transcript);
        case TranscriptFormat::srt:
            return render_srt(transcript, cues);
        case TranscriptFormat::vtt:
            return render_vtt(transcript, cues);
        case TranscriptFormat::json:
            return render_json(transcript);
    }
    return render_txt(transcript);
}

}  // namespace earshot::app
