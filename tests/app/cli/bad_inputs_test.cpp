// Bad inputs through the real `earshot transcribe`: each broken model, audio file or output place
// gives one message naming the file and the problem, exit code 2 and no output file; audio at odd
// rates and channel counts, and an MP3 damaged in the middle, still transcribe.
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdint>
#include <filesystem>
#include <fstream>
#include <functional>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "bad_input_files.h"
#include "micro_model.h"
#include "run_process.h"
#include "temp_dir.h"

namespace earshot::test {
namespace {

namespace fs = std::filesystem;

const fs::path kShared(EARSHOT_SHARED_DIR);
const fs::path kJfk = bad_files::jfk();
const fs::path kGgmlTiny = bad_files::ggml_tiny();
using bad_files::read_bytes;
using bad_files::write_bytes;

// A row: what to make, the arguments before --output-dir, and what the one message must say.
struct BadInput {
    std::string name;
    // Makes the input(s) in `dir` and returns the transcribe arguments (audio, --model, ...).
    std::function<std::string(const fs::path& dir)> make;
    std::vector<std::string> message;  // substrings of the error line
    enum class Run { plain, as_unprivileged, in_full_tmpfs } run = Run::plain;
};

std::string jfk_with_model(const fs::path& model) {
    return shell_quote(kJfk.string()) + " --model " + shell_quote(model.string());
}

std::string audio_with_micro(const fs::path& audio) {
    return shell_quote(audio.string()) + " --model " + shell_quote(micro_model_dir().string());
}

// The broken models and audio files (tests/support/bad_input_files.h, which the GUI table shares)
// and the rows only the command has: a bad --vocab and the places it writes to.
std::vector<BadInput> bad_inputs() {
    std::vector<BadInput> rows;
    for (const bad_files::BadFile& model : bad_files::bad_models()) {
        rows.push_back(
            {model.name,
             [make = model.make](const fs::path& dir) { return jfk_with_model(make(dir)); },
             model.message});
    }
    rows.push_back({"BadTiktokenVocabulary",
                    [](const fs::path& dir) {
                        write_bytes(dir / "bad.tiktoken", "aGVsbG8= 0\nnot base64!! 1\n");
                        return jfk_with_model(micro_model_dir()) + " --vocab " +
                               shell_quote((dir / "bad.tiktoken").string());
                    },
                    {"bad.tiktoken", "line 2: bad rank"}});
    for (const bad_files::BadFile& audio : bad_files::bad_audio()) {
        rows.push_back(
            {audio.name,
             [make = audio.make](const fs::path& dir) { return audio_with_micro(make(dir)); },
             audio.message,
             audio.unreadable ? BadInput::Run::as_unprivileged : BadInput::Run::plain});
    }
    rows.push_back({"OutputFolderNotWritable",
                    [](const fs::path& dir) {
                        fs::permissions(dir / "out",
                                        fs::perms::owner_read | fs::perms::owner_exec |
                                            fs::perms::group_read | fs::perms::group_exec |
                                            fs::perms::others_read | fs::perms::others_exec);
                        return jfk_with_model(micro_model_dir());
                    },
                    {"jfk.txt", "Permission denied"},
                    BadInput::Run::as_unprivileged});
    rows.push_back({"OutputFolderIsAFile",
                    [](const fs::path& dir) {
                        fs::remove(dir / "out");
                        write_bytes(dir / "out", "a file");
                        return jfk_with_model(micro_model_dir());
                    },
                    {"cannot create the output directory"}});
    rows.push_back({"FullDiskWhileWritingTheTranscript",
                    [](const fs::path&) { return jfk_with_model(micro_model_dir()); },
                    {"jfk.txt", "No space left on device"},
                    BadInput::Run::in_full_tmpfs});
    return rows;
}

// Only regular files count: the full-disk row's filler and folders are not outputs.
std::vector<std::string> outputs_in(const fs::path& folder) {
    std::vector<std::string> names;
    if (!fs::is_directory(folder)) return names;
    for (const auto& entry : fs::directory_iterator(folder)) {
        if (entry.path().filename() != "filler") names.push_back(entry.path().filename());
    }
    return names;
}

// One row through the executable.
void check_row(const BadInput& row) {
    SCOPED_TRACE(row.name);
    ASSERT_TRUE(fs::exists(kJfk) && fs::exists(kGgmlTiny)) << "shared assets missing: " << kShared;
    const TempDir dir("earshot-bad-input");
    fs::permissions(dir.path(), fs::perms::all);  // the unprivileged rows read and write here
    const fs::path out = dir.path() / "out";
    fs::create_directories(out);
    fs::permissions(out, fs::perms::all);
    const std::string args = row.make(dir.path());
    for (const auto& entry : fs::recursive_directory_iterator(dir.path())) {
        if (!entry.is_directory() && entry.path().filename() != "locked.wav") {
            fs::permissions(entry.path(),
                            fs::perms::owner_all | fs::perms::group_read | fs::perms::others_read);
        }
    }
    std::string command = shell_quote(EARSHOT_EXE) + " transcribe " + args +
                          " --beam 1 --temperature 0 --format txt,json --output-dir " +
                          shell_quote(out.string());
    ProcessResult result;
    std::vector<std::string> left;
    if (row.run == BadInput::Run::in_full_tmpfs) {
        const std::string script =
            "mount -t tmpfs -o size=256k tmpfs " + shell_quote(out.string()) +
            " && { dd if=/dev/zero of=" + shell_quote((out / "filler").string()) +
            " bs=4k 2>/dev/null; true; } && " + command + "; status=$?; ls -a " +
            shell_quote(out.string()) + " >&2; exit $status";
        result = run_shell("unshare -rm sh -c " + shell_quote(script));
        // The listing made inside the namespace: nothing but . .. and the filler.
        for (const char* name : {"jfk.txt", "jfk.json", ".tmp-"}) {
            EXPECT_EQ(result.err.find(std::string("\n") + name), std::string::npos) << result.err;
        }
    } else {
        if (row.run == BadInput::Run::as_unprivileged && ::geteuid() == 0) {
            // Root reads and writes through any permission: run as nobody.
            command = "setpriv --reuid=65534 --regid=65534 --clear-groups " + command;
        }
        result = run_shell(command);
        left = outputs_in(out);
    }
    EXPECT_EQ(result.exit_code, 2) << result.err;
    // One message: a single "earshot transcribe:" line, holding every expected part.
    size_t lines = 0;
    std::string message;
    std::istringstream err(result.err);
    for (std::string line; std::getline(err, line);) {
        if (line.rfind("earshot transcribe: ", 0) == 0) {
            ++lines;
            message = line;
        }
    }
    EXPECT_EQ(lines, 1u) << result.err;
    for (const std::string& part : row.message) {
        EXPECT_NE(message.find(part), std::string::npos)
            << "\"" << part << "\" not in: " << message;
    }
    EXPECT_TRUE(left.empty()) << "left behind: " << left.front();
    std::printf("%-36s exit %d | %s\n", row.name.c_str(), result.exit_code, message.c_str());
}

// Every row, one after another (rows are not test parameters: run_shell names its files after
// the test, and a parameterised test's name holds a '/').
TEST(BadInputs, OneMessageNamingTheFileExitTwoAndNoOutput) {
    const std::vector<BadInput> rows = bad_inputs();
    EXPECT_GE(rows.size(), 25u);
    for (const BadInput& row : rows) check_row(row);
}

// The words espeak-ng says in the odd-format rows, all in the micro model's vocabulary.
const std::string kSentence = "you today a stay book garden. car question will short report see";

size_t words_heard(const std::string& transcript, const std::string& sentence) {
    std::istringstream words(sentence);
    size_t heard = 0;
    for (std::string word; words >> word;) {
        if (word.back() == '.') word.pop_back();
        if (transcript.find(word) != std::string::npos) ++heard;
    }
    return heard;
}

class OddAudio : public ::testing::Test {
protected:
    void SetUp() override {
        const ProcessResult spoken = run_shell("espeak-ng -v en-us -w " +
                                               shell_quote((dir_.path() / "spoken.wav").string()) +
                                               " " + shell_quote(kSentence));
        ASSERT_EQ(spoken.exit_code, 0)
            << "espeak-ng (packaging/setup.sh installs it): " << spoken.err;
    }
    // sox converts the spoken sentence with `effects`; transcribes; returns the TXT.
    std::string transcribe(const std::string& name, const std::string& effects) {
        const fs::path audio = dir_.path() / name;
        const ProcessResult made =
            run_shell("sox " + shell_quote((dir_.path() / "spoken.wav").string()) + " " + effects +
                      " " + shell_quote(audio.string()));
        EXPECT_EQ(made.exit_code, 0) << made.err;
        const ProcessResult result = run_earshot(
            "transcribe " + audio_with_micro(audio) + " --beam 1 --temperature 0 --format txt " +
            "--output-dir " + shell_quote(dir_.path().string()));
        EXPECT_EQ(result.exit_code, 0) << result.err;
        return read_bytes(dir_.path() / (fs::path(name).stem().string() + ".txt"));
    }
    TempDir dir_{"earshot-odd-audio"};
};

// 12 words; the micro model misses the lone "a" even at 16 kHz.
TEST_F(OddAudio, Audio192KHzIsResampled) {
    const std::string text = transcribe("high.wav", "-r 192000");
    EXPECT_GE(words_heard(text, kSentence), 10u) << text;
}

TEST_F(OddAudio, SixChannelAudioIsDownmixed) {
    const std::string text = transcribe("surround.wav", "-r 48000 -c 6");
    EXPECT_GE(words_heard(text, kSentence), 10u) << text;
}

// 8 kHz keeps only the band under 4 kHz, where espeak's voice (the model's only training data)
// loses much of what the micro model listens to: fewer words, but a transcript.
TEST_F(OddAudio, Audio8KHzIsResampled) {
    const std::string text = transcribe("phone.wav", "-r 8000");
    EXPECT_GE(words_heard(text, kSentence), 3u) << text;
}

// Three sentences as MP3 with random bytes over 45-52 % of the file (inside the second sentence):
// the damaged span is named in a message, the command succeeds, and the first and last sentences
// are transcribed.
TEST_F(OddAudio, CorruptMp3MiddleIsReportedAndTheGoodPartsTranscribed) {
    const fs::path wav = dir_.path() / "three.wav";
    const fs::path mp3 = dir_.path() / "damaged.mp3";
    const std::string first = "you today a stay book garden";
    const std::string last = "me give hour wait project his question he nine";
    std::string parts;
    for (const std::string& sentence :
         {first, std::string("car question will short report see"), last}) {
        const fs::path part = dir_.path() / ("part" + std::to_string(parts.size()) + ".wav");
        ASSERT_EQ(run_shell("espeak-ng -v en-us -w " + shell_quote(part.string()) + " " +
                            shell_quote(sentence))
                      .exit_code,
                  0);
        parts += " " + shell_quote(part.string());
    }
    ASSERT_EQ(run_shell("sox" + parts + " " + shell_quote(wav.string())).exit_code, 0);
    const ProcessResult encoded =
        run_shell("ffmpeg -loglevel error -y -i " + shell_quote(wav.string()) +
                  " -ar 44100 -b:a 64k " + shell_quote(mp3.string()));
    ASSERT_EQ(encoded.exit_code, 0) << encoded.err;
    std::string bytes = read_bytes(mp3);
    std::mt19937 random(1);
    for (size_t i = bytes.size() * 45 / 100; i < bytes.size() * 52 / 100; ++i) {
        bytes[i] = static_cast<char>(random());
    }
    write_bytes(mp3, bytes);

    const ProcessResult result = run_earshot(
        "transcribe " + audio_with_micro(mp3) +
        " --beam 1 --temperature 0 --format txt --output-dir " + shell_quote(dir_.path().string()));
    EXPECT_EQ(result.exit_code, 0) << result.err;
    EXPECT_NE(result.err.find(mp3.string() + ": damaged audio from "), std::string::npos)
        << result.err;
    const std::string text = read_bytes(dir_.path() / "damaged.txt");
    EXPECT_GE(words_heard(text, first), 4u) << text;
    EXPECT_GE(words_heard(text, last), 7u) << text;
}

}  // namespace
}  // namespace earshot::test
