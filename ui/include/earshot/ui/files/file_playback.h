// FilePlayback: Play/Pause and the playback time of the file whose result is shown. It plays
// through the TranscriptPlayer the app gives and highlights, in the result's words view, the
// word being heard.
#pragma once

#include <QString>
#include <QWidget>
#include <memory>

#include "earshot/ui/files/transcript_player.h"

class QLabel;
class QPushButton;
class QTimer;

namespace earshot::ui {

class TranscriptWordsView;

class FilePlayback : public QWidget {
    Q_OBJECT

public:
    // `words` is the view whose words are highlighted as they are heard.
    explicit FilePlayback(TranscriptWordsView* words, QWidget* parent = nullptr);
    ~FilePlayback() override;

    // Who plays the files' audio (none: Play says so).
    void setPlayer(std::unique_ptr<TranscriptPlayer> player);
    TranscriptPlayer* player() const { return m_player.get(); }

    // The file shown (`job` -1: none), and whether it can be played (a failed one cannot).
    // Another file than the one that played stops it.
    void setSource(int job, const QString& path, bool playable);
    // The job whose file the player holds (-1: none).
    int playedJob() const { return m_playedJob; }

    // Pauses and forgets which file played.
    void stop();
    // The button's text and the time line as things are now.
    void showState();

    QPushButton* playButton() const { return m_play; }
    // The playback time ("00:03.200 / 00:12.000"), or why nothing plays.
    QLabel* playbackLabel() const { return m_label; }
    // How often, while playing, the position is read and the highlight moved.
    static constexpr int kTickMs = 30;

public Q_SLOTS:
    // Play/Pause: plays the shown file from where it paused (from the start when it ended or
    // another file played), or pauses it.
    void togglePlayback();
    // Plays the shown file from `seconds` onward.
    void playFrom(double seconds);
    // Plays [startS, endS) of the shown file: pauses once the position reaches endS.
    void playRange(double startS, double endS);
    // Reads the player's position: highlights the word heard, shows the time, and notices the end.
    void updatePlayback();

private:
    void cannotPlay(const QString& reason);  // stops, and says why once

    TranscriptWordsView* m_words = nullptr;
    QPushButton* m_play = nullptr;
    QLabel* m_label = nullptr;
    QTimer* m_timer = nullptr;
    std::unique_ptr<TranscriptPlayer> m_player;
    int m_shown = -1;
    QString m_shownPath;
    bool m_playable = false;
    int m_playedJob = -1;
    double m_stopAtS = -1.0;  // playRange's end; -1: play on

public:
    // Where playRange stops (-1 when playing on).
    double stopAtS() const { return m_stopAtS; }
};

}  // namespace earshot::ui
