// The inspector's graph view on a small encode-like program: the dot layout (top to bottom, nodes
// inside their groups), expand and collapse in place, concrete labels, search, heat, export.
#include <gtest/gtest.h>

#include <QCheckBox>
#include <QFontInfo>
#include <QFontMetricsF>
#include <QGraphicsScene>
#include <QImage>
#include <QLabel>
#include <QLineEdit>
#include <QSet>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTest>

#include "earshot/ui/inspector/graph_canvas.h"
#include "earshot/ui/inspector/graph_edge_item.h"
#include "earshot/ui/inspector/graph_group_item.h"
#include "earshot/ui/inspector/graph_layout.h"
#include "earshot/ui/inspector/graph_node_item.h"
#include "earshot/ui/inspector/graph_style.h"
#include "earshot/ui/inspector/graph_view.h"
#include "fake_graph.h"

namespace earshot::ui {
namespace {

QSet<QString> nodeLabels(const GraphView& view) {
    QSet<QString> out;
    for (const GraphNodeItem* item : view.nodeItems()) out.insert(item->node().label);
    return out;
}

QSet<QString> edgeLabels(const GraphView& view) {
    QSet<QString> out;
    for (const GraphEdgeItem* item : view.edgeItems()) out.insert(item->label());
    return out;
}

QSet<QString> groupLabels(const GraphView& view) {
    QSet<QString> out;
    for (const GraphGroupItem* item : view.groupItems()) out.insert(item->group().label);
    return out;
}

class InspectorGraph : public ::testing::Test {
protected:
    void SetUp() override {
        view.resize(900, 700);
        view.setProvider(graphs.provider());
        view.showEntry(QStringLiteral("encode"));
    }

