// LiveCrossAttentionPanel: the Inspector's live cross-attention: while dictating, the current
// hypothesis's tokens x audio-positions map (of the alignment heads or a chosen head) under the
// window's waveform and log-mel, with the warp path and each word's span, replaced at each update.
#pragma once

#include <QWidget>

#include "earshot/ui/files/cross_attention_data.h"

class QComboBox;
class QLabel;

namespace earshot::ui {

class CrossAttentionView;

class LiveCrossAttentionPanel : public QWidget {
    Q_OBJECT

public:
    explicit LiveCrossAttentionPanel(QWidget* parent = nullptr);

    // The heads to choose from: the alignment heads, then every head of `layers` x `heads`.
    void setHeadChoices(int layers, int heads);
    // The head chosen: layer -1 for the alignment heads.
    int chosenLayer() const;
    int chosenHead() const;
    // The map of the newest update (its source: "dictation, update 12").
    void showMap(const CrossAttentionMap& map, const QString& source);
    void clear(const QString& message);

    CrossAttentionView* view() const { return m_view; }
    QComboBox* headPicker() const { return m_heads; }
    QLabel* sourceLabel() const { return m_source; }

Q_SIGNALS:
    void headChosen(int layer, int head);

private:
    QComboBox* m_heads = nullptr;
    QLabel* m_source = nullptr;
    CrossAttentionView* m_view = nullptr;
};

}  // namespace earshot::ui
