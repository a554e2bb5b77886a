// The tap panel on known tensors: the summary's moments and counts, the histogram's bins, the
// heatmap's slice at the picked batch row and head (and the colours drawn), the pickers kept
// across a live refresh, .npy export read back; and a click on a graph edge opening its tab.
#include "earshot/ui/inspector/tap_panel.h"

#include <gtest/gtest.h>

#include <QComboBox>
#include <QFile>
#include <QImage>
#include <QLabel>
#include <QSignalSpy>
#include <QSpinBox>
#include <QTemporaryDir>
#include <QTest>
#include <cmath>
#include <cstring>
#include <limits>

#include "earshot/ui/inspector/graph_canvas.h"
#include "earshot/ui/inspector/graph_edge_item.h"
#include "earshot/ui/inspector/graph_node_item.h"
#include "earshot/ui/inspector/graph_view.h"
#include "earshot/ui/inspector/inspector_widget.h"
#include "earshot/ui/inspector/tap_heatmap.h"
#include "earshot/ui/inspector/tap_histogram.h"
#include "earshot/ui/inspector/tap_summary.h"
#include "earshot/ui/inspector/tap_tabs.h"
#include "fake_graph.h"

namespace earshot::ui {
namespace {

constexpr float kNan = std::numeric_limits<float>::quiet_NaN();
constexpr float kInf = std::numeric_limits<float>::infinity();

// 0 once, 1 twice, 2 three times, 3 four times; a NaN and two infinities.
std::vector<float> countedValues() { return {3, 2, 1, 3, 0, 2, kNan, 3, kInf, 1, 2, -kInf, 3}; }

// [B=2, Heads=3, N=4, Dh=5], each value its own flat index.
TapValue attentionShaped() {
    TapValue v;
    v.name = QStringLiteral("encoder_layers.0.self_attn.keys");
    v.title = QStringLiteral("encoder_layers[0].self_attn.keys output");
    v.symbolicType = QStringLiteral("T[B, Heads, N, D / Heads]");
    v.dtype = QStringLiteral("f32");
    v.shape = {2, 3, 4, 5};
    for (int i = 0; i < 120; ++i) v.values.push_back(static_cast<float>(i));
    v.source = QStringLiteral("live update 3");
    return v;
}

TEST(TapSummary, MomentsAndCountsOfKnownValues) {
    const TapSummary s = summarize(countedValues(), 4);
    EXPECT_EQ(s.count, 13);
    EXPECT_EQ(s.finite, 10);
    EXPECT_EQ(s.nan, 1);
    EXPECT_EQ(s.inf, 2);
    EXPECT_EQ(s.outsideF16, 0);
    EXPECT_DOUBLE_EQ(s.min, 0.0);
    EXPECT_DOUBLE_EQ(s.max, 3.0);
    EXPECT_DOUBLE_EQ(s.mean, 2.0);            // (0 + 2 + 6 + 12) / 10
    EXPECT_DOUBLE_EQ(s.rms, std::sqrt(5.0));  // (0 + 2 + 12 + 36) / 10
    EXPECT_DOUBLE_EQ(s.std, 1.0);             // sqrt(5 - 2^2)
    EXPECT_EQ(s.histogram, (std::vector<qint64>{1, 2, 3, 4}));
}

TEST(TapSummary, CountsValuesF16CannotHold) {
    const TapSummary s = summarize({65504.0F, -65505.0F, 70000.0F, 1.0F, kInf}, 2);
    EXPECT_EQ(s.outsideF16, 2);  // 65504 is f16's largest; infinities are counted as Inf
    EXPECT_EQ(s.inf, 1);
    EXPECT_EQ(summarize({7.0F, 7.0F}, 8).histogram, (std::vector<qint64>{2}));
    EXPECT_TRUE(summarize({kNan}, 8).histogram.empty());
}

TEST(TapSummary, DimensionNamesOfSymbolicTypes) {
    EXPECT_EQ(dimensionNames(QStringLiteral("T[B, 1 + (-1 + Frames) / 2, D]")),
              (QStringList{"B", "1 + (-1 + Frames) / 2", "D"}));
    EXPECT_EQ(dimensionNames(QStringLiteral("Tensor[B, Heads, N, D / Heads; T]")),
              (QStringList{"B", "Heads", "N", "D / Heads"}));
    EXPECT_TRUE(dimensionNames(QStringLiteral("i32")).isEmpty());
}

TEST(TapPanel, HistogramBinsOfAKnownTensor) {
    TapPanel panel;
    TapValue v;
    v.name = QStringLiteral("x");
    v.dtype = QStringLiteral("f32");
    v.shape = {13};
    v.values = countedValues();
    panel.setValue(v);
    const std::vector<qint64>& counts = panel.histogram()->counts();
    ASSERT_EQ(counts.size(), size_t{TapPanel::kHistogramBins});
    // 40 bins over [0, 3], 0.075 wide: 1 falls in bin 13, 2 in bin 26, 3 (the top) in the last.
    for (size_t i = 0; i < counts.size(); ++i) {
        const qint64 expected = i == 0 ? 1 : i == 13 ? 2 : i == 26 ? 3 : i == 39 ? 4 : 0;
        EXPECT_EQ(counts[i], expected) << "bin " << i;
    }
    panel.resize(600, 500);
    panel.show();
    // Bars are drawn in proportion: 2 of 4 is half the tallest.
    EXPECT_NEAR(panel.histogram()->barRect(13).height(),
                panel.histogram()->barRect(39).height() / 2.0, 0.01);
    EXPECT_EQ(panel.statsLabel(QStringLiteral("nan"))->text(), QStringLiteral("1"));
    EXPECT_EQ(panel.statsLabel(QStringLiteral("inf"))->text(), QStringLiteral("2"));
    EXPECT_EQ(panel.statsLabel(QStringLiteral("mean"))->text(), QStringLiteral("2"));
    EXPECT_EQ(panel.statsLabel(QStringLiteral("std"))->text(), QStringLiteral("1"));
    EXPECT_TRUE(panel.typeLabel()->text().contains(QStringLiteral("f32[13]")));
}

TEST(TapPanel, AttentionShapedValueIsShownOneHeadAtATime) {
    TapPanel panel;
    panel.resize(600, 700);
    panel.setValue(attentionShaped());
    panel.show();
    ASSERT_EQ(panel.slicePickers().size(), 2);  // B and Heads; the slice is N x Dh
    EXPECT_EQ(panel.slicePickers()[1]->maximum(), 2);
    EXPECT_TRUE(panel.typeLabel()->text().contains(QStringLiteral("T[B, Heads, N, D / Heads]")));
    EXPECT_TRUE(panel.typeLabel()->text().contains(QStringLiteral("f32[2, 3, 4, 5]")));
    panel.setSliceIndex(0, 1);
    panel.setSliceIndex(1, 2);
    const TapSlice& slice = panel.heatmap()->slice();
    ASSERT_EQ(slice.rows, 4);
    ASSERT_EQ(slice.cols, 5);
    EXPECT_EQ(slice.at(0, 0), 100.0F);  // ((1 * 3 + 2) * 4 + 0) * 5 + 0
    EXPECT_EQ(slice.at(3, 4), 119.0F);
    EXPECT_EQ(slice.at(2, 1), 111.0F);
    // Drawn: the largest magnitude full red, 100/119 of the way from white.
    QApplication::processEvents();
    const QImage image = panel.heatmap()->grab().toImage();
    const auto pixel = [&](int r, int c) {
        return image.pixelColor(panel.heatmap()->cellRect(r, c).center().toPoint());
    };
    EXPECT_EQ(pixel(3, 4), QColor(255, 0, 0));
    EXPECT_EQ(pixel(0, 0), TapHeatmap::colorOf(100.0F, 119.0F));
    EXPECT_NE(pixel(0, 0), pixel(3, 4));

    // A live refresh with the same shape keeps the picked row and head.
    TapValue next = attentionShaped();
    for (float& x : next.values) x = -x;
    panel.setValue(next);
    EXPECT_EQ(panel.sliceIndices(), (QList<qint64>{1, 2}));
    EXPECT_EQ(panel.heatmap()->slice().at(3, 4), -119.0F);
}

TEST(TapPanel, ExportsNpyThatReadsBack) {
    TapPanel panel;
    panel.setValue(attentionShaped());
    QTemporaryDir dir;
    const QString path = dir.filePath(QStringLiteral("keys.npy"));
    ASSERT_EQ(panel.exportNpy(path), QString());
    QFile file(path);
    ASSERT_TRUE(file.open(QIODevice::ReadOnly));
    const QByteArray bytes = file.readAll();
    ASSERT_TRUE(bytes.startsWith(QByteArray("\x93NUMPY\x01\x00", 8)));
    const int headerLength =
        static_cast<unsigned char>(bytes[8]) | (static_cast<unsigned char>(bytes[9]) << 8);
    EXPECT_EQ((10 + headerLength) % 64, 0);
    const QByteArray header = bytes.mid(10, headerLength);
    EXPECT_TRUE(header.contains("'descr': '<f4'"));
    EXPECT_TRUE(header.contains("'shape': (2, 3, 4, 5)"));
    EXPECT_TRUE(header.endsWith('\n'));
    ASSERT_EQ(bytes.size(), 10 + headerLength + 120 * 4);
    float value = 0.0F;
    std::memcpy(&value, bytes.constData() + 10 + headerLength + 119 * 4, 4);
    EXPECT_EQ(value, 119.0F);

    TapPanel empty;
    EXPECT_FALSE(empty.exportNpy(path).isEmpty());
}

// The fake graph with every edge tappable, named after its ends.
GraphProvider tappableGraphs(test::FakeGraphs& graphs) {
    return [&graphs](const GraphRequest& request) {
        GraphData data = graphs.graph(request);
        for (GraphEdge& edge : data.edges) {
            edge.tap = edge.from + QStringLiteral("->") + edge.to;
            edge.tapTitle = edge.from + QStringLiteral(" output");
        }
        return data;
    };
}

TEST(InspectorTaps, ClickingAnEdgeOpensItsTap) {
    test::FakeGraphs graphs;
    InspectorWidget inspector;
    inspector.resize(1200, 800);
    inspector.setGraphProvider(tappableGraphs(graphs));
    inspector.showEntry(QStringLiteral("encode"));
    inspector.show();
    ASSERT_TRUE(QTest::qWaitForWindowExposed(&inspector));
    QSignalSpy opened(&inspector, &InspectorWidget::tapOpened);
    GraphView* view = inspector.graphView();
    ASSERT_FALSE(view->edgeItems().isEmpty());
    GraphEdgeItem* edge = view->edgeItems().front();
    const QPoint at = view->canvas()->mapFromScene(edge->labelRect().center());
    QTest::mouseClick(view->canvas()->viewport(), Qt::LeftButton, {}, at);
    ASSERT_EQ(opened.count(), 1);
    EXPECT_EQ(opened.at(0).at(0).toString(), edge->edge().tap);
    EXPECT_EQ(inspector.openTaps(), QStringList{edge->edge().tap});
    EXPECT_TRUE(inspector.tapTabs()->isVisible());
    EXPECT_GT(inspector.tapTabs()->height(), 100);

    // The app answers with the value; it shows in that tab. The same edge again opens no second.
    TapValue value = attentionShaped();
    value.name = edge->edge().tap;
    inspector.showTap(value);
    ASSERT_NE(inspector.tapTabs()->panel(value.name), nullptr);
    EXPECT_EQ(inspector.tapTabs()->panel(value.name)->summary().finite, 120);
    QTest::mouseClick(view->canvas()->viewport(), Qt::LeftButton, {}, at);
    EXPECT_EQ(opened.count(), 1);
    EXPECT_EQ(inspector.tapTabs()->count(), 1);

    // A node click taps the block's output: its first outgoing edge.
    GraphNodeItem* conv = view->nodeItem(QStringLiteral("conv1d"));
    ASSERT_NE(conv, nullptr);
    QTest::mouseClick(view->canvas()->viewport(), Qt::LeftButton, {},
                      view->canvas()->mapFromScene(conv->sceneBoundingRect().center()));
    ASSERT_EQ(opened.count(), 2);
    EXPECT_TRUE(opened.at(1).at(0).toString().startsWith(QStringLiteral("conv->")));

    // Closing a tab says so.
    QSignalSpy closed(&inspector, &InspectorWidget::tapClosed);
    Q_EMIT inspector.tapTabs()->tabCloseRequested(0);
    ASSERT_EQ(closed.count(), 1);
    EXPECT_EQ(inspector.openTaps().size(), 1);
}

TEST(InspectorTaps, AnEdgeWithoutATapNameSaysSo) {
    test::FakeGraphs graphs;
    InspectorWidget inspector;
    inspector.resize(1200, 800);
    inspector.setGraphProvider(graphs.provider());
    inspector.showEntry(QStringLiteral("encode"));
    inspector.show();
    ASSERT_TRUE(QTest::qWaitForWindowExposed(&inspector));
    QSignalSpy opened(&inspector, &InspectorWidget::tapOpened);
    GraphEdgeItem* edge = inspector.graphView()->edgeItems().front();
    QTest::mouseClick(inspector.graphView()->canvas()->viewport(), Qt::LeftButton, {},
                      inspector.graphView()->canvas()->mapFromScene(edge->labelRect().center()));
    EXPECT_EQ(opened.count(), 0);
    EXPECT_TRUE(inspector.tapHint()->text().contains(QStringLiteral("cannot be tapped")));
    EXPECT_FALSE(inspector.tapTabs()->isVisible());
    // With a reason the provider gives, the hint says it.
    GraphEdge fused = edge->edge();
    fused.tapTitle = QStringLiteral("fused into the op after it");
    EXPECT_TRUE(inspector.tapTabs()->openEdge(fused).endsWith(
        QStringLiteral("cannot be tapped: fused into the op after it.")));
}

// An edge inside a loop: its tab has a layer picker listing every iteration; choosing the fourth
// retargets the tab (tapClosed for the first, tapOpened for the fourth, the title says 4 of 6),
// and a layer that has a tab already is shown instead of opened twice.
TEST(InspectorTaps, AnEdgeInsideALoopHasALayerPicker) {
    TapTabs tabs;
    GraphEdge edge{QStringLiteral("a"), QStringLiteral("b"), QStringLiteral("T[B, N, D]")};
    for (int layer = 0; layer < 6; ++layer) {
        edge.tapIterations.append(QStringLiteral("encoder_layers[%1].forward").arg(layer));
    }
    edge.tap = edge.tapIterations.front();
    edge.tapTitle = QStringLiteral("encoder_layers[0].forward (1 of 6)");
    QSignalSpy opened(&tabs, &TapTabs::tapOpened);
    QSignalSpy closed(&tabs, &TapTabs::tapClosed);
    ASSERT_TRUE(tabs.openEdge(edge).isEmpty());
    QComboBox* picker = tabs.layerPicker(edge.tap);
    ASSERT_NE(picker, nullptr);
    EXPECT_EQ(picker->count(), 6);
    EXPECT_EQ(picker->currentText(), QStringLiteral("encoder_layers[0].forward"));

    picker->setCurrentIndex(3);
    const QString fourth = QStringLiteral("encoder_layers[3].forward");
    EXPECT_EQ(tabs.openTaps(), QStringList{fourth});
    ASSERT_EQ(closed.count(), 1);
    EXPECT_EQ(closed.at(0).at(0).toString(), edge.tap);
    ASSERT_EQ(opened.count(), 2);
    EXPECT_EQ(opened.at(1).at(0).toString(), fourth);
    EXPECT_EQ(tabs.tabText(0), QStringLiteral("encoder_layers[3].forward (4 of 6)"));
    // The value the app sends for the new name lands in this tab.
    TapValue value = attentionShaped();
    value.name = fourth;
    tabs.showValue(value);
    EXPECT_EQ(tabs.count(), 1);
    EXPECT_EQ(tabs.panel(fourth)->summary().finite, 120);

    // The first layer opened again from the graph, then the picker of that tab asked for the
    // fourth: the fourth's tab is shown, the first's stays what it was.
    ASSERT_TRUE(tabs.openEdge(edge).isEmpty());
    ASSERT_EQ(tabs.count(), 2);
    EXPECT_TRUE(tabs.chooseIteration(edge.tap, fourth));
    EXPECT_EQ(tabs.openTaps(), (QStringList{fourth, edge.tap}));
    EXPECT_EQ(tabs.currentIndex(), 0);
    EXPECT_EQ(tabs.layerPicker(edge.tap)->currentText(), edge.tap);
    EXPECT_FALSE(tabs.chooseIteration(edge.tap, QStringLiteral("decoder_layers[0].forward")));
    // An edge outside loops has no picker.
    GraphEdge plain = edge;
    plain.tap = QStringLiteral("conv1d#0");
    plain.tapIterations.clear();
    ASSERT_TRUE(tabs.openEdge(plain).isEmpty());
    EXPECT_EQ(tabs.layerPicker(plain.tap), nullptr);
}

}  // namespace
}  // namespace earshot::ui
