// Tests for the Files page: queueing by call and by drop, per-file progress bars, states, the
// segment table of a result with the clicked segment's times, cancel and export requests.
#include "earshot/ui/files/files_panel.h"

#include <gtest/gtest.h>

#include <QFile>
#include <QLabel>
#include <QMimeData>
#include <QProgressBar>
#include <QPushButton>
#include <QSignalSpy>
#include <QTableWidget>
#include <QTemporaryDir>
#include <QTest>
#include <QUrl>

#include "ink_pixels.h"

namespace earshot::ui {
namespace {

QList<SegmentRow> jfkLikeSegments() {
    return {{0.0, 4.2, QStringLiteral("And so my fellow Americans,")},
            {4.2, 7.88, QStringLiteral("ask not what your country can do for you,")},
            {7.88, 11.0, QStringLiteral("ask what you can do for your country.")}};
}

TEST(SegmentTime, MinutesSecondsMilliseconds) {
    EXPECT_EQ(formatSegmentTime(0.0), QStringLiteral("00:00.000"));
    EXPECT_EQ(formatSegmentTime(7.88), QStringLiteral("00:07.880"));
    EXPECT_EQ(formatSegmentTime(65.2504), QStringLiteral("01:05.250"));
    EXPECT_EQ(formatSegmentTime(3725.5), QStringLiteral("1:02:05.500"));
    EXPECT_EQ(formatSegmentTime(-1.0), QStringLiteral("00:00.000"));
}

TEST(FilesPanel, QueuesFilesWithProgressBars) {
    FilesPanel panel;
    QSignalSpy queued(&panel, &FilesPanel::jobQueued);
    const QList<int> ids =
        panel.addFiles({QStringLiteral("/audio/a.wav"), QStringLiteral("/audio/b.mp3")});
    ASSERT_EQ(ids.size(), 2);
    EXPECT_NE(ids[0], ids[1]);
    ASSERT_EQ(queued.count(), 2);
    EXPECT_EQ(queued.at(0).at(0).toInt(), ids[0]);
    EXPECT_EQ(queued.at(1).at(1).toString(), QStringLiteral("/audio/b.mp3"));
    EXPECT_EQ(panel.jobIds(), ids);
    EXPECT_EQ(panel.queueTable()->rowCount(), 2);
    EXPECT_EQ(panel.queueTable()->item(1, 0)->text(), QStringLiteral("b.mp3"));
    EXPECT_EQ(panel.queueTable()->item(1, 2)->text(), QStringLiteral("Queued"));
    EXPECT_EQ(panel.jobState(ids[0]), FileJobState::queued);

    panel.setJobRunning(ids[0]);
    panel.setJobProgress(ids[0], 0.25);
    ASSERT_NE(panel.progressBar(ids[0]), nullptr);
    EXPECT_EQ(panel.progressBar(ids[0])->value(), 250);
    EXPECT_EQ(panel.progressBar(ids[0])->maximum(), 1000);
    EXPECT_EQ(panel.progressBar(ids[1])->value(), 0);
    EXPECT_EQ(panel.jobState(ids[0]), FileJobState::running);
    EXPECT_EQ(panel.queueTable()->item(0, 2)->text(), QStringLiteral("Transcribing"));

    panel.setJobFinished(ids[0], jfkLikeSegments(), QStringLiteral("en"));
    EXPECT_EQ(panel.jobState(ids[0]), FileJobState::done);
    EXPECT_EQ(panel.progressBar(ids[0])->value(), 1000);
    EXPECT_EQ(panel.queueTable()->item(0, 2)->text(),
              QStringLiteral("Done: 3 segment(s), language en"));

    panel.setJobFailed(ids[1], QStringLiteral("b.mp3: no audio stream"));
    EXPECT_EQ(panel.jobState(ids[1]), FileJobState::failed);
    EXPECT_EQ(panel.queueTable()->item(1, 2)->text(),
              QStringLiteral("Failed: b.mp3: no audio stream"));
}

TEST(FilesPanel, ClickingASegmentShowsItsTimes) {
    FilesPanel panel;
    panel.resize(800, 600);
    panel.show();
    ASSERT_TRUE(QTest::qWaitForWindowExposed(&panel));
    const int id = panel.addFiles({QStringLiteral("/audio/jfk.wav")}).first();
    EXPECT_EQ(panel.selectedJob(), id);  // the first file is selected when queued
    EXPECT_EQ(panel.segmentTable()->rowCount(), 0);
    panel.setJobFinished(id, jfkLikeSegments(), QStringLiteral("en"));

    QTableWidget* table = panel.segmentTable();
    ASSERT_EQ(table->rowCount(), 3);
    EXPECT_EQ(table->item(1, 0)->text(), QStringLiteral("00:04.200"));
    EXPECT_EQ(table->item(1, 1)->text(), QStringLiteral("00:07.880"));
    EXPECT_EQ(table->item(1, 2)->text(),
              QStringLiteral("ask not what your country can do for you,"));

    const QRect cell = table->visualItemRect(table->item(1, 2));
    QTest::mouseClick(table->viewport(), Qt::LeftButton, {}, cell.center());
    EXPECT_EQ(panel.segmentTimeLabel()->text(),
              QStringLiteral("Segment 2: 00:04.200 → 00:07.880 (3.68 s)"));
    EXPECT_GT(test::countInkPixels(table->viewport()->grab().toImage()), 300);
}

TEST(FilesPanel, CancelRequestsTheSelectedJob) {
    FilesPanel panel;
    const QList<int> ids =
        panel.addFiles({QStringLiteral("/audio/a.wav"), QStringLiteral("/audio/b.wav")});
    QSignalSpy cancels(&panel, &FilesPanel::cancelRequested);
    auto* cancel = panel.findChild<QPushButton*>(QStringLiteral("cancelFileButton"));
    ASSERT_NE(cancel, nullptr);
    panel.selectJob(ids[1]);
    EXPECT_TRUE(cancel->isEnabled());
    cancel->click();
    ASSERT_EQ(cancels.count(), 1);
    EXPECT_EQ(cancels.at(0).at(0).toInt(), ids[1]);

    // A cancelled job keeps what it had and can be exported; it cannot be cancelled again.
    panel.setJobCancelled(ids[1], jfkLikeSegments().mid(0, 1));
    EXPECT_EQ(panel.jobState(ids[1]), FileJobState::cancelled);
    EXPECT_EQ(panel.segmentTable()->rowCount(), 1);
    EXPECT_FALSE(cancel->isEnabled());
    auto* exportButton = panel.findChild<QPushButton*>(QStringLiteral("exportButton"));
    ASSERT_NE(exportButton, nullptr);
    EXPECT_TRUE(exportButton->isEnabled());
    panel.selectJob(ids[0]);
    EXPECT_FALSE(exportButton->isEnabled());  // still queued: nothing to export
}

TEST(FilesPanel, DroppedFilesAreQueued) {
    QTemporaryDir dir;
    ASSERT_TRUE(dir.isValid());
    const QString audio = dir.filePath(QStringLiteral("dropped.wav"));
    QFile file(audio);
    ASSERT_TRUE(file.open(QIODevice::WriteOnly));
    file.write("RIFF");
    file.close();

    FilesPanel panel;
    QSignalSpy queued(&panel, &FilesPanel::jobQueued);
    QMimeData mime;
    mime.setUrls({QUrl::fromLocalFile(audio), QUrl::fromLocalFile(dir.path()),
                  QUrl(QStringLiteral("https://example.org/remote.wav"))});
    QDragEnterEvent enter(QPoint(10, 10), Qt::CopyAction, &mime, Qt::LeftButton, Qt::NoModifier);
    QCoreApplication::sendEvent(&panel, &enter);
    EXPECT_TRUE(enter.isAccepted());
    QDropEvent drop(QPointF(10, 10), Qt::CopyAction, &mime, Qt::LeftButton, Qt::NoModifier);
    QCoreApplication::sendEvent(&panel, &drop);
    // Only the local file: not the folder, not the remote URL.
    ASSERT_EQ(queued.count(), 1);
    EXPECT_EQ(queued.at(0).at(1).toString(), audio);

    QMimeData text;
    text.setText(QStringLiteral("not a file"));
    QDragEnterEvent refused(QPoint(10, 10), Qt::CopyAction, &text, Qt::LeftButton, Qt::NoModifier);
    QCoreApplication::sendEvent(&panel, &refused);
    EXPECT_FALSE(refused.isAccepted());
}

}  // namespace
}  // namespace earshot::ui
