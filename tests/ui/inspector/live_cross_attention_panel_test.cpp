// The Inspector's live cross-attention: its toggle opens the panel below the graph and says so
// with the chosen heads, the head picker lists the alignment heads and every decoder head, and
// each update's map replaces the one drawn (cells where the map has them). A click on a word plays
// exactly that word's samples out of the map's own window audio; a click beside the words plays
// nothing.
#include "earshot/ui/inspector/live_cross_attention_panel.h"

#include <gtest/gtest.h>

#include <QComboBox>
#include <QLabel>
#include <QSignalSpy>
#include <QTest>
#include <QToolButton>
#include <cmath>
#include <memory>
#include <vector>

#include "earshot/ui/files/cross_attention_view.h"
#include "earshot/ui/inspector/inspector_widget.h"

namespace earshot::ui {
namespace {

// rows x positions, row r attending to position r * 10 alone.
CrossAttentionMap diagonalMap(int rows, int positions, double startS) {
    CrossAttentionMap map;
    map.heads = QStringLiteral("the alignment heads (2)");
    map.tokens.append(QStringLiteral("<|notimestamps|>"));
    for (int r = 1; r < rows; ++r) map.tokens.append(QStringLiteral(" w%1").arg(r));
    map.positions = positions;
    map.startS = startS;
    map.values.assign(static_cast<size_t>(rows * positions), -1.0F);
    for (int r = 0; r < rows; ++r) {
        map.values[static_cast<size_t>(r * positions + r * 10)] = 3.0F;
        map.path.append(QPoint(r * 10, r));
    }
    map.words.append({QStringLiteral("w1"), startS + 0.2, startS + 0.4, -1.0});
    map.samples = WindowAudio::of(std::vector<float>(static_cast<size_t>(positions) * 320, 0.1F));
    map.mels = 4;
    map.melFrames = positions * 2;
    map.mel.assign(static_cast<size_t>(4 * positions * 2), 0.5F);
    return map;
}

TEST(InspectorLiveCrossAttention, ToggleHeadsAndEachUpdatesMap) {
    InspectorWidget inspector;
    inspector.resize(1200, 800);
    inspector.show();
    ASSERT_TRUE(QTest::qWaitForWindowExposed(&inspector));
    inspector.tabs()->setCurrentIndex(3);  // the Graph tab
    LiveCrossAttentionPanel* panel = inspector.liveCrossAttention();
    ASSERT_NE(panel, nullptr);
    EXPECT_FALSE(panel->isVisible());
    QSignalSpy changed(&inspector, &InspectorWidget::liveCrossAttentionChanged);

    panel->setHeadChoices(2, 4);
    EXPECT_EQ(panel->headPicker()->count(), 1 + 2 * 4);
    inspector.liveCrossAttentionToggle()->click();
    EXPECT_TRUE(panel->isVisible());
    EXPECT_GT(panel->height(), 100);
    ASSERT_EQ(changed.count(), 1);
    EXPECT_EQ(changed.at(0).at(0).toBool(), true);
    EXPECT_EQ(changed.at(0).at(1).toInt(), -1);  // the alignment heads

    panel->headPicker()->setCurrentIndex(1 + 1 * 4 + 2);  // layer 1, head 2
    ASSERT_EQ(changed.count(), 2);
    EXPECT_EQ(changed.at(1).at(1).toInt(), 1);
    EXPECT_EQ(changed.at(1).at(2).toInt(), 2);

    panel->showMap(diagonalMap(3, 50, 1.0), QStringLiteral("dictation, update 4"));
    EXPECT_EQ(panel->view()->map().tokens.size(), 3);
    EXPECT_TRUE(panel->sourceLabel()->text().startsWith(QStringLiteral("dictation, update 4")));
    const CrossAttentionMap next = diagonalMap(4, 60, 1.5);
    panel->showMap(next, QStringLiteral("dictation, update 5"));
    EXPECT_EQ(panel->view()->map().tokens, next.tokens);
    EXPECT_EQ(panel->view()->map().positions, 60);
    EXPECT_TRUE(panel->sourceLabel()->text().contains(QStringLiteral("4 tokens x 60 positions")));
    // The cell of row 3's attention is drawn inside the map, right of row 1's.
    EXPECT_TRUE(panel->view()->mapRect().contains(panel->view()->cellRect(3, 30).center()));
    EXPECT_GT(panel->view()->cellRect(3, 30).left(), panel->view()->cellRect(1, 10).left());

    inspector.liveCrossAttentionToggle()->click();
    EXPECT_FALSE(panel->isVisible());
    ASSERT_EQ(changed.count(), 3);
    EXPECT_EQ(changed.at(2).at(0).toBool(), false);
}

// Keeps what it was asked to play.
class RecordingPlayer : public WordAudioPlayer {
public:
    QString play(std::vector<float> samples, int sampleRateHz) override {
        played.push_back(std::move(samples));
        rates.push_back(sampleRateHz);
        return error;
    }
    std::vector<std::vector<float>> played;
    std::vector<int> rates;
    QString error;
};

TEST(InspectorLiveCrossAttention, ClickingAWordPlaysItsSamplesFromTheWindow) {
    LiveCrossAttentionPanel panel;
    auto owned = std::make_unique<RecordingPlayer>();
    RecordingPlayer* player = owned.get();
    panel.setWordPlayer(std::move(owned));
    panel.resize(1000, 420);
    panel.show();
    ASSERT_TRUE(QTest::qWaitForWindowExposed(&panel));
    // A 1 s window from stream second 7.5 whose every sample differs: sample i is sin(i / 7).
    CrossAttentionMap map = diagonalMap(3, 50, 7.5);
    std::vector<float> window(16000);
    for (size_t i = 0; i < window.size(); ++i) window[i] = std::sin(static_cast<float>(i) / 7.0F);
    map.samples = WindowAudio::of(window);
    map.words = {{QStringLiteral("hello"), 7.5 + 0.2125, 7.5 + 0.4, -1.0},
                 {QStringLiteral("world"), 7.5 + 0.55, 7.5 + 0.83, -1.0}};
    panel.showMap(map, QStringLiteral("dictation, update 3"));
    // The panel shows the update's own buffer, not a copy of it.
    EXPECT_EQ(panel.view()->map().samples.buffer.get(), map.samples.buffer.get());

    CrossAttentionView* view = panel.view();
    QTest::mouseClick(view, Qt::LeftButton, {}, view->wordRect(1).center().toPoint());
    ASSERT_EQ(player->played.size(), 1U);
    EXPECT_EQ(player->rates[0], 16000);
    // 0.55 s .. 0.83 s of the window at 16 kHz: samples 8800 .. 13280.
    const std::vector<float> world(window.begin() + 8800, window.begin() + 13280);
    EXPECT_EQ(player->played[0], world);
    EXPECT_TRUE(panel.playLabel()->text().contains(QStringLiteral("world")));
    EXPECT_TRUE(panel.playLabel()->text().contains(QStringLiteral("0.28 s")));

    QTest::mouseClick(view, Qt::LeftButton, {}, view->wordRect(0).center().toPoint());
    ASSERT_EQ(player->played.size(), 2U);
    // 0.2125 s .. 0.4 s: samples 3400 .. 6400.
    EXPECT_EQ(player->played[1], std::vector<float>(window.begin() + 3400, window.begin() + 6400));

    // Between the two words, and on the map below them: nothing plays.
    const QRectF hello = view->wordRect(0);
    const QRectF worldBox = view->wordRect(1);
    ASSERT_LT(hello.right() + 4.0, worldBox.left());
    QTest::mouseClick(
        view, Qt::LeftButton, {},
        QPointF((hello.right() + worldBox.left()) / 2.0, hello.center().y()).toPoint());
    QTest::mouseClick(view, Qt::LeftButton, {}, view->cellRect(1, 10).center().toPoint());
    EXPECT_EQ(player->played.size(), 2U);

    // The player's reason is shown when it cannot play.
    player->error = QStringLiteral("no output device");
    QTest::mouseClick(view, Qt::LeftButton, {}, view->wordRect(1).center().toPoint());
    EXPECT_EQ(panel.playLabel()->text(), QStringLiteral("Cannot play: no output device"));

    // A word whose span lies past the audio the map holds plays nothing and says so.
    CrossAttentionMap shortAudio = map;
    shortAudio.samples = WindowAudio::of(std::vector<float>(window.begin(), window.begin() + 4000));
    panel.showMap(shortAudio, QStringLiteral("dictation, update 4"));
    QTest::mouseClick(view, Qt::LeftButton, {}, view->wordRect(1).center().toPoint());
    EXPECT_EQ(player->played.size(), 3U);
    EXPECT_TRUE(panel.playLabel()->text().startsWith(QStringLiteral("No audio of")));
}

TEST(InspectorLiveCrossAttention, WordSamplesRoundAndStayInsideTheAudio) {
    CrossAttentionMap map = diagonalMap(3, 50, 2.0);  // 1 s of audio: 16000 samples
    map.words = {{QStringLiteral("a"), 2.0 + 0.10003, 2.0 + 0.20004, -1.0},
                 {QStringLiteral("b"), 1.9, 2.05, -1.0},
                 {QStringLiteral("c"), 2.9, 3.4, -1.0}};
    using Range = std::pair<size_t, size_t>;
    EXPECT_EQ(LiveCrossAttentionPanel::wordSamples(map, 0), Range(1600, 3201));
    EXPECT_EQ(LiveCrossAttentionPanel::wordSamples(map, 1), Range(0, 800));
    EXPECT_EQ(LiveCrossAttentionPanel::wordSamples(map, 2), Range(14400, 16000));
    EXPECT_EQ(LiveCrossAttentionPanel::wordSamples(map, 3), Range(0, 0));
}

}  // namespace
}  // namespace earshot::ui
