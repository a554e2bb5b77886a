// DictationTarget: hands committed dictation (never the tentative text) to another application,
// spaced and capitalised to follow what it already sent.
#include "earshot/ui/live/dictation_target.h"

namespace earshot::ui {

namespace {

bool isClosingPunctuation(QChar c) {
    return c == QLatin1Char('.') || c == QLatin1Char(',') || c == QLatin1Char('!') ||
           c == QLatin1Char('?') || c == QLatin1Char(':') || c == QLatin1Char(';') ||
           c == QLatin1Char(')') || c == QLatin1Char('%') || c == QChar(0x2026);
}

bool endsSentence(const QString& text) {
    for (qsizetype i = text.size() - 1; i >= 0; --i) {
        const QChar c = text[i];
        if (c.isSpace() || c == QLatin1Char('"') || c == QLatin1Char(')')) continue;
        return c == QLatin1Char('.') || c == QLatin1Char('!') || c == QLatin1Char('?');
    }
    return false;
}

}  // namespace

DictationTarget::DictationTarget(QObject* parent) : QObject(parent) {}

void DictationTarget::setEnabled(bool enabled) {
    if (enabled && !m_enabled) m_sent.clear();
    m_enabled = enabled;
}

QString DictationTarget::textToSend(const QString& sentSoFar, const QString& piece) {
    // Whisper's words carry their leading space; a piece without one continues a word (or is
    // punctuation).
    // Blanks around the piece go; line breaks stay.
    qsizetype first = 0;
    qsizetype last = piece.size();
    while (first < last && piece[first].isSpace() && piece[first] != QLatin1Char('\n')) ++first;
    while (last > first && piece[last - 1].isSpace() && piece[last - 1] != QLatin1Char('\n')) {
        --last;
    }
    const QString body = piece.mid(first, last - first);
    if (body.isEmpty()) return {};
    const bool startsWord = piece.front().isSpace();
    QString text = body;
    // The first piece keeps Whisper's case: what the field held before is not known.
    if (endsSentence(sentSoFar)) {
        for (qsizetype i = 0; i < text.size(); ++i) {
            if (text[i].isLetter()) {
                text[i] = text[i].toUpper();
                break;
            }
            if (!text[i].isPunct()) break;  // a number starts the sentence
        }
    }
    const bool afterSentence = endsSentence(sentSoFar) && text.front().isLetterOrNumber();
    const bool needsSpace = !sentSoFar.isEmpty() && !sentSoFar.back().isSpace() &&
                            text.front() != QLatin1Char('\n') &&
                            !isClosingPunctuation(text.front()) && (startsWord || afterSentence);
    return needsSpace ? QLatin1Char(' ') + text : text;
}

void DictationTarget::apply(const LiveTextUpdate& update) {
    if (!m_enabled || !m_sink) return;
    // Code points taken back (never more than were sent), as UTF-16 units of what was sent.
    qsizetype units = 0;
    int erased = 0;
    for (; erased < update.erasedChars && units < m_sent.size(); ++erased) {
        ++units;
        if (units < m_sent.size() && m_sent[m_sent.size() - units].isLowSurrogate()) ++units;
    }
    const QString kept = m_sent.left(m_sent.size() - units);
    const QString text = textToSend(kept, update.committedText);
    if (text.isEmpty() && erased == 0) return;
    const QString error = m_sink(QString(erased, QChar(0x08)) + text);
    if (!error.isEmpty()) {
        Q_EMIT failed(error);
        return;
    }
    m_sent = kept + text;
}

}  // namespace earshot::ui
