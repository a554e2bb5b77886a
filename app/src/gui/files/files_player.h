// FilesPlayer: the Files page's TranscriptPlayer, playing a transcribed file through the default
// output device: the file decoded once (16 kHz mono, as it was transcribed) into an
// audio::OutputPlayer, whose stream clock gives the position. The decoding runs on a thread of
// its own (an hour of MP3 takes seconds), so the page keeps answering while it reads.
#pragma once

#include <QString>
#include <atomic>
#include <memory>
#include <optional>
#include <string>
#include <thread>

#include "earshot/audio/file_decoder.h"
#include "earshot/ui/files/transcript_player.h"

namespace earshot::audio {
class OutputPlayer;
}

namespace earshot::app {

class FilesPlayer : public ui::TranscriptPlayer {
public:
    FilesPlayer();
    ~FilesPlayer() override;  // cancels a read in progress (within one second of audio)

    // Plays `path` from `startS` when it is the file held already; otherwise starts reading it
    // and plays once poll() sees it read. The reason on failure: that there is no output device.
    QString play(const QString& path, double startS) override;
    void pause() override;
    std::optional<double> reading() const override;
    bool playsWhenRead() const override;
    // Once the read is done: the decoder's reason when it failed, else the file is held and
    // plays from where play() asked (the output device's reason when it cannot).
    QString poll() override;
    bool isPlaying() const override;
    // While reading: where play() asked to start.
    double positionS() const override;
    double durationS() const override;

private:
    // One file being read on its own thread. The thread writes `audio` or `error` before it sets
    // `done`; the UI thread reads them only after it sees `done`.
    struct Read {
        QString path;
        std::atomic<bool> cancel{false};
        std::atomic<double> fraction{0.0};
        std::atomic<bool> done{false};
        audio::DecodedAudio audio;
        std::string error;
        std::thread thread;
    };
    void cancelRead();

    std::unique_ptr<audio::OutputPlayer> m_player;
    QString m_path;  // the file the player holds
    std::unique_ptr<Read> m_read;
    double m_startS = 0.0;        // where the file being read plays from
    bool m_playWhenRead = false;  // no pause() since play()
};

}  // namespace earshot::app
