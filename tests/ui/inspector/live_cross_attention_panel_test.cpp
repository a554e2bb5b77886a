// The Inspector's live cross-attention: its toggle opens the panel below the graph and says so
// with the chosen heads, the head picker lists the alignment heads and every decoder head, and
// each update's map replaces the one drawn (cells where the map has them).
#include "earshot/ui/inspector/live_cross_attention_panel.h"

#include <gtest/gtest.h>

#include <QComboBox>
#include <QLabel>
#include <QSignalSpy>
#include <QTest>
#include <QToolButton>

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
    map.samples.assign(static_cast<size_t>(positions) * 320, 0.1F);
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

}  // namespace
}  // namespace earshot::ui
