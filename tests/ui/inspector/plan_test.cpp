// The plan table beside the graph: the provider's rows in the command line's column order with
// its header and TOTAL line, the backend and rows pickers asking again, the entry picker and
// showEntry switching the plan with the graph, a note for an entry without a plan, and the graph
// keeping the larger side of the splitter (the whole of a narrow inspector).
#include <gtest/gtest.h>

#include <QComboBox>
#include <QLabel>
#include <QSpinBox>
#include <QSplitter>
#include <QTableWidget>
#include <QToolButton>

#include "earshot/ui/inspector/graph_view.h"
#include "earshot/ui/inspector/inspector_widget.h"
#include "earshot/ui/inspector/plan_table.h"
#include "fake_graph.h"

namespace earshot::ui {
namespace {

// Plans as the app serves them: `step` has 3 kernels per row, `encode` 2, `decode` none.
struct FakePlans {
    QList<PlanRequest> requests;

    PlanProvider provider() {
        return [this](const PlanRequest& request) { return plan(request); };
    }

    PlanData plan(const PlanRequest& r) {
        requests.append(r);
        PlanData data;
        data.entry = r.entry;
        data.backend = r.backend;
        data.rows = r.rows;
        if (r.entry == QLatin1String("decode")) {
            data.note = QStringLiteral("No plan is listed for decode.");
            return data;
        }
        const int kernels = (r.entry == QLatin1String("step") ? 3 : 2) * r.rows;
        data.header = QStringLiteral("%1 on %2, rows %3").arg(r.entry, r.backend).arg(r.rows);
        for (int i = 0; i < kernels; ++i) {
            PlanKernelRow k;
            k.kernel = r.backend == QLatin1String("cuda") ? QStringLiteral("gemv_f16")
                                                          : QStringLiteral("linear_f16");
            k.op = QStringLiteral("linear");
            k.scope = QStringLiteral("decoder_layers[%1].mlp.fc1").arg(i);
            k.inputs = QStringLiteral("f32[1, 64], f16[256, 64]");
            k.outputs = QStringLiteral("f32[1, 256]");
            k.readBytes = 1536;
            k.writtenBytes = 1024;
            k.flops = 32768;
            k.read = QStringLiteral("1.50 KiB");
            k.written = QStringLiteral("1.00 KiB");
            k.work = QStringLiteral("32.77 KFLOP");
            data.kernels.append(k);
        }
        data.total = QStringLiteral(
                         "TOTAL: %1 kernels, 0.00 MiB read, 0.00 MiB written, "
                         "0.000 GFLOP")
                         .arg(kernels);
        return data;
    }
};

InspectorData entries(const QStringList& names) {
    InspectorData data;
    data.checkpoint = QStringLiteral("/models/micro");
    for (const QString& name : names) data.entries.append({name, name + QStringLiteral("(...)")});
    return data;
}

QStringList headers(const QTableWidget* table) {
    QStringList out;
    for (int c = 0; c < table->columnCount(); ++c) out << table->horizontalHeaderItem(c)->text();
    return out;
}

TEST(InspectorPlan, RowsHeaderAndTotalComeFromTheProvider) {
    FakePlans plans;
    PlanTable table;
    EXPECT_EQ(table.headerLabel()->text(), QStringLiteral("No model loaded."));
    table.setProvider(plans.provider());
    table.showEntry(QStringLiteral("step"));
    ASSERT_EQ(plans.requests.size(), 1);
    EXPECT_EQ(plans.requests.last().backend, QStringLiteral("cpu"));
    EXPECT_EQ(plans.requests.last().rows, 1);

    QTableWidget* rows = table.table();
    EXPECT_EQ(headers(rows), (QStringList{QStringLiteral("#"), QStringLiteral("Kernel"),
                                          QStringLiteral("Scope"), QStringLiteral("Read"),
                                          QStringLiteral("Written"), QStringLiteral("FLOP"),
                                          QStringLiteral("Inputs"), QStringLiteral("Outputs")}));
    ASSERT_EQ(rows->rowCount(), 3);
    EXPECT_EQ(rows->item(2, PlanTable::IndexColumn)->text(), QStringLiteral("2"));
    EXPECT_EQ(rows->item(0, PlanTable::KernelColumn)->text(), QStringLiteral("linear_f16"));
    EXPECT_EQ(rows->item(1, PlanTable::ScopeColumn)->text(),
              QStringLiteral("decoder_layers[1].mlp.fc1"));
    EXPECT_EQ(rows->item(0, PlanTable::ReadColumn)->text(), QStringLiteral("1.50 KiB"));
    EXPECT_EQ(rows->item(0, PlanTable::ReadColumn)->toolTip(), QStringLiteral("1536 bytes"));
    EXPECT_EQ(rows->item(0, PlanTable::WrittenColumn)->text(), QStringLiteral("1.00 KiB"));
    EXPECT_EQ(rows->item(0, PlanTable::WorkColumn)->text(), QStringLiteral("32.77 KFLOP"));
    EXPECT_EQ(rows->item(0, PlanTable::InputsColumn)->text(),
              QStringLiteral("f32[1, 64], f16[256, 64]"));
    EXPECT_EQ(rows->item(0, PlanTable::OutputsColumn)->text(), QStringLiteral("f32[1, 256]"));
    // Numbers right-aligned, names left-aligned, as the command line prints them.
    EXPECT_TRUE(rows->item(0, PlanTable::ReadColumn)->textAlignment() & Qt::AlignRight);
    EXPECT_TRUE(rows->item(0, PlanTable::ScopeColumn)->textAlignment() & Qt::AlignLeft);
    EXPECT_EQ(table.headerLabel()->text(), QStringLiteral("step on cpu, rows 1"));
    EXPECT_EQ(table.totalLabel()->text(),
              QStringLiteral("TOTAL: 3 kernels, 0.00 MiB read, 0.00 MiB written, 0.000 GFLOP"));

    // The same entry again asks nothing.
    table.showEntry(QStringLiteral("step"));
    EXPECT_EQ(plans.requests.size(), 1);
}

TEST(InspectorPlan, BackendAndRowsAskAgain) {
    FakePlans plans;
    PlanTable table;
    table.setProvider(plans.provider());
    table.showEntry(QStringLiteral("step"));

    table.backendPicker()->setCurrentIndex(table.backendPicker()->findData(QStringLiteral("cuda")));
    EXPECT_EQ(plans.requests.last().backend, QStringLiteral("cuda"));
    EXPECT_EQ(table.backend(), QStringLiteral("cuda"));
    EXPECT_EQ(table.table()->item(0, PlanTable::KernelColumn)->text(), QStringLiteral("gemv_f16"));
    EXPECT_EQ(table.headerLabel()->text(), QStringLiteral("step on cuda, rows 1"));

    table.rowsBox()->setValue(5);
    EXPECT_EQ(plans.requests.last().rows, 5);
    EXPECT_EQ(plans.requests.last().backend, QStringLiteral("cuda"));
    EXPECT_EQ(table.table()->rowCount(), 15);
    EXPECT_EQ(table.totalLabel()->text(),
              QStringLiteral("TOTAL: 15 kernels, 0.00 MiB read, 0.00 MiB written, 0.000 GFLOP"));

    // The app's backend moves the picker; the same backend again asks nothing.
    const auto asked = plans.requests.size();
    table.setBackend(QStringLiteral("cuda"));
    EXPECT_EQ(plans.requests.size(), asked);
    table.setBackend(QStringLiteral("cpu"));
    EXPECT_EQ(table.backendPicker()->currentData().toString(), QStringLiteral("cpu"));
    EXPECT_EQ(plans.requests.last().backend, QStringLiteral("cpu"));
    EXPECT_EQ(table.table()->item(0, PlanTable::KernelColumn)->text(),
              QStringLiteral("linear_f16"));
}

TEST(InspectorPlan, TheEntryShownIsTheEntryListed) {
    test::FakeGraphs graphs;
    FakePlans plans;
    InspectorWidget widget;
    widget.setGraphProvider(graphs.provider());
    widget.setPlanProvider(plans.provider());
    widget.setData(
        entries({QStringLiteral("encode"), QStringLiteral("decode"), QStringLiteral("step")}));
    PlanTable* plan = widget.planTable();
    // The first entry's graph and plan as soon as there is a model.
    EXPECT_EQ(widget.graphView()->entry(), QStringLiteral("encode"));
    EXPECT_EQ(plan->plan().entry, QStringLiteral("encode"));
    EXPECT_EQ(plan->table()->rowCount(), 2);

    widget.entryPicker()->setCurrentText(QStringLiteral("step"));
    EXPECT_EQ(widget.graphView()->entry(), QStringLiteral("step"));
    EXPECT_EQ(plans.requests.last().entry, QStringLiteral("step"));
    EXPECT_EQ(plan->table()->rowCount(), 3);
    EXPECT_EQ(plan->totalLabel()->text(),
              QStringLiteral("TOTAL: 3 kernels, 0.00 MiB read, 0.00 MiB written, 0.000 GFLOP"));

    // An entry without a plan: its note, no rows, no total.
    widget.showEntry(QStringLiteral("decode"));
    EXPECT_EQ(plan->plan().entry, QStringLiteral("decode"));
    EXPECT_EQ(plan->table()->rowCount(), 0);
    EXPECT_EQ(plan->headerLabel()->text(), QStringLiteral("No plan is listed for decode."));
    EXPECT_TRUE(plan->totalLabel()->text().isEmpty());

    widget.showEntry(QStringLiteral("encode"));
    EXPECT_EQ(plan->table()->rowCount(), 2);
    EXPECT_EQ(plan->headerLabel()->text(), QStringLiteral("encode on cpu, rows 1"));

    // The app's backend reaches the table; a new model keeps the entry and lists it again.
    widget.setPlanBackend(QStringLiteral("cuda"));
    EXPECT_EQ(plans.requests.last().backend, QStringLiteral("cuda"));
    widget.setPlanProvider(plans.provider());
    widget.setData(entries({QStringLiteral("encode"), QStringLiteral("step")}));
    EXPECT_EQ(plan->plan().entry, QStringLiteral("encode"));
    EXPECT_EQ(plan->plan().backend, QStringLiteral("cuda"));

    // Unloading the model empties the table.
    widget.setPlanProvider({});
    widget.setData(InspectorData{});
    EXPECT_EQ(plan->table()->rowCount(), 0);
    EXPECT_EQ(plan->headerLabel()->text(), QStringLiteral("No model loaded."));
}

TEST(InspectorPlan, TheGraphKeepsTheLargerSide) {
    InspectorWidget widget;
    widget.resize(1300, 800);
    widget.showEntry(QString());  // the Graph tab
    widget.show();
    QApplication::processEvents();
    QSplitter* splitter = widget.graphSplitter();
    ASSERT_EQ(splitter->count(), 2);
    EXPECT_EQ(splitter->widget(0), widget.graphView());
    EXPECT_EQ(splitter->widget(1), widget.planTable());
    const QList<int> sizes = splitter->sizes();
    // Both readable side by side: halves.
    EXPECT_GE(sizes[0], sizes[1]);
    EXPECT_GE(sizes[1], 600);
    EXPECT_TRUE(widget.planTable()->isVisible());

    // The Plan button hides and shows it.
    widget.planToggle()->click();
    EXPECT_FALSE(widget.planTable()->isVisible());
    widget.planToggle()->click();
    EXPECT_TRUE(widget.planTable()->isVisible());

    // Narrower than the plan and the graph need (the default window, the inspector beside the
    // pages): the graph alone at first; the Plan button puts the plan below it.
    widget.resize(700, 800);
    QApplication::processEvents();
    EXPECT_FALSE(widget.planTable()->isVisible());
    EXPECT_FALSE(widget.planToggle()->isChecked());
    EXPECT_TRUE(widget.planToggle()->isEnabled());
    EXPECT_GE(widget.graphView()->width(), 650);
    widget.planToggle()->click();
    QApplication::processEvents();
    EXPECT_TRUE(widget.planTable()->isVisible());
    EXPECT_EQ(splitter->orientation(), Qt::Vertical);
    EXPECT_GE(widget.planTable()->width(), 650);
    EXPECT_GT(widget.planTable()->geometry().top(), widget.graphView()->geometry().top());
    widget.resize(InspectorWidget::kPlanBesideMinWidthPx, 800);
    QApplication::processEvents();
    EXPECT_TRUE(widget.planTable()->isVisible());
    EXPECT_EQ(splitter->orientation(), Qt::Horizontal);
}

}  // namespace
}  // namespace earshot::ui
