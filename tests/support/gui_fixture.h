// Shared by the GUI tests of earshot_app_tests: one offscreen QApplication for the binary, a small
// random checkpoint with the multilingual vocabulary, jfk.wav, and counting painted pixels.
#pragma once

#include <gtest/gtest.h>

#include <QApplication>
#include <QColor>
#include <QEventLoop>
#include <QImage>
#include <QTimer>
#include <cstdlib>
#include <filesystem>
#include <memory>

#include "earshot/engine/decoding/long_form.h"
#include "earshot/engine/model/random_checkpoint.h"
#include "gui/gui_controller.h"
#include "ink_pixels.h"
#include "small_checkpoint.h"
#include "temp_dir.h"

namespace earshot::test {

// Creates the QApplication on the offscreen platform unless another test already made one.
inline void ensure_gui_application() {
    if (QApplication::instance() != nullptr) return;
    qputenv("QT_QPA_PLATFORM", "offscreen");
    static int argc = 1;
    static char name[] = "earshot_app_tests";
    static char* argv[] = {name, nullptr};
    // Never destroyed: a QApplication torn down by the exit handlers, after Qt's own globals,
    // crashes the process after the tests passed.
    static QApplication* application = new QApplication(argc, argv);
    (void)application;
}

// Opens a model as the window does (read on the loader's thread) and waits for the answer: true
// when it loaded, false when openModel refused or the load failed.
inline bool open_model_and_wait(app::GuiController& controller, const QString& model,
                                const QString& vocabulary, app::GuiController::Remember remember) {
    QEventLoop loop;
    bool loaded = false;
    QObject::connect(&controller, &app::GuiController::modelLoaded, &loop, [&] {
        loaded = true;
        loop.quit();
    });
    QObject::connect(&controller, &app::GuiController::modelLoadFailed, &loop, &QEventLoop::quit);
    if (!controller.openModel(model, vocabulary, remember)) return false;
    loop.exec();
    return loaded;
}

// Waits for a model load that something else started (a page's choice, a backend change) to
// end; returns at once when none runs.
inline void wait_for_model_load(app::GuiController& controller) {
    if (!controller.isLoadingModel()) return;
    QEventLoop loop;
    QObject::connect(&controller, &app::GuiController::modelLoaded, &loop, &QEventLoop::quit);
    QObject::connect(&controller, &app::GuiController::modelLoadFailed, &loop, &QEventLoop::quit);
    loop.exec();
}

// openInitialModel, waiting until the window has settled on a model (or on none).
inline void open_initial_model_and_wait(app::GuiController& controller, const QString& model,
                                        const QString& vocabulary) {
    QEventLoop loop;
    bool settled = false;
    QObject::connect(&controller, &app::GuiController::initialModelSettled, &loop, [&] {
        settled = true;
        loop.quit();
    });
    controller.openInitialModel(model, vocabulary);
    if (!settled) loop.exec();
}

// Paths for a window under test: its settings in `dir`, no journal, no device listing.
inline app::GuiPaths settings_only_gui_paths(const TempDir& dir) {
    app::GuiPaths paths;
    paths.settingsFile = QString::fromStdString((dir.path() / "settings.ini").string());
    paths.journal = false;
    paths.listDevices = false;
    return paths;
}

inline std::filesystem::path gui_shared_asset(const char* name) {
    return std::filesystem::path(EARSHOT_SHARED_DIR) / "whisper-assets" / name;
}
inline std::filesystem::path gui_jfk() { return gui_shared_asset("jfk.wav"); }
inline std::filesystem::path gui_vocab() { return gui_shared_asset("multilingual.tiktoken"); }
inline bool gui_assets_present() {
    return std::filesystem::exists(gui_jfk()) && std::filesystem::exists(gui_vocab());
}

// A random checkpoint small enough to transcribe jfk.wav in about a second (D 64, 2 + 2 layers),
// with the multilingual vocabulary's size; written once per process.
inline const std::filesystem::path& gui_random_checkpoint() {
    static const std::unique_ptr<TempDir> dir = [] {
        auto d = std::make_unique<TempDir>("earshot-gui-model");
        model::write_random_checkpoint(d->path() / "ck", small_checkpoint_options());
        return d;
    }();
    static const std::filesystem::path path = dir->path() / "ck";
    return path;
}

// File transcription as fast as it goes on a random model: English, greedy, temperature 0 only
// (a random model's text would otherwise climb the whole fallback ladder).
inline decoding::TranscribeOptions fast_file_options() {
    decoding::TranscribeOptions options;
    options.decoding.language = "en";
    options.decoding.beam_size = 1;
    options.decoding.temperatures = {0.0};
    return options;
}

// Runs the event loop until `sender` emits `signal` or `timeout_ms` pass; true when it emitted.
template <typename Sender, typename Signal>
bool wait_for_signal(const Sender* sender, Signal signal, int timeout_ms) {
    QEventLoop loop;
    bool emitted = false;
    QObject::connect(sender, signal, &loop, [&] {
        emitted = true;
        loop.quit();
    });
    QTimer::singleShot(timeout_ms, &loop, &QEventLoop::quit);
    loop.exec();
    return emitted;
}

// Pixels clearly different from the image's top-left (background) pixel (ink_pixels.h).
inline int count_ink_pixels(const QImage& image) { return ui::test::countInkPixels(image); }

}  // namespace earshot::test
