// `earshot transcribe --vocabulary FILE` on the embedded micro model: a list of numbers turns the
// words that sound closest to them (get, late, wait, nice, night, file) into the numbers where
// espeak-ng's fast speech leaves the audio unclear, and writes few numbers where none was said.
// The list itself is never written.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <string>
#include <vector>

#include "file_bytes.h"
#include "micro_model.h"
#include "plain_words.h"
#include "run_process.h"
#include "spoken_words.h"
#include "temp_dir.h"

namespace earshot::test {
namespace {

namespace fs = std::filesystem;

const std::vector<std::string> kNumbers = {"nine", "eight", "five"};
// Sentences of the micro model's words: with the numbers, then with their close words only.
const std::vector<std::vector<std::string>> kSentences = {
    {"we", "meet", "at", "nine"},
    {"call", "me", "at", "eight"},
    {"send", "five", "email"},
    {"it", "is", "nine", "now"},
    {"book", "the", "room", "at", "eight"},
    {"take", "five", "minute"},
    {"wait", "eight", "minute"},
    {"nine", "people", "come", "today"},
    {"that", "is", "nice"},
    {"we", "work", "late"},
    {"send", "the", "file"},
    {"please", "wait", "here"},
    {"good", "night"},
    {"call", "me", "late", "tonight"},
};

struct NumberCounts {
    size_t said = 0;           // number words said
    size_t written = 0;        // ... of them written
    size_t false_numbers = 0;  // number words written beyond those said
};

size_t count_of(const std::vector<std::string>& words, const std::string& word) {
    return static_cast<size_t>(std::count(words.begin(), words.end(), word));
}

class VocabularyMicro : public ::testing::Test {
protected:
    void SetUp() override {
        ASSERT_EQ(run_shell("command -v espeak-ng").exit_code, 0)
            << "espeak-ng is not installed (packaging/setup.sh installs it)";
        for (const std::string voice : {"en-us", "en-gb-x-rp"}) {
            for (const int wpm : {240, 280}) {
                for (size_t i = 0; i < kSentences.size(); ++i) {
                    SpeechOptions speech;
                    speech.voice = voice;
                    speech.speed_wpm = wpm;
                    speech.whole_sentences = true;
                    speech.tail_s = 0.5;
                    std::string why;
                    const auto audio = speak_sentences({kSentences[i]}, speech, &why);
                    ASSERT_TRUE(audio) << why;
                    const std::string name =
                        voice + "_" + std::to_string(wpm) + "_" + std::to_string(i);
                    write_wav_pcm16(dir_.path() / (name + ".wav"), audio->samples);
                    files_.push_back({name, i});
                }
            }
        }
        std::ofstream(dir_.path() / "numbers.txt") << "# the numbers\nnine\neight\nfive\n";
    }

    // Transcribes every file into `out` and counts the numbers.
    NumberCounts transcribe(const std::string& out, const std::string& args) {
        std::string inputs;
        for (const auto& [name, index] : files_) {
            inputs += " " + shell_quote((dir_.path() / (name + ".wav")).string());
        }
        fs::create_directories(dir_.path() / out);
        const ProcessResult r = run_earshot(
            "transcribe" + inputs + " --model " + shell_quote(micro_model_dir().string()) +
            " --format txt --output-dir " + shell_quote((dir_.path() / out).string()) + args);
        EXPECT_EQ(r.exit_code, 0) << r.err;
        NumberCounts counts;
        for (const auto& [name, index] : files_) {
            const std::vector<std::string> written =
                plain_words(read_file_text(dir_.path() / out / (name + ".txt")));
            texts_[out].push_back(written);
            for (const std::string& number : kNumbers) {
                const size_t said = count_of(kSentences[index], number);
                const size_t got = count_of(written, number);
                counts.said += said;
                counts.written += std::min(said, got);
                counts.false_numbers += got > said ? got - said : 0;
            }
        }
        return counts;
    }

    TempDir dir_;
    std::vector<std::pair<std::string, size_t>> files_;
    std::map<std::string, std::vector<std::vector<std::string>>> texts_;
};

TEST_F(VocabularyMicro, TheListTurnsCloseWordsIntoItsNumbers) {
    const NumberCounts without = transcribe("plain", "");
    const NumberCounts with = transcribe(
        "listed", " --vocabulary " + shell_quote((dir_.path() / "numbers.txt").string()));
    std::cout << "numbers written: " << without.written << " of " << without.said
              << " without the list, " << with.written
              << " with it; numbers not said: " << without.false_numbers << " / "
              << with.false_numbers << "\n";
    ASSERT_EQ(without.said, 4u * 8u);  // 8 numbers in the sentences, 4 voice-speed pairs
    EXPECT_GE(with.written, without.written + 3);
    EXPECT_LE(with.false_numbers, without.false_numbers + 2);

    // Where the list changed the words, a word said as a number was written as one instead of
    // a close word, and the list's own text never appears.
    size_t turned = 0;
    const auto& plain = texts_["plain"];
    const auto& listed = texts_["listed"];
    for (size_t f = 0; f < files_.size(); ++f) {
        const auto& said = kSentences[files_[f].second];
        for (const std::string& number : kNumbers) {
            if (count_of(said, number) > count_of(plain[f], number) &&
                count_of(listed[f], number) > count_of(plain[f], number)) {
                ++turned;
            }
        }
        EXPECT_LE(listed[f].size(), said.size() + 2) << files_[f].first;
    }
    EXPECT_GE(turned, 3u);
}

TEST_F(VocabularyMicro, AnEmptyListIsOneLineWithExit2) {
    std::ofstream(dir_.path() / "empty.txt") << "# nothing\n";
    const ProcessResult r = run_earshot(
        "transcribe " + shell_quote((dir_.path() / (files_[0].first + ".wav")).string()) +
        " --model " + shell_quote(micro_model_dir().string()) + " --vocabulary " +
        shell_quote((dir_.path() / "empty.txt").string()));
    EXPECT_EQ(r.exit_code, 2);
    EXPECT_EQ(r.err, "earshot transcribe: " + (dir_.path() / "empty.txt").string() +
                         ": no words in the file\n");
}

}  // namespace
}  // namespace earshot::test
