// GuiController and its helpers on the offscreen platform: loading a model (the summary, the
// remembered choice, the loader's exact reason on failure), the default model's lookup, settings
// applied to dictation and files, and exports of a transcribed file in every format.
#include "gui/gui_controller.h"

#include <gtest/gtest.h>

#include <QFile>
#include <QLabel>
#include <QPushButton>
#include <QSettings>
#include <QSignalSpy>
#include <QTableWidget>
#include <exception>
#include <filesystem>
#include <stdexcept>
#include <string>

#include "earshot/core/loaded_model.h"
#include "earshot/engine/tokenizer/tokenizer.h"
#include "earshot/ui/files/files_panel.h"
#include "earshot/ui/files/files_queue.h"
#include "earshot/ui/inspector/graph_group_item.h"
#include "earshot/ui/inspector/graph_view.h"
#include "earshot/ui/inspector/inspector_widget.h"
#include "earshot/ui/live/live_panel.h"
#include "earshot/ui/main_window.h"
#include "earshot/ui/model/model_panel.h"
#include "gui/files/files_worker.h"
#include "gui/gui_options.h"
#include "gui/live/live_bridge.h"
#include "gui/models/default_model.h"
#include "gui/run_gui.h"
#include "gui_fixture.h"

namespace earshot::test {
namespace {

namespace fs = std::filesystem;

app::GuiPaths temp_paths(const TempDir& dir) {
    app::GuiPaths paths;
    paths.settingsFile = QString::fromStdString((dir.path() / "settings.ini").string());
    paths.journalFile = QString::fromStdString((dir.path() / "journal.txt").string());
    paths.listDevices = false;
    return paths;
}

QString q(const fs::path& path) { return QString::fromStdString(path.string()); }

TEST(GuiController, LoadsAModelAndRemembersTheChoice) {
    if (!gui_assets_present()) GTEST_SKIP() << "multilingual.tiktoken not found";
    ensure_gui_application();
    const TempDir dir("earshot-gui-ctl");
    {
        ui::MainWindow window;
        app::GuiController controller(window, temp_paths(dir));
        ASSERT_TRUE(open_model_and_wait(controller, q(gui_random_checkpoint()), q(gui_vocab()),
                                        app::GuiController::Remember::yes));
        EXPECT_TRUE(controller.hasModel());
        const ui::ModelSummary& summary = window.modelPanel()->summary();
        EXPECT_EQ(summary.path, q(gui_random_checkpoint()));
        EXPECT_EQ(summary.format, QStringLiteral("hf_directory"));
        // The bound generics, in declaration order, as `inspect` prints them.
        ASSERT_GE(summary.generics.size(), 10);
        bool sawD = false;
        for (const auto& [name, value] : summary.generics) {
            if (name == QStringLiteral("D")) {
                EXPECT_EQ(value, QStringLiteral("64"));
                sawD = true;
            }
        }
        EXPECT_TRUE(sawD);
        EXPECT_EQ(summary.languages.size(), 99);  // the 51865-token layout
        EXPECT_EQ(summary.languages.front(), QStringLiteral("en"));
        EXPECT_TRUE(window.livePanel()->startAllowed());
    }
    // A new session opens the remembered model (and vocabulary) by itself.
    ui::MainWindow window;
    app::GuiController controller(window, temp_paths(dir));
    open_initial_model_and_wait(controller, QString(), QString());
    ASSERT_TRUE(controller.hasModel());
    EXPECT_EQ(window.modelPanel()->summary().path, q(gui_random_checkpoint()));
    EXPECT_EQ(window.modelPanel()->summary().vocabularyPath, q(gui_vocab()));
    EXPECT_EQ(window.currentPage(), ui::MainWindow::Page::live);
}

TEST(GuiController, AFailedLoadShowsTheLoadersExactReason) {
    ensure_gui_application();
    const TempDir dir("earshot-gui-bad");
    const fs::path broken = dir.path() / "broken";
    fs::create_directories(broken);
    std::string expected;
    try {
        app::load_model(broken);
        FAIL() << "an empty folder loaded";
    } catch (const std::exception& error) {
        expected = error.what();
    }
    ASSERT_FALSE(expected.empty());

    ui::MainWindow window;
    app::GuiController controller(window, temp_paths(dir));
    EXPECT_FALSE(
        open_model_and_wait(controller, q(broken), QString(), app::GuiController::Remember::yes));
    EXPECT_FALSE(controller.hasModel());
    const QString shown = window.modelPanel()->loadError();
    EXPECT_TRUE(shown.contains(QString::fromStdString(expected))) << shown.toStdString();
    EXPECT_TRUE(shown.contains(q(broken)));
    EXPECT_FALSE(window.livePanel()->startAllowed());
    // A failed choice is not remembered.
    QSettings store(temp_paths(dir).settingsFile, QSettings::IniFormat);
    EXPECT_FALSE(store.contains(QStringLiteral("model/path")));
}

TEST(GuiController, ACheckpointWithoutTokenizerFilesOpensWithAChosenVocabularyFolder) {
    ensure_gui_application();
    const TempDir dir("earshot-gui-vocab");
    // A random checkpoint with the micro model's English-only size and no tokenizer files; the
    // micro model's folder (vocab.json + merges.txt) is its vocabulary.
    const fs::path checkpoint = dir.path() / "ck";
    model::RandomCheckpointOptions o;
    o.d = 64;
    o.heads = 4;
    o.enc_layers = 1;
    o.dec_layers = 1;
    o.vocab = 51864;
    model::write_random_checkpoint(checkpoint, o);
    const fs::path vocabulary = fs::path(EARSHOT_TEST_GOLDEN_DIR).parent_path().parent_path() /
                                "resources" / "models" / "micro" / "model";
    ASSERT_TRUE(fs::exists(vocabulary / "vocab.json"));
    {
        ui::MainWindow window;
        app::GuiController controller(window, temp_paths(dir));
        // The folder alone fails, and the Model page offers a vocabulary for that checkpoint.
        ui::ModelPanel* panel = window.modelPanel();
        EXPECT_FALSE(open_model_and_wait(controller, q(checkpoint), QString(),
                                         app::GuiController::Remember::yes));
        EXPECT_FALSE(controller.hasModel());
        EXPECT_TRUE(panel->loadError().contains(QStringLiteral("vocabulary")))
            << panel->loadError().toStdString();
        EXPECT_EQ(panel->vocabularyTarget(), q(checkpoint));
        auto* button = panel->findChild<QPushButton*>(QStringLiteral("chooseVocabularyButton"));
        ASSERT_NE(button, nullptr);
        EXPECT_TRUE(button->isEnabled());

        // A vocabulary folder chosen on the page opens that checkpoint with it.
        QSignalSpy loaded(&controller, &app::GuiController::modelLoaded);
        Q_EMIT panel->modelChosen(panel->vocabularyTarget(), q(vocabulary));
        wait_for_model_load(controller);
        ASSERT_EQ(loaded.count(), 1) << panel->loadError().toStdString();
        EXPECT_TRUE(controller.hasModel());
        EXPECT_EQ(panel->summary().path, q(checkpoint));
        EXPECT_EQ(panel->summary().vocabularyPath, q(vocabulary));
        EXPECT_TRUE(panel->loadError().isEmpty());
    }
    // Choosing the same checkpoint folder again, in a new session, needs no vocabulary.
    ui::MainWindow window;
    app::GuiController controller(window, temp_paths(dir));
    QSignalSpy loaded(&controller, &app::GuiController::modelLoaded);
    Q_EMIT window.modelPanel()->modelChosen(q(checkpoint), QString());
    wait_for_model_load(controller);
    ASSERT_EQ(loaded.count(), 1) << window.modelPanel()->loadError().toStdString();
    EXPECT_EQ(window.modelPanel()->summary().path, q(checkpoint));
    EXPECT_EQ(window.modelPanel()->summary().vocabularyPath, q(vocabulary));
}

TEST(GuiController, WithoutAnyModelSaysWhereTheDefaultIsLookedFor) {
    ensure_gui_application();
    const std::vector<fs::path> candidates = app::default_model_candidates();
    ASSERT_EQ(candidates.size(), 2u);
    EXPECT_EQ(candidates[0].filename(), "micro");
    EXPECT_EQ(candidates[0].parent_path().filename(), "models");
    const fs::path source_dir = fs::path(EARSHOT_TEST_GOLDEN_DIR).parent_path().parent_path();
    EXPECT_EQ(candidates[1], source_dir / "resources" / "models" / "micro" / "model");
    const QString message = app::no_model_message();
    EXPECT_TRUE(message.startsWith(ui::MainWindow::defaultNoModelMessage()));
    for (const fs::path& candidate : candidates) {
        EXPECT_TRUE(message.contains(q(candidate))) << message.toStdString();
    }

    const TempDir dir("earshot-gui-none");
    ui::MainWindow window;
    app::GuiController controller(window, temp_paths(dir));
    open_initial_model_and_wait(controller, QString(), QString());
    if (const auto found = app::default_model_path()) {
        // The micro model is there (built or installed): it opens by default.
        EXPECT_TRUE(controller.hasModel()) << window.modelPanel()->loadError().toStdString();
        EXPECT_EQ(window.modelPanel()->summary().path, q(*found));
    } else {
        EXPECT_FALSE(controller.hasModel());
        EXPECT_EQ(window.modelPanel()->noModelLabel()->text(), message);
        EXPECT_EQ(window.currentPage(), ui::MainWindow::Page::model);
    }
}

TEST(GuiOptions, SettingsBecomeLiveAndFileOptions) {
    if (!gui_assets_present()) GTEST_SKIP() << "multilingual.tiktoken not found";
    const tokenizer::Tokenizer tok = tokenizer::Tokenizer::load(gui_vocab());
    ui::Settings settings;
    settings.language = QStringLiteral("de");
    settings.task = QStringLiteral("translate");
    settings.beamSize = 3;
    settings.updateIntervalMs = 730;
    settings.vadMarginDb = 7.5;
    const app::LiveOptions live = app::live_options(settings, QStringLiteral("pulse"), tok);
    EXPECT_EQ(live.device, "pulse");
    EXPECT_EQ(live.streaming.update_frames, 73);
    EXPECT_EQ(live.streaming.decoding.language, "de");
    EXPECT_EQ(live.streaming.decoding.task, decoding::Task::translate);
    EXPECT_DOUBLE_EQ(live.vad.margin_db, 7.5);
    // The guard is on by default; the Settings switch turns it off as --no-guard does.
    EXPECT_TRUE(live.guard_invented_words);
    settings.guardInventedWords = false;
    EXPECT_FALSE(app::live_options(settings, QString(), tok).guard_invented_words);
    settings.guardInventedWords = true;
    const decoding::TranscribeOptions files = app::transcribe_options(settings, tok);
    EXPECT_EQ(files.decoding.beam_size, 3);
    EXPECT_EQ(files.decoding.language, "de");

    settings.language = QStringLiteral("auto");
    EXPECT_EQ(app::transcribe_options(settings, tok).decoding.language, "");
    settings.language = QStringLiteral("xx");
    EXPECT_THROW(app::live_options(settings, QString(), tok), std::invalid_argument);
}

TEST(GuiController, ExportsATranscribedFileInEveryFormat) {
    if (!gui_assets_present()) GTEST_SKIP() << "jfk.wav or multilingual.tiktoken not found";
    ensure_gui_application();
    const TempDir dir("earshot-gui-export");
    ui::MainWindow window;
    app::GuiController controller(window, temp_paths(dir));
    ASSERT_TRUE(open_model_and_wait(controller, q(gui_random_checkpoint()), q(gui_vocab()),
                                    app::GuiController::Remember::no));
    controller.files().setOptions(fast_file_options());
    const int id = window.filesPanel()->queue()->addFiles({q(gui_jfk())}).first();
    ASSERT_TRUE(app::wait_for_files(controller, 120'000));
    ASSERT_EQ(window.filesPanel()->queue()->jobState(id), ui::FileJobState::done);

    for (const char* format : {"txt", "srt", "vtt", "json"}) {
        const fs::path out = dir.path() / (std::string("jfk.") + format);
        Q_EMIT window.filesPanel()->exportRequested(id, QString::fromLatin1(format), q(out));
        QFile file(q(out));
        ASSERT_TRUE(file.open(QIODevice::ReadOnly)) << format;
        const QByteArray bytes = file.readAll();
        EXPECT_FALSE(bytes.isEmpty()) << format;
        if (std::string(format) == "vtt") {
            EXPECT_TRUE(bytes.startsWith("WEBVTT\n\n"));
        }
        if (std::string(format) == "json") {
            EXPECT_TRUE(bytes.contains("\"language\": \"en\""));
        }
    }
    EXPECT_FALSE(controller.files()
                     .exportTranscript(id + 100, QStringLiteral("txt"), q(dir.path() / "none.txt"))
                     .isEmpty());
}

// A finished file's result is kept: after a restart it is listed again, with its segments, and
// exports as it did before.
TEST(GuiController, FinishedFilesSurviveARestart) {
    if (!gui_assets_present()) GTEST_SKIP() << "jfk.wav or multilingual.tiktoken not found";
    ensure_gui_application();
    const TempDir dir("earshot-gui-history");
    QList<ui::SegmentRow> segments;
    QByteArray exported;
    {
        ui::MainWindow window;
        app::GuiController controller(window, temp_paths(dir));
        ASSERT_TRUE(open_model_and_wait(controller, q(gui_random_checkpoint()), q(gui_vocab()),
                                        app::GuiController::Remember::no));
        controller.files().setOptions(fast_file_options());
        const int id = window.filesPanel()->queue()->addFiles({q(gui_jfk())}).first();
        ASSERT_TRUE(app::wait_for_files(controller, 120'000));
        ASSERT_EQ(window.filesPanel()->queue()->jobState(id), ui::FileJobState::done);
        segments = window.filesPanel()->queue()->jobSegments(id);
        ASSERT_FALSE(segments.isEmpty());
        ASSERT_EQ(controller.files().exportTranscript(id, QStringLiteral("srt"),
                                                      q(dir.path() / "before.srt")),
                  QString());
        QFile file(q(dir.path() / "before.srt"));
        ASSERT_TRUE(file.open(QIODevice::ReadOnly));
        exported = file.readAll();
    }
    ui::MainWindow window;
    app::GuiController controller(window, temp_paths(dir));  // no model needed to see results
    const QList<int> ids = window.filesPanel()->queue()->jobIds();
    ASSERT_EQ(ids.size(), 1);
    EXPECT_EQ(window.filesPanel()->queue()->jobPath(ids[0]), q(gui_jfk()));
    EXPECT_EQ(window.filesPanel()->queue()->jobState(ids[0]), ui::FileJobState::done);
    const QList<ui::SegmentRow> restored = window.filesPanel()->queue()->jobSegments(ids[0]);
    ASSERT_EQ(restored.size(), segments.size());
    for (qsizetype i = 0; i < segments.size(); ++i) {
        EXPECT_EQ(restored[i].text, segments[i].text);
        EXPECT_DOUBLE_EQ(restored[i].startS, segments[i].startS);
        EXPECT_DOUBLE_EQ(restored[i].endS, segments[i].endS);
    }
    EXPECT_EQ(window.filesPanel()->queue()->unfinishedJobs(), 0);
    ASSERT_EQ(controller.files().exportTranscript(ids[0], QStringLiteral("srt"),
                                                  q(dir.path() / "after.srt")),
              QString());
    QFile file(q(dir.path() / "after.srt"));
    ASSERT_TRUE(file.open(QIODevice::ReadOnly));
    EXPECT_EQ(file.readAll(), exported);
}

TEST(GuiController, CancellingAQueuedFileRemovesIt) {
    if (!gui_assets_present()) GTEST_SKIP() << "jfk.wav or multilingual.tiktoken not found";
    ensure_gui_application();
    const TempDir dir("earshot-gui-cancel");
    ui::MainWindow window;
    app::GuiController controller(window, temp_paths(dir));
    // No model yet: the jobs wait in the queue.
    const QList<int> ids = window.filesPanel()->queue()->addFiles({q(gui_jfk()), q(gui_jfk())});
    EXPECT_FALSE(controller.files().isBusy());
    Q_EMIT window.filesPanel()->cancelRequested(ids[0]);
    EXPECT_EQ(window.filesPanel()->queue()->jobState(ids[0]), ui::FileJobState::cancelled);
    // Held while the fast options go in, then released: the second file starts.
    controller.files().setHeld(true);
    ASSERT_TRUE(open_model_and_wait(controller, q(gui_random_checkpoint()), q(gui_vocab()),
                                    app::GuiController::Remember::no));
    EXPECT_FALSE(controller.files().isBusy());
    controller.files().setOptions(fast_file_options());
    controller.files().setHeld(false);
    EXPECT_TRUE(controller.files().isBusy());
    // The model is busy with files: Start stays possible, and pauses them.
    EXPECT_TRUE(window.livePanel()->startAllowed());
    EXPECT_EQ(window.livePanel()->statusText(),
              QStringLiteral("Files are being transcribed: Start pauses them while you dictate."));
    ASSERT_TRUE(app::wait_for_files(controller, 120'000));
    EXPECT_EQ(window.filesPanel()->queue()->jobState(ids[1]), ui::FileJobState::done);
    EXPECT_TRUE(window.livePanel()->startAllowed());
    EXPECT_EQ(controller.files().transcript(ids[0]), nullptr);
}

TEST(GuiController, DictationHeatsTheInspectorsGraph) {
    if (!gui_assets_present()) GTEST_SKIP() << "jfk.wav or multilingual.tiktoken not found";
    ensure_gui_application();
    const TempDir dir("earshot-gui-heat");
    ui::MainWindow window;
    app::GuiController controller(window, temp_paths(dir));
    ASSERT_TRUE(open_model_and_wait(controller, q(gui_random_checkpoint()), q(gui_vocab()),
                                    app::GuiController::Remember::no));
    ASSERT_TRUE(app::show_view(window, "graph:encode"));
    const ui::GraphGroupItem* layers = controller.inspector().graphView()->groupItem(
        QStringLiteral("for layer in encoder_layers"));
    ASSERT_NE(layers, nullptr);
    EXPECT_FALSE(layers->heat().has_value());

    // A file paced like a microphone, through the controller's own bridge and wiring.
    app::LiveOptions options;
    options.input = gui_jfk();
    options.speed = 8.0;
    options.streaming.decoding.language = "en";
    options.streaming.use_vad = false;
    ASSERT_EQ(controller.live().start(controller.model(), options), QString());
    ASSERT_TRUE(wait_for_signal(&controller.live(), &app::LiveBridge::stopped, 120'000));

    // The encoder's layers ran in every decoded update: they hold a share of its engine time.
    layers = controller.inspector().graphView()->groupItem(
        QStringLiteral("for layer in encoder_layers"));
    ASSERT_NE(layers, nullptr);
    ASSERT_TRUE(layers->heat().has_value());
    EXPECT_GT(*layers->heat(), 0.0);
    EXPECT_LE(*layers->heat(), 1.0);
    // The status bar shows the engine time of the last decoded update.
    EXPECT_TRUE(window.latencyLabel()->text().startsWith(QStringLiteral("Engine ")))
        << window.latencyLabel()->text().toStdString();
}

}  // namespace
}  // namespace earshot::test
