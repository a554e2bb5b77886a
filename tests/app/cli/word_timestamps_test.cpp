// `earshot transcribe --word-timestamps` with the embedded micro model on held-out sentences spoken
// word by word (spoken_words.h), where every word's start is exact by construction: the median
// |start error| of the words heard right is at most 80 ms; SRT cues of --max-line-words hold at
// most that many words, timed by them; --max-line-words alone is refused.
#include <gtest/gtest.h>

#include <algorithm>
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

constexpr size_t kSentences = 12;
constexpr double kMedianStartErrorLimitS = 0.080;  // the bound

struct HeardWord {
    std::string word;  // plain form
    double start_s = 0.0;
    double end_s = 0.0;
};

std::vector<HeardWord> words_of(const nlohmann::json& transcript) {
    std::vector<HeardWord> words;
    for (const auto& segment : transcript.at("segments")) {
        for (const auto& w : segment.at("words")) {
            const std::string plain = plain_word(w.at("word").get<std::string>());
            if (plain.empty()) continue;
            words.push_back({plain, w.at("start").get<double>(), w.at("end").get<double>()});
        }
    }
    return words;
}

// On the CPU backend (the CUDA one has its own, word_timestamps_cuda_test.cpp).
class WordTimestamps : public MicroModelCommand {
protected:
    ProcessResult transcribe(const std::vector<fs::path>& files, const std::string& options) {
        return MicroModelCommand::transcribe(files, "--backend cpu " + options);
    }
};

TEST_F(WordTimestamps, MedianStartErrorOnHeldOutSentencesSpokenWordByWordIsAtMost80Ms) {
    const std::vector<std::vector<std::string>> sentences = micro_heldout_words(kSentences);
    ASSERT_EQ(sentences.size(), kSentences);
    const SpeechOptions speech;  // word by word: every word's start is known to the sample
    std::vector<fs::path> files;
    std::vector<std::vector<SpokenWord>> said;
    std::string why;
    for (size_t i = 0; i < sentences.size(); ++i) {
        const auto audio = speak_sentences({sentences[i]}, speech, &why);
        ASSERT_TRUE(audio) << why;
        files.push_back(dir_.path() / ("s" + std::to_string(i) + ".wav"));
        write_wav_pcm16(files.back(), audio->samples);
        said.push_back(audio->words);
    }
    const ProcessResult run = transcribe(files, "--word-timestamps --format json,srt");
    ASSERT_EQ(run.exit_code, 0) << run.err;

    std::vector<double> errors_s;
    std::vector<double> signed_s;  // heard - said, to show a bias
    size_t heard_count = 0;
    size_t said_count = 0;
    for (size_t i = 0; i < files.size(); ++i) {
        const auto json = nlohmann::json::parse(
            read_file_text(dir_.path() / ("s" + std::to_string(i) + ".json")));
        const std::vector<HeardWord> heard = words_of(json);
        std::vector<std::string> said_plain;
        for (const SpokenWord& w : said[i]) said_plain.push_back(plain_word(w.text));
        std::vector<std::string> heard_plain;
        for (const HeardWord& w : heard) heard_plain.push_back(w.word);
        const std::vector<long> match = match_words(said_plain, heard_plain, WordMatch::equal);
        for (size_t j = 0; j < heard.size(); ++j) {
            // Every word's times are ordered and inside the file.
            EXPECT_LE(heard[j].start_s, heard[j].end_s) << "file " << i << " word " << j;
            if (match[j] < 0) continue;
            signed_s.push_back(heard[j].start_s - said[i][static_cast<size_t>(match[j])].start_s);
            errors_s.push_back(std::abs(signed_s.back()));
        }
        heard_count += heard.size();
        said_count += said[i].size();
    }
    ASSERT_GE(errors_s.size(), said_count / 2) << "too few words heard right to measure";
    std::sort(errors_s.begin(), errors_s.end());
    const double median_s = errors_s[errors_s.size() / 2];
    const double p90_s = errors_s[errors_s.size() * 9 / 10];
    std::sort(signed_s.begin(), signed_s.end());
    const double signed_median_s = signed_s[signed_s.size() / 2];
    std::printf(
        "word starts: %zu of %zu said words heard right (%zu heard); |start error| "
        "median %.0f ms, 90th percentile %.0f ms; median of heard - said %.0f ms\n",
        errors_s.size(), said_count, heard_count, median_s * 1000.0, p90_s * 1000.0,
        signed_median_s * 1000.0);
    EXPECT_LE(median_s, kMedianStartErrorLimitS);
}

