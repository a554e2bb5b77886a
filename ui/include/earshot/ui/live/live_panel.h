// LivePanel: the dictation page. Start/stop, the input device picker, the level meter, the
// transcript (committed and tentative text) with copy and clear, and its autosave journal; under
// it the hypothesis as tokens coloured by probability, with a line for a clicked token. Whether
// dictation runs is the app's to know: the panel shows what it is told (setRunning,
// setStartAllowed) and asks to start or stop by signal.
#pragma once

#include <QList>
#include <QString>
#include <QWidget>
#include <memory>

#include "earshot/ui/live/live_types.h"

class QCheckBox;
class QComboBox;
class QLabel;
class QPushButton;
class QTimer;

namespace earshot::ui {

class LevelMeter;
class TokenStrip;
class TranscriptJournal;
class TranscriptView;

class LivePanel : public QWidget {
    Q_OBJECT

public:
    explicit LivePanel(QWidget* parent = nullptr);
    ~LivePanel() override;

    // The picker's entries; the default device is selected. An empty list leaves only
    // "Default input".
    void setDevices(const QList<InputDeviceEntry>& devices);
    // The chosen device's spec; empty for the system default.
    QString selectedDevice() const;

    // Shows dictation running (the button reads Stop, the device picker is locked) or stopped.
    void setRunning(bool running);
    // What it shows: not the truth for anyone outside the page (the app's controller has that).
    bool showsRunning() const { return m_running; }
    // Whether Start can be pressed; `reason` is shown when it cannot (no model, model busy).
    void setStartAllowed(bool allowed, const QString& reason = {});
    bool startAllowed() const { return m_startAllowed; }

    void applyUpdate(const LiveTextUpdate& update);
    void setLevelDbfs(double levelDbfs);
    // One line under the controls: what the session is doing, or what went wrong.
    void setStatusText(const QString& text);
    QString statusText() const;

    // Reads the journal at `path` into the transcript (when it holds text) and from then on
    // saves every change of the committed text to it.
    void attachJournal(const QString& path);
    QString journalPath() const;

    TranscriptView* transcript() const { return m_transcript; }
    TokenStrip* tokenStrip() const { return m_tokens; }
    QLabel* tokenDetails() const { return m_tokenDetails; }
    LevelMeter* levelMeter() const { return m_levelMeter; }
    QPushButton* startStopButton() const { return m_startStop; }
    QComboBox* devicePicker() const { return m_devices; }
    QCheckBox* typeIntoFocusedWindowBox() const { return m_typeInto; }

public Q_SLOTS:
    // The user asks to start when it shows stopped (and start is allowed), or to stop when it
    // shows running: emits startRequested or stopRequested (the button and the menu's shortcut).
    void requestToggle();
    void copyTranscript();
    // Clears the transcript (undoable; a copy of the cleared text goes beside the journal).
    void clearTranscript();

Q_SIGNALS:
    void startRequested(const QString& deviceSpec);
    void stopRequested();

private:
    void saveJournal();
    void updateButton();

    QPushButton* m_startStop = nullptr;
    QComboBox* m_devices = nullptr;
    QCheckBox* m_typeInto = nullptr;
    LevelMeter* m_levelMeter = nullptr;
    QLabel* m_status = nullptr;
    TranscriptView* m_transcript = nullptr;
    TokenStrip* m_tokens = nullptr;
    QLabel* m_tokenDetails = nullptr;
    QPushButton* m_copy = nullptr;
    QPushButton* m_clear = nullptr;
    QTimer* m_journalTimer = nullptr;
    std::unique_ptr<TranscriptJournal> m_journal;
    bool m_running = false;
    bool m_startAllowed = true;
    QString m_notAllowedReason;
    bool m_statusIsReason = false;  // the status line shows m_notAllowedReason
};

}  // namespace earshot::ui
