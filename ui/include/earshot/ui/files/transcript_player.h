// TranscriptPlayer: what the Files page asks of whoever plays a transcribed file's audio. The app
// gives the page one that plays through the default output device; tests give it their own.
#pragma once

#include <QString>

namespace earshot::ui {

class TranscriptPlayer {
public:
    virtual ~TranscriptPlayer() = default;

    // Plays the audio of `path` from `startS` seconds onward. The reason when it cannot (the file
    // does not decode, there is no output device), empty when it plays.
    virtual QString play(const QString& path, double startS) = 0;
    // Stops where it is.
    virtual void pause() = 0;
    // Playing now (false once it paused or reached the end).
    virtual bool isPlaying() const = 0;
    // The time in the file being heard now (where it paused or ended when not playing).
    virtual double positionS() const = 0;
    // The length of the file last played, in seconds; 0 before anything played.
    virtual double durationS() const = 0;
};

}  // namespace earshot::ui
