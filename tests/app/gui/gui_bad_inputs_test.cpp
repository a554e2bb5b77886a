// The bad-inputs table through the window, on the offscreen platform: every broken model opened
// from the Model page, broken audio file added to the Files page and export place that cannot be
// written gives one message naming the file and the problem, leaves nothing behind, and the window
// keeps working: a good model opens and a good file transcribes afterwards.
#include <gtest/gtest.h>
#include <unistd.h>

#include <QLabel>
#include <QStatusBar>
#include <QStringList>
#include <QTableWidget>
#include <cstdio>
#include <filesystem>
#include <string>
#include <vector>

#include "bad_input_files.h"
#include "earshot/ui/files/files_panel.h"
#include "earshot/ui/files/files_queue.h"
#include "earshot/ui/main_window.h"
#include "earshot/ui/model/model_panel.h"
#include "gui/files/files_history.h"
#include "gui/files/files_worker.h"
#include "gui/gui_controller.h"
#include "gui/run_gui.h"
#include "gui_fixture.h"
#include "micro_model.h"

namespace earshot::test {
namespace {

namespace fs = std::filesystem;

QString q(const fs::path& path) { return QString::fromStdString(path.string()); }

// Every part of `row.message` in `message`; the file is named by the message parts.
void expect_message(const bad_files::BadFile& row, const QString& message) {
    for (const std::string& part : row.message) {
        EXPECT_TRUE(message.contains(QString::fromStdString(part)))
            << "\"" << part << "\" not in: " << message.toStdString();
    }
}

// Regular files under `folder`, recursively.
QStringList files_in(const fs::path& folder) {
    QStringList names;
    if (!fs::is_directory(folder)) return names;
    for (const auto& entry : fs::recursive_directory_iterator(folder)) {
        if (entry.is_regular_file()) names << q(entry.path());
    }
    return names;
}

class GuiBadInputs : public ::testing::Test {
protected:
    void SetUp() override {
        if (!bad_files::assets_present()) {
            GTEST_SKIP() << "jfk.wav or for-tests-ggml-tiny.bin not found under "
                         << bad_files::shared_dir();
        }
        ensure_gui_application();
        paths_.settingsFile = q(dir_.path() / "settings.ini");
        paths_.journalFile = q(dir_.path() / "journal.txt");
        paths_.filesHistoryDir = q(dir_.path() / "results");
        paths_.listDevices = false;
        paths_.keepLayout = false;
    }

