// read_wav: a small reader for 16 kHz PCM WAV files (16-bit integer or 32-bit float, mono or
// stereo), for tools that need samples before or without the FFmpeg decoder.
#pragma once

#include <filesystem>
#include <stdexcept>
#include <string>
#include <vector>

namespace earshot::audio {

// A WAV file this reader cannot use; the message names the file and what is wrong with it.
class WavError : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

// The samples of a RIFF/WAVE file as 16 kHz mono float in [-1, 1]: 16-bit integer PCM is divided
// by 32768, 32-bit float PCM is taken as is, stereo is mixed as (L + R) / 2. Chunks other than
// "fmt " and "data" (LIST, fact, ...) are skipped; WAVE_FORMAT_EXTENSIBLE is read through its
// sub-format. Any other sample rate, sample format or channel count throws WavError (no
// resampling here: use decode_file for arbitrary audio).
std::vector<float> read_wav_16k_mono(const std::filesystem::path& path);

}  // namespace earshot::audio
