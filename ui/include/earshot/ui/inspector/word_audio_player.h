// WordAudioPlayer: what the live cross-attention panel asks of whoever plays a clicked word's
// audio. The app gives it one that plays through the default output device with the Files
// page's output player (audio::OutputPlayer); tests give it their own.
#pragma once

#include <QString>
#include <vector>

namespace earshot::ui {

class WordAudioPlayer {
public:
    virtual ~WordAudioPlayer() = default;

    // Plays `samples` (mono, `sampleRateHz`) from their start to their end, replacing what
    // played. The reason when it cannot (no output device), empty when it plays.
    virtual QString play(std::vector<float> samples, int sampleRateHz) = 0;
};

}  // namespace earshot::ui
