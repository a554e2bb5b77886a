// The live latency harness: espeak-ng sentences with known word times are played into a private
// PulseAudio null sink whose monitor is the microphone, the live pipeline listens through
// PortAudio, and for every word the delay from its end in the audio to (a) the first update that
// heard it whole, (b) the second one (the earliest LocalAgreement-2 can commit it) and (c) its
// commit, when the model's text matches, is printed as p50 / p95, with the committed text's WER.
// The WAV's place on the stream clock is taken from its first loud hop as the pipeline's level
// meter saw it, so the player's start-up time (a shell, a script, paplay: 0.1 to over 1 s on a
// loaded machine) is not counted; it is printed.
// The model: EARSHOT_LIVE_MODEL (an HF directory or ggml file) when set, else the embedded micro
// model, else a random checkpoint of Whisper tiny's shape, which understands nothing: then only
// timing and throughput are measured. With the micro model the committed text's WER is printed
// beside its 10% target and held to a regression bound (the model does not meet the target yet).
// Latency is a measurement; what is asserted is that the measurement happened (every printed row
// has samples, and a model that understands the words committed most of them) and, for the micro
// model, the live policy's targets: word end to commit p50 <= 0.8 s and p95 <= 1.3 s.
// Both sides of the word comparisons go through the test's own normaliser (plain_words.h).
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "dictation_sentences.h"
#include "earshot/core/live_controller.h"
#include "earshot/core/transcription_setup.h"
#include "live_fixture.h"
#include "micro_model.h"
#include "plain_words.h"
#include "spoken_words.h"
#include "temp_dir.h"
#include "virtual_mic.h"
#include "word_edits.h"

