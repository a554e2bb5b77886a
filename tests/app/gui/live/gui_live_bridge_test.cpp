// LiveBridge on the offscreen platform: a file paced like a microphone goes through the real live
// controller; updates arrive on the UI thread as values, the last one final, the level is polled,
// and the transcript the live page shows (and journals) is what the updates committed.
#include <gtest/gtest.h>

#include <QFile>
#include <QStringList>
#include <QThread>
#include <memory>

#include "earshot/core/loaded_model.h"
#include "earshot/ui/live/live_panel.h"
#include "earshot/ui/live/transcript_view.h"
#include "gui/live/live_bridge.h"
#include "gui_fixture.h"

namespace earshot::test {
namespace {

TEST(LiveBridge, ToTextUpdateCarriesTextTimesAndLosses) {
    app::LiveUpdate update;
    update.update.committed_text = " And so";
    update.update.tentative_text = " my fellow";
    update.update.engine_ms = 87.5;
    update.update.audio_end_s = 2.5;
    update.update.gate = decoding::UpdateGate::decoded;
    update.wall_s = 2.75;
    update.dropped_frames = 4;
    update.overrun_samples = 320;
    update.coalesced_updates = 2;
    const ui::LiveTextUpdate text = app::to_text_update(update);
    EXPECT_EQ(text.committedText, QStringLiteral(" And so"));
    EXPECT_EQ(text.tentativeText, QStringLiteral(" my fellow"));
    EXPECT_DOUBLE_EQ(text.engineMs, 87.5);
    EXPECT_DOUBLE_EQ(text.delayMs, 250.0);
    EXPECT_TRUE(text.decoded);
    EXPECT_FALSE(text.final);
    EXPECT_EQ(text.droppedFrames, 4u);
    EXPECT_EQ(text.overrunSamples, 320u);
    EXPECT_EQ(text.coalescedUpdates, 2);

    // The tokens of both, committed first, with how sure the decoder was of each.
    EXPECT_TRUE(text.tokens.isEmpty());
    using decoding::WordTiming;
    update.update.committed_words = {
        {" And", 0.0, 0.3, WordTiming::aligned, {{" And", 0.92, {{" and", 0.05}, {" An", 0.01}}}}},
        {" so", 0.3, 0.5, WordTiming::aligned, {{" so", 0.61, {{" sew", 0.3}}}}}};
    update.update.tentative_words = {
        {" my", 0.5, 0.7, WordTiming::estimated, {{" my", 0.4, {}}}},
        {" fellow", 0.7, 1.0, WordTiming::estimated, {{" fell", 0.3, {}}, {"ow", -1.0, {}}}}};
    const ui::LiveTextUpdate tokens = app::to_text_update(update);
    ASSERT_EQ(tokens.tokens.size(), 5);
    EXPECT_EQ(tokens.tokens[0].text, QStringLiteral(" And"));
    EXPECT_DOUBLE_EQ(tokens.tokens[0].probability, 0.92);
    EXPECT_TRUE(tokens.tokens[0].committed);
    ASSERT_EQ(tokens.tokens[0].alternatives.size(), 2);
    EXPECT_EQ(tokens.tokens[0].alternatives[0].first, QStringLiteral(" and"));
    EXPECT_DOUBLE_EQ(tokens.tokens[0].alternatives[0].second, 0.05);
    EXPECT_TRUE(tokens.tokens[1].committed);
    EXPECT_FALSE(tokens.tokens[2].committed);
    EXPECT_EQ(tokens.tokens[3].text, QStringLiteral(" fell"));
    EXPECT_EQ(tokens.tokens[4].text, QStringLiteral("ow"));
    EXPECT_DOUBLE_EQ(tokens.tokens[4].probability, -1.0);

    update.update.gate = decoding::UpdateGate::silence;
    update.wall_s = 1.0;  // published before the audio end cannot be: no negative delay
    const ui::LiveTextUpdate silent = app::to_text_update(update);
    EXPECT_FALSE(silent.decoded);
    EXPECT_DOUBLE_EQ(silent.delayMs, 0.0);
}

TEST(LiveBridge, PacedFileEndsWithAFinalUpdateOnTheUiThread) {
    if (!gui_assets_present()) GTEST_SKIP() << "jfk.wav or multilingual.tiktoken not found";
    ensure_gui_application();
    const TempDir dir("earshot-gui-live");
    std::shared_ptr<app::LoadedModel> model = app::load_model(gui_random_checkpoint(), gui_vocab());
    app::LiveOptions options;
    options.input = gui_jfk();
    options.speed = 8.0;  // 11 s of audio in about 1.4 s
    options.streaming.decoding.language = "en";
    options.streaming.use_vad = false;  // the random model decodes every update

    ui::LivePanel panel;
    const QString journal = QString::fromStdString((dir.path() / "journal.txt").string());
    panel.attachJournal(journal);
    app::LiveBridge bridge;
    QString committed;
    int finals = 0;
    bool onUiThread = true;
    QObject::connect(&bridge, &app::LiveBridge::updated, &panel,
                     [&](const ui::LiveTextUpdate& update) {
                         onUiThread = onUiThread && QThread::currentThread() == panel.thread();
                         committed += update.committedText;
                         finals += update.final ? 1 : 0;
                         panel.applyUpdate(update);
                     });
    int levels = 0;
    QObject::connect(&bridge, &app::LiveBridge::levelChanged, &panel, [&] { ++levels; });
    // The backend's timed steps of each decoded update: the encoder's layers (listen) and the
    // decoder's (prefill and steps) by their call scopes.
    int timed_updates = 0;
    bool saw_encoder = false;
    bool saw_decoder = false;
    double timed_ms = 0.0;
    QObject::connect(&bridge, &app::LiveBridge::engineTimings, &panel,
                     [&](const app::StepTimings& timings) {
                         ++timed_updates;
                         for (const auto& t : timings) {
                             saw_encoder = saw_encoder || t.scope.starts_with("encoder_layers.");
                             saw_decoder = saw_decoder || t.scope.starts_with("decoder_layers.");
                             timed_ms += t.ms;
                         }
                     });
    QStringList failures;
    QObject::connect(&bridge, &app::LiveBridge::failed, &panel,
                     [&](const QString& message) { failures << message; });

    ASSERT_EQ(bridge.start(model, options), QString());
    EXPECT_TRUE(bridge.isRunning());
    // The input ends by itself; the bridge notices, stops, and reports.
    ASSERT_TRUE(wait_for_signal(&bridge, &app::LiveBridge::stopped, 120'000));
    EXPECT_FALSE(bridge.isRunning());
    EXPECT_TRUE(failures.isEmpty()) << failures.join(QStringLiteral("; ")).toStdString();
    EXPECT_TRUE(onUiThread);
    EXPECT_EQ(finals, 1);
    EXPECT_GE(levels, 5);  // 20 Hz over more than a second
    // 11 s at an update every 0.5 s: 22 intervals, each decoded or counted as coalesced.
    EXPECT_GE(bridge.lastStats().updates, 3);
    EXPECT_GE(bridge.lastStats().updates + bridge.lastStats().coalesced_updates, 21);
    EXPECT_NEAR(bridge.lastStats().audio_s, 11.0, 0.05);
    EXPECT_GE(timed_updates, 3);
    EXPECT_TRUE(saw_encoder);
    EXPECT_TRUE(saw_decoder);
    EXPECT_GT(timed_ms, 0.0);
    // Profiling ends with the session: nothing more is timed.
    EXPECT_TRUE(model->model->take_step_timings().empty());
    // Everything committed is what the page shows and what its journal holds.
    EXPECT_EQ(panel.transcript()->committedText(), committed);
    EXPECT_EQ(panel.transcript()->tentativeText(), QString());
    QFile file(journal);
    ASSERT_TRUE(file.open(QIODevice::ReadOnly));
    EXPECT_EQ(QString::fromUtf8(file.readAll()), committed);

    // A second stop is harmless; a start without a model is refused with a reason.
    bridge.stop();
    EXPECT_FALSE(bridge.start(nullptr, options).isEmpty());
}

TEST(LiveBridge, AnUnreadableInputIsRefusedWithTheReason) {
    if (!gui_assets_present()) GTEST_SKIP() << "multilingual.tiktoken not found";
    ensure_gui_application();
    const TempDir dir("earshot-gui-live-bad");
    std::shared_ptr<app::LoadedModel> model = app::load_model(gui_random_checkpoint(), gui_vocab());
    app::LiveOptions options;
    options.input = dir.path() / "missing.wav";
    app::LiveBridge bridge;
    const QString error = bridge.start(model, options);
    EXPECT_TRUE(error.contains(QStringLiteral("missing.wav"))) << error.toStdString();
    EXPECT_FALSE(bridge.isRunning());
}

}  // namespace
}  // namespace earshot::test
