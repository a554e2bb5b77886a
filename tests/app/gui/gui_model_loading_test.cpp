// Opening a model in the app reads it on a loader thread: the window keeps running its event loop
// (timers fire, it repaints) with a busy bar in the status bar, and dictation cannot start until
// the model is there.
#include <gtest/gtest.h>

#include <QTimer>
#include <filesystem>

#include "earshot/engine/model/random_checkpoint.h"
#include "earshot/ui/live/live_panel.h"
#include "earshot/ui/main_window.h"
#include "gui/gui_controller.h"
#include "gui_fixture.h"

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
    timer.start();
    ASSERT_TRUE(controller.openModel(QString::fromStdString((dir.path() / "ck").string()),
                                     QString::fromStdString(gui_vocab().string()),
                                     app::GuiController::Remember::no));
    timer.stop();
    // The UI thread ran its timers while the loader read the checkpoint.
    EXPECT_GT(ticks, 0);
    EXPECT_TRUE(sawBusyBar);
    EXPECT_TRUE(sawStartRefused);
    EXPECT_FALSE(window.loadingIndicator()->isVisible());
    EXPECT_TRUE(window.livePanel()->startAllowed());
    EXPECT_TRUE(controller.hasModel());
}

}  // namespace
}  // namespace earshot::test
