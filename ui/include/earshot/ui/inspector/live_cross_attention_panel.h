// LiveCrossAttentionPanel: the Inspector's live cross-attention: while dictating, the current
// hypothesis's tokens x audio-positions map (of the alignment heads or a chosen head) under the
// window's waveform and log-mel, with the warp path and each word's span, replaced at each update.
// Clicking a word plays its samples out of the window the update was decoded from.
#pragma once

#include <QWidget>
#include <cstddef>
#include <memory>
#include <utility>

#include "earshot/ui/files/cross_attention_data.h"
#include "earshot/ui/inspector/word_audio_player.h"

class QComboBox;
class QLabel;

namespace earshot::ui {

class CrossAttentionView;

class LiveCrossAttentionPanel : public QWidget {
    Q_OBJECT

public:
    explicit LiveCrossAttentionPanel(QWidget* parent = nullptr);
    ~LiveCrossAttentionPanel() override;

    // Who plays a clicked word (none: a click says playing is not available).
    void setWordPlayer(std::unique_ptr<WordAudioPlayer> player);
    WordAudioPlayer* wordPlayer() const { return m_player.get(); }
    // The samples [first, last) of `map.samples` that word `index` spans: its start and end
    // times from the window's start, at the map's rate, rounded to the nearest sample and kept
    // inside the audio the map holds.
    static std::pair<size_t, size_t> wordSamples(const CrossAttentionMap& map, int index);

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
    // What the last click on a word did ("Playing “word” (0.32 s)", or why it could not).
    QLabel* playLabel() const { return m_played; }

public Q_SLOTS:
    // Plays word `index` of the map shown, out of the map's own window audio.
    void playWord(int index);

Q_SIGNALS:
    void headChosen(int layer, int head);

private:
    std::unique_ptr<WordAudioPlayer> m_player;
    QLabel* m_played = nullptr;
    QComboBox* m_heads = nullptr;
    QLabel* m_source = nullptr;
    CrossAttentionView* m_view = nullptr;
};

}  // namespace earshot::ui
