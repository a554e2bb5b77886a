// The live controller: source (microphone or paced file) -> audio thread -> engine thread.
#include "earshot/core/live_controller.h"

#include <algorithm>
#include <condition_variable>
#include <deque>
#include <memory>
#include <mutex>
#include <optional>
#include <span>
#include <stdexcept>
#include <thread>
#include <utility>
#include <vector>

#include "core/dictation/dictation_editor.h"
#include "core/dictation/invented_words_guard.h"
#include "earshot/audio/audio_device_error.h"
#include "earshot/audio/capture.h"
#include "earshot/audio/log_mel.h"
#include "earshot/audio/mel_frame_queue.h"
#include "earshot/audio/mel_front_end.h"
#include "earshot/audio/paced_file_source.h"
#include "earshot/audio/pre_roll_capture.h"

namespace earshot::app {

namespace {

constexpr double kFramesPerSecond = 100.0;  // 10 ms hop (reference §1.1)
// The VAD decisions kept for the guard: 120 s, more than a window (Whisper's 30 s) back.
constexpr size_t kSpeechHistoryFrames = 12000;
// The audio kept for the live cross-attention map's waveform: a window (30 s) and some.
constexpr size_t kAudioHistorySamples = 32 * 16000;
constexpr double kSampleRateHz = 16000.0;  // what the front end takes
// How long the engine thread sleeps when it has nothing to do.
constexpr std::chrono::milliseconds kEnginePoll{5};

int64_t now_ns() {
    return std::chrono::duration_cast<std::chrono::nanoseconds>(
               std::chrono::steady_clock::now().time_since_epoch())
        .count();
}

}  // namespace

struct LiveController::Impl {
    Impl(decoding::DecoderModel& model_in, const tokenizer::Tokenizer& tok_in, LiveOptions opts,
         UpdateSink sink)
        : model(model_in),
          tok(tok_in),
          options(std::move(opts)),
          on_update(std::move(sink)),
          mels(static_cast<int>(model_in.mels())),
          queue(mels, static_cast<size_t>(std::max(options.queue_seconds, 1.0) * kFramesPerSecond)),
          front(mels, queue, options.vad) {
        if (options.spoken_commands) editor.emplace(*options.spoken_commands);
        if (options.guard_invented_words) guard.emplace(options.streaming.decoding.language);
    }

    decoding::DecoderModel& model;
    const tokenizer::Tokenizer& tok;
    LiveOptions options;
    UpdateSink on_update;
    int mels;
    audio::MelFrameQueue queue;
    audio::MelFrontEnd front;
    std::unique_ptr<audio::Capture> capture;
    std::unique_ptr<audio::PacedFileSource> file;
    std::optional<DictationEditor> editor;    // with spoken commands
    std::optional<InventedWordsGuard> guard;  // unless switched off
    // The VAD's decision for each frame the engine took, from stream frame speech_first_frame.
    std::deque<uint8_t> speech_frames;
    int64_t speech_first_frame = 0;
    audio::PreRollCapture* microphone = nullptr;  // attached from start() to stop_source()
    std::atomic<uint64_t> microphone_samples{0};  // what the attached microphone delivered
    std::thread engine;
    // While a live cross-attention map is asked for (options.streaming.cross_attention), the
    // last kAudioHistorySamples samples: a ring written by the audio thread, read by the engine
    // thread when it publishes a map (the lock is never taken in the audio callback).
    std::mutex history_mutex;
    std::vector<float> history;
    uint64_t history_total = 0;  // samples ever written

    std::atomic<int64_t> first_sample_ns{0};
    std::atomic<bool> input_over{false};  // the source delivers nothing more (stop or file end)
    std::atomic<bool> cancel{false};
    std::atomic<bool> done{false};
    bool started = false;
    bool stopped = false;

    mutable std::mutex stats_mutex;
    LiveStats stats;
    std::mutex done_mutex;
    std::condition_variable done_cv;

    // The audio thread's work, for both sources.
    void consume(std::span<const float> samples) {
        if (samples.empty()) return;
        int64_t expected = 0;
        first_sample_ns.compare_exchange_strong(expected, now_ns(), std::memory_order_relaxed);
        if (microphone != nullptr) {
            microphone_samples.fetch_add(samples.size(), std::memory_order_relaxed);
        }
        front.push(samples);
        if (options.streaming.cross_attention) remember_audio(samples);
    }

    void remember_audio(std::span<const float> samples) {
        const std::lock_guard lock(history_mutex);
        if (history.empty()) history.resize(kAudioHistorySamples);
        for (const float sample : samples) {
            history[history_total % kAudioHistorySamples] = sample;
            ++history_total;
        }
    }

