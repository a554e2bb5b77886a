// FilesHistory: a result saved is loaded back with every field, in the order saved; only the
// newest FilesHistory::kMaxEntries are kept; unreadable files are skipped; a job's result, saved
// or loaded, can be removed for good.
#include <gtest/gtest.h>

#include <QDateTime>
#include <QDir>
#include <QFile>
#include <QString>

#include "gui/files/files_history.h"
#include "segment_fields.h"
#include "temp_dir.h"

namespace earshot::test {
namespace {

decoding::Transcript twoSegments() {
    decoding::Transcript transcript;
    transcript.language = "de";
    transcript.text = " Guten Tag. Grüße!";
    transcript.segments.push_back(
        segment(0.0, 1.5, " Guten Tag.", {50364, 12, 50439}, -0.25, 0.01, 0.0, 1.2));
    transcript.segments.push_back(
        segment(1.5, 3.25, " Grüße!", {50439, 34, 56, 50527}, -0.5, 0.02, 0.2, 0.9));
    return transcript;
}

TEST(FilesHistory, SavedResultsLoadBackWithEveryField) {
    const TempDir dir("earshot-files-history");
    const QString folder = QString::fromStdString((dir.path() / "results").string());
    app::FilesHistory history(folder);
    EXPECT_TRUE(history.load().empty());
    ASSERT_EQ(history.save(QStringLiteral("/audio/talk.mp3"), twoSegments(), false), QString());
    decoding::Transcript partial = twoSegments();
    partial.segments.resize(1);
    ASSERT_EQ(history.save(QStringLiteral("/audio/talk.mp3"), partial, true), QString());

    const std::vector<app::FilesHistoryEntry> entries = app::FilesHistory(folder).load();
    ASSERT_EQ(entries.size(), 2u);
    EXPECT_EQ(entries[0].source, QStringLiteral("/audio/talk.mp3"));
    EXPECT_FALSE(entries[0].cancelled);
    EXPECT_TRUE(entries[1].cancelled);
    ASSERT_EQ(entries[1].transcript.segments.size(), 1u);
    const decoding::Transcript& loaded = entries[0].transcript;
    const decoding::Transcript expected = twoSegments();
    EXPECT_EQ(loaded.language, "de");
    EXPECT_EQ(loaded.text, expected.text);
    ASSERT_EQ(loaded.segments.size(), 2u);
    for (size_t i = 0; i < 2; ++i) {
        const decoding::Segment& a = loaded.segments[i];
        const decoding::Segment& b = expected.segments[i];
        EXPECT_EQ(a.text, b.text);
        EXPECT_EQ(a.tokens, b.tokens);
        EXPECT_DOUBLE_EQ(a.start_s, b.start_s);
        EXPECT_DOUBLE_EQ(a.end_s, b.end_s);
        EXPECT_DOUBLE_EQ(a.avg_logprob, b.avg_logprob);
        EXPECT_DOUBLE_EQ(a.no_speech_prob, b.no_speech_prob);
        EXPECT_DOUBLE_EQ(a.temperature, b.temperature);
        EXPECT_DOUBLE_EQ(a.compression_ratio, b.compression_ratio);
    }
}

// Results load in the order they were saved, whatever their names: the file names start with
// the time, and results saved within one millisecond, or after the clock went back, must not sort
// "alpha" before "zeta". A result kept from a clock an hour ahead stands for both.
TEST(FilesHistory, ResultsLoadInTheOrderSavedWhenTheClockDoesNotAdvance) {
    const TempDir dir("earshot-files-history");
    const QString folder = QString::fromStdString((dir.path() / "results").string());
    {
        const QString elsewhere = QString::fromStdString((dir.path() / "elsewhere").string());
        ASSERT_EQ(
            app::FilesHistory(elsewhere).save(QStringLiteral("/a/early.wav"), twoSegments(), false),
            QString());
        const QStringList saved = QDir(elsewhere).entryList({QStringLiteral("*.json")});
        ASSERT_EQ(saved.size(), 1);
        const qint64 ahead_ms = QDateTime::currentMSecsSinceEpoch() + 3'600'000;
        ASSERT_TRUE(QDir().mkpath(folder));
        ASSERT_TRUE(QFile::rename(
            QDir(elsewhere).filePath(saved[0]),
            QDir(folder).filePath(
                QStringLiteral("%1-early.wav.json").arg(ahead_ms, 15, 10, QLatin1Char('0')))));
    }
    app::FilesHistory history(folder);
    const QStringList sources{QStringLiteral("/a/zeta.wav"), QStringLiteral("/a/beta.wav"),
                              QStringLiteral("/a/alpha.wav"), QStringLiteral("/a/beta.wav")};
    for (const QString& source : sources) {
        ASSERT_EQ(history.save(source, twoSegments(), false), QString());
    }
    const std::vector<app::FilesHistoryEntry> entries = history.load();
    ASSERT_EQ(entries.size(), 5u);
    EXPECT_EQ(entries[0].source, QStringLiteral("/a/early.wav"));
    for (size_t i = 1; i < entries.size(); ++i) {
        EXPECT_EQ(entries[i].source, sources[static_cast<qsizetype>(i - 1)]) << i;
    }
}

TEST(FilesHistory, KeepsTheNewestAndSkipsUnreadableFiles) {
    const TempDir dir("earshot-files-history");
    const QString folder = QString::fromStdString(dir.path().string());
    app::FilesHistory history(folder);
    for (int i = 0; i < app::FilesHistory::kMaxEntries + 3; ++i) {
        decoding::Transcript transcript;
        transcript.text = std::to_string(i);
        ASSERT_EQ(history.save(QStringLiteral("/audio/%1.wav").arg(i), transcript, false),
                  QString());
    }
    QFile broken(QDir(folder).filePath(QStringLiteral("999999999999999-broken.json")));
    ASSERT_TRUE(broken.open(QIODevice::WriteOnly));
    broken.write("{ not json");
    broken.close();

    const std::vector<app::FilesHistoryEntry> entries = history.load();
    ASSERT_EQ(entries.size(), static_cast<size_t>(app::FilesHistory::kMaxEntries));
    EXPECT_EQ(entries.front().source, QStringLiteral("/audio/3.wav"));  // 0, 1 and 2 are gone
    EXPECT_EQ(entries.back().transcript.text, std::to_string(app::FilesHistory::kMaxEntries + 2));
}

TEST(FilesHistory, RemovesAJobsResultSavedOrLoaded) {
    const TempDir dir("earshot-files-history");
    const QString folder = QString::fromStdString(dir.path().string());
    {
        app::FilesHistory history(folder);
        ASSERT_EQ(history.save(QStringLiteral("/audio/a.wav"), twoSegments(), false, 7), QString());
        ASSERT_EQ(history.save(QStringLiteral("/audio/b.wav"), twoSegments(), false, 8), QString());
        ASSERT_EQ(history.save(QStringLiteral("/audio/c.wav"), twoSegments(), true), QString());
        EXPECT_EQ(history.remove(7), QString());
        EXPECT_EQ(history.remove(7), QString());   // already gone
        EXPECT_EQ(history.remove(42), QString());  // never saved: nothing to do
        ASSERT_EQ(history.load().size(), 2u);
        EXPECT_EQ(history.load().front().source, QStringLiteral("/audio/b.wav"));
    }
    // After a restart: the loaded entries name their files, and attach() makes them removable.
    app::FilesHistory history(folder);
    const std::vector<app::FilesHistoryEntry> entries = history.load();
    ASSERT_EQ(entries.size(), 2u);
    EXPECT_TRUE(entries[1].file.endsWith(QStringLiteral("-c.wav.json")))
        << entries[1].file.toStdString();
    history.attach(3, entries[1].file);
    EXPECT_EQ(history.remove(3), QString());
    const std::vector<app::FilesHistoryEntry> left = history.load();
    ASSERT_EQ(left.size(), 1u);
    EXPECT_EQ(left[0].source, QStringLiteral("/audio/b.wav"));
    EXPECT_EQ(QDir(folder).entryList(QDir::Files).size(), 1);
}

}  // namespace
}  // namespace earshot::test
