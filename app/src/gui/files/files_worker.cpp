// FilesWorker: a queue on the UI thread and one std::thread per running job; the job's progress
// and outcome are posted back with QMetaObject::invokeMethod (queued), and the next job starts
// when the outcome arrives.
#include "gui/files/files_worker.h"

#include <QDir>
#include <QFileInfo>
#include <QMetaObject>
#include <QSaveFile>
#include <array>
#include <cmath>
#include <exception>
#include <filesystem>
#include <optional>

#include "core/files/transcript_formats.h"
#include "core/transcription/streaming_mel_source.h"
#include "earshot/audio/file_decoder.h"
#include "earshot/core/transcription_setup.h"

namespace earshot::app {

namespace {
// Of a job's progress bar: decoding the file takes this share, transcribing the rest.
constexpr double kDecodeShare = 0.1;
}  // namespace

namespace {
QList<ui::SegmentToken> segment_tokens(const decoding::Segment& segment,
                                       const tokenizer::Tokenizer& tokenizer) {
    const bool measured = segment.token_logprobs.size() == segment.tokens.size();
    QList<ui::SegmentToken> tokens;
    for (size_t i = 0; i < segment.tokens.size(); ++i) {
        const int32_t id = segment.tokens[i];
        if (id >= tokenizer.specials().eot) {
            continue;  // timestamps: the row's times say them
        }
        const std::array<int32_t, 1> one{id};
        tokens.append({QString::fromStdString(tokenizer.decode_text(one)),
                       measured ? std::exp(segment.token_logprobs[i]) : -1.0});
    }
    return tokens;
}
}  // namespace

namespace {
QList<ui::TimedWord> segment_words(const decoding::Segment& segment) {
    QList<ui::TimedWord> words;
    for (const decoding::Word& word : segment.words) {
        QString text = QString::fromStdString(word.text).trimmed();
        if (!text.isEmpty()) {
            words.append({std::move(text), word.start_s, word.end_s,
                          word.probability > 0.0 ? word.probability : -1.0});
        }
    }
    return words;
}
}  // namespace

QList<ui::SegmentRow> segment_rows(std::span<const decoding::Segment> segments,
                                   const tokenizer::Tokenizer* tokenizer) {
    QList<ui::SegmentRow> rows;
    for (const decoding::Segment& segment : segments) {
        QString text = QString::fromStdString(segment.text).simplified();
        if (!text.isEmpty()) {
            rows.append({segment.start_s, segment.end_s, std::move(text),
                         tokenizer != nullptr ? segment_tokens(segment, *tokenizer)
                                              : QList<ui::SegmentToken>(),
                         segment_words(segment)});
        }
    }
    return rows;
}

decoding::TranscribeOptions with_word_times(decoding::TranscribeOptions options,
                                            const LoadedModel& model) {
    if (!model.model->keeps_cross_attention() || !options.decoding.timestamps) {
        options.word_timestamps = false;
        return options;
    }
    options.word_timestamps = true;
    if (options.alignment_heads.empty()) {
        options.alignment_heads = alignment_heads(model);  // as `earshot transcribe` chooses them
    }
    return options;
}

QList<ui::SegmentRow> segment_rows(const decoding::Transcript& transcript,
                                   const tokenizer::Tokenizer* tokenizer) {
    return segment_rows(std::span<const decoding::Segment>(transcript.segments), tokenizer);
}

QString FilesExportSummary::message(const QString& folder) const {
    const QString native = QDir::toNativeSeparators(folder);
    if (failures.isEmpty()) {
        return written == 1
                   ? FilesWorker::tr("Exported 1 file to %1").arg(native)
                   : FilesWorker::tr("Exported %n files to %1", nullptr, written).arg(native);
    }
    return FilesWorker::tr("Exported %1 of %2 files to %3; failed: %4")
        .arg(written)
        .arg(total)
        .arg(native, failures.join(QStringLiteral("; ")));
}

decoding::Transcript transcribe_audio_file(LoadedModel& model, const QString& path,
                                           const decoding::TranscribeOptions& options,
                                           const std::function<void(double)>& progress,
                                           const std::atomic<bool>* cancel,
                                           const decoding::NewSegmentsFn& on_segments) {
    // The file in two streaming passes (streaming_mel_source.h): the first, which finds the
    // log-mel's global maximum, takes the decoding share of the progress bar.
    std::optional<StreamingMelSource> mel = StreamingMelSource::open(
        std::filesystem::path(path.toStdString()), static_cast<int>(model.model->mels()),
        model.model->frames(), [&progress](double fraction) { progress(kDecodeShare * fraction); },
        cancel);
    if (!mel) {
        return {};
    }
    return decoding::transcribe(
        *model.model, model.tokenizer, *mel, options,
        [&progress](double fraction) { progress(kDecodeShare + (1.0 - kDecodeShare) * fraction); },
        cancel, on_segments);
}

struct FilesWorker::Outcome {
    enum class Kind { finished, cancelled, failed };
    int id = -1;
    Kind kind = Kind::finished;
    decoding::Transcript transcript;
    QList<ui::SegmentRow> rows;  // of the transcript, with their tokens
    QString error;
};

FilesWorker::FilesWorker(QObject* parent) : QObject(parent) {}

FilesWorker::~FilesWorker() {
    m_cancel.store(true);
    wakePaused();
    if (m_thread.joinable()) {
        m_thread.join();
    }
}

void FilesWorker::setModel(std::shared_ptr<LoadedModel> model) {
    m_model = std::move(model);
    startNext();
}

void FilesWorker::setHeld(bool held) {
    m_held = held;
    startNext();
}

void FilesWorker::enqueue(int id, const QString& path) {
    m_queue.emplace_back(id, path);
    startNext();
}

void FilesWorker::cancel(int id) {
    if (id == m_running) {
        m_cancel.store(true);
        wakePaused();
        return;
    }
    for (auto it = m_queue.begin(); it != m_queue.end(); ++it) {
        if (it->first == id) {
            m_queue.erase(it);
            Q_EMIT jobCancelled(id, {});
            if (isIdle()) {
                Q_EMIT idle();
            }
            return;
        }
    }
}

void FilesWorker::remove(int id) {
    m_results.remove(id);
    if (id == m_running) {
        m_runningRemoved = true;
        m_cancel.store(true);
        wakePaused();
        return;
    }
    for (auto it = m_queue.begin(); it != m_queue.end(); ++it) {
        if (it->first == id) {
            m_queue.erase(it);
            if (isIdle()) {
                Q_EMIT idle();
            }
            return;
        }
    }
}

const decoding::Transcript* FilesWorker::transcript(int id) const {
    const auto it = m_results.constFind(id);
    return it == m_results.constEnd() ? nullptr : &it.value();
}

QString FilesWorker::exportTranscript(int id, const QString& format, const QString& path) const {
    const decoding::Transcript* result = transcript(id);
    if (result == nullptr) {
        return tr("this file has no transcript yet");
    }
    const std::optional<TranscriptFormat> parsed = parse_transcript_format(format.toStdString());
    if (!parsed) {
        return tr("unknown format %1").arg(format);
    }
    QSaveFile file(path);
    if (!file.open(QIODevice::WriteOnly)) {
        return tr("cannot write %1: %2").arg(path, file.errorString());
    }
    const std::string text = render_transcript(*result, *parsed);
    file.write(text.data(), static_cast<qint64>(text.size()));
    if (!file.commit()) {
        return tr("cannot write %1: %2").arg(path, file.errorString());
    }
    return {};
}

FilesExportSummary FilesWorker::exportAll(const QList<ui::ExportTarget>& targets,
                                          const QString& folder) const {
    FilesExportSummary summary;
    summary.total = static_cast<int>(targets.size());
    if (!QDir().mkpath(folder)) {
        summary.failures.append(tr("cannot create the folder %1").arg(folder));
        return summary;
    }
    for (const ui::ExportTarget& target : targets) {
        const QString error = exportTranscript(target.id, target.format, target.path);
        if (error.isEmpty()) {
            ++summary.written;
        } else {
            summary.failures.append(
                QStringLiteral("%1: %2").arg(QFileInfo(target.path).fileName(), error));
        }
    }
    return summary;
}

void FilesWorker::startNext() {
    if (m_running >= 0 || m_held || !m_model || m_queue.empty()) {
        return;
    }
    const auto [id, path] = m_queue.front();
    m_queue.pop_front();
    m_running = id;
    m_runningRemoved = false;
    m_outcome.reset();
    m_cancel.store(false);
    Q_EMIT busyChanged(true);
    Q_EMIT jobStarted(id);
    m_thread = std::thread([this, id, path, model = m_model, options = m_options,
                            setupError = m_setupError] {
        auto outcome = std::make_shared<Outcome>();
        outcome->id = id;
        auto progress = [this, id](double fraction) {
            waitWhilePaused();  // between windows: the model is free here
            QMetaObject::invokeMethod(
                this, [this, id, fraction] { Q_EMIT jobProgress(id, fraction); },
                Qt::QueuedConnection);
        };
        auto segments = [this, id, &model](std::span<const decoding::Segment> added) {
            QList<ui::SegmentRow> rows = segment_rows(added, &model->tokenizer);
            if (rows.isEmpty()) {
                return;
            }
            QMetaObject::invokeMethod(
                this,
                [this, id, rows = std::move(rows)] {
                    if (id == m_running && !m_runningRemoved) {
                        Q_EMIT jobSegments(id, rows);
                    }
                },
                Qt::QueuedConnection);
        };
        try {
            if (!setupError.isEmpty()) throw TranscriptionSetupError(setupError.toStdString());
            // A checkpoint naming an alignment head the model lacks fails the job, naming it.
            outcome->transcript = transcribe_audio_file(
                *model, path, with_word_times(options, *model), progress, &m_cancel, segments);
            outcome->kind = m_cancel.load() ? Outcome::Kind::cancelled : Outcome::Kind::finished;
            outcome->rows = segment_rows(outcome->transcript, &model->tokenizer);
        } catch (const std::exception& error) {
            outcome->kind = Outcome::Kind::failed;
            outcome->error = QString::fromStdString(error.what());
        }
        m_outcome = outcome;
        QMetaObject::invokeMethod(
            this, [this, outcome] { finishJob(outcome); }, Qt::QueuedConnection);
    });
}

void FilesWorker::stopForQuit() {
    m_held = true;
    m_queue.clear();
    if (m_running < 0) {
        return;
    }
    m_cancel.store(true);
    wakePaused();
    if (m_thread.joinable()) {
        m_thread.join();
    }
    if (const std::shared_ptr<Outcome> outcome = m_outcome) {
        finishJob(outcome);  // its queued call, if it still comes, finds it handled
    }
}

void FilesWorker::pause() {
    m_pauseRequested = true;
    m_held = true;
    {
        const std::lock_guard lock(m_pauseMutex);
        m_pauseWanted = true;
    }
    if (m_running < 0) {
        Q_EMIT paused();
    }
}

void FilesWorker::resume() {
    const bool wasPaused = m_pauseRequested;
    m_pauseRequested = false;
    {
        const std::lock_guard lock(m_pauseMutex);
        m_pauseWanted = false;
    }
    m_pauseChanged.notify_all();
    if (wasPaused && m_running >= 0) Q_EMIT resumed();
    setHeld(false);
}

void FilesWorker::wakePaused() {
    { const std::lock_guard lock(m_pauseMutex); }
    m_pauseChanged.notify_all();
}

void FilesWorker::waitWhilePaused() {
    std::unique_lock lock(m_pauseMutex);
    if (!m_pauseWanted || m_cancel.load()) {
        return;
    }
    m_waiting = true;
    QMetaObject::invokeMethod(
        this,
        [this] {
            if (m_pauseRequested && m_running >= 0) Q_EMIT paused();
        },
        Qt::QueuedConnection);
    m_pauseChanged.wait(lock, [this] { return !m_pauseWanted || m_cancel.load(); });
    m_waiting = false;
}

void FilesWorker::finishJob(const std::shared_ptr<Outcome>& outcome) {
    if (outcome->id != m_running) {
        return;  // handled already (stopForQuit)
    }
    if (m_thread.joinable()) {
        m_thread.join();
    }
    m_outcome.reset();
    m_running = -1;
    if (m_pauseRequested) {
        // The job ended before its next window boundary: the model is free now.
        Q_EMIT paused();
    }
    if (m_runningRemoved) {
        m_runningRemoved = false;
        Q_EMIT busyChanged(false);
        startNext();
        if (isIdle()) {
            Q_EMIT idle();
        }
        return;
    }
    switch (outcome->kind) {
        case Outcome::Kind::finished:
            m_results.insert(outcome->id, outcome->transcript);
            Q_EMIT jobFinished(outcome->id, outcome->rows,
                               QString::fromStdString(outcome->transcript.language));
            break;
        case Outcome::Kind::cancelled:
            m_results.insert(outcome->id, outcome->transcript);
            Q_EMIT jobCancelled(outcome->id, outcome->rows);
            break;
        case Outcome::Kind::failed:
            Q_EMIT jobFailed(outcome->id, outcome->error);
            break;
    }
    Q_EMIT busyChanged(false);
    startNext();
    if (isIdle()) {
        Q_EMIT idle();
    }
}

}  // namespace earshot::app
