// Plain data of the cross-attention view: one window's tokens x audio-positions map of the chosen
// decoder heads, its warp path, the words it times, and the window's waveform and log-mel.
#pragma once

#include <QList>
#include <QMetaType>
#include <QPoint>
#include <QString>
#include <QStringList>
#include <cstddef>
#include <memory>
#include <span>
#include <utility>
#include <vector>

#include "earshot/ui/files/file_job.h"

namespace earshot::ui {

// A window's audio, shared by every copy of the map that shows it: copying a map (a queued
// signal, the view keeping it) copies no samples. `count` samples of `buffer` from `first`.
struct WindowAudio {
    std::shared_ptr<const std::vector<float>> buffer;
    size_t first = 0;
    size_t count = 0;

    // The whole of `samples`, now owned by the shared buffer.
    static WindowAudio of(std::vector<float> samples) {
        const size_t n = samples.size();
        return {std::make_shared<const std::vector<float>>(std::move(samples)), 0, n};
    }
    std::span<const float> span() const {
        return buffer ? std::span<const float>(*buffer).subspan(first, count)
                      : std::span<const float>();
    }
    bool empty() const { return count == 0; }
    size_t size() const { return count; }
    float operator[](size_t i) const { return (*buffer)[first + i]; }
};

struct CrossAttentionMap {
    QString heads;       // what the map averages: "alignment heads (6)", "layer 3, head 2"
    QStringList tokens;  // one per row: "<|notimestamps|>", then the text tokens
    int positions = 0;   // audio positions across, secondsPerPosition each
    double secondsPerPosition = 0.02;
    double startS = 0.0;        // the window's start in the file
    std::vector<float> values;  // [tokens.size(), positions], row-major; higher: more attention
    QList<QPoint> path;         // the warp path's cells, in order: x = position, y = row
    QList<TimedWord> words;     // the words it times, in file seconds
    WindowAudio samples;        // the window's audio, sampleRateHz mono, from startS
    int sampleRateHz = 16000;
    std::vector<float> mel;  // the window's log-mel [mels, melFrames], row-major
    int mels = 0;
    int melFrames = 0;  // 0.01 s each
    QString message;    // why there is no map (then nothing else is set)

    double endS() const { return startS + positions * secondsPerPosition; }
    float value(int row, int position) const {
        return values[static_cast<size_t>(row) * static_cast<size_t>(positions) +
                      static_cast<size_t>(position)];
    }
};

// What the Files page asks for: the map of one segment of a job, over the alignment heads
// (layer -1) or one head.
struct CrossAttentionRequest {
    int job = -1;
    int segment = -1;  // the row of the job's segments
    int layer = -1;
    int head = -1;
};

}  // namespace earshot::ui

Q_DECLARE_METATYPE(earshot::ui::CrossAttentionMap)
Q_DECLARE_METATYPE(earshot::ui::CrossAttentionRequest)