    // The remembered samples of stream seconds [start_s, end_s), sample 0 at start_s: silence
    // where the history no longer holds them (the engine more than 2 s behind the audio). The
    // UI's map shares this buffer: the window's one copy per update is made here.
    std::shared_ptr<const std::vector<float>> audio_between(double start_s, double end_s) {
        const std::lock_guard lock(history_mutex);
        const uint64_t oldest =
            history_total > kAudioHistorySamples ? history_total - kAudioHistorySamples : 0;
        const auto start = static_cast<uint64_t>(std::max(0.0, start_s) * kSampleRateHz);
        const auto first = std::max(oldest, start);
        const auto last =
            std::min(history_total, static_cast<uint64_t>(std::max(0.0, end_s) * kSampleRateHz));
        auto out = std::make_shared<std::vector<float>>();
        if (last <= start) return out;
        out->assign(static_cast<size_t>(last - start), 0.0F);
        // At most two runs of the ring: up to its end, then from its start.
        for (uint64_t i = first; i < last;) {
            const auto at = static_cast<size_t>(i % kAudioHistorySamples);
            const auto n =
                static_cast<size_t>(std::min<uint64_t>(last - i, kAudioHistorySamples - at));
            std::copy_n(history.begin() + static_cast<std::ptrdiff_t>(at), n,
                        out->begin() + static_cast<std::ptrdiff_t>(i - start));
            i += n;
        }
        return out;
    }

    bool source_finished() const {
        if (input_over.load()) return true;
        return file != nullptr && file->finished();
    }

    // One update of the transcriber with the asked taps attached to the model; what they tapped
    // is published on the channel (the decoding thread's side of its mutex) before the update.
    template <typename Run>
    decoding::StreamUpdate tapped_update(backend::TapSet& taps, uint64_t& tap_update, Run run) {
        tap_update = 0;
        const bool tapping = options.taps && options.taps->prepare(taps);
        if (!tapping) return run();
        model.set_taps(&taps);
        struct Detach {
            decoding::DecoderModel& model;
            ~Detach() { model.set_taps(nullptr); }
        } detach{model};
        decoding::StreamUpdate update = run();
        tap_update = options.taps->publish(taps);
        return update;
    }

    void publish(decoding::StreamUpdate update, int64_t coalesced, uint64_t tap_update = 0) {
        LiveUpdate live;
        live.tap_update = tap_update;
        live.coalesced_updates = coalesced;
        live.dropped_frames = queue.dropped_frames();
        live.overrun_samples = capture      ? capture->stats().overrun_samples
                               : microphone ? microphone->stats().overrun_samples
                                            : 0;
        live.level_dbfs = front.level_dbfs();
        live.queued_frames = static_cast<int64_t>(queue.size_frames());
        const int64_t first = first_sample_ns.load(std::memory_order_relaxed);
        live.wall_s = first == 0 ? 0.0 : static_cast<double>(now_ns() - first) * 1e-9;
        {
            const std::lock_guard lock(stats_mutex);
            ++stats.updates;
            stats.coalesced_updates += coalesced;
            stats.dropped_frames = live.dropped_frames;
            stats.overrun_samples = live.overrun_samples;
            if (update.gate == decoding::UpdateGate::decoded ||
                update.gate == decoding::UpdateGate::no_speech) {
                ++stats.decoded_updates;
                stats.engine_ms.push_back(update.engine_ms);
            }
        }
        if (update.cross_attention) {
            live.window_samples = audio_between(update.window_start_s, update.audio_end_s);
        }
        live.update = std::move(update);
        if (guard) apply_guard(live);
        if (editor) apply_commands(live);
        if (on_update) on_update(live);
    }

    // Share of [start_s, end_s) the VAD heard as speech (1 when none of it is remembered).
    double speech_fraction(double start_s, double end_s) const {
        const auto first = static_cast<int64_t>(start_s * kFramesPerSecond);
        const auto last = std::max(first + 1, static_cast<int64_t>(end_s * kFramesPerSecond));
        int64_t heard = 0;
        int64_t speech = 0;
        for (int64_t f = std::max(first, speech_first_frame); f < last; ++f) {
            const auto at = static_cast<size_t>(f - speech_first_frame);
            if (at >= speech_frames.size()) break;
            ++heard;
            speech += speech_frames[at];
        }
        return heard == 0 ? 1.0 : static_cast<double>(speech) / static_cast<double>(heard);
    }

    void remember_speech(bool speech) {
        speech_frames.push_back(speech ? 1 : 0);
        if (speech_frames.size() > kSpeechHistoryFrames) {
            speech_frames.pop_front();
            ++speech_first_frame;
        }
    }

