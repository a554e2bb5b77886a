// OutputPlayer: plays mono samples (a decoded file) through the default output device from any
// point onward, pauses, and says where playback is from the output stream's clock.
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

namespace earshot::audio {

class OutputPlayer {
public:
    OutputPlayer();
    ~OutputPlayer();  // stops playback and closes the device
    OutputPlayer(const OutputPlayer&) = delete;
    OutputPlayer& operator=(const OutputPlayer&) = delete;

    // The audio to play: [N] mono samples at `sample_rate_hz`. Stops playback; position 0.
    void set_audio(std::vector<float> samples, int sample_rate_hz);

    // Plays from `start_s` (clamped into the audio) to the end, restarting when already playing.
    // Opens the default output device the first time (mono, or stereo with the same signal in
    // both channels; the audio is resampled once to the device's rate when it does not take the
    // samples' own). Throws AudioDeviceError naming the reason when there is no output device or
    // it cannot be opened or started.
    void play(double start_s);
    // Stops where playback is; position_s() stays there.
    void pause();

    // Started and not yet at the end of the audio (nor paused).
    bool playing() const;
    // The time in the audio being heard now, from the stream's clock while playing (never ahead of
    // what the callback has written, never before the start); where it paused or ended otherwise.
    double position_s() const;
    double duration_s() const;

private:
    struct Impl;
    std::unique_ptr<Impl> impl_;
};

}  // namespace earshot::audio
