// LiveCrossAttentionPanel: a head picker and a source line above the cross-attention view; a
// clicked word's samples are cut out of the map's shared window audio and handed to the player.
#include "earshot/ui/inspector/live_cross_attention_panel.h"

#include <QComboBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QPoint>
#include <QSignalBlocker>
#include <QVBoxLayout>
#include <algorithm>
#include <cmath>
#include <span>
#include <vector>

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
    m_view->setToolTip(tr("Click a word to hear it"));
    m_played = new QLabel(this);
    m_played->setObjectName(QStringLiteral("liveCrossAttentionPlayed"));
    auto* row = new QHBoxLayout;
    row->addWidget(new QLabel(tr("Cross-attention of"), this));
    row->addWidget(m_heads);
    row->addWidget(m_source, 1);
    row->addWidget(m_played);
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(2, 2, 2, 2);
    layout->addLayout(row);
    layout->addWidget(m_view, 1);
    setHeadChoices(0, 0);
    clear(tr("Dictate: the current hypothesis's map appears at each update."));
    connect(m_heads, &QComboBox::currentIndexChanged, this,
            [this] { Q_EMIT headChosen(chosenLayer(), chosenHead()); });
    connect(m_view, &CrossAttentionView::wordClicked, this,
            [this](int index, double, double) { playWord(index); });
}

LiveCrossAttentionPanel::~LiveCrossAttentionPanel() = default;

void LiveCrossAttentionPanel::setWordPlayer(std::unique_ptr<WordAudioPlayer> player) {
    m_player = std::move(player);
}

std::pair<size_t, size_t> LiveCrossAttentionPanel::wordSamples(const CrossAttentionMap& map,
                                                               int index) {
    if (index < 0 || index >= map.words.size()) return {0, 0};
    const TimedWord& word = map.words[index];
    const auto at = [&map](double seconds) {
        const double sample = std::round((seconds - map.startS) * map.sampleRateHz);
        return static_cast<size_t>(
            std::clamp(sample, 0.0, static_cast<double>(map.samples.size())));
    };
    const size_t first = at(word.startS);
    return {first, std::max(first, at(word.endS))};
}

void LiveCrossAttentionPanel::playWord(int index) {
    const CrossAttentionMap& map = m_view->map();
    if (index < 0 || index >= map.words.size()) return;
    const QString text = map.words[index].text.trimmed();
    const auto [first, last] = wordSamples(map, index);
    if (last <= first) {
        m_played->setText(tr("No audio of “%1” is kept.").arg(text));
        return;
    }
    if (!m_player) {
        m_played->setText(tr("Playing is not available here."));
        return;
    }
    const std::span<const float> word = map.samples.span().subspan(first, last - first);
    const QString error =
        m_player->play(std::vector<float>(word.begin(), word.end()), map.sampleRateHz);
    m_played->setText(
        error.isEmpty() ? tr("Playing “%1” (%2 s)")
                              .arg(text)
                              .arg(static_cast<double>(last - first) / map.sampleRateHz, 0, 'f', 2)
                        : tr("Cannot play: %1").arg(error));
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
