// The Model page downloads a model from the local hub (tests/support/hub_server.py) under the
// offscreen platform: a stalled transfer shows its progress bar half full and is cancelled, the
// resumed one installs the model, and Use opens it. Both moments are rendered to PNG
// (EARSHOT_SCREENSHOT_DIR=/some/dir keeps them for looking at).
#include <gtest/gtest.h>

#include <QImage>
#include <QLabel>
#include <QProgressBar>
#include <QPushButton>
#include <QTableWidget>
#include <QTest>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <functional>
#include <optional>
#include <string>

#include "earshot/ui/main_window.h"
#include "earshot/ui/model/model_catalog_view.h"
#include "earshot/ui/model/model_panel.h"
#include "file_bytes.h"
#include "gui/gui_controller.h"
#include "gui/models/model_downloads.h"
#include "gui_fixture.h"
#include "micro_model.h"
#include "models_hub_server.h"
#include "temp_dir.h"

namespace earshot::test {
namespace {

namespace fs = std::filesystem;

constexpr int kWaitMs = 30'000;

// Sets environment variables for one test and puts the old values back.
class ScopedEnv {
public:
    void set(const char* name, const std::string& value) {
        const char* old = std::getenv(name);
        saved_.push_back({name, old ? std::optional<std::string>(old) : std::nullopt});
        setenv(name, value.c_str(), 1);
    }
    ~ScopedEnv() {
        for (auto it = saved_.rbegin(); it != saved_.rend(); ++it) {
            if (it->second) {
                setenv(it->first, it->second->c_str(), 1);
            } else {
                unsetenv(it->first);
            }
        }
    }

private:
    std::vector<std::pair<const char*, std::optional<std::string>>> saved_;
};

bool wait_until(const std::function<bool()>& done, int timeout_ms) {
    const auto end = std::chrono::steady_clock::now() + std::chrono::milliseconds(timeout_ms);
    while (!done()) {
        if (std::chrono::steady_clock::now() > end) return false;
        QTest::qWait(20);
    }
    return true;
}

QString keep_dir_or(const fs::path& fallback) {
    const QString keep = qEnvironmentVariable("EARSHOT_SCREENSHOT_DIR");
    return keep.isEmpty() ? QString::fromStdString(fallback.string()) : keep;
}

TEST(ModelsGui, DownloadsResumesAndUsesAModel) {
    ensure_gui_application();
    const TempDir dir("earshot-models-gui");
    const fs::path hub = dir.path() / "hub";
    const fs::path log = dir.path() / "requests.log";
    write_catalog(dir.path() / "catalog.json",
                  {publish(hub, "earshot-test/micro", "micro-test", "hf", micro_model_dir(),
                           {{"config.json"},
                            {"generation_config.json"},
                            {"vocab.json"},
                            {"merges.txt"},
                            {"model.safetensors", false}})});
    const HubServer server(hub, log);
    ASSERT_GT(server.port(), 0);
    ScopedEnv env;
    env.set("XDG_DATA_HOME", (dir.path() / "data").string());
    env.set("EARSHOT_CATALOG", (dir.path() / "catalog.json").string());
    env.set("EARSHOT_HUB_URL", server.url("stall"));
    for (const char* proxy : {"http_proxy", "all_proxy", "ALL_PROXY"}) env.set(proxy, "");

    ui::MainWindow window;
    window.resize(1100, 820);
    app::GuiPaths paths;
    paths.settingsFile = QString::fromStdString((dir.path() / "settings.ini").string());
    paths.journal = false;
    paths.listDevices = false;
    app::GuiController controller(window, paths);
    ui::ModelCatalogView* view = window.modelPanel()->catalogView();
    app::ModelDownloads downloads(*view);
    window.showPage(ui::MainWindow::Page::model);
    window.show();

    ASSERT_NE(view->row("micro-test"), nullptr);
    EXPECT_EQ(view->row("micro-test")->download, "9.1 MB");
    EXPECT_NE(view->row("whisper-large-v3"), nullptr);  // the built-in catalog is listed too
    view->selectModel("micro-test");
    ASSERT_TRUE(view->downloadButton()->isEnabled());
    EXPECT_FALSE(view->useButton()->isEnabled());
    QTest::mouseClick(view->downloadButton(), Qt::LeftButton);

    // The stalling server sends half of model.safetensors and then nothing.
    const qint64 weights =
        static_cast<qint64>(fs::file_size(micro_model_dir() / "model.safetensors"));
    ASSERT_TRUE(wait_until(
        [&] {
            const ui::CatalogRow* row = view->row("micro-test");
            return row->receivedBytes == weights / 2 && row->totalBytes == weights &&
                   view->progressBar("micro-test") != nullptr;
        },
        kWaitMs))
        << view->row("micro-test")->progressText.toStdString();
    QTest::qWait(600);  // one more rate window: the rate and time left settle
    EXPECT_EQ(view->progressBar("micro-test")->value(), 500);
    EXPECT_TRUE(view->row("micro-test")->progressText.startsWith("model.safetensors [5/5]: "))
        << view->row("micro-test")->progressText.toStdString();
    EXPECT_TRUE(view->cancelButton()->isEnabled());
    EXPECT_FALSE(view->downloadButton()->isEnabled());
    const QImage downloading = window.grab().toImage();
    ASSERT_TRUE(downloading.save(keep_dir_or(dir.path()) + "/models_gui_downloading.png", "PNG"));

    QTest::mouseClick(view->cancelButton(), Qt::LeftButton);
    ASSERT_TRUE(wait_until([&] { return !downloads.isDownloading("micro-test"); }, kWaitMs));
    EXPECT_EQ(view->row("micro-test")->state, ui::CatalogRow::State::partial);
    EXPECT_EQ(view->downloadButton()->text(), "Resume &download");

    env.set("EARSHOT_HUB_URL", server.url());
    QTest::mouseClick(view->downloadButton(), Qt::LeftButton);
    ASSERT_TRUE(wait_until([&] { return !downloads.isDownloading("micro-test"); }, kWaitMs));
    const ui::CatalogRow* installed = view->row("micro-test");
    ASSERT_EQ(installed->state, ui::CatalogRow::State::installed) << installed->error.toStdString();
    const fs::path folder = dir.path() / "data" / "earshot" / "models" / "micro-test";
    EXPECT_EQ(installed->location.toStdString(), folder.string());
    EXPECT_TRUE(read_file_text(log).find("bytes=" + std::to_string(weights / 2) + "- 206") !=
                std::string::npos);
    EXPECT_EQ(read_file_bytes(folder / "model.safetensors", "downloaded"),
              read_file_bytes(micro_model_dir() / "model.safetensors", "original"));

    ASSERT_TRUE(view->useButton()->isEnabled());
    QTest::mouseClick(view->useButton(), Qt::LeftButton);
    wait_for_model_load(controller);
    ASSERT_TRUE(controller.hasModel());
    EXPECT_EQ(window.modelPanel()->summary().path.toStdString(), folder.string());
    EXPECT_TRUE(window.modelPanel()->titleLabel()->text().startsWith("micro-test"))
        << window.modelPanel()->titleLabel()->text().toStdString();
    const QImage done = window.grab().toImage();
    ASSERT_TRUE(done.save(keep_dir_or(dir.path()) + "/models_gui_installed.png", "PNG"));
    EXPECT_GT(count_ink_pixels(done), 2000);
}

TEST(ModelsGui, AFailedDownloadSaysWhy) {
    ensure_gui_application();
    const TempDir dir("earshot-models-gui");
    const fs::path hub = dir.path() / "hub";
    write_catalog(dir.path() / "catalog.json",
                  {publish(hub, "earshot-test/micro", "micro-test", "hf", micro_model_dir(),
                           {{"config.json"}})});
    const HubServer server(hub, dir.path() / "requests.log");
    ScopedEnv env;
    env.set("XDG_DATA_HOME", (dir.path() / "data").string());
    env.set("EARSHOT_CATALOG", (dir.path() / "catalog.json").string());
    env.set("EARSHOT_HUB_URL", server.url("404"));
    for (const char* proxy : {"http_proxy", "all_proxy", "ALL_PROXY"}) env.set(proxy, "");

    ui::ModelCatalogView view;
    app::ModelDownloads downloads(view);
    view.selectModel("micro-test");
    QTest::mouseClick(view.downloadButton(), Qt::LeftButton);
    ASSERT_TRUE(wait_until([&] { return !downloads.isDownloading("micro-test"); }, kWaitMs));
    EXPECT_EQ(view.row("micro-test")->state, ui::CatalogRow::State::failed);
    EXPECT_TRUE(view.statusLabel()->text().startsWith(
        "micro-test: download failed: not found (404): config.json is not in earshot-test/micro"))
        << view.statusLabel()->text().toStdString();
    EXPECT_TRUE(view.downloadButton()->isEnabled());  // try again
}

}  // namespace
}  // namespace earshot::test
