// WordAudioOutput: the live cross-attention panel's WordAudioPlayer, playing a clicked word
// through the default output device with audio::OutputPlayer, the player the Files page's
// FilesPlayer plays files and their words with.
#pragma once

#include <QString>
#include <memory>
#include <vector>

#include "earshot/ui/inspector/word_audio_player.h"

namespace earshot::audio {
class OutputPlayer;
}

namespace earshot::app {

class WordAudioOutput : public ui::WordAudioPlayer {
public:
    WordAudioOutput();
    ~WordAudioOutput() override;  // stops playback and closes the device

    // The output device's reason when it cannot play (none, cannot be opened).
    QString play(std::vector<float> samples, int sampleRateHz) override;
    // Still playing the last word.
    bool isPlaying() const;

private:
    std::unique_ptr<audio::OutputPlayer> m_player;
};

}  // namespace earshot::app
