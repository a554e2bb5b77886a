// FilesHistory: each result is <folder>/<ms since 1970>-<file name>.json, written through
// QSaveFile: {"source", "cancelled", "transcript", "tokens"}, the transcript as `earshot
// transcribe` writes its JSON (with each segment's "words" when they were timed) and "tokens"
// the listed rows' tokens, one array per row of {"text", "probability"}. The names sort by age,
// which is what load() and the pruning go by.
#include "gui/files/files_history.h"

#include <QDateTime>
#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QObject>
#include <QSaveFile>
#include <algorithm>
#include <utility>

#include "core/files/transcript_formats.h"
#include "gui/files/files_worker.h"

namespace earshot::app {

namespace {

constexpr int kStampDigits = 15;  // milliseconds since 1970 stay 13 digits until the year 2286

QStringList resultFiles(const QDir& dir) {
    return dir.entryList({QStringLiteral("*.json")}, QDir::Files, QDir::Name);
}

// The stamp of the newest result among `files` (sorted by name), or 0.
qint64 newestStamp(const QStringList& files) {
    for (auto it = files.crbegin(); it != files.crend(); ++it) {
        bool ok = false;
        const qint64 stamp = it->left(it->indexOf(QLatin1Char('-'))).toLongLong(&ok);
        if (ok) return stamp;
    }
    return 0;
}

decoding::Transcript transcriptFromJson(const QJsonObject& json) {
    decoding::Transcript transcript;
    transcript.language = json.value(QStringLiteral("language")).toString().toStdString();
    transcript.text = json.value(QStringLiteral("text")).toString().toStdString();
    for (const QJsonValue& value : json.value(QStringLiteral("segments")).toArray()) {
        const QJsonObject object = value.toObject();
        decoding::Segment segment;
        segment.start_s = object.value(QStringLiteral("start")).toDouble();
        segment.end_s = object.value(QStringLiteral("end")).toDouble();
        segment.text = object.value(QStringLiteral("text")).toString().toStdString();
        for (const QJsonValue& token : object.value(QStringLiteral("tokens")).toArray()) {
            segment.tokens.push_back(static_cast<int32_t>(token.toInteger()));
        }
        segment.avg_logprob = object.value(QStringLiteral("avg_logprob")).toDouble();
        segment.no_speech_prob = object.value(QStringLiteral("no_speech_prob")).toDouble();
        segment.temperature = object.value(QStringLiteral("temperature")).toDouble();
        segment.compression_ratio = object.value(QStringLiteral("compression_ratio")).toDouble();
        // Results kept before word times were have no "words": their segments stay untimed.
        for (const QJsonValue& item : object.value(QStringLiteral("words")).toArray()) {
            const QJsonObject word = item.toObject();
            segment.words.push_back({word.value(QStringLiteral("word")).toString().toStdString(),
                                     word.value(QStringLiteral("start")).toDouble(),
                                     word.value(QStringLiteral("end")).toDouble(),
                                     word.value(QStringLiteral("probability")).toDouble()});
        }
        transcript.segments.push_back(std::move(segment));
    }
    return transcript;
}

QJsonArray tokensToJson(const QList<ui::SegmentRow>& rows) {
    QJsonArray json;
    for (const ui::SegmentRow& row : rows) {
        QJsonArray tokens;
        for (const ui::SegmentToken& token : row.tokens) {
            tokens.append(QJsonObject{{QStringLiteral("text"), token.text},
                                      {QStringLiteral("probability"), token.probability}});
        }
        json.append(tokens);
    }
    return json;
}

// The rows of `transcript`, with the saved tokens when there is one list per row.
QList<ui::SegmentRow> rowsWithTokens(const decoding::Transcript& transcript,
                                     const QJsonArray& saved) {
    QList<ui::SegmentRow> rows = segment_rows(transcript);
    if (saved.size() != rows.size()) {
        return rows;
    }
    for (qsizetype i = 0; i < rows.size(); ++i) {
        for (const QJsonValue& value : saved.at(i).toArray()) {
            const QJsonObject token = value.toObject();
            rows[i].tokens.append({token.value(QStringLiteral("text")).toString(),
                                   token.value(QStringLiteral("probability")).toDouble(-1.0)});
        }
    }
    return rows;
}

}  // namespace

FilesHistory::FilesHistory(QString folder) : m_folder(std::move(folder)) {}

QString FilesHistory::save(const QString& source, const decoding::Transcript& transcript,
                           bool cancelled, int job, const QList<ui::SegmentRow>& rows) {
    QDir dir(m_folder);
    if (!dir.mkpath(QStringLiteral("."))) {
        return QObject::tr("cannot create %1").arg(m_folder);
    }
    const std::string rendered = render_json(transcript);
    QJsonObject entry;
    entry.insert(QStringLiteral("source"), source);
    entry.insert(QStringLiteral("cancelled"), cancelled);
    entry.insert(QStringLiteral("transcript"),
                 QJsonDocument::fromJson(QByteArray::fromStdString(rendered)).object());
    if (std::any_of(rows.begin(), rows.end(),
                    [](const ui::SegmentRow& row) { return !row.tokens.isEmpty(); })) {
        entry.insert(QStringLiteral("tokens"), tokensToJson(rows));
    }

    // Later than every result already there, so that results saved within one millisecond
    // still sort in the order they were saved.
    const QString stamp = QStringLiteral("%1").arg(
        std::max(QDateTime::currentMSecsSinceEpoch(), newestStamp(resultFiles(dir)) + 1),
        kStampDigits, 10, QLatin1Char('0'));
    const QString name = QFileInfo(source).fileName();
    const QString path = dir.filePath(stamp + QLatin1Char('-') + name + QStringLiteral(".json"));
    QSaveFile file(path);
    if (!file.open(QIODevice::WriteOnly)) {
        return QObject::tr("cannot write %1: %2").arg(path, file.errorString());
    }
    file.write(QJsonDocument(entry).toJson(QJsonDocument::Compact));
    if (!file.commit()) {
        return QObject::tr("cannot write %1: %2").arg(path, file.errorString());
    }
    if (job >= 0) {
        m_jobFiles.insert(job, QFileInfo(path).fileName());
    }
    QStringList files = resultFiles(dir);
    while (files.size() > kMaxEntries) {
        dir.remove(files.takeFirst());
    }
    return {};
}

QString FilesHistory::remove(int job) {
    const QString name = m_jobFiles.take(job);
    if (name.isEmpty()) {
        return {};
    }
    QFile file(QDir(m_folder).filePath(name));
    if (file.exists() && !file.remove()) {
        return QObject::tr("cannot delete %1: %2").arg(file.fileName(), file.errorString());
    }
    return {};
}

std::vector<FilesHistoryEntry> FilesHistory::load() const {
    std::vector<FilesHistoryEntry> entries;
    const QDir dir(m_folder);
    for (const QString& name : resultFiles(dir)) {
        QFile file(dir.filePath(name));
        if (!file.open(QIODevice::ReadOnly)) {
            continue;
        }
        const QJsonObject json = QJsonDocument::fromJson(file.readAll()).object();
        if (!json.value(QStringLiteral("transcript")).isObject()) {
            continue;
        }
        decoding::Transcript transcript =
            transcriptFromJson(json.value(QStringLiteral("transcript")).toObject());
        QList<ui::SegmentRow> rows =
            rowsWithTokens(transcript, json.value(QStringLiteral("tokens")).toArray());
        entries.push_back({json.value(QStringLiteral("source")).toString(),
                           json.value(QStringLiteral("cancelled")).toBool(), std::move(transcript),
                           std::move(rows), name});
    }
    return entries;
}

}  // namespace earshot::app
