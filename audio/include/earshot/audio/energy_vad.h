// EnergyVad: a voice-activity detector on 10 ms hops that compares each hop's speech-band energy
// with an adaptive noise floor, with a hangover so that short pauses inside speech stay speech.
#pragma once

#include <cstdint>
#include <span>

namespace earshot::audio {

struct EnergyVadOptions {
    // Speech when the hop's level is above floor + margin...
    double margin_db = 12.0;
    // ...and above this absolute level.
    double min_speech_dbfs = -55.0;
    // The floor follows quiet hops down at once, rises this slowly.
    double floor_rise_db_per_s = 0.5;
    // Speech stays on this long after the last loud hop.
    double hangover_s = 0.3;
    int hop_samples = 160;  // 10 ms at 16 kHz
    int sample_rate_hz = 16000;
};

// Levels. level_dbfs() is the hop's plain level, 10 log10(mean square + 1e-12), for a meter. The
// decision uses the same measure of the hop after first-order pre-emphasis, y[n] = x[n] - 0.97
// x[n - 1] (the usual speech pre-emphasis, e.g. HTK's PREEMCOEF 0.97): it tilts the spectrum by
// +6 dB per octave, which turns rumble and brown noise (whose 10 ms energy swings by 20 dB and more
// from hop to hop, as a 20-40 Hz wave crosses zero or peaks) into a steady white-like level, and
// cuts 50 Hz hum by about 29 dB. Both margin_db and min_speech_dbfs apply to this weighted level,
// and the floor tracks it; voiced speech reads about 5 to 15 dB lower than its plain level,
// fricatives about the same.
//
// Decision per hop, with `floor` the floor before this hop:
//   loud   = weighted > floor + margin_db && weighted > min_speech_dbfs
//   speech = loud, or a loud hop ended at most hangover_s ago
// then the floor moves to the weighted level at once when that is lower, else rises by at most
// floor_rise_db_per_s * hop seconds. The first hop with signal initialises the floor and is not
// speech, so noise that is there from the start is never speech.
//
// Digital silence (plain level below kNoSignalDbfs: a muted or not yet started input, the zeros
// at the head of an edited file) says nothing about the room: such hops are never loud and leave
// the floor alone (they do count down the hangover), so that a gap of zeros does not pull the
// floor to -120 dBFS and turn the room noise after it into speech.
//
// push_hop() does not allocate. Not thread-safe: one thread drives a detector.
class EnergyVad {
public:
    // The level of an all-zero hop: 10 log10(1e-12).
    static constexpr double kSilenceDbfs = -120.0;
    // Below this plain level a hop is digital silence: under the noise of 16-bit quantisation
    // (one LSB RMS over sqrt(12), about -101 dBFS) plus dither.
    static constexpr double kNoSignalDbfs = -90.0;
    // The pre-emphasis coefficient (see above).
    static constexpr double kPreEmphasis = 0.97;

    // Throws std::invalid_argument for a hop or rate below 1, or a negative hangover or rise.
    explicit EnergyVad(EnergyVadOptions options = {});

    // Judges one hop (any length > 0, normally hop_samples) that directly follows the previous
    // one; returns whether it is speech. An empty hop changes nothing and returns speech().
    bool push_hop(std::span<const float> hop);

    double level_dbfs() const { return level_dbfs_; }  // of the last hop: 10 log10(ms + 1e-12)
    // The last hop's pre-emphasised level, the one compared with the floor.
    double weighted_level_dbfs() const { return weighted_level_dbfs_; }
    // In the weighted measure; kSilenceDbfs until a hop with signal arrived.
    double noise_floor_dbfs() const { return floor_dbfs_; }
    bool speech() const { return speech_; }  // the last hop's decision
    const EnergyVadOptions& options() const { return options_; }

    // Forgets everything: the next hop starts a new signal.
    void reset();

private:
    EnergyVadOptions options_;
    std::int64_t hangover_samples_;
    double previous_sample_ = 0.0;  // the pre-emphasis filter's memory
    double level_dbfs_ = kSilenceDbfs;
    double weighted_level_dbfs_ = kSilenceDbfs;
    double floor_dbfs_ = kSilenceDbfs;
    bool floor_set_ = false;
    std::int64_t hangover_left_samples_ = 0;
    bool speech_ = false;
};

}  // namespace earshot::audio