namespace earshot::test {
namespace {

namespace fs = std::filesystem;
using namespace std::chrono_literals;
using Clock = std::chrono::steady_clock;

double seconds_between(Clock::time_point from, Clock::time_point to) {
    return std::chrono::duration<double>(to - from).count();
}

struct Percentiles {
    size_t n = 0;
    double p50 = 0.0;
    double p95 = 0.0;
};

Percentiles percentiles(std::vector<double> v) {
    Percentiles p;
    p.n = v.size();
    if (v.empty()) return p;
    std::sort(v.begin(), v.end());
    auto at = [&](double q) {
        return v[std::min(v.size() - 1,
                          static_cast<size_t>(q * static_cast<double>(v.size() - 1) + 0.5))];
    };
    p.p50 = at(0.5);
    p.p95 = at(0.95);
    return p;
}

// A hop's plain level, as the pipeline's meter measures it: 10 log10(mean square + 1e-12).
constexpr double kOnsetDbfs = -50.0;
constexpr size_t kHopSamples = 160;

// Seconds from the start of `samples` (16 kHz) to the first hop louder than kOnsetDbfs.
double first_loud_hop_s(const std::vector<float>& samples) {
    for (size_t at = 0; at + kHopSamples <= samples.size(); at += kHopSamples) {
        double sum = 0.0;
        for (size_t i = at; i < at + kHopSamples; ++i) {
            sum += static_cast<double>(samples[i]) * static_cast<double>(samples[i]);
        }
        const double dbfs = 10.0 * std::log10(sum / static_cast<double>(kHopSamples) + 1e-12);
        if (dbfs > kOnsetDbfs) return static_cast<double>(at) / 16000.0;
    }
    return 0.0;
}

void print_row(const char* what, const Percentiles& p) {
    if (p.n == 0) {
        std::printf("  %-46s      n/a (no samples)\n", what);
    } else {
        std::printf("  %-46s %4zu  p50 %6.0f ms  p95 %6.0f ms\n", what, p.n, p.p50 * 1000.0,
                    p.p95 * 1000.0);
    }
}

TEST(LiveLatencyLiveDevice, WordEndToCommitThroughTheVirtualMicrophone) {
    VirtualMic mic;
    ASSERT_TRUE(mic.available()) << mic.error();
    mic.export_environment();

    TempDir dir;
    std::unique_ptr<app::LoadedModel> loaded;
    std::string model_name;
    const fs::path micro = micro_model_dir();
    bool understands = false;  // the micro model: it hears sentences from its own word list
    bool hears_words = true;   // false for the random checkpoint: nothing to commit or match
    if (const char* path = std::getenv("EARSHOT_LIVE_MODEL")) {
        loaded = app::load_model(path);
        model_name = path;
    } else if (fs::exists(micro / "model.safetensors")) {
        loaded = app::load_model(micro);
        model_name = "the embedded micro model";
        understands = true;
    } else {
        // Only this model needs a vocabulary from ../shared.
        if (!fs::exists(multilingual_tiktoken())) {
            GTEST_SKIP() << "no micro model at " << micro << " and shared whisper assets are "
                         << "absent (" << multilingual_tiktoken() << ")";
        }
        hears_words = false;
        loaded = random_live_model(dir.path() / "tiny", RandomModelSize::tiny);
        model_name = "random checkpoint of Whisper tiny's shape (timing only)";
    }

    // The micro model knows only its own word list: it hears six of its held-out sentences.
    std::vector<std::vector<std::string>> sentences = dictation_sentence_words(0, 6);
    if (understands) {
        sentences.clear();
        std::ifstream heldout(micro_heldout_sentences());
        std::string line;
        while (sentences.size() < 6 && std::getline(heldout, line)) {
            if (!line.empty()) sentences.push_back(sentence_words(line));
        }
        ASSERT_EQ(sentences.size(), 6u) << "heldout.txt beside " << micro;
    }
    std::string why;
    SpeechOptions speech;
    speech.sentence_gap_s = 1.2;
    const auto spoken = speak_sentences(sentences, speech, &why);
    ASSERT_TRUE(spoken) << why;
    const fs::path wav = dir.path() / "dictation.wav";
    write_wav_pcm16(wav, spoken->samples);

    app::LiveOptions options;
    options.device = "pulse";
    options.streaming.decoding.language = "en";
    app::apply_model_defaults(*loaded, options.streaming.decoding);
    UpdateLog log;
    app::LiveController live(*loaded->model, loaded->tokenizer, options, log.sink());
    live.start();
    std::this_thread::sleep_for(500ms);
    // The level meter is watched for the WAV's first loud hop (the meter shows the last hop the
    // audio thread handled, so the onset is seen when it was heard, or a few hops later: the
    // delays below may be short by that much, never long).
    std::atomic<bool> watching{true};
    std::optional<Clock::time_point> onset_heard;
    std::thread watch([&] {
        while (watching.load() && !onset_heard) {
            if (static_cast<double>(live.level_dbfs()) > kOnsetDbfs) onset_heard = Clock::now();
            std::this_thread::sleep_for(1ms);
        }
    });
    const Clock::time_point played = Clock::now();
    const bool playing = mic.play_in_background(wav);
    if (playing) {
        std::this_thread::sleep_for(std::chrono::duration<double>(spoken->duration_s() + 3.0));
    }
    watching = false;
    watch.join();
    live.stop();
    ASSERT_TRUE(playing);
    const auto first_audio = live.first_audio_at();
    ASSERT_TRUE(first_audio.has_value()) << "no audio reached the pipeline";
    ASSERT_TRUE(onset_heard.has_value()) << "the level meter never heard the WAV";
    // Stream time of the WAV's sample 0: where its first loud hop was heard, less its place in
    // the WAV.
    const double offset_s =
        seconds_between(*first_audio, *onset_heard) - first_loud_hop_s(spoken->samples);
    const double player_start_s = offset_s - seconds_between(*first_audio, played);
    const auto entries = log.entries();
    ASSERT_FALSE(entries.empty());

    struct Published {
        double at_s;  // stream clock when the update arrived
        double audio_end_s;
    };
    std::vector<Published> published;
    std::vector<double> update_lag_s;
    for (const auto& e : entries) {
        const double at = seconds_between(*first_audio, e.arrived);
        published.push_back({at, e.update.update.audio_end_s});
        if (!e.update.update.final) update_lag_s.push_back(at - e.update.update.audio_end_s);
    }

    std::vector<double> heard_s;
    std::vector<double> agreeable_s;
    size_t unheard = 0;
    for (const SpokenWord& w : spoken->words) {
        const double end = offset_s + w.end_s;
        int seen = 0;
        for (const Published& p : published) {
            if (p.audio_end_s + 1e-9 < end) continue;
            if (++seen == 1) heard_s.push_back(p.at_s - end);
            if (seen == 2) {
                agreeable_s.push_back(p.at_s - end);
                break;
            }
        }
        if (seen == 0) ++unheard;
    }

    // Committed words matched in order to the spoken ones (same plain form).
    std::vector<double> commit_s;
    size_t next = 0;
    size_t committed_words = 0;
    for (size_t i = 0; i < entries.size(); ++i) {
        for (const auto& cw : entries[i].update.update.committed_words) {
            ++committed_words;
            const std::string form = plain_word(cw.text);
            for (size_t k = next; k < std::min(next + 3, spoken->words.size()); ++k) {
                if (plain_word(spoken->words[k].text) == form) {
                    commit_s.push_back(published[i].at_s - (offset_s + spoken->words[k].end_s));
                    next = k + 1;
                    break;
                }
            }
        }
    }

    if (std::getenv("EARSHOT_LIVE_TRACE") != nullptr) {
        // Every update, to see which rule committed what and when.
        for (size_t i = 0; i < entries.size(); ++i) {
            const auto& u = entries[i].update.update;
            std::printf("  at %6.2f s window [%6.2f, %6.2f) %-9s%s +\"%s\" ~\"%s\"\n",
                        published[i].at_s - offset_s, u.window_start_s - offset_s,
                        u.audio_end_s - offset_s, std::string(decoding::to_string(u.gate)).c_str(),
                        u.forced_commit ? " forced" : "", u.committed_text.c_str(),
                        u.tentative_text.c_str());
        }
        for (const SpokenWord& w : spoken->words) {
            std::printf("  said %-12s ends %6.2f s\n", w.text.c_str(), w.end_s);
        }
    }
    const app::LiveStats stats = live.stats();
    std::printf("live latency through the virtual microphone (%s)\n", model_name.c_str());
    std::printf("  the player started %.0f ms after it was asked to (not counted below)\n",
                player_start_s * 1000.0);
    std::printf(
        "  %zu words in %zu sentences, %.1f s; %lld updates (%lld decoded, %lld dropped "
        "while busy), engine p50 %.0f ms\n",
        spoken->words.size(), spoken->sentences.size(), spoken->duration_s(),
        static_cast<long long>(stats.updates), static_cast<long long>(stats.decoded_updates),
        static_cast<long long>(stats.coalesced_updates), percentiles(stats.engine_ms).p50);
    print_row("update published after its audio end", percentiles(update_lag_s));
    print_row("word end -> first update that heard it whole", percentiles(heard_s));
    print_row("word end -> second such update (LA-2 earliest)", percentiles(agreeable_s));
    const Percentiles commit = percentiles(commit_s);
    if (hears_words) {
        print_row("word end -> commit (matching words only)", commit);
        // The same delays counted from the play call: an upper bound, player start-up included.
        std::vector<double> from_play = commit_s;
        for (double& d : from_play) d += player_start_s;
        print_row("  the same from the play call (upper bound)", percentiles(from_play));
    }
    std::printf("  committed words: %zu, matching the spoken ones: %zu of %zu\n", committed_words,
                commit_s.size(), spoken->words.size());
    // Every printed row had data: the harness measured something.
    EXPECT_FALSE(update_lag_s.empty()) << "no update before the final one";
    EXPECT_FALSE(heard_s.empty()) << "no update heard a whole word";
    EXPECT_FALSE(agreeable_s.empty()) << "no word was heard by two updates";
    if (hears_words) {
        // A floor on the matched commits, in line with the WER bound below: at least 70% of the
        // spoken words were committed, in order, as themselves.
        EXPECT_GE(static_cast<double>(commit_s.size()),
                  0.7 * static_cast<double>(spoken->words.size()))
            << "spoken words committed as themselves";
    }

    // The committed text against what was said, word by word (Levenshtein over plain words).
    std::vector<std::string> said;
    for (const SpokenWord& w : spoken->words) {
        for (std::string& word : plain_words(w.text)) said.push_back(std::move(word));
    }
    std::string committed_text;
    for (const auto& e : entries) committed_text += e.update.update.committed_text;
    const std::vector<std::string> heard = plain_words(committed_text);
    const double wer =
        static_cast<double>(word_edits(said, heard)) / static_cast<double>(said.size());
    auto joined = [](const std::vector<std::string>& words) {
        std::string text;
        for (const auto& w : words) text += (text.empty() ? "" : " ") + w;
        return text;
    };
    std::printf("  said:      %s\n  committed: %s\n", joined(said).c_str(), joined(heard).c_str());
    std::printf("  committed text WER: %.1f%% (%zu words said, %zu committed)\n", wer * 100.0,
                said.size(), heard.size());

    if (understands) {
        // Issue 7's target is 10%; the embedded model measures 10-20% here (run to run, with the
        // update timing), so it is held to a regression bound.
        std::printf("  target 10%%: %s\n", wer <= 0.10 ? "met" : "not met");
        EXPECT_LE(wer, 0.30) << "the micro model's committed text: regression bound";
        // The live policy's targets (the engine needs about 20 ms per update; what remains is
        // the policy: pacing, agreement, pauses).
        EXPECT_LE(commit.p50, 0.8) << "word end to commit, p50";
        EXPECT_LE(commit.p95, 1.3) << "word end to commit, p95";
    }
    EXPECT_EQ(unheard, 0u) << "words that no update heard";
    EXPECT_EQ(stats.dropped_frames, 0u);
    EXPECT_TRUE(stats.error.empty()) << stats.error;
    EXPECT_TRUE(entries.back().update.update.final);
    // The microphone delivered about as much audio as the wall clock allowed.
    EXPECT_GT(stats.audio_s, spoken->duration_s());
}

}  // namespace
}  // namespace earshot::test
