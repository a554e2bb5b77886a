// Long-form transcription with the embedded micro model through `earshot transcribe`: a recording
// of held-out sentences with pauses against the same sentences one file each (WER within 2
// points, every segment's times on the speech it holds), and a file's last window, padded with
// silence as the model was trained, decoding exactly as the same audio in a full window.
#include <gtest/gtest.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "file_bytes.h"
#include "micro_command.h"
#include "micro_model.h"
#include "plain_words.h"
#include "run_process.h"
#include "spoken_words.h"
#include "temp_dir.h"
#include "word_edits.h"

namespace earshot::test {
namespace {

namespace fs = std::filesystem;

using MicroLongForm = MicroModelCommand;

// Issue 19 items 5 and 6: about two and a half minutes of held-out sentences with 0.6-1.4 s pauses
// against the same sentences one file each. Before the seek loop resumed in pauses and the model
// dropped its previous-text prompt, the long form measured 25-34% against 6.5% one by one, with
// a third of its segments off their speech; before segment times were snapped to the speech,
// 9 of 48 were still off.
TEST_F(MicroLongForm, LongFormIsAsGoodAsSentencesOneByOne) {
    std::vector<std::vector<std::string>> sentences = micro_heldout_words(32);
    ASSERT_EQ(sentences.size(), 32u);
    for (size_t i = 0; i < 16; ++i) sentences.push_back(sentences[31 - 2 * i]);
    SpeechOptions speech;
    speech.whole_sentences = true;
    speech.speed_wpm = 160;
    speech.lead_s = 0.3;
    speech.tail_s = 0.5;
    std::string why;
    // One file per sentence, and the long recording: the sentences' clips with pauses between.
    std::vector<fs::path> singles;
    std::vector<float> long_samples(static_cast<size_t>(0.5 * kSpokenSampleRateHz), 0.0F);
    std::vector<std::pair<double, double>> spans;  // each sentence's speech in the recording
    for (size_t i = 0; i < sentences.size(); ++i) {
        const auto audio = speak_sentences({sentences[i]}, speech, &why);
        ASSERT_TRUE(audio) << why;
        singles.push_back(dir_.path() / ("one_" + std::to_string(i) + ".wav"));
        write_wav_pcm16(singles.back(), audio->samples);
        const auto [from_s, to_s] = audio->sentences.front();
        const auto from = static_cast<size_t>(std::lround(from_s * kSpokenSampleRateHz));
        const auto to = static_cast<size_t>(std::lround(to_s * kSpokenSampleRateHz));
        if (i > 0) {
            const double pause_s = 0.6 + 0.8 * static_cast<double>((i * 7) % 11) / 10.0;
            long_samples.resize(long_samples.size() +
                                static_cast<size_t>(pause_s * kSpokenSampleRateHz));
        }
        const double start_s = static_cast<double>(long_samples.size()) / kSpokenSampleRateHz;
        long_samples.insert(long_samples.end(), audio->samples.begin() + long(from),
                            audio->samples.begin() + long(to));
        spans.emplace_back(start_s, start_s + (to_s - from_s));
    }
    long_samples.resize(long_samples.size() + kSpokenSampleRateHz, 0.0F);
    const fs::path long_wav = dir_.path() / "long.wav";
    write_wav_pcm16(long_wav, long_samples);

    ASSERT_EQ(transcribe(singles, "--format txt").exit_code, 0);
    size_t single_edits = 0;
    size_t said_words = 0;
    for (size_t i = 0; i < sentences.size(); ++i) {
        const auto heard =
            plain_words(read_file_text(dir_.path() / ("one_" + std::to_string(i) + ".txt")));
        single_edits += word_edits(sentences[i], heard);
        said_words += sentences[i].size();
    }
    const double single_wer = double(single_edits) / double(said_words);

    std::vector<std::string> said;
    std::vector<size_t> sentence_of;  // per said word
    for (size_t i = 0; i < sentences.size(); ++i) {
        for (const auto& w : sentences[i]) {
            said.push_back(w);
            sentence_of.push_back(i);
        }
    }
    // The long file's WER, its segments with text, and how many of those are more than 0.3 s
    // off the speech of the sentences their words were matched to.
    struct LongForm {
        double wer = 0.0;
        size_t texted = 0;
        size_t off = 0;
    };
    auto measure = [&](const std::string& flags) {
        LongForm result;
        const ProcessResult r = transcribe({long_wav}, "--format json " + flags);
        EXPECT_EQ(r.exit_code, 0) << r.err;
        const auto json = nlohmann::json::parse(read_file_text(dir_.path() / "long.json"));
        std::vector<std::string> heard;
        std::vector<size_t> segment_of;  // per heard word
        const auto& segments = json["segments"];
        for (size_t s = 0; s < segments.size(); ++s) {
            for (const auto& w : plain_words(segments[s]["text"].get<std::string>())) {
                heard.push_back(w);
                segment_of.push_back(s);
            }
        }
        result.wer = double(word_edits(said, heard)) / double(said.size());
        const std::vector<long> match = match_words(said, heard, WordMatch::or_substituted);
        for (size_t s = 0; s < segments.size(); ++s) {
            size_t first = sentences.size();
            size_t last = 0;
            bool any = false;
            for (size_t j = 0; j < heard.size(); ++j) {
                if (segment_of[j] != s) continue;
                any = true;
                if (match[j] < 0) continue;
                first = std::min(first, sentence_of[size_t(match[j])]);
                last = std::max(last, sentence_of[size_t(match[j])]);
            }
            if (!any) continue;
            ++result.texted;
            const double start = segments[s]["start"].get<double>();
            const double end = segments[s]["end"].get<double>();
            if (first > last || std::abs(start - spans[first].first) > 0.3 ||
                std::abs(end - spans[last].second) > 0.3) {
                ++result.off;
                std::printf("  segment %.2f-%.2f \"%s\" is off its speech (%.2f-%.2f)\n", start,
                            end, segments[s]["text"].get<std::string>().c_str(),
                            first > last ? -1.0 : spans[first].first,
                            first > last ? -1.0 : spans[last].second);
            }
        }
        std::printf(
            "long form %.1f s %s: WER %.1f%% (one by one %.1f%%), %zu segments with text, %zu "
            "off their speech by more than 0.3 s\n",
            static_cast<double>(long_samples.size()) / kSpokenSampleRateHz, flags.c_str(),
            result.wer * 100.0, single_wer * 100.0, result.texted, result.off);
        return result;
    };
    // Segment times snapped to the speech (the default). The model's own timestamps end 0.2-0.4 s
    // early and sometimes start in the pause before their sentence: measured 9 of 48 segments
    // off by more than 0.3 s with them (`--segment-times model`), 0 snapped.
    const LongForm plain = measure("");
    const LongForm model_times = measure("--segment-times model");
    EXPECT_DOUBLE_EQ(model_times.wer, plain.wer) << "snapping times changes no text";
    EXPECT_EQ(model_times.texted, plain.texted);
    EXPECT_LE(plain.wer, single_wer + 0.02) << "the issue's target: within 2 points";
    EXPECT_GE(plain.texted, sentences.size() * 3 / 4);
    EXPECT_EQ(plain.off, 0u) << "the issue's target: every segment on its speech (+-0.3 s)";
    // Word timestamps fit each segment's times to its words (cross-attention alignment), then to
    // the speech. They must change no text. The micro model's alignment heads are the default
    // last half of the decoder, which nothing trained to align: without the snapping, 21 of 48
    // segments were off.
    const LongForm worded = measure("--word-timestamps");
    EXPECT_DOUBLE_EQ(worded.wer, plain.wer) << "word times change no text";
    EXPECT_LE(worded.off, plain.texted / 10);
}

// Issue 19 item 8: a file's last window holds less than a window of audio. Padded with the
// log-mel of silence, as the micro model's training windows were (samples zero-padded before the
// log-mel), it decodes exactly as the same audio followed by enough silence to fill the window;
// padded with 0.0 in the log-mel domain (current openai), some sentences came out differently.
TEST_F(MicroLongForm, TheLastWindowDecodesAsAFullWindow) {
    const std::vector<std::vector<std::string>> sentences = micro_heldout_words(30);
    SpeechOptions speech;
    speech.whole_sentences = true;
    speech.speed_wpm = 160;
    speech.lead_s = 0.3;
    speech.tail_s = 0.5;
    constexpr size_t kWindowSamples = 6 * kSpokenSampleRateHz;  // the micro model's window
    std::vector<fs::path> files;
    std::string why;
    for (size_t i = 0; i < sentences.size(); ++i) {
        auto audio = speak_sentences({sentences[i]}, speech, &why);
        ASSERT_TRUE(audio) << why;
        ASSERT_LT(audio->samples.size(), kWindowSamples);
        files.push_back(dir_.path() / ("short_" + std::to_string(i) + ".wav"));
        write_wav_pcm16(files.back(), audio->samples);
        audio->samples.resize(kWindowSamples, 0.0F);
        files.push_back(dir_.path() / ("full_" + std::to_string(i) + ".wav"));
        write_wav_pcm16(files.back(), audio->samples);
    }
    ASSERT_EQ(transcribe(files, "--format txt --no-timestamps").exit_code, 0);
    size_t edits_short = 0;
    size_t edits_full = 0;
    for (size_t i = 0; i < sentences.size(); ++i) {
        const std::string short_text =
            read_file_text(dir_.path() / ("short_" + std::to_string(i) + ".txt"));
        const std::string full_text =
            read_file_text(dir_.path() / ("full_" + std::to_string(i) + ".txt"));
        EXPECT_EQ(short_text, full_text) << "sentence " << i;
        edits_short += word_edits(sentences[i], plain_words(short_text));
        edits_full += word_edits(sentences[i], plain_words(full_text));
    }
    std::printf("last window: %zu edits, the same audio in a full window: %zu edits\n", edits_short,
                edits_full);
}

// The last sentence of a file reaches its outputs, however far before the end it stops. With 1.6
// to 2 s of silence before it in its window, the micro model marks it with a lone start
// timestamp (<|0.98|>, its latest first timestamp) as if the window cut it; in the file's last
// window, which cannot move on, that was a blank segment and the sentence was lost: the short
// files below came out empty, and 7 of 36 random two-minute files lost their last sentence.
TEST_F(MicroLongForm, EveryFileKeepsItsLastSentence) {
    const std::vector<std::string> last{"thank", "you", "friend", "nice", "dinner"};
    SpeechOptions speech;
    speech.whole_sentences = true;
    speech.speed_wpm = 150;
    speech.sentence_gap_s = 2.0;
    struct Case {
        size_t before = 0;  // held-out sentences before the last one
        double lead_s = 0.0;
        double tail_s = 0.0;
    };
    const std::vector<Case> cases{{0, 1.6, 0.5},  {0, 1.6, 2.0},  {0, 2.0, 1.0},
                                  {12, 0.5, 0.5}, {12, 0.5, 1.5}, {12, 0.5, 3.0}};
    std::vector<fs::path> files;
    std::string why;
    for (size_t i = 0; i < cases.size(); ++i) {
        std::vector<std::vector<std::string>> sentences = micro_heldout_words(cases[i].before);
        sentences.push_back(last);
        speech.lead_s = cases[i].lead_s;
        speech.tail_s = cases[i].tail_s;
        const auto audio = speak_sentences(sentences, speech, &why);
        ASSERT_TRUE(audio) << why;
        files.push_back(dir_.path() / ("last_" + std::to_string(i) + ".wav"));
        write_wav_pcm16(files.back(), audio->samples);
    }
    const ProcessResult r = transcribe(files, "--format txt");
    ASSERT_EQ(r.exit_code, 0) << r.err;
    for (size_t i = 0; i < cases.size(); ++i) {
        const std::vector<std::string> heard =
            plain_words(read_file_text(dir_.path() / ("last_" + std::to_string(i) + ".txt")));
        // The transcript ends with the last sentence, one word wrong at most.
        const size_t from = heard.size() > last.size() ? heard.size() - last.size() : 0;
        const std::vector<std::string> tail(heard.begin() + static_cast<long>(from), heard.end());
        EXPECT_LE(word_edits(last, tail), 1u)
            << "case " << i << " (" << cases[i].before << " sentences before, lead "
            << cases[i].lead_s << " s, tail " << cases[i].tail_s << " s)";
    }
}

}  // namespace
}  // namespace earshot::test
