// The inspector's tables (Entries, Generics, Blocks) from plain InspectorData, the entry picker
// and the Graph tab, and the heat overlay passed through to the graph.
#include <gtest/gtest.h>

#include <QComboBox>
#include <QTabWidget>
#include <QTableWidget>
#include <QTest>
#include <QTreeWidget>

#include "earshot/ui/inspector/graph_node_item.h"
#include "earshot/ui/inspector/graph_view.h"
#include "earshot/ui/inspector/inspector_widget.h"
#include "fake_graph.h"

namespace earshot::ui {
namespace {

InspectorData smallModel() {
    InspectorData data;
    data.checkpoint = QStringLiteral("/models/tiny");
    data.format = QStringLiteral("hf_directory");
    data.dtypeSource = QStringLiteral("config.json torch_dtype");
    data.entries = {
        {QStringLiteral("encode"),
         QStringLiteral("encode<B: Dim>(mel: Tensor[B, Mels, Frames; T]) -> "
                        "Tensor[B, 1 + (-1 + Frames) / 2, D; T]")},
        {QStringLiteral("step"), QStringLiteral("step(token: Tensor[Batch, 1; i32], "
                                                "pos: i32) -> Tensor[Batch, Vocab; T]")}};
    data.generics = {{QStringLiteral("Mels"), QStringLiteral("80")},
                     {QStringLiteral("Frames"), QStringLiteral("3000")},
                     {QStringLiteral("T"), QStringLiteral("f16")}};
    data.blocks = {
        {QStringLiteral("LayerNorm"),
         QStringLiteral("std.nn.norm::LayerNorm<D: Dim, T: Float>"),
         {{QStringLiteral("param"), QStringLiteral("weight"), QStringLiteral("Tensor[D; T]")},
          {QStringLiteral("pub fn"), QStringLiteral("forward"),
           QStringLiteral("<B: Dim>(x: Tensor[B, D; T]) -> Tensor[B, D; T]")}}}};
    return data;
}

TEST(InspectorTables, FillFromInspectorData) {
    InspectorWidget widget;
    widget.setData(smallModel());
    QTableWidget* entries = widget.entriesTable();
    ASSERT_EQ(entries->rowCount(), 2);
    EXPECT_EQ(entries->item(0, 0)->text(), QStringLiteral("encode"));
    EXPECT_EQ(
        entries->item(1, 1)->text(),
        QStringLiteral("step(token: Tensor[Batch, 1; i32], pos: i32) -> Tensor[Batch, Vocab; T]"));
    QTableWidget* generics = widget.genericsTable();
    ASSERT_EQ(generics->rowCount(), 3);
    EXPECT_EQ(generics->item(1, 0)->text(), QStringLiteral("Frames"));
    EXPECT_EQ(generics->item(1, 1)->text(), QStringLiteral("3000"));
    QTreeWidget* blocks = widget.blocksTree();
    ASSERT_EQ(blocks->topLevelItemCount(), 1);
    QTreeWidgetItem* norm = blocks->topLevelItem(0);
    EXPECT_EQ(norm->text(0), QStringLiteral("LayerNorm"));
    EXPECT_EQ(norm->text(2), QStringLiteral("std.nn.norm::LayerNorm<D: Dim, T: Float>"));
    ASSERT_EQ(norm->childCount(), 2);
    EXPECT_EQ(norm->child(0)->text(1), QStringLiteral("param"));
    EXPECT_EQ(norm->child(1)->text(0), QStringLiteral("forward"));
    EXPECT_EQ(norm->child(1)->text(1), QStringLiteral("pub fn"));

    QStringList tabs;
    for (int i = 0; i < widget.tabs()->count(); ++i) tabs << widget.tabs()->tabText(i);
    EXPECT_EQ(tabs, (QStringList{QStringLiteral("Entries"), QStringLiteral("Generics"),
                                 QStringLiteral("Blocks"), QStringLiteral("Graph")}));
    EXPECT_EQ(widget.entryPicker()->count(), 2);

    widget.setData(InspectorData{});  // unloading the model empties everything
    EXPECT_EQ(widget.entriesTable()->rowCount(), 0);
    EXPECT_EQ(widget.blocksTree()->topLevelItemCount(), 0);
    EXPECT_EQ(widget.entryPicker()->count(), 0);
    EXPECT_TRUE(widget.graphView()->nodeItems().isEmpty());
}

TEST(InspectorTables, EntriesOpenInTheGraphTab) {
    test::FakeGraphs graphs;
    InspectorWidget widget;
    widget.setGraphProvider(graphs.provider());
    widget.setData(smallModel());
    // The first entry is drawn as soon as there is a model.
    EXPECT_EQ(widget.graphView()->entry(), QStringLiteral("encode"));
    EXPECT_NE(widget.graphView()->nodeItem(QStringLiteral("conv1d")), nullptr);

    widget.showEntry(QStringLiteral("step"));
    EXPECT_EQ(widget.tabs()->currentIndex(), 3);
    EXPECT_EQ(widget.entryPicker()->currentText(), QStringLiteral("step"));
    EXPECT_EQ(graphs.requests.last().entry, QStringLiteral("step"));

    widget.entryPicker()->setCurrentText(QStringLiteral("encode"));
    EXPECT_EQ(widget.graphView()->entry(), QStringLiteral("encode"));

    // Double-clicking an entry's row shows it.
    widget.tabs()->setCurrentIndex(0);
    widget.entriesTable()->cellDoubleClicked(1, 0);
    EXPECT_EQ(widget.graphView()->entry(), QStringLiteral("step"));
    EXPECT_EQ(widget.tabs()->currentIndex(), 3);

    // A new model keeps the entry on screen and asks again.
    const auto asked = graphs.requests.size();
    widget.setData(smallModel());
    EXPECT_EQ(widget.graphView()->entry(), QStringLiteral("step"));
    EXPECT_EQ(graphs.requests.size(), asked + 1);
}

TEST(InspectorTables, HeatReachesTheGraph) {
    test::FakeGraphs graphs;
    InspectorWidget widget;
    widget.setGraphProvider(graphs.provider());
    widget.setData(smallModel());
    widget.setHeat({{QStringLiteral("4"), 0.25}});
    EXPECT_EQ(widget.graphView()->nodeItem(QStringLiteral("attn.forward"))->heat(), 0.25);
}

}  // namespace
}  // namespace earshot::ui