    // Transcribes `path` on the Files page; returns its job id (its state says how it went).
    int transcribe(ui::MainWindow& window, app::GuiController& controller, const fs::path& path) {
        const int id = window.filesPanel()->queue()->addFiles({q(path)}).first();
        EXPECT_TRUE(app::wait_for_files(controller, 120'000));
        return id;
    }

    static QString status_of(ui::FilesPanel& panel, int id) {
        const int row = static_cast<int>(panel.queue()->jobIds().indexOf(id));
        return panel.queueTable()->item(row, 2)->text();
    }

    TempDir dir_{"earshot-gui-bad-inputs"};
    app::GuiPaths paths_;
};

TEST_F(GuiBadInputs, OneMessageNamingTheFileNothingLeftAndTheWindowKeepsWorking) {
    ui::MainWindow window;
    app::GuiController controller(window, paths_);
    int rows = 0;

    // The Model page: Open with a broken model, before any model and with one loaded.
    const std::vector<bad_files::BadFile> models = bad_files::bad_models();
    for (const bool withModel : {false, true}) {
        if (withModel) {
            ASSERT_TRUE(open_model_and_wait(controller, q(micro_model_dir()), QString(),
                                            app::GuiController::Remember::no))
                << window.modelPanel()->loadError().toStdString();
        }
        for (const bad_files::BadFile& row : models) {
            SCOPED_TRACE(row.name + (withModel ? " (a model loaded)" : ""));
            const TempDir rowDir("earshot-gui-bad-model");
            const fs::path path = row.make(rowDir.path());
            EXPECT_FALSE(open_model_and_wait(controller, q(path), QString(),
                                             app::GuiController::Remember::no));
            const QString shown = window.modelPanel()->loadError();
            // "Could not load <path>:\n<reason>": the reason itself names the file.
            const QString reason = shown.section(QLatin1Char('\n'), 1);
            EXPECT_TRUE(shown.startsWith(QStringLiteral("Could not load ") + q(path)))
                << shown.toStdString();
            expect_message(row, reason);
            EXPECT_TRUE(window.statusBar()->currentMessage().contains(reason.left(40)))
                << window.statusBar()->currentMessage().toStdString();
            EXPECT_EQ(controller.hasModel(), withModel) << "the previous model stays";
            if (!withModel) std::printf("%-32s | %s\n", row.name.c_str(), qPrintable(reason));
            rows += withModel ? 0 : 1;
        }
    }
    // The window still opens a good model after all that.
    ASSERT_TRUE(open_model_and_wait(controller, q(micro_model_dir()), QString(),
                                    app::GuiController::Remember::no));
    EXPECT_TRUE(window.modelPanel()->loadError().isEmpty());
    controller.files().setOptions(fast_file_options());

    // The Files page: each broken audio file fails with its reason, and nothing of it is kept.
    const bool root = ::geteuid() == 0;
    for (const bad_files::BadFile& row : bad_files::bad_audio()) {
        if (row.unreadable && root) continue;  // root reads it anyway: the CLI table runs it
        SCOPED_TRACE(row.name);
        const TempDir rowDir("earshot-gui-bad-audio");
        const fs::path path = row.make(rowDir.path());
        const int id = transcribe(window, controller, path);
        EXPECT_EQ(window.filesPanel()->queue()->jobState(id), ui::FileJobState::failed);
        const QString status = status_of(*window.filesPanel(), id);
        EXPECT_TRUE(status.startsWith(QStringLiteral("Failed: "))) << status.toStdString();
        // The row's File column names the file; its status gives the problem.
        const int queueRow = static_cast<int>(window.filesPanel()->queue()->jobIds().indexOf(id));
        ASSERT_GE(queueRow, 0);
        const QString name = window.filesPanel()->queueTable()->item(queueRow, 0)->text();
        expect_message(row, name + QStringLiteral(" ") + status);
        window.filesPanel()->selectJob(id);
        expect_message(row, window.filesPanel()->resultTitle()->text());
        EXPECT_TRUE(window.filesPanel()->queue()->jobSegments(id).isEmpty());
        EXPECT_TRUE(window.filesPanel()->queue()->exportableJobs().indexOf(id) < 0);
        std::printf("%-32s | %s\n", row.name.c_str(), qPrintable(status));
        ++rows;
    }
    EXPECT_TRUE(app::FilesHistory(paths_.filesHistoryDir).load().empty())
        << "a failed file left a kept result";

    // A good file transcribes after the failures.
    const int good = transcribe(window, controller, bad_files::jfk());
    ASSERT_EQ(window.filesPanel()->queue()->jobState(good), ui::FileJobState::done)
        << status_of(*window.filesPanel(), good).toStdString();
    EXPECT_EQ(app::FilesHistory(paths_.filesHistoryDir).load().size(), 1U);

    // Export places that cannot be written: one message naming the file and why, no file left.
    const fs::path blocker = dir_.path() / "not-a-folder";
    bad_files::write_bytes(blocker, "a file where the export folder should be");
    {
        SCOPED_TRACE("ExportIntoAFile");
        Q_EMIT window.filesPanel()->exportRequested(good, QStringLiteral("txt"),
                                                    q(blocker / "jfk.txt"));
        const QString message = window.statusBar()->currentMessage();
        EXPECT_TRUE(message.startsWith(QStringLiteral("Export failed: "))) << message.toStdString();
        EXPECT_TRUE(message.contains(q(blocker / "jfk.txt"))) << message.toStdString();
        EXPECT_TRUE(message.contains(QStringLiteral("Not a directory")) ||
                    message.contains(QStringLiteral("No such file or directory")))
            << message.toStdString();
        std::printf("%-32s | %s\n", "Export", qPrintable(message));
        ++rows;
    }
    {
        SCOPED_TRACE("ExportAllIntoAFile");
        Q_EMIT window.filesPanel()->exportAllRequested(
            {{good, QStringLiteral("srt"), q(blocker / "jfk.srt")}}, q(blocker));
        const QString message = window.statusBar()->currentMessage();
        EXPECT_TRUE(message.contains(QStringLiteral("cannot create the folder ") + q(blocker)))
            << message.toStdString();
        EXPECT_TRUE(message.contains(QStringLiteral("0 of 1"))) << message.toStdString();
        std::printf("%-32s | %s\n", "ExportAll", qPrintable(message));
        ++rows;
    }
    if (!root) {
        SCOPED_TRACE("ExportFolderNotWritable");
        const fs::path locked = dir_.path() / "locked";
        fs::create_directories(locked);
        fs::permissions(locked, fs::perms::owner_read | fs::perms::owner_exec);
        Q_EMIT window.filesPanel()->exportRequested(good, QStringLiteral("json"),
                                                    q(locked / "jfk.json"));
        const QString message = window.statusBar()->currentMessage();
        EXPECT_TRUE(message.contains(q(locked / "jfk.json"))) << message.toStdString();
        EXPECT_TRUE(message.contains(QStringLiteral("Permission denied"))) << message.toStdString();
        EXPECT_TRUE(files_in(locked).isEmpty()) << files_in(locked).join(u' ').toStdString();
        fs::permissions(locked, fs::perms::owner_all);
        ++rows;
    }
    EXPECT_TRUE(fs::is_regular_file(blocker)) << "the blocking file was replaced";
    EXPECT_EQ(bad_files::read_bytes(blocker), "a file where the export folder should be");

    // ... and still exports where it can.
    Q_EMIT window.filesPanel()->exportRequested(good, QStringLiteral("txt"),
                                                q(dir_.path() / "jfk.txt"));
    EXPECT_EQ(window.statusBar()->currentMessage(),
              QStringLiteral("Wrote %1").arg(q(dir_.path() / "jfk.txt")));
    EXPECT_TRUE(fs::is_regular_file(dir_.path() / "jfk.txt"));
    EXPECT_GE(rows, 25) << "rows driven through the window";
}

}  // namespace
}  // namespace earshot::test
