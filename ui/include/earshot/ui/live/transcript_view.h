// TranscriptView: the live transcript. Committed text in the normal colour, the tentative tail
// greyed after it; the user may edit, copy and clear the committed text while dictating.
#pragma once

#include <QColor>
#include <QList>
#include <QString>
#include <QTextCharFormat>
#include <QTextEdit>

class QContextMenuEvent;
class QDropEvent;
class QInputMethodEvent;
class QKeyEvent;
class QMimeData;

namespace earshot::ui {

class TranscriptView : public QTextEdit {
    Q_OBJECT

public:
    explicit TranscriptView(QWidget* parent = nullptr);

    // Appends `committed` in the normal colour and shows `tentative` greyed after it, replacing
    // the previous tentative text. An update never touches text before the tentative tail, so
    // the user's edits to committed text stay.
    // The first words of a session (beginSession()) start a new paragraph, without Whisper's
    // leading space. `erasedChars` (spoken commands: "scratch that") are first taken off the end
    // of the committed text (code points, never past its start).
    void applyText(const QString& committed, const QString& tentative, int erasedChars = 0);
    // Dictation starts: its first words open a paragraph of their own after any earlier text.
    void beginSession();
    // The empty transcript's hint: how to start, or (listening) that the words will come; then
    // the model's note (what it can hear), if any.
    void setListening(bool listening);
    void setModelNote(const QString& note);
    // Replaces everything with `text` as committed text, no tentative tail (a reopened journal).
    // Forgets the undo history.
    void setCommittedText(const QString& text);
    // Removes everything; undoable (undoEdit() brings the committed text back).
    void clearTranscript();

    // The user's edits (typing, paste, drop, clear), undone and redone one at a time; updates
    // from the model are not steps of their own. Ctrl+Z and Ctrl+Shift+Z in the view.
    bool canUndo() const { return !m_undo.isEmpty(); }
    bool canRedo() const { return !m_redo.isEmpty(); }
    void undoEdit();
    void redoEdit();

    QString committedText() const;  // everything but the tentative tail
    QString tentativeText() const;
    // The colour tentative text is drawn in.
    static QColor tentativeColor();

Q_SIGNALS:
    // The committed text changed: an update committed words, the user edited, or it was cleared.
    void committedTextChanged();

protected:
    void keyPressEvent(QKeyEvent* event) override;
    void inputMethodEvent(QInputMethodEvent* event) override;
    void insertFromMimeData(const QMimeData* source) override;
    void dropEvent(QDropEvent* event) override;
    void contextMenuEvent(QContextMenuEvent* event) override;

private Q_SLOTS:
    void onContentsChange(int position, int charsRemoved, int charsAdded);
    void repair();

private:
    // One user edit of the committed text: at `position`, `removed` became `inserted`.
    struct EditStep {
        int position = 0;
        QString removed;
        QString inserted;
    };

    int committedLength() const { return static_cast<int>(m_text.size()) - m_tentativeLength; }
    void keepCursorOutOfTail();
    void eraseCommittedTail(int chars);
    EditStep committedEdit(int position, int removed, const QString& inserted) const;
    void recordEdit(const EditStep& step);
    void replaceCommitted(int position, int length, const QString& text);
    void applyStep(const EditStep& step);

    QTextCharFormat m_committedFormat;
    QTextCharFormat m_tentativeFormat;
    // What the transcript holds: the committed text, then the tentative tail (its last
    // m_tentativeLength characters). The document shows exactly this, except for the moment
    // between a user edit that reached into the tail and repair().
    QString m_text;
    QString m_documentText;  // the document's plain text as of the last change seen
    int m_tentativeLength = 0;
    bool m_programmatic = false;
    bool m_sessionStart = false;
    bool m_listening = false;
    QString m_modelNote;
    void updatePlaceholder();
    int m_userEditEnd = -1;  // where the user's last typed edit ended (-1: none since undo/reset)
                             // // no word of the running session committed yet
    // A user edit that reached into the tail, waiting for repair() to move it before the tail.
    bool m_repairPending = false;
    bool m_repairHintValid = false;
    EditStep m_repairHint;
    QList<EditStep> m_undo;
    QList<EditStep> m_redo;
};

}  // namespace earshot::ui
