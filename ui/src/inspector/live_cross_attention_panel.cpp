// LiveCrossAttentionPanel: a head picker and a source line above the cross-attention view.
#include "earshot/ui/inspector/live_cross_attention_panel.h"

#include <QComboBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QPoint>
#include <QSignalBlocker>
#include <QVBoxLayout>

#include "earshot/ui/files/cross_attention_view.h"

namespace earshot::ui {

LiveCrossAttentionPanel::LiveCrossAttentionPanel(QWidget* parent) : QWidget(parent) {
    setObjectName(QStringLiteral("liveCrossAttention"));
    m_heads = new QComboBox(this);
    m_heads->setObjectName(QStringLiteral("liveCrossAttentionHeads"));
    m_heads->setToolTip(tr("The decoder heads whose cross-attention the map shows"));
    m_source = new QLabel(this);
    m_source->setObjectName(QStringLiteral("liveCrossAttentionSource"));
    m_view = new CrossAttentionView(this);
    auto* row = new QHBoxLayout;
    row->addWidget(new QLabel(tr("Cross-attention of"), this));
    row->addWidget(m_heads);
    row->addWidget(m_source, 1);
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(2, 2, 2, 2);
    layout->addLayout(row);
    layout->addWidget(m_view, 1);
    setHeadChoices(0, 0);
    clear(tr("Dictate: the current hypothesis's map appears at each update."));
    connect(m_heads, &QComboBox::currentIndexChanged, this,
            [this] { Q_EMIT headChosen(chosenLayer(), chosenHead()); });
}

void LiveCrossAttentionPanel::setHeadChoices(int layers, int heads) {
    const QSignalBlocker blocker(m_heads);
    m_heads->clear();
    m_heads->addItem(tr("the alignment heads"), QPoint(-1, -1));
    for (int layer = 0; layer < layers; ++layer) {
        for (int head = 0; head < heads; ++head) {
            m_heads->addItem(tr("layer %1, head %2").arg(layer).arg(head), QPoint(layer, head));
        }
    }
}

int LiveCrossAttentionPanel::chosenLayer() const { return m_heads->currentData().toPoint().x(); }
int LiveCrossAttentionPanel::chosenHead() const { return m_heads->currentData().toPoint().y(); }

void LiveCrossAttentionPanel::showMap(const CrossAttentionMap& map, const QString& source) {
    m_source->setText(tr("%1 · %2 · %3 tokens x %4 positions")
                          .arg(source, map.heads)
                          .arg(map.tokens.size())
                          .arg(map.positions));
    m_view->setMap(map);
}

void LiveCrossAttentionPanel::clear(const QString& message) {
    m_source->clear();
    m_view->clear(message);
}

}  // namespace earshot::ui
