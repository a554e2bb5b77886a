// InspectorWidget: the model inspector: Entries, Generics and Blocks tables of the loaded model
// (the `inspect` report) and the Graph tab with an entry picker over a GraphView and, beside it,
// the PlanTable of the same entry.
#pragma once

#include <QHash>
#include <QString>
#include <QWidget>
#include <functional>

#include "earshot/ui/inspector/compare_data.h"
#include "earshot/ui/inspector/graph_data.h"
#include "earshot/ui/inspector/graph_style.h"
#include "earshot/ui/inspector/inspector_data.h"
#include "earshot/ui/inspector/plan_data.h"
#include "earshot/ui/inspector/tap_data.h"

class QComboBox;
class QHBoxLayout;
class QLabel;
class QSplitter;
class QTabWidget;
class QTableWidget;
class QToolButton;
class QTreeWidget;

namespace earshot::ui {

class CompareDialog;
class ComparePanel;
class GraphView;
class HeatLegend;
class LiveCrossAttentionPanel;
class PlanTable;
class TapTabs;

class InspectorWidget : public QWidget {
    Q_OBJECT

public:
    explicit InspectorWidget(QWidget* parent = nullptr);

    // The tables of the loaded model; an empty InspectorData (no checkpoint) clears them. The
    // graph redraws its entry, or the first entry when it showed none.
    void setData(const InspectorData& data);
    const InspectorData& data() const { return m_data; }
    // The graph view asks for graphs through this (set by the app).
    void setGraphProvider(GraphProvider provider);
    // The plan table asks for the plan of the entry drawn through this (set by the app).
    void setPlanProvider(PlanProvider provider);
    // "cpu" or "cuda": the backend the app runs the model on, whose plan the table lists first.
    void setPlanBackend(const QString& backend);
    // Switches to the Graph tab showing `entry` (its graph and its plan).
    void showEntry(const QString& entry);
    // 0..1 per call id: each call node's share of the engine time of the last update (drawn
    // while the heat shows the engine time).
    void setHeat(const QHash<QString, double>& shareByCallId);

    // Compare runs (compare_panel.h). The app says what the dialog can offer through this.
    void setCompareOfferProvider(std::function<CompareOffer()> provider);
    // Opens the dialog (non-modal); Compare emits compareRequested with the choice.
    CompareDialog* openCompareDialog();
    // A comparison runs: the panel shows `what` (step of steps) and a Cancel button.
    void showCompareRunning(const QString& what, int step, int steps);
    // Its result: the table, and the heat switched to the relative error.
    void showComparison(const RunComparison& comparison);
    // A block's values computed again (compareBlockRequested), or why they could not be.
    void showComparedBlock(const CompareRow& computed, const QString& error);
    // Which heat the graph draws: the engine time's shares or the comparison's errors.
    void setHeatScale(graph_style::HeatScale scale);
    graph_style::HeatScale heatScale() const { return m_heatScale; }
    ComparePanel* comparePanel() const { return m_compare; }
    QToolButton* compareButton() const { return m_compareButton; }
    QComboBox* heatPicker() const { return m_heatPicker; }
    HeatLegend* heatLegend() const { return m_legend; }

    // A tapped value for an open tap (or one to open): shown in its tab, refreshed in place.
    void showTap(const TapValue& value);
    // The taps open now, by tap name: what the app computes at each update.
    QStringList openTaps() const;
    TapTabs* tapTabs() const { return m_taps; }
    // Below the graph: why a clicked edge opened no tap.
    QLabel* tapHint() const { return m_tapHint; }

    // The live cross-attention map, below the taps (opened with its toggle, "Cross-attention").
    LiveCrossAttentionPanel* liveCrossAttention() const { return m_liveMap; }
    QToolButton* liveCrossAttentionToggle() const { return m_liveMapToggle; }
    bool liveCrossAttentionOpen() const;
    void setLiveCrossAttentionOpen(bool open);

    GraphView* graphView() const { return m_graph; }
    PlanTable* planTable() const { return m_plan; }
    QSplitter* graphSplitter() const { return m_graphSplitter; }  // graph left, plan right
    // Shows or hides the plan: beside the graph from kPlanBesideMinWidthPx wide (shown at first),
    // below it when narrower (hidden at first).
    QToolButton* planToggle() const { return m_planToggle; }
    // Room for 500 px of graph and 500 px of plan side by side (the inspector beside the pages,
    // half the window, has less and shows the graph alone).
    static constexpr int kPlanBesideMinWidthPx = 1000;
    QTabWidget* tabs() const { return m_tabs; }
    QTableWidget* entriesTable() const { return m_entries; }
    QTableWidget* genericsTable() const { return m_generics; }
    QTreeWidget* blocksTree() const { return m_blocks; }
    QComboBox* entryPicker() const { return m_entryPicker; }

Q_SIGNALS:
    // A tap was opened from the graph (a click on an edge or a block): compute it for the
    // current input. Closed: no longer.
    void tapOpened(const QString& name);
    void tapClosed(const QString& name);
    // Compare runs: the dialog's choice; the Cancel button of a comparison running.
    void compareRequested(const earshot::ui::CompareChoice& choice);
    void compareCancelled();
    // A block of the comparison shown was clicked and its values were not kept: compute them
    // again (both runs, tapped at that block) and answer with showComparedBlock.
    void compareBlockRequested(const QString& entry, const QString& name);
    // The live cross-attention map was opened or closed, or another head chosen (layer -1: the
    // alignment heads).
    void liveCrossAttentionChanged(bool open, int layer, int head);

protected:
    void resizeEvent(QResizeEvent* event) override;

private:
    void updatePlanShown();
    // inspector_compare.cpp: the compare button, heat picker and legend in `row`, the panel
    // under the graph; and a click on the graph choosing a compared block (true) under the error
    // heat.
    void setUpCompare(QHBoxLayout* row);
    bool chooseComparedBlock(const GraphEdge& edge);
    void applyHeat();  // the chosen heat for the entry shown

    InspectorData m_data;
    QTabWidget* m_tabs = nullptr;
    QLabel* m_source = nullptr;
    QTableWidget* m_entries = nullptr;
    QTableWidget* m_generics = nullptr;
    QTreeWidget* m_blocks = nullptr;
    QComboBox* m_entryPicker = nullptr;
    GraphView* m_graph = nullptr;
    PlanTable* m_plan = nullptr;
    QSplitter* m_graphSplitter = nullptr;
    QSplitter* m_tapSplitter = nullptr;  // the graph and plan above, the taps below
    TapTabs* m_taps = nullptr;
    QLabel* m_tapHint = nullptr;
    QToolButton* m_planToggle = nullptr;
    LiveCrossAttentionPanel* m_liveMap = nullptr;
    QToolButton* m_liveMapToggle = nullptr;
    bool m_planShownWide = true;     // what the user chose for a wide inspector
    bool m_planShownNarrow = false;  // and for a narrow one
    QHash<QString, double> m_timeHeat;
    graph_style::HeatScale m_heatScale = graph_style::HeatScale::engineTime;
    std::function<CompareOffer()> m_compareOffer;
    CompareChoice m_lastCompare;
    ComparePanel* m_compare = nullptr;
    QToolButton* m_compareButton = nullptr;
    QComboBox* m_heatPicker = nullptr;
    HeatLegend* m_legend = nullptr;
};

}  // namespace earshot::ui
