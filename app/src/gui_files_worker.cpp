// FilesWorker: a queue on the UI thread and one std::thread per running job; the job's progress
// and outcome are posted back with QMetaObject::invokeMethod (queued), and the next job starts
// when the outcome arrives.
#include "gui_files_worker.h"

#include <QMetaObject>
#include <QSaveFile>
#include <exception>
#include <filesystem>

#include "earshot/audio/file_decoder.h"
#include "transcript_formats.h"
#include "whole_file_mel.h"

namespace earshot::app {

namespace {
// Of a job's progress bar: decoding the file takes this share, transcribing the rest.
constexpr double kDecodeShare = 0.1;
}  // namespace

QList<ui::SegmentRow> segment_rows(const decoding::Transcript& transcript) {
    QList<ui::SegmentRow> rows;
    for (const decoding::Segment& segment : transcript.segments) {
        rows.append(
            {segment.start_s, segment.end_s, QString::fromStdString(segment.text).simplified()});
    }
    return rows;
}

decoding::Transcript transcribe_audio_file(LoadedModel& model, const QString& path,
                                           const decoding::TranscribeOptions& options,
                                           const std::function<void(double)>& progress,
                                           const std::atomic<bool>* cancel) {
    audio::DecodeOptions decode;
    decode.cancel = cancel;
    decode.on_progress = [&progress](double fraction) { progress(kDecodeShare * fraction); };
    audio::DecodedAudio audio =
        audio::decode_file(std::filesystem::path(path.toStdString()), decode);
    if (audio.cancelled()) {
        return {};
    }
    const int64_t frames = model.model->frames();
    const backend::HostTensor mel =
        whole_file_mel(std::move(audio.samples), model.model->mels(), frames);
    return decoding::transcribe(
        *model.model, model.tokenizer, mel, mel.dim(1) - frames, options,
        [&progress](double fraction) { progress(kDecodeShare + (1.0 - kDecodeShare) * fraction); },
        cancel);
}

struct FilesWorker::Outcome {
    enum class Kind { finished, cancelled, failed };
    int id = -1;
    Kind kind = Kind::finished;
    decoding::Transcript transcript;
    QString error;
};

FilesWorker::FilesWorker(QObject* parent) : QObject(parent) {}

FilesWorker::~FilesWorker() {
    m_cancel.store(true);
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
        return;
    }
    for (auto it = m_queue.begin(); it != m_queue.end(); ++it) {
        if (it->first == id) {
            m_queue.erase(it);
            emit jobCancelled(id, {});
            if (isIdle()) {
                emit idle();
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

void FilesWorker::startNext() {
    if (m_running >= 0 || m_held || !m_model || m_queue.empty()) {
        return;
    }
    const auto [id, path] = m_queue.front();
    m_queue.pop_front();
    m_running = id;
    m_cancel.store(false);
    emit busyChanged(true);
    emit jobStarted(id);
    m_thread = std::thread([this, id, path, model = m_model, options = m_options] {
        auto outcome = std::make_shared<Outcome>();
        outcome->id = id;
        auto progress = [this, id](double fraction) {
            QMetaObject::invokeMethod(
                this, [this, id, fraction] { emit jobProgress(id, fraction); },
                Qt::QueuedConnection);
        };
        try {
            outcome->transcript = transcribe_audio_file(*model, path, options, progress, &m_cancel);
            outcome->kind = m_cancel.load() ? Outcome::Kind::cancelled : Outcome::Kind::finished;
        } catch (const std::exception& error) {
            outcome->kind = Outcome::Kind::failed;
            outcome->error = QString::fromStdString(error.what());
        }
        QMetaObject::invokeMethod(
            this, [this, outcome] { finishJob(outcome); }, Qt::QueuedConnection);
    });
}

void FilesWorker::finishJob(const std::shared_ptr<Outcome>& outcome) {
    if (m_thread.joinable()) {
        m_thread.join();
    }
    m_running = -1;
    switch (outcome->kind) {
        case Outcome::Kind::finished:
            m_results.insert(outcome->id, outcome->transcript);
            emit jobFinished(outcome->id, segment_rows(outcome->transcript),
                             QString::fromStdString(outcome->transcript.language));
            break;
        case Outcome::Kind::cancelled:
            m_results.insert(outcome->id, outcome->transcript);
            emit jobCancelled(outcome->id, segment_rows(outcome->transcript));
            break;
        case Outcome::Kind::failed:
            emit jobFailed(outcome->id, outcome->error);
            break;
    }
    emit busyChanged(false);
    startNext();
    if (isIdle()) {
        emit idle();
    }
}

}  // namespace earshot::app
