// The one-line progress display of `earshot transcribe` on stderr: percent of the audio done, time
// elapsed, speed as a multiple of real time, and the file name, redrawn in place with '\r'.
#pragma once

#include <chrono>
#include <iosfwd>
#include <string>

namespace earshot::app {

class TranscribeProgress {
public:
    // Starts the clock for one file of `audio_s` seconds.
    TranscribeProgress(std::ostream& err, std::string file_name, double audio_s);

    // Redraws the line for `fraction` (0..1) of the audio done.
    void update(double fraction);
    // Draws 100 % and ends the line with '\n'.
    void finish();
    // Ends the line with '\n' where it stands (the file failed or was cancelled).
    void abandon();

    // "  45% | 0:05 elapsed | 2.3x real time | jfk.wav": the real-time factor is audio seconds
    // done per wall second ("-" before any time has passed).
    static std::string format_line(double fraction, double elapsed_s, double audio_s,
                                   const std::string& file_name);

private:
    void draw(double fraction);

    std::ostream& err_;
    std::string file_name_;
    double audio_s_;
    std::chrono::steady_clock::time_point start_;
    size_t last_width_ = 0;
    bool open_ = false;  // a line is drawn and not yet ended
};

}  // namespace earshot::app
