// TranscriptPlayer: what the Files page asks of whoever plays a transcribed file's audio. The app
// gives the page one that plays through the default output device; tests give it their own.
#pragma once

#include <QString>
#include <optional>

namespace earshot::ui {

class TranscriptPlayer {
public:
    virtual ~TranscriptPlayer() = default;

    // Plays the audio of `path` from `startS` seconds onward. The reason when it cannot (the file
    // does not decode, there is no output device), empty when it plays or is reading the file
    // first (see reading()).
    virtual QString play(const QString& path, double startS) = 0;
    // Stops where it is; a file still being read does not start playing when it is read.
    virtual void pause() = 0;
    // The fraction of the file read while play() is still reading it (a long recording takes
    // seconds to decode, and the page stays responsive meanwhile); empty otherwise.
    virtual std::optional<double> reading() const { return std::nullopt; }
    // While reading(): whether the file plays once read (play() asked, no pause() since). A
    // player that does not say is taken to play once read.
    virtual bool playsWhenRead() const { return reading().has_value(); }
    // Advances a read in progress; the page calls it on its playback timer. Once the file is
    // read, playing starts where play() asked (unless pause() came since). The reason when the
    // file could not be read or played, once; empty otherwise.
    virtual QString poll() { return {}; }
    // Playing now (false once it paused or reached the end).
    virtual bool isPlaying() const = 0;
    // The time in the file being heard now (where it paused or ended when not playing).
    virtual double positionS() const = 0;
    // The length of the file last played, in seconds; 0 before anything played.
    virtual double durationS() const = 0;
};

}  // namespace earshot::ui
