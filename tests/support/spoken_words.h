// Spoken test audio with known word times: espeak-ng says each word alone, and the words are laid
// out at 16 kHz with fixed silences between them, so every word's start and end are exact.
#pragma once

#include <sys/wait.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <exception>
#include <filesystem>
#include <fstream>
#include <map>
#include <numbers>
#include <numeric>
#include <optional>
#include <span>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "temp_dir.h"
#include "wav_file.h"

namespace earshot::test {

inline constexpr int kSpokenSampleRateHz = 16000;

struct SpokenWord {
    std::string text;
    double start_s = 0;  // first sample of the word / 16 kHz
    double end_s = 0;    // one past its last sample / 16 kHz
};

struct SpokenAudio {
    std::vector<float> samples;                        // [Samples], 16 kHz mono
    std::vector<SpokenWord> words;                     // in order, seconds from sample 0
    std::vector<std::pair<double, double>> sentences;  // [start_s, end_s] of each sentence
    double duration_s() const {
        return static_cast<double>(samples.size()) / static_cast<double>(kSpokenSampleRateHz);
    }
};

struct SpeechOptions {
    std::string voice = "en-us";
    int speed_wpm = 160;
    int pitch = 50;
    double word_gap_s = 0.06;     // silence between words of a sentence
    double sentence_gap_s = 0.8;  // silence between sentences
    double lead_s = 0.5;          // silence before the first word
    double tail_s = 1.0;          // silence after the last word
    double gain = 0.5;            // peak scale of the speech
    // Speak each sentence in one espeak-ng call (natural prosody and joins; word_gap_s unused)
    // instead of word by word. Sentence times stay exact; `words` is then left empty.
    bool whole_sentences = false;
};

namespace spoken_detail {

// Samples quieter than this (after scaling) at either end of a word are cut off.
inline constexpr float kTrimThreshold = 1e-3f;

inline std::string shell_quote(const std::string& text) {
    std::string quoted = "'";
    for (char c : text) quoted += c == '\'' ? std::string("'\\''") : std::string(1, c);
    return quoted + "'";
}

// Runs `command` through the shell; returns its exit status (-1 when it did not exit normally)
// and everything it wrote to stdout and stderr.
inline std::pair<int, std::string> run_command(const std::string& command) {
    std::FILE* pipe = ::popen((command + " 2>&1").c_str(), "r");
    if (pipe == nullptr) return {-1, "popen failed"};
    std::string output;
    std::array<char, 512> buffer{};
    std::size_t n = 0;
    while ((n = std::fread(buffer.data(), 1, buffer.size(), pipe)) > 0) {
        output.append(buffer.data(), n);
    }
    const int status = ::pclose(pipe);
    return {WIFEXITED(status) ? WEXITSTATUS(status) : -1, output};
}

// Band-limited resampling of one whole signal: each output sample is the input under a
// Blackman-windowed sinc low-pass at 0.95 of the lower Nyquist rate, 32 zero crossings each side.
// Output n sits at input position n * from / to, whose fractional part takes only to / gcd values:
// one row of taps per such phase, computed once.
inline std::vector<float> resample(std::span<const float> input, int from_hz, int to_hz) {
    if (from_hz == to_hz) return {input.begin(), input.end()};
    const auto divisor = static_cast<std::int64_t>(std::gcd(from_hz, to_hz));
    const std::int64_t up = to_hz / divisor;      // phases
    const std::int64_t down = from_hz / divisor;  // input samples per `up` outputs
    const double cutoff = 0.95 * std::min(1.0, static_cast<double>(up) / static_cast<double>(down));
    const double half_width = 32.0 / cutoff;  // input samples each side
    const auto half_taps = static_cast<std::int64_t>(std::ceil(half_width));
    const std::int64_t taps = 2 * half_taps + 2;
    // kernel[phase * taps + j]: weight of input k = base + half_taps + 1 - j for an output at
    // base + phase / up, the two being d = j - half_taps - 1 + phase / up apart.
    std::vector<double> kernel(static_cast<std::size_t>(up * taps));
    for (std::int64_t phase = 0; phase < up; ++phase) {
        for (std::int64_t j = 0; j < taps; ++j) {
            const double d = static_cast<double>(j - half_taps - 1) +
                             static_cast<double>(phase) / static_cast<double>(up);
            double weight = 0.0;
            if (std::abs(d) < half_width) {
                const double x = std::numbers::pi * cutoff * d;
                const double sinc = d == 0.0 ? 1.0 : std::sin(x) / x;
                const double w = 0.5 + 0.5 * d / half_width;  // 0..1 across the window
                const double blackman = 0.42 - 0.5 * std::cos(2.0 * std::numbers::pi * w) +
                                        0.08 * std::cos(4.0 * std::numbers::pi * w);
                weight = cutoff * sinc * blackman;
            }
            kernel[static_cast<std::size_t>(phase * taps + j)] = weight;
        }
    }
    const auto in_samples = static_cast<std::int64_t>(input.size());
    const auto out_samples = static_cast<std::int64_t>(std::llround(
        static_cast<double>(in_samples) * static_cast<double>(up) / static_cast<double>(down)));
    std::vector<float> out(static_cast<std::size_t>(out_samples));
    for (std::int64_t n = 0; n < out_samples; ++n) {
        const std::int64_t base = n * down / up;  // input sample at or before the position
        const std::int64_t phase = n * down % up;
        const double* row = kernel.data() + phase * taps;
        double sum = 0.0;
        for (std::int64_t j = 0; j < taps; ++j) {
            const std::int64_t k = base + half_taps + 1 - j;
            if (k >= 0 && k < in_samples) {
                sum += static_cast<double>(input[static_cast<std::size_t>(k)]) *
                       row[static_cast<std::size_t>(j)];
            }
        }
        out[static_cast<std::size_t>(n)] = static_cast<float>(sum);
    }
    return out;
}

inline std::size_t seconds_to_samples(double seconds) {
    return static_cast<std::size_t>(
        std::llround(std::max(0.0, seconds) * static_cast<double>(kSpokenSampleRateHz)));
}

inline double samples_to_seconds(std::size_t samples) {
    return static_cast<double>(samples) / static_cast<double>(kSpokenSampleRateHz);
}

// `word` spoken by espeak-ng into `wav`; an empty string on success, otherwise what went wrong.
inline std::string synthesize(const std::string& word, const SpeechOptions& options,
                              const std::filesystem::path& text_file,
                              const std::filesystem::path& wav) {
    {
        std::ofstream text(text_file, std::ios::binary | std::ios::trunc);
        text << word;
        if (!text) return "cannot write " + text_file.string();
    }
    // The text goes through a file (-f) so no word can be taken for an option.
    const std::string command = "espeak-ng -v " + shell_quote(options.voice) + " -s " +
                                std::to_string(options.speed_wpm) + " -p " +
                                std::to_string(options.pitch) + " -w " + shell_quote(wav.string()) +
                                " -f " + shell_quote(text_file.string());
    const auto [status, output] = run_command(command);
    if (status != 0) {
        return "espeak-ng exited " + std::to_string(status) + " for \"" + word + "\": " + output;
    }
    return {};
}

}  // namespace spoken_detail

// The sentences, each a list of words, spoken word by word and laid out as
//   lead_s | w w w (word_gap_s between) | sentence_gap_s | w w ... | tail_s
// with the speech scaled to peak `gain`. nullopt (with *why set) when espeak-ng is missing or
// fails, or a word comes out silent. espeak-ng is a required package (packaging/setup.sh): the
// caller fails the test with *why, it does not skip.
inline std::optional<SpokenAudio> speak_sentences(
    const std::vector<std::vector<std::string>>& sentences, const SpeechOptions& options,
    std::string* why) {
    namespace sd = spoken_detail;
    auto fail = [why](std::string message) {
        if (why != nullptr) *why = std::move(message);
        return std::nullopt;
    };
    if (sd::run_command("command -v espeak-ng").first != 0) {
        return fail("espeak-ng is not installed (it is in packaging/setup.sh)");
    }

    // Each distinct word once, resampled to 16 kHz; file names are indices, never the text.
    std::map<std::string, std::vector<float>> voiced;
    try {
        TempDir dir("earshot-spoken-words");
        for (const auto& sentence : sentences) {
            std::vector<std::string> units = sentence;
            if (options.whole_sentences) {
                std::string text;
                for (const auto& word : sentence) text += (text.empty() ? "" : " ") + word;
                units = {text};
            }
            for (const auto& word : units) {
                if (word.empty() || voiced.contains(word)) continue;
                const std::string stem = "word" + std::to_string(voiced.size());
                const std::filesystem::path wav = dir.path() / (stem + ".wav");
                const std::string error =
                    sd::synthesize(word, options, dir.path() / (stem + ".txt"), wav);
                if (!error.empty()) return fail(error);
                const WavPcm16 spoken = read_wav_pcm16(wav);
                if (spoken.channels != 1) {
                    return fail("espeak-ng wrote " + std::to_string(spoken.channels) +
                                " channels for \"" + word + "\"");
                }
                voiced.emplace(
                    word, sd::resample(spoken.samples, spoken.sample_rate_hz, kSpokenSampleRateHz));
            }
        }
    } catch (const std::exception& e) {
        return fail(std::string("reading espeak-ng output: ") + e.what());
    }

    // One scale for all words keeps their relative loudness; then trim each word's quiet ends.
    float peak = 0.0f;
    for (const auto& [word, samples] : voiced) {
        for (float x : samples) peak = std::max(peak, std::abs(x));
    }
    if (peak <= 0.0f) return fail("espeak-ng produced only silence");
    const auto scale = static_cast<float>(options.gain) / peak;
    for (auto& [word, samples] : voiced) {
        for (float& x : samples) x *= scale;
        auto loud = [](float x) { return std::abs(x) >= sd::kTrimThreshold; };
        const auto first = std::find_if(samples.begin(), samples.end(), loud);
        if (first == samples.end()) return fail("espeak-ng said \"" + word + "\" as silence");
        const auto last = std::find_if(samples.rbegin(), samples.rend(), loud).base();
        samples = std::vector<float>(first, last);
    }

    SpokenAudio audio;
    const std::size_t word_gap = sd::seconds_to_samples(options.word_gap_s);
    const std::size_t sentence_gap = sd::seconds_to_samples(options.sentence_gap_s);
    audio.samples.assign(sd::seconds_to_samples(options.lead_s), 0.0f);
    bool first_sentence = true;
    for (const auto& sentence : sentences) {
        if (sentence.empty()) continue;
        if (!first_sentence) audio.samples.resize(audio.samples.size() + sentence_gap, 0.0f);
        first_sentence = false;
        const std::size_t sentence_start = audio.samples.size();
        if (options.whole_sentences) {
            std::string text;
            for (const auto& word : sentence) text += (text.empty() ? "" : " ") + word;
            const std::vector<float>& samples = voiced.at(text);
            audio.samples.insert(audio.samples.end(), samples.begin(), samples.end());
            audio.sentences.emplace_back(sd::samples_to_seconds(sentence_start),
                                         sd::samples_to_seconds(audio.samples.size()));
            continue;
        }
        for (std::size_t i = 0; i < sentence.size(); ++i) {
            if (i > 0) audio.samples.resize(audio.samples.size() + word_gap, 0.0f);
            const std::vector<float>& samples = voiced.at(sentence[i]);
            const std::size_t start = audio.samples.size();
            audio.samples.insert(audio.samples.end(), samples.begin(), samples.end());
            audio.words.push_back({sentence[i], sd::samples_to_seconds(start),
                                   sd::samples_to_seconds(audio.samples.size())});
        }
        audio.sentences.emplace_back(sd::samples_to_seconds(sentence_start),
                                     sd::samples_to_seconds(audio.samples.size()));
    }
    audio.samples.resize(audio.samples.size() + sd::seconds_to_samples(options.tail_s), 0.0f);
    return audio;
}

// Writes `samples` as 16-bit PCM mono WAV (for paplay, ffmpeg, `earshot live --input`); values
// are rounded to the nearest step of 1 / 32768 and clipped to [-1, 32767 / 32768].
inline void write_wav_pcm16(const std::filesystem::path& path, std::span<const float> samples,
                            int sample_rate_hz = kSpokenSampleRateHz) {
    // Sized up front and filled by offset (appending four-byte tags trips GCC 12's
    // -Wstringop-overflow at -O2).
    const auto data_bytes = static_cast<std::uint32_t>(samples.size() * 2);
    std::vector<unsigned char> bytes(44 + std::size_t{data_bytes});
    std::size_t at = 0;
    auto put = [&bytes, &at](std::uint32_t v, int n) {
        for (int i = 0; i < n; ++i) bytes[at++] = static_cast<unsigned char>(v >> (8 * i));
    };
    auto tag = [&bytes, &at](const char* id) {
        for (int i = 0; i < 4; ++i) bytes[at++] = static_cast<unsigned char>(id[i]);
    };
    tag("RIFF");
    put(36 + data_bytes, 4);
    tag("WAVE");
    tag("fmt ");
    put(16, 4);                                              // fmt chunk size
    put(1, 2);                                               // integer PCM
    put(1, 2);                                               // mono
    put(static_cast<std::uint32_t>(sample_rate_hz), 4);      // frames per second
    put(static_cast<std::uint32_t>(sample_rate_hz) * 2, 4);  // bytes per second
    put(2, 2);                                               // bytes per frame
    put(16, 2);                                              // bits per sample
    tag("data");
    put(data_bytes, 4);
    for (float x : samples) {
        const double scaled =
            std::clamp(std::round(static_cast<double>(x) * 32768.0), -32768.0, 32767.0);
        put(static_cast<std::uint32_t>(
                static_cast<std::uint16_t>(static_cast<std::int16_t>(scaled))),
            2);
    }
    std::ofstream out(path, std::ios::binary | std::ios::trunc);
    out.write(reinterpret_cast<const char*>(bytes.data()),
              static_cast<std::streamsize>(bytes.size()));
    if (!out) throw std::runtime_error("wav: cannot write " + path.string());
}

}  // namespace earshot::test
