// Tests for FilesQueue, the Files page's state without a widget: ids and order, each report's
// effect on a job, what is ignored (late reports, segments for a job not running), the names that
// tell files apart, and the signals that announce each change.
#include "earshot/ui/files/files_queue.h"

#include <gtest/gtest.h>

#include <QSignalSpy>

namespace earshot::ui {
namespace {

QList<SegmentRow> twoSegments() {
    return {{0.0, 2.5, QStringLiteral("Hello there."), {}},
            {2.5, 4.0, QStringLiteral("General Kenobi."), {}}};
}

TEST(FilesQueue, QueuesFilesInOrderAndAnnouncesEach) {
    FilesQueue queue;
    QSignalSpy added(&queue, &FilesQueue::jobAdded);
    QSignalSpy queued(&queue, &FilesQueue::jobQueued);
    const QList<int> ids =
        queue.addFiles({QStringLiteral("/a/one.wav"), QStringLiteral("/a/two.wav")});
    ASSERT_EQ(ids.size(), 2);
    EXPECT_NE(ids[0], ids[1]);
    EXPECT_EQ(queue.jobIds(), ids);
    ASSERT_EQ(added.count(), 2);
    ASSERT_EQ(queued.count(), 2);
    EXPECT_EQ(queued.at(1).at(0).toInt(), ids[1]);
    EXPECT_EQ(queued.at(1).at(1).toString(), QStringLiteral("/a/two.wav"));
    EXPECT_EQ(queue.job(ids[0]).name, QStringLiteral("one.wav"));
    EXPECT_EQ(queue.jobState(ids[0]), FileJobState::queued);
    EXPECT_EQ(queue.unfinishedJobs(), 2);
    EXPECT_TRUE(queue.exportableJobs().isEmpty());

    // An earlier session's result is listed without being queued again.
    const int old = queue.addFinishedJob(QStringLiteral("/b/old.wav"), twoSegments(),
                                         QStringLiteral("en"), FileJobState::done);
    EXPECT_EQ(queued.count(), 2);
    EXPECT_EQ(added.count(), 3);
    EXPECT_EQ(queue.jobState(old), FileJobState::done);
    EXPECT_DOUBLE_EQ(queue.job(old).progress, 1.0);
    EXPECT_EQ(queue.exportableJobs(), QList<int>{old});
    EXPECT_EQ(queue.unfinishedJobs(), 2);
}

TEST(FilesQueue, ReportsChangeOneJob) {
    FilesQueue queue;
    const QList<int> ids = queue.addFiles(
        {QStringLiteral("/in/a.wav"), QStringLiteral("/in/b.wav"), QStringLiteral("/in/c.wav")});
    QSignalSpy states(&queue, &FilesQueue::jobStateChanged);
    QSignalSpy appended(&queue, &FilesQueue::segmentsAppended);

    queue.setJobRunning(ids[0]);
    queue.setJobProgress(ids[0], 1.5);  // clamped
    EXPECT_DOUBLE_EQ(queue.job(ids[0]).progress, 1.0);
    queue.setJobProgress(ids[0], 0.25);
    EXPECT_DOUBLE_EQ(queue.job(ids[0]).progress, 0.25);
    queue.setJobPaused(ids[0], true);
    EXPECT_TRUE(queue.job(ids[0]).paused);
    queue.setJobPaused(ids[1], true);  // queued, not running: ignored
    EXPECT_FALSE(queue.job(ids[1]).paused);
    queue.appendJobSegments(ids[0], twoSegments().mid(0, 1));
    queue.appendJobSegments(ids[1], twoSegments());  // not running: ignored
    ASSERT_EQ(appended.count(), 1);
    EXPECT_EQ(queue.jobSegments(ids[0]).size(), 1);
    EXPECT_TRUE(queue.jobSegments(ids[1]).isEmpty());

    queue.setJobFinished(ids[0], twoSegments(), QStringLiteral("de"));
    EXPECT_EQ(queue.jobState(ids[0]), FileJobState::done);
    EXPECT_EQ(queue.job(ids[0]).language, QStringLiteral("de"));
    EXPECT_EQ(queue.jobSegments(ids[0]).size(), 2);

    // The row names the file: a message starting with its path keeps only the problem.
    queue.setJobFailed(ids[1], QStringLiteral("/in/b.wav: no audio stream"));
    EXPECT_EQ(queue.job(ids[1]).message, QStringLiteral("no audio stream"));
    queue.setJobRunning(ids[2]);
    queue.setJobCancelled(ids[2], {});
    EXPECT_EQ(queue.jobState(ids[2]), FileJobState::cancelled);
    EXPECT_EQ(states.count(), 5);  // running, done, failed, running, cancelled

    // Cancelled without segments is not exported; done is.
    EXPECT_EQ(queue.exportableJobs(), QList<int>{ids[0]});
    EXPECT_EQ(queue.finishedJobs(), ids);
    EXPECT_EQ(queue.unfinishedJobs(), 0);
}

TEST(FilesQueue, RemovedJobsIgnoreLateReports) {
    FilesQueue queue;
    const QList<int> ids = queue.addFiles(
        {QStringLiteral("/x/a.wav"), QStringLiteral("/x/b.wav"), QStringLiteral("/x/c.wav")});
    queue.setJobRunning(ids[1]);
    QSignalSpy removed(&queue, &FilesQueue::jobsRemoved);
    queue.removeJobs({ids[1], 999});
    ASSERT_EQ(removed.count(), 1);
    EXPECT_EQ(removed.at(0).at(0).value<QList<int>>(), QList<int>{ids[1]});
    EXPECT_EQ(queue.jobIds(), (QList<int>{ids[0], ids[2]}));
    EXPECT_FALSE(queue.contains(ids[1]));
    queue.removeJobs({ids[1]});  // nothing left to remove: no signal
    EXPECT_EQ(removed.count(), 1);

    QSignalSpy states(&queue, &FilesQueue::jobStateChanged);
    queue.setJobFinished(ids[1], twoSegments(), QStringLiteral("en"));
    queue.setJobCancelled(ids[1], twoSegments());
    queue.setJobFailed(ids[1], QStringLiteral("late"));
    EXPECT_EQ(states.count(), 0);
    EXPECT_EQ(queue.jobIds().size(), 2);
    EXPECT_EQ(queue.job(ids[1]).id, -1);
}

TEST(FilesQueue, NamesTellFilesOfOneNameApart) {
    FilesQueue queue;
    const int monday = queue.addFiles({QStringLiteral("/rec/monday/talk.wav")}).first();
    EXPECT_EQ(queue.job(monday).name, QStringLiteral("talk.wav"));
    QSignalSpy renamed(&queue, &FilesQueue::jobRenamed);
    const int tuesday = queue.addFiles({QStringLiteral("/rec/tuesday/talk.wav")}).first();
    EXPECT_EQ(queue.job(monday).name, QStringLiteral("monday/talk.wav"));
    EXPECT_EQ(queue.job(tuesday).name, QStringLiteral("tuesday/talk.wav"));
    ASSERT_EQ(renamed.count(), 2);
    queue.removeJobs({monday});
    EXPECT_EQ(queue.job(tuesday).name, QStringLiteral("talk.wav"));
    ASSERT_EQ(renamed.count(), 3);
    EXPECT_EQ(renamed.at(2).at(0).toInt(), tuesday);
}

}  // namespace
}  // namespace earshot::ui
