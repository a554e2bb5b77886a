// The Files page's results in the app: the segment rows leave out blank segments as TXT and SRT
// do; "Export all" writes every target with the per-file writer and one summary; removed jobs
// leave the worker and the kept history (they do not come back after a restart); a running file's
// segments reach the page window by window, before the file is done.
#include <gtest/gtest.h>

#include <QDir>
#include <QFile>
#include <QPushButton>
#include <QSignalSpy>
#include <QStatusBar>
#include <QTableWidget>
#include <QTest>
#include <filesystem>
#include <string>

#include "core/files/transcript_formats.h"
#include "earshot/ui/files/export_targets.h"
#include "earshot/ui/files/files_panel.h"
#include "earshot/ui/files/files_queue.h"
#include "earshot/ui/main_window.h"
#include "files_gui_paths.h"
#include "gui/files/files_history.h"
#include "gui/files/files_worker.h"
#include "gui/gui_controller.h"
#include "gui/run_gui.h"
#include "gui_fixture.h"
#include "micro_model.h"
#include "micro_speech_file.h"
#include "segment_fields.h"
#include "spoken_words.h"

namespace earshot::test {
namespace {

namespace fs = std::filesystem;

QString q(const fs::path& path) { return QString::fromStdString(path.string()); }

decoding::Transcript withSilentWindows() {
    decoding::Transcript transcript;
    transcript.language = "en";
    transcript.segments.push_back(segment(0.0, 2.0, " Send the report.", {}, -0.2, 0.1, 0.0, 1.0));
    transcript.segments.push_back(
        segment(2.0, 6.0, "", {}, -0.9, 0.7, 0.0, 1.0));  // a silent window
    transcript.segments.push_back(segment(6.0, 6.0, "  \n ", {}, -0.9, 0.7, 0.0, 1.0));
    transcript.segments.push_back(
        segment(6.0, 8.5, "  Today,\n please. ", {}, -0.3, 0.1, 0.0, 1.0));
    for (const decoding::Segment& segment : transcript.segments) transcript.text += segment.text;
    return transcript;
}

QByteArray readAll(const QString& path) {
    QFile file(path);
    return file.open(QIODevice::ReadOnly) ? file.readAll() : QByteArray("<missing>");
}

TEST(FilesSegmentRows, LeaveOutBlankSegmentsAsTxtAndSrtDo) {
    const decoding::Transcript transcript = withSilentWindows();
    const QList<ui::SegmentRow> rows = app::segment_rows(transcript);
    ASSERT_EQ(rows.size(), 2);
    EXPECT_EQ(rows[0].text, QStringLiteral("Send the report."));
    EXPECT_DOUBLE_EQ(rows[1].startS, 6.0);
    EXPECT_DOUBLE_EQ(rows[1].endS, 8.5);
    EXPECT_EQ(rows[1].text, QStringLiteral("Today, please."));
    // The command line's formats: the same two segments as cues and lines; JSON keeps all four.
    const std::string srt = app::render_srt(transcript);
    EXPECT_NE(srt.find("1\n00:00:00,000 --> 00:00:02,000\nSend the report.\n"), std::string::npos)
        << srt;
    EXPECT_NE(srt.find("2\n00:00:06,000 --> 00:00:08,500\n"), std::string::npos) << srt;
    EXPECT_EQ(srt.find("3\n"), std::string::npos) << srt;
    EXPECT_EQ(app::render_txt(transcript), "Send the report.\nToday,  please.\n");
}

TEST(FilesWorker, ExportAllWritesEveryTargetAndSaysWhatFailed) {
    ensure_gui_application();
    const TempDir dir("earshot-files-export-all");
    app::FilesWorker worker;
    decoding::Transcript second = withSilentWindows();
    second.segments.resize(1);
    worker.addResult(1, withSilentWindows());
    worker.addResult(2, second);
    const QString folder = q(dir.path() / "out" / "all");  // made by exportAll
    const QList<ui::ExportTarget> targets =
        ui::exportTargets({{1, QStringLiteral("/in/a.mp3")},
                           {2, QStringLiteral("/in/a.ogg")},
                           {3, QStringLiteral("/in/gone.wav")}},
                          {QStringLiteral("srt"), QStringLiteral("txt")}, folder);

    const app::FilesExportSummary summary = worker.exportAll(targets, folder);
    EXPECT_EQ(summary.written, 4);
    EXPECT_EQ(summary.total, 6);
    EXPECT_EQ(summary.failures,
              (QStringList{QStringLiteral("gone.srt: this file has no transcript yet"),
                           QStringLiteral("gone.txt: this file has no transcript yet")}));
    EXPECT_EQ(summary.message(folder),
              QStringLiteral("Exported 4 of 6 files to %1; failed: gone.srt: this file has no "
                             "transcript yet; gone.txt: this file has no transcript yet")
                  .arg(QDir::toNativeSeparators(folder)));
    const QDir out(folder);
    EXPECT_EQ(out.entryList(QDir::Files, QDir::Name),
              (QStringList{QStringLiteral("a.mp3.srt"), QStringLiteral("a.mp3.txt"),
                           QStringLiteral("a.ogg.srt"), QStringLiteral("a.ogg.txt")}));
    // The same bytes as the per-file export.
    EXPECT_EQ(readAll(out.filePath(QStringLiteral("a.mp3.srt"))),
              QByteArray::fromStdString(app::render_srt(withSilentWindows())));
    EXPECT_EQ(readAll(out.filePath(QStringLiteral("a.ogg.txt"))),
              QByteArray::fromStdString(app::render_txt(second)));

    const QList<ui::ExportTarget> one =
        ui::exportTargets({{2, QStringLiteral("/in/b.wav")}}, {QStringLiteral("vtt")}, folder);
    const app::FilesExportSummary fine = worker.exportAll(one, folder);
    EXPECT_TRUE(fine.failures.isEmpty());
    EXPECT_EQ(fine.message(folder),
              QStringLiteral("Exported 1 file to %1").arg(QDir::toNativeSeparators(folder)));
    EXPECT_EQ(worker.exportAll(targets.mid(0, 4), folder).message(folder),
              QStringLiteral("Exported 4 files to %1").arg(QDir::toNativeSeparators(folder)));
}

TEST(FilesWorker, RemoveForgetsQueuedJobsAndResultsWithoutSignals) {
    ensure_gui_application();
    app::FilesWorker worker;  // no model: jobs wait
    QSignalSpy cancelled(&worker, &app::FilesWorker::jobCancelled);
    QSignalSpy idle(&worker, &app::FilesWorker::idle);
    worker.enqueue(1, QStringLiteral("/in/a.wav"));
    worker.enqueue(2, QStringLiteral("/in/b.wav"));
    worker.remove(1);
    EXPECT_FALSE(worker.isIdle());
    worker.remove(2);
    EXPECT_TRUE(worker.isIdle());
    EXPECT_EQ(cancelled.count(), 0);
    EXPECT_EQ(idle.count(), 1);
    worker.addResult(5, withSilentWindows());
    ASSERT_NE(worker.transcript(5), nullptr);
    worker.remove(5);
    EXPECT_EQ(worker.transcript(5), nullptr);
}

QStringList listedNames(const ui::MainWindow& window) {
    QStringList names;
    const QTableWidget* queue = window.filesPanel()->queueTable();
    for (int row = 0; row < queue->rowCount(); ++row) names.append(queue->item(row, 0)->text());
    return names;
}

// Remove and Clear finished on restored results: what was removed is not listed after a restart.
TEST(GuiFilesResults, RemovedResultsDoNotComeBackAfterARestart) {
    ensure_gui_application();
    const TempDir dir("earshot-files-remove");
    {
        app::FilesHistory history(files_gui_paths(dir).filesHistoryDir);
        for (const char* name : {"/in/one.wav", "/in/two.wav", "/in/three.wav"}) {
            ASSERT_EQ(history.save(QString::fromLatin1(name), withSilentWindows(), false),
                      QString());
        }
    }
    {
        ui::MainWindow window;
        app::GuiController controller(window, files_gui_paths(dir));
        ASSERT_EQ(listedNames(window),
                  (QStringList{QStringLiteral("one.wav"), QStringLiteral("two.wav"),
                               QStringLiteral("three.wav")}));
        // Restored rows list only the segments with text.
        EXPECT_EQ(window.filesPanel()
                      ->queue()
                      ->jobSegments(window.filesPanel()->queue()->jobIds()[0])
                      .size(),
                  2);
        window.filesPanel()->selectJob(window.filesPanel()->queue()->jobIds()[1]);
        auto* remove =
            window.filesPanel()->findChild<QPushButton*>(QStringLiteral("removeFileButton"));
        ASSERT_NE(remove, nullptr);
        QTest::mouseClick(remove, Qt::LeftButton);
        EXPECT_EQ(listedNames(window),
                  (QStringList{QStringLiteral("one.wav"), QStringLiteral("three.wav")}));
        EXPECT_EQ(
            controller.files().transcript(window.filesPanel()->queue()->jobIds()[0]) != nullptr,
            true);
    }
    EXPECT_EQ(app::FilesHistory(files_gui_paths(dir).filesHistoryDir).load().size(), 2u);
    {
        ui::MainWindow window;
        app::GuiController controller(window, files_gui_paths(dir));
        ASSERT_EQ(listedNames(window),
                  (QStringList{QStringLiteral("one.wav"), QStringLiteral("three.wav")}));
        auto* clear =
            window.filesPanel()->findChild<QPushButton*>(QStringLiteral("clearFinishedButton"));
        ASSERT_NE(clear, nullptr);
        QTest::mouseClick(clear, Qt::LeftButton);
        auto* confirm = window.filesPanel()->findChild<QPushButton*>(
            QStringLiteral("clearFinishedConfirmButton"));
        ASSERT_NE(confirm, nullptr) << "Clear finished deletes stored results: it asks first";
        EXPECT_EQ(listedNames(window).size(), 2);
        QTest::mouseClick(confirm, Qt::LeftButton);
        EXPECT_TRUE(listedNames(window).isEmpty());
    }
    ui::MainWindow window;
    app::GuiController controller(window, files_gui_paths(dir));
    EXPECT_TRUE(listedNames(window).isEmpty());
    EXPECT_TRUE(app::FilesHistory(files_gui_paths(dir).filesHistoryDir).load().empty());
}

// Export all through the window: one status message for the whole folder.
TEST(GuiFilesResults, ExportAllSaysOnceHowItWent) {
    ensure_gui_application();
    const TempDir dir("earshot-files-export-window");
    {
        app::FilesHistory history(files_gui_paths(dir).filesHistoryDir);
        ASSERT_EQ(history.save(QStringLiteral("/in/a.mp3"), withSilentWindows(), false), QString());
        ASSERT_EQ(history.save(QStringLiteral("/in/a.ogg"), withSilentWindows(), false), QString());
    }
    ui::MainWindow window;
    app::GuiController controller(window, files_gui_paths(dir));
    const QList<int> ids = window.filesPanel()->queue()->jobIds();
    ASSERT_EQ(ids.size(), 2);
    const QString folder = q(dir.path() / "exported");
    Q_EMIT window.filesPanel()->exportAllRequested(
        ui::exportTargets(
            {{ids[0], QStringLiteral("/in/a.mp3")}, {ids[1], QStringLiteral("/in/a.ogg")}},
            {QStringLiteral("vtt")}, folder),
        folder);
    EXPECT_EQ(window.statusBar()->currentMessage(),
              QStringLiteral("Exported 2 files to %1").arg(QDir::toNativeSeparators(folder)));
    EXPECT_TRUE(readAll(folder + QStringLiteral("/a.ogg.vtt")).startsWith("WEBVTT\n\n"));
}

// Remove on the running file: it stops, its row is gone and nothing of it is kept; the next file
// runs.
TEST(GuiFilesResults, RemovingTheRunningFileCancelsItAndKeepsNothing) {
    if (!gui_assets_present()) GTEST_SKIP() << "jfk.wav or multilingual.tiktoken not found";
    ensure_gui_application();
    const TempDir dir("earshot-files-remove-running");
    ui::MainWindow window;
    app::GuiController controller(window, files_gui_paths(dir));
    ASSERT_TRUE(open_model_and_wait(controller, q(gui_random_checkpoint()), q(gui_vocab()),
                                    app::GuiController::Remember::no));
    controller.files().setOptions(fast_file_options());
    ui::FilesPanel* panel = window.filesPanel();
    QSignalSpy cancelled(&controller.files(), &app::FilesWorker::jobCancelled);
    const QList<int> ids = panel->queue()->addFiles({q(gui_jfk()), q(gui_jfk())});
    ASSERT_EQ(controller.files().runningJob(), ids[0]);
    panel->selectJob(ids[0]);
    auto* remove = panel->findChild<QPushButton*>(QStringLiteral("removeFileButton"));
    ASSERT_NE(remove, nullptr);
    QTest::mouseClick(remove, Qt::LeftButton);
    EXPECT_EQ(panel->queue()->jobIds(), QList<int>{ids[1]});
    ASSERT_TRUE(app::wait_for_files(controller, 120'000));
    EXPECT_EQ(panel->queue()->jobState(ids[1]), ui::FileJobState::done);
    EXPECT_EQ(cancelled.count(), 0);
    EXPECT_EQ(controller.files().transcript(ids[0]), nullptr);
    // Only the second file's result is kept.
    const std::vector<app::FilesHistoryEntry> kept =
        app::FilesHistory(files_gui_paths(dir).filesHistoryDir).load();
    ASSERT_EQ(kept.size(), 1u);
    EXPECT_EQ(QDir(files_gui_paths(dir).filesHistoryDir).entryList(QDir::Files).size(), 1);
}

// The micro model on three spoken sentences (more than one of its 6 s windows): the page lists
// the first window's segments while the file is still running.
TEST(GuiFilesResults, SegmentsAppearWhileTheFileIsTranscribed) {
    ensure_gui_application();
    ASSERT_TRUE(fs::exists(micro_model_dir() / "model.safetensors")) << micro_model_dir();
    const TempDir dir("earshot-files-streaming");
    std::string why;
    const fs::path wav = write_three_sentences(dir, why);
    ASSERT_FALSE(wav.empty()) << why;

    ui::MainWindow window;
    app::GuiPaths paths = files_gui_paths(dir);
    paths.journal = false;
    app::GuiController controller(window, paths);
    ASSERT_TRUE(open_model_and_wait(controller, q(micro_model_dir()), QString(),
                                    app::GuiController::Remember::no));
    ui::FilesPanel* panel = window.filesPanel();
    // What the page showed each time a window's segments came, after the page took them.
    QList<ui::FileJobState> statesSeen;
    QList<int> rowsSeen;
    int id = -1;
    QObject::connect(&controller.files(), &app::FilesWorker::jobSegments, panel, [&](int job) {
        EXPECT_EQ(job, id);
        statesSeen.append(panel->queue()->jobState(job));
        rowsSeen.append(static_cast<int>(panel->queue()->jobSegments(job).size()));
    });
    id = panel->queue()->addFiles({q(wav)}).first();
    ASSERT_TRUE(app::wait_for_files(controller, 120'000));
    ASSERT_EQ(panel->queue()->jobState(id), ui::FileJobState::done);
    ASSERT_GE(statesSeen.size(), 2) << "windows with segments";
    EXPECT_EQ(statesSeen.front(), ui::FileJobState::running);
    EXPECT_GT(rowsSeen.front(), 0);
    EXPECT_LT(rowsSeen.front(), panel->queue()->jobSegments(id).size());
    EXPECT_EQ(rowsSeen.back(), panel->queue()->jobSegments(id).size());
}

// Quitting while a file is transcribed (the controller goes with the app) keeps what the file has
// so far, as Cancel does: after a restart the page lists it as cancelled with its first window's
// segments. Before, the outcome's queued signal never ran and the partial transcript was lost.
TEST(GuiFilesResults, QuittingMidFileKeepsWhatItHasLikeCancel) {
    ensure_gui_application();
    ASSERT_TRUE(fs::exists(micro_model_dir() / "model.safetensors")) << micro_model_dir();
    const TempDir dir("earshot-files-quit");
    std::string why;
    const fs::path wav = write_three_sentences(dir, why);
    ASSERT_FALSE(wav.empty()) << why;
    const app::GuiPaths paths = files_gui_paths(dir);  // with the results kept in `dir`
    int rowsShown = 0;
    {
        ui::MainWindow window;
        app::GuiController controller(window, paths);
        ASSERT_TRUE(open_model_and_wait(controller, q(micro_model_dir()), QString(),
                                        app::GuiController::Remember::no));
        ui::FilesPanel* panel = window.filesPanel();
        const int id = panel->queue()->addFiles({q(wav)}).first();
        // Hold the file after its first window with segments: it is mid-file, for certain.
        QSignalSpy paused(&controller.files(), &app::FilesWorker::paused);
        QObject::connect(&controller.files(), &app::FilesWorker::jobSegments, &controller,
                         [&] { controller.files().pause(); });
        ASSERT_TRUE(paused.wait(120'000)) << "the file never paused";
        ASSERT_EQ(controller.files().runningJob(), id);
        rowsShown = static_cast<int>(panel->queue()->jobSegments(id).size());
        ASSERT_GT(rowsShown, 0);
    }  // quit
    const std::vector<app::FilesHistoryEntry> kept =
        app::FilesHistory(paths.filesHistoryDir).load();
    ASSERT_EQ(kept.size(), 1u);
    EXPECT_TRUE(kept[0].cancelled);
    EXPECT_EQ(kept[0].source, q(wav));
    // What the page showed, and the segment a window holds back until the next one (long_form.h).
    const int rowsKept = static_cast<int>(kept[0].rows.size());
    EXPECT_GE(rowsKept, rowsShown);
    EXPECT_LE(rowsKept, rowsShown + 1);
    // The page after a restart lists it, cancelled, with those segments.
    ui::MainWindow window;
    app::GuiController controller(window, paths);
    const QList<int> ids = window.filesPanel()->queue()->jobIds();
    ASSERT_EQ(ids.size(), 1);
    EXPECT_EQ(window.filesPanel()->queue()->jobState(ids[0]), ui::FileJobState::cancelled);
    EXPECT_EQ(static_cast<int>(window.filesPanel()->queue()->jobSegments(ids[0]).size()), rowsKept);
}

}  // namespace
}  // namespace earshot::test
