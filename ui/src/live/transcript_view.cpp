// TranscriptView: the committed text and the greyed tentative tail in one document, the tail
// always its last m_tentativeLength characters. The user edits only the committed text: an edit
// that reaches into the tail is moved to just before it (so a commit never repeats words the user
// typed over), and the view keeps its own undo history of the user's edits, which the model's
// updates never disturb (they only ever append to the committed text).
#include "earshot/ui/live/transcript_view.h"

#include <QContextMenuEvent>
#include <QDropEvent>
#include <QInputMethodEvent>
#include <QKeyEvent>
#include <QMenu>
#include <QPalette>
#include <QStringView>
#include <QTextCursor>
#include <QTextDocument>
#include <algorithm>

namespace earshot::ui {

namespace {

constexpr qsizetype kMaxUndoSteps = 1000;

// One change of the plain text: at `position`, `removed` characters became `added` ones.
struct TextChange {
    int position = 0;
    int removed = 0;
    int added = 0;
};

// The change that turns `before` into `after`: the document's own report when it fits the two
// texts, else the span between their common prefix and suffix.
TextChange findChange(const QString& before, const QString& after, const TextChange& reported) {
    const TextChange& r = reported;
    const bool fits = r.position >= 0 && r.removed >= 0 && r.added >= 0 &&
                      r.position + r.removed <= before.size() &&
                      r.position + r.added <= after.size() &&
                      after.size() - r.added == before.size() - r.removed &&
                      QStringView(before).left(r.position) == QStringView(after).left(r.position) &&
                      QStringView(before).mid(r.position + r.removed) ==
                          QStringView(after).mid(r.position + r.added);
    if (fits) {
        return r;
    }
    const int shorter = static_cast<int>(std::min(before.size(), after.size()));
    int prefix = 0;
    while (prefix < shorter && before[prefix] == after[prefix]) {
        ++prefix;
    }
    int suffix = 0;
    while (suffix < shorter - prefix &&
           before[before.size() - 1 - suffix] == after[after.size() - 1 - suffix]) {
        ++suffix;
    }
    return {prefix, static_cast<int>(before.size()) - prefix - suffix,
            static_cast<int>(after.size()) - prefix - suffix};
}

// Keys that change the text where the cursor is (as opposed to moving it or copying).
bool editsText(const QKeyEvent* event) {
    switch (event->key()) {
        case Qt::Key_Backspace:
        case Qt::Key_Delete:
        case Qt::Key_Return:
        case Qt::Key_Enter:
        case Qt::Key_Tab:
            return true;
        default:
            break;
    }
    if (event->matches(QKeySequence::Paste) || event->matches(QKeySequence::Cut) ||
        event->matches(QKeySequence::DeleteStartOfWord) ||
        event->matches(QKeySequence::DeleteEndOfWord) ||
        event->matches(QKeySequence::DeleteEndOfLine) ||
        event->matches(QKeySequence::DeleteCompleteLine)) {
        return true;
    }
    return !event->text().isEmpty() && event->text().at(0).isPrint() &&
           (event->modifiers() & (Qt::ControlModifier | Qt::AltModifier | Qt::MetaModifier)) == 0;
}

}  // namespace

TranscriptView::TranscriptView(QWidget* parent) : QTextEdit(parent) {
    setObjectName(QStringLiteral("transcriptView"));
    setAcceptRichText(false);
    setUndoRedoEnabled(false);  // the view's own history: see undoEdit()
    updatePlaceholder();
    m_committedFormat.setForeground(palette().color(QPalette::Text));
    m_tentativeFormat.setForeground(tentativeColor());
    m_tentativeFormat.setFontItalic(true);
    connect(document(), &QTextDocument::contentsChange, this, &TranscriptView::onContentsChange);
}

QColor TranscriptView::tentativeColor() { return QColor(0x8a, 0x8a, 0x8a); }

namespace {
QString withoutLeadingSpace(const QString& text) {
    qsizetype i = 0;
    while (i < text.size() && text.at(i).isSpace()) ++i;
    return text.mid(i);
}
}  // namespace

void TranscriptView::beginSession() { m_sessionStart = true; }

void TranscriptView::setListening(bool listening) {
    m_listening = listening;
    updatePlaceholder();
}

void TranscriptView::setModelNote(const QString& note) {
    m_modelNote = note;
    updatePlaceholder();
}

void TranscriptView::updatePlaceholder() {
    const QString hint =
        m_listening ? tr("Listening: speak, and the words appear here as they are heard.")
                    : tr("Press Start (Ctrl+Space) and speak; the transcript appears here.");
    setPlaceholderText(m_modelNote.isEmpty() ? hint : hint + QStringLiteral("\n\n") + m_modelNote);
}

void TranscriptView::applyText(const QString& modelCommitted, const QString& modelTentative,
                               int erasedChars) {
    repair();
    if (erasedChars > 0) eraseCommittedTail(erasedChars);
    // Whisper's words come with their leading space. The first words of a session open a
    // paragraph of their own after earlier text, without that space (unless the user left the
    // line open with a space). Later words keep it, except after a space or a line break (text
    // the user clears and brings back with Ctrl+Z goes before them).
    QString committed = modelCommitted;
    QString tentative = modelTentative;
    const QString before = committedText();
    QString& first = committed.isEmpty() ? tentative : committed;
    if (!first.isEmpty()) {
        // Text that ends in a space or a line break (the user's own typing, often) takes the
        // next word without another space: "Dear John, milk", never "Dear John,  milk".
        const bool beforeEndsInSpace = !before.isEmpty() && before.back().isSpace();
        if (m_sessionStart) {
            QString lead;
            if (before.isEmpty() || before.endsWith(QStringLiteral("\n\n")) ||
                (beforeEndsInSpace && !before.endsWith(QLatin1Char('\n')))) {
                // Nothing yet, a paragraph already open, or a line the user left open with a
                // space to go on: the words go right there.
            } else if (before.endsWith(QLatin1Char('\n'))) {
                lead = QStringLiteral("\n");
            } else {
                lead = QStringLiteral("\n\n");
            }
            first = lead + withoutLeadingSpace(first);
        } else if (beforeEndsInSpace) {
            first = withoutLeadingSpace(first);
        }
        if (!committed.isEmpty()) m_sessionStart = false;
    }
    // A caret at the end of the committed text (or in the tail, where typing would go to that
    // end) stays at the end of the committed text: where the user's next keys land.
    // A caret right after what the user just typed stays there: the model's words go after it,
    // so a word being typed is never split by a commit. Otherwise a caret at the end of the
    // committed text (or in the tail) follows that end.
    const QTextCursor caret = textCursor();
    const int caretPosition = caret.position();
    const bool typing = !caret.hasSelection() && caretPosition == m_userEditEnd &&
                        caretPosition <= committedLength();
    const bool caretAtEnd = !typing && !caret.hasSelection() && caretPosition >= committedLength();
    m_programmatic = true;
    QTextCursor cursor(document());
    cursor.beginEditBlock();
    cursor.setPosition(committedLength());
    cursor.movePosition(QTextCursor::End, QTextCursor::KeepAnchor);
    cursor.removeSelectedText();
    cursor.insertText(committed, m_committedFormat);
    cursor.insertText(tentative, m_tentativeFormat);
    cursor.endEditBlock();
    m_programmatic = false;
    m_text = m_text.left(committedLength()) + committed + tentative;
    m_tentativeLength = static_cast<int>(tentative.size());
    m_documentText = toPlainText();
    if (caretAtEnd || typing) {
        QTextCursor kept = textCursor();
        kept.setPosition(caretAtEnd ? committedLength() : caretPosition);
        setTextCursor(kept);
    }
    if (!committed.isEmpty()) {
        Q_EMIT committedTextChanged();
    }
    ensureCursorVisible();
}

void TranscriptView::setCommittedText(const QString& text) {
    m_repairPending = false;
    m_programmatic = true;
    clear();
    QTextCursor cursor(document());
    cursor.insertText(text, m_committedFormat);
    m_programmatic = false;
    m_text = text;
    m_documentText = toPlainText();
    m_tentativeLength = 0;
    m_userEditEnd = -1;
    m_undo.clear();
    m_redo.clear();
    Q_EMIT committedTextChanged();
}

void TranscriptView::clearTranscript() {
    repair();
    const QString committed = committedText();
    m_programmatic = true;
    clear();
    m_programmatic = false;
    m_text.clear();
    m_documentText.clear();
    m_tentativeLength = 0;
    m_userEditEnd = -1;
    if (!committed.isEmpty()) {
        // A step of its own, never merged with typing around it.
        m_redo.clear();
        m_undo.append({0, committed, QString()});
    }
    Q_EMIT committedTextChanged();
}

QString TranscriptView::committedText() const { return m_text.left(committedLength()); }

void TranscriptView::eraseCommittedTail(int chars) {
    // Code points to UTF-16 units: a surrogate pair is one character.
    int units = 0;
    const int end = committedLength();
    for (int left = chars; left > 0 && units < end; --left) {
        ++units;
        if (units < end && m_text[end - units].isLowSurrogate() &&
            m_text[end - units - 1].isHighSurrogate()) {
            ++units;
        }
    }
    if (units == 0) return;
    m_programmatic = true;
    QTextCursor cursor(document());
    cursor.setPosition(end - units);
    cursor.setPosition(end, QTextCursor::KeepAnchor);
    cursor.removeSelectedText();
    m_programmatic = false;
    m_text.remove(end - units, units);
    m_documentText = toPlainText();
    Q_EMIT committedTextChanged();
}

QString TranscriptView::tentativeText() const { return m_text.right(m_tentativeLength); }

void TranscriptView::undoEdit() {
    repair();
    if (m_undo.isEmpty()) {
        return;
    }
    const EditStep step = m_undo.takeLast();
    applyStep({step.position, step.inserted, step.removed});
    m_redo.append(step);
}

void TranscriptView::redoEdit() {
    repair();
    if (m_redo.isEmpty()) {
        return;
    }
    const EditStep step = m_redo.takeLast();
    applyStep(step);
    m_undo.append(step);
}

void TranscriptView::applyStep(const EditStep& step) {
    m_userEditEnd = -1;
    // Updates only append after the committed text and the steps are undone in order, so a
    // step's text is where it was; should that ever not hold, the history is dropped rather than
    // applied to the wrong words.
    const int length = static_cast<int>(step.removed.size());
    if (step.position + length > committedLength() ||
        QStringView(m_text).mid(step.position, length) != step.removed) {
        m_undo.clear();
        m_redo.clear();
        return;
    }
    replaceCommitted(step.position, length, step.inserted);
    QTextCursor cursor = textCursor();
    cursor.setPosition(step.position + static_cast<int>(step.inserted.size()));
    setTextCursor(cursor);
    Q_EMIT committedTextChanged();
}

void TranscriptView::replaceCommitted(int position, int length, const QString& text) {
    m_programmatic = true;
    QTextCursor cursor(document());
    cursor.setPosition(position);
    cursor.setPosition(position + length, QTextCursor::KeepAnchor);
    cursor.insertText(text, m_committedFormat);
    m_programmatic = false;
    m_text.replace(position, length, text);
    m_documentText = toPlainText();
}

void TranscriptView::recordEdit(const EditStep& step) {
    m_userEditEnd = step.position + static_cast<int>(step.inserted.size());
    m_redo.clear();
    if (!m_undo.isEmpty()) {
        EditStep& last = m_undo.last();
        const bool typing = last.removed.isEmpty() && step.removed.isEmpty() &&
                            step.position == last.position + last.inserted.size();
        if (typing) {
            last.inserted += step.inserted;
            return;
        }
        const bool erasing = last.inserted.isEmpty() && step.inserted.isEmpty() &&
                             last.position > 0 &&
                             step.position + step.removed.size() == last.position;
        if (erasing) {
            last.position = step.position;
            last.removed.prepend(step.removed);
            return;
        }
    }
    m_undo.append(step);
    if (m_undo.size() > kMaxUndoSteps) {
        m_undo.removeFirst();
    }
}

TranscriptView::EditStep TranscriptView::committedEdit(int position, int removed,
                                                       const QString& inserted) const {
    // What the user removed of the committed text stays removed; what they removed of the tail
    // is the model's to change. What they inserted goes where the tail starts, at the latest.
    const int tailStart = committedLength();
    const int start = std::min(position, tailStart);
    const int end = std::clamp(position + removed, start, tailStart);
    return {start, m_text.mid(start, end - start), inserted};
}

void TranscriptView::onContentsChange(int position, int charsRemoved, int charsAdded) {
    if (m_programmatic) {
        return;
    }
    const QString now = toPlainText();
    if (m_repairPending) {
        // A second edit before the first was moved: repair() compares the whole text instead.
        m_repairHintValid = false;
        m_documentText = now;
        return;
    }
    const TextChange change = findChange(m_documentText, now, {position, charsRemoved, charsAdded});
    m_documentText = now;
    if (change.removed == 0 && change.added == 0) {
        return;  // formats only
    }
    const QString inserted = now.mid(change.position, change.added);
    if (change.position + change.removed <= committedLength()) {
        // Inside the committed text (or right at its end): the document is right as it is.
        recordEdit({change.position, m_text.mid(change.position, change.removed), inserted});
        m_text = now;
        Q_EMIT committedTextChanged();
        return;
    }
    // Into the tail. The document is not changed inside its own contentsChange: the edit is
    // moved before the tail right after the event that made it, or failing that, from the
    // event loop.
    m_repairPending = true;
    m_repairHintValid = true;
    m_repairHint = committedEdit(change.position, change.removed, inserted);
    QMetaObject::invokeMethod(this, &TranscriptView::repair, Qt::QueuedConnection);
}

void TranscriptView::repair() {
    if (!m_repairPending) {
        return;
    }
    m_repairPending = false;
    EditStep step = m_repairHint;
    if (!m_repairHintValid) {
        const QString now = toPlainText();
        const TextChange change = findChange(m_text, now, {-1, 0, 0});
        step =
            committedEdit(change.position, change.removed, now.mid(change.position, change.added));
    }
    QString committed = committedText();
    committed.replace(step.position, step.removed.size(), step.inserted);
    const QString tail = tentativeText();
    // The document is as m_text up to step.position; from there on it is rewritten.
    m_programmatic = true;
    QTextCursor cursor(document());
    cursor.beginEditBlock();
    cursor.setPosition(step.position);
    cursor.movePosition(QTextCursor::End, QTextCursor::KeepAnchor);
    cursor.removeSelectedText();
    cursor.insertText(committed.mid(step.position), m_committedFormat);
    cursor.insertText(tail, m_tentativeFormat);
    cursor.endEditBlock();
    m_programmatic = false;
    m_text = committed + tail;
    m_documentText = toPlainText();
    QTextCursor caret = textCursor();
    caret.setPosition(step.position + static_cast<int>(step.inserted.size()));
    setTextCursor(caret);
    if (!step.removed.isEmpty() || !step.inserted.isEmpty()) {
        recordEdit(step);
        Q_EMIT committedTextChanged();
    }
}

void TranscriptView::keepCursorOutOfTail() {
    if (m_tentativeLength == 0) {
        return;
    }
    const int tailStart = committedLength();
    QTextCursor cursor = textCursor();
    const int anchor = std::min(cursor.anchor(), tailStart);
    const int position = std::min(cursor.position(), tailStart);
    if (anchor != cursor.anchor() || position != cursor.position()) {
        cursor.setPosition(anchor);
        cursor.setPosition(position, QTextCursor::KeepAnchor);
        setTextCursor(cursor);
    }
    // Typed text takes the committed colour even where the character before it is grey.
    m_programmatic = true;
    setCurrentCharFormat(m_committedFormat);
    m_programmatic = false;
}

void TranscriptView::keyPressEvent(QKeyEvent* event) {
    repair();
    if (event->matches(QKeySequence::Undo)) {
        undoEdit();
        event->accept();
        return;
    }
    if (event->matches(QKeySequence::Redo)) {
        redoEdit();
        event->accept();
        return;
    }
    if (editsText(event)) {
        keepCursorOutOfTail();
    }
    QTextEdit::keyPressEvent(event);
    repair();
}

void TranscriptView::inputMethodEvent(QInputMethodEvent* event) {
    repair();
    if (!event->commitString().isEmpty()) {
        keepCursorOutOfTail();
    }
    QTextEdit::inputMethodEvent(event);
    repair();
}

void TranscriptView::insertFromMimeData(const QMimeData* source) {
    repair();
    keepCursorOutOfTail();
    QTextEdit::insertFromMimeData(source);
}

void TranscriptView::dropEvent(QDropEvent* event) {
    repair();
    QTextEdit::dropEvent(event);
    repair();
}

void TranscriptView::contextMenuEvent(QContextMenuEvent* event) {
    repair();
    QMenu* menu = createStandardContextMenu(event->pos());
    // The standard Undo and Redo entries act on the document's own history, which is off.
    for (QAction* action : menu->actions()) {
        if (action->objectName() == QStringLiteral("edit-undo")) {
            action->disconnect();
            action->setEnabled(canUndo());
            connect(action, &QAction::triggered, this, &TranscriptView::undoEdit);
        } else if (action->objectName() == QStringLiteral("edit-redo")) {
            action->disconnect();
            action->setEnabled(canRedo());
            connect(action, &QAction::triggered, this, &TranscriptView::redoEdit);
        }
    }
    menu->exec(event->globalPos());
    delete menu;
}

}  // namespace earshot::ui
