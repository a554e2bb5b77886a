// The Files page's watch folder: chosen on the page, a recording copied in under a temporary name
// is queued once renamed and settled, and transcribed; a note is left alone with a status
// message; the folder is a setting, so a restarted window watches it again without queueing what
// its history has done; Stop watching stops.
#include <gtest/gtest.h>

#include <QPushButton>
#include <QSettings>
#include <QStatusBar>
#include <QTest>
#include <filesystem>
#include <fstream>

#include "earshot/ui/files/files_panel.h"
#include "earshot/ui/files/files_queue.h"
#include "earshot/ui/main_window.h"
#include "files_gui_paths.h"
#include "gui/files/files_watch.h"
#include "gui/files/files_worker.h"
#include "gui/gui_controller.h"
#include "gui_fixture.h"
#include "micro_model.h"
#include "run_process.h"
#include "temp_dir.h"

namespace earshot::test {
namespace {

namespace fs = std::filesystem;

QString q(const fs::path& path) { return QString::fromStdString(path.string()); }

constexpr int kSettleMs = 300;
constexpr int kWaitMs = 60000;

TEST(GuiFilesWatch, RecordingsThatAppearAreQueuedOnceAndTheFolderIsASetting) {
    ensure_gui_application();
    ASSERT_EQ(run_shell("command -v espeak-ng").exit_code, 0)
        << "espeak-ng is not installed (packaging/setup.sh installs it)";
    const TempDir dir("earshot-files-watch");
    const fs::path inbox = dir.path() / "inbox";
    fs::create_directories(inbox);
    const fs::path spoken = dir.path() / "call.wav";
    ASSERT_EQ(run_shell("espeak-ng -v en-us -s 160 -w " + shell_quote(spoken.string()) +
                        " 'please call me tomorrow'")
                  .exit_code,
              0);
    {
        ui::MainWindow window;
        app::GuiController controller(window, files_gui_paths(dir));
        ASSERT_TRUE(open_model_and_wait(controller, q(micro_model_dir()), QString(),
                                        app::GuiController::Remember::no));
        ui::FilesPanel* panel = window.filesPanel();
        ui::FilesQueue* queue = panel->queue();
        controller.filesWatch().setSettleMs(kSettleMs);
        panel->watchFolder(q(inbox));  // what the folder dialog does
        EXPECT_EQ(controller.filesWatch().folder(), q(inbox));

        std::ofstream(inbox / "notes.txt") << "not a recording\n";
        fs::copy_file(spoken, inbox / "call.wav.part");
        ASSERT_TRUE(QTest::qWaitFor(
            [&] { return window.statusBar()->currentMessage().contains("notes.txt"); }, kWaitMs))
            << window.statusBar()->currentMessage().toStdString();
        EXPECT_TRUE(queue->jobIds().isEmpty()) << "a temporary file was queued";
        fs::rename(inbox / "call.wav.part", inbox / "call.wav");
        ASSERT_TRUE(QTest::qWaitFor([&] { return queue->jobIds().size() == 1; }, kWaitMs));
        const int id = queue->jobIds()[0];
        EXPECT_EQ(queue->jobPath(id), q(inbox / "call.wav"));
        ASSERT_TRUE(QTest::qWaitFor([&] { return queue->jobState(id) == ui::FileJobState::done; },
                                    kWaitMs));
        const decoding::Transcript* transcript = controller.files().transcript(id);
        ASSERT_NE(transcript, nullptr);
        EXPECT_NE(transcript->text.find("please call me tomorrow"), std::string::npos)
            << transcript->text;
        // Seen again and again by the timer: queued once.
        QTest::qWait(4 * kSettleMs);
        EXPECT_EQ(queue->jobIds().size(), 1);
    }
    EXPECT_EQ(QSettings(files_gui_paths(dir).settingsFile, QSettings::IniFormat)
                  .value(QStringLiteral("files/watchFolder"))
                  .toString(),
              q(inbox));
    {
        // Restarted: the folder is watched again; the history has the recording done.
        ui::MainWindow window;
        app::GuiController controller(window, files_gui_paths(dir));
        ui::FilesPanel* panel = window.filesPanel();
        EXPECT_EQ(panel->watchFolder(), q(inbox));
        EXPECT_EQ(controller.filesWatch().folder(), q(inbox));
        controller.filesWatch().setSettleMs(kSettleMs);
        ASSERT_EQ(panel->queue()->jobIds().size(), 1);
        QTest::qWait(4 * kSettleMs);
        EXPECT_EQ(panel->queue()->jobIds().size(), 1) << "a done recording was queued again";

        auto* stop = panel->findChild<QPushButton*>(QStringLiteral("stopWatchingButton"));
        ASSERT_NE(stop, nullptr);
        QTest::mouseClick(stop, Qt::LeftButton);
        EXPECT_EQ(controller.filesWatch().folder(), QString());
        fs::copy_file(spoken, inbox / "later.wav");
        QTest::qWait(4 * kSettleMs);
        EXPECT_EQ(panel->queue()->jobIds().size(), 1) << "queued after Stop watching";
    }
    EXPECT_EQ(QSettings(files_gui_paths(dir).settingsFile, QSettings::IniFormat)
                  .value(QStringLiteral("files/watchFolder"))
                  .toString(),
              QString());
}

}  // namespace
}  // namespace earshot::test
