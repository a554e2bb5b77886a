// StreamingTranscriber's window: where it starts after an update (dropped at a pause or the end,
// restarted at the last word when full, moved past finished segments into a pause), and the
// committed text that leaves it for the prompt.
#include <algorithm>
#include <cmath>
#include <utility>

#include "earshot/engine/decoding/streaming_transcriber.h"
#include "earshot/engine/tokenizer/tokenizer.h"
#include "streaming_steps.h"

namespace earshot::decoding {

namespace {

// The window moves past a finished segment only into a pause (the VAD's, hangover included): at
// least this many frames of non-speech, starting at most kMoveSlackFrames after the segment's
// end timestamp (end timestamps run early, inside the last word).
constexpr int64_t kMovePauseFrames = 20;
constexpr int64_t kMoveSlackFrames = 50;

}  // namespace

int64_t StreamingTranscriber::held_frames() const {
    return static_cast<int64_t>(window_.size()) / mels_;
}

double StreamingTranscriber::seconds(int64_t frames) const {
    return static_cast<double>(frames) / kFramesPerSecond;
}

void StreamingTranscriber::move_window(const std::vector<TimedWord>& words,
                                       const CommitChoice& choice, bool final) {
    if (final || choice.pause) {
        // Everything heard is committed: the next window starts after it.
        paused_speech_frame_ = last_speech_frame_;
        drop_window(final ? 0 : kOnsetKeepFrames);
        // A quick pause may come while the VAD hears a quiet word ending as silence: the next
        // window may start in that ending, and its first words may repeat the committed ones.
        check_repeats_ = !final && choice.silence_s < options_.pause_commit_s;
    } else if (choice.full) {
        // Everything but the last word, which may be cut off by the window's end: the next
        // window starts at that word (its estimated start) and hears it whole.
        if (choice.count < words.size()) {
            const int64_t word_frame =
                static_cast<int64_t>(std::floor(words[choice.count].start_s * kFramesPerSecond));
            const int64_t frames_now = held_frames();
            // At least one update's worth goes, so the window always makes room.
            const int64_t drop = std::max(std::clamp<int64_t>(word_frame, 0, frames_now),
                                          std::min(interval_frames_, frames_now));
            drop_window(frames_now - drop);
            tentative_words_.clear();  // shown in this update, heard again by the next
            tentative_text_tokens_.clear();
            check_repeats_ = true;
        } else {
            drop_window(0);
        }
    } else {
        move_window_past_segments();
    }
}

void StreamingTranscriber::move_window_past_segments() {
    const int32_t ts_begin = tok_.specials().timestamp_begin;
    const int32_t eot = tok_.specials().eot;
    size_t cut = committed_.size();
    for (size_t k = committed_.size(); k-- > 1;) {
        if (committed_[k] >= ts_begin && committed_[k - 1] < eot) {
            cut = k;
            break;
        }
    }
    if (cut == committed_.size()) return;
    int32_t cut_steps = committed_[cut] - ts_begin;
    const int64_t window_frames = held_frames();
    int64_t cut_frames = std::min<int64_t>(cut_steps * kFramesPerTimestamp, window_frames);
    if (cut_frames <= 0) return;
    if (options_.use_vad) {
        // Only into a pause, never inside a sentence: a window that opens mid-sentence is not
        // what a model saw in training, and the micro model then says words twice ("the new new
        // phone"). The window starts where the pause starts; without one it stays (a pause or
        // a full window drops it later). Text committed after the segment keeps it too.
        for (size_t k = cut + 1; k < committed_.size(); ++k) {
            if (committed_[k] < eot) return;
        }
        const int64_t last_start = std::min(cut_frames + kMoveSlackFrames, window_frames);
        int64_t pause_start = -1;
        int64_t run = 0;
        for (int64_t f = cut_frames; f < window_frames; ++f) {
            run = window_speech_[static_cast<size_t>(f)] != 0 ? 0 : run + 1;
            if (run == 1 && f > last_start) break;
            if (run >= kMovePauseFrames) {
                pause_start = f + 1 - run;
                break;
            }
        }
        if (pause_start < 0) return;
        cut_frames = pause_start - pause_start % kFramesPerTimestamp;
        if (cut_frames <= 0) return;
        cut_steps = static_cast<int32_t>(cut_frames / kFramesPerTimestamp);
    }

    const std::vector<int32_t> done = text_tokens(std::span(committed_).first(cut + 1));
    prompt_.insert(prompt_.end(), done.begin(), done.end());
    std::vector<int32_t> rest(committed_.begin() + static_cast<std::ptrdiff_t>(cut) + 1,
                              committed_.end());
    for (int32_t& id : rest) {
        if (id >= ts_begin) id = std::max(ts_begin, id - cut_steps);
    }
    committed_ = std::move(rest);
    window_.erase(window_.begin(), window_.begin() + cut_frames * mels_);
    window_speech_.erase(window_speech_.begin(), window_speech_.begin() + cut_frames);
    window_start_frame_ += cut_frames;
    // The new start is the model's end timestamp, which may fall inside the segment's last word.
    check_repeats_ = true;
    cap_prompt();
}

void StreamingTranscriber::drop_window(int64_t keep_frames) {
    check_repeats_ = false;
    const std::vector<int32_t> done = text_tokens(committed_);
    prompt_.insert(prompt_.end(), done.begin(), done.end());
    committed_.clear();
    // Speech that a pause committed is never heard again (a quick pause comes soon after it).
    if (paused_speech_frame_ >= 0) {
        keep_frames = std::min(keep_frames, total_frames_ - 1 - paused_speech_frame_);
    }
    const int64_t window_frames = held_frames();
    const int64_t drop = std::max<int64_t>(window_frames - std::max<int64_t>(keep_frames, 0), 0);
    window_.erase(window_.begin(), window_.begin() + drop * mels_);
    window_speech_.erase(window_speech_.begin(), window_speech_.begin() + drop);
    window_start_frame_ += drop;
    agreement_.reset();
    cap_prompt();
}

void StreamingTranscriber::cap_prompt() {
    const auto cap = static_cast<size_t>(std::max(options_.prompt_max_tokens, 0));
    if (prompt_.size() > cap) {
        prompt_.erase(prompt_.begin(), prompt_.end() - static_cast<std::ptrdiff_t>(cap));
    }
}

std::vector<int32_t> StreamingTranscriber::text_tokens(std::span<const int32_t> tokens) const {
    std::vector<int32_t> text;
    for (int32_t id : tokens) {
        if (id < tok_.specials().eot) text.push_back(id);
    }
    return text;
}

}  // namespace earshot::decoding
