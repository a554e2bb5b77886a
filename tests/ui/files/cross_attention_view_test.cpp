// The cross-attention view and the Files page's timeline on constructed data: the map's cells and
// its warp path drawn where they belong, a click on a word playing that word's span, a segment
// selected from the timeline asking for its map, and a late answer for another segment ignored.
#include "earshot/ui/files/cross_attention_view.h"

#include <gtest/gtest.h>

#include <QComboBox>
#include <QImage>
#include <QSignalSpy>
#include <QTest>
#include <cmath>

#include "earshot/ui/files/file_playback.h"
#include "earshot/ui/files/file_result_view.h"
#include "earshot/ui/files/file_timeline.h"
#include "earshot/ui/files/files_queue.h"
#include "earshot/ui/files/transcript_player.h"

namespace earshot::ui {
namespace {

// 3 rows (<|notimestamps|>, " hello", " world") over 50 positions (1 s from 4.0 s): row r looks
// at positions [r * 16, r * 16 + 16); the path walks those blocks.
CrossAttentionMap blockMap() {
    CrossAttentionMap map;
    map.heads = QStringLiteral("alignment heads (2)");
    map.tokens = {QStringLiteral("<|notimestamps|>"), QStringLiteral(" hello"),
                  QStringLiteral(" world")};
    map.positions = 50;
    map.startS = 4.0;
    map.values.assign(3 * 50, -1.0F);
    for (int r = 0; r < 3; ++r) {
        for (int p = r * 16; p < std::min(50, r * 16 + 16); ++p) {
            map.values[static_cast<size_t>(r * 50 + p)] = 2.0F;
        }
    }
    int row = 0;
    for (int p = 0; p < 50; ++p) {
        if (row < 2 && p == (row + 1) * 16) ++row;
        map.path.append(QPoint(p, row));
    }
    map.words = {{QStringLiteral("hello"), 4.32, 4.64, 0.9},
                 {QStringLiteral("world"), 4.64, 5.0, 0.8}};
    std::vector<float> samples;
    for (int i = 0; i < 16000; ++i)
        samples.push_back(0.5F * static_cast<float>(std::sin(i * 0.05)));
    map.samples = WindowAudio::of(std::move(samples));
    map.mels = 8;
    map.melFrames = 100;
    for (int i = 0; i < 800; ++i) map.mel.push_back(static_cast<float>(i % 100) / 100.0F);
    return map;
}

class FakePlayer : public TranscriptPlayer {
public:
    QString play(const QString& path, double startS) override {
        lastPath = path;
        lastStart = startS;
        playing = true;
        position = startS;
        return {};
    }
    void pause() override {
        ++pauses;
        playing = false;
    }
    bool isPlaying() const override { return playing; }
    double positionS() const override { return position; }
    double durationS() const override { return 10.0; }

