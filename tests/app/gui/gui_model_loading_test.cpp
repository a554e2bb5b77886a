// Opening a model in the app reads it on a loader thread: the window keeps running its event loop
// (timers fire, it repaints) with a busy bar in the status bar, and dictation cannot start until
// the model is there.
#include <gtest/gtest.h>

#include <QApplication>
#include <QCoreApplication>
#include <QSignalSpy>
#include <QTimer>
#include <filesystem>
#include <memory>

#include "earshot/engine/model/random_checkpoint.h"
#include "earshot/ui/live/live_panel.h"
#include "earshot/ui/main_window.h"
#include "gui/gui_controller.h"
#include "gui/live/live_bridge.h"
#include "gui_fixture.h"
#include "qt_wait.h"

namespace earshot::test {
namespace {

namespace fs = std::filesystem;

TEST(GuiModelLoading, TheWindowKeepsRunningWhileAModelLoads) {
    ensure_gui_application();
    const TempDir dir("earshot-gui-loading");
    model::RandomCheckpointOptions o;  // big enough to take a moment to read
    o.d = 384;
    o.heads = 6;
    o.enc_layers = 4;
    o.dec_layers = 4;
    o.vocab = 51865;
    model::write_random_checkpoint(dir.path() / "ck", o);

    ui::MainWindow window;
    app::GuiPaths paths;
    paths.settingsFile = QString::fromStdString((dir.path() / "settings.ini").string());
    paths.journal = false;
    paths.listDevices = false;
    app::GuiController controller(window, paths);
    window.show();
    EXPECT_FALSE(window.loadingIndicator()->isVisible());

    int ticks = 0;
    bool sawBusyBar = false;
    bool sawStartRefused = false;
    QTimer timer;
    timer.setInterval(5);
    QObject::connect(&timer, &QTimer::timeout, [&] {
        ++ticks;
        sawBusyBar = sawBusyBar || window.loadingIndicator()->isVisible();
        sawStartRefused = sawStartRefused || !window.livePanel()->startAllowed();
    });
    QSignalSpy loaded(&controller, &app::GuiController::modelLoaded);
    timer.start();
    const QString model = QString::fromStdString((dir.path() / "ck").string());
    ASSERT_TRUE(controller.openModel(model, QString::fromStdString(gui_vocab().string()),
                                     app::GuiController::Remember::no));
    // openModel returned without running an event loop of its own: no timer fired inside it,
    // and the load goes on behind the window.
    EXPECT_EQ(ticks, 0);
    EXPECT_TRUE(controller.isLoadingModel());
    EXPECT_FALSE(controller.hasModel());
    // A second open while the first reads is refused at once, not queued behind it.
    EXPECT_FALSE(controller.openModel(model, QString(), app::GuiController::Remember::no));
    ASSERT_TRUE(loaded.wait(60000));
    timer.stop();
    // The UI thread ran its timers while the loader read the checkpoint.
    EXPECT_GT(ticks, 0);
    EXPECT_TRUE(sawBusyBar);
    EXPECT_TRUE(sawStartRefused);
    EXPECT_FALSE(controller.isLoadingModel());
    EXPECT_FALSE(window.loadingIndicator()->isVisible());
    EXPECT_TRUE(window.livePanel()->startAllowed());
    EXPECT_TRUE(controller.hasModel());
    EXPECT_EQ(loaded.count(), 1);
}

// `earshot start` (or a shortcut) while the window opens its model: dictation begins once the
// model is there, and a stop before then drops the waiting start.
TEST(GuiModelLoading, AStartDuringTheLoadBeginsWhenTheModelIsThere) {
    ensure_gui_application();
    if (!gui_assets_present()) GTEST_SKIP() << "needs jfk.wav from the shared assets";
    const TempDir dir("earshot-gui-loading-start");
    ui::MainWindow window;
    app::GuiController controller(window, settings_only_gui_paths(dir));
    const QString model = QString::fromStdString(gui_random_checkpoint().string());
    const QString vocabulary = QString::fromStdString(gui_vocab().string());
    const QString input = QStringLiteral("file:") + QString::fromStdString(gui_jfk().string());

    // Asked for and then taken back during the load: nothing starts.
    ASSERT_TRUE(controller.openModel(model, vocabulary, app::GuiController::Remember::no));
    EXPECT_FALSE(controller.setLiveRunningOn(input).isEmpty());
    EXPECT_TRUE(controller.isStartPending());
    controller.setLiveRunning(false);
    EXPECT_FALSE(controller.isStartPending());
    wait_for_model_load(controller);
    ASSERT_TRUE(controller.hasModel());
    EXPECT_FALSE(controller.liveRunning());

    // Asked for during the load: it waits, then runs on the input it named.
    ASSERT_TRUE(controller.openModel(model, vocabulary, app::GuiController::Remember::no));
    const QString said = controller.setLiveRunningOn(input);
    EXPECT_EQ(said, QStringLiteral("Starting once the model is loaded…"));
    EXPECT_EQ(window.livePanel()->statusText(), said);
    EXPECT_TRUE(controller.isStartPending());
    EXPECT_FALSE(controller.liveRunning());
    wait_for_model_load(controller);
    EXPECT_TRUE(controller.liveRunning());
    EXPECT_FALSE(controller.isStartPending());
    controller.setLiveRunning(false);
    EXPECT_TRUE(spin_until([&] { return !controller.live().isRunning(); }, 60000));
}

// Closing the window while a model loads waits for the loader and drops its result: nothing is
// delivered to a controller that is gone.
TEST(GuiModelLoading, ClosingMidLoadLeavesNothingBehind) {
    ensure_gui_application();
    const TempDir dir("earshot-gui-loading-close");
    ui::MainWindow window;
    auto controller = std::make_unique<app::GuiController>(window, settings_only_gui_paths(dir));
    ASSERT_TRUE(controller->openModel(QString::fromStdString(gui_random_checkpoint().string()),
                                      QString::fromStdString(gui_vocab().string()),
                                      app::GuiController::Remember::no));
    EXPECT_TRUE(controller->isLoadingModel());
    controller.reset();
    // The loader's queued result, if any, died with the controller: running the events
    // delivers nothing, the busy cursor is gone, and the same model opens in a new window.
    QCoreApplication::sendPostedEvents();
    QCoreApplication::processEvents();
    EXPECT_EQ(QApplication::overrideCursor(), nullptr);
    ui::MainWindow nextWindow;
    app::GuiController next(nextWindow, settings_only_gui_paths(dir));
    EXPECT_TRUE(open_model_and_wait(next, QString::fromStdString(gui_random_checkpoint().string()),
                                    QString::fromStdString(gui_vocab().string()),
                                    app::GuiController::Remember::no));
    EXPECT_TRUE(next.hasModel());
}

}  // namespace
}  // namespace earshot::test
