// TranscriptView: the committed text and the greyed tentative tail in one editable document. The
// tail is always the document's last m_tentativeLength characters; an update removes it, appends
// the newly committed text and writes the new tail.
#include "earshot/ui/live/transcript_view.h"

#include <QPalette>
#include <QTextCursor>
#include <QTextDocument>
#include <algorithm>

namespace earshot::ui {

TranscriptView::TranscriptView(QWidget* parent) : QTextEdit(parent) {
    setObjectName(QStringLiteral("transcriptView"));
    setAcceptRichText(false);
    setPlaceholderText(tr("Press Start (Ctrl+Space) and speak; the transcript appears here."));
    m_committedFormat.setForeground(palette().color(QPalette::Text));
    m_tentativeFormat.setForeground(tentativeColor());
    m_tentativeFormat.setFontItalic(true);
    connect(document(), &QTextDocument::contentsChange, this, &TranscriptView::onContentsChange);
}

QColor TranscriptView::tentativeColor() { return QColor(0x8a, 0x8a, 0x8a); }

int TranscriptView::plainLength() const {
    // characterCount() counts the final paragraph separator that toPlainText() leaves out.
    return document()->characterCount() - 1;
}

void TranscriptView::applyText(const QString& committed, const QString& tentative) {
    m_programmatic = true;
    QTextCursor cursor(document());
    cursor.beginEditBlock();
    const int length = plainLength();
    cursor.setPosition(length - m_tentativeLength);
    cursor.setPosition(length, QTextCursor::KeepAnchor);
    cursor.removeSelectedText();
    cursor.insertText(committed, m_committedFormat);
    cursor.insertText(tentative, m_tentativeFormat);
    cursor.endEditBlock();
    m_tentativeLength = static_cast<int>(tentative.size());
    m_programmatic = false;
    if (!committed.isEmpty()) {
        emit committedTextChanged();
    }
    ensureCursorVisible();
}

void TranscriptView::setCommittedText(const QString& text) {
    m_programmatic = true;
    clear();
    QTextCursor cursor(document());
    cursor.insertText(text, m_committedFormat);
    m_tentativeLength = 0;
    m_programmatic = false;
    emit committedTextChanged();
}

void TranscriptView::clearTranscript() { setCommittedText(QString()); }

void TranscriptView::recolorCommitted() {
    // Everything before the current tail (an update may have written a new one since).
    m_programmatic = true;
    QTextCursor cursor(document());
    cursor.setPosition(0);
    cursor.setPosition(plainLength() - m_tentativeLength, QTextCursor::KeepAnchor);
    cursor.setCharFormat(m_committedFormat);
    m_programmatic = false;
}

QString TranscriptView::committedText() const {
    const QString all = toPlainText();
    return all.left(all.size() - m_tentativeLength);
}

QString TranscriptView::tentativeText() const { return toPlainText().right(m_tentativeLength); }

void TranscriptView::onContentsChange(int position, int charsRemoved, int charsAdded) {
    if (m_programmatic) {
        return;
    }
    // A user edit. One that reaches into the tentative tail makes the tail the user's text: it
    // counts as committed from now on and the next update writes a fresh tail after it.
    const int lengthBefore = plainLength() - charsAdded + charsRemoved;
    const int tailStart = lengthBefore - m_tentativeLength;
    const bool touchesTail =
        charsRemoved > 0 ? position + charsRemoved > tailStart : position > tailStart;
    if (m_tentativeLength > 0 && touchesTail) {
        m_tentativeLength = 0;
        // Recoloured after this signal returns: the document is not changed inside its own
        // contentsChange.
        QMetaObject::invokeMethod(this, &TranscriptView::recolorCommitted, Qt::QueuedConnection);
    }
    emit committedTextChanged();
}

}  // namespace earshot::ui