    // The committed words through the invented-words guard: held-back words leave the update.
    void apply_guard(LiveUpdate& live) {
        auto& committed = live.update.committed_words;
        if (!committed.empty()) {
            std::vector<GuardedWord> judged;
            for (const decoding::StreamWord& word : committed) {
                double least_sure = -1.0;
                for (const decoding::StreamToken& token : word.tokens) {
                    if (token.probability < 0.0) continue;
                    least_sure = least_sure < 0.0 ? token.probability
                                                  : std::min(least_sure, token.probability);
                }
                judged.push_back({word.text, speech_fraction(word.start_s, word.end_s), least_sure,
                                  word.start_s, word.end_s});
            }
            if (guard->judge(judged).held_back_words > 0) {
                committed.clear();
                live.update.committed_text.clear();
            }
        }
        live.held_back_words = guard->held_back_words();
    }

    // The committed words through the spoken commands: the edit replaces the committed text.
    void apply_commands(LiveUpdate& live) {
        std::vector<DictatedWord> words;
        words.reserve(live.update.committed_words.size());
        for (const decoding::StreamWord& word : live.update.committed_words) {
            words.push_back({word.text, word.start_s, word.end_s});
        }
        TextEdit edit = editor->commit(words, live.update.final);
        live.update.committed_text = std::move(edit.text);
        live.erased_chars = edit.erase_chars;
        live.commands_applied = editor->commands_applied();
        live.held_words = static_cast<int64_t>(editor->held_words());
    }

    void run_engine() {
        try {
            decoding::StreamingTranscriber transcriber(
                model, tok,
                [mels_ = mels](std::span<const float> raw, int64_t frames, std::span<float> out) {
                    const audio::LogMel window = audio::normalize_window(raw, mels_, frames);
                    std::copy(window.values.begin(), window.values.end(), out.begin());
                },
                options.streaming);
            std::vector<float> frame(static_cast<size_t>(mels));  // [Mels]
            backend::TapSet taps;  // the names options.taps asks for, and their values
            uint64_t tap_update = 0;
            audio::MelFrameInfo info;
            int64_t frames_at_update = 0;
            int64_t owed_frames = 0;  // audio since the last update not yet counted as intervals
            bool tail_flushed = false;
            while (!cancel.load()) {
                const bool over = source_finished();
                int64_t consumed = 0;
                while (transcriber.room_frames() > 0 &&
                       !(options.exact_steps && transcriber.update_due()) &&
                       queue.pop(frame, info)) {
                    transcriber.push_frame(frame, info.speech);
                    remember_speech(info.speech);
                    ++consumed;
                }
                if (consumed > 0) {
                    const std::lock_guard lock(stats_mutex);
                    stats.frames += consumed;
                }
                if (transcriber.update_due()) {
                    // Whole update intervals of audio since the last update, beyond the one this
                    // update serves: updates the engine was too late for. What is left of an
                    // interval carries over, so that over a session updates + coalesced counts
                    // every interval of the audio.
                    owed_frames += transcriber.frames_received() - frames_at_update;
                    const int64_t interval = std::max<int64_t>(transcriber.update_frames(), 1);
                    const int64_t served = std::max<int64_t>(owed_frames / interval, 1);
                    const int64_t coalesced = served - 1;
                    owed_frames = std::max<int64_t>(owed_frames - served * interval, 0);
                    frames_at_update = transcriber.frames_received();
                    decoding::StreamUpdate update = tapped_update(
                        taps, tap_update, [&] { return transcriber.update(&cancel); });
                    publish(std::move(update), coalesced, tap_update);
                    continue;
                }
                if (over && queue.size_frames() == 0) {
                    if (!tail_flushed) {
                        // The source is done (joined or finished), so this thread may end the
                        // signal: the last frames with Whisper's end reflection.
                        if (file) file->wait();
                        front.finish();
                        tail_flushed = true;
                        continue;
                    }
                    decoding::StreamUpdate update = tapped_update(
                        taps, tap_update, [&] { return transcriber.finish(&cancel); });
                    publish(std::move(update), 0, tap_update);
                    break;
                }
                std::this_thread::sleep_for(kEnginePoll);
            }
        } catch (const std::exception& e) {
            const std::lock_guard lock(stats_mutex);
            stats.error = e.what();
        }
        if (file && !file->error().empty()) {
            const std::lock_guard lock(stats_mutex);
            if (stats.error.empty()) stats.error = file->error();
        }
        {
            const std::lock_guard lock(done_mutex);
            done.store(true);
        }
        done_cv.notify_all();
    }

    void stop_source() {
        if (capture) capture->stop();  // delivers what the ring still holds, joins its thread
        if (microphone) microphone->detach();  // stays open for the next pre-roll
        if (file) file->stop();
        input_over.store(true);
    }

