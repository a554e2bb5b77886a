// Bad inputs through the real `earshot transcribe`: each broken model, audio file or output place
// gives one message naming the file and the problem, exit code 2 and no output file; audio at odd
// rates and channel counts, and an MP3 damaged in the middle, still transcribe.
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdint>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>
#include <nlohmann/json.hpp>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "micro_model.h"
#include "run_process.h"
#include "temp_dir.h"

namespace earshot::test {
namespace {

namespace fs = std::filesystem;

const fs::path kShared(EARSHOT_SHARED_DIR);
const fs::path kJfk = kShared / "whisper-assets" / "jfk.wav";
const fs::path kGgmlTiny = kShared / "whisper-assets" / "for-tests-ggml-tiny.bin";

std::string read_bytes(const fs::path& path) {
    std::ifstream in(path, std::ios::binary);
    std::stringstream bytes;
    bytes << in.rdbuf();
    return bytes.str();
}

void write_bytes(const fs::path& path, const std::string& bytes) {
    std::ofstream(path, std::ios::binary | std::ios::trunc) << bytes;
}

// The micro model's safetensors split into its JSON header and its data.
struct Safetensors {
    nlohmann::ordered_json header;
    std::string data;

    static Safetensors read(const fs::path& path) {
        const std::string bytes = read_bytes(path);
        uint64_t length = 0;
        std::memcpy(&length, bytes.data(), sizeof length);
        return {nlohmann::ordered_json::parse(bytes.substr(8, length)), bytes.substr(8 + length)};
    }
    std::string bytes() const {
        std::string text = header.dump();
        text.append((8 - text.size() % 8) % 8, ' ');
        const uint64_t length = text.size();
        std::string out(sizeof length, '\0');
        std::memcpy(out.data(), &length, sizeof length);
        return out + text + data;
    }
};

// A row: what to make, the arguments before --output-dir, and what the one message must say.
struct BadInput {
    std::string name;
    // Makes the input(s) in `dir` and returns the transcribe arguments (audio, --model, ...).
    std::function<std::string(const fs::path& dir)> make;
    std::vector<std::string> message;  // substrings of the error line
    enum class Run { plain, as_unprivileged, in_full_tmpfs } run = Run::plain;
};

// A copy of the micro model folder with `change` applied.
fs::path model_copy(const fs::path& dir, const std::function<void(const fs::path&)>& change) {
    const fs::path model = dir / "model";
    fs::create_directories(model);
    for (const auto& entry : fs::directory_iterator(micro_model_dir())) {
        fs::copy_file(entry.path(), model / entry.path().filename());
    }
    change(model);
    return model;
}

std::string jfk_with_model(const fs::path& model) {
    return shell_quote(kJfk.string()) + " --model " + shell_quote(model.string());
}

std::string audio_with_micro(const fs::path& audio) {
    return shell_quote(audio.string()) + " --model " + shell_quote(micro_model_dir().string());
}

// A safetensors-changing row.
std::function<std::string(const fs::path&)> with_safetensors(
    std::function<void(Safetensors&)> change) {
    return [change](const fs::path& dir) {
        return jfk_with_model(model_copy(dir, [&](const fs::path& model) {
            Safetensors file = Safetensors::read(model / "model.safetensors");
            change(file);
            write_bytes(model / "model.safetensors", file.bytes());
        }));
    };
}

std::function<std::string(const fs::path&)> with_model_file(const std::string& name,
                                                            const std::string& bytes) {
    return [name, bytes](const fs::path& dir) {
        return jfk_with_model(
            model_copy(dir, [&](const fs::path& model) { write_bytes(model / name, bytes); }));
    };
}

std::function<std::string(const fs::path&)> with_audio_bytes(const std::string& name,
                                                             const std::string& bytes) {
    return [name, bytes](const fs::path& dir) {
        write_bytes(dir / name, bytes);
        return audio_with_micro(dir / name);
    };
}

std::function<std::string(const fs::path&)> with_ggml(const std::function<std::string()>& bytes) {
    return [bytes](const fs::path& dir) {
        write_bytes(dir / "ggml-bad.bin", bytes());
        return jfk_with_model(dir / "ggml-bad.bin");
    };
}

std::string micro_safetensors() { return read_bytes(micro_model_dir() / "model.safetensors"); }

std::vector<BadInput> bad_inputs() {
    std::vector<BadInput> rows;
    rows.push_back({"ZeroByteSafetensors",
                    with_model_file("model.safetensors", ""),
                    {"model.safetensors", "file is 0 bytes"}});
    rows.push_back({"TruncatedSafetensors",
                    with_model_file("model.safetensors",
                                    micro_safetensors().substr(0, micro_safetensors().size() / 2)),
                    {"model.safetensors", "past the end of the data buffer"}});
    rows.push_back({"SafetensorsCutInsideItsHeader",
                    with_model_file("model.safetensors", micro_safetensors().substr(0, 100)),
                    {"model.safetensors", "runs past the end of the file"}});
    rows.push_back(
        {"TensorOfTheWrongShape",
         with_safetensors([](Safetensors& f) {
             f.header["model.decoder.layer_norm.bias"]["shape"] = {2, 32};
         }),
         {"model.safetensors", "model.decoder.layer_norm.bias", "expects [64]", "found [2, 32]"}});
    rows.push_back({"NanWeights",
                    with_safetensors([](Safetensors& f) {
                        const auto& offsets =
                            f.header["model.encoder.layer_norm.weight"]["data_offsets"];
                        const auto begin = offsets[0].get<size_t>();
                        const auto end = offsets[1].get<size_t>();
                        for (size_t i = begin; i + 1 < end; i += 2) {
                            f.data[i] = '\x00';  // f16 quiet NaN 0x7e00, little-endian
                            f.data[i + 1] = '\x7e';
                        }
                    }),
                    {"model.safetensors", "model.encoder.layer_norm.weight", "non-finite value"}});
    rows.push_back({"UnknownDtype",
                    with_safetensors([](Safetensors& f) {
                        f.header["model.decoder.layer_norm.bias"]["dtype"] = "Q7";
                    }),
                    {"model.safetensors", "unknown dtype \"Q7\""}});
    rows.push_back({"HeaderClaims100GB",
                    with_model_file("model.safetensors",
                                    [] {
                                        std::string bytes(8, '\0');
                                        const uint64_t length = 100'000'000'000;
                                        std::memcpy(bytes.data(), &length, sizeof length);
                                        return bytes + "{}";
                                    }()),
                    {"model.safetensors", "header length 100000000000 exceeds the limit"}});
    rows.push_back({"HeaderNotJson",
                    with_model_file("model.safetensors",
                                    std::string("\x10\0\0\0\0\0\0\0", 8) + "not json at all!"),
                    {"model.safetensors", "header is not valid JSON"}});
    rows.push_back(
        {"DataOffsetsPastTheEnd",
         with_safetensors([](Safetensors& f) {
             const size_t size = f.data.size();
             f.header["model.decoder.layer_norm.bias"]["data_offsets"] = {size - 128, size + 1000};
         }),
         {"model.safetensors", "data_offsets"}});
    rows.push_back(
        {"ConfigNested100000Deep",
         with_model_file("config.json", std::string(100000, '[') + "1" + std::string(100000, ']')),
         {"config.json", "top level is a JSON array, not an object"}});
    rows.push_back({"ConfigObjectsNested100000Deep",
                    with_model_file("config.json",
                                    [] {
                                        std::string text;
                                        for (int i = 0; i < 100000; ++i) text += "{\"a\":";
                                        return text + "1" + std::string(100000, '}');
                                    }()),
                    {"config.json", "missing field"}});
    rows.push_back({"ConfigCutShort",
                    with_model_file("config.json", "{\"d_model\": 64,"),
                    {"config.json", "malformed JSON"}});
    rows.push_back({"ConfigMissingAField",
                    with_model_file("config.json", "{}"),
                    {"config.json", "missing field \"num_mel_bins\""}});
    rows.push_back({"ModelFolderWithoutConfig",
                    [](const fs::path& dir) {
                        return jfk_with_model(model_copy(
                            dir, [](const fs::path& model) { fs::remove(model / "config.json"); }));
                    },
                    {"model", "has no config.json"}});
    rows.push_back({"ModelFolderWithoutVocabulary",
                    [](const fs::path& dir) {
                        return jfk_with_model(model_copy(
                            dir, [](const fs::path& model) { fs::remove(model / "vocab.json"); }));
                    },
                    {"model", "neither tokenizer.json nor vocab.json"}});
    rows.push_back({"TruncatedGgml",
                    with_ggml([] {
                        const std::string bytes = read_bytes(kGgmlTiny);
                        return bytes.substr(0, bytes.size() / 3);
                    }),
                    {"ggml-bad.bin", "truncated"}});
    rows.push_back({"ZeroByteGgml",
                    with_ggml([] { return std::string(); }),
                    {"ggml-bad.bin", "not a recognised checkpoint"}});
    rows.push_back({"GgmlWithABadMagic",
                    with_ggml([] { return "XXXX" + read_bytes(kGgmlTiny).substr(4); }),
                    {"ggml-bad.bin", "not a recognised checkpoint"}});
    rows.push_back({"MissingModel",
                    [](const fs::path& dir) { return jfk_with_model(dir / "no-such-model"); },
                    {"no-such-model", "no such file or directory"}});
    rows.push_back({"BadTiktokenVocabulary",
                    [](const fs::path& dir) {
                        write_bytes(dir / "bad.tiktoken", "aGVsbG8= 0\nnot base64!! 1\n");
                        return jfk_with_model(micro_model_dir()) + " --vocab " +
                               shell_quote((dir / "bad.tiktoken").string());
                    },
                    {"bad.tiktoken", "line 2: bad rank"}});
    rows.push_back({"ZeroLengthAudio",
                    with_audio_bytes("empty.wav", ""),
                    {"empty.wav", "empty file (0 bytes)"}});
    rows.push_back({"RandomBytesAsAudio",
                    with_audio_bytes("noise.wav",
                                     [] {
                                         std::mt19937 random(7);
                                         std::string bytes(5000, '\0');
                                         for (char& c : bytes) c = static_cast<char>(random());
                                         return bytes;
                                     }()),
                    {"noise.wav", "not a readable audio or video file"}});
    rows.push_back({"TruncatedWavHeader",
                    with_audio_bytes("cut.wav", read_bytes(kJfk).substr(0, 20)),
                    {"cut.wav"}});
    rows.push_back({"AudioWithNoAudioStream",
                    [](const fs::path& dir) {
                        const ProcessResult made = run_shell(
                            "ffmpeg -loglevel error -y -f lavfi -i "
                            "testsrc=duration=2:size=64x64:rate=10 " +
                            shell_quote((dir / "video.mp4").string()));
                        EXPECT_EQ(made.exit_code, 0) << made.err;
                        return audio_with_micro(dir / "video.mp4");
                    },
                    {"video.mp4", "no audio stream (streams: video)"}});
    rows.push_back({"DirectoryGivenAsAudio",
                    [](const fs::path& dir) {
                        fs::create_directories(dir / "folder.wav");
                        return audio_with_micro(dir / "folder.wav");
                    },
                    {"folder.wav", "cannot open: Is a directory"}});
    rows.push_back({"MissingAudio",
                    [](const fs::path& dir) { return audio_with_micro(dir / "absent.wav"); },
                    {"absent.wav", "cannot open: No such file or directory"}});
    rows.push_back({"UnreadableAudio",
                    [](const fs::path& dir) {
                        fs::copy_file(kJfk, dir / "locked.wav");
                        fs::permissions(dir / "locked.wav", fs::perms::none);
                        return audio_with_micro(dir / "locked.wav");
                    },
                    {"locked.wav", "cannot open: Permission denied"},
                    BadInput::Run::as_unprivileged});
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
