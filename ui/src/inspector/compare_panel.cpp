// The compare panel: progress and cancel while the runs go, then the sorted table beside the
// chosen block's three values (run A, run B, A - B) in tap panels.
#include "earshot/ui/inspector/compare_panel.h"

#include <QHBoxLayout>
#include <QLabel>
#include <QProgressBar>
#include <QPushButton>
#include <QScrollArea>
#include <QSplitter>
#include <QTabWidget>
#include <QVBoxLayout>
#include <algorithm>

#include "earshot/ui/inspector/compare_table.h"
#include "earshot/ui/inspector/tap_panel.h"

namespace earshot::ui {

TapValue compareValue(const RunComparison& comparison, const CompareRow& row, CompareSide side) {
    TapValue value;
    value.symbolicType = row.symbolicType;
    value.dtype = QStringLiteral("f32");
    value.shape = row.shape;
    value.source = comparison.input;
    switch (side) {
        case CompareSide::a:
            value.name = row.name + QStringLiteral(" (A)");
            value.title = QObject::tr("%1 \u2014 A: %2").arg(row.name, comparison.labelA);
            value.values = row.valuesA;
            break;
        case CompareSide::b:
            value.name = row.name + QStringLiteral(" (B)");
            value.title = QObject::tr("%1 \u2014 B: %2").arg(row.name, comparison.labelB);
            value.values = row.valuesB;
            break;
        case CompareSide::difference:
            value.name = row.name + QStringLiteral(" (A - B)");
            value.title = QObject::tr("%1 \u2014 A \u2212 B").arg(row.name);
            value.values.resize(std::min(row.valuesA.size(), row.valuesB.size()));
            for (size_t i = 0; i < value.values.size(); ++i) {
                value.values[i] = row.valuesA[i] - row.valuesB[i];
            }
            break;
    }
    if (value.values.empty() || static_cast<qint64>(value.values.size()) != value.numel()) {
        const QString name = value.name;
        value = TapValue{};
        value.name = value.title = name;
        value.error = QObject::tr("The comparison did not keep this block's values.");
    }
    return value;
}

ComparePanel::ComparePanel(QWidget* parent) : QWidget(parent) {
    m_status = new QLabel(tr("No comparison yet."), this);
    m_status->setWordWrap(true);
    m_status->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_progress = new QProgressBar(this);
    m_progress->setMaximumWidth(160);
    m_progress->hide();
    m_cancel = new QPushButton(tr("Cancel"), this);
    m_cancel->setToolTip(tr("Stop the comparison"));
    m_cancel->hide();
    m_close = new QPushButton(tr("Close"), this);
    m_close->setToolTip(tr("Close the comparison and its heat"));
    auto* head = new QHBoxLayout;
    head->addWidget(m_status, 1);
    head->addWidget(m_progress);
    head->addWidget(m_cancel);
    head->addWidget(m_close);

    auto* split = new QSplitter(Qt::Horizontal, this);
    split->setChildrenCollapsible(false);
    m_table = new CompareTable(split);
    auto* values = new QWidget(split);
    m_blockTitle = new QLabel(tr("Click a block in the table or on the graph."), values);
    m_blockTitle->setWordWrap(true);
    m_valueTabs = new QTabWidget(values);
    m_panelA = new TapPanel(m_valueTabs);
    m_panelB = new TapPanel(m_valueTabs);
    m_panelDiff = new TapPanel(m_valueTabs);
    // Each panel scrolls inside its tab: its statistics, histogram and heatmap would otherwise
    // set the comparison's least height, and in a window of ordinary height the splitter would
    // take that from the graph above.
    const auto scrolled = [this](TapPanel* panel) {
        auto* area = new QScrollArea(m_valueTabs);
        area->setWidgetResizable(true);
        area->setFrameShape(QFrame::NoFrame);
        area->setWidget(panel);
        return area;
    };
    m_valueTabs->addTab(scrolled(m_panelA), tr("Run A"));
    m_valueTabs->addTab(scrolled(m_panelB), tr("Run B"));
    m_valueTabs->addTab(scrolled(m_panelDiff), tr("A \u2212 B"));
    m_valueTabs->setCurrentIndex(2);
    auto* valuesLayout = new QVBoxLayout(values);
    valuesLayout->setContentsMargins(0, 0, 0, 0);
    valuesLayout->addWidget(m_blockTitle);
    valuesLayout->addWidget(m_valueTabs, 1);
    split->addWidget(m_table);
    split->addWidget(values);
    split->setStretchFactor(0, 1);
    split->setStretchFactor(1, 1);

    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addLayout(head);
    layout->addWidget(split, 1);

    connect(m_cancel, &QPushButton::clicked, this, &ComparePanel::cancelRequested);
    connect(m_close, &QPushButton::clicked, this, &ComparePanel::closeRequested);
    connect(m_table, &CompareTable::blockChosen, this, &ComparePanel::selectRow);
}

void ComparePanel::setRunning(const QString& what, int step, int steps) {
    m_running = true;
    m_status->setText(what);
    m_progress->setRange(0, std::max(1, steps));
    m_progress->setValue(std::clamp(step, 0, std::max(1, steps)));
    m_progress->show();
    m_cancel->show();
    m_cancel->setEnabled(true);
}

void ComparePanel::setComparison(const RunComparison& comparison) {
    m_running = false;
    m_progress->hide();
    m_cancel->hide();
    m_comparison = comparison;
    m_selected = -1;
    m_pending = -1;
    m_recomputed = -1;
    m_table->setComparison(comparison);
    for (TapPanel* panel : {m_panelA, m_panelB, m_panelDiff}) panel->setValue(TapValue{});
    if (comparison.cancelled) {
        m_status->setText(tr("Comparison cancelled."));
    } else if (!comparison.error.isEmpty()) {
        m_status->setText(tr("Could not compare: %1").arg(comparison.error));
    } else {
        m_status->setText(tr("A: %1   B: %2   on %3 \u2014 %n block outputs, largest relative "
                             "error first",
                             nullptr, static_cast<int>(comparison.rows.size()))
                              .arg(comparison.labelA, comparison.labelB, comparison.input));
    }
    m_blockTitle->setText(
        comparison.rows.isEmpty() ? QString() : tr("Click a block in the table or on the graph."));
    // Nothing to open without rows: no empty table and panels under the message.
    m_valueTabs->setVisible(!comparison.rows.isEmpty());
    m_table->setVisible(!comparison.rows.isEmpty());
    if (!comparison.rows.isEmpty()) selectRow(0);
}

QHash<QString, double> ComparePanel::heatFor(const QString& entry) const {
    QHash<QString, double> heat;
    for (const CompareRow& row : m_comparison.rows) {
        if (row.entry != entry) continue;
        for (const QString& call : row.callIds) {
            auto at = heat.find(call);
            // NaN never compares larger: an infinite error is stored as such by the engine.
            if (at == heat.end() || row.relativeError > *at) heat.insert(call, row.relativeError);
        }
    }
    return heat;
}

void ComparePanel::selectRow(int index) {
    if (index < 0 || index >= m_comparison.rows.size()) return;
    m_selected = index;
    const CompareRow& row = m_comparison.rows[index];
    m_table->selectComparisonRow(index);
    m_blockTitle->setText(tr("%1 (%2): relative error %3, max abs error %4 (max |A| %5)")
                              .arg(row.name, row.entry, formatError(row.relativeError),
                                   formatError(row.maxAbsError), formatError(row.maxAbsA)));
    if (row.valuesA.empty() && row.valuesB.empty()) {
        for (TapPanel* panel : {m_panelA, m_panelB, m_panelDiff}) panel->setValue(TapValue{});
        m_blockTitle->setText(
            tr("%1 (%2): relative error %3. Its values were not kept (past the comparison's "
               "budget): computing them again, both runs tapped at this block\u2026")
                .arg(row.name, row.entry, formatError(row.relativeError)));
        if (m_pending != index) {
            m_pending = index;
            Q_EMIT valuesRequested(row.entry, row.name);
        }
        Q_EMIT rowSelected(index);
        return;
    }
    m_panelA->setValue(compareValue(m_comparison, row, CompareSide::a));
    m_panelB->setValue(compareValue(m_comparison, row, CompareSide::b));
    m_panelDiff->setValue(compareValue(m_comparison, row, CompareSide::difference));
    Q_EMIT rowSelected(index);
}

void ComparePanel::setBlockValues(const CompareRow& computed, const QString& error) {
    int index = -1;
    for (int i = 0; i < m_comparison.rows.size(); ++i) {
        const CompareRow& row = m_comparison.rows[i];
        if (row.entry == computed.entry && row.name == computed.name) index = i;
    }
    if (index < 0) return;  // a result for a comparison no longer shown
    if (index == m_pending) m_pending = -1;
    if (!error.isEmpty()) {
        if (index == m_selected) {
            m_blockTitle->setText(tr("%1 (%2): could not compute its values again: %3")
                                      .arg(computed.name, computed.entry, error));
        }
        return;
    }
    if (m_recomputed >= 0 && m_recomputed != index) {
        CompareRow& before = m_comparison.rows[m_recomputed];
        before.valuesA = {};
        before.valuesB = {};
    }
    CompareRow& row = m_comparison.rows[index];
    row.valuesA = computed.valuesA;
    row.valuesB = computed.valuesB;
    m_recomputed = index;
    if (index == m_selected) selectRow(index);
}

bool ComparePanel::selectCall(const QString& entry, const QString& callId) {
    // Rows are worst first: the first that holds the call is its worst iteration.
    for (int i = 0; i < m_comparison.rows.size(); ++i) {
        const CompareRow& row = m_comparison.rows[i];
        if (row.entry == entry && row.callIds.contains(callId)) {
            selectRow(i);
            return true;
        }
    }
    return false;
}

}  // namespace earshot::ui
