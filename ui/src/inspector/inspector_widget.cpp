// The inspector's tabs: the three `inspect` tables filled from InspectorData, and the Graph tab
// whose entry picker drives the GraphView and the PlanTable beside it.
#include "earshot/ui/inspector/inspector_widget.h"

#include <QComboBox>
#include <QFontDatabase>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QSignalBlocker>
#include <QSplitter>
#include <QTabWidget>
#include <QTableWidget>
#include <QToolButton>
#include <QTreeWidget>
#include <QVBoxLayout>

#include "earshot/ui/inspector/graph_view.h"
#include "earshot/ui/inspector/live_cross_attention_panel.h"
#include "earshot/ui/inspector/plan_table.h"
#include "earshot/ui/inspector/tap_tabs.h"

namespace earshot::ui {

namespace {

QTableWidget* makeTable(const QStringList& headers, QWidget* parent) {
    auto* table = new QTableWidget(0, static_cast<int>(headers.size()), parent);
    table->setHorizontalHeaderLabels(headers);
    table->setEditTriggers(QAbstractItemView::NoEditTriggers);
    table->setSelectionBehavior(QAbstractItemView::SelectRows);
    table->verticalHeader()->setVisible(false);
    table->horizontalHeader()->setStretchLastSection(true);
    table->setWordWrap(false);
    return table;
}

QTableWidgetItem* cell(const QString& text, const QFont& font) {
    auto* item = new QTableWidgetItem(text);
    item->setFont(font);
    item->setToolTip(text);
    return item;
}

}  // namespace

InspectorWidget::InspectorWidget(QWidget* parent) : QWidget(parent) {
    const QFont mono = QFontDatabase::systemFont(QFontDatabase::FixedFont);
    m_tabs = new QTabWidget(this);
    m_source = new QLabel(this);
    m_source->setTextInteractionFlags(Qt::TextSelectableByMouse);

    m_entries = makeTable({tr("Entry"), tr("Signature")}, this);
    m_generics = makeTable({tr("Generic"), tr("Value")}, this);
    m_blocks = new QTreeWidget(this);
    m_blocks->setHeaderLabels({tr("Block / member"), tr("Kind"), tr("Type or signature")});
    m_blocks->setUniformRowHeights(true);

    auto* graphPage = new QWidget(this);
    m_entryPicker = new QComboBox(graphPage);
    m_entryPicker->setToolTip(tr("The entry whose traced graph is drawn"));
    m_graphSplitter = new QSplitter(Qt::Horizontal, graphPage);
    m_graph = new GraphView(m_graphSplitter);
    m_plan = new PlanTable(m_graphSplitter);
    m_graphSplitter->addWidget(m_graph);
    m_graphSplitter->addWidget(m_plan);
    // Halves: the graph fits its width, the plan's names and numbers fit theirs (its operands
    // scroll).
    m_graphSplitter->setStretchFactor(0, 1);
    m_graphSplitter->setStretchFactor(1, 1);
    m_graphSplitter->setSizes({500, 500});
    m_graphSplitter->setChildrenCollapsible(false);
    m_planToggle = new QToolButton(graphPage);
    m_planToggle->setText(tr("Plan"));
    m_planToggle->setCheckable(true);
    m_planToggle->setChecked(true);
    auto* pickerRow = new QHBoxLayout;
    pickerRow->addWidget(new QLabel(tr("Entry:"), graphPage));
    pickerRow->addWidget(m_entryPicker);
    pickerRow->addStretch(1);
    m_liveMapToggle = new QToolButton(graphPage);
    m_liveMapToggle->setObjectName(QStringLiteral("liveCrossAttentionToggle"));
    m_liveMapToggle->setText(tr("Cross-attention"));
    m_liveMapToggle->setToolTip(
        tr("While dictating: the current hypothesis's cross-attention over the audio"));
    m_liveMapToggle->setCheckable(true);
    pickerRow->addWidget(m_liveMapToggle);
    pickerRow->addWidget(m_planToggle);
    m_tapHint = new QLabel(tr("Click an edge or a block to see its values."), graphPage);
    m_tapHint->setObjectName(QStringLiteral("tapHint"));
    // The hint takes the room the buttons leave and never widens the inspector: a long tap name
    // is cut at the right edge rather than pushing the window wider than the screen.
    m_tapHint->setSizePolicy(QSizePolicy::Ignored, QSizePolicy::Preferred);
    pickerRow->insertWidget(2, m_tapHint, 1);
    m_tapSplitter = new QSplitter(Qt::Vertical, graphPage);
    m_tapSplitter->setChildrenCollapsible(false);
    m_tapSplitter->addWidget(m_graphSplitter);
    m_taps = new TapTabs(m_tapSplitter);
    m_tapSplitter->addWidget(m_taps);
    m_taps->hide();  // until a tap opens
    m_liveMap = new LiveCrossAttentionPanel(m_tapSplitter);
    m_tapSplitter->addWidget(m_liveMap);
    m_liveMap->hide();  // until its toggle opens it
    setUpCompare(pickerRow);
    auto* graphLayout = new QVBoxLayout(graphPage);
    graphLayout->setContentsMargins(4, 4, 4, 4);
    graphLayout->addLayout(pickerRow);
    graphLayout->addWidget(m_tapSplitter, 1);

    m_tabs->addTab(m_entries, tr("Entries"));
    m_tabs->addTab(m_generics, tr("Generics"));
    m_tabs->addTab(m_blocks, tr("Blocks"));
    m_tabs->addTab(graphPage, tr("Graph"));
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(m_source);
    layout->addWidget(m_tabs, 1);

    connect(m_entryPicker, &QComboBox::currentTextChanged, this, [this](const QString& entry) {
        if (entry != m_graph->entry()) m_graph->showEntry(entry);
        m_plan->showEntry(entry);
        applyHeat();
    });
    connect(m_planToggle, &QToolButton::toggled, this, [this](bool on) {
        (width() >= kPlanBesideMinWidthPx ? m_planShownWide : m_planShownNarrow) = on;
        updatePlanShown();
    });
    connect(m_entries, &QTableWidget::cellDoubleClicked, this, [this](int row, int) {
        if (QTableWidgetItem* item = m_entries->item(row, 0)) showEntry(item->text());
    });
    connect(m_graph, &GraphView::edgeClicked, this, [this](const GraphEdge& edge) {
        if (chooseComparedBlock(edge)) return;
        const QString why = m_taps->openEdge(edge);
        m_tapHint->setText(
            why.isEmpty() ? tr("Tapped %1").arg(edge.tapTitle.isEmpty() ? edge.tap : edge.tapTitle)
                          : why);
        if (why.isEmpty() && m_taps->isHidden()) {
            m_taps->show();
            const int total = m_tapSplitter->height();
            m_tapSplitter->setSizes({total / 2, total - total / 2});
        }
    });
    connect(m_taps, &TapTabs::tapOpened, this, [this](const QString& name) {
        m_tapHint->setText(tr("Tapped %1").arg(name));  // also a tab retargeted to another layer
        Q_EMIT tapOpened(name);
    });
    connect(m_taps, &TapTabs::tapClosed, this, [this](const QString& name) {
        if (m_taps->count() == 0) m_taps->hide();
        Q_EMIT tapClosed(name);
    });
    connect(m_liveMapToggle, &QToolButton::toggled, this, [this](bool on) {
        m_liveMap->setVisible(on);
        if (on) {  // graph, taps (when open) and map share the height
            const int total = m_tapSplitter->height();
            const int parts = m_taps->isVisible() ? 3 : 2;
            m_tapSplitter->setSizes(
                {total / parts, m_taps->isVisible() ? total / parts : 0, total / parts});
        }
        Q_EMIT liveCrossAttentionChanged(on, m_liveMap->chosenLayer(), m_liveMap->chosenHead());
    });
    connect(m_liveMap, &LiveCrossAttentionPanel::headChosen, this, [this](int layer, int head) {
        Q_EMIT liveCrossAttentionChanged(liveCrossAttentionOpen(), layer, head);
    });
    setData(InspectorData{});
    updatePlanShown();
}

bool InspectorWidget::liveCrossAttentionOpen() const { return m_liveMapToggle->isChecked(); }

void InspectorWidget::setLiveCrossAttentionOpen(bool open) { m_liveMapToggle->setChecked(open); }

void InspectorWidget::showTap(const TapValue& value) {
    m_taps->showValue(value);
    m_taps->show();
}

QStringList InspectorWidget::openTaps() const { return m_taps->openTaps(); }

void InspectorWidget::setData(const InspectorData& data) {
    m_data = data;
    const QFont mono = QFontDatabase::systemFont(QFontDatabase::FixedFont);
    m_source->setText(
        data.checkpoint.isEmpty()
            ? tr("No model loaded.")
            : tr("%1  (%2, T from %3)").arg(data.checkpoint, data.format, data.dtypeSource));

    m_entries->setRowCount(static_cast<int>(data.entries.size()));
    for (int row = 0; row < data.entries.size(); ++row) {
        m_entries->setItem(row, 0, cell(data.entries[row].name, mono));
        m_entries->setItem(row, 1, cell(data.entries[row].signature, mono));
    }
    m_entries->resizeColumnToContents(0);

    m_generics->setRowCount(static_cast<int>(data.generics.size()));
    for (int row = 0; row < data.generics.size(); ++row) {
        m_generics->setItem(row, 0, cell(data.generics[row].name, mono));
        m_generics->setItem(row, 1, cell(data.generics[row].value, mono));
    }
    m_generics->resizeColumnToContents(0);

    m_blocks->clear();
    for (const InspectorBlock& block : data.blocks) {
        auto* top = new QTreeWidgetItem(m_blocks, {block.name, tr("block"), block.header});
        top->setFont(2, mono);
        top->setToolTip(2, block.header);
        for (const InspectorMember& member : block.members) {
            auto* item = new QTreeWidgetItem(top, {member.name, member.kind, member.type});
            item->setFont(0, mono);
            item->setFont(2, mono);
            item->setToolTip(2, member.type);
        }
    }
    m_blocks->expandAll();
    m_blocks->resizeColumnToContents(0);
    m_blocks->resizeColumnToContents(1);

    // The picker lists the entries; the graph keeps its entry when the new model has it.
    const QString shown = m_graph->entry();
    QString next;
    {
        const QSignalBlocker block(m_entryPicker);
        m_entryPicker->clear();
        for (const InspectorEntry& entry : data.entries) m_entryPicker->addItem(entry.name);
        next = m_entryPicker->findText(shown) >= 0 ? shown
               : m_entryPicker->count() > 0        ? m_entryPicker->itemText(0)
                                                   : QString();
        m_entryPicker->setCurrentText(next);
    }
    if (next == shown) {
        m_graph->reload();
    } else {
        m_graph->showEntry(next);
    }
    m_plan->showEntry(next);
}

void InspectorWidget::setGraphProvider(GraphProvider provider) {
    m_graph->setProvider(std::move(provider));
    m_graph->reload();
}

void InspectorWidget::setPlanProvider(PlanProvider provider) {
    m_plan->setProvider(std::move(provider));
}

void InspectorWidget::setPlanBackend(const QString& backend) { m_plan->setBackend(backend); }

void InspectorWidget::showEntry(const QString& entry) {
    m_tabs->setCurrentIndex(m_tabs->count() - 1);
    {
        const QSignalBlocker block(m_entryPicker);
        m_entryPicker->setCurrentText(entry);
    }
    m_graph->showEntry(entry);
    m_plan->showEntry(entry);
    applyHeat();
}

void InspectorWidget::resizeEvent(QResizeEvent* event) {
    QWidget::resizeEvent(event);
    updatePlanShown();
}

void InspectorWidget::updatePlanShown() {
    // Wide: the plan beside the graph, shown unless the user hid it. Narrow (the default window,
    // the inspector beside the pages): the graph alone until the user asks for the plan, which
    // then goes below the graph. The button says which, and is never a dead end.
    const bool wide = width() >= kPlanBesideMinWidthPx;
    m_graphSplitter->setOrientation(wide ? Qt::Horizontal : Qt::Vertical);
    const bool shown = wide ? m_planShownWide : m_planShownNarrow;
    {
        const QSignalBlocker blocker(m_planToggle);
        m_planToggle->setChecked(shown);
    }
    m_planToggle->setToolTip(
        wide ? tr("The plan of the entry as the backend runs it (`earshot debug plan`), beside "
                  "the graph")
             : tr("The plan of the entry as the backend runs it (`earshot debug plan`), below the "
                  "graph (beside it when the inspector is at least %1 px wide)")
                   .arg(kPlanBesideMinWidthPx));
    m_plan->setVisible(shown);
}

void InspectorWidget::setHeat(const QHash<QString, double>& shareByCallId) {
    m_timeHeat = shareByCallId;
    if (m_heatScale == graph_style::HeatScale::engineTime) applyHeat();
}

}  // namespace earshot::ui