    test::FakeGraphs graphs;
    GraphView view;
};

TEST(InspectorGraphStyle, FontsHaveRealGlyphs) {
    // Boxes instead of letters would mean no usable font under the offscreen platform.
    for (const QFont& font : {graph_style::labelFont(), graph_style::edgeFont()}) {
        EXPECT_TRUE(QFontInfo(font).family().startsWith(QStringLiteral("DejaVu")))
            << QFontInfo(font).family().toStdString();
        const QFontMetricsF metrics(font);
        for (QChar c : QStringLiteral("Tensor[B, 1 + (-1 + Frames) / 2, D]")) {
            EXPECT_TRUE(metrics.inFont(c)) << static_cast<int>(c.unicode());
        }
    }
}

TEST(InspectorGraphLayout, DotPlacesNodesTopToBottomInsideTheirGroups) {
    test::FakeGraphs graphs;
    GraphRequest request;
    request.entry = QStringLiteral("encode");
    const GraphData data = graphs.graph(request);
    const QString dot = layoutDot(data);
    EXPECT_TRUE(dot.contains(QStringLiteral("rankdir=TB")));
    EXPECT_TRUE(dot.contains(QStringLiteral("subgraph cluster_1")));
    EXPECT_TRUE(dot.contains(QStringLiteral("comment=\"T[B, Mels, Frames]\"")));
    EXPECT_TRUE(dot.contains(QStringLiteral("FIXEDSIZE=\"TRUE\"")));

    const GraphLayout layout = layoutGraph(data);
    ASSERT_TRUE(layout.error.isEmpty()) << layout.error.toStdString();
    ASSERT_EQ(layout.nodes.size(), data.nodes.size());
    ASSERT_EQ(layout.groups.size(), data.groups.size());
    EXPECT_GT(layout.bounds.height(), layout.bounds.width());  // a tall chain
    // Every edge points downwards and carries a spline and a label position.
    for (qsizetype e = 0; e < data.edges.size(); ++e) {
        const QRectF from = layout.nodes.value(data.edges[e].from);
        const QRectF to = layout.nodes.value(data.edges[e].to);
        EXPECT_LT(from.center().y(), to.center().y()) << data.edges[e].label.toStdString();
        EXPECT_FALSE(layout.edges[e].path.isEmpty());
        EXPECT_TRUE(layout.bounds.contains(layout.edges[e].labelCentre));
        EXPECT_LT(QLineF(layout.edges[e].arrowTip, to.center()).length(),
                  QLineF(layout.edges[e].arrowTip, from.center()).length());
    }
    // Nodes lie inside their groups, groups inside their parents, all inside the bounds.
    for (const GraphNode& node : data.nodes) {
        const QRectF rect = layout.nodes.value(node.id);
        EXPECT_TRUE(layout.bounds.contains(rect)) << node.label.toStdString();
        if (!node.group.isEmpty()) {
            EXPECT_TRUE(layout.groups.value(node.group).contains(rect)) << node.label.toStdString();
        }
        EXPECT_EQ(rect.size(), graph_style::nodeSize(node.kind, node.label, node.sublabel));
    }
    EXPECT_TRUE(layout.groups.value(QStringLiteral("g2"))
                    .contains(layout.groups.value(QStringLiteral("g3"))));
    // The group label sits in the group's top band, above its first node.
    const QPointF label = layout.groupLabels.value(QStringLiteral("g3"));
    EXPECT_TRUE(layout.groups.value(QStringLiteral("g3")).contains(label));
    EXPECT_LT(label.y(), layout.nodes.value(QStringLiteral("c4")).top());
}

TEST_F(InspectorGraph, DrawsTheFirstLevelWithTypedEdges) {
    ASSERT_TRUE(view.error().isEmpty()) << view.error().toStdString();
    EXPECT_EQ(nodeLabels(view),
              (QSet<QString>{QStringLiteral("mel : Tensor[B, Mels, Frames; T]"),
                             QStringLiteral("conv1d"), QStringLiteral("attn.forward"),
                             QStringLiteral("+"), QStringLiteral("norm.forward"),
                             QStringLiteral("result : Tensor[B, N, D; T]")}));
    EXPECT_EQ(groupLabels(view), (QSet<QString>{QStringLiteral("for layer in layers"),
                                                QStringLiteral("layers[layer].forward")}));
    EXPECT_EQ(edgeLabels(view),
              (QSet<QString>{QStringLiteral("T[B, Mels, Frames]"), QStringLiteral("T[B, N, D]")}));
    EXPECT_EQ(view.edgeItems().size(), 6);
    EXPECT_EQ(view.groupItem(QStringLiteral("for layer in layers"))->group().sublabel,
              QStringLiteral("x Layers = 4"));
    ASSERT_EQ(graphs.requests.size(), 1);
    EXPECT_EQ(graphs.requests[0].expandDepth, 1);
    EXPECT_FALSE(graphs.requests[0].concrete);
}

TEST_F(InspectorGraph, ExpandAndCollapseInPlace) {
    view.show();
    ASSERT_TRUE(QTest::qWaitForWindowExposed(&view));
    view.canvas()->setZoom(3.0);  // larger than the viewport, so that centring can scroll
    QSignalSpy changed(&view, &GraphView::graphChanged);
    ASSERT_TRUE(view.expandCall(QStringLiteral("4")));
    EXPECT_TRUE(graphs.requests.last().expanded.contains(QStringLiteral("4")));
    EXPECT_FALSE(nodeLabels(view).contains(QStringLiteral("attn.forward")));
    EXPECT_TRUE(nodeLabels(view).contains(QStringLiteral("linear")));
    EXPECT_TRUE(nodeLabels(view).contains(QStringLiteral("attention")));
    EXPECT_TRUE(groupLabels(view).contains(QStringLiteral("attn.forward")));
    EXPECT_TRUE(edgeLabels(view).contains(QStringLiteral("T[B, Heads, N, D / Heads]")));
    // The view is centred on the opened call.
    const QRectF group = view.groupItem(QStringLiteral("attn.forward"))->rect();
    const QPointF centre = view.canvas()->mapToScene(view.canvas()->viewport()->rect().center());
    EXPECT_LT(QLineF(centre, group.center()).length(), 40.0);

    ASSERT_TRUE(view.collapseCall(QStringLiteral("3")));
    EXPECT_TRUE(graphs.requests.last().collapsed.contains(QStringLiteral("3")));
    EXPECT_EQ(
        nodeLabels(view),
        (QSet<QString>{QStringLiteral("mel : Tensor[B, Mels, Frames; T]"), QStringLiteral("conv1d"),
                       QStringLiteral("layers[layer].forward"), QStringLiteral("norm.forward"),
                       QStringLiteral("result : Tensor[B, N, D; T]")}));
    EXPECT_EQ(groupLabels(view), (QSet<QString>{QStringLiteral("for layer in layers")}));

    ASSERT_TRUE(view.expandCall(QStringLiteral("3")));  // back, attention still open
    EXPECT_TRUE(nodeLabels(view).contains(QStringLiteral("linear")));
    EXPECT_FALSE(view.expandCall(QStringLiteral("99")));  // no such call: nothing asked
    EXPECT_EQ(changed.count(), 3);
}

TEST_F(InspectorGraph, DoubleClickOpensACallAndClosesItsGroup) {
    view.show();
    ASSERT_TRUE(QTest::qWaitForWindowExposed(&view));
    GraphCanvas* canvas = view.canvas();
    auto at = [canvas](const QPointF& scenePoint) { return canvas->mapFromScene(scenePoint); };
    GraphNodeItem* attn = view.nodeItem(QStringLiteral("attn.forward"));
    ASSERT_NE(attn, nullptr);
    canvas->centerOn(attn->rect().center());
    QTest::mouseDClick(canvas->viewport(), Qt::LeftButton, {}, at(attn->rect().center()));
    ASSERT_TRUE(groupLabels(view).contains(QStringLiteral("attn.forward")));

    GraphGroupItem* group = view.groupItem(QStringLiteral("attn.forward"));
    canvas->centerOn(group->labelRect().center());
    QTest::mouseDClick(canvas->viewport(), Qt::LeftButton, {}, at(group->labelRect().center()));
    EXPECT_FALSE(groupLabels(view).contains(QStringLiteral("attn.forward")));
    EXPECT_TRUE(nodeLabels(view).contains(QStringLiteral("attn.forward")));
}

// A single click on a call's boxed plus opens it; on an open call's boxed minus, closes it. A
// single click elsewhere on the node opens nothing.
TEST_F(InspectorGraph, ASingleClickOnTheMarkerOpensAndClosesACall) {
    view.show();
    ASSERT_TRUE(QTest::qWaitForWindowExposed(&view));
    GraphCanvas* canvas = view.canvas();
    auto at = [canvas](const QPointF& scenePoint) { return canvas->mapFromScene(scenePoint); };
    GraphNodeItem* attn = view.nodeItem(QStringLiteral("attn.forward"));
    ASSERT_NE(attn, nullptr);
    ASSERT_FALSE(attn->markerRect().isEmpty());
    canvas->centerOn(attn->rect().center());
    QTest::mouseClick(canvas->viewport(), Qt::LeftButton, {},
                      at(attn->rect().center() + QPointF(attn->rect().width() / 4, 0)));
    EXPECT_FALSE(groupLabels(view).contains(QStringLiteral("attn.forward")));
    QTest::mouseClick(canvas->viewport(), Qt::LeftButton, {}, at(attn->markerRect().center()));
    ASSERT_TRUE(groupLabels(view).contains(QStringLiteral("attn.forward")));

    GraphGroupItem* group = view.groupItem(QStringLiteral("attn.forward"));
    ASSERT_FALSE(group->markerRect().isEmpty());
    canvas->centerOn(group->markerRect().center());
    QTest::mouseClick(canvas->viewport(), Qt::LeftButton, {}, at(group->markerRect().center()));
    EXPECT_FALSE(groupLabels(view).contains(QStringLiteral("attn.forward")));
    EXPECT_TRUE(nodeLabels(view).contains(QStringLiteral("attn.forward")));
    // Loops have no marker: they open with their call.
    EXPECT_TRUE(view.groupItem(QStringLiteral("for layer in layers"))->markerRect().isEmpty());
}

// A step that ran but took under half a percent reads "<1%", not "0%".
TEST(HeatBadge, SaysLessThanOnePercentForATinyShare) {
    EXPECT_EQ(graph_style::heatBadgeText(0.53), QStringLiteral("53%"));
    EXPECT_EQ(graph_style::heatBadgeText(0.004), QStringLiteral("<1%"));
    EXPECT_EQ(graph_style::heatBadgeText(0.005), QStringLiteral("1%"));
    EXPECT_EQ(graph_style::heatBadgeText(0.0), QStringLiteral("0%"));
    EXPECT_EQ(graph_style::heatBadgeText(1.0), QStringLiteral("100%"));
}

TEST_F(InspectorGraph, ConcreteToggleRelabelsEveryEdge) {
    view.concreteToggle()->setChecked(true);
    EXPECT_TRUE(view.concreteTypes());
    EXPECT_TRUE(graphs.requests.last().concrete);
    EXPECT_EQ(edgeLabels(view), (QSet<QString>{QStringLiteral("f16[1, 80, 3000]"),
                                               QStringLiteral("f16[1, 1500, 384]")}));
    EXPECT_TRUE(nodeLabels(view).contains(QStringLiteral("mel : f16[1, 80, 3000]")));
    EXPECT_EQ(view.groupItem(QStringLiteral("for layer in layers"))->group().sublabel,
              QStringLiteral("x 4"));
    // Expansion survives the toggle.
    view.expandCall(QStringLiteral("4"));
    view.setConcreteTypes(false);
    EXPECT_FALSE(view.concreteToggle()->isChecked());
    EXPECT_TRUE(edgeLabels(view).contains(QStringLiteral("T[B, Heads, N, D / Heads]")));
}

TEST_F(InspectorGraph, SearchHighlightsNodesAndTypes) {
    EXPECT_EQ(view.search(QStringLiteral("CONV")), 1);
    EXPECT_TRUE(view.nodeItem(QStringLiteral("conv1d"))->isHighlighted());
    EXPECT_FALSE(view.nodeItem(QStringLiteral("+"))->isHighlighted());

    // A type: the five edges carrying x; the query field shows it.
    EXPECT_EQ(view.search(QStringLiteral("T[B, N, D]")), 5);
    EXPECT_EQ(view.searchField()->text(), QStringLiteral("T[B, N, D]"));
    int lit = 0;
    for (const GraphEdgeItem* edge : view.edgeItems()) lit += edge->isHighlighted() ? 1 : 0;
    EXPECT_EQ(lit, 5);

    // The highlight follows a redraw, and the empty query clears it.
    view.searchField()->setText(QStringLiteral("layer"));
    EXPECT_TRUE(view.groupItem(QStringLiteral("layers[layer].forward"))->isHighlighted());
    view.collapseCall(QStringLiteral("3"));
    EXPECT_TRUE(view.nodeItem(QStringLiteral("layers[layer].forward"))->isHighlighted());
    EXPECT_EQ(view.search(QString()), 0);
    for (const GraphNodeItem* node : view.nodeItems()) EXPECT_FALSE(node->isHighlighted());
}

TEST_F(InspectorGraph, TypedSearchFindsOpsInsideClosedCallsAndOpensThem) {
    view.show();
    ASSERT_TRUE(QTest::qWaitForWindowExposed(&view));
    ASSERT_FALSE(nodeLabels(view).contains(QStringLiteral("attention")));  // inside attn.forward
    QLineEdit* field = view.searchField();
    const int fieldWidth = field->width();
    field->setFocus();
    QTest::keyClicks(field, QStringLiteral("attention"));
    // Once the typing pauses, the call holding the op opens and the op is highlighted.
    ASSERT_TRUE(QTest::qWaitFor([&] { return view.nodeItem(QStringLiteral("attention")); }, 3000));
    EXPECT_TRUE(view.nodeItem(QStringLiteral("attention"))->isHighlighted());
    EXPECT_EQ(view.searchOpenedCalls(), QSet<QString>{QStringLiteral("4")});
    EXPECT_TRUE(groupLabels(view).contains(QStringLiteral("attn.forward")));
    EXPECT_EQ(view.matchesLabel()->text(), QStringLiteral("2 matches"));  // and its call's type
    EXPECT_TRUE(view.request().expanded.isEmpty());                       // the user opened nothing
    // The match is in view.
    const QRectF match = view.nodeItem(QStringLiteral("attention"))->rect();
    EXPECT_TRUE(view.canvas()->viewport()->rect().contains(
        view.canvas()->mapFromScene(match).boundingRect()));

    // Another query: the search field keeps its width whatever the count says.
    field->selectAll();
    QTest::keyClicks(field, QStringLiteral("T["));
    EXPECT_EQ(view.search(field->text()), 7);  // every edge of the graph, two inside attn.forward
    EXPECT_EQ(view.matchesLabel()->text(), QStringLiteral("7 matches"));
    EXPECT_EQ(field->width(), fieldWidth);
    field->clear();
    EXPECT_EQ(view.search(field->text()), 0);
    EXPECT_EQ(field->width(), fieldWidth);
    EXPECT_TRUE(view.searchOpenedCalls().isEmpty());
    EXPECT_FALSE(nodeLabels(view).contains(QStringLiteral("attention")));
}

TEST_F(InspectorGraph, HeatColoursCallsByTheirShare) {
    view.setHeat(
        {{QStringLiteral("2"), 0.8}, {QStringLiteral("4"), 0.5}, {QStringLiteral("5"), 0.1}});
    EXPECT_EQ(view.nodeItem(QStringLiteral("attn.forward"))->heat(), 0.5);
    EXPECT_EQ(view.nodeItem(QStringLiteral("norm.forward"))->heat(), 0.1);
    EXPECT_EQ(view.groupItem(QStringLiteral("for layer in layers"))->heat(), 0.8);
    EXPECT_FALSE(view.groupItem(QStringLiteral("layers[layer].forward"))->heat().has_value());
    EXPECT_FALSE(view.nodeItem(QStringLiteral("conv1d"))->heat().has_value());
    // Hotter is redder: less green and blue.
    EXPECT_LT(graph_style::heatFill(0.5).green(), graph_style::heatFill(0.1).green());
    EXPECT_EQ(graph_style::heatFill(0.0), QColor(Qt::white));

    // The overlay follows the call into its group after expanding, and clears.
    view.expandCall(QStringLiteral("4"));
    EXPECT_EQ(view.groupItem(QStringLiteral("attn.forward"))->heat(), 0.5);
    view.setHeat({});
    EXPECT_FALSE(view.groupItem(QStringLiteral("attn.forward"))->heat().has_value());
}

TEST_F(InspectorGraph, ExportsSvgAndPng) {
    QTemporaryDir dir;
    ASSERT_TRUE(dir.isValid());
    const QString svg = dir.filePath(QStringLiteral("encode.svg"));
    const QString png = dir.filePath(QStringLiteral("encode.png"));
    ASSERT_TRUE(view.exportSvg(svg));
    ASSERT_TRUE(view.exportPng(png, 1.0));

    QFile file(svg);
    ASSERT_TRUE(file.open(QIODevice::ReadOnly));
    const QByteArray text = file.readAll();
    EXPECT_TRUE(text.contains("<svg"));
    EXPECT_TRUE(text.contains("conv1d"));  // text stays text in the SVG
    EXPECT_TRUE(text.contains("T[B, Mels, Frames]"));

    const QImage image(png);
    ASSERT_FALSE(image.isNull());
    EXPECT_EQ(image.size(), view.scene()->sceneRect().size().toSize());
    // Dark ink where the conv1d box is drawn: its border and its letters.
    const QRectF box = view.nodeItem(QStringLiteral("conv1d"))
                           ->rect()
                           .translated(-view.scene()->sceneRect().topLeft());
    int dark = 0;
    for (int y = static_cast<int>(box.top()); y < static_cast<int>(box.bottom()); ++y) {
        for (int x = static_cast<int>(box.left()); x < static_cast<int>(box.right()); ++x) {
            dark += qGray(image.pixel(x, y)) < 100 ? 1 : 0;
        }
    }
    EXPECT_GT(dark, 60);
}

TEST_F(InspectorGraph, SvgGroupBoxesAreUnfilled) {
    // Other viewers draw fill="#000000" fill-opacity="0" solid black: a group box without heat
    // must be written without any fill.
    QTemporaryDir dir;
    ASSERT_TRUE(dir.isValid());
    const QString svg = dir.filePath(QStringLiteral("encode.svg"));
    ASSERT_TRUE(view.exportSvg(svg));
    QFile file(svg);
    ASSERT_TRUE(file.open(QIODevice::ReadOnly));
    const QByteArray text = file.readAll();
    EXPECT_FALSE(text.contains("fill-opacity=\"0\"")) << text.toStdString();
    EXPECT_FALSE(text.contains("fill=\"#000000\"")) << text.toStdString();
    EXPECT_TRUE(text.contains("fill=\"none\""));
}

TEST(InspectorGraphErrors, ProviderErrorsAndNoProviderShowAMessage) {
    GraphView view;
    view.showEntry(QStringLiteral("encode"));
    EXPECT_TRUE(view.nodeItems().isEmpty());
    test::FakeGraphs graphs;
    view.setProvider(graphs.provider());
    view.showEntry(QStringLiteral("nope"));
    EXPECT_EQ(view.error(), QStringLiteral("The model has no entry named \"nope\"."));
    EXPECT_TRUE(view.nodeItems().isEmpty());
    EXPECT_FALSE(view.exportPng(QStringLiteral("/nonexistent-dir/x.png")));
}

TEST_F(InspectorGraph, ZoomAndFit) {
    view.show();
    ASSERT_TRUE(QTest::qWaitForWindowExposed(&view));
    view.fit();
    const qreal fitted = view.canvas()->zoom();
    EXPECT_LE(fitted, 1.0);
    view.zoomIn();
    EXPECT_NEAR(view.canvas()->zoom(), fitted * 1.2, 1e-9);
    QTest::keyClick(view.canvas(), Qt::Key_Minus);
    QTest::keyClick(view.canvas(), Qt::Key_Minus);
    EXPECT_NEAR(view.canvas()->zoom(), fitted / 1.2, 1e-9);
    QTest::keyClick(view.canvas(), Qt::Key_0);
    EXPECT_NEAR(view.canvas()->zoom(), fitted, 1e-9);
}

}  // namespace
}  // namespace earshot::ui