// `earshot live` times its committed words by the same alignment (the live JSON says "aligned"
// for each), on held-out sentences spoken word by word and played as a microphone would at 4x.
TEST_F(WordTimestamps, LiveCommandCommitsAlignedWordTimesWithin80Ms) {
    const std::vector<std::vector<std::string>> sentences = micro_heldout_words(8);
    SpeechOptions speech;  // word by word
    speech.sentence_gap_s = 1.0;
    std::string why;
    const auto audio = speak_sentences(sentences, speech, &why);
    ASSERT_TRUE(audio) << why;
    const fs::path wav = dir_.path() / "live.wav";
    write_wav_pcm16(wav, audio->samples);
    const fs::path updates = dir_.path() / "updates.jsonl";
    const ProcessResult run = run_earshot(
        "live --model " + shell_quote(micro_model_dir().string()) + " --backend cpu --input " +
        shell_quote(wav.string()) + " --speed 4 --updates-json " + shell_quote(updates.string()));
    ASSERT_EQ(run.exit_code, 0) << run.err;

    std::vector<HeardWord> heard;
    std::ifstream lines(updates);
    std::string line;
    size_t aligned = 0;
    while (std::getline(lines, line)) {
        const auto update = nlohmann::json::parse(line);
        for (const auto& w : update.at("committed_words")) {
            if (w.at("timing").get<std::string>() == "aligned") ++aligned;
            const std::string plain = plain_word(w.at("text").get<std::string>());
            if (plain.empty()) continue;
            heard.push_back({plain, w.at("start_s").get<double>(), w.at("end_s").get<double>()});
        }
    }
    ASSERT_FALSE(heard.empty());
    EXPECT_EQ(aligned, heard.size()) << "every committed word timed by alignment";
    std::vector<std::string> said_plain;
    for (const SpokenWord& w : audio->words) said_plain.push_back(plain_word(w.text));
    std::vector<std::string> heard_plain;
    for (const HeardWord& w : heard) heard_plain.push_back(w.word);
    const std::vector<long> match = match_words(said_plain, heard_plain, WordMatch::equal);
    std::vector<double> errors_s;
    for (size_t j = 0; j < heard.size(); ++j) {
        if (j > 0) {
            EXPECT_GE(heard[j].start_s, heard[j - 1].start_s) << "word " << j;
        }
        if (match[j] < 0) continue;
        errors_s.push_back(
            std::abs(heard[j].start_s - audio->words[static_cast<size_t>(match[j])].start_s));
    }
    ASSERT_GE(errors_s.size(), audio->words.size() / 2) << "too few words heard right to measure";
    std::sort(errors_s.begin(), errors_s.end());
    const double median_s = errors_s[errors_s.size() / 2];
    std::printf(
        "earshot live: %zu of %zu said words committed right; |start error| median %.0f ms\n",
        errors_s.size(), audio->words.size(), median_s * 1000.0);
    EXPECT_LE(median_s, kMedianStartErrorLimitS);
}

TEST_F(WordTimestamps, SubtitleCuesHoldAtMostTheAskedWordsTimedByThem) {
    SpeechOptions speech;
    std::string why;
    const auto audio = speak_sentences(micro_heldout_words(2), speech, &why);
    ASSERT_TRUE(audio) << why;
    const fs::path wav = dir_.path() / "two.wav";
    write_wav_pcm16(wav, audio->samples);
    const ProcessResult run =
        transcribe({wav}, "--word-timestamps --max-line-words 2 --format json,srt");
    ASSERT_EQ(run.exit_code, 0) << run.err;
    const auto json = nlohmann::json::parse(read_file_text(dir_.path() / "two.json"));
    std::vector<std::string> word_starts;  // as SRT writes them
    size_t words = 0;
    for (const auto& segment : json.at("segments")) {
        for (const auto& w : segment.at("words")) {
            char stamp[32];
            const double s = w.at("start").get<double>();
            const auto ms = static_cast<long long>(std::floor(s * 1000.0 + 0.5));
            std::snprintf(stamp, sizeof stamp, "%02lld:%02lld:%02lld,%03lld", ms / 3600000,
                          ms / 60000 % 60, ms / 1000 % 60, ms % 1000);
            word_starts.emplace_back(stamp);
            ++words;
        }
    }
    ASSERT_GE(words, 4U);
    std::istringstream srt(read_file_text(dir_.path() / "two.srt"));
    std::string line;
    size_t cues = 0;
    size_t cue_words = 0;
    while (std::getline(srt, line)) {
        if (line.find(" --> ") == std::string::npos) continue;
        ++cues;
        const std::string start = line.substr(0, line.find(" --> "));
        EXPECT_NE(std::find(word_starts.begin(), word_starts.end(), start), word_starts.end())
            << start << " is no word's start";
        std::getline(srt, line);
        const size_t n = plain_words(line).size();
        EXPECT_LE(n, 2U) << line;
        cue_words += n;
    }
    EXPECT_GE(cues, (words + 1) / 2);
    EXPECT_EQ(cue_words, words);

    const ProcessResult refused = transcribe({wav}, "--max-line-words 2 --format srt");
    EXPECT_NE(refused.exit_code, 0);
    EXPECT_NE(refused.err.find("--max-line-words needs --word-timestamps"), std::string::npos)
        << refused.err;
}

}  // namespace
}  // namespace earshot::test
