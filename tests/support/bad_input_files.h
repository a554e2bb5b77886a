// Bad inputs for the reliability tests, made in a test's folder: broken models (a copy of the
// micro model with one thing wrong, damaged ggml files) and broken audio files, each with the
// parts the one error message about it must hold. The CLI table (tests/app/cli/bad_inputs_test.cpp)
// runs them through `earshot transcribe`, the GUI table through the window.
#pragma once

#include <gtest/gtest.h>

#include <cstdint>
#include <cstdlib>
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

namespace earshot::test::bad_files {

namespace fs = std::filesystem;

inline fs::path shared_dir() { return EARSHOT_SHARED_DIR; }
inline fs::path jfk() { return shared_dir() / "whisper-assets" / "jfk.wav"; }
inline fs::path ggml_tiny() { return shared_dir() / "whisper-assets" / "for-tests-ggml-tiny.bin"; }
inline bool assets_present() { return fs::exists(jfk()) && fs::exists(ggml_tiny()); }

inline std::string read_bytes(const fs::path& path) {
    std::ifstream in(path, std::ios::binary);
    std::stringstream bytes;
    bytes << in.rdbuf();
    return bytes.str();
}

inline void write_bytes(const fs::path& path, const std::string& bytes) {
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

// A copy of the micro model folder, <dir>/model, with `change` applied.
inline fs::path model_copy(const fs::path& dir,
                           const std::function<void(const fs::path&)>& change) {
    const fs::path model = dir / "model";
    fs::create_directories(model);
    for (const auto& entry : fs::directory_iterator(micro_model_dir())) {
        fs::copy_file(entry.path(), model / entry.path().filename());
    }
    change(model);
    return model;
}

inline std::string micro_safetensors() {
    return read_bytes(micro_model_dir() / "model.safetensors");
}

// One bad input: `make` writes it into the folder it is given and returns its path (a model
// folder or file, or an audio file); the one message about it holds every part of `message`.
struct BadFile {
    std::string name;
    std::function<fs::path(const fs::path& dir)> make;
    std::vector<std::string> message;
    bool unreadable = false;  // unreadable only to a user without root's override
};

inline std::function<fs::path(const fs::path&)> with_safetensors(
    std::function<void(Safetensors&)> change) {
    return [change](const fs::path& dir) {
        return model_copy(dir, [&](const fs::path& model) {
            Safetensors file = Safetensors::read(model / "model.safetensors");
            change(file);
            write_bytes(model / "model.safetensors", file.bytes());
        });
    };
}

inline std::function<fs::path(const fs::path&)> with_model_file(const std::string& name,
                                                                const std::string& bytes) {
    return [name, bytes](const fs::path& dir) {
        return model_copy(dir, [&](const fs::path& model) { write_bytes(model / name, bytes); });
    };
}

inline std::function<fs::path(const fs::path&)> with_ggml(
    const std::function<std::string()>& bytes) {
    return [bytes](const fs::path& dir) {
        write_bytes(dir / "ggml-bad.bin", bytes());
        return dir / "ggml-bad.bin";
    };
}

inline std::function<fs::path(const fs::path&)> with_audio_bytes(const std::string& name,
                                                                 const std::string& bytes) {
    return [name, bytes](const fs::path& dir) {
        write_bytes(dir / name, bytes);
        return dir / name;
    };
}

// Broken models, each given where a model is asked for (--model, the Model page's Open).
inline std::vector<BadFile> bad_models() {
    std::vector<BadFile> rows;
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
    const auto nan_weights = [](Safetensors& f) {
        const auto& offsets = f.header["model.encoder.layer_norm.weight"]["data_offsets"];
        const auto begin = offsets[0].get<size_t>();
        const auto end = offsets[1].get<size_t>();
        for (size_t i = begin; i + 1 < end; i += 2) {
            f.data[i] = '\x00';  // f16 quiet NaN 0x7e00, little-endian
            f.data[i + 1] = '\x7e';
        }
    };
    rows.push_back({"NanWeights",
                    with_safetensors(nan_weights),
                    {"model.safetensors", "model.encoder.layer_norm.weight", "non-finite value"}});
    // The tokenizer is looked for before the weights are read (a large model's weights take
    // seconds and gigabytes): a folder without one is refused for that, whatever its weights hold.
    rows.push_back({"ModelFolderWithoutVocabularyIsRefusedBeforeItsWeightsAreRead",
                    [nan_weights](const fs::path& dir) {
                        const fs::path model = with_safetensors(nan_weights)(dir);
                        fs::remove(model / "vocab.json");
                        return model;
                    },
                    {"model", "neither tokenizer.json nor vocab.json"}});
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
                        return model_copy(
                            dir, [](const fs::path& model) { fs::remove(model / "config.json"); });
                    },
                    {"model", "has no config.json"}});
    rows.push_back({"ModelFolderWithoutVocabulary",
                    [](const fs::path& dir) {
                        return model_copy(
                            dir, [](const fs::path& model) { fs::remove(model / "vocab.json"); });
                    },
                    {"model", "neither tokenizer.json nor vocab.json"}});
    rows.push_back({"TruncatedGgml",
                    with_ggml([] {
                        const std::string bytes = read_bytes(ggml_tiny());
                        return bytes.substr(0, bytes.size() / 3);
                    }),
                    {"ggml-bad.bin", "truncated"}});
    rows.push_back({"ZeroByteGgml",
                    with_ggml([] { return std::string(); }),
                    {"ggml-bad.bin", "not a recognised checkpoint"}});
    rows.push_back({"GgmlWithABadMagic",
                    with_ggml([] { return "XXXX" + read_bytes(ggml_tiny()).substr(4); }),
                    {"ggml-bad.bin", "not a recognised checkpoint"}});
    rows.push_back({"MissingModel",
                    [](const fs::path& dir) { return dir / "no-such-model"; },
                    {"no-such-model", "no such file or directory"}});
    return rows;
}

// Broken audio files, each given where audio is asked for (the command's file, the Files page).
inline std::vector<BadFile> bad_audio() {
    std::vector<BadFile> rows;
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
                    with_audio_bytes("cut.wav", read_bytes(jfk()).substr(0, 20)),
                    {"cut.wav"}});
    rows.push_back({"AudioWithNoAudioStream",
                    [](const fs::path& dir) {
                        const fs::path video = dir / "video.mp4";
                        const std::string command =
                            "ffmpeg -loglevel error -y -f lavfi -i "
                            "testsrc=duration=2:size=64x64:rate=10 '" +
                            video.string() + "'";
                        EXPECT_EQ(std::system(command.c_str()), 0) << command;
                        return video;
                    },
                    {"video.mp4", "no audio stream (streams: video)"}});
    rows.push_back({"DirectoryGivenAsAudio",
                    [](const fs::path& dir) {
                        fs::create_directories(dir / "folder.wav");
                        return dir / "folder.wav";
                    },
                    {"folder.wav", "cannot open: Is a directory"}});
    rows.push_back({"MissingAudio",
                    [](const fs::path& dir) { return dir / "absent.wav"; },
                    {"absent.wav", "cannot open: No such file or directory"}});
    rows.push_back({"UnreadableAudio",
                    [](const fs::path& dir) {
                        fs::copy_file(jfk(), dir / "locked.wav");
                        fs::permissions(dir / "locked.wav", fs::perms::none);
                        return dir / "locked.wav";
                    },
                    {"locked.wav", "cannot open: Permission denied"},
                    true});
    return rows;
}

}  // namespace earshot::test::bad_files
