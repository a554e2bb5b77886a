// Dictating while files are transcribed: the running file pauses at a window boundary (the model
// is then free for dictation), its transcript after resume() is the one it gives unpaused, and on
// the Live page Start stays possible while files run, pausing them.
#include <gtest/gtest.h>

#include <QPushButton>
#include <QSignalSpy>
#include <QTableWidget>
#include <QTest>
#include <filesystem>
#include <optional>
#include <string>

#include "desktop/instance_requests.h"
#include "earshot/ui/files/files_panel.h"
#include "earshot/ui/files/files_queue.h"
#include "earshot/ui/live/live_panel.h"
#include "earshot/ui/main_window.h"
#include "gui/files/files_worker.h"
#include "gui/gui_controller.h"
#include "gui/live/live_bridge.h"
#include "gui/run_gui.h"
#include "gui_fixture.h"
#include "micro_model.h"
#include "micro_speech_file.h"
#include "spoken_words.h"

namespace earshot::test {
namespace {

namespace fs = std::filesystem;

QString q(const fs::path& path) { return QString::fromStdString(path.string()); }

TEST(FilesWorkerPause, ARunningFileWaitsWhileTheModelDictatesThenFinishesTheSame) {
    ensure_gui_application();
    const TempDir dir("earshot-files-pause");
    std::string why;
    const fs::path wav = write_three_sentences(dir, why);
    ASSERT_FALSE(wav.empty()) << why;
    std::shared_ptr<app::LoadedModel> model = app::load_model(micro_model_dir(), {});

    // Unpaused, for comparison.
    std::string expected;
    {
        app::FilesWorker worker;
        worker.setModel(model);
        worker.enqueue(1, q(wav));
        ASSERT_TRUE(wait_for_signal(&worker, &app::FilesWorker::idle, 120'000));
        ASSERT_NE(worker.transcript(1), nullptr);
        expected = worker.transcript(1)->text;
        ASSERT_FALSE(expected.empty());
    }

    app::FilesWorker worker;
    worker.setModel(model);
    QSignalSpy segments(&worker, &app::FilesWorker::jobSegments);
    QSignalSpy finished(&worker, &app::FilesWorker::jobFinished);
    worker.enqueue(1, q(wav));
    ASSERT_TRUE(wait_for_signal(&worker, &app::FilesWorker::jobSegments, 120'000));
    worker.pause();
    EXPECT_TRUE(worker.isPaused());
    ASSERT_TRUE(wait_for_signal(&worker, &app::FilesWorker::paused, 60'000));
    ASSERT_EQ(finished.count(), 0) << "the file ended before it could pause";
    const int segmentsAtPause = static_cast<int>(segments.count());

    // The model dictates (a paced file through the live bridge) while the file waits.
    app::LiveBridge live;
    app::LiveOptions options;
    options.input = wav.string();
    options.speed = 8.0;
    options.streaming.decoding.language = "en";
    ASSERT_EQ(live.start(model, options), QString());
    ASSERT_TRUE(wait_for_signal(&live, &app::LiveBridge::stopped, 120'000));
    EXPECT_TRUE(live.lastStats().error.empty()) << live.lastStats().error;
    QTest::qWait(200);
    EXPECT_EQ(segments.count(), segmentsAtPause) << "the paused file went on";
    EXPECT_EQ(finished.count(), 0);
    EXPECT_TRUE(worker.isBusy());

    worker.resume();
    ASSERT_TRUE(wait_for_signal(&worker, &app::FilesWorker::idle, 120'000));
    ASSERT_EQ(finished.count(), 1);
    ASSERT_NE(worker.transcript(1), nullptr);
    EXPECT_EQ(worker.transcript(1)->text, expected);
}

TEST(FilesWorkerPause, CancellingAPausedFileEndsIt) {
    ensure_gui_application();
    const TempDir dir("earshot-files-pause-cancel");
    std::string why;
    const fs::path wav = write_three_sentences(dir, why);
    ASSERT_FALSE(wav.empty()) << why;
    app::FilesWorker worker;
    worker.setModel(app::load_model(micro_model_dir(), {}));
    QSignalSpy cancelled(&worker, &app::FilesWorker::jobCancelled);
    worker.enqueue(1, q(wav));
    worker.enqueue(2, q(wav));
    ASSERT_TRUE(wait_for_signal(&worker, &app::FilesWorker::jobSegments, 120'000));
    worker.pause();
    ASSERT_TRUE(wait_for_signal(&worker, &app::FilesWorker::paused, 60'000));
    worker.cancel(1);
    ASSERT_TRUE(wait_for_signal(&worker, &app::FilesWorker::jobCancelled, 60'000));
    // Still paused: the next file does not start until resume().
    QTest::qWait(200);
    EXPECT_FALSE(worker.isBusy());
    worker.resume();
    ASSERT_TRUE(wait_for_signal(&worker, &app::FilesWorker::idle, 120'000));
    EXPECT_NE(worker.transcript(2), nullptr);
}

// The app with the micro model and three spoken sentences queued on the Files page (running).
class GuiFilesPause : public ::testing::Test {
protected:
    void SetUp() override {
        ensure_gui_application();
        std::string why;
        wav_ = write_three_sentences(dir_, why);
        ASSERT_FALSE(wav_.empty()) << why;
        app::GuiPaths paths;
        paths.settingsFile = q(dir_.path() / "settings.ini");
        paths.journal = false;
        paths.listDevices = false;
        window_.emplace();
        controller_.emplace(*window_, paths);
        ASSERT_TRUE(open_model_and_wait(*controller_, q(micro_model_dir()), QString(),
                                        app::GuiController::Remember::no));
        paused_.emplace(&controller_->files(), &app::FilesWorker::paused);
        id_ = window_->filesPanel()->queue()->addFiles({q(wav_)}).first();
        ASSERT_TRUE(controller_->files().isBusy());
    }
    // Dictation, if it started, stops; the file then ends.
    void finish() {
        if (controller_->live().isRunning()) {
            controller_->live().stop();
            ASSERT_TRUE(wait_for_signal(&controller_->live(), &app::LiveBridge::stopped, 60'000));
        }
        ASSERT_TRUE(app::wait_for_files(*controller_, 120'000));
        EXPECT_FALSE(controller_->files().isPaused());
        EXPECT_EQ(window_->filesPanel()->queue()->jobState(id_), ui::FileJobState::done);
    }

    TempDir dir_{"earshot-gui-files-pause"};
    fs::path wav_;
    std::optional<ui::MainWindow> window_;  // made once the application exists
    std::optional<app::GuiController> controller_;
    std::optional<QSignalSpy> paused_;
    int id_ = -1;
};

// The Live page while a file runs: Start is allowed and says it pauses the files; pressing it
// pauses them, dictation then starts (or says why it cannot, with no device here), and the
// files go on afterwards.
TEST_F(GuiFilesPause, StartWhileFilesRunPausesThemAndTheyGoOn) {
    ui::LivePanel* live = window_->livePanel();
    EXPECT_TRUE(live->startAllowed());
    EXPECT_TRUE(live->startStopButton()->isEnabled());
    EXPECT_EQ(live->statusText(),
              QStringLiteral("Files are being transcribed: Start pauses them while you dictate."));

    QSignalSpy resumed(&controller_->files(), &app::FilesWorker::resumed);
    live->startStopButton()->click();
    EXPECT_TRUE(controller_->files().isPaused());
    ASSERT_TRUE(paused_->count() > 0 || paused_->wait(60'000));
    // While dictation runs, the file's row says it waits (before: still "Transcribing").
    QTableWidget* queue = window_->filesPanel()->queueTable();
    if (controller_->live().isRunning()) {
        EXPECT_TRUE(
            queue->item(0, 2)->text().startsWith(QStringLiteral("Paused while you dictate")))
            << queue->item(0, 2)->text().toStdString();
    }
    // Dictation started on the default input, or could not (no device): either way it said so.
    const QString status = live->statusText();
    EXPECT_TRUE(status.startsWith(QStringLiteral("Listening")) ||
                status.startsWith(QStringLiteral("Could not start")))
        << status.toStdString();
    if (controller_->live().isRunning()) {
        controller_->live().stop();
        ASSERT_TRUE(wait_for_signal(&controller_->live(), &app::LiveBridge::stopped, 60'000));
    }
    if (controller_->files().isBusy()) {
        EXPECT_GE(resumed.count(), 1);
        EXPECT_TRUE(queue->item(0, 2)->text().startsWith(QStringLiteral("Transcribing")))
            << queue->item(0, 2)->text().toStdString();
    }
    finish();
}

// `earshot start` while a file runs: the instance answers "starting: ..." (the command prints it
// and exits 0), not "error: ...", since dictation starts once the file pauses. Before, the
// command printed "error: Pausing the files after the current window..." and exited 1.
TEST_F(GuiFilesPause, StartFromTheCommandLineWhileFilesRunIsNotAnError) {
    const QString answer = app::answer_instance_request(
        *controller_, app::InstanceRequest{app::InstanceAction::start, {}});
    EXPECT_EQ(answer, QStringLiteral("starting: Pausing the files after the current window\u2026"));
    EXPECT_TRUE(controller_->isStartPending());
    ASSERT_TRUE(paused_->count() > 0 || paused_->wait(60'000));
    EXPECT_FALSE(controller_->isStartPending());
    finish();
}

}  // namespace
}  // namespace earshot::test
