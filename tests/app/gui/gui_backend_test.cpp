// The GUI's backend on the offscreen platform: the status bar names the backend the loaded model
// runs on, with auto's fallback reason as its tooltip; a CUDA choice that cannot run loads on the
// CPU with a message instead of failing; changing the backend reloads the model; the Settings
// dialog gets CUDA's device or the precise reason; `earshot gui --backend cuda` keeps running.
#include <gtest/gtest.h>

#include <QLabel>
#include <QSettings>
#include <QStatusBar>
#include <filesystem>
#include <optional>
#include <string>

#include "cuda_test_device.h"
#include "earshot/engine/backend/cuda_devices.h"
#include "earshot/ui/main_window.h"
#include "gui/cuda_availability.h"
#include "gui/gui_controller.h"
#include "gui_fixture.h"
#include "micro_model.h"
#include "run_process.h"

namespace earshot::test {
namespace {

namespace fs = std::filesystem;

// A settings file choosing `backend`, and the controller's other paths in `dir`.
app::GuiPaths paths_with_backend(const TempDir& dir, const QString& backend) {
    app::GuiPaths paths;
    paths.settingsFile = QString::fromStdString((dir.path() / "settings.ini").string());
    paths.journalFile = QString::fromStdString((dir.path() / "journal.txt").string());
    paths.listDevices = false;
    QSettings store(paths.settingsFile, QSettings::IniFormat);
    store.setValue(QStringLiteral("settings/backend"), backend);
    store.sync();
    return paths;
}

QLabel* backend_label(ui::MainWindow& window) {
    return window.findChild<QLabel*>(QStringLiteral("backendLabel"));
}

const QString kMicro = QString::fromStdString(micro_model_dir().string());

TEST(GuiBackend, AutoShowsTheBackendInUseAndWhyItFellBack) {
    ensure_gui_application();
    const std::optional<backend::CudaError> why = cuda_unavailable_error();
    if (!why) GTEST_SKIP() << "a CUDA device is usable here: auto runs on it";
    const TempDir dir("earshot-gui-backend");
    ui::MainWindow window;
    app::GuiController controller(window, paths_with_backend(dir, QStringLiteral("auto")));
    QLabel* label = backend_label(window);
    ASSERT_NE(label, nullptr);
    EXPECT_EQ(label->text(), QStringLiteral("Backend: Automatic"));  // no model yet

    ASSERT_TRUE(
        open_model_and_wait(controller, kMicro, QString(), app::GuiController::Remember::no));
    const QString reason = QStringLiteral("CUDA is not available (%1: %2); running on the CPU")
                               .arg(QString::fromUtf8(backend::cuda_error_kind_name(why->kind())),
                                    QString::fromStdString(why->what()));
    EXPECT_EQ(label->text(), QStringLiteral("Backend: CPU"));
    EXPECT_EQ(label->toolTip(), reason);
    EXPECT_EQ(controller.backendNote(), reason);
    EXPECT_EQ(window.statusBar()->currentMessage(), reason);

    // Choosing the CPU reloads the model there: nothing fell back any more.
    ui::Settings cpu = controller.settings();
    cpu.backend = QStringLiteral("cpu");
    controller.applySettings(cpu);
    wait_for_model_load(controller);
    ASSERT_TRUE(controller.hasModel());
    EXPECT_EQ(label->text(), QStringLiteral("Backend: CPU"));
    EXPECT_TRUE(label->toolTip().isEmpty()) << label->toolTip().toStdString();
    EXPECT_TRUE(controller.backendNote().isEmpty());
}

TEST(GuiBackend, ACudaChoiceThatCannotRunLoadsOnTheCpuWithAMessage) {
    ensure_gui_application();
    const std::optional<backend::CudaError> why = cuda_unavailable_error();
    if (!why) GTEST_SKIP() << "a CUDA device is usable here";
    const TempDir dir("earshot-gui-cuda");
    ui::MainWindow window;
    app::GuiController controller(window, paths_with_backend(dir, QStringLiteral("cuda")));
    EXPECT_EQ(backend_label(window)->text(), QStringLiteral("Backend: CUDA"));
    ASSERT_TRUE(
        open_model_and_wait(controller, kMicro, QString(), app::GuiController::Remember::no));
    EXPECT_TRUE(controller.hasModel());
    EXPECT_EQ(controller.model()->model->backend_name(), "CPU");
    const QString message =
        QStringLiteral("CUDA was chosen but cannot run (%1: %2); running on the CPU")
            .arg(QString::fromUtf8(backend::cuda_error_kind_name(why->kind())),
                 QString::fromStdString(why->what()));
    EXPECT_EQ(backend_label(window)->text(), QStringLiteral("Backend: CPU"));
    EXPECT_EQ(backend_label(window)->toolTip(), message);
    EXPECT_EQ(window.statusBar()->currentMessage(), message);
}

TEST(GuiBackend, TheSettingsDialogGetsCudasDeviceOrReason) {
    const ui::CudaAvailability cuda = app::cuda_availability();
    if (const std::optional<backend::CudaError> why = cuda_unavailable_error()) {
        EXPECT_FALSE(cuda.available);
        EXPECT_EQ(cuda.detail, QString::fromStdString(why->what()));
    } else {
        EXPECT_TRUE(cuda.available);
        EXPECT_TRUE(cuda.detail.startsWith(
            QString::fromStdString(backend::describe_cuda_device(backend::cuda_devices().front()))))
            << cuda.detail.toStdString();
    }
}

// The real executable: an explicit CUDA choice without a GPU still renders the window (exit 0)
// and says once on stderr that it runs on the CPU instead.
TEST(GuiBackend, GuiWithCudaThatCannotRunKeepsRunning) {
    const TempDir dir("earshot-gui-cuda-shot");
    const fs::path png = dir.path() / "shot.png";
    const ProcessResult result = run_shell(
        "env -u EARSHOT_CUDA_MODULE HOME=" + shell_quote(dir.path().string()) +
        " XDG_CONFIG_HOME=" + shell_quote((dir.path() / "config").string()) + " " +
        shell_quote(EARSHOT_EXE) + " gui --backend cuda --model " +
        shell_quote(micro_model_dir().string()) + " --screenshot " + shell_quote(png.string()));
    ASSERT_EQ(result.exit_code, 0) << result.err;
    EXPECT_TRUE(fs::is_regular_file(png));
    const ProcessResult gpus = run_earshot("gpus");
    if (gpus.out.starts_with("  index")) {
        EXPECT_EQ(result.err.find("running on the CPU"), std::string::npos) << result.err;
        return;
    }
    const std::string line = "earshot: CUDA was chosen but cannot run (";
    const size_t at = result.err.find(line);
    ASSERT_NE(at, std::string::npos) << result.err;
    EXPECT_EQ(result.err.find(line, at + 1), std::string::npos) << result.err;  // once
}

}  // namespace
}  // namespace earshot::test
