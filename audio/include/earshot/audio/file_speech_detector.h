// FileSpeechDetector: where a whole file is speech, decided after all of it was heard, hop by hop.
//
// EnergyVad decides as the audio comes, against a noise floor it has learned so far: right for a
// microphone, but a file that starts with speech (or with digital silence, then speech) teaches it
// its floor from the speech itself, and its first words read as noise until a quieter hop comes.
// A file is read whole before anything needs the answer, so this detector measures each hop as
// EnergyVad does (the pre-emphasised level, EnergyVad::weighted_level_dbfs) and then compares each
// hop with the quietest hop within `floor_window_s` on either side of it:
//   loud = weighted > floor + margin_db && weighted > min_speech_dbfs
// with no hangover, so that a stretch of loud hops ends where the sound ends. Digital silence
// (EnergyVad::kNoSignalDbfs) is never loud and never a floor: a gap of zeros between sentences says
// nothing about the room. Memory: 4 bytes per hop while reading (14 MB per 10 hours of audio at
// 10 ms hops), 1 byte per hop in the result.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "earshot/audio/energy_vad.h"

namespace earshot::audio {

struct FileSpeechOptions {
    double margin_db = 12.0;         // above the floor, as EnergyVadOptions::margin_db
    double min_speech_dbfs = -55.0;  // absolute, in the weighted measure
    double floor_window_s = 3.0;     // the floor: the quietest hop this far before or after
    int hop_samples = 160;           // 10 ms at 16 kHz
    int sample_rate_hz = 16000;
};

class FileSpeechDetector {
public:
    // Throws std::invalid_argument for a hop or rate below 1 or a negative window.
    explicit FileSpeechDetector(FileSpeechOptions options = {});

    // The file's samples in order, in pieces of any size (a last partial hop is measured too).
    void push(std::span<const float> samples);

    // One byte per hop of what was pushed (a last partial hop included): 1 where loud.
    std::vector<uint8_t> finish();

    double hop_s() const {
        return static_cast<double>(options_.hop_samples) / options_.sample_rate_hz;
    }

private:
    void measure_hop();

    FileSpeechOptions options_;
    EnergyVad meter_;                   // used for its level measure only
    std::vector<float> hop_;            // samples of the hop being filled
    std::vector<float> weighted_dbfs_;  // per hop; kSilenceDbfs for digital silence
};

}  // namespace earshot::audio
