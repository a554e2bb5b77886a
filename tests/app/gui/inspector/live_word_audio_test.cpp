// Clicking a word of the Inspector's live cross-attention map while dictating: the embedded micro
// model hears three spoken sentences from a file paced like a microphone (exact steps, so the
// same audio gives the same updates whatever the load), each map is shown in the panel as it
// arrives and one of its words is clicked with QTest. Every click plays exactly that word's span
// of the stream (the file's own samples from its start to its end time at 16 kHz), through the
// real output player into the PulseAudio null sink, and the dictation commits the same text as
// an identical session without clicks.
#include <gtest/gtest.h>

#include <QTest>
#include <cmath>
#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include "earshot/audio/file_decoder.h"
#include "earshot/core/loaded_model.h"
#include "earshot/core/transcription_setup.h"
#include "earshot/engine/decoding/live_cross_attention.h"
#include "earshot/ui/files/cross_attention_view.h"
#include "earshot/ui/inspector/live_cross_attention_panel.h"
#include "gui/live/live_bridge.h"
#include "gui/live/word_audio_output.h"
#include "gui_fixture.h"
#include "micro_speech_file.h"
#include "virtual_mic.h"

namespace earshot::test {
namespace {

namespace fs = std::filesystem;

// Keeps what it is asked to play and plays it through the app's real word player.
class ForwardingPlayer : public ui::WordAudioPlayer {
public:
    QString play(std::vector<float> samples, int sampleRateHz) override {
        played.push_back(samples);
        const QString error = output.play(std::move(samples), sampleRateHz);
        if (!error.isEmpty()) errors << error;
        return error;
    }
    app::WordAudioOutput output;
    std::vector<std::vector<float>> played;
    QStringList errors;
};

struct Session {
    QString committed;
    int finals = 0;
    int maps = 0;
    int decodedAfterFirstClick = 0;
    std::vector<std::vector<float>> expected;  // the file's samples of each clicked word
    QStringList failures;
    app::LiveStats stats;
};

Session dictate(const std::shared_ptr<app::LoadedModel>& model, const fs::path& wav,
                const std::vector<float>& file, ui::LiveCrossAttentionPanel* panel) {
    app::LiveOptions options;
    options.input = wav;
    options.speed = 4.0;
    options.exact_steps = true;
    options.guard_invented_words = false;
    options.streaming.decoding.language = "en";
    app::apply_model_defaults(*model, options.streaming);
    options.streaming.pacing = decoding::UpdatePacing::fixed;
    options.streaming.update_frames = 50;
    auto choice = std::make_shared<decoding::LiveCrossAttentionChoice>();
    choice->keep = true;
    options.streaming.cross_attention = choice;

    Session session;
    app::LiveBridge bridge;
    QObject::connect(&bridge, &app::LiveBridge::updated, &bridge,
                     [&](const ui::LiveTextUpdate& update) {
                         session.committed += update.committedText;
                         session.finals += update.final ? 1 : 0;
                         if (update.decoded && !session.expected.empty()) {
                             ++session.decodedAfterFirstClick;
                         }
                     });
    QObject::connect(&bridge, &app::LiveBridge::failed, &bridge,
                     [&](const QString& message) { session.failures << message; });
    QObject::connect(
        &bridge, &app::LiveBridge::crossAttentionMap, &bridge,
        [&](const ui::CrossAttentionMap& map, const QString& source) {
            ++session.maps;
            if (panel == nullptr) return;
            panel->showMap(map, source);
            if (map.words.isEmpty()) return;
            // The middle word, clicked where it is drawn.
            const int index = static_cast<int>(map.words.size()) / 2;
            const ui::TimedWord& word = map.words[index];
            const auto at = [&file](double seconds) {
                return std::min(file.size(),
                                static_cast<size_t>(std::lround(std::max(0.0, seconds) * 16000.0)));
            };
            session.expected.emplace_back(
                file.begin() + static_cast<std::ptrdiff_t>(at(word.startS)),
                file.begin() + static_cast<std::ptrdiff_t>(at(word.endS)));
            QTest::mouseClick(panel->view(), Qt::LeftButton, {},
                              panel->view()->wordRect(index).center().toPoint());
        });
    EXPECT_EQ(bridge.start(model, options), QString());
    EXPECT_TRUE(wait_for_signal(&bridge, &app::LiveBridge::stopped, 180'000));
    session.stats = bridge.lastStats();
    return session;
}

TEST(LiveWordAudioLiveDevice, ClickingAWordWhileDictatingPlaysItsSpanAndDictationGoesOn) {
    if (!fs::exists(micro_model_dir() / "model.safetensors")) {
        GTEST_SKIP() << "no micro model at " << micro_model_dir();
    }
    ensure_gui_application();
    VirtualMic mic;
    ASSERT_TRUE(mic.available()) << mic.error();
    mic.export_environment();
    const TempDir dir("earshot-live-word-audio");
    std::string why;
    const fs::path wav = write_three_sentences(dir, why);
    ASSERT_FALSE(wav.empty()) << why;
    const std::vector<float> file = audio::decode_file(wav).samples;
    std::shared_ptr<app::LoadedModel> model =
        app::load_model(micro_model_dir(), {}, backend::BackendChoice::cpu);

    ui::LiveCrossAttentionPanel panel;
    auto owned = std::make_unique<ForwardingPlayer>();
    ForwardingPlayer* player = owned.get();
    panel.setWordPlayer(std::move(owned));
    panel.resize(1100, 420);
    panel.show();
    ASSERT_TRUE(QTest::qWaitForWindowExposed(&panel));

    const Session clicked = dictate(model, wav, file, &panel);
    EXPECT_TRUE(clicked.failures.isEmpty()) << clicked.failures.join("; ").toStdString();
    EXPECT_TRUE(player->errors.isEmpty()) << player->errors.join("; ").toStdString();
    ASSERT_GE(clicked.expected.size(), 3U) << "maps with words to click";
    ASSERT_EQ(player->played.size(), clicked.expected.size());
    for (size_t i = 0; i < clicked.expected.size(); ++i) {
        EXPECT_FALSE(player->played[i].empty()) << "click " << i;
        EXPECT_EQ(player->played[i], clicked.expected[i]) << "click " << i;
    }
    // The dictation went on: decoded updates after the first click, one final, nothing dropped.
    EXPECT_GE(clicked.decodedAfterFirstClick, 3);
    EXPECT_EQ(clicked.finals, 1);
    EXPECT_EQ(clicked.stats.dropped_frames, 0U);
    EXPECT_TRUE(clicked.stats.error.empty()) << clicked.stats.error;
    EXPECT_FALSE(clicked.committed.isEmpty());

    // The same session without clicks commits the same text.
    const Session plain = dictate(model, wav, file, nullptr);
    EXPECT_TRUE(plain.failures.isEmpty());
    EXPECT_EQ(plain.maps, clicked.maps);
    EXPECT_EQ(plain.committed, clicked.committed);
}

}  // namespace
}  // namespace earshot::test
