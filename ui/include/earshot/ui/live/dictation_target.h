// DictationTarget: hands committed dictation (never the tentative text) to another application,
// spaced and capitalised to follow what it already sent; the typing itself is a sink the app
// provides (simulated keys or clipboard + paste).
#pragma once

#include <QObject>
#include <QString>
#include <functional>

#include "earshot/ui/live/live_types.h"

namespace earshot::ui {

class DictationTarget : public QObject {
    Q_OBJECT

public:
    // Sends `text` to the focused window; returns why it could not (empty when it did).
    using Sink = std::function<QString(const QString& text)>;

    explicit DictationTarget(QObject* parent = nullptr);

    void setSink(Sink sink) { m_sink = std::move(sink); }
    void setEnabled(bool enabled);
    bool isEnabled() const { return m_enabled; }
    // What was sent since the mode was switched on (or the last reset()).
    const QString& sent() const { return m_sent; }
    void reset() { m_sent.clear(); }

    // The text to send for a newly committed `piece` after `sentSoFar`: one space between words
    // (a piece that starts without Whisper's leading space continues the word before) and none
    // before punctuation; the first word after a sentence end capitalised. Line breaks (spoken
    // "new line") are kept. Empty when the piece is only blanks.
    static QString textToSend(const QString& sentSoFar, const QString& piece);

public Q_SLOTS:
    // The committed part of a live update goes out; the tentative part never does. Characters
    // spoken commands took back ("scratch that") go first as that many backspaces (U+0008),
    // which the typer presses as BackSpace.
    void apply(const earshot::ui::LiveTextUpdate& update);

Q_SIGNALS:
    // The sink failed: the message names what is missing (a package to install, ...).
    void failed(const QString& message);

private:
    Sink m_sink;
    bool m_enabled = false;
    QString m_sent;
};

}  // namespace earshot::ui
