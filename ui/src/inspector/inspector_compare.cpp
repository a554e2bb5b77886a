// InspectorWidget's "Compare runs": the button that opens the dialog, the heat picker (engine
// time or relative error) with its legend, the compare panel under the graph, and a click on a
// block choosing it in the comparison while the error heat is shown.
#include <QComboBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QLayout>
#include <QPushButton>
#include <QSplitter>
#include <QToolButton>
#include <algorithm>

#include "earshot/ui/inspector/compare_dialog.h"
#include "earshot/ui/inspector/compare_panel.h"
#include "earshot/ui/inspector/graph_view.h"
#include "earshot/ui/inspector/heat_legend.h"
#include "earshot/ui/inspector/inspector_widget.h"
#include "earshot/ui/inspector/tap_tabs.h"

namespace earshot::ui {

void InspectorWidget::setUpCompare(QHBoxLayout* row) {
    m_compareButton = new QToolButton(this);
    m_compareButton->setText(tr("Compare runs\u2026"));
    m_compareButton->setToolTip(
        tr("Run one input through two backends or two checkpoints and see each block's error"));
    m_heatPicker = new QComboBox(this);
    m_heatPicker->addItem(tr("Heat: engine time"));
    m_heatPicker->addItem(tr("Heat: relative error"));
    m_heatPicker->setToolTip(tr("What the colours on the graph show"));
    // Both only while a comparison is there: the row stays narrow enough for an inspector
    // docked beside the pages.
    m_heatPicker->setEnabled(false);
    m_heatPicker->hide();
    m_legend = new HeatLegend(this);
    m_legend->hide();
    // After the hint (which stretches), before the Plan button.
    const int at = row->count() - 1;
    row->insertWidget(at, m_legend);
    row->insertWidget(at, m_heatPicker);
    row->insertWidget(at, m_compareButton);

    m_compare = new ComparePanel(m_tapSplitter);
    m_tapSplitter->addWidget(m_compare);
    m_compare->hide();

    connect(m_compareButton, &QToolButton::clicked, this, [this] { openCompareDialog(); });
    connect(m_heatPicker, &QComboBox::currentIndexChanged, this, [this](int index) {
        setHeatScale(index == 1 ? graph_style::HeatScale::relativeError
                                : graph_style::HeatScale::engineTime);
    });
    connect(m_compare, &ComparePanel::cancelRequested, this, &InspectorWidget::compareCancelled);
    connect(m_compare, &ComparePanel::valuesRequested, this,
            &InspectorWidget::compareBlockRequested);
    connect(m_compare, &ComparePanel::rowSelected, this, [this](int index) {
        m_tapHint->setText(tr("Compared %1").arg(m_compare->comparison().rows[index].name));
    });
    connect(m_compare, &ComparePanel::closeRequested, this, [this] {
        if (m_compare->isRunning()) Q_EMIT compareCancelled();
        m_compare->setComparison(RunComparison{});
        m_compare->hide();
        m_heatPicker->setEnabled(false);
        m_heatPicker->hide();
        m_legend->hide();
        setHeatScale(graph_style::HeatScale::engineTime);
    });
}

void InspectorWidget::setCompareOfferProvider(std::function<CompareOffer()> provider) {
    m_compareOffer = std::move(provider);
}

CompareDialog* InspectorWidget::openCompareDialog() {
    const CompareOffer offer = m_compareOffer ? m_compareOffer() : CompareOffer{};
    auto* dialog = new CompareDialog(offer, m_lastCompare, this);
    dialog->setAttribute(Qt::WA_DeleteOnClose);
    connect(dialog, &QDialog::accepted, this, [this, dialog] {
        m_lastCompare = dialog->choice();
        Q_EMIT compareRequested(m_lastCompare);
    });
    dialog->open();
    return dialog;
}

void InspectorWidget::showCompareRunning(const QString& what, int step, int steps) {
    // Hidden, or as small as a message left it: room for the table and the values again.
    const bool small = m_compare->isHidden() || m_compare->height() < m_tapSplitter->height() / 3;
    m_compare->setMaximumHeight(QWIDGETSIZE_MAX);
    m_compare->setRunning(what, step, steps);
    m_compare->show();
    if (small) {
        // Half the height to the graph, a sixth to each open tap or live map, the rest to the
        // comparison. By the splitter's own order of its children, whatever that order is.
        QList<int> sizes = m_tapSplitter->sizes();
        const int total = m_tapSplitter->height();
        int left = total - total / 2;
        for (int i = 0; i < sizes.size(); ++i) {
            QWidget* child = m_tapSplitter->widget(i);
            if (child == m_graphSplitter) {
                sizes[i] = total / 2;
            } else if (child == m_compare) {
                sizes[i] = 0;  // below: what the others leave
            } else {
                sizes[i] = child->isHidden() ? 0 : total / 6;
                left -= sizes[i];
            }
        }
        sizes[m_tapSplitter->indexOf(m_compare)] = std::max(left, 0);
        m_tapSplitter->setSizes(sizes);
    }
}

void InspectorWidget::showComparison(const RunComparison& comparison) {
    m_compare->setComparison(comparison);
    m_compare->show();
    const bool any = !comparison.rows.isEmpty();
    // A message alone (an error, cancelled) is a line under the graph, not half the page: the
    // splitter gives the rest to the graph.
    const int line = std::max(m_compare->statusLabel()->sizeHint().height(),
                              m_compare->cancelButton()->sizeHint().height());
    m_compare->setMaximumHeight(any ? QWIDGETSIZE_MAX : line + 8);
    m_heatPicker->setEnabled(any);
    m_heatPicker->setVisible(any);
    m_legend->setVisible(any);
    setHeatScale(any ? graph_style::HeatScale::relativeError : graph_style::HeatScale::engineTime);
}

void InspectorWidget::showComparedBlock(const CompareRow& computed, const QString& error) {
    m_compare->setBlockValues(computed, error);
}

void InspectorWidget::setHeatScale(graph_style::HeatScale scale) {
    m_heatScale = scale;
    {
        const QSignalBlocker block(m_heatPicker);
        m_heatPicker->setCurrentIndex(scale == graph_style::HeatScale::relativeError ? 1 : 0);
    }
    m_legend->setScale(scale);
    applyHeat();
}

void InspectorWidget::applyHeat() {
    if (m_heatScale == graph_style::HeatScale::relativeError) {
        m_graph->setHeat(m_compare->heatFor(m_graph->entry()), m_heatScale);
    } else {
        m_graph->setHeat(m_timeHeat, m_heatScale);
    }
}

bool InspectorWidget::chooseComparedBlock(const GraphEdge& edge) {
    if (m_heatScale != graph_style::HeatScale::relativeError) return false;
    for (const GraphNode& node : m_graph->graph().nodes) {
        if (node.id != edge.from) continue;
        if (node.callId.isEmpty() || !m_compare->selectCall(m_graph->entry(), node.callId)) {
            return false;
        }
        return true;  // the hint names the block (rowSelected)
    }
    return false;
}

}  // namespace earshot::ui
