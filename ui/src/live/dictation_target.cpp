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
    const QString body = piece.trimmed();
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
                            !isClosingPunctuation(text.front()) && (startsWord || afterSentence);
    return needsSpace ? QLatin1Char(' ') + text : text;
}

void DictationTarget::apply(const LiveTextUpdate& update) {
    if (!m_enabled || !m_sink) return;
    const QString text = textToSend(m_sent, update.committedText);
    if (text.isEmpty()) return;
    const QString error = m_sink(text);
    if (!error.isEmpty()) {
        Q_EMIT failed(error);
        return;
    }
    m_sent += text;
}

}  // namespace earshot::ui
