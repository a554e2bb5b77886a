// FilesPlayer: the Files page's TranscriptPlayer, playing a transcribed file through the default
// output device: the file decoded once (16 kHz mono, as it was transcribed) into an
// audio::OutputPlayer, whose stream clock gives the position.
#pragma once

#include <QString>
#include <memory>

#include "earshot/ui/files/transcript_player.h"

namespace earshot::audio {
class OutputPlayer;
}

namespace earshot::app {

class FilesPlayer : public ui::TranscriptPlayer {
public:
    FilesPlayer();
    ~FilesPlayer() override;

    // Decodes `path` when it is not the file held already (on this thread: a long file takes a
    // moment), then plays it from `startS`. The reason on failure: the decoder's, or that there
    // is no output device.
    QString play(const QString& path, double startS) override;
    void pause() override;
    bool isPlaying() const override;
    double positionS() const override;
    double durationS() const override;

private:
    std::unique_ptr<audio::OutputPlayer> m_player;
    QString m_path;  // the file the player holds
};

}  // namespace earshot::app
