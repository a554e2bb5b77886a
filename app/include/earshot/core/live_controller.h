// LiveController: the threads of live dictation. PortAudio callback -> ring -> audio thread
// (resampling, streaming log-mel, energy VAD) -> frame queue -> engine thread
// (StreamingTranscriber: listen, prefill + step, LocalAgreement-2) -> updates to the front end. No
// Qt: the terminal front end and the GUI both drive it.
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "earshot/audio/capture_event.h"
#include "earshot/audio/energy_vad.h"
#include "earshot/engine/backend/tap_channel.h"
#include "earshot/engine/decoding/decoder_model.h"
#include "earshot/engine/decoding/streaming_transcriber.h"

namespace earshot::audio {
class PreRollCapture;
}

namespace earshot::tokenizer {
class Tokenizer;
}

namespace earshot::app {

class CommandTable;  // core/dictation/spoken_command_table.h

struct LiveOptions {
    std::string device;           // capture device ("" = default input); unused with input
    std::filesystem::path input;  // when set, this file is the source, paced like a microphone
    double speed = 1.0;           // input pacing: times real time
    decoding::StreamingOptions streaming;
    audio::EnergyVadOptions vad;
    double queue_seconds = 120.0;  // frame queue between the audio and engine threads
    // When set (and no input), this already open microphone is the source instead of `device`:
    // the session hears its kept pre-roll first. It must outlive the session; stop() detaches.
    audio::PreRollCapture* microphone = nullptr;
    // Spoken commands ("new line", "scratch that", ...) applied to the committed text before
    // the front end sees it; null: the words as the decoder wrote them.
    std::shared_ptr<const CommandTable> spoken_commands;
    // Words the decoder likely invented (core/dictation/invented_words_guard.h: a repetition
    // loop, a known phrase over silence) are held back, never committed; off: all committed.
    bool guard_invented_words = true;
    // Taps (engine/backend/tap_channel.h): when set, each update runs with the names the channel
    // asks for attached to the model (models without taps ignore them) and publishes what they
    // tapped before the update reaches the front end; null or no names: nothing is tapped.
    std::shared_ptr<backend::TapChannel> taps;
    // When set (and no input), the source is push_samples(): a network stream, say.
    bool pushed_input = false;
    // The engine takes frames only up to the next update that is due, so an update comes after
    // exactly every update interval of audio (with fixed pacing), never coalesced: the same audio
    // gives the same updates whatever the machine's load or how the audio arrives. A late engine
    // lets the queue grow instead of dropping updates.
    bool exact_steps = false;
};

// One update as the front end receives it (on the engine thread; copy it to hand it on).
struct LiveUpdate {
    decoding::StreamUpdate update;
    double wall_s = 0.0;            // seconds since the first audio arrived, at publication
    int64_t coalesced_updates = 0;  // update intervals this update covered beyond its own:
                                    //   the engine was late and dropped that many updates
    uint64_t dropped_frames = 0;    // frames the queue could not take (engine far behind)
    uint64_t overrun_samples = 0;   // samples the capture ring dropped (audio thread late)
    float level_dbfs = -120.0F;     // the input level when published
    int64_t queued_frames = 0;      // frames waiting for the engine when published
    // With spoken commands, update.committed_text is what to append after erasing this many
    // characters (code points) of the text earlier updates committed ("scratch that");
    // update.committed_words stay the decoder's words.
    size_t erased_chars = 0;
    int64_t commands_applied = 0;  // spoken commands so far in the session
    int64_t held_words = 0;        // committed words held back: they may begin a command
    int64_t held_back_words = 0;   // words the invented-words guard did not commit, so far
    // The TapChannel snapshot this update published (TapSnapshot::update); 0 when nothing was
    // tapped.
    uint64_t tap_update = 0;
    // With update.cross_attention: the audio of its window, [window_start_s, audio_end_s) of the
    // stream at 16 kHz (what is still kept of it); else null.
    std::shared_ptr<const std::vector<float>> window_samples;
};

struct LiveStats {
    int64_t updates = 0;
    int64_t decoded_updates = 0;
    int64_t coalesced_updates = 0;
    int64_t frames = 0;  // frames the engine consumed
    uint64_t dropped_frames = 0;
    uint64_t overrun_samples = 0;
    double audio_s = 0.0;           // audio delivered by the source
    std::vector<double> engine_ms;  // per decoded update
    std::string error;              // the engine thread's or the source's failure, if any
};

class LiveController {
public:
    using UpdateSink = std::function<void(const LiveUpdate&)>;

    // `model` and `tokenizer` must outlive the controller; the engine thread alone uses them
    // while it runs. `on_update` is called on the engine thread for every update, the final
    // one last.
    LiveController(decoding::DecoderModel& model, const tokenizer::Tokenizer& tokenizer,
                   LiveOptions options, UpdateSink on_update);
    ~LiveController();  // cancel()
    LiveController(const LiveController&) = delete;
    LiveController& operator=(const LiveController&) = delete;

    // Opens the source and starts the threads. Throws audio::AudioFileError (input),
    // audio::AudioDeviceError (the device cannot be opened, with the device's message) or
    // std::invalid_argument (options).
    void start();
    // Ends the input: the source stops, the audio still queued is heard, the last update
    // commits everything (final), and the threads are joined. Idempotent.
    void stop();
    // Like stop() but without hearing what is queued: the decoder is cancelled between steps.
    void cancel();
    // With pushed_input: 16 kHz mono samples in [-1, 1], from one thread at a time (it acts as
    // the audio thread), never after end_input().
    void push_samples(std::span<const float> samples);
    // With pushed_input: the input has ended; the engine hears what is queued and publishes the
    // final update on its own. Does not block (wait_for() or done() tell when it is over).
    void end_input();
    // Asks the engine to stop between decoder steps without a final update; does not block.
    void request_cancel();
    // Blocks until the engine thread is done (the input file ended and was flushed, stop(),
    // cancel() or an error) or the timeout passes; true when done.
    bool wait_for(std::chrono::milliseconds timeout);
    bool done() const;

    LiveStats stats() const;
    float level_dbfs() const;                        // any thread: the audio thread's last hop
    std::vector<audio::CaptureEvent> take_events();  // microphone events (device lost, ...)
    // When the first audio reached the audio thread (stream time 0 on the wall clock); empty
    // before that. LiveUpdate::wall_s counts from here.
    std::optional<std::chrono::steady_clock::time_point> first_audio_at() const;

private:
    struct Impl;
    std::unique_ptr<Impl> impl_;
};

}  // namespace earshot::app