    void join() {
        if (engine.joinable()) engine.join();
    }
};

LiveController::LiveController(decoding::DecoderModel& model, const tokenizer::Tokenizer& tokenizer,
                               LiveOptions options, UpdateSink on_update)
    : impl_(std::make_unique<Impl>(model, tokenizer, std::move(options), std::move(on_update))) {}

LiveController::~LiveController() { cancel(); }

void LiveController::start() {
    Impl& s = *impl_;
    if (s.started) throw std::logic_error("live: start() twice");
    if (!(s.options.speed > 0.0)) {
        throw std::invalid_argument("live: --speed must be positive");
    }
    auto consumer = [&s](std::span<const float> samples) { s.consume(samples); };
    if (!s.options.input.empty()) {
        s.file = std::make_unique<audio::PacedFileSource>(
            s.options.input, consumer, audio::PacedFileOptions{.speed = s.options.speed});
    } else if (s.options.pushed_input) {
        // push_samples() is the source.
    } else if (s.options.microphone != nullptr) {
        s.microphone = s.options.microphone;
    } else {
        s.capture = std::make_unique<audio::Capture>(consumer);
    }
    s.started = true;
    s.engine = std::thread([&s] { s.run_engine(); });
    if (s.file) {
        s.file->start();
        return;
    }
    if (s.options.pushed_input) return;
    if (s.microphone) {
        // Stream time 0 is the start of the pre-roll, which was heard before now.
        const auto kept_ns =
            static_cast<int64_t>(static_cast<double>(s.microphone->kept_samples()) * 1e9 /
                                 audio::StreamResampler::kWhisperRateHz);
        s.first_sample_ns.store(now_ns() - kept_ns, std::memory_order_relaxed);
        s.microphone->attach(consumer);
        return;
    }
    audio::CaptureOptions capture_options;
    capture_options.device = s.options.device;
    const audio::CaptureEvent event = s.capture->start(capture_options);
    if (event.is_error()) {
        s.cancel.store(true);
        s.input_over.store(true);
        s.join();
        throw audio::AudioDeviceError(event.message);
    }
}

void LiveController::stop() {
    Impl& s = *impl_;
    if (!s.started || s.stopped) return;
    s.stopped = true;
    s.stop_source();
    s.join();
}

void LiveController::cancel() {
    Impl& s = *impl_;
    if (!s.started || s.stopped) return;
    s.stopped = true;
    s.cancel.store(true);
    s.stop_source();
    s.join();
}

void LiveController::push_samples(std::span<const float> samples) {
    Impl& s = *impl_;
    if (!s.options.pushed_input)
        throw std::logic_error("live: push_samples() without pushed_input");
    if (!s.started || s.input_over.load()) return;
    s.consume(samples);
}

void LiveController::end_input() { impl_->input_over.store(true); }

void LiveController::request_cancel() {
    impl_->cancel.store(true);
    impl_->input_over.store(true);
}

bool LiveController::wait_for(std::chrono::milliseconds timeout) {
    Impl& s = *impl_;
    if (!s.started) return true;
    std::unique_lock lock(s.done_mutex);
    return s.done_cv.wait_for(lock, timeout, [&s] { return s.done.load(); });
}

bool LiveController::done() const { return impl_->done.load(); }

LiveStats LiveController::stats() const {
    const Impl& s = *impl_;
    LiveStats out;
    {
        const std::lock_guard lock(s.stats_mutex);
        out = s.stats;
    }
    if (s.file) {
        out.audio_s = s.file->delivered_s();
    } else if (s.capture) {
        out.audio_s = static_cast<double>(s.capture->stats().delivered_samples) /
                      audio::StreamResampler::kWhisperRateHz;
    } else if (s.microphone) {
        out.audio_s = static_cast<double>(s.microphone_samples.load(std::memory_order_relaxed)) /
                      audio::StreamResampler::kWhisperRateHz;
    }
    return out;
}

float LiveController::level_dbfs() const { return impl_->front.level_dbfs(); }

std::optional<std::chrono::steady_clock::time_point> LiveController::first_audio_at() const {
    const int64_t ns = impl_->first_sample_ns.load(std::memory_order_relaxed);
    if (ns == 0) return std::nullopt;
    return std::chrono::steady_clock::time_point(
        std::chrono::duration_cast<std::chrono::steady_clock::duration>(
            std::chrono::nanoseconds(ns)));
}

std::vector<audio::CaptureEvent> LiveController::take_events() {
    if (impl_->microphone) return impl_->microphone->take_events();
    return impl_->capture ? impl_->capture->take_events() : std::vector<audio::CaptureEvent>{};
}

}  // namespace earshot::app
