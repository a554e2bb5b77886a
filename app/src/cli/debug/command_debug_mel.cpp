// `earshot debug mel --in FILE --mels 80|128 [--frames 3000] --out MEL.npy`: Whisper's log-mel of
// one padded window from the start of an audio file, as a [Mels, Frames] float32 .npy.
#include <cstdint>
#include <exception>
#include <memory>
#include <ostream>
#include <string>
#include <vector>

#include "cli/command_registry.h"
#include "cli/debug/npy_file.h"
#include "earshot/app/commands.h"
#include "earshot/audio/file_decoder.h"
#include "earshot/audio/log_mel.h"

namespace earshot::app {
namespace {

struct MelRequest {
    std::string in_path;
    std::string out_path;
    int mels = 80;
    std::int64_t frames = audio::kWhisperWindowFrames;
};

int run_debug_mel(const MelRequest& request, std::ostream& out, std::ostream& err) {
    if (request.frames < 1) {
        err << "debug mel: --frames must be at least 1, got " << request.frames << "\n";
        return kExitBadInput;
    }
    std::vector<float> samples;
    try {
        samples = audio::decode_file(request.in_path).samples;
    } catch (const std::exception& e) {
        err << "debug mel: " << e.what() << "\n";
        return kExitBadInput;
    }
    // One window from the start: cut, or padded with silence samples before the STFT (the
    // short-form padding; see log_mel_window).
    const audio::LogMel mel = audio::log_mel_window(samples, request.mels, request.frames);
    const std::vector<std::int64_t> shape{mel.mels, mel.frames};  // [Mels, Frames]
    try {
        write_npy(request.out_path, mel.values, shape);
    } catch (const NpyError& e) {
        err << "debug mel: " << e.what() << "\n";
        return kExitBadInput;
    }
    out << "Wrote " << request.out_path << ": [" << mel.mels << ", " << mel.frames
        << "] float32 log-mel of " << samples.size() << " samples ("
        << static_cast<double>(samples.size()) / audio::kWhisperSampleRateHz << " s)\n";
    return kExitOk;
}

}  // namespace

ExtraCommand add_debug_mel(CLI::App& root) {
    auto request = std::make_shared<MelRequest>();
    CLI::App* command = debug_group(root).add_subcommand(
        "mel", "Write Whisper's log-mel of one window from the start of an audio file as .npy");
    command->add_option("--in", request->in_path, "Audio file (anything FFmpeg reads)")
        ->required()
        ->check(CLI::ExistingFile);
    command->add_option("--mels", request->mels, "Mel bands (80, or 128 for large-v3)")
        ->check(CLI::IsMember({80, 128}))
        ->capture_default_str();
    command
        ->add_option("--frames", request->frames,
                     "Frames in the window (10 ms each); shorter audio is padded with silence")
        ->capture_default_str();
    command->add_option("--out", request->out_path, "The .npy to write, [Mels, Frames] float32")
        ->required();
    return {command, [request](std::ostream& out, std::ostream& err) {
                return run_debug_mel(*request, out, err);
            }};
}

}  // namespace earshot::app
