// Tests for the Files page: queueing by call and by drop, per-file progress bars, states, the
// segment table of a result with the clicked segment's times (filled while the file runs), cancel,
// remove, clear finished, export and export all requests, the names export all gives. The page
// shows its FilesQueue: the tests change the queue as the app does and read what the page shows.
#include "earshot/ui/files/files_panel.h"

#include <gtest/gtest.h>

#include <QApplication>
#include <QCheckBox>
#include <QDialogButtonBox>
#include <QFile>
#include <QLabel>
#include <QLineEdit>
#include <QMessageBox>
#include <QMimeData>
#include <QProgressBar>
#include <QPushButton>
#include <QSignalSpy>
#include <QTableWidget>
#include <QTemporaryDir>
#include <QTest>
#include <QTimer>
#include <QUrl>

#include "earshot/ui/files/distinct_file_names.h"
#include "earshot/ui/files/export_all_dialog.h"
#include "earshot/ui/files/export_targets.h"
#include "earshot/ui/files/files_queue.h"
#include "ink_pixels.h"

namespace earshot::ui {
namespace {

QList<SegmentRow> jfkLikeSegments() {
    return {{0.0, 4.2, QStringLiteral("And so my fellow Americans,"), {}},
            {4.2, 7.88, QStringLiteral("ask not what your country can do for you,"), {}},
            {7.88, 11.0, QStringLiteral("ask what you can do for your country."), {}}};
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
    QSignalSpy queued(panel.queue(), &FilesQueue::jobQueued);
    const QList<int> ids =
        panel.queue()->addFiles({QStringLiteral("/audio/a.wav"), QStringLiteral("/audio/b.mp3")});
    ASSERT_EQ(ids.size(), 2);
    EXPECT_NE(ids[0], ids[1]);
    ASSERT_EQ(queued.count(), 2);
    EXPECT_EQ(queued.at(0).at(0).toInt(), ids[0]);
    EXPECT_EQ(queued.at(1).at(1).toString(), QStringLiteral("/audio/b.mp3"));
    EXPECT_EQ(panel.queue()->jobIds(), ids);
    EXPECT_EQ(panel.queueTable()->rowCount(), 2);
    EXPECT_EQ(panel.queueTable()->item(1, 0)->text(), QStringLiteral("b.mp3"));
    EXPECT_EQ(panel.queueTable()->item(1, 2)->text(), QStringLiteral("Queued"));
    EXPECT_EQ(panel.queue()->jobState(ids[0]), FileJobState::queued);

    panel.queue()->setJobRunning(ids[0]);
    panel.queue()->setJobProgress(ids[0], 0.25);
    ASSERT_NE(panel.progressBar(ids[0]), nullptr);
    EXPECT_EQ(panel.progressBar(ids[0])->value(), 250);
    EXPECT_EQ(panel.progressBar(ids[0])->maximum(), 1000);
    EXPECT_EQ(panel.progressBar(ids[1])->value(), 0);
    EXPECT_EQ(panel.queue()->jobState(ids[0]), FileJobState::running);
    EXPECT_EQ(panel.queueTable()->item(0, 2)->text(), QStringLiteral("Transcribing"));
    // Paused for dictation, the row says so, and goes back after (before: "Transcribing").
    panel.queue()->setJobPaused(ids[0], true);
    EXPECT_EQ(panel.queueTable()->item(0, 2)->text(), QStringLiteral("Paused while you dictate"));
    EXPECT_EQ(panel.queue()->jobState(ids[0]), FileJobState::running);
    panel.queue()->setJobPaused(ids[0], false);
    EXPECT_EQ(panel.queueTable()->item(0, 2)->text(), QStringLiteral("Transcribing"));
    panel.queue()->setJobPaused(ids[1], true);  // a queued job is not running: nothing changes
    EXPECT_EQ(panel.queueTable()->item(1, 2)->text(), QStringLiteral("Queued"));

    panel.queue()->setJobFinished(ids[0], jfkLikeSegments(), QStringLiteral("en"));
    EXPECT_EQ(panel.queue()->jobState(ids[0]), FileJobState::done);
    EXPECT_EQ(panel.progressBar(ids[0])->value(), 1000);
    EXPECT_EQ(panel.queueTable()->item(0, 2)->text(),
              QStringLiteral("Done: 3 segments, language en"));

    panel.queue()->setJobFailed(ids[1], QStringLiteral("b.mp3: no audio stream"));
    EXPECT_EQ(panel.queue()->jobState(ids[1]), FileJobState::failed);
    EXPECT_EQ(panel.queueTable()->item(1, 2)->text(),
              QStringLiteral("Failed: b.mp3: no audio stream"));
}

TEST(FilesPanel, ClickingASegmentShowsItsTimes) {
    FilesPanel panel;
    panel.resize(800, 600);
    panel.show();
    ASSERT_TRUE(QTest::qWaitForWindowExposed(&panel));
    const int id = panel.queue()->addFiles({QStringLiteral("/audio/jfk.wav")}).first();
    EXPECT_EQ(panel.selectedJob(), id);  // the first file is selected when queued
    EXPECT_EQ(panel.segmentTable()->rowCount(), 0);
    panel.queue()->setJobFinished(id, jfkLikeSegments(), QStringLiteral("en"));

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
        panel.queue()->addFiles({QStringLiteral("/audio/a.wav"), QStringLiteral("/audio/b.wav")});
    QSignalSpy cancels(&panel, &FilesPanel::cancelRequested);
    auto* cancel = panel.findChild<QPushButton*>(QStringLiteral("cancelFileButton"));
    ASSERT_NE(cancel, nullptr);
    panel.selectJob(ids[1]);
    EXPECT_TRUE(cancel->isEnabled());
    cancel->click();
    ASSERT_EQ(cancels.count(), 1);
    EXPECT_EQ(cancels.at(0).at(0).toInt(), ids[1]);

    // A cancelled job keeps what it had and can be exported; it cannot be cancelled again.
    panel.queue()->setJobCancelled(ids[1], jfkLikeSegments().mid(0, 1));
    EXPECT_EQ(panel.queue()->jobState(ids[1]), FileJobState::cancelled);
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
    QSignalSpy queued(panel.queue(), &FilesQueue::jobQueued);
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

TEST(FilesPanel, CountsSegmentsInSingularAndPlural) {
    EXPECT_EQ(segmentCount(0), QStringLiteral("0 segments"));
    EXPECT_EQ(segmentCount(1), QStringLiteral("1 segment"));
    EXPECT_EQ(segmentCount(3), QStringLiteral("3 segments"));

    FilesPanel panel;
    const QList<int> ids = panel.queue()->addFiles(
        {QStringLiteral("/audio/one.wav"), QStringLiteral("/audio/cut.wav")});
    panel.queue()->setJobFinished(ids[0], jfkLikeSegments().mid(0, 1), QStringLiteral("en"));
    EXPECT_EQ(panel.queueTable()->item(0, 2)->text(),
              QStringLiteral("Done: 1 segment, language en"));
    EXPECT_EQ(panel.resultTitle()->text(), QStringLiteral("one.wav: 1 segment · language en"));
    panel.queue()->setJobRunning(ids[1]);
    panel.queue()->setJobCancelled(ids[1], jfkLikeSegments().mid(0, 1));
    EXPECT_EQ(panel.queueTable()->item(1, 2)->text(), QStringLiteral("Cancelled after 1 segment"));
}

// Each window's segments are listed while the file is still being transcribed.
TEST(FilesPanel, RunningJobShowsSegmentsAsTheyCome) {
    FilesPanel panel;
    panel.resize(800, 600);
    panel.show();
    ASSERT_TRUE(QTest::qWaitForWindowExposed(&panel));
    const QList<int> ids = panel.queue()->addFiles(
        {QStringLiteral("/audio/jfk.wav"), QStringLiteral("/audio/next.wav")});
    EXPECT_EQ(panel.selectedJob(), ids[0]);
    panel.queue()->setJobRunning(ids[0]);
    EXPECT_EQ(panel.segmentTable()->rowCount(), 0);

    const QList<SegmentRow> all = jfkLikeSegments();
    panel.queue()->appendJobSegments(ids[0], all.mid(0, 2));
    EXPECT_EQ(panel.queue()->jobState(ids[0]), FileJobState::running);
    ASSERT_EQ(panel.segmentTable()->rowCount(), 2);
    EXPECT_EQ(panel.segmentTable()->item(1, 0)->text(), QStringLiteral("00:04.200"));
    EXPECT_EQ(panel.segmentTable()->item(1, 2)->text(), all[1].text);
    EXPECT_EQ(panel.resultTitle()->text(),
              QStringLiteral("jfk.wav is being transcribed… 2 segments so far"));
    EXPECT_EQ(panel.queueTable()->item(0, 2)->text(),
              QStringLiteral("Transcribing: 2 segments so far"));
    panel.queue()->appendJobSegments(ids[0], all.mid(2, 1));
    ASSERT_EQ(panel.segmentTable()->rowCount(), 3);
    EXPECT_EQ(panel.segmentTable()->item(2, 2)->text(), all[2].text);
    // A running row's segments can be clicked like a finished one's.
    const QRect cell = panel.segmentTable()->visualItemRect(panel.segmentTable()->item(2, 2));
    QTest::mouseClick(panel.segmentTable()->viewport(), Qt::LeftButton, {}, cell.center());
    EXPECT_EQ(panel.segmentTimeLabel()->text(),
              QStringLiteral("Segment 3: 00:07.880 → 00:11.000 (3.12 s)"));

    // Selecting another row and back shows what the running job has so far.
    const QTableWidget* queue = panel.queueTable();
    QTest::mouseClick(queue->viewport(), Qt::LeftButton, {},
                      queue->visualItemRect(queue->item(1, 0)).center());
    EXPECT_EQ(panel.segmentTable()->rowCount(), 0);
    QTest::mouseClick(queue->viewport(), Qt::LeftButton, {},
                      queue->visualItemRect(queue->item(0, 0)).center());
    EXPECT_EQ(panel.segmentTable()->rowCount(), 3);

    // Segments for a job that is not running are ignored; the final result replaces the rows.
    panel.queue()->appendJobSegments(ids[1], all);
    EXPECT_TRUE(panel.queue()->jobSegments(ids[1]).isEmpty());
    panel.queue()->setJobFinished(ids[0], all, QStringLiteral("en"));
    EXPECT_EQ(panel.segmentTable()->rowCount(), 3);
    EXPECT_EQ(panel.queue()->jobSegments(ids[0]).size(), 3);
}

// Remove takes the selected rows (a running one too) off the list and says which.
TEST(FilesPanel, RemoveTakesTheSelectedRows) {
    FilesPanel panel;
    panel.resize(800, 600);
    panel.show();
    ASSERT_TRUE(QTest::qWaitForWindowExposed(&panel));
    const QList<int> ids =
        panel.queue()->addFiles({QStringLiteral("/audio/a.wav"), QStringLiteral("/audio/b.wav"),
                                 QStringLiteral("/audio/c.wav"), QStringLiteral("/audio/d.wav")});
    panel.queue()->setJobRunning(ids[0]);
    panel.queue()->setJobFinished(ids[2], jfkLikeSegments(), QStringLiteral("en"));
    QSignalSpy removed(panel.queue(), &FilesQueue::jobsRemoved);
    auto* remove = panel.findChild<QPushButton*>(QStringLiteral("removeFileButton"));
    ASSERT_NE(remove, nullptr);

    // Click the running a.wav, Ctrl+click the finished c.wav.
    QTableWidget* queue = panel.queueTable();
    QTest::mouseClick(queue->viewport(), Qt::LeftButton, {},
                      queue->visualItemRect(queue->item(0, 0)).center());
    QTest::mouseClick(queue->viewport(), Qt::LeftButton, Qt::ControlModifier,
                      queue->visualItemRect(queue->item(2, 0)).center());
    EXPECT_EQ(panel.selectedJobs(), (QList<int>{ids[0], ids[2]}));
    EXPECT_EQ(panel.segmentTable()->rowCount(), 3);  // c.wav's result is shown
    ASSERT_TRUE(remove->isEnabled());
    QTest::mouseClick(remove, Qt::LeftButton);

    ASSERT_EQ(removed.count(), 1);
    EXPECT_EQ(removed.at(0).at(0).value<QList<int>>(), (QList<int>{ids[0], ids[2]}));
    EXPECT_EQ(panel.queue()->jobIds(), (QList<int>{ids[1], ids[3]}));
    ASSERT_EQ(queue->rowCount(), 2);
    EXPECT_EQ(queue->item(0, 0)->text(), QStringLiteral("b.wav"));
    EXPECT_EQ(queue->item(1, 0)->text(), QStringLiteral("d.wav"));
    EXPECT_EQ(panel.queue()->unfinishedJobs(), 2);
    // The removed result is no longer shown; a remaining row is.
    EXPECT_EQ(panel.segmentTable()->rowCount(), 0);
    EXPECT_TRUE(panel.resultTitle()->text().endsWith(QStringLiteral("is waiting in the queue.")))
        << panel.resultTitle()->text().toStdString();
    // Late reports about a removed job change nothing.
    panel.queue()->setJobCancelled(ids[0], jfkLikeSegments());
    panel.queue()->appendJobSegments(ids[0], jfkLikeSegments());
    EXPECT_EQ(queue->rowCount(), 2);

    // Removing everything leaves an empty page with nothing to remove.
    queue->selectAll();
    QTest::mouseClick(remove, Qt::LeftButton);
    EXPECT_EQ(queue->rowCount(), 0);
    EXPECT_EQ(panel.resultTitle()->text(),
              QStringLiteral("Select a finished file to see its segments."));
    EXPECT_FALSE(remove->isEnabled());
}

TEST(FilesPanel, ClearFinishedKeepsQueuedAndRunning) {
    FilesPanel panel;
    const QList<int> ids = panel.queue()->addFiles(
        {QStringLiteral("/audio/done.wav"), QStringLiteral("/audio/failed.wav"),
         QStringLiteral("/audio/running.wav"), QStringLiteral("/audio/cancelled.wav"),
         QStringLiteral("/audio/queued.wav")});
    auto* clear = panel.findChild<QPushButton*>(QStringLiteral("clearFinishedButton"));
    ASSERT_NE(clear, nullptr);
    EXPECT_FALSE(clear->isEnabled());  // nothing finished yet
    panel.queue()->setJobFinished(ids[0], jfkLikeSegments(), QStringLiteral("en"));
    panel.queue()->setJobFailed(ids[1], QStringLiteral("no audio stream"));
    panel.queue()->setJobRunning(ids[2]);
    panel.queue()->setJobCancelled(ids[3], {});
    EXPECT_TRUE(clear->isEnabled());
    QSignalSpy removed(panel.queue(), &FilesQueue::jobsRemoved);

    // It asks first, saying what goes; Cancel keeps everything.
    QTest::mouseClick(clear, Qt::LeftButton);
    auto* confirm = panel.findChild<QMessageBox*>(QStringLiteral("clearFinishedConfirm"));
    ASSERT_NE(confirm, nullptr);
    EXPECT_EQ(confirm->text(), QStringLiteral("Take 3 finished files off the list?"));
    EXPECT_EQ(confirm->informativeText(),
              QStringLiteral("2 transcripts are deleted from Earshot (exported files stay). 1 "
                             "failed file and its error go from the list. The audio files are "
                             "not touched."));
    QTest::mouseClick(confirm->button(QMessageBox::Cancel), Qt::LeftButton);
    QCoreApplication::sendPostedEvents(nullptr, QEvent::DeferredDelete);
    EXPECT_EQ(removed.count(), 0);
    EXPECT_EQ(panel.queue()->jobIds().size(), 5);
    EXPECT_EQ(panel.findChild<QMessageBox*>(QStringLiteral("clearFinishedConfirm")), nullptr);

    QTest::mouseClick(clear, Qt::LeftButton);
    confirm = panel.findChild<QMessageBox*>(QStringLiteral("clearFinishedConfirm"));
    ASSERT_NE(confirm, nullptr);
    QTest::mouseClick(
        confirm->findChild<QPushButton*>(QStringLiteral("clearFinishedConfirmButton")),
        Qt::LeftButton);
    ASSERT_EQ(removed.count(), 1);
    EXPECT_EQ(removed.at(0).at(0).value<QList<int>>(), (QList<int>{ids[0], ids[1], ids[3]}));
    EXPECT_EQ(panel.queue()->jobIds(), (QList<int>{ids[2], ids[4]}));
    EXPECT_EQ(panel.queueTable()->item(0, 0)->text(), QStringLiteral("running.wav"));
    EXPECT_FALSE(clear->isEnabled());
}

TEST(DistinctFileNames, AddsParentFoldersOnlyWhereNamesAreShared) {
    EXPECT_EQ(
        distinctFileNames({QStringLiteral("/rec/a/speech.wav"), QStringLiteral("/rec/b/speech.wav"),
                           QStringLiteral("/rec/talk.mp3"), QStringLiteral("/x/a/speech.wav")}),
        (QStringList{QStringLiteral("/rec/a/speech.wav"), QStringLiteral("b/speech.wav"),
                     QStringLiteral("talk.mp3"), QStringLiteral("/x/a/speech.wav")}));
    // The same file twice keeps its short name; a file at the root is written as a path.
    EXPECT_EQ(distinctFileNames({QStringLiteral("/in/a.wav"), QStringLiteral("/in//a.wav"),
                                 QStringLiteral("/a.wav")}),
              (QStringList{QStringLiteral("/in/a.wav"), QStringLiteral("/in/a.wav"),
                           QStringLiteral("/a.wav")}));
    EXPECT_EQ(distinctFileNames({QStringLiteral("/in/a.wav"), QStringLiteral("/in/a.wav")}),
              (QStringList{QStringLiteral("a.wav"), QStringLiteral("a.wav")}));
    EXPECT_TRUE(distinctFileNames({}).isEmpty());
}

// Two queued files of the same name are told apart by their folders, in the row and the title;
// when one goes, the other's name is short again.
TEST(FilesPanel, FilesOfTheSameNameAreToldApart) {
    FilesPanel panel;
    const QList<int> ids = panel.queue()->addFiles({QStringLiteral("/rec/monday/speech.wav"),
                                                    QStringLiteral("/rec/tuesday/speech.wav"),
                                                    QStringLiteral("/rec/other.wav")});
    const QTableWidget* queue = panel.queueTable();
    EXPECT_EQ(queue->item(0, 0)->text(), QStringLiteral("monday/speech.wav"));
    EXPECT_EQ(queue->item(1, 0)->text(), QStringLiteral("tuesday/speech.wav"));
    EXPECT_EQ(queue->item(2, 0)->text(), QStringLiteral("other.wav"));
    panel.queue()->setJobFailed(ids[1],
                                QStringLiteral("/rec/tuesday/speech.wav: a text file, not audio "
                                               "or video (ASCII text)"));
    panel.selectJob(ids[1]);
    // The row names the file: its status gives only the problem.
    EXPECT_EQ(queue->item(1, 2)->text(),
              QStringLiteral("Failed: a text file, not audio or video (ASCII text)"));
    EXPECT_EQ(panel.resultTitle()->text(),
              QStringLiteral("tuesday/speech.wav failed: a text file, not audio or video (ASCII "
                             "text)"));
    panel.queue()->removeJobs({ids[0]});
    EXPECT_EQ(queue->item(0, 0)->text(), QStringLiteral("speech.wav"));
    EXPECT_EQ(panel.resultTitle()->text(),
              QStringLiteral("speech.wav failed: a text file, not audio or video (ASCII text)"));
}

// The queue keeps room for five rows however the window is sized.
TEST(FilesPanel, TheQueueShowsFiveRows) {
    FilesPanel panel;
    panel.resize(900, 420);
    panel.queue()->addFiles({QStringLiteral("/a/1.wav"), QStringLiteral("/a/2.wav"),
                             QStringLiteral("/a/3.wav"), QStringLiteral("/a/4.wav"),
                             QStringLiteral("/a/5.wav"), QStringLiteral("/a/6.wav")});
    panel.show();
    QCoreApplication::processEvents();
    const QTableWidget* queue = panel.queueTable();
    EXPECT_GE(queue->viewport()->height(), 5 * queue->rowHeight(0) - 1)
        << queue->viewport()->height() << " px for rows of " << queue->rowHeight(0) << " px";
}

TEST(ExportTargets, NamesEachResultAfterItsFileWithoutCollisions) {
    const QList<ExportTarget> targets =
        exportTargets({{1, QStringLiteral("/in/talk.mp3")},
                       {2, QStringLiteral("/in/a.mp3")},
                       {3, QStringLiteral("/in/a.ogg")},
                       {4, QStringLiteral("/other/a.ogg")},
                       {5, QStringLiteral("/in/A.wav")},
                       {6, QStringLiteral("/in/notes.v2.flac")}},
                      {QStringLiteral("srt"), QStringLiteral("txt")}, QStringLiteral("/out"));
    QStringList paths;
    for (const ExportTarget& target : targets) {
        paths.append(QStringLiteral("%1 %2 %3").arg(target.id).arg(target.format, target.path));
    }
    EXPECT_EQ(
        paths,
        (QStringList{
            QStringLiteral("1 srt /out/talk.srt"), QStringLiteral("1 txt /out/talk.txt"),
            QStringLiteral("2 srt /out/a.mp3.srt"), QStringLiteral("2 txt /out/a.mp3.txt"),
            QStringLiteral("3 srt /out/a.ogg.srt"), QStringLiteral("3 txt /out/a.ogg.txt"),
            QStringLiteral("4 srt /out/a.ogg (2).srt"), QStringLiteral("4 txt /out/a.ogg (2).txt"),
            QStringLiteral("5 srt /out/A.wav.srt"), QStringLiteral("5 txt /out/A.wav.txt"),
            QStringLiteral("6 srt /out/notes.v2.srt"), QStringLiteral("6 txt /out/notes.v2.txt")}))
        << paths.join(QLatin1Char('\n')).toStdString();
}

// Export all: the dialog's formats and folder become one request naming every finished result.
TEST(FilesPanel, ExportAllRequestsEveryFinishedResult) {
    QTemporaryDir dir;
    ASSERT_TRUE(dir.isValid());
    FilesPanel panel;
    panel.resize(800, 600);
    panel.show();
    ASSERT_TRUE(QTest::qWaitForWindowExposed(&panel));
    const QList<int> ids = panel.queue()->addFiles(
        {QStringLiteral("/audio/a.mp3"), QStringLiteral("/audio/a.ogg"),
         QStringLiteral("/audio/failed.wav"), QStringLiteral("/audio/cut.wav"),
         QStringLiteral("/audio/queued.wav")});
    auto* exportAll = panel.findChild<QPushButton*>(QStringLiteral("exportAllButton"));
    ASSERT_NE(exportAll, nullptr);
    EXPECT_FALSE(exportAll->isEnabled());
    panel.queue()->setJobFinished(ids[0], jfkLikeSegments(), QStringLiteral("en"));
    panel.queue()->setJobFinished(ids[1], jfkLikeSegments().mid(0, 1), QStringLiteral("en"));
    panel.queue()->setJobFailed(ids[2], QStringLiteral("no audio stream"));
    panel.queue()->setJobRunning(ids[3]);
    panel.queue()->setJobCancelled(ids[3], jfkLikeSegments().mid(0, 2));
    EXPECT_TRUE(exportAll->isEnabled());
    EXPECT_EQ(panel.queue()->exportableJobs(), (QList<int>{ids[0], ids[1], ids[3]}));

    QSignalSpy requested(&panel, &FilesPanel::exportAllRequested);
    bool sawDialog = false;
    QTimer::singleShot(0, &panel, [&] {
        auto* dialog = qobject_cast<ExportAllDialog*>(QApplication::activeModalWidget());
        ASSERT_NE(dialog, nullptr);
        sawDialog = true;
        auto* srt = dialog->findChild<QCheckBox*>(QStringLiteral("exportAll_srt"));
        auto* folder = dialog->findChild<QLineEdit*>(QStringLiteral("exportAllFolder"));
        auto* ok = dialog->findChild<QDialogButtonBox*>()->button(QDialogButtonBox::Ok);
        ASSERT_TRUE(srt != nullptr && folder != nullptr && ok != nullptr);
        EXPECT_EQ(folder->text(), QStringLiteral("/audio"));  // the first result's folder
        EXPECT_EQ(dialog->formats(), QStringList{QStringLiteral("txt")});
        QTest::mouseClick(srt, Qt::LeftButton, {}, QPoint(4, srt->height() / 2));
        folder->selectAll();
        QTest::keyClick(folder, Qt::Key_Backspace);
        EXPECT_FALSE(ok->isEnabled());  // no folder
        QTest::keyClicks(folder, dir.path());
        EXPECT_TRUE(ok->isEnabled());
        QTest::mouseClick(ok, Qt::LeftButton);
    });
    QTest::mouseClick(exportAll, Qt::LeftButton);
    EXPECT_TRUE(sawDialog);

    ASSERT_EQ(requested.count(), 1);
    const auto targets = requested.at(0).at(0).value<QList<ExportTarget>>();
    EXPECT_EQ(requested.at(0).at(1).toString(), dir.path());
    QStringList paths;
    for (const ExportTarget& target : targets) {
        paths.append(QStringLiteral("%1 %2").arg(target.id).arg(target.path));
    }
    const QString d = dir.path();
    EXPECT_EQ(paths, (QStringList{QStringLiteral("%1 %2/a.mp3.txt").arg(ids[0]).arg(d),
                                  QStringLiteral("%1 %2/a.mp3.srt").arg(ids[0]).arg(d),
                                  QStringLiteral("%1 %2/a.ogg.txt").arg(ids[1]).arg(d),
                                  QStringLiteral("%1 %2/a.ogg.srt").arg(ids[1]).arg(d),
                                  QStringLiteral("%1 %2/cut.txt").arg(ids[3]).arg(d),
                                  QStringLiteral("%1 %2/cut.srt").arg(ids[3]).arg(d)}))
        << paths.join(QLatin1Char('\n')).toStdString();
}

}  // namespace
}  // namespace earshot::ui
