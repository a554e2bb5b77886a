// TranscriptView: the live transcript. Committed text in the normal colour, the tentative tail
// greyed after it; the user may edit, copy and clear the committed text while dictating.
#pragma once

#include <QColor>
#include <QString>
#include <QTextCharFormat>
#include <QTextEdit>

namespace earshot::ui {

class TranscriptView : public QTextEdit {
    Q_OBJECT

public:
    explicit TranscriptView(QWidget* parent = nullptr);

    // Appends `committed` in the normal colour and shows `tentative` greyed after it, replacing
    // the previous tentative text. An update never touches text before the tentative tail, so
    // the user's edits to committed text stay.
    void applyText(const QString& committed, const QString& tentative);
    // Replaces everything with `text` as committed text, no tentative tail (a reopened journal).
    void setCommittedText(const QString& text);
    void clearTranscript();

    QString committedText() const;  // everything but the tentative tail
    QString tentativeText() const;
    // The colour tentative text is drawn in.
    static QColor tentativeColor();

signals:
    // The committed text changed: an update committed words, the user edited, or it was cleared.
    void committedTextChanged();

private slots:
    void onContentsChange(int position, int charsRemoved, int charsAdded);
    void recolorCommitted();

private:
    int plainLength() const;

    QTextCharFormat m_committedFormat;
    QTextCharFormat m_tentativeFormat;
    int m_tentativeLength = 0;  // the tentative tail: the last m_tentativeLength characters
    bool m_programmatic = false;
};

}  // namespace earshot::ui