    QString lastPath;
    double lastStart = -1.0;
    int pauses = 0;
    bool playing = false;
    double position = 0.0;
};

TEST(CrossAttentionView, DrawsTheMapAndItsWarpPath) {
    CrossAttentionView view;
    view.resize(900, 360);
    view.setMap(blockMap());
    view.show();
    ASSERT_TRUE(QTest::qWaitForWindowExposed(&view));
    const QImage image = view.grab().toImage();
    const auto pixel = [&](QPointF at) { return image.pixelColor(at.toPoint()); };
    // Every cell of the path is drawn in the path's colour.
    for (const QPoint& cell : blockMap().path) {
        EXPECT_EQ(pixel(view.cellRect(cell.y(), cell.x()).center()),
                  CrossAttentionView::pathColor())
            << "position " << cell.x() << " row " << cell.y();
    }
    // Off the path: the top of the range where a row looks, the bottom elsewhere.
    const QRectF attended = view.cellRect(2, 45);  // row 2's block, the path is on row 2 there
    const QRectF elsewhere = view.cellRect(0, 45);
    EXPECT_EQ(pixel(elsewhere.center()), CrossAttentionView::heatColor(0.0));
    EXPECT_EQ(pixel(QPointF(view.cellRect(1, 5).center())), CrossAttentionView::heatColor(0.0));
    const QRectF looked = view.cellRect(1, 24);  // on the path's row: away from its line
    EXPECT_EQ(pixel(QPointF(looked.center().x(), looked.top() + 2)),
              CrossAttentionView::heatColor(1.0));
    EXPECT_GT(attended.width(), 10.0);  // 50 positions over the plot's width, not squeezed
    EXPECT_GE(view.mapRect().height(), 3 * 12.0);
    // The strips are stacked in order and do not overlap.
    EXPECT_LT(view.waveformRect().bottom(), view.melRect().top());
    EXPECT_LT(view.melRect().bottom(), view.wordsRect().top());
    EXPECT_LT(view.wordsRect().bottom(), view.mapRect().top());
}

TEST(CrossAttentionView, ClickingAWordAsksForItsSpan) {
    CrossAttentionView view;
    view.resize(900, 360);
    view.setMap(blockMap());
    view.show();
    ASSERT_TRUE(QTest::qWaitForWindowExposed(&view));
    // "world" spans 4.64 - 5.0 s of the 4.0 - 5.0 s window: the right 36% of the plot.
    const QRectF world = view.wordRect(1);
    EXPECT_NEAR(world.left(), view.mapRect().left() + 0.64 * view.mapRect().width(), 1.0);
    EXPECT_NEAR(world.right(), view.mapRect().right(), 1.0);
    QSignalSpy clicked(&view, &CrossAttentionView::wordClicked);
    QTest::mouseClick(&view, Qt::LeftButton, {}, world.center().toPoint());
    ASSERT_EQ(clicked.count(), 1);
    EXPECT_EQ(clicked.at(0).at(0).toInt(), 1);
    EXPECT_DOUBLE_EQ(clicked.at(0).at(1).toDouble(), 4.64);
    EXPECT_DOUBLE_EQ(clicked.at(0).at(2).toDouble(), 5.0);
    // Outside the words nothing is asked.
    QTest::mouseClick(&view, Qt::LeftButton, {}, view.cellRect(1, 10).center().toPoint());
    EXPECT_EQ(clicked.count(), 1);
}

QList<SegmentRow> twoSegments() {
    SegmentRow first{0.0, 4.0, QStringLiteral("good morning"), {}};
    first.words = {{QStringLiteral("good"), 0.3, 0.8, 0.9},
                   {QStringLiteral("morning"), 0.8, 1.6, 0.9}};
    SegmentRow second{4.0, 5.0, QStringLiteral("hello world"), {}};
    second.words = {{QStringLiteral("hello"), 4.32, 4.64, 0.9},
                    {QStringLiteral("world"), 4.64, 5.0, 0.8}};
    return {first, second};
}

TEST(FileResultCrossAttention, TimelineSelectsASegmentAndAWordPlaysItsSpan) {
    FilesQueue queue;
    FileResultView result(&queue);
    auto player = std::make_unique<FakePlayer>();
    FakePlayer* fake = player.get();
    result.playback()->setPlayer(std::move(player));
    result.resize(1000, 900);
    result.show();
    ASSERT_TRUE(QTest::qWaitForWindowExposed(&result));
    const int id = queue.addFiles({QStringLiteral("/audio/talk.wav")}).first();
    QSignalSpy waveform(&result, &FileResultView::waveformWanted);
    queue.setJobFinished(id, twoSegments(), QStringLiteral("en"));
    result.showJob(id);
    EXPECT_EQ(waveform.count(), 1);
    result.setHeadChoices(2, 3);
    EXPECT_EQ(result.headPicker()->count(), 1 + 2 * 3);
    QApplication::processEvents();

    // The second segment is the right fifth of the 5 s timeline; a click there asks for its map.
    QSignalSpy asked(&result, &FileResultView::crossAttentionRequested);
    const QRectF box = result.timeline()->segmentRect(1);
    EXPECT_NEAR(box.left(), 6.0 + 0.8 * (result.timeline()->width() - 12.0), 1.0);
    QTest::mouseClick(result.timeline(), Qt::LeftButton, {}, box.center().toPoint());
    ASSERT_EQ(asked.count(), 1);
    const auto request = asked.at(0).at(0).value<CrossAttentionRequest>();
    EXPECT_EQ(request.job, id);
    EXPECT_EQ(request.segment, 1);
    EXPECT_EQ(request.layer, -1);  // the alignment heads
    EXPECT_EQ(result.timeline()->selected(), 1);
    EXPECT_TRUE(result.crossAttention()->message().contains(QStringLiteral("segment 2")));

    // An answer for another head than the one chosen now is dropped; the right one is shown.
    result.headPicker()->setCurrentIndex(4);  // layer 1, head 0: asks again
    ASSERT_EQ(asked.count(), 2);
    result.showCrossAttention(request, blockMap());
    EXPECT_EQ(result.crossAttention()->map().positions, 0);
    const auto now = asked.at(1).at(0).value<CrossAttentionRequest>();
    EXPECT_EQ(now.layer, 1);
    EXPECT_EQ(now.head, 0);
    result.showCrossAttention(now, blockMap());
    ASSERT_EQ(result.crossAttention()->map().positions, 50);
    QApplication::processEvents();

    // Clicking "hello" plays 4.32 - 4.64 s of the file and stops there.
    CrossAttentionView* view = result.crossAttention();
    QTest::mouseClick(view, Qt::LeftButton, {}, view->wordRect(0).center().toPoint());
    EXPECT_EQ(fake->lastPath, QStringLiteral("/audio/talk.wav"));
    EXPECT_DOUBLE_EQ(fake->lastStart, 4.32);
    EXPECT_DOUBLE_EQ(result.playback()->stopAtS(), 4.64);
    fake->position = 4.5;
    result.playback()->updatePlayback();
    EXPECT_TRUE(fake->playing);
    fake->position = 4.65;
    result.playback()->updatePlayback();
    EXPECT_FALSE(fake->playing);
    EXPECT_EQ(fake->pauses, 1);
    EXPECT_DOUBLE_EQ(result.playback()->stopAtS(), -1.0);
}

}  // namespace
}  // namespace earshot::ui
